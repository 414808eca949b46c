#!/usr/bin/env python3
"""The ceiling of any mma.sync GEMM on this GPU: the throughput of `mma.sync.aligned.m16n8k16`
(f16 inputs, f32 accumulation, the instruction Axe's sm_80-class path uses) with no memory
traffic at all, beside cuBLAS's f16 GEMM at 4096^3 and Axe's own mma.sync GEMM of that shape,
timed in the same process. On Hopper, cuBLAS uses wgmma; the ratio ceiling / cuBLAS bounds what
an mma.sync kernel can reach against it in short bursts, where the power limit does not yet
hold the clocks and this kernel moves no memory. Under sustained load, cycles and clocks are
the fair comparison: mma_sync_bound.py (a tighter bound, 0.82-0.84 on an H100).

    python3 mma_sync_ceiling.py DIR     (DIR: test/gpu/build.sh's output, for Axe's kernel)

The kernel keeps CHAINS independent accumulators per warp (so the tensor pipe is never waiting
on a dependency) and runs ITERS rounds of them; inputs come from the thread index so nothing
folds, and the sum is stored only if it is impossible, so nothing is dead. NVRTC (CuPy)
compiles it for the device's architecture.
"""
import statistics
import sys

import cupy as cp
import torch
from axe_bench.timing import time_ms

SOURCE = r"""
extern "C" __global__ void mma_peak(float* out, int iters) {
  unsigned a[4], b[2];
  for (int i = 0; i < 4; ++i) a[i] = 0x3c003c00u ^ (threadIdx.x * (i + 1));
  for (int i = 0; i < 2; ++i) b[i] = 0x3c003c00u ^ (threadIdx.x * (i + 7));
  float c[CHAINS][4];
  for (int j = 0; j < CHAINS; ++j)
    for (int k = 0; k < 4; ++k) c[j][k] = 0.f;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int j = 0; j < CHAINS; ++j)
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
          : "+f"(c[j][0]), "+f"(c[j][1]), "+f"(c[j][2]), "+f"(c[j][3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
  float s = 0.f;
  for (int j = 0; j < CHAINS; ++j)
    for (int k = 0; k < 4; ++k) s += c[j][k];
  if (s == 1234.5f) out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
"""


def ceiling(sms):
    """The best TFLOP/s over a few shapes of the launch: (TFLOP/s, chains, warps per CTA)."""
    out = cp.zeros(1 << 20, dtype=cp.float32)
    best = (0.0, 0, 0)
    iters = 4096
    for chains in (4, 8):
        kernel = cp.RawKernel(SOURCE.replace("CHAINS", str(chains)), "mma_peak")
        for warps in (4, 8, 16):
            ctas = sms * 4
            fn = lambda: kernel((ctas,), (32 * warps,), (out, cp.int32(iters)))
            ms = time_ms(fn, warmup=3, reps=10)
            flops = 2 * 16 * 8 * 16 * chains * iters * warps * ctas
            best = max(best, (flops / ms / 1e9, chains, warps))
    return best


def main():
    d = sys.argv[1]
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    flops = 2 * 4096 ** 3
    axe = None
    try:
        import axe_runtime
        name = "gemm_4096x4096x4096_tma_bn256_s3_mma_kernel"
        k = axe_runtime.load(f"{d}/{name}.json", entry=name)
        c = torch.empty(4096 * 4096, device="cuda", dtype=torch.float32)
        axe = k.launcher(a.view(-1), b.view(-1), c)
    except Exception as e:  # no build output: the ceiling alone still says something
        print(f"(Axe's mma.sync kernel not timed: {type(e).__name__}: {e})")
    rows = []
    for _ in range(3):
        peak = ceiling(sms)
        cublas = flops / time_ms(lambda: torch.matmul(a, b), reps=10) / 1e9
        mine = flops / time_ms(axe, reps=10) / 1e9 if axe else None
        rows.append((peak, cublas, mine))
        print(f"mma.sync ceiling {peak[0]:.0f} TFLOP/s ({peak[1]} chains, {peak[2]} warps/CTA); "
              f"cuBLAS 4096^3 {cublas:.0f} TFLOP/s; ceiling / cuBLAS {peak[0] / cublas:.3f}"
              + (f"; Axe mma.sync {mine:.0f} TFLOP/s = {mine / cublas:.3f} of cuBLAS, {mine / peak[0]:.3f} of the ceiling"
                 if mine else ""), flush=True)
    med = lambda i: statistics.median(r[i] if i else r[0][0] for r in rows)
    print(f"median of 3: ceiling {med(0):.0f}, cuBLAS {med(1):.0f} TFLOP/s, ceiling / cuBLAS {med(0) / med(1):.3f}")


if __name__ == "__main__":
    main()
