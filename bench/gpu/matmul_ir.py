#!/usr/bin/env python3
"""Writes the user-level input of one GEMM for axe-opt: a module whose function views its three
buffers (and FP8's two scales) as global tensors and multiplies them with one `axe.matmul`, as
a user (or a front end) writes it. The compiler chooses the schedule (`axe-matmul-schedule`)
and builds the kernel (`axe-expand-matmul`); `--schedule` passes an override.

    matmul_ir.py M N K [DTYPE [OUT]] [--name NAME] [--schedule 'tile_n = 128, ...'] [--workspace] > mm.mlir

DTYPE f16 (default), bf16 or e4m3 (B given as [N, K], per-tensor scales); OUT f16 (default),
bf16 or f32. The function's arguments are bare 16-byte-aligned buffers (the launch
manifest's parameters): a [M*K], b [K*N], c [M*N], then scale_a, scale_b for FP8, then with
--workspace the split-K workspace: p [M*N] f32 and f [ceil(M/64)*ceil(N/64)] i32, zero before
the first launch (each launch leaves it zero).
"""
import argparse

MLIR = {"f16": "f16", "bf16": "bf16", "f32": "f32", "e4m3": "f8E4M3FN", "e5m2": "f8E5M2"}


def module(m, n, k, dtype="f16", out="f16", name=None, schedule=None, target="sm_90a", workspace=False):
    e, o = MLIR[dtype], MLIR[out]
    fp8 = dtype in ("e4m3", "e5m2")
    name = name or f"matmul_{m}x{n}x{k}_{dtype}_o{out}"
    ga = f"!axe.tensor<{m}x{k}x{e}, global, #axe.layout<({m}, {k}) : ({k}, 1)>>"
    gb = (f"!axe.tensor<{n}x{k}x{e}, global, #axe.layout<({n}, {k}) : ({k}, 1)>>" if fp8
          else f"!axe.tensor<{k}x{n}x{e}, global, #axe.layout<({k}, {n}) : ({n}, 1)>>")
    gc = f"!axe.tensor<{m}x{n}x{o}, global, #axe.layout<({m}, {n}) : ({n}, 1)>>"
    sg = "!axe.tensor<1x1xf32, global, #axe.layout<(1, 1) : (1, 1)>>"
    align = "{axe.align = 16 : i64}"
    scales = f", %scale_a: memref<1xf32> {align}, %scale_b: memref<1xf32> {align}" if fp8 else ""
    fm, fn = -(-m // 64), -(-n // 64)
    gp = f"!axe.tensor<{m}x{n}xf32, global, #axe.layout<({m}, {n}) : ({n}, 1)>>"
    gf = f"!axe.tensor<{fm}x{fn}xi32, global, #axe.layout<({fm}, {fn}) : ({fn}, 1)>>"
    if workspace:
        scales += f", %p: memref<{m * n}xf32> {align}, %f: memref<{fm * fn}xi32> {align}"
    lines = [f'module attributes {{axe.target = #axe.target<"{target}">}} {{',
             f"  func.func @{name}(%a: memref<{m * k}x{e}> {align}, %b: memref<{k * n}x{e}> {align}, "
             f"%c: memref<{m * n}x{o}> {align}{scales}) {{",
             f"    %A = axe.view %a : memref<{m * k}x{e}> to {ga}",
             f"    %B = axe.view %b : memref<{k * n}x{e}> to {gb}",
             f"    %C = axe.view %c : memref<{m * n}x{o}> to {gc}"]
    operands, types = "%A, %B, %C", f"{ga}, {gb}, {gc}"
    if fp8:
        lines += [f"    %SA = axe.view %scale_a : memref<1xf32> to {sg}",
                  f"    %SB = axe.view %scale_b : memref<1xf32> to {sg}"]
        operands += f" scales(%SA, %SB : {sg}, {sg})"
    if workspace:
        lines += [f"    %P = axe.view %p : memref<{m * n}xf32> to {gp}",
                  f"    %F = axe.view %f : memref<{fm * fn}xi32> to {gf}"]
        operands += f" workspace(%P, %F : {gp}, {gf})"
    attrs = (["transpose_b"] if fp8 else []) + ([f"schedule = #axe.matmul_schedule<{schedule}>"] if schedule else [])
    attr_dict = f" {{{', '.join(attrs)}}}" if attrs else ""
    lines += [f"    axe.matmul {operands}{attr_dict} : {types}", "    return", "  }", "}"]
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
    a = ap.parse_args()
    print(module(a.m, a.n, a.k, a.dtype, a.out, a.name, a.schedule, workspace=a.workspace), end="")
