#!/usr/bin/env python3
"""The mma.sync (sm_80-class) GEMMs at 4096^3 against cuBLAS, paired in one process: every
kernel of `KERNELS` found in DIR is checked against PyTorch's float32 product and timed beside
`torch.matmul` (f16 out, what cuBLAS stores) and `torch.mm(..., out_dtype=torch.float32)` (f32
out, what these kernels store). With OLD, the same kernel built from another compiler (a
directory of manifests with the same names) is timed in the same rounds: old / new ratios.
With --triton, a tuned Triton matmul compiled to mma.sync is timed in the same rounds too:
axe_bench.triton_matmul autotuned over its configurations and CUTLASS's sm_80 tile shapes,
with `DISABLE_MMA_V3=1` (Triton's switch that keeps Hopper on its Ampere mma.sync path). What
a mature compiler reaches with the same instruction on this GPU; the script checks that the PTX
Triton wrote has mma.sync and no wgmma, and that its product is right.

    python3 mma_sync_gemm.py DIR [OLD] [--reps N] [--only SUBSTRING] [--triton]
    python3 mma_sync_gemm.py DIR --k-scaling [--reps N]

--k-scaling times the 128x256, 4-stage split-barrier kernel at 4096 x 4096 x K for K = 2048 ...
16384 beside cuBLAS and fits time = fixed + K/64 x per-step: what its prologue, epilogue and
launch cost against what each 64-wide K step of the mainloop costs (over all tiles' waves).

DIR: test/gpu/build.sh's target/gpu/sm_90 (the kernels are built with chip=sm_90: TMA feeds
shared memory, ldmatrix + mma.sync compute). Prints, per kernel, the median time of each round's
30 launches, the median over rounds of the ratios and their [min, max].
"""
import glob
import os
import statistics
import sys
import tempfile

if "--triton" in sys.argv:
    # Before anything compiles: Triton reads the switch when it picks the MMA version, and the
    # fresh cache directory holds only this process's kernels for the PTX check below.
    os.environ["DISABLE_MMA_V3"] = "1"
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="triton-mma-sync-")

import axe_runtime  # noqa: E402
import torch  # noqa: E402
from axe_bench.timing import ratio_stats, time_ms  # noqa: E402

# (manifest name, description): axe_gen.gemm_tma's sm_90 variants at 4096^3 (128x128 or 128x256
# CTA tiles of 8 warps, S TMA stages, RELEASE 1 = split CTA barriers, RELEASE 2 = each stage
# refilled as soon as it is free) and axe_gen.gemm_ws's
# warp-specialized ones with mma.sync consumers.
KERNELS = [
    ("gemm_4096x4096x4096_tma_mma", "TMA, 128x128, 4 stages"),
    ("gemm_4096x4096x4096_tma_bn256_s3_mma", "TMA, 128x256, 3 stages"),
    ("gemm_4096x4096x4096_tma_bn256_s4_mma", "TMA, 128x256, 4 stages"),
    ("gemm_4096x4096x4096_tma_bn256_s4_mma_rel", "TMA, 128x256, 4 stages, split barriers"),
    ("gemm_4096x4096x4096_tma_bn256_s3_mma_rel", "TMA, 128x256, 3 stages, split barriers"),
    ("gemm_4096x4096x4096_tma_mma_rel", "TMA, 128x128, 4 stages, split barriers"),
    ("gemm_4096x4096x4096_tma_bn128_s3_mma_rel", "TMA, 128x128, 3 stages, split barriers (2 CTAs per SM)"),
    ("gemm_4096x4096x4096_tma_bn128_s2_mma_rel", "TMA, 128x128, 2 stages, split barriers (2-3 CTAs per SM)"),
    ("gemm_4096x4096x4096_tma_bn256_s4_mma_rel_pf", "TMA, 128x256, 4 stages, split barriers, fragments prefetched"),
    ("gemm_4096x4096x4096_tma_bn256_s3_mma_rel_pf", "TMA, 128x256, 3 stages, split barriers, fragments prefetched"),
    ("gemm_4096x4096x4096_tma_mma_rel_pf", "TMA, 128x128, 4 stages, split barriers, fragments prefetched"),
    ("gemm_4096x4096x4096_tma_bn128_s3_mma_rel_pf", "TMA, 128x128, 3 stages, split barriers, fragments prefetched"),
    ("gemm_4096x4096x4096_tma_bn256_s4_mma_rel2", "TMA, 128x256, 4 stages, split barriers, stages refilled when free"),
    ("gemm_4096x4096x4096_tma_bn256_s3_mma_rel2", "TMA, 128x256, 3 stages, split barriers, stages refilled when free"),
    ("gemm_4096x4096x4096_ws_bn128_s4_p_nr_mma", "warp-specialized, 128x128, 4 stages"),
    ("gemm_4096x4096x4096_ws_bn128_s4_p_nr_ts_mma", "warp-specialized, 128x128, 4 stages, TMA store"),
    ("gemm_4096x4096x4096_ws_bn256_s4_p_ts_mma_sm90a", "warp-specialized, 128x256, 4 stages, TMA store, setmaxnreg (sm_90a)"),
    ("gemm_4096x4096x4096_ws_bn256_s4_p_ts_c2_mma_sm90a", "the same in clusters of two sharing B by multicast"),
    ("gemm_4096x4096x4096_ws_bn256_s4_p_tsa_mma_sm90a", "the same with async TMA stores"),
    ("gemm_4096x4096x4096_ws_bn256_s4_of16_p_ts_mma_sm90a", "the same, f16 out (what cuBLAS stores)"),
    ("gemm_4096x4096x4096_ws_bn256_s4_of16_p_tsa_mma_sm90a", "the same, f16 out, async TMA stores"),
    ("gemm_4096x4096x4096_ws_bn256_s4_of16_p_ts_c2_mma_sm90a", "the same, f16 out, clusters of two"),
    ("gemm_4096x4096x4096_ws_bn256_s4_p_ts_mma_sm90a_f", "warp-specialized, setmaxnreg, k16 fragments loaded a step ahead"),
    ("gemm_4096x4096x4096_ws_bn256_s4_p_ts_c2_mma_sm90a_f", "the same in clusters of two sharing B by multicast"),
]
M = N = K = 4096


