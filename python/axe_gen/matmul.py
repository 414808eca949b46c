"""The user-level input of one GEMM: a module whose function views its buffers as global
tensors and multiplies them with one `axe.matmul`, as a user (or a front end) writes it. The
compiler chooses the schedule (`axe-matmul-schedule`) and builds the kernel
(`axe-expand-matmul`); `schedule` passes an override (docs/gemm.md).

    PYTHONPATH=python python3 -m axe_gen.matmul M N K [DTYPE [OUT]] [--name NAME]
        [--schedule 'tile_n = 128, ...'] [--workspace] [--gate silu] [--gather R] [--bias]
        [--activation KIND] [--residual] > mm.mlir

DTYPE f16 (default), bf16 or e4m3 (B given as [N, K], per-tensor scales; e4m3b: per-block
scales, DeepSeek-V3's: scale_a [M, ceil(K/128)] column-major, as torch._scaled_mm takes it,
scale_b [ceil(N/128), ceil(K/128)] row-major); OUT f16 (default), bf16 or f32. The function's
arguments are bare 16-byte-aligned buffers (the launch manifest's parameters): a [M*K],
b [K*N], c [M*N], then scale_a, scale_b for FP8, then with `workspace` the split-K workspace:
p [M*N] f32 and f [ceil(M/64)*ceil(N/64)] i32, zero before the first launch (each launch
leaves it zero).

`gate` KIND: a gated product (SwiGLU's up/gate projection): b is [K*2N], B = [B_gate | B_up],
and C = KIND(A B_gate) * (A B_up) is M x N. `gather` R: the all-gather of A's rows fused in, in
an `axe.mesh [R]`: a is this device's M/R x K rows, then after c the symmetric gather buffer
g [M*K], its flags gf [(R+1)*P] i32 (`gather_flags`; zero before the first launch) and the
launch's epoch (i32, one more each launch). `up` (with `gate`): the up weights are a buffer of
their own, bu [K*N] (after the workspace and the gather's buffers), and b is the gate's [K*N].

The epilogue: `bias` adds a row bias [N] (in A's type), `activation` KIND applies an
`axe.unary` kind, `residual` adds r [M*N] (in C's type): C = KIND(A B + bias) + r; their
buffers come last, bias before r.
"""
from __future__ import annotations

import argparse
import contextlib

from .emitter import DTYPES, E4M3, F32, I32, Emitter, MemRef, Param, Tensor, Value, row_major

ELEMENTS = {**DTYPES, "e4m3b": E4M3}  # e4m3b: e4m3 with block scales


