#!/usr/bin/env python3
"""Checks, and with --bench times, the typed TMA + wgmma GEMMs of axe_gen.gemm_tma.TYPED_VARIANTS:
16-bit outputs (f16/bf16, what cuBLAS and Triton store) and the FP8 GEMMs (e4m3/e5m2 A [M, K]
and B [N, K], f32 accumulation, per-tensor scales, bf16/f32 output — what
`torch._scaled_mm` computes).

    PYTHONPATH=python python3 test/gpu/gemm_typed.py DIR [--bench [--triton]] [--reps R] [--figure10] [--ws [--fp8] [--cluster | --no-cluster]] [SUBSTRING]

--figure10 runs gemm_tma.FIGURE10 instead: every projection of the paper's Figure 10 models
at M = 8192 (f16 and FP8), tiles chosen by gemm_tma.choose. --ws runs the warp-specialized,
persistent GEMMs of axe_gen.gemm_ws.VARIANTS (with --figure10, gemm_ws.figure10_variants, or
with --fp8 too, figure10_fp8_variants: clusters of two CTAs where gemm_ws.choose_cluster
picks them, every shape with --cluster, none with --no-cluster) and, with --bench, also times the
non-specialized kernel of the same shape (gemm_tma.choose's tiles) and, for a clustered
kernel, the same kernel without clusters, where DIR has them.

DIR is test/gpu/build.sh's output (<entry>.json manifests). Inputs are made by torch on the
GPU (NumPy has no FP8). Correctness oracle: PyTorch's float32 product of the same (FP8- or
16-bit-valued) inputs times the scales, with TF32 off; the tolerance is the output type's
rounding (relative to the largest |entry|) plus the summation-order difference.

Baselines, timed paired in one process (CUDA events, median of 30 runs per measurement,
R alternating measurements; the ratio's median and spread are printed):
  16-bit in/out: torch.matmul (cuBLAS) in that type;
  FP8: torch._scaled_mm(a, b.t(), scale_a, scale_b, out_dtype) (cuBLASLt FP8);
  with --triton, f16 in/out also: axe_bench.triton_matmul (autotuned per shape).
"""
import os
import statistics
import sys

import axe_runtime
import torch
from axe_bench import timing, triton_matmul
from axe_bench.gemm import RTOL, RTOL_FP8_F32, TORCH, inputs
from axe_gen import gemm_tma, gemm_ws

_TRITON: list = []  # the tuned Triton matmul, built on first use


def triton_run():
    """The tuned Triton matmul, built once (None without Triton)."""
    if not _TRITON:
        _TRITON.append(triton_matmul.matmul())
    return _TRITON[0]


# Timed runs per measurement (fewer for the large Figure 10 shapes).
REPS = 10 if "--figure10" in sys.argv else 30


def time_ms(fn, warmup=5, reps=None):
    return timing.time_ms(fn, warmup, reps or REPS)


