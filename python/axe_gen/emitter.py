"""A typed emitter of Axe IR: kernels are written as Python calls, not as text.

Types are values (`Scalar`, `MemRef`, `Tensor`, and `Alias`, a name printed once at the top
of the module); every op is a method of `Emitter` that checks its operands' types and returns
typed `Value`s; regions (`module`, `func`, `kernel`, `for_`, `if_`) are context managers that
open and close their blocks, so the nesting of the IR is the nesting of the Python code.

    e = Emitter("a copy of one row")
    row = e.alias("row", Tensor((1, 2048), F16, "global", "(1, 2048) : (2048, 1)"))
    with e.module("sm_90"), e.func("copy_row", [Param("x", MemRef(2048, F16), align=16)]) as (x,):
        ...
    text = e.text()

Value names are the ones asked for (`name=`), made unique by a numeric suffix where a name is
visible already (a region's names end with it; MLIR's names are only for reading: `axe-opt`
prints its own).
"""
from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Sequence


class Type:
    """An MLIR type as it is printed."""

    def __str__(self) -> str:
        raise NotImplementedError


@dataclasses.dataclass(frozen=True)
class Scalar(Type):
    """A builtin scalar type: index, iN, fN."""

    name: str

    def __str__(self) -> str:
        return self.name

    @property
    def is_float(self) -> bool:
        return self.name.startswith(("f", "bf"))


INDEX, I1, I32, I64 = Scalar("index"), Scalar("i1"), Scalar("i32"), Scalar("i64")
F16, BF16, F32 = Scalar("f16"), Scalar("bf16"), Scalar("f32")
E4M3, E5M2 = Scalar("f8E4M3FN"), Scalar("f8E5M2")
# The element types the generators' DTYPE / OUT names stand for.
DTYPES: dict[str, Scalar] = {"f16": F16, "bf16": BF16, "f32": F32, "e4m3": E4M3, "e5m2": E5M2}


@dataclasses.dataclass(frozen=True)
class MemRef(Type):
    """A one-dimensional buffer, as the launch manifest's arguments are."""

    size: int
    elt: Scalar

    def __str__(self) -> str:
        return f"memref<{self.size}x{self.elt}>"


@dataclasses.dataclass(frozen=True)
class Tensor(Type):
    """An Axe tensor: shape, element type, memory space (`global`, `shared`, `register`) and
    layout, as the text inside `#axe.layout<...>` (None: `?`, left to `axe-infer-layout`)."""

    shape: tuple[int, ...]
    elt: Scalar
    space: str
    layout: str | None = None
    swizzle: tuple[int, int, int] | None = None  # `#axe.swizzle<B, M, S>` of a shared tensor

    def __str__(self) -> str:
        dims = "x".join(str(d) for d in self.shape)
        layout = f"#axe.layout<{self.layout}>" if self.layout is not None else "?"
        swizzle = f", #axe.swizzle<{', '.join(map(str, self.swizzle))}>" if self.swizzle else ""
        return f"!axe.tensor<{dims}x{self.elt}, {self.space}, {layout}{swizzle}>"


def row_major(rows: int, cols: int, elt: Scalar) -> Tensor:
    """A global row-major [rows, cols] tensor."""
    return Tensor((rows, cols), elt, "global", f"({rows}, {cols}) : ({cols}, 1)")


@dataclasses.dataclass(frozen=True)
class Opaque(Type):
    """A type of the dialect's handles: `!axe.token` (an async op's completion), and the
    mbarrier that `axe.mbarrier` creates (its type is never printed)."""

    name: str

    def __str__(self) -> str:
        return self.name


TOKEN, MBARRIER = Opaque("!axe.token"), Opaque("mbarrier")


@dataclasses.dataclass(frozen=True)
class Alias(Type):
    """A type alias (`!name = type`), printed once before the module and by name elsewhere."""

    name: str
    target: Type

    def __str__(self) -> str:
        return f"!{self.name}"


def resolve(t: Type) -> Type:
    """The type an alias stands for."""
    while isinstance(t, Alias):
        t = t.target
    return t


@dataclasses.dataclass(frozen=True)
class Value:
    """An SSA value and its type."""

    name: str
    type: Type

    def __str__(self) -> str:
        return f"%{self.name}"


