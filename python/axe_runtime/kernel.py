"""One launch of a manifest: a callable that checks its arguments and launches the kernel."""
from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from . import backends, checks, dtypes, tensormap


class Kernel:
    """A kernel of a launch manifest. Call it with the launching function's arguments (torch
    tensors or CuPy arrays for buffers, numbers for scalars), in order:

        kernel(x, y)                     # on torch's (or CuPy's) current stream
        kernel(x, y, stream=s)           # a torch.cuda.Stream, cupy Stream, or raw handle

    Each buffer is checked against the manifest first (dtype, CUDA device, number of elements,
    contiguity, alignment): a mismatch raises TypeError or ValueError naming the argument,
    before anything is launched. Tensor maps are built once per tuple of data pointers."""

    CACHE_SIZE = 16  # bound parameter sets (tensor maps) kept per kernel

    def __init__(self, spec: dict[str, Any], source: str | None = None) -> None:
        self.spec = spec
        self.source = source
        self.function = spec["function"]
        self.entry = spec["entry"]
        self.grid = tuple(spec["grid"])
        self.block = tuple(spec["block"])
        self.cluster = tuple(spec["cluster"]) if spec.get("cluster") else None
        # `axe.kernel ... cooperative`: its CTAs wait on each other; every launch is cooperative.
        self.cooperative = bool(spec.get("cooperative", False))
        self.dynamic_shared_bytes = spec["dynamic_shared_bytes"]
        self.arguments = spec["arguments"]
        self.params = spec["params"]
        self.ptx = spec.get("ptx")
        # The tensor-map fields are checked now: a map the driver would refuse fails at load.
        self._fields = {i: tensormap.tensor_map_fields(p, dtypes.element_bytes(p["dtype"]))
                        for i, p in enumerate(self.params) if p["kind"] == "tensor_map"}
        self._loaded: dict[int, tuple[Any, Any]] = {}  # device -> backend's loaded function
        # (device, buffers' data pointers) -> {param index: tensor map's device copy}
        self._bound: OrderedDict[tuple[int, ...], dict[int, backends.DeviceBytes]] = OrderedDict()
        # (framework, device) -> the workspace buffers, zeroed once
        self._workspace: dict[tuple[str, int], list[Any]] = {}

    def __repr__(self) -> str:
        return (f"<axe_runtime.Kernel {self.entry} of {self.function}: grid {list(self.grid)}, "
                f"block {list(self.block)}, {self.dynamic_shared_bytes} B dynamic shared>")

    @property
    def _where(self) -> str:
        return f"{self.function} ({self.entry})"

    def check(self, *args: Any) -> list[Any]:
        """Checks `args` against the manifest without launching; returns the checked list
        (checks.Buffer for buffers). Raises TypeError / ValueError naming the argument.

        Workspace arguments (the manifest's kind "workspace": split-K's partial sums and flags,
        which every launch leaves zero) may be left out: the kernel allocates them itself,
        zeroed, once per device, with the framework of the other buffers."""
        workspace = [i for i, a in enumerate(self.arguments) if a["kind"] == "workspace"]
        if workspace and len(args) == len(self.arguments) - len(workspace):
            args = self._with_workspace(list(args), workspace)  # type: ignore[assignment]  # *args rebound to a list
        return checks.check_arguments(args, self.arguments, self._where)

    def _with_workspace(self, args: list[Any], positions: list[int]) -> list[Any]:
        return with_workspace(self.arguments, args, positions, self._workspace)

    def tensor_map_fields(self) -> dict[int, tensormap.TensorMapFields]:
        """{param index: cuTensorMapEncodeTiled fields} of this kernel's tensor maps."""
        return dict(self._fields)

    def _device(self, checked: Sequence[Any]) -> int:
        for b in checked:
            if isinstance(b, checks.Buffer):
                if b.device is not None:
                    return b.device
                if b.framework == "torch":
                    import torch
                    return torch.cuda.current_device()
                if b.framework == "cupy":
                    import cupy
                    return cupy.cuda.Device().id
        return 0

    def bind(self, *args: Any) -> list[int]:
        """Checks `args` and builds the kernel's parameters for them (tensor maps encoded and
        copied to the device); the maps are cached by the buffers' data pointers. Returns the
        parameters' values (device addresses, scalars)."""
        checked = self.check(*args)
        return self._bind(checked, self._device(checked))[0]

    def _bind(self, checked: Sequence[Any], device: int) -> tuple[list[int], list[backends.DeviceBytes]]:
        # Tensor maps depend on their buffers' addresses alone: the cache keys on the buffers'
        # data pointers, and scalars (a launch epoch, the rank) are filled in per launch. (A
        # key with the scalars in it missed on every new epoch: the maps were encoded and
        # uploaded again and an evicted set freed, which synchronizes the device, at every
        # launch of a kernel with flags.)
        key = (device,) + tuple(b.ptr for b in checked if isinstance(b, checks.Buffer))
        maps = self._bound.get(key)
        if maps is not None:
            self._bound.move_to_end(key)
        else:
            be = backends.backend() if self._fields else None
            # Encoding a tensor map may need the device's context current (CUDA_ERROR_INVALID_CONTEXT).
            on = getattr(be, "on", None)
            maps = {}
            with on(device) if on else contextlib.nullcontext():
                for i in self._fields:
                    data = tensormap.encode(self._fields[i], checked[self.params[i]["arg"]].ptr)
                    maps[i] = be.upload(data, device)  # type: ignore[union-attr]  # not None: there are maps
            self._bound[key] = maps
            while len(self._bound) > self.CACHE_SIZE:
                self._bound.popitem(last=False)
        ptrs: list[int] = []
        for i, p in enumerate(self.params):
            buf = checked[p["arg"]]
            if p["kind"] in ("buffer", "peer_table"):
                ptrs.append(buf.ptr)
            elif p["kind"] in ("rank", "scalar"):
                ptrs.append(int(buf))  # a 64-bit value (index and i64 parameters)
            else:
                ptrs.append(maps[i].ptr)
        return ptrs, list(maps.values())

    def _stream(self, stream: Any, checked: Sequence[Any], device: int) -> int:
        if stream is None:
            fw = next((b.framework for b in checked if isinstance(b, checks.Buffer)), None)
            if fw == "torch":
                import torch
                return int(torch.cuda.current_stream(device).cuda_stream)
            if fw == "cupy":
                import cupy
                return int(cupy.cuda.get_current_stream().ptr)
            return 0
        if isinstance(stream, int):
            return stream
        for attr in ("cuda_stream", "ptr"):  # torch.cuda.Stream, cupy.cuda.Stream
            if hasattr(stream, attr):
                return int(getattr(stream, attr))
        return int(stream)  # cuda.bindings CUstream

    def launcher(self, *args: Any, stream: Any = None, cooperative: bool = False) -> Callable[[], None]:
        """Checks `args`, binds them and loads the module once, and returns a callable with no
        arguments that only launches (what a timing loop or a CUDA graph capture wants: the
        checks stay out of the timed region). The arguments must stay alive and unmoved.

        `cooperative`: a cooperative launch, for a kernel whose CTAs wait on each other (a
        persistent kernel passing flags between CTAs): the driver launches it only if every CTA
        of the grid can be resident at once, and otherwise fails with an error instead of the
        launch hanging (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE). A kernel declared
        `cooperative` in the IR (the manifest's "cooperative": true) always launches so."""
        checked = self.check(*args)
        device = self._device(checked)
        ptrs, held = self._bind(checked, device)
        be = backends.backend()
        loaded = self._load(be, device)
        s = self._stream(stream, checked, device)
        cooperative = cooperative or self.cooperative

        def launch() -> None:
            be.launch(loaded, self.grid, self.block, self.cluster, self.dynamic_shared_bytes, s, ptrs, device,
                      cooperative)
        # The launcher holds its tensor maps' device copies itself: the binding cache may evict
        # them (CACHE_SIZE), and freeing them would leave `ptrs` pointing at freed memory.
        launch.keeps = held  # type: ignore[attr-defined]  # an attribute on the function object
        return launch

    def _load(self, be: backends.Backend, device: int) -> tuple[Any, Any]:
        loaded = self._loaded.get(device)
        if loaded is None:
            if not self.ptx:
                raise ValueError(f"{self._where}: the manifest{' ' + self.source if self.source else ''} "
                                 "has no PTX to launch")
            loaded = self._loaded[device] = be.load(self.ptx, self.entry, self.dynamic_shared_bytes, device)
        return loaded

    def __call__(self, *args: Any, stream: Any = None) -> None:
        """Checks `args` against the manifest and launches (on `stream`, else the current
        stream of the arguments' framework)."""
        self.launcher(*args, stream=stream)()


