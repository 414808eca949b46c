#!/usr/bin/env python3
"""What bounds an mma.sync GEMM against cuBLAS on Hopper, measured: how many tensor-pipe cycles
one `mma.sync.aligned.m16n8k16` (f16 in, f32 accumulation) occupies, so the fewest cycles any
4096^3 GEMM built from it can take; cuBLAS's own cycles (wgmma); and the SM clocks each runs at
under the card's power limit. Together they bound the time ratio cuBLAS / mma.sync GEMM that
no kernel of that instruction can pass, and say what tensor-pipe activity a given ratio needs.

    python3 mma_sync_bound.py DIR [--seconds S]   (ncu on PATH: the bound; else the clocks only)
    python3 mma_sync_bound.py DIR --once          (one launch of each kernel: what ncu profiles)

DIR: test/gpu/build.sh's output. Kernels: cuBLAS's f16 GEMM (`torch.matmul`), Axe's
warp-specialized wgmma GEMM and its mma.sync twin (`axe_gen.gemm_ws ... sm_90a-mma`, f16 and f32
out), and the instruction-throughput kernel of mma_sync_ceiling.py (8 independent accumulators
per warp, no memory traffic: it keeps the tensor pipe ~100 % busy).

1. Sustained windows (power_pair.sustained: back to back, palindromic order, nvidia-smi's SM
   clock and power sampled): per kernel the time per GEMM, the clock and so the cycles per GEMM.
2. Nsight Compute, one launch each at its locked clocks: `sm__inst_executed_pipe_tensor_op_hmma`
   and `sm__pipe_tensor_op_hmma_cycles_active` (summed over the SM sub-partitions, 4 per SM)
   give the pipe cycles per HMMA of the throughput kernel; times the 4096^3 GEMM's HMMA count
   (M N K / (16 8 16)) over the sub-partitions, the fewest cycles any mma.sync GEMM of that
   shape takes. cuBLAS's elapsed cycles over that is the per-cycle bound; times the clock ratio
   of the sustained windows (an mma.sync kernel draws less power per cycle, so runs faster
   clocks), the time bound.
"""
import os
import re
import shutil
import subprocess
import sys

import axe_runtime
import torch
from axe_gen import gemm_ws
from power_pair import sustained

M = N = K = 4096
# gemm_ws.VARIANTS' kernels at 4096^3: 128x256 tiles, 4 stages, persistent, setmaxnreg,
# TMA-store epilogue; wgmma (f16 out), and mma.sync consumers (CHIP sm_90a-mma) per output type.
WGMMA = gemm_ws.name(M, N, K, 256, 4, "f16", 1, 8, 132, 1, 1)
MMA = {t: gemm_ws.name(M, N, K, 256, 4, t, 1, 8, 132, 1, 1, "f16", 1, "sm_90a-mma") for t in ("f16", "f32")}
METRICS = ["gpc__cycles_elapsed.avg.per_second", "sm__cycles_elapsed.max", "sm__inst_executed_pipe_tensor_op_hmma.sum",
           "sm__pipe_tensor_op_hmma_cycles_active.sum", "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed"]
SUBPARTITIONS_PER_SM = 4  # Hopper's SM: four schedulers, each with its own tensor pipe


def kernels(d):
    """{label: launch} of the GEMMs, each on its own output of its type."""
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(M, K, device="cuda", generator=g).half()
    b = torch.randn(K, N, device="cuda", generator=g).half()
    c = {t: torch.empty(M, N, device="cuda", dtype=torch.half if t == "f16" else torch.float32) for t in ("f16", "f32")}

    def axe(name, out):
        k = axe_runtime.load(f"{d}/{name}_kernel.json", entry=f"{name}_kernel")
        return k.launcher(a.view(-1), b.view(-1), c[out].view(-1))

    fns = {"cuBLAS f16": lambda: torch.matmul(a, b), "Axe wgmma f16": axe(WGMMA, "f16")}
    fns.update({f"Axe mma.sync {t}": axe(n, t) for t, n in MMA.items()})
    return fns


def throughput_kernel():
    """mma_sync_ceiling.py's kernel: 8 chains, 8 warps a CTA, 4 CTAs an SM."""
    import cupy as cp
    import mma_sync_ceiling
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    out = cp.zeros(1 << 20, dtype=cp.float32)
    k = cp.RawKernel(mma_sync_ceiling.SOURCE.replace("CHAINS", "8"), "mma_peak")
    return lambda: k((sms * 4,), (256,), (out, cp.int32(4096)))


