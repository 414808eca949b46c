"""Loading PTX and launching on the GPU: through cuda-bindings (`cuda.bindings.driver`, the
CUDA driver API) or CuPy. Both work with torch tensors and CuPy arrays (the launch only takes
device addresses); both use the device's primary context, which PyTorch and CuPy share.
Picked by `backend()`: $AXE_RUNTIME_BACKEND ('cuda-bindings' or 'cupy') if set, else
cuda-bindings when it imports, else CuPy."""
from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

MAX_STATIC_SHARED = 48 * 1024  # dynamic shared memory beyond this must be opted into


class DeviceBytes(Protocol):
    """What `upload` returns: bytes in device memory at `ptr`, freed when the object is."""
    ptr: int


class Backend(Protocol):
    """What the kernels ask of a launching backend. (It may also have `on(device)`: a context
    manager that makes `device` current while tensor maps are encoded.)"""
    name: str

    def load(self, ptx: str, entry: str, shared: int, device: int) -> tuple[Any, Any]: ...

    def upload(self, data: bytes, device: int) -> DeviceBytes: ...

    def launch(self, loaded: tuple[Any, Any], grid: Sequence[int], block: Sequence[int],
               cluster: Sequence[int] | None, shared: int, stream: int, ptrs: Sequence[int], device: int,
               cooperative: bool = False) -> None: ...


def pack_params(ptrs: Sequence[int]) -> tuple[int, tuple[ctypes.Array[ctypes.c_uint64],
                                                          ctypes.Array[ctypes.c_void_p]]]:
    """A `void**` kernel-parameter array for 64-bit parameters `ptrs` (device addresses), as
    (its address, the ctypes objects that must stay alive while it is used)."""
    n = len(ptrs)
    values = (ctypes.c_uint64 * max(n, 1))(*ptrs)
    base = ctypes.addressof(values)
    slots = (ctypes.c_void_p * max(n, 1))(*[base + 8 * i for i in range(n)])
    return ctypes.addressof(slots), (values, slots)


def ptx_cache_file(ptx: str) -> str:
    """A file holding `ptx` (for loaders that take a path), named by its hash, under
    $AXE_RUNTIME_CACHE or the temporary directory."""
    root = os.environ.get("AXE_RUNTIME_CACHE") or os.path.join(tempfile.gettempdir(), "axe_runtime")
    os.makedirs(root, exist_ok=True)
    path = os.path.join(root, hashlib.sha256(ptx.encode()).hexdigest()[:32] + ".ptx")
    if not os.path.exists(path):
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            f.write(ptx)
        os.replace(tmp, path)
    return path


