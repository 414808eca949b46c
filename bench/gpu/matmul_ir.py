#!/usr/bin/env python3
"""Writes the user-level input of one GEMM for axe-opt: a module whose function views its three
buffers (and FP8's two scales) as global tensors and multiplies them with one `axe.matmul`, as
a user (or a front end) writes it. The compiler chooses the schedule (`axe-matmul-schedule`)
and builds the kernel (`axe-expand-matmul`); `--schedule` passes an override.

    matmul_ir.py M N K [DTYPE [OUT]] [--name NAME] [--schedule 'tile_n = 128, ...'] [--workspace]
                 [--gate silu] [--gather R] [--bias] [--activation KIND] [--residual] > mm.mlir

DTYPE f16 (default), bf16 or e4m3 (B given as [N, K], per-tensor scales; e4m3b: per-block
scales, DeepSeek-V3's: scale_a [M, ceil(K/128)] column-major, as torch._scaled_mm takes it,
scale_b [ceil(N/128), ceil(K/128)] row-major); OUT f16 (default),
bf16 or f32. The function's arguments are bare 16-byte-aligned buffers (the launch
manifest's parameters): a [M*K], b [K*N], c [M*N], then scale_a, scale_b for FP8, then with
--workspace the split-K workspace: p [M*N] f32 and f [ceil(M/64)*ceil(N/64)] i32, zero before
the first launch (each launch leaves it zero).

--gate KIND: a gated product (SwiGLU's up/gate projection): b is [K*2N], B = [B_gate | B_up],
and C = KIND(A B_gate) * (A B_up) is M x N. --gather R: the all-gather of A's rows fused in, in
an `axe.mesh [R]`: a is this device's M/R x K rows, then after c the symmetric gather buffer
g [M*K], its flags gf [(R+1)*P] i32 (gather_flags; zero before the first launch) and the
launch's epoch (i32, one more each launch).

--up (with --gate): the up weights are a buffer of their own, bu [K*N] (after the workspace and
the gather's buffers), and b is the gate's [K*N].

The epilogue: --bias adds a row bias [N] (in A's type), --activation KIND applies an
`axe.unary` kind, --residual adds r [M*N] (in C's type): C = KIND(A B + bias) + r; their
buffers come last, bias before r.
"""
import argparse

MLIR = {"f16": "f16", "bf16": "bf16", "f32": "f32", "e4m3": "f8E4M3FN", "e4m3b": "f8E4M3FN", "e5m2": "f8E5M2"}


