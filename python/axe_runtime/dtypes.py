"""Element types as the manifest names them (MLIR's spelling) and their PyTorch, NumPy and
CUtensorMapDataType counterparts. Pure tables: nothing here imports torch or a CUDA library."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np


# MLIR name: (bytes, torch / NumPy dtype name, CUtensorMapDataType).
# CUtensorMapDataType (cuda.h): UINT8=0, UINT16=1, UINT32=2, INT32=3, UINT64=4, INT64=5,
# FLOAT16=6, FLOAT32=7, FLOAT64=8, BFLOAT16=9, FLOAT32_FTZ=10, TFLOAT32=11, TFLOAT32_FTZ=12.
# The driver has no signed 8/16-bit nor FP8 types: a tensor map moves bytes, so those use the
# unsigned type of their width (as CUTLASS does for FP8).
DTYPES: dict[str, tuple[int, str, int]] = {
    "f16": (2, "float16", 6),
    "bf16": (2, "bfloat16", 9),
    "f32": (4, "float32", 7),
    "f64": (8, "float64", 8),
    "i8": (1, "int8", 0),
    "i16": (2, "int16", 1),
    "i32": (4, "int32", 3),
    "i64": (8, "int64", 5),
    "f8E4M3FN": (1, "float8_e4m3fn", 0),
    "f8E5M2": (1, "float8_e5m2", 0),
}


def _known(name: str) -> tuple[int, str, int]:
    if name not in DTYPES:
        raise ValueError(f"unknown element type {name!r}; the runtime knows {', '.join(DTYPES)}")
    return DTYPES[name]


def element_bytes(name: str) -> int:
    """Bytes per element of MLIR type `name` ('f16' -> 2)."""
    return _known(name)[0]


def dtype_name(name: str) -> str:
    """The torch / NumPy dtype name of MLIR type `name` ('f16' -> 'float16')."""
    return _known(name)[1]


def tensor_map_dtype(name: str) -> int:
    """The CUtensorMapDataType value for MLIR type `name`."""
    return _known(name)[2]


def torch_dtype(name: str) -> Any:
    """The torch.dtype of MLIR type `name` (imports torch)."""
    import torch
    return getattr(torch, dtype_name(name))


def numpy_dtype(name: str) -> np.dtype[Any]:
    """The numpy.dtype of MLIR type `name`; bf16 and FP8 need the ml_dtypes package."""
    import numpy as np
    n = dtype_name(name)
    try:
        return np.dtype(n)
    except TypeError:
        try:
            import ml_dtypes
        except ImportError:
            raise TypeError(f"NumPy has no {n} without the ml_dtypes package (pip install ml_dtypes)") from None
        return np.dtype(getattr(ml_dtypes, n))


def name_of(dtype: object) -> str:
    """The dtype name of a torch / NumPy / CuPy dtype (or a string naming one):
    torch.float16 -> 'float16', numpy.dtype('float16') -> 'float16'."""
    s: str | None  # a str once the branches below are done (a dtype's .name may be missing)
    if isinstance(dtype, str):
        s = dtype
    elif isinstance(dtype, type):  # a NumPy scalar type: numpy.float16
        import numpy as np
        s = np.dtype(dtype).name
    else:
        s = getattr(dtype, "name", None)
        if not isinstance(s, str):  # torch.dtype has no .name: its str is 'torch.float16'
            s = str(dtype)
    return s[len("torch."):] if s.startswith("torch.") else s
