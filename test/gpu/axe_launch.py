"""Launching an extracted Axe kernel with CuPy: the kernel's parameters as extract.py
recorded them (bare pointers to the function's memref arguments, and pointers to TMA tensor
maps built here with the driver's cuTensorMapEncodeTiled and copied to device memory, which
is what MLIR's runtime wrapper for `nvgpu.tma.create.descriptor` does too).
Shared by run.py (correctness) and bench.py (speed)."""
import ctypes
import json

import cupy as cp
import numpy as np

# CUtensorMapDataType values (cuda.h).
_DTYPES = {"f16": 6, "bf16": 9, "f32": 7, "f64": 8, "i8": 0, "i16": 1, "i32": 3, "i64": 5}
_SWIZZLE = {0: 0, 32: 1, 64: 2, 128: 3}
_ELT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i8": 1, "i16": 2, "i32": 4, "i64": 8}
_libcuda = None


def tensor_map(spec, ptr):
    """A 128-byte CUtensorMap (as a device array) for the global tensor at `ptr`."""
    global _libcuda
    if _libcuda is None:
        _libcuda = ctypes.CDLL("libcuda.so.1")
        _libcuda.cuTensorMapEncodeTiled.restype = ctypes.c_int
    rank = len(spec["dims"])
    eb = _ELT_BYTES[spec["dtype"]]
    # The driver takes dimensions innermost first; strides in bytes for dimensions 1..rank-1.
    dims = (ctypes.c_uint64 * rank)(*reversed(spec["dims"]))
    strides = (ctypes.c_uint64 * max(rank - 1, 1))(*[s * eb for s in reversed(spec["strides"][:-1])])
    box = (ctypes.c_uint32 * rank)(*reversed(spec["box"]))
    estr = (ctypes.c_uint32 * rank)(*([1] * rank))
    tmap = (ctypes.c_uint8 * 128)()
    rc = _libcuda.cuTensorMapEncodeTiled(
        ctypes.byref(tmap), _DTYPES[spec["dtype"]], rank, ctypes.c_void_p(ptr), dims, strides, box, estr,
        0, _SWIZZLE[spec["swizzle"]], 0, 0)
    if rc != 0:
        raise RuntimeError(f"cuTensorMapEncodeTiled failed ({rc}) for {spec}")
    return cp.asarray(np.frombuffer(bytes(tmap), dtype=np.uint8))


class Kernel:
    def __init__(self, d, name):
        self.spec = json.load(open(f"{d}/{name}.json"))
        self.fn = cp.RawModule(path=f"{d}/{name}.ptx").get_function(self.spec["entry"])
        self.shared = self.spec.get("shared_bytes", 0)
        if self.shared > 48 * 1024:
            self.fn.max_dynamic_shared_size_bytes = self.shared
        self._bound = None

    def bind(self, args):
        """The kernel's parameters for the function arguments `args` (device arrays), after
        checking each buffer against the alignment its argument declares (`axe.align`)."""
        for i, (a, align) in enumerate(zip(args, self.spec.get("align", []))):
            if a.data.ptr % align:
                raise ValueError(f"{self.spec['entry']}: argument {i} must be {align}-byte aligned "
                                 f"(axe.align), its buffer starts at {a.data.ptr:#x}")
        params = []
        for p in self.spec.get("args", [{"kind": "ptr", "arg": i} for i in range(len(args))]):
            if p["kind"] == "ptr":
                params.append(args[p["arg"]])
            else:
                params.append(tensor_map(p, args[p["arg"]].data.ptr))
        self._bound = (args, tuple(params))
        return self._bound[1]

    def __call__(self, args):
        if self._bound is None or self._bound[0] is not args:
            self.bind(args)
        self.fn(tuple(self.spec["grid"]), tuple(self.spec["block"]), self._bound[1], shared_mem=self.shared)