def main():
    d = sys.argv[1]
    bench = "--bench" in sys.argv
    reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 5
    rest = [x for i, x in enumerate(sys.argv[2:], 2) if not x.startswith("--") and sys.argv[i - 1] != "--reps"]
    torch.backends.cuda.matmul.allow_tf32 = False
    passed = failed = 0
    ws = "--ws" in sys.argv
    if ws:
        # Figure 10's clusters: the generator's choice (choose_cluster), or all pairs (--cluster)
        # or none (--no-cluster). A clustered kernel is timed beside the same one without.
        cl = 2 if "--cluster" in sys.argv else 1 if "--no-cluster" in sys.argv else None
        if "--figure10" in sys.argv:
            variants = gemm_ws.figure10_fp8_variants(cl) if "--fp8" in sys.argv else gemm_ws.figure10_variants(cl)
        else:
            variants = gemm_ws.VARIANTS
    else:
        variants = gemm_tma.FIGURE10 if "--figure10" in sys.argv else gemm_tma.TYPED_VARIANTS
    shapes = {(m, n, k): f"{model} {proj}" for model, proj, m, n, k in gemm_tma.figure10_shapes()}
    for v in variants:
        name = (gemm_ws.name(*v) if ws else gemm_tma.name(*v)) + "_kernel"
        if rest and not any(s in name for s in rest):
            continue
        m, n, k = v[:3]
        dtype, out = ((v[11] if len(v) > 11 else "f16"), v[5]) if ws else (v[9], v[10])
        fp8 = dtype in ("e4m3", "e5m2")
        try:
            kernel = axe_runtime.load(f"{d}/{name}.json", entry=name)
            a, b, c, scales, storage = inputs(m, n, k, dtype, out)
            args = [a.view(-1), b.view(-1), c.view(-1)] + scales
            kernel(*args)
            torch.cuda.synchronize()
        except Exception as e:  # a bad manifest, a refused argument, a launch error
            print(f"FAIL {name}: {type(e).__name__}: {e}", flush=True)
            failed += 1
            continue
        if fp8:
            want = (a.float() @ b.float().t()) * (scales[0] * scales[1])
        else:
            want = a.float() @ b.float()
        got = c.float()
        scale = want.abs().max().item()
        err = (got - want).abs().max().item()
        rtol = RTOL_FP8_F32 if fp8 and out == "f32" else RTOL[out]
        ok = bool(not torch.isnan(got).any()) and err <= rtol * scale
        how = f"bound {rtol * scale:.3g}"
        if not torch.isnan(storage[m * n:]).all():
            print(f"FAIL {name}: wrote past the output tensor", flush=True)
            failed += 1
            continue
        if fp8 and not ok and dtype == "e4m3" and not torch.isnan(got).any():
            # The accumulation error of FP8 wgmma grows with K: the second oracle is cuBLASLt's
            # FP8 GEMM with the same accumulation (use_fast_accum=True), which this kernel must
            # match to within the output type's rounding.
            fast = torch._scaled_mm(a, b.t(), scale_a=scales[0], scale_b=scales[1], out_dtype=TORCH[out],
                                    use_fast_accum=True).float()
            diff = (got - fast).abs().max().item()
            ok = diff <= RTOL[out] * scale
            how = (f"over {rtol * scale:.3g} from float32, but {diff:.3g} from torch._scaled_mm(use_fast_accum=True), "
                   f"bound {RTOL[out] * scale:.3g}")
        what = f" ({shapes[(m, n, k)]})" if "--figure10" in sys.argv and (m, n, k) in shapes else ""
        line = f"{'ok  ' if ok else 'FAIL'} {name}{what}: max abs error {err:.3g} (entries up to {scale:.3g}, {how})"
        passed += ok
        failed += not ok
        if bench:
            launch = kernel.launcher(*args)
            if fp8 and dtype == "e5m2":
                # cuBLASLt has no e5m2 x e5m2 GEMM (torch._scaled_mm refuses it).
                print(line + "; no baseline (torch._scaled_mm refuses e5m2 x e5m2)", flush=True)
                continue
            if fp8:
                bt = b.t()  # [K, N] column-major, what _scaled_mm takes
                base_name = f"torch._scaled_mm({dtype}, out {out})"
                base = lambda: torch._scaled_mm(a, bt, scale_a=scales[0], scale_b=scales[1], out_dtype=TORCH[out])
                fast = torch._scaled_mm(a, bt, scale_a=scales[0], scale_b=scales[1], out_dtype=TORCH[out],
                                        use_fast_accum=True).float()
                berr = (base().float() - want).abs().max().item()
                ferr = (fast - want).abs().max().item()
                line += f"; torch._scaled_mm max abs error {berr:.3g}, with use_fast_accum {ferr:.3g}"
            else:
                base_name = f"torch.matmul ({dtype}, out {dtype})"
                base = lambda: torch.matmul(a, b)
            baselines = [(base_name, base)]
            if "--triton" in sys.argv and dtype == "f16" and out == "f16":
                # A tuned Triton matmul (autotuned per shape on its first call; its own result
                # is checked against the same oracle).
                tri = triton_run()
                if tri is not None:
                    tc = torch.empty(m, n, device="cuda", dtype=torch.float16)
                    tri(a, b, tc)
                    torch.cuda.synchronize()
                    line += f"; tuned Triton max abs error {(tc.float() - want).abs().max().item():.3g}"
                    baselines.append(("Triton (tuned, f16 out)", lambda: tri(a, b, tc)))
            if ws and len(v) > 12 and v[12] > 1:
                single = gemm_ws.name(*v[:12]) + "_kernel"
                if os.path.exists(f"{d}/{single}.json"):
                    baselines.append((f"axe WS without clusters {single}",
                                      axe_runtime.load(f"{d}/{single}.json", entry=single).launcher(*args)))
            if ws and len(v) > 10 and v[10] == 1:
                # The same kernel with async TMA stores in its epilogue (TMA_STORE 2), where
                # DIR has it: checked against the same oracle, then timed.
                tw = gemm_ws.name(*(v[:10] + (2,) + v[11:])) + "_kernel"
                if os.path.exists(f"{d}/{tw}.json"):
                    c2 = torch.full_like(c, float("nan"))
                    args2 = [a.view(-1), b.view(-1), c2.view(-1)] + scales
                    twin = axe_runtime.load(f"{d}/{tw}.json", entry=tw)
                    twin(*args2)
                    torch.cuda.synchronize()
                    terr = (c2.float() - want).abs().max().item()
                    tok = bool(not torch.isnan(c2.float()).any()) and terr <= rtol * scale
                    passed += tok
                    failed += not tok
                    line += f"; {'ok' if tok else 'FAIL'} async-store twin max abs error {terr:.3g}"
                    baselines.append((f"axe WS with async TMA stores {tw}", twin.launcher(*args2)))
            if ws:
                # The non-specialized TMA + wgmma kernel of this shape (the tiles
                # gemm_tma.choose picks), where build.sh made it.
                other = gemm_tma.name(m, n, k, *gemm_tma.choose(m, n, k), dtype, out) + "_kernel"
                if os.path.exists(f"{d}/{other}.json"):
                    ok_other = axe_runtime.load(f"{d}/{other}.json", entry=other)
                    baselines.append((f"axe non-specialized {other}", ok_other.launcher(*args)))
            if fp8:
                # The same accumulation as this kernel's (see the oracle above).
                baselines.append((base_name[:-1] + ", use_fast_accum)",
                                  lambda: torch._scaled_mm(a, bt, scale_a=scales[0], scale_b=scales[1],
                                                           out_dtype=TORCH[out], use_fast_accum=True)))
            mine, theirs = [], {bn: [] for bn, _ in baselines}
            for _ in range(reps):
                mine.append(time_ms(launch))
                for bn, fn in baselines:
                    theirs[bn].append(time_ms(fn))
            flops = 2 * m * n * k
            ta = statistics.median(mine)
            line += f"\n     axe {ta * 1e3:.1f} us ({flops / ta / 1e9:.0f} TFLOP/s)"
            for bn, ts in theirs.items():
                med, lo, hi = timing.ratio_stats(ts, mine)
                tb = statistics.median(ts)
                line += (f"\n     {bn} {tb * 1e3:.1f} us ({flops / tb / 1e9:.0f} TFLOP/s); ratio (baseline time / axe time) "
                         f"median {med:.3f}, min {lo:.3f}, max {hi:.3f} over {reps} paired runs")
        print(line, flush=True)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
