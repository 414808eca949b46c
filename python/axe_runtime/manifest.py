"""Reading and validating a launch manifest (docs/launch-manifest.md, version 1)."""
from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal, NoReturn

from . import dtypes

if TYPE_CHECKING:
    from .kernel import Kernel, Program

VERSION = 1
SWIZZLES = (0, 32, 64, 128)


class ManifestError(ValueError):
    """A manifest that is not a valid version-1 launch manifest."""


def _int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


class _Checker:
    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, what: str, msg: str) -> NoReturn:
        raise ManifestError(f"{self.where}: {what}: {msg}")

    def field(self, d: dict[str, Any], key: str, what: str, kind: Literal["int", "str", "ints"] | None = None,
              optional: bool = False) -> Any:
        if key not in d:
            if optional:
                return None
            self.fail(what, f"missing field '{key}'")
        v = d[key]
        if kind == "int" and not _int(v):
            self.fail(what, f"'{key}' must be an integer, got {v!r}")
        if kind == "str" and not isinstance(v, str):
            self.fail(what, f"'{key}' must be a string, got {v!r}")
        if kind == "ints" and not (isinstance(v, list) and all(_int(x) for x in v)):
            self.fail(what, f"'{key}' must be a list of integers, got {v!r}")
        return v

    def dtype(self, d: dict[str, Any], what: str) -> str:
        t = self.field(d, "dtype", what, "str")
        if t not in dtypes.DTYPES:
            self.fail(what, f"unknown dtype {t!r} (known: {', '.join(dtypes.DTYPES)})")
        return t


def validate_kernel(k: object, where: str = "manifest") -> dict[str, Any]:
    """Checks one entry of the manifest's "kernels"; raises ManifestError naming the field."""
    if not isinstance(k, dict):
        raise ManifestError(f"{where}: a kernel must be a JSON object, got {type(k).__name__}")
    name = k.get("function") or k.get("entry") or "?"
    c = _Checker(f"{where}: kernel {name!r}")
    c.field(k, "function", "kernel", "str")
    c.field(k, "entry", "kernel", "str")
    for key in ("grid", "block"):
        v = c.field(k, key, "kernel", "ints")
        if len(v) != 3 or any(x < 1 for x in v):
            c.fail("kernel", f"'{key}' must be 3 positive integers (x, y, z), got {v}")
    if "cluster" in k:
        v = c.field(k, "cluster", "kernel", "ints")
        if len(v) != 3 or any(x < 1 for x in v):
            c.fail("kernel", f"'cluster' must be 3 positive integers (x, y, z), got {v}")
    if "cooperative" in k and not isinstance(k["cooperative"], bool):
        c.fail("kernel", f"'cooperative' must be true or false, got {k['cooperative']!r}")
    shared = c.field(k, "dynamic_shared_bytes", "kernel", "int")
    if shared < 0:
        c.fail("kernel", f"'dynamic_shared_bytes' must be >= 0, got {shared}")
    if "ptx" in k and not isinstance(k["ptx"], str):
        c.fail("kernel", "'ptx' must be a string (the PTX text)")
    args = c.field(k, "arguments", "kernel")
    if not isinstance(args, list):
        c.fail("kernel", "'arguments' must be a list")
    for i, a in enumerate(args):
        what = f"argument {i}"
        if not isinstance(a, dict):
            c.fail(what, "must be a JSON object")
        kind = c.field(a, "kind", what, "str")
        # A workspace is a buffer the launcher allocates itself (zeroed, once per device).
        if kind in ("buffer", "workspace"):
            c.dtype(a, what)
            if c.field(a, "extent", what, "int") < -1:
                c.fail(what, "'extent' must be >= 0 (or -1: not static)")
            align = c.field(a, "align", what, "int")
            if align < 1 or align & (align - 1):
                c.fail(what, f"'align' must be a power of two, got {align}")
            c.field(a, "rank", what, "int", optional=True)
        elif kind == "scalar" or kind == "rank":
            c.field(a, "type", what, "str")
        elif kind == "peer_table":
            # A device mesh's table of a symmetric buffer's device addresses, one per rank.
            c.field(a, "of", what, "int")
            if c.field(a, "devices", what, "int") < 1:
                c.fail(what, "'devices' must be >= 1")
        else:
            c.fail(what, f"unknown kind {kind!r} (expected 'buffer', 'workspace', 'scalar', 'peer_table' or 'rank')")
    params = c.field(k, "params", "kernel")
    if not isinstance(params, list):
        c.fail("kernel", "'params' must be a list")
    for i, p in enumerate(params):
        what = f"param {i}"
        if not isinstance(p, dict):
            c.fail(what, "must be a JSON object")
        kind = c.field(p, "kind", what, "str")
        arg = c.field(p, "arg", what, "int")
        if not 0 <= arg < len(args):
            c.fail(what, f"'arg' {arg} is not one of the {len(args)} arguments")
        want = {"buffer": "buffer", "tensor_map": "buffer", "peer_table": "peer_table", "rank": "rank", "scalar": "scalar"}.get(kind)
        if want is not None and args[arg]["kind"] != want and not (want == "buffer" and args[arg]["kind"] == "workspace"):
            c.fail(what, f"refers to argument {arg}, which is not a {want}")
        if kind in ("buffer", "peer_table", "rank", "scalar"):
            pass
        elif kind == "tensor_map":
            c.dtype(p, what)
            dims = c.field(p, "dims", what, "ints")
            strides = c.field(p, "strides", what, "ints")
            box = c.field(p, "box", what, "ints")
            if not 1 <= len(dims) <= 5:
                c.fail(what, f"a tensor map has rank 1 to 5, got dims {dims}")
            if len(strides) != len(dims) or len(box) != len(dims):
                c.fail(what, f"dims {dims}, strides {strides} and box {box} must have the same length")
            if c.field(p, "swizzle", what, "int") not in SWIZZLES:
                c.fail(what, f"'swizzle' must be one of {SWIZZLES} (bytes), got {p['swizzle']}")
        else:
            c.fail(what, f"unknown kind {kind!r} (expected 'buffer', 'tensor_map', 'peer_table', 'rank' or 'scalar')")
    return k