@dataclasses.dataclass(frozen=True)
class Param:
    """A function parameter; `align` adds `{axe.align = N : i64}` (the launcher's guarantee)."""

    name: str
    type: Type
    align: int | None = None


@dataclasses.dataclass(frozen=True)
class Span:
    """A static range `lo : hi` of a slice."""

    lo: int
    hi: int

    def __str__(self) -> str:
        return f"{self.lo} : {self.hi}"


@dataclasses.dataclass(frozen=True)
class At:
    """A range of `size` starting at a run-time origin: `%origin : +size`."""

    origin: Value
    size: int

    def __str__(self) -> str:
        return f"{self.origin} : +{self.size}"


class EmitError(ValueError):
    """An op asked for with operands of the wrong types (a bug in the generator)."""


class Loop:
    """An `scf.for` being written: its induction variable, its iteration arguments (`args`),
    its results (defined after the loop) and `yield_` for the body's last op."""

    def __init__(self, emitter: Emitter, iv: Value, args: list[Value], results: list[Value]):
        self._e, self.iv, self.args, self.results = emitter, iv, args, results

    def yield_(self, *values: Value) -> None:
        self._e._yield(values, [a.type for a in self.args])


class Branch:
    """An `scf.if` being written: `yield_` ends a branch; `else_()` starts the else branch."""

    def __init__(self, emitter: Emitter, results: list[Value]):
        self._e, self.results = emitter, results
        self._outer = set(emitter._names)  # the names visible in both branches

    def yield_(self, *values: Value) -> None:
        self._e._yield(values, [r.type for r in self.results])

    def else_(self) -> None:
        """Ends the then branch (its names end with it) and starts the else branch."""
        self._e._line("} else {", dedent=1)
        self._e._names = set(self._outer)