def triton_mma_sync(a, b, want, scale):
    """The tuned Triton matmul on mma.sync, autotuned and checked: (launch, message, ok)."""
    from axe_bench import triton_matmul
    run = triton_matmul.matmul(mma_sync=True)
    if run is None:
        return None, "skip Triton: not installed", True
    out = torch.empty(M, N, device="cuda", dtype=torch.float16)
    run(a, b, out)  # autotunes
    torch.cuda.synchronize()
    err = (out.float() - want).abs().max().item()
    ptx = [open(p).read() for p in glob.glob(f"{os.environ['TRITON_CACHE_DIR']}/**/*.ptx", recursive=True)]
    mma = sum("mma.sync" in t for t in ptx)
    wgmma = sum("wgmma" in t for t in ptx)
    # f16 output: its rounding (2^-11 relative) on top of the f32 accumulation's.
    ok = len(ptx) > 0 and mma == len(ptx) and wgmma == 0 and err <= 2e-3 * scale
    msg = (f"{'ok  ' if ok else 'FAIL'} Triton mma.sync ({run.kernel.best_config}): max abs error {err:.3g}; "
           f"{len(ptx)} PTX files, {mma} with mma.sync, {wgmma} with wgmma")
    return (lambda: run(a, b, out)), msg, ok