def gather_flags(m, k, ranks):
    """Slots per row of a gathered A's flags ([R, R + 1, P] per device: a row per source, one
    flag per 64 x 512 piece of its rows, and a row of start flags)."""
    pieces = -(-(m // ranks) // 64) * -(-k // 512)
    return pieces * -(-ranks // pieces)


def module(m, n, k, dtype="f16", out="f16", name=None, schedule=None, target="sm_90a", workspace=False,
           gate=None, gather=0, bias=False, activation=None, residual=False, up=False):
    e, o = MLIR[dtype], MLIR[out]
    nb = 2 * n if gate and not up else n
    fp8 = dtype in ("e4m3", "e4m3b", "e5m2")
    blocks = dtype == "e4m3b"
    kb, nbk = -(-k // 128), -(-n // 128)
    name = name or f"matmul_{m}x{n}x{k}_{dtype}_o{out}"
    ga = f"!axe.tensor<{m}x{k}x{e}, global, #axe.layout<({m}, {k}) : ({k}, 1)>>"
    a_elems = m * k
    if gather:
        ga = f"!axe.tensor<{m}x{k}x{e}, global, #axe.layout<({gather}, {m // gather}, {k}) : (1@gpuid, {k}, 1)>>"
        a_elems = m // gather * k
    gb = (f"!axe.tensor<{nb}x{k}x{e}, global, #axe.layout<({nb}, {k}) : ({k}, 1)>>" if fp8
          else f"!axe.tensor<{k}x{nb}x{e}, global, #axe.layout<({k}, {nb}) : ({nb}, 1)>>")
    gc = f"!axe.tensor<{m}x{n}x{o}, global, #axe.layout<({m}, {n}) : ({n}, 1)>>"
    sg = "!axe.tensor<1x1xf32, global, #axe.layout<(1, 1) : (1, 1)>>"
    align = "{axe.align = 16 : i64}"
    scales = f", %scale_a: memref<1xf32> {align}, %scale_b: memref<1xf32> {align}" if fp8 else ""
    if blocks:
        scales = f", %scale_a: memref<{m * kb}xf32> {align}, %scale_b: memref<{nbk * kb}xf32> {align}"
    fm, fn = -(-m // 64), -(-n // 64)
    gp = f"!axe.tensor<{m}x{n}xf32, global, #axe.layout<({m}, {n}) : ({n}, 1)>>"
    gf = f"!axe.tensor<{fm}x{fn}xi32, global, #axe.layout<({fm}, {fn}) : ({fn}, 1)>>"
    if workspace:
        scales += f", %p: memref<{m * n}xf32> {align}, %f: memref<{fm * fn}xi32> {align}"
    if gather:
        pf = gather_flags(m, k, gather)
        gg = f"!axe.tensor<{gather}x{m}x{k}x{e}, global, #axe.layout<({gather}, {m}, {k}) : (1@gpuid, {k}, 1)>>"
        gfl = (f"!axe.tensor<{gather}x{gather + 1}x{pf}xi32, global, "
               f"#axe.layout<({gather}, {gather + 1}, {pf}) : (1@gpuid, {pf}, 1)>>")
        scales += f", %g: memref<{m * k}x{e}> {align}, %gf: memref<{(gather + 1) * pf}xi32> {align}, %epoch: i32"
    gbias = f"!axe.tensor<1x{n}x{e}, global, #axe.layout<(1, {n}) : ({n}, 1)>>"
    gres = f"!axe.tensor<{m}x{n}x{o}, global, #axe.layout<({m}, {n}) : ({n}, 1)>>"
    if up:
        scales += f", %bu: memref<{k * n}x{e}> {align}"
    if bias:
        scales += f", %bias: memref<{n}x{e}>"
    if residual:
        scales += f", %r: memref<{m * n}x{o}>"
    ind = "      " if gather else "    "
    lines = [f'module attributes {{axe.target = #axe.target<"{target}">}} {{',
             f"  func.func @{name}(%a: memref<{a_elems}x{e}> {align}, %b: memref<{k * nb}x{e}> {align}, "
             f"%c: memref<{m * n}x{o}> {align}{scales}) {{"]
    if gather:
        lines.append(f"    axe.mesh [{gather}] {{")
    lines += [f"{ind}%A = axe.view %a : memref<{a_elems}x{e}> to {ga}",
              f"{ind}%B = axe.view %b : memref<{k * nb}x{e}> to {gb}",
              f"{ind}%C = axe.view %c : memref<{m * n}x{o}> to {gc}"]
    operands, types = "%A, %B, %C", f"{ga}, {gb}, {gc}"
    if gate:
        operands += f" gate {gate}"
    if up:
        lines.append(f"{ind}%BU = axe.view %bu : memref<{k * n}x{e}> to {gb}")
        operands += f" up(%BU : {gb})"
    if gather:
        lines += [f"{ind}%G = axe.view %g : memref<{m * k}x{e}> to {gg}",
                  f"{ind}%GF = axe.view %gf : memref<{(gather + 1) * pf}xi32> to {gfl}"]
        operands += f" gather(%G, %GF, %epoch : {gg}, {gfl})"
    if blocks:
        sga = f"!axe.tensor<{m}x{kb}xf32, global, #axe.layout<({m}, {kb}) : (1, {m})>>"
        sgb = f"!axe.tensor<{nbk}x{kb}xf32, global, #axe.layout<({nbk}, {kb}) : ({kb}, 1)>>"
        lines += [f"{ind}%SA = axe.view %scale_a : memref<{m * kb}xf32> to {sga}",
                  f"{ind}%SB = axe.view %scale_b : memref<{nbk * kb}xf32> to {sgb}"]
        operands += f" scales(%SA, %SB : {sga}, {sgb})"
    elif fp8:
        lines += [f"{ind}%SA = axe.view %scale_a : memref<1xf32> to {sg}",
                  f"{ind}%SB = axe.view %scale_b : memref<1xf32> to {sg}"]
        operands += f" scales(%SA, %SB : {sg}, {sg})"
    if bias:
        lines.append(f"{ind}%BIAS = axe.view %bias : memref<{n}x{e}> to {gbias}")
        operands += f" bias(%BIAS : {gbias})"
    if activation:
        operands += f" activation {activation}"
    if residual:
        lines.append(f"{ind}%R = axe.view %r : memref<{m * n}x{o}> to {gres}")
        operands += f" residual(%R : {gres})"
    if workspace:
        lines += [f"{ind}%P = axe.view %p : memref<{m * n}xf32> to {gp}",
                  f"{ind}%F = axe.view %f : memref<{fm * fn}xi32> to {gf}"]
        operands += f" workspace(%P, %F : {gp}, {gf})"
    attrs = (["transpose_b"] if fp8 else []) + ([f"schedule = #axe.matmul_schedule<{schedule}>"] if schedule else [])
    attr_dict = f" {{{', '.join(attrs)}}}" if attrs else ""
    lines.append(f"{ind}axe.matmul {operands}{attr_dict} : {types}")
    if gather:
        lines.append("    }")
    lines += ["    return", "  }", "}"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("m", type=int)
    ap.add_argument("n", type=int)
    ap.add_argument("k", type=int)
    ap.add_argument("dtype", nargs="?", default="f16")
    ap.add_argument("out", nargs="?", default="f16")
    ap.add_argument("--name")
    ap.add_argument("--schedule")
    ap.add_argument("--workspace", action="store_true")
    ap.add_argument("--gate")
    ap.add_argument("--gather", type=int, default=0)
    ap.add_argument("--bias", action="store_true")
    ap.add_argument("--activation")
    ap.add_argument("--residual", action="store_true")
    ap.add_argument("--up", action="store_true", help="with --gate: the up weights as a buffer of their own")
    a = ap.parse_args()
    print(module(a.m, a.n, a.k, a.dtype, a.out, a.name, a.schedule, workspace=a.workspace, gate=a.gate,
                 gather=a.gather, bias=a.bias, activation=a.activation, residual=a.residual, up=a.up), end="")
