"""Checking a launch's arguments against the manifest, before anything touches the GPU.
Works on anything shaped like a torch tensor (dtype, device, numel(), is_contiguous(),
data_ptr()) or a CuPy array (dtype, size, flags.c_contiguous, data.ptr,
__cuda_array_interface__); imports neither."""
from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from . import dtypes


@dataclass
class Buffer:
    """What the launcher learnt about one buffer argument."""
    obj: object
    framework: str          # "torch" or "cupy"
    ptr: int
    device: int | None   # CUDA device ordinal (None: the current one)


def _describe(x: Any) -> tuple[str, str, int, bool, int, str, int | None] | None:
    """(framework, dtype name, numel, contiguous, data pointer, device type, device index) of a
    tensor-like `x`, or None when `x` is not one."""
    if callable(getattr(x, "data_ptr", None)):  # torch.Tensor (and look-alikes)
        dev = getattr(x, "device", "cpu")
        dtype_ = getattr(dev, "type", None) or str(dev).split(":")[0]
        index = getattr(dev, "index", None)
        if index is None and ":" in str(dev):
            index = int(str(dev).split(":")[1])
        numel = x.numel() if callable(getattr(x, "numel", None)) else int(getattr(x, "size", 0))
        contiguous = x.is_contiguous() if callable(getattr(x, "is_contiguous", None)) else True
        return "torch", dtypes.name_of(x.dtype), numel, contiguous, int(x.data_ptr()), dtype_, index
    if hasattr(x, "__cuda_array_interface__"):  # CuPy (and other CUDA arrays)
        flags = getattr(x, "flags", None)
        contiguous = bool(getattr(flags, "c_contiguous", True)) if flags is not None else \
            x.__cuda_array_interface__.get("strides") is None
        data: Any = getattr(x, "data", None)  # CuPy's MemoryPointer, or None
        ptr = int(data.ptr) if hasattr(data, "ptr") else int(x.__cuda_array_interface__["data"][0])
        dev = getattr(x, "device", None)
        index = getattr(dev, "id", None)
        return "cupy", dtypes.name_of(x.dtype), int(x.size), contiguous, ptr, "cuda", index
    if hasattr(x, "dtype") and hasattr(x, "shape") and hasattr(x, "size"):  # a NumPy array
        return "numpy", dtypes.name_of(x.dtype), int(x.size), True, 0, "cpu", None
    return None


def check_buffer(x: Any, spec: dict[str, Any], i: int, where: str) -> Buffer:
    """Checks argument `i` (`spec`: its manifest entry, a buffer) and returns a Buffer, or
    raises TypeError (not a CUDA tensor, wrong dtype) / ValueError (wrong device, size,
    layout or alignment) naming the argument."""
    d = _describe(x)
    want = spec["dtype"]
    name = dtypes.dtype_name(want)
    label = f"{where}: argument {i}"
    if d is None:
        raise TypeError(f"{label} must be a CUDA tensor of {spec['extent']} {want} ({name}) elements, "
                        f"got {type(x).__name__}")
    framework, got, numel, contiguous, ptr, devtype, index = d
    if framework == "numpy":
        raise TypeError(f"{label} is a NumPy array in host memory; pass a CUDA torch tensor or CuPy array")
    if devtype != "cuda":
        raise ValueError(f"{label} is on device '{devtype}'; it must be on a CUDA device (e.g. tensor.cuda())")
    if got != name:
        raise TypeError(f"{label} must have dtype {name} ({want}), got {got}")
    if spec["extent"] >= 0 and numel != spec["extent"]:
        raise ValueError(f"{label} must have {spec['extent']} elements ({want}), got {numel}")
    if not contiguous:
        raise ValueError(f"{label} must be contiguous (the kernel indexes it densely); "
                         f"pass tensor.contiguous()")
    align = spec["align"]
    if ptr % align:
        raise ValueError(f"{label} must be {align}-byte aligned (axe.align = {align}); "
                         f"its data starts at {ptr:#x}")
    return Buffer(x, framework, ptr, index)


_SCALAR_FLOATS = ("f16", "bf16", "f32", "f64")
_Scalar = TypeVar("_Scalar")


def check_scalar(x: _Scalar, spec: dict[str, Any], i: int, where: str) -> _Scalar:
    """Checks a scalar argument (index, iN, fN): a Python or NumPy number of the right kind.
    (Scalars are not kernel parameters: the launch shapes are constants.)"""
    t = spec["type"]
    kind = numbers.Real if t in _SCALAR_FLOATS else numbers.Integral
    if isinstance(x, bool) or not isinstance(x, kind):
        raise TypeError(f"{where}: argument {i} must be {'a number' if kind is numbers.Real else 'an integer'} "
                        f"({t}), got {type(x).__name__}")
    return x


def check_arguments(args: Sequence[Any], arguments: Sequence[dict[str, Any]], where: str) -> list[Any]:
    """Checks `args` against the manifest's "arguments"; returns the list, with a Buffer for
    each buffer argument and the value itself for each scalar. All buffers must share a device."""
    if len(args) != len(arguments):
        raise TypeError(f"{where} takes {len(arguments)} arguments "
                        f"({', '.join(_show(a) for a in arguments)}), got {len(args)}")
    out: list[Any] = []  # a Buffer or the scalar itself, as the manifest says of each position
    for i, (x, spec) in enumerate(zip(args, arguments)):
        if spec["kind"] in ("buffer", "workspace"):
            out.append(check_buffer(x, spec, i, where))
        elif spec["kind"] == "peer_table":
            # The device addresses of a symmetric buffer on every rank: int64[devices].
            table = {"kind": "buffer", "dtype": "i64", "extent": spec["devices"], "align": 8}
            out.append(check_buffer(x, table, i, where))
        else:
            out.append(check_scalar(x, spec, i, where))
    # A mesh rank names one of the devices of the mesh's peer tables.
    meshes = {spec["devices"] for spec in arguments if spec["kind"] == "peer_table"}
    for i, (x, spec) in enumerate(zip(args, arguments)):
        if spec["kind"] == "rank" and any(not 0 <= x < n for n in meshes):
            raise ValueError(f"{where}: argument {i} is the mesh rank, {x} is not in [0, {min(meshes)})")
    devices = {b.device for b in out if isinstance(b, Buffer) and b.device is not None}
    if len(devices) > 1:
        raise ValueError(f"{where}: the buffers are on different CUDA devices {sorted(devices)}")
    return out


def _show(spec: dict[str, Any]) -> str:
    if spec["kind"] == "workspace":
        return f"workspace {spec['dtype']}[{spec['extent']}]"
    if spec["kind"] == "buffer":
        return f"{spec['dtype']}[{spec['extent'] if spec['extent'] >= 0 else '?'}]"
    if spec["kind"] == "peer_table":
        return f"peer table i64[{spec['devices']}] of argument {spec['of']}"
    return spec.get("type", "scalar")