def k_scaling(d, reps):
    """Time against K of the split-barrier 128x256 kernel; least-squares fixed + per-step."""
    torch.backends.cuda.matmul.allow_tf32 = False
    ks, times, failed = [], [], 0
    for k in (2048, 4096, 8192, 16384):
        name = f"gemm_4096x4096x{k}_tma_bn256_s4_mma_rel"
        g = torch.Generator(device="cuda").manual_seed(0)
        a = torch.randn(M, k, device="cuda", generator=g).half()
        b = torch.randn(k, N, device="cuda", generator=g).half()
        c = torch.full((M, N), float("nan"), device="cuda")
        launch = axe_runtime.load(f"{d}/{name}_kernel.json", entry=f"{name}_kernel").launcher(a.view(-1), b.view(-1), c.view(-1))
        launch()
        want = a.float() @ b.float()
        err = (c - want).abs().max().item()
        ok = not torch.isnan(c).any().item() and err <= 1e-3 * want.abs().max().item()
        failed += not ok
        rounds = [(time_ms(launch), time_ms(lambda: torch.matmul(a, b))) for _ in range(reps)]
        mine = statistics.median(r[0] for r in rounds)
        med, lo, hi = ratio_stats([r[1] for r in rounds], [r[0] for r in rounds])
        print(f"{'ok  ' if ok else 'FAIL'} {name}: max abs error {err:.3g}; {mine * 1e3:.1f} us "
              f"({2 * M * N * k / mine / 1e9:.0f} TFLOP/s), cuBLAS f16 out / axe {med:.3f} [{lo:.3f}, {hi:.3f}]", flush=True)
        ks.append(k / 64)
        times.append(mine)
    mk, mt = statistics.mean(ks), statistics.mean(times)
    step = sum((x - mk) * (y - mt) for x, y in zip(ks, times)) / sum((x - mk) ** 2 for x in ks)
    fixed = mt - step * mk
    print(f"time = {fixed * 1e3:.1f} us + K/64 x {step * 1e3:.3f} us: the mainloop's rate over all tiles "
          f"{2 * M * N * 64 / step / 1e9:.0f} TFLOP/s")
    return failed


def main():
    d = sys.argv[1]
    if "--k-scaling" in sys.argv:
        reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 7
        sys.exit(1 if k_scaling(d, reps) else 0)
    args = [x for i, x in enumerate(sys.argv[2:], 2) if not x.startswith("--") and sys.argv[i - 1] not in ("--reps", "--only")]
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else ""
    old = args[0] if args else None
    reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 5
    torch.backends.cuda.matmul.allow_tf32 = False
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(M, K, device="cuda", generator=g).half()
    b = torch.randn(K, N, device="cuda", generator=g).half()
    want = a.float() @ b.float()
    scale = want.abs().max().item()
    c32 = torch.empty(M, N, device="cuda", dtype=torch.float32)
    c16 = torch.empty(M, N, device="cuda", dtype=torch.float16)
    flops = 2 * M * N * K
    cublas16 = lambda: torch.matmul(a, b)
    cublas32 = lambda: torch.mm(a, b, out_dtype=torch.float32)
    failed = 0
    tri = None
    if "--triton" in sys.argv:
        tri, msg, ok = triton_mma_sync(a, b, want, scale)
        failed += not ok
        print(msg, flush=True)
    for name, what in KERNELS:
        if only not in name:
            continue
        path = f"{d}/{name}_kernel.json"
        if not os.path.exists(path):
            print(f"skip {name}: no {path}")
            continue
        # `_of16` kernels store f16 (as cuBLAS does), the others f32; the tolerance covers
        # f16's rounding of entries up to `scale` (half a unit in the last place: 2^-11 scale).
        c = c16 if "_of16" in name else c32
        launch = axe_runtime.load(path, entry=f"{name}_kernel").launcher(a.view(-1), b.view(-1), c.view(-1))
        c.fill_(float("nan"))
        launch()
        torch.cuda.synchronize()
        err = (c.float() - want).abs().max().item()
        ok = not torch.isnan(c).any().item() and err <= 1e-3 * scale
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name} ({what}): max abs error {err:.3g} (entries up to {scale:.3g})", flush=True)
        fns = {"axe": launch, "cuBLAS f16 out": cublas16, "cuBLAS f32 out": cublas32}
        if tri:
            fns["Triton mma.sync"] = tri
        if old and os.path.exists(f"{old}/{name}_kernel.json"):
            c2 = torch.empty_like(c)
            fns["axe old"] = axe_runtime.load(f"{old}/{name}_kernel.json", entry=f"{name}_kernel").launcher(
                a.view(-1), b.view(-1), c2.view(-1))
        rounds = []
        for _ in range(reps):
            rounds.append({k: time_ms(f) for k, f in fns.items()})
        mine = statistics.median(r["axe"] for r in rounds)
        line = f"     axe {mine * 1e3:.1f} us ({flops / mine / 1e9:.0f} TFLOP/s)"
        for k in fns:
            if k == "axe":
                continue
            med, lo, hi = ratio_stats([r[k] for r in rounds], [r["axe"] for r in rounds])
            line += (f"; {k} {statistics.median(r[k] for r in rounds) * 1e3:.1f} us: axe at "
                     f"{med:.3f} [{lo:.3f}, {hi:.3f}] of its speed")
        print(line, flush=True)
    print(f"{failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