def with_workspace(arguments: Sequence[dict[str, Any]], args: Sequence[Any], positions: Sequence[int],
                   cache: dict[tuple[str, int], list[Any]]) -> list[Any]:
    """`args` with the workspace arguments at `positions` inserted: zeroed buffers allocated once
    per (framework, device) with the framework of the other buffers, kept in `cache`."""
    described = [d for d in map(checks._describe, args) if d is not None]
    framework, device = (described[0][0], described[0][6]) if described else ("torch", None)
    if framework == "torch":
        import torch
        device = torch.cuda.current_device() if device is None else device
    else:
        import cupy
        device = cupy.cuda.Device().id if device is None else device
    held = cache.get((framework, device))
    if held is None:
        held = []
        for i in positions:
            spec = arguments[i]
            if framework == "torch":
                import torch
                held.append(torch.zeros(spec["extent"], dtype=dtypes.torch_dtype(spec["dtype"]),
                                        device=f"cuda:{device}"))
            else:
                import cupy
                with cupy.cuda.Device(device):
                    held.append(cupy.zeros(spec["extent"], dtype=dtypes.numpy_dtype(spec["dtype"])))
        cache[(framework, device)] = held
    args = list(args)
    for i, w in zip(positions, held):
        args.insert(i, w)
    return args