def validate(m: object, where: str = "manifest") -> dict[str, Any]:
    """Checks a whole manifest (a dict); returns it. Raises ManifestError with the field."""
    if not isinstance(m, dict):
        raise ManifestError(f"{where}: a manifest is a JSON object, got {type(m).__name__}")
    if "version" not in m:
        hint = ""
        if "entry" in m and "kernels" not in m:
            hint = (" (this looks like test/gpu/extract.py's JSON; produce the manifest with "
                    "`axe-translate --axe-to-launch-manifest KERNEL.lowered.mlir`)")
        raise ManifestError(f"{where}: no 'version' field: not a launch manifest{hint}")
    if m["version"] != VERSION:
        raise ManifestError(f"{where}: manifest version {m['version']!r}; this runtime reads version {VERSION}")
    ks = m.get("kernels")
    if not isinstance(ks, list):
        raise ManifestError(f"{where}: 'kernels' must be a list")
    for k in ks:
        validate_kernel(k, where)
    return m


def read(path_or_dict: str | os.PathLike[str] | dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The validated manifest dict from a path, a JSON string, or a dict."""
    if isinstance(path_or_dict, dict):
        return validate(path_or_dict), None
    if isinstance(path_or_dict, (str, os.PathLike)):
        s = os.fspath(path_or_dict)
        if isinstance(path_or_dict, str) and s.lstrip().startswith("{"):
            where = "manifest"
            text = s
            path = None
        else:
            where = path = s
            try:
                with open(s) as f:
                    text = f.read()
            except OSError as e:
                raise ManifestError(f"{s}: cannot read the manifest: {e.strerror}") from None
        try:
            m = json.loads(text)
        except json.JSONDecodeError as e:
            raise ManifestError(f"{where}: not JSON: {e}") from None
        return validate(m, where), path
    raise TypeError(f"a manifest is a path, JSON text or dict, got {type(path_or_dict).__name__}")


class Manifest:
    """A launch manifest: its kernels, each a callable `Kernel`."""

    def __init__(self, data: dict[str, Any], path: str | None = None) -> None:
        from .kernel import Kernel
        self.data = validate(data, path or "manifest")
        self.path = path
        self.kernels = [Kernel(k, source=path) for k in self.data["kernels"]]

    @classmethod
    def load(cls, path_or_dict: str | os.PathLike[str] | dict[str, Any]) -> Manifest:
        data, path = read(path_or_dict)
        return cls(data, path)

    def __iter__(self) -> Iterator[Kernel]:
        return iter(self.kernels)

    def __len__(self) -> int:
        return len(self.kernels)

    def kernel(self, name: str | None = None) -> Kernel:
        """The kernel whose PTX entry or launching function is `name`; with no name, the only
        kernel (an error when there are several)."""
        if name is None:
            if len(self.kernels) != 1:
                raise ValueError(f"{self.path or 'manifest'} has {len(self.kernels)} kernels "
                                 f"({', '.join(k.entry for k in self.kernels)}): name one")
            return self.kernels[0]
        for k in self.kernels:
            if name == k.entry:
                return k
        found = [k for k in self.kernels if k.function == name]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise ValueError(f"function {name!r} launches {len(found)} kernels "
                             f"({', '.join(k.entry for k in found)}): name the entry")
        raise KeyError(f"{self.path or 'manifest'} has no kernel {name!r} "
                       f"(entries: {', '.join(k.entry for k in self.kernels) or 'none'})")

    __getitem__ = kernel


def program(manifest: str | os.PathLike[str] | dict[str, Any], function: str | None = None) -> Program:
    """The kernels of `function` (with no name, the manifest's only launching function), in
    launch order, as one callable Program."""
    from .kernel import Program
    m = Manifest.load(manifest)
    functions = list(dict.fromkeys(k.function for k in m))
    if function is None:
        if len(functions) != 1:
            raise ValueError(f"the manifest launches from {len(functions)} functions ({', '.join(functions)}): "
                             "name one")
        function = functions[0]
    kernels = [k for k in m if k.function == function]
    if not kernels:
        raise ValueError(f"no kernel of the manifest is launched by {function!r} ({', '.join(functions)})")
    return Program(kernels)


def load(manifest: str | os.PathLike[str] | dict[str, Any], entry: str | None = None) -> Kernel | dict[str, Kernel]:
    """The kernel `entry` (a PTX entry or function name) of a manifest (path, JSON text or
    dict); with no entry, its only kernel, or a dict entry -> Kernel when it has several."""
    m = Manifest.load(manifest)
    if entry is None and len(m) != 1:
        return {k.entry: k for k in m}
    return m.kernel(entry)
