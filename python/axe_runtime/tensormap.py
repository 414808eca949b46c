"""TMA tensor maps: the manifest's description turned into `cuTensorMapEncodeTiled`'s
arguments (a pure function, testable without a GPU), and the encoding itself."""
from __future__ import annotations

import ctypes
from typing import Any, TypedDict

from . import dtypes

# CUtensorMapSwizzle (cuda.h): NONE=0, 32B=1, 64B=2, 128B=3.
SWIZZLE_ENUM = {0: 0, 32: 1, 64: 2, 128: 3}
INTERLEAVE_NONE = 0      # CU_TENSOR_MAP_INTERLEAVE_NONE
L2_PROMOTION_NONE = 0    # CU_TENSOR_MAP_L2_PROMOTION_NONE
OOB_FILL_NONE = 0        # CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE: out-of-bounds elements read as zero
TENSOR_MAP_BYTES = 128   # sizeof(CUtensorMap)


class TensorMapFields(TypedDict):
    """What `tensor_map_fields` returns: cuTensorMapEncodeTiled's arguments, as plain ints."""
    dtype: int
    rank: int
    dims: list[int]
    strides: list[int]
    box: list[int]
    element_strides: list[int]
    interleave: int
    swizzle: int
    l2_promotion: int
    oob_fill: int


def tensor_map_fields(param: dict[str, Any], elt_bytes: int | None = None) -> TensorMapFields:
    """The arguments of cuTensorMapEncodeTiled for a manifest `tensor_map` param, as plain
    ints: the driver's order (innermost dimension first), strides in bytes without the
    innermost one. Checks the driver's documented limits and raises ValueError on a map it
    would refuse.

    Returns {"dtype", "rank", "dims", "strides", "box", "element_strides", "interleave",
    "swizzle", "l2_promotion", "oob_fill"}."""
    if elt_bytes is None:
        elt_bytes = dtypes.element_bytes(param["dtype"])
    dims, strides, box = list(param["dims"]), list(param["strides"]), list(param["box"])
    rank = len(dims)
    what = f"tensor map of argument {param.get('arg', '?')}"
    if not 1 <= rank <= 5 or len(strides) != rank or len(box) != rank:
        raise ValueError(f"{what}: dims {dims}, strides {strides}, box {box}: rank 1 to 5, all the same length")
    if strides[-1] != 1:
        raise ValueError(f"{what}: the innermost stride must be 1 element (the driver has no innermost stride), got {strides}")
    if param["swizzle"] not in SWIZZLE_ENUM:
        raise ValueError(f"{what}: swizzle {param['swizzle']} bytes; expected one of {sorted(SWIZZLE_ENUM)}")
    byte_strides = [s * elt_bytes for s in reversed(strides[:-1])]
    for s in byte_strides:
        if s % 16 or s >= 1 << 40:
            raise ValueError(f"{what}: stride of {s} bytes; the driver needs multiples of 16 below 2^40")
    for d in dims:
        if not 0 < d <= 1 << 32:
            raise ValueError(f"{what}: dimension {d} out of the driver's range (1 to 2^32)")
    for b in box:
        if not 0 < b <= 256:
            raise ValueError(f"{what}: box size {b}; the driver takes 1 to 256")
    if (box[-1] * elt_bytes) % 16:
        raise ValueError(f"{what}: the innermost box row is {box[-1] * elt_bytes} bytes; the driver needs a multiple of 16")
    if param["swizzle"] and box[-1] * elt_bytes > param["swizzle"]:
        raise ValueError(f"{what}: the innermost box row ({box[-1] * elt_bytes} bytes) exceeds the swizzle span ({param['swizzle']} bytes)")
    return {
        "dtype": dtypes.tensor_map_dtype(param["dtype"]),
        "rank": rank,
        "dims": list(reversed(dims)),
        "strides": byte_strides,
        "box": list(reversed(box)),
        "element_strides": [1] * rank,
        "interleave": INTERLEAVE_NONE,
        "swizzle": SWIZZLE_ENUM[param["swizzle"]],
        "l2_promotion": L2_PROMOTION_NONE,
        "oob_fill": OOB_FILL_NONE,
    }


def _enum(cls: Any, value: int) -> Any:
    try:
        return cls(value)
    except Exception:  # an older binding whose enums are plain ints
        return value


def encode_with_cuda_bindings(fields: TensorMapFields, address: int) -> bytes:
    """The 128 bytes of the CUtensorMap for global `address`, through cuda.bindings.driver."""
    from cuda.bindings import driver as cuda
    err, tmap = cuda.cuTensorMapEncodeTiled(
        _enum(cuda.CUtensorMapDataType, fields["dtype"]),
        fields["rank"],
        address,
        [cuda.cuuint64_t(v) for v in fields["dims"]],
        [cuda.cuuint64_t(v) for v in fields["strides"]],
        [cuda.cuuint32_t(v) for v in fields["box"]],
        [cuda.cuuint32_t(v) for v in fields["element_strides"]],
        _enum(cuda.CUtensorMapInterleave, fields["interleave"]),
        _enum(cuda.CUtensorMapSwizzle, fields["swizzle"]),
        _enum(cuda.CUtensorMapL2promotion, fields["l2_promotion"]),
        _enum(cuda.CUtensorMapFloatOOBfill, fields["oob_fill"]),
    )
    if err != cuda.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuTensorMapEncodeTiled failed ({err}) for {fields}")
    return ctypes.string_at(tmap.getPtr(), TENSOR_MAP_BYTES)


_libcuda: ctypes.CDLL | None = None


def encode_with_libcuda(fields: TensorMapFields, address: int) -> bytes:
    """The same through libcuda.so.1 directly (ctypes), when cuda-bindings is not installed."""
    global _libcuda
    if _libcuda is None:
        lib = ctypes.CDLL("libcuda.so.1")
        lib.cuTensorMapEncodeTiled.restype = ctypes.c_int
        _libcuda = lib
    rank = fields["rank"]
    # The CUtensorMap must be 64-byte aligned: ctypes does not promise that, so align by hand.
    buf = ctypes.create_string_buffer(TENSOR_MAP_BYTES + 64)
    at = (ctypes.addressof(buf) + 63) & ~63
    rc = _libcuda.cuTensorMapEncodeTiled(
        ctypes.c_void_p(at), fields["dtype"], rank, ctypes.c_void_p(address),
        (ctypes.c_uint64 * rank)(*fields["dims"]),
        (ctypes.c_uint64 * max(rank - 1, 1))(*(fields["strides"] or [0])),
        (ctypes.c_uint32 * rank)(*fields["box"]),
        (ctypes.c_uint32 * rank)(*fields["element_strides"]),
        fields["interleave"], fields["swizzle"], fields["l2_promotion"], fields["oob_fill"])
    if rc != 0:
        raise RuntimeError(f"cuTensorMapEncodeTiled failed (CUresult {rc}) for {fields}")
    return ctypes.string_at(at, TENSOR_MAP_BYTES)


def encode(fields: TensorMapFields, address: int) -> bytes:
    """The 128-byte CUtensorMap for `fields` (tensor_map_fields) over global `address`."""
    if address % 16:
        raise ValueError(f"a tensor map's global address must be 16-byte aligned, got {address:#x}")
    try:
        from cuda.bindings import driver  # noqa: F401
    except ImportError:
        return encode_with_libcuda(fields, address)
    return encode_with_cuda_bindings(fields, address)