class Program:
    """The kernels one function of a manifest launches, in the order its host code launches
    them (a model block lowered by the front door: a norm, a gated GEMM, a GEMM into the
    residual). Call it with the function's arguments; its workspace arguments (split-K's sums,
    the buffers one kernel passes the next) may be left out: the program allocates them once
    per device and passes the same buffers to every kernel.

        block = axe_runtime.program("llama_mlp.json")
        block(x, g, w_gate, w_up, w_down, y)
        run = block.launcher(x, g, w_gate, w_up, w_down, y)   # checks and binds once
        run()                                                  # launches only (CUDA graphs)
    """

    def __init__(self, kernels: Sequence[Kernel]) -> None:
        if not kernels:
            raise ValueError("a program has at least one kernel")
        self.kernels = list(kernels)
        self.function = self.kernels[0].function
        self.arguments = self.kernels[0].arguments
        for k in self.kernels[1:]:
            if k.function != self.function or k.arguments != self.arguments:
                raise ValueError(f"{k.entry} is not launched by {self.function} with its arguments")
        self._workspace: dict[tuple[str, int], list[Any]] = {}

    def __repr__(self) -> str:
        return f"<axe_runtime.Program {self.function}: {len(self.kernels)} kernels>"

    def _full(self, args: Sequence[Any]) -> list[Any]:
        positions = [i for i, a in enumerate(self.arguments) if a["kind"] == "workspace"]
        if positions and len(args) == len(self.arguments) - len(positions):
            return with_workspace(self.arguments, args, positions, self._workspace)
        return list(args)

    def launcher(self, *args: Any, stream: Any = None) -> Callable[[], None]:
        """Checks and binds `args` for every kernel; returns a callable that launches them all."""
        full = self._full(args)
        launches = [k.launcher(*full, stream=stream) for k in self.kernels]

        def launch() -> None:
            for one in launches:
                one()
        launch.keeps = (launches, full)  # type: ignore[attr-defined]  # an attribute on the function object
        return launch

    def __call__(self, *args: Any, stream: Any = None) -> None:
        self.launcher(*args, stream=stream)()