def parse_ncu(text):
    """ncu's metric printout: {kernel name: {metric: value}}, in launch order."""
    out, name = {}, None
    for line in text.splitlines():
        m = re.match(r"^  (\S+) \(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)", line)
        if m:
            name = m.group(1)
            out[name] = {}
            continue
        m = re.match(r"^\s+(\S+)\s+\S+\s+([\d,.]+)$", line)
        if m and name and m.group(1) in METRICS:
            out[name][m.group(1)] = float(m.group(2).replace(",", ""))
    return out


def bound(prof, clocks, sms):
    """The per-cycle and time bounds from ncu's readings and the sustained windows' clocks."""
    peak = next(v for k, v in prof.items() if k == "mma_peak")
    per_hmma = peak["sm__pipe_tensor_op_hmma_cycles_active.sum"] / peak["sm__inst_executed_pipe_tensor_op_hmma.sum"]
    hmma = M * N * K // (16 * 8 * 16)
    fewest = hmma * per_hmma / (sms * SUBPARTITIONS_PER_SM)
    cublas = next(v for k, v in prof.items() if not k.startswith(("gemm_", "mma_peak")))
    print(f"throughput kernel: tensor pipe busy "
          f"{peak['sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed']:.2f} % of its cycles, "
          f"{per_hmma:.2f} pipe cycles per m16n8k16 HMMA")
    print(f"4096^3 with mma.sync: {hmma} HMMA, at least {fewest:,.0f} cycles per sub-partition")
    for k, v in prof.items():
        if k == "mma_peak":
            continue
        print(f"  {k}: {v['sm__cycles_elapsed.max']:,.0f} cycles, tensor pipe busy "
              f"{v['sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed']:.2f} %, "
              f"{v['sm__pipe_tensor_op_hmma_cycles_active.sum']:,.0f} pipe cycles in all")
    per_cycle = cublas["sm__cycles_elapsed.max"] / fewest
    ratio = clocks["Axe mma.sync f16"] / clocks["cuBLAS f16"]
    print(f"bound, per cycle: cuBLAS's cycles / the fewest = {per_cycle:.3f}; sustained clocks mma.sync / cuBLAS "
          f"{ratio:.3f}; time bound {per_cycle * ratio:.3f} (with the tensor pipe busy every cycle at that clock); "
          f"0.80 of cuBLAS needs the pipe busy {100 * 0.80 / (per_cycle * ratio):.1f} % of the cycles")


def main():
    d = sys.argv[1]
    if "--once" in sys.argv:
        for f in list(kernels(d).values()) + [throughput_kernel()]:
            f()
        torch.cuda.synchronize()
        return
    seconds = float(sys.argv[sys.argv.index("--seconds") + 1]) if "--seconds" in sys.argv else 3
    fns = kernels(d)
    res = sustained(fns, seconds)
    base = res["cuBLAS f16"]
    clocks = {}
    for k, (ms, w, mhz, _) in res.items():
        clocks[k] = mhz
        print(f"{k:18} {ms * 1e3:7.1f} us per GEMM ({2 * M * N * K / ms / 1e9:.0f} TFLOP/s), {mhz:.0f} MHz, {w:.0f} W, "
              f"{ms * mhz:,.0f} kcycles; cuBLAS / this: time {base[0] / ms:.3f}, cycles {base[0] * base[2] / (ms * mhz):.3f}",
              flush=True)
    if not shutil.which("ncu"):
        print("(no ncu on PATH: no bound)")
        return
    cmd = ["ncu", "--metrics", ",".join(METRICS), "-k", "regex:gemm_|mma_peak|nvjet|xmma|cutlass",
           sys.executable, os.path.abspath(__file__), d, "--once"]
    text = subprocess.run(cmd, capture_output=True, text=True).stdout
    prof = parse_ncu(text)
    if "mma_peak" not in prof or len(prof) < 5:
        print("ncu's output lacked a kernel:\n" + text[-3000:])
        sys.exit(1)
    bound(prof, clocks, torch.cuda.get_device_properties(0).multi_processor_count)


if __name__ == "__main__":
    main()
