"""Fake `nki.language` (NumPy oracle). Only what axe-to-nki emits; limits are enforced."""
import numpy as np

PMAX = 128                    # nl.tile_size.pmax
PSUM_BANK_BYTES = 2048        # one PSUM bank per partition (512 fp32)
PSUM_PARTITION_BYTES = 16384  # 8 banks

float16 = np.float16
float32 = np.float32
bfloat16 = np.float32  # NumPy has no bfloat16; the oracle computes bf16 tiles in fp32

sbuf = "sbuf"
psum = "psum"
hbm = "hbm"


class NkiError(Exception):
    """A violation of a documented NKI rule."""


class Tensor:
    """A tensor in one buffer. On-chip tensors are (partition, free...) arrays."""

    def __init__(self, data, buffer, from_matmul=False):
        self.data = data
        self.buffer = buffer
        self.from_matmul = from_matmul

    @property
    def shape(self):
        return self.data.shape

    @property
    def dtype(self):
        return self.data.dtype

    def __getitem__(self, idx):
        view = self.data[idx]
        if not isinstance(view, np.ndarray):
            view = np.asarray(view).reshape(())
        return Tensor(view, self.buffer)

    def __setitem__(self, idx, value):
        if not isinstance(value, Tensor):
            raise NkiError("only tiles can be assigned into a tensor")
        if self.buffer == hbm:
            raise NkiError("write HBM with nl.store, not by assignment")
        target = self.data[idx]
        if target.shape != value.shape:
            raise NkiError(f"assigning a tile of shape {value.shape} into a region of shape {target.shape}")
        if value.from_matmul:
            _check_bank(self, idx)
        self.data[idx] = value.data.astype(self.data.dtype)

    def __iadd__(self, other):
        if not isinstance(other, Tensor):
            raise NkiError("+= needs a tile")
        if self.buffer != psum or not other.from_matmul:
            raise NkiError("accumulation (+=) is for nc_matmul results into PSUM")
        self.data += other.data.astype(self.data.dtype)
        self.from_matmul = True
        return self


def _check_bank(t, idx):
    if t.buffer != psum:
        raise NkiError("nc_matmul results are written to PSUM")
    f = idx[1] if isinstance(idx, tuple) and len(idx) > 1 else slice(None)
    start, stop, _ = f.indices(t.data.shape[1])
    esize = t.data.dtype.itemsize
    if (start * esize) // PSUM_BANK_BYTES != ((stop - 1) * esize) // PSUM_BANK_BYTES:
        raise NkiError(f"matmul output free range [{start}, {stop}) crosses a 2 KiB PSUM bank")


def _check_tile(x, what):
    if not isinstance(x, Tensor):
        raise NkiError(f"{what} must be a tile")
    if x.buffer not in (sbuf, psum):
        raise NkiError(f"{what} must be in SBUF or PSUM, got {x.buffer}")
    if x.data.ndim < 1 or x.shape[0] > PMAX:
        raise NkiError(f"{what}: partition dimension {x.shape[:1]} exceeds {PMAX}")


def ndarray(shape, dtype, buffer=None, name=""):
    buffer = buffer or sbuf
    shape = tuple(shape)
    data = np.full(shape, np.nan, dtype=dtype)  # uninitialized: NaN exposes missing writes
    if buffer in (sbuf, psum):
        if shape[0] > PMAX:
            raise NkiError(f"partition dimension {shape[0]} exceeds {PMAX}")
        per_partition = int(np.prod(shape[1:])) * data.dtype.itemsize
        if buffer == psum and per_partition > PSUM_PARTITION_BYTES:
            raise NkiError(f"PSUM tensor needs {per_partition} bytes per partition (> {PSUM_PARTITION_BYTES})")
    return Tensor(data, buffer)


def full(shape, fill_value, dtype, buffer=None, name=""):
    t = ndarray(shape, dtype, buffer=buffer, name=name)
    t.data[...] = fill_value
    return t


def affine_range(start, stop=None, step=1):
    if stop is None:
        start, stop = 0, start
    return range(start, stop, step)


def load(src, *, mask=None, dtype=None, **kwargs):
    if not isinstance(src, Tensor) or src.buffer != hbm:
        raise NkiError("nl.load reads an HBM tensor")
    if src.data.ndim < 1 or src.shape[0] > PMAX:
        raise NkiError(f"nl.load: partition dimension {src.shape[:1]} exceeds {PMAX}")
    return Tensor(src.data.astype(dtype or src.dtype).copy(), sbuf)


def load_transpose2d(src, *, mask=None, dtype=None, **kwargs):
    if not isinstance(src, Tensor) or src.buffer != hbm or src.data.ndim != 2:
        raise NkiError("nl.load_transpose2d reads a 2-D HBM tensor")
    if src.shape[1] > PMAX:
        raise NkiError(f"nl.load_transpose2d: partition dimension {src.shape[1]} exceeds {PMAX}")
    return Tensor(src.data.T.astype(dtype or src.dtype).copy(), sbuf)


def store(dst, value, *, mask=None, **kwargs):
    if not isinstance(dst, Tensor) or dst.buffer != hbm:
        raise NkiError("nl.store writes an HBM tensor")
    _check_tile(value, "nl.store value")
    if dst.shape != value.shape:
        raise NkiError(f"nl.store: tile shape {value.shape} != destination shape {dst.shape}")
    dst.data[...] = value.data.astype(dst.dtype)


def copy(src, *, mask=None, dtype=None, **kwargs):
    _check_tile(src, "nl.copy source")
    return Tensor(src.data.astype(dtype or src.dtype).copy(), sbuf)


def _elementwise(fn, *xs, dtype=None):
    arrays = []
    for i, x in enumerate(xs):
        if isinstance(x, Tensor):
            _check_tile(x, f"operand {i}")
            arrays.append(x.data)
        else:
            arrays.append(x)
    tiles = [a for a in arrays if isinstance(a, np.ndarray)]
    out_dtype = dtype or np.result_type(*[a.dtype for a in tiles])
    with np.errstate(all="ignore"):
        out = fn(*[a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in arrays])
    return Tensor(np.asarray(out).astype(out_dtype), sbuf)


def exp(x, *, dtype=None, mask=None, **kwargs):
    return _elementwise(np.exp, x, dtype=dtype)


def reciprocal(x, *, dtype=None, mask=None, **kwargs):
    return _elementwise(lambda a: 1.0 / a, x, dtype=dtype)


def add(x, y, *, dtype=None, mask=None, **kwargs):
    return _elementwise(np.add, x, y, dtype=dtype)


def subtract(x, y, *, dtype=None, mask=None, **kwargs):
    return _elementwise(np.subtract, x, y, dtype=dtype)


def multiply(x, y, *, dtype=None, mask=None, **kwargs):
    return _elementwise(np.multiply, x, y, dtype=dtype)


def _reduce(fn, x, axis, dtype, keepdims):
    _check_tile(x, "reduce input")
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    if 0 in axes:
        raise NkiError("reductions must be along free dimensions, not the partition dimension (0)")
    out = fn(x.data.astype(np.float32), axis=axes, keepdims=keepdims)
    return Tensor(out.astype(dtype or x.dtype), sbuf)


def max(x, axis, *, dtype=None, mask=None, keepdims=False, **kwargs):  # noqa: A001
    return _reduce(np.max, x, axis, dtype, keepdims)


def sum(x, axis, *, dtype=None, mask=None, keepdims=False, **kwargs):  # noqa: A001
    return _reduce(np.sum, x, axis, dtype, keepdims)