class Emitter:
    """Builds one module's text (see the module documentation)."""

    def __init__(self, header: str | None = None):
        self._header = header
        self._aliases: list[Alias] = []
        self._lines: list[str] = []
        self._depth = 0
        self._names: set[str] = set()

    # -- output ---------------------------------------------------------------------------

    def text(self) -> str:
        """The module: the header comment, the aliases, then the ops."""
        out = [f"// {self._header}"] if self._header else []
        out += [f"{a} = {a.target}" for a in self._aliases]
        return "\n".join(out + self._lines) + "\n"

    def alias(self, name: str, t: Type) -> Alias:
        """`!name = t`, printed once before the module; the alias is used as a type."""
        if any(a.name == name for a in self._aliases):
            raise EmitError(f"type alias !{name} defined twice")
        a = Alias(name, t)
        self._aliases.append(a)
        return a

    def _line(self, text: str, dedent: int = 0) -> None:
        self._lines.append("  " * (self._depth - dedent) + text)

    def _fresh(self, name: str) -> str:
        n, i = name, 1
        while n in self._names:
            n, i = f"{name}_{i}", i + 1
        self._names.add(n)
        return n

    def _value(self, name: str, t: Type) -> Value:
        return Value(self._fresh(name), t)

    @contextlib.contextmanager
    def _block(self, opener: str, outer: set[str] | None = None) -> Iterator[None]:
        # Names defined in a region (`outer`: the names visible before its block arguments) are
        # not visible after it, so they may be used again (as in hand-written IR: each loop
        # body has its %v).
        self._line(opener)
        self._depth += 1
        outer = set(self._names) if outer is None else outer
        yield
        self._names = outer
        self._depth -= 1
        self._line("}")

    # -- structure ------------------------------------------------------------------------

    @contextlib.contextmanager
    def module(self, target: str) -> Iterator[None]:
        """`module attributes {axe.target = #axe.target<"TARGET">}`."""
        with self._block(f'module attributes {{axe.target = #axe.target<"{target}">}} {{'):
            yield

    @contextlib.contextmanager
    def func(self, name: str, params: Sequence[Param]) -> Iterator[list[Value]]:
        """`func.func @name(params)`, ended by `return`; yields the parameters' values."""
        self._names = set()
        values = [self._value(p.name, p.type) for p in params]
        args = ", ".join(f"{v}: {v.type}" + (f" {{axe.align = {p.align} : i64}}" if p.align else "")
                         for v, p in zip(values, params))
        with self._block(f"func.func @{name}({args}) {{"):
            yield values
            self._line("return")

    @contextlib.contextmanager
    def kernel(self, grid: Sequence[int], threads: Sequence[int], *, cooperative: bool = False,
               cluster: Sequence[int] | None = None) -> Iterator[None]:
        """`axe.kernel grid [...] threads [...]` (`cooperative`: its CTAs wait on each other, so
        all must be resident: the launcher launches it cooperatively; `cluster`: CTAs launched
        in clusters of that shape, `cluster [N]`)."""
        coop = " cooperative" if cooperative else ""
        clus = f" cluster {list(cluster)}" if cluster else ""
        with self._block(f"axe.kernel grid {list(grid)} threads {list(threads)}{clus}{coop} {{"):
            yield

    @contextlib.contextmanager
    def mesh(self, ranks: int) -> Iterator[None]:
        """`axe.mesh [R]`: the ops inside run on each of R devices (`@gpuid` layouts)."""
        with self._block(f"axe.mesh [{ranks}] {{"):
            yield

    @contextlib.contextmanager
    def scope(self, unit: str, lo: int, hi: int) -> Iterator[None]:
        """`axe.scope unit [lo : hi]`: the ops inside run on those units only (a role)."""
        with self._block(f"axe.scope {unit} [{lo} : {hi}] {{"):
            yield

    @contextlib.contextmanager
    def for_(self, lo: Value, hi: Value, step: Value, iter_args: Sequence[Value] = (), *, iv: str = "i",
             args: Sequence[str] = (), name: str = "r", packed: bool = False) -> Iterator[Loop]:
        """`scf.for %iv = lo to hi step step iter_args(...)`: yields the `Loop`; a loop with
        iteration arguments must end its body with `loop.yield_(...)`. `packed`: the results
        are one name, `%r:N = scf.for ...`, used as `%r#0` ... `%r#N-1`."""
        for v in (lo, hi, step):
            self._expect(v, INDEX, "scf.for bounds")
        if packed and iter_args:
            base = self._fresh(name)
            results = [Value(f"{base}#{i}", a.type) for i, a in enumerate(iter_args)]
        else:
            results = [self._value(name, a.type) for a in iter_args]
        outer = set(self._names)
        ivv = self._value(iv, INDEX)
        names = list(args) or ["a"] * len(iter_args)
        argv = [self._value(n, a.type) for n, a in zip(names, iter_args)]
        head = f"scf.for {ivv} = {lo} to {hi} step {step}"
        if iter_args:
            inits = ", ".join(f"{a} = {i}" for a, i in zip(argv, iter_args))
            types = ", ".join(str(a.type) for a in iter_args)
            lhs = f"%{base}:{len(results)} = " if packed else self._results(results)
            head = f"{lhs}{head} iter_args({inits}) -> ({types})"
        with self._block(head + " {", outer):
            yield Loop(self, ivv, argv, results)

    @contextlib.contextmanager
    def if_(self, cond: Value, results: Sequence[Type] = (), *, name: str = "r") -> Iterator[Branch]:
        """`scf.if cond`: yields the `Branch`; with results, each branch ends with `yield_`
        (`branch.else_()` starts the else branch)."""
        self._expect(cond, I1, "scf.if condition")
        rv = [self._value(name, t) for t in results]
        head = f"scf.if {cond}"
        if results:
            head = f"{self._results(rv)}{head} -> ({', '.join(str(t) for t in results)})"
        branch = Branch(self, rv)
        with self._block(head + " {"):
            yield branch

    def _yield(self, values: Sequence[Value], types: Sequence[Type]) -> None:
        if [str(v.type) for v in values] != [str(t) for t in types]:
            raise EmitError(f"scf.yield of {[str(v.type) for v in values]}, expected {[str(t) for t in types]}")
        self._line(f"scf.yield {', '.join(map(str, values))} : {', '.join(str(t) for t in types)}")

    @staticmethod
    def _results(values: Sequence[Value]) -> str:
        return ", ".join(map(str, values)) + " = " if values else ""

    @staticmethod
    def _expect(v: Value, t: Type, what: str) -> None:
        if str(resolve(v.type)) != str(resolve(t)):
            raise EmitError(f"{what}: {v} is {v.type}, expected {t}")

    # -- arith and memref -----------------------------------------------------------------

    def constant(self, value: int | float, t: Type = INDEX, *, name: str = "c") -> Value:
        """`arith.constant` of a scalar type (floats printed with a decimal point)."""
        s = resolve(t)
        if not isinstance(s, Scalar):
            raise EmitError(f"arith.constant of type {t}: expected a scalar type")
        v = self._value(name, t)
        if s == I1:
            self._line(f"{v} = arith.constant {'true' if value else 'false'}")
            return v
        text = repr(float(value)) if s.is_float else str(int(value))
        self._line(f"{v} = arith.constant {text} : {t}")
        return v

    def _arith(self, op: str, a: Value, b: Value, name: str) -> Value:
        self._expect(b, a.type, f"arith.{op}")
        v = self._value(name, a.type)
        self._line(f"{v} = arith.{op} {a}, {b} : {a.type}")
        return v

    def addi(self, a: Value, b: Value, *, name: str = "s") -> Value:
        return self._arith("addi", a, b, name)

    def subi(self, a: Value, b: Value, *, name: str = "d") -> Value:
        return self._arith("subi", a, b, name)

    def muli(self, a: Value, b: Value, *, name: str = "p") -> Value:
        return self._arith("muli", a, b, name)

    def divui(self, a: Value, b: Value, *, name: str = "q") -> Value:
        return self._arith("divui", a, b, name)

    def minui(self, a: Value, b: Value, *, name: str = "m") -> Value:
        return self._arith("minui", a, b, name)

    def maxui(self, a: Value, b: Value, *, name: str = "m") -> Value:
        return self._arith("maxui", a, b, name)

    def remui(self, a: Value, b: Value, *, name: str = "rem") -> Value:
        return self._arith("remui", a, b, name)

    def andi(self, a: Value, b: Value, *, name: str = "and") -> Value:
        return self._arith("andi", a, b, name)

    def xori(self, a: Value, b: Value, *, name: str = "xor") -> Value:
        return self._arith("xori", a, b, name)

    def cmpi(self, pred: str, a: Value, b: Value, *, name: str = "cmp") -> Value:
        """`arith.cmpi pred, a, b` (an i1)."""
        self._expect(b, a.type, "arith.cmpi")
        v = self._value(name, I1)
        self._line(f"{v} = arith.cmpi {pred}, {a}, {b} : {a.type}")
        return v

    def select(self, cond: Value, a: Value, b: Value, *, name: str = "sel") -> Value:
        self._expect(cond, I1, "arith.select condition")
        self._expect(b, a.type, "arith.select")
        v = self._value(name, a.type)
        self._line(f"{v} = arith.select {cond}, {a}, {b} : {a.type}")
        return v

    def index_cast(self, a: Value, t: Scalar, *, name: str = "ic") -> Value:
        """`arith.index_cast` between index and an integer type."""
        if INDEX not in (a.type, t):
            raise EmitError(f"arith.index_cast from {a.type} to {t}: one side must be index")
        v = self._value(name, t)
        self._line(f"{v} = arith.index_cast {a} : {a.type} to {t}")
        return v

    def load(self, ref: Value, at: Value, *, name: str = "ld") -> Value:
        """`memref.load ref[at]` of a one-dimensional memref."""
        m = self._memref(ref, at, "memref.load")
        v = self._value(name, m.elt)
        self._line(f"{v} = memref.load {ref}[{at}] : {m}")
        return v

    def store(self, value: Value, ref: Value, at: Value) -> None:
        """`memref.store value, ref[at]`."""
        m = self._memref(ref, at, "memref.store")
        self._expect(value, m.elt, "memref.store value")
        self._line(f"memref.store {value}, {ref}[{at}] : {m}")

    def _memref(self, ref: Value, at: Value, what: str) -> MemRef:
        m = resolve(ref.type)
        if not isinstance(m, MemRef):
            raise EmitError(f"{what}: {ref} is {ref.type}, not a memref")
        self._expect(at, INDEX, f"{what} index")
        return m

    # -- axe ------------------------------------------------------------------------------

    def view(self, buf: Value, t: Type, *, name: str) -> Value:
        """`axe.view buf : memref to tensor`: a buffer seen as a global tensor."""
        if not isinstance(resolve(buf.type), MemRef):
            raise EmitError(f"axe.view of {buf}, a {buf.type}: expected a memref")
        v = self._value(name, t)
        self._line(f"{v} = axe.view {buf} : {buf.type} to {t}")
        return v

    def unit_id(self, unit: str, *, name: str) -> Value:
        """`axe.unit_id cta|warp|lane|thread...`: this unit's index."""
        v = self._value(name, INDEX)
        self._line(f"{v} = axe.unit_id {unit}")
        return v

    def barrier(self, scope: str = "cta") -> None:
        self._line(f"axe.barrier {scope}")

    def alloc(self, t: Type, *, name: str) -> Value:
        v = self._value(name, t)
        self._line(f"{v} = axe.alloc : {t}")
        return v

    def slice(self, src: Value, ranges: Sequence[Span | At], t: Type, *, name: str, clip: bool = False) -> Value:
        """`axe.slice src [ranges]`: a window of `src` of type `t` (`clip`: `{clip}`, the window
        may reach past `src`'s end: TMA fills the part past it with zeros, stores skip it)."""
        st, tt = self._tensor(src, "axe.slice"), self._tensor(Value("", t), "axe.slice result")
        if len(ranges) != len(st.shape) or len(tt.shape) != len(st.shape):
            raise EmitError(f"axe.slice: {len(ranges)} ranges of a {st.shape} tensor into {tt.shape}")
        v = self._value(name, t)
        attr = " {clip}" if clip else ""
        self._line(f"{v} = axe.slice {src} [{', '.join(map(str, ranges))}]{attr} : {src.type} to {t}")
        return v

    def copy(self, src: Value, dst: Value, *, schedule: str | None = None, barrier: Value | None = None,
             multicast: Sequence[int] | None = None) -> None:
        """`axe.copy src, dst` (`schedule tma`: by the tensor memory accelerator, `tma reduce
        sum` adding into `dst`, `ldmatrix`; with `barrier` it is async and completes on that
        mbarrier; `multicast [...]`: into those CTAs of the cluster too, a TMA copy's)."""
        self._same_shape(src, dst, "axe.copy")
        if barrier is not None:
            self._expect(barrier, MBARRIER, "axe.copy barrier")
        if multicast is not None and (barrier is None or schedule != "tma"):
            raise EmitError("axe.copy multicast: an async TMA copy's (schedule tma, barrier)")
        head = "axe.copy async" if barrier is not None else "axe.copy"
        tail = (f" schedule {schedule}" if schedule else "") + (f" barrier {barrier}" if barrier is not None else "")
        tail += f" multicast {list(multicast)}" if multicast is not None else ""
        self._line(f"{head} {src}, {dst}{tail} : {src.type}, {dst.type}")

    def copy_async(self, src: Value, dst: Value, *, schedule: str, after: Value | None = None,
                   name: str = "t") -> Value:
        """`axe.copy async src, dst schedule S [after %r] -> !axe.token`: a copy started (TMA,
        cp_async), complete once `axe.wait` on its token returns; `after` an `axe.arrive`'s
        token: issued once every thread of the CTA has arrived there."""
        self._same_shape(src, dst, "axe.copy async")
        if after is not None:
            self._expect(after, TOKEN, "axe.copy async after")
        v = self._value(name, TOKEN)
        aft = f" after {after}" if after is not None else ""
        self._line(f"{v} = axe.copy async {src}, {dst} schedule {schedule}{aft} : {src.type}, {dst.type} -> {TOKEN}")
        return v

    def cast(self, src: Value, dst: Value) -> None:
        self._same_shape(src, dst, "axe.cast")
        self._line(f"axe.cast {src}, {dst} : {src.type}, {dst.type}")

    def fill(self, dst: Value, value: Value) -> None:
        t = self._tensor(dst, "axe.fill")
        self._expect(value, t.elt, "axe.fill value")
        self._line(f"axe.fill {dst}, {value} : {dst.type}, {value.type}")

    def binary(self, kind: str, a: Value, b: Value, out: Value) -> None:
        """`axe.binary kind a, b, out` (elementwise, into `out`; `b` may be a 1x1 tensor,
        broadcast: a scale)."""
        if self._tensor(b, f"axe.binary {kind}").shape != (1, 1):
            self._same_shape(a, b, f"axe.binary {kind}")
        self._same_shape(a, out, f"axe.binary {kind}")
        self._line(f"axe.binary {kind} {a}, {b}, {out} : {a.type}, {b.type}, {out.type}")

    def unary(self, kind: str, src: Value, out: Value) -> None:
        """`axe.unary kind src, out` (elementwise)."""
        self._same_shape(src, out, f"axe.unary {kind}")
        self._line(f"axe.unary {kind} {src}, {out} : {src.type}, {out.type}")

    def matmul(self, a: Value, b: Value, c: Value, *, gate: str | None = None, up: Value | None = None,
               gather: tuple[Value, Value, Value] | None = None, scales: tuple[Value, Value] | None = None,
               bias: Value | None = None, activation: str | None = None, residual: Value | None = None,
               workspace: tuple[Value, Value] | None = None, transpose_b: bool = False,
               schedule: str | None = None) -> None:
        """`axe.matmul a, b, c` on global tensors, C = act(A B + bias) + residual, with the op's
        optional parts (a gated product and its separate up weights, the all-gather of A's rows,
        FP8 scales, split-K's workspace) and attributes (`transpose_b`: B given as [N, K];
        `schedule`: the text inside `#axe.matmul_schedule<...>`, an override of the compiler's)."""
        sa, sb, sc = (self._tensor(v, "axe.matmul").shape for v in (a, b, c))
        n = sb[0] if transpose_b else sb[1]
        if len({len(sa), len(sb), len(sc)}) != 1 or sa[0] != sc[0] or (sb[1] if transpose_b else sb[0]) != sa[1] \
                or n != (2 * sc[1] if gate and up is None else sc[1]):
            raise EmitError(f"axe.matmul: {sa} x {sb} -> {sc} (transpose_b={transpose_b}, gate={gate})")

        def group(word: str, values: Sequence[Value], typed: int | None = None) -> str:
            # `word(%v, ... : types)`: the types of the first `typed` values (all by default).
            types = ", ".join(str(v.type) for v in values[:typed])
            return f" {word}({', '.join(map(str, values))} : {types})"

        text = f"axe.matmul {a}, {b}, {c}"
        if gate:
            text += f" gate {gate}"
        if up is not None:
            text += group("up", [up])
        if gather is not None:
            self._expect(gather[2], I32, "axe.matmul gather epoch")
            text += group("gather", gather, typed=2)  # the epoch's type is i32, not written
        if scales is not None:
            text += group("scales", scales)
        if bias is not None:
            text += group("bias", [bias])
        if activation:
            text += f" activation {activation}"
        if residual is not None:
            text += group("residual", [residual])
        if workspace is not None:
            text += group("workspace", workspace)
        attrs = (["transpose_b"] if transpose_b else []) + (
            [f"schedule = #axe.matmul_schedule<{schedule}>"] if schedule else [])
        if attrs:
            text += f" {{{', '.join(attrs)}}}"
        self._line(f"{text} : {a.type}, {b.type}, {c.type}")

    def _gemm_operands(self, a: Value, b: Value, acc: Value, transpose_a: bool, transpose_b: bool) -> str:
        sa, sb, sc = (self._tensor(v, "axe.gemm").shape for v in (a, b, acc))
        m, k = sa[::-1] if transpose_a else sa
        kb, n = sb[::-1] if transpose_b else sb
        if (k, (m, n)) != (kb, tuple(sc)):
            raise EmitError(f"axe.gemm: {sa} x {sb} -> {sc} (transpose_a={transpose_a}, transpose_b={transpose_b})")
        flags = [f for f, on in (("transpose_a", transpose_a), ("transpose_b", transpose_b)) if on]
        attrs = f" {{{', '.join(flags)}}}" if flags else ""
        return f"{a}, {b}, {acc}{attrs} : {a.type}, {b.type}, {acc.type}"

    def gemm(self, a: Value, b: Value, acc: Value, *, transpose_a: bool = False, transpose_b: bool = False) -> None:
        """`axe.gemm a, b, acc`: acc += a b, complete when it returns (mma.sync, or wgmma
        waited for); operands as `gemm_async`'s."""
        self._line(f"axe.gemm {self._gemm_operands(a, b, acc, transpose_a, transpose_b)}")

    def gemm_async(self, a: Value, b: Value, acc: Value, *, transpose_a: bool = False, transpose_b: bool = False,
                   name: str = "gm") -> Value:
        """`axe.gemm async a, b, acc`: acc += a b (a read transposed, `transpose_a`: stored
        [K, M]; `transpose_b`: b stored [N, K]), started; returns its token."""
        ops = self._gemm_operands(a, b, acc, transpose_a, transpose_b)
        v = self._value(name, TOKEN)
        self._line(f"{v} = axe.gemm async {ops} -> {TOKEN}")
        return v

    def wait(self, *tokens: Value, outstanding: int | None = None) -> None:
        """`axe.wait [tokens] [outstanding N]`: until the tokens' async ops are done, or (with
        `outstanding`) at most N async gemms (or copy groups) are in flight; bare, all of them."""
        for t in tokens:
            self._expect(t, TOKEN, "axe.wait")
        text = "axe.wait" + (" " + ", ".join(map(str, tokens)) if tokens else "")
        self._line(text + (f" outstanding {outstanding}" if outstanding is not None else ""))

    def arrive(self, *, name: str = "rel") -> Value:
        """`axe.arrive`: every thread of the CTA arrives; its token, as `after` of an async copy,
        holds that copy back until all have (a split CTA barrier)."""
        v = self._value(name, TOKEN)
        self._line(f"{v} = axe.arrive")
        return v

    def device_id(self, *, name: str = "rank") -> Value:
        """`axe.device_id`: this device's index in the enclosing `axe.mesh`."""
        v = self._value(name, INDEX)
        self._line(f"{v} = axe.device_id")
        return v

    def mbarrier(self, arrivals: int, *, name: str) -> Value:
        """`axe.mbarrier arrivals N`: a shared-memory barrier that completes a phase after N
        arrivals (and the bytes of the async copies that name it)."""
        v = self._value(name, MBARRIER)
        self._line(f"{v} = axe.mbarrier arrivals {arrivals}")
        return v

    def mbarrier_wait(self, bar: Value, parity: Value) -> None:
        self._expect(bar, MBARRIER, "axe.mbarrier_wait")
        self._expect(parity, I1, "axe.mbarrier_wait parity")
        self._line(f"axe.mbarrier_wait {bar}, {parity}")

    def mbarrier_arrive(self, bar: Value, *, cta: Value | None = None) -> None:
        """`axe.mbarrier_arrive bar [cta %r]`: arrives on `bar`, or (`cta`) on the barrier of
        that name in the cluster's CTA of rank %r."""
        self._expect(bar, MBARRIER, "axe.mbarrier_arrive")
        if cta is not None:
            self._expect(cta, INDEX, "axe.mbarrier_arrive cta")
        self._line(f"axe.mbarrier_arrive {bar}" + (f" cta {cta}" if cta is not None else ""))

    def set_max_registers(self, count: int) -> None:
        """`axe.set_max_registers N`: the scope's warpgroup runs with N registers per thread."""
        self._line(f"axe.set_max_registers {count}")

    def signal(self, flag: Value, value: Value) -> None:
        """`axe.signal flag, value`: stores `value` into the global flag (release)."""
        self._signal("axe.signal", flag, value)

    def signal_wait(self, flags: Value, value: Value) -> None:
        """`axe.signal_wait flags, value`: until every flag holds `value` (acquire)."""
        self._signal("axe.signal_wait", flags, value)

    def _signal(self, op: str, flag: Value, value: Value) -> None:
        t = self._tensor(flag, op)
        self._expect(value, t.elt, f"{op} value")
        self._line(f"{op} {flag}, {value} : {flag.type}, {value.type}")

    @staticmethod
    def _tensor(v: Value, what: str) -> Tensor:
        t = resolve(v.type)
        if not isinstance(t, Tensor):
            raise EmitError(f"{what}: {v} is {v.type}, not an Axe tensor")
        return t

    def _same_shape(self, a: Value, b: Value, what: str) -> None:
        sa, sb = self._tensor(a, what).shape, self._tensor(b, what).shape
        if sa != sb:
            raise EmitError(f"{what}: shapes {sa} and {sb} differ")