class CudaBindingsBackend:
    name = "cuda-bindings"

    def __init__(self) -> None:
        from cuda.bindings import driver as cuda
        self.cuda = cuda
        self._ok = cuda.CUresult.CUDA_SUCCESS
        self.check(cuda.cuInit(0), "cuInit")
        self._contexts: dict[int, Any] = {}  # device -> its primary context (CUcontext)

    def check(self, result: Sequence[Any], what: str) -> Any:
        """The values of a cuda-bindings call (it returns (CUresult, *values)), or RuntimeError."""
        err, rest = result[0], result[1:]
        if err != self._ok:
            name = ""
            try:
                e, s = self.cuda.cuGetErrorName(err)
                name = s.decode() if e == self._ok and s else ""
            except Exception:
                pass
            raise RuntimeError(f"{what} failed: {name or err}")
        return rest[0] if len(rest) == 1 else rest

    @contextlib.contextmanager
    def on(self, device: int) -> Iterator[None]:
        """`device`'s primary context made current for the duration."""
        ctx = self._contexts.get(device)
        if ctx is None:
            dev = self.check(self.cuda.cuDeviceGet(device), f"cuDeviceGet({device})")
            ctx = self.check(self.cuda.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
            self._contexts[device] = ctx
        current = self.check(self.cuda.cuCtxGetCurrent(), "cuCtxGetCurrent")
        if current is not None and int(current) == int(ctx):  # PyTorch / CuPy made it current
            yield
            return
        self.check(self.cuda.cuCtxPushCurrent(ctx), "cuCtxPushCurrent")
        try:
            yield
        finally:
            self.check(self.cuda.cuCtxPopCurrent(), "cuCtxPopCurrent")

    def load(self, ptx: str, entry: str, shared: int, device: int) -> tuple[Any, Any]:
        cuda = self.cuda
        with self.on(device):
            image = ptx.encode() + b"\0"
            module = self.check(cuda.cuModuleLoadData(image), f"cuModuleLoadData (PTX of {entry})")
            fn = self.check(cuda.cuModuleGetFunction(module, entry.encode()), f"cuModuleGetFunction({entry})")
            if shared > MAX_STATIC_SHARED:
                self.check(cuda.cuFuncSetAttribute(
                    fn, cuda.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared),
                    f"cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES = {shared}) for {entry}")
        return (module, fn)

    def upload(self, data: bytes, device: int) -> _DriverBytes:
        """`data` (bytes) copied to a new device allocation; its `.ptr` is the address."""
        return _DriverBytes(self, data, device)

    def launch(self, loaded: tuple[Any, Any], grid: Sequence[int], block: Sequence[int], cluster: Sequence[int] | None,
               shared: int, stream: int, ptrs: Sequence[int], device: int, cooperative: bool = False) -> None:
        cuda = self.cuda
        _, fn = loaded
        params, keep = pack_params(ptrs)
        with self.on(device):
            if cluster is None and not cooperative:
                self.check(cuda.cuLaunchKernel(fn, *grid, *block, shared, cuda.CUstream(stream), params, 0),
                           "cuLaunchKernel")
            else:
                config = cuda.CUlaunchConfig()
                config.gridDimX, config.gridDimY, config.gridDimZ = grid
                config.blockDimX, config.blockDimY, config.blockDimZ = block
                config.sharedMemBytes = shared
                config.hStream = cuda.CUstream(stream)
                attrs = []
                if cluster is not None:
                    attr = cuda.CUlaunchAttribute()
                    attr.id = cuda.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
                    attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = cluster
                    attrs.append(attr)
                if cooperative:
                    attr = cuda.CUlaunchAttribute()
                    attr.id = cuda.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_COOPERATIVE
                    attr.value.cooperative = 1
                    attrs.append(attr)
                config.attrs = attrs
                config.numAttrs = len(attrs)
                what = " and ".join(w for w, on in (("cluster", cluster is not None), ("cooperative", cooperative)) if on)
                self.check(cuda.cuLaunchKernelEx(config, fn, params, 0), f"cuLaunchKernelEx ({what} launch)")
        del keep  # the driver has copied the parameters by the time cuLaunchKernel returns


class _DriverBytes:
    def __init__(self, backend: CudaBindingsBackend, data: bytes, device: int) -> None:
        self.backend, self.device = backend, device
        cuda = backend.cuda
        with backend.on(device):
            self.dptr = backend.check(cuda.cuMemAlloc(len(data)), "cuMemAlloc")
            host = ctypes.create_string_buffer(bytes(data), len(data))
            backend.check(cuda.cuMemcpyHtoD(self.dptr, ctypes.addressof(host), len(data)), "cuMemcpyHtoD")
        self.ptr = int(self.dptr)

    def __del__(self) -> None:
        try:
            with self.backend.on(self.device):
                self.backend.cuda.cuMemFree(self.dptr)
        except Exception:
            pass


class CupyBackend:
    name = "cupy"

    def __init__(self) -> None:
        import cupy
        self.cp = cupy

    def on(self, device: int) -> contextlib.AbstractContextManager[Any]:
        return self.cp.cuda.Device(device)

    def load(self, ptx: str, entry: str, shared: int, device: int) -> tuple[Any, Any]:
        # RawModule(code=...) would compile CUDA C++: PTX goes in through a file.
        with self.cp.cuda.Device(device):
            module = self.cp.RawModule(path=ptx_cache_file(ptx))
            fn = module.get_function(entry)
            if shared > MAX_STATIC_SHARED:
                fn.max_dynamic_shared_size_bytes = shared
        return (module, fn)

    def upload(self, data: bytes, device: int) -> _Held:
        import numpy as np
        with self.cp.cuda.Device(device):
            a = self.cp.asarray(np.frombuffer(bytes(data), dtype=np.uint8))
        return _Held(a)

    def launch(self, loaded: tuple[Any, Any], grid: Sequence[int], block: Sequence[int], cluster: Sequence[int] | None,
               shared: int, stream: int, ptrs: Sequence[int], device: int, cooperative: bool = False) -> None:
        import numpy as np
        if cluster is not None or cooperative:
            raise NotImplementedError("a cluster or cooperative launch needs the cuda-bindings backend "
                                      "(pip install cuda-bindings)")
        _, fn = loaded
        s = self.cp.cuda.Stream.null if stream == 0 else self.cp.cuda.ExternalStream(stream)
        with self.cp.cuda.Device(device):
            fn(tuple(grid), tuple(block), tuple(np.uint64(p) for p in ptrs), shared_mem=shared, stream=s)


class _Held:
    def __init__(self, array: Any) -> None:
        self.array = array
        self.ptr = int(array.data.ptr)


_BACKENDS: dict[str, Callable[[], Backend]] = {"cuda-bindings": CudaBindingsBackend, "cupy": CupyBackend}
_chosen: Backend | None = None


def backend() -> Backend:
    """The launching backend (created once)."""
    global _chosen
    if _chosen is None:
        want = os.environ.get("AXE_RUNTIME_BACKEND")
        if want:
            if want not in _BACKENDS:
                raise ValueError(f"AXE_RUNTIME_BACKEND={want!r}; expected one of {', '.join(_BACKENDS)}")
            _chosen = _BACKENDS[want]()
        else:
            errors = []
            for name, cls in _BACKENDS.items():
                try:
                    _chosen = cls()
                    break
                except ImportError as e:
                    errors.append(f"{name}: {e}")
            else:
                raise RuntimeError("launching an Axe kernel needs cuda-bindings (pip install cuda-bindings) "
                                   "or CuPy; neither imports (" + "; ".join(errors) + ")")
    return _chosen