def gather_flags(m: int, k: int, ranks: int) -> int:
    """Slots per row of a gathered A's flags ([R, R + 1, P] per device: a row per source, one
    flag per 64 x 512 piece of its rows, and a row of start flags)."""
    pieces = -(-(m // ranks) // 64) * -(-k // 512)
    return pieces * -(-ranks // pieces)


def module(m: int, n: int, k: int, dtype: str = "f16", out: str = "f16", name: str | None = None,
           schedule: str | None = None, target: str = "sm_90a", workspace: bool = False, gate: str | None = None,
           gather: int = 0, bias: bool = False, activation: str | None = None, residual: bool = False,
           up: bool = False) -> str:
    """The module (see the module documentation for the arguments)."""
    e_t, o_t = ELEMENTS[dtype], ELEMENTS[out]
    nb = 2 * n if gate and not up else n
    fp8 = dtype in ("e4m3", "e4m3b", "e5m2")
    blocks = dtype == "e4m3b"
    kb, nbk = -(-k // 128), -(-n // 128)
    name = name or f"matmul_{m}x{n}x{k}_{dtype}_o{out}"
    em = Emitter()
    a_elems = m // gather * k if gather else m * k
    ga = em.alias("a", Tensor((m, k), e_t, "global", f"({gather}, {m // gather}, {k}) : (1@gpuid, {k}, 1)")
                  if gather else row_major(m, k, e_t))
    gb = em.alias("b", row_major(nb, k, e_t) if fp8 else row_major(k, nb, e_t))
    gc = em.alias("c", row_major(m, n, o_t))
    fm, fn = -(-m // 64), -(-n // 64)
    params = [Param("a", MemRef(a_elems, e_t), 16), Param("b", MemRef(k * nb, e_t), 16),
              Param("c", MemRef(m * n, o_t), 16)]
    if blocks:
        params += [Param("scale_a", MemRef(m * kb, F32), 16), Param("scale_b", MemRef(nbk * kb, F32), 16)]
    elif fp8:
        params += [Param("scale_a", MemRef(1, F32), 16), Param("scale_b", MemRef(1, F32), 16)]
    if workspace:
        params += [Param("p", MemRef(m * n, F32), 16), Param("f", MemRef(fm * fn, I32), 16)]
    pf = gather_flags(m, k, gather) if gather else 0
    if gather:
        params += [Param("g", MemRef(m * k, e_t), 16), Param("gf", MemRef((gather + 1) * pf, I32), 16),
                   Param("epoch", I32)]
    if up:
        params.append(Param("bu", MemRef(k * n, e_t), 16))
    if bias:
        params.append(Param("bias", MemRef(n, e_t)))
    if residual:
        params.append(Param("r", MemRef(m * n, o_t)))
    with em.module(target), em.func(name, params) as args:
        named = {p.name: v for p, v in zip(params, args)}
        with em.mesh(gather) if gather else contextlib.nullcontext():
            A, B = em.view(named["a"], ga, name="A"), em.view(named["b"], gb, name="B")
            C = em.view(named["c"], gc, name="C")
            BU = em.view(named["bu"], gb, name="BU") if up else None
            gathered = None
            if gather:
                gg = em.alias("g", Tensor((gather, m, k), e_t, "global", f"({gather}, {m}, {k}) : (1@gpuid, {k}, 1)"))
                gfl = em.alias("gf", Tensor((gather, gather + 1, pf), I32, "global",
                                            f"({gather}, {gather + 1}, {pf}) : (1@gpuid, {pf}, 1)"))
                gathered = (em.view(named["g"], gg, name="G"), em.view(named["gf"], gfl, name="GF"), named["epoch"])
            scales: tuple[Value, Value] | None = None
            if blocks:
                sga = em.alias("scale_a", Tensor((m, kb), F32, "global", f"({m}, {kb}) : (1, {m})"))
                sgb = em.alias("scale_b", Tensor((nbk, kb), F32, "global", f"({nbk}, {kb}) : ({kb}, 1)"))
                scales = (em.view(named["scale_a"], sga, name="SA"), em.view(named["scale_b"], sgb, name="SB"))
            elif fp8:
                sg = em.alias("scale", Tensor((1, 1), F32, "global", "(1, 1) : (1, 1)"))
                scales = (em.view(named["scale_a"], sg, name="SA"), em.view(named["scale_b"], sg, name="SB"))
            BIAS = em.view(named["bias"], em.alias("bias", row_major(1, n, e_t)), name="BIAS") if bias else None
            R = em.view(named["r"], em.alias("residual", row_major(m, n, o_t)), name="R") if residual else None
            ws = None
            if workspace:
                gp = em.alias("partials", row_major(m, n, F32))
                gf = em.alias("flags", Tensor((fm, fn), I32, "global", f"({fm}, {fn}) : ({fn}, 1)"))
                ws = (em.view(named["p"], gp, name="P"), em.view(named["f"], gf, name="F"))
            em.matmul(A, B, C, gate=gate, up=BU, gather=gathered, scales=scales, bias=BIAS, activation=activation,
                      residual=R, workspace=ws, transpose_b=fp8, schedule=schedule)
    return em.text()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("m", type=int)
    ap.add_argument("n", type=int)
    ap.add_argument("k", type=int)
    ap.add_argument("dtype", nargs="?", default="f16", choices=sorted(ELEMENTS))
    ap.add_argument("out", nargs="?", default="f16", choices=["f16", "bf16", "f32"])
    ap.add_argument("--name")
    ap.add_argument("--schedule")
    ap.add_argument("--workspace", action="store_true")
    ap.add_argument("--gate")
    ap.add_argument("--gather", type=int, default=0)
    ap.add_argument("--bias", action="store_true")
    ap.add_argument("--activation")
    ap.add_argument("--residual", action="store_true")
    ap.add_argument("--up", action="store_true", help="with --gate: the up weights as a buffer of their own")
    a = ap.parse_args(argv)
    print(module(a.m, a.n, a.k, a.dtype, a.out, a.name, a.schedule, workspace=a.workspace, gate=a.gate,
                 gather=a.gather, bias=a.bias, activation=a.activation, residual=a.residual, up=a.up), end="")


if __name__ == "__main__":
    main()
