#!/usr/bin/env python3
"""The in-SM ceiling of an mma.sync GEMM mainloop on this GPU: what Axe's sm_80-class GEMMs
could reach if nothing but their inner loop ran. Per warp a WM x WN tile; each k16 step loads
the A fragments (ldmatrix.x4) and the B fragments (ldmatrix.x2.trans, or .x4.trans for two n8
atoms at once) from a 128-byte-swizzled shared tile, then issues (WM/16)(WN/8) mma.sync
m16n8k16 (f16 in, f32 accumulation). No global memory traffic, no barriers, no epilogue: the
gap between this and a real kernel is what its pipeline (TMA refills, stage barriers, the
epilogue, the waves of CTAs) costs. Timed beside cuBLAS's f16 GEMM at 4096^3, two rounds.
NVRTC (CuPy) compiles it for sm_90.

With --refill, the loop also carries a real GEMM's refill traffic into shared memory, which
competes with ldmatrix for the SM's shared-memory bandwidth (128 bytes a clock): per 64-wide K
step (4 k16 steps), one thread issues a bulk copy (`cp.async.bulk`, the TMA engine) of the
CTA's next A and B stage, (128 + BN) x 64 halves from an L2-resident buffer into a scratch
region, completing on an mbarrier it waits for one step later (as a TMA pipeline's issuing
thread does). With --refill --sync a CTA barrier per K step is added too (the stage release of
a kernel without warp specialization). Still no epilogue and no waves.

With --pipeline, a whole GEMM mainloop without global operands or epilogue: 4 stages of 48 KB
(the 128x256 CTA's A and B K-step tiles), each refilled by a bulk copy completing on its "full"
mbarrier, the warps reading stage i % 4 after waiting for it, and releasing it by one arrival
per warp on its "empty" mbarrier. Two ways to issue the refills, as Axe's kernels do:
  split: thread 0 (a computing warp's) waits for the stage released one step earlier, then
         refills it 3 steps ahead (axe_gen.gemm_tma's RELEASE 1);
  ws:    a ninth warp does nothing else (warp specialization, axe_gen.gemm_ws's producer); or
         a producer warpgroup with setmaxnreg (40 / 232 registers, sm_90a), as Axe's
         warp-specialized mma.sync kernels (axe_gen.gemm_ws ... sm_90a-mma) have it.
The split loop also runs with Axe's barrier protocol (A and B complete on two barriers, B in
four boxes, every thread arrives on the release) and with refills read from 32 MB instead of
one 48 KB stage, to find which of Axe's differences costs its kernel (bench/RESULTS.md).

    python3 mma_sync_mainloop.py [--refill [--sync] | --pipeline]
"""
import sys

import cupy as cp
import torch
from axe_bench.timing import time_ms

# Shared by both kernels: wait for the phase of parity `parity` of the mbarrier at `bar`.
WAIT_SRC = r"""
__device__ __forceinline__ void wait_phase(unsigned bar, unsigned parity) {
  unsigned done = 0;
  while (!done)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
}
"""
SRC = WAIT_SRC + r"""
extern "C" __global__ void __launch_bounds__(WARPS*32, 1) tile(float* out, int iters, const char* stage) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ __align__(8) unsigned long long bar;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned sa = (unsigned)__cvta_generic_to_shared(smem);
  const unsigned sb = sa + 128 * 128;   // A: 128 rows x 64 halves (128 B rows), 16 KB
  // The refill's destination: after A and the four 64-column B blocks (48 KB).
  const unsigned scratch = sa + 48 * 1024, bar_addr = (unsigned)__cvta_generic_to_shared(&bar);
  const unsigned refill_bytes = (128 + (WARPS / (128 / WM)) * WN) * 128;
  for (int i = threadIdx.x; i < 48 * 1024 / 4; i += blockDim.x) ((unsigned*)smem)[i] = 0x3c003c00u ^ i;
  if (REFILL && threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar_addr));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncthreads();
  const int wm = (warp % (128 / WM)) * WM, wn = (warp / (128 / WM)) * WN;
  float c[WM / 16][WN / 8][4];
  #pragma unroll
  for (int i = 0; i < WM / 16; ++i)
    #pragma unroll
    for (int j = 0; j < WN / 8; ++j) c[i][j][0] = c[i][j][1] = c[i][j][2] = c[i][j][3] = 0.f;
  for (int it = 0; it < iters; ++it) {
    if (REFILL && threadIdx.x == 0) {
      if (it > 0) wait_phase(bar_addr, (it - 1) & 1);
      unsigned long long state;
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;" : "=l"(state) : "r"(bar_addr), "r"(refill_bytes));
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                   :: "r"(scratch), "l"(stage), "r"(refill_bytes), "r"(bar_addr) : "memory");
    }
    if (SYNC) __syncthreads();
    #pragma unroll
    for (int ks = 0; ks < 4; ++ks) {
      unsigned a[WM / 16][4], b[WN / 8][2];
      #pragma unroll
      for (int i = 0; i < WM / 16; ++i) {
        int row = wm + i * 16 + (lane % 16), chunk = ks * 2 + lane / 16;
        unsigned addr = sa + row * 128 + ((chunk ^ (row % 8)) * 16);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(a[i][0]), "=r"(a[i][1]), "=r"(a[i][2]), "=r"(a[i][3]) : "r"(addr));
      }
      #pragma unroll
      for (int j = 0; j < WN / 8; j += BX) {
        int krow = ks * 16 + (lane % 16), n = wn + j * 8 + (BX == 2 ? (lane / 16) * 8 : 0);
        int blk = n / 64, chunk = (n % 64) / 8;
        unsigned addr = sb + blk * 8192 + krow * 128 + ((chunk ^ (krow % 8)) * 16);
        if (BX == 2)
          asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(b[j][0]), "=r"(b[j][1]), "=r"(b[j + BX - 1][0]), "=r"(b[j + BX - 1][1]) : "r"(addr));
        else
          asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(b[j][0]), "=r"(b[j][1]) : "r"(addr));
      }
      #pragma unroll
      for (int i = 0; i < WM / 16; ++i)
        #pragma unroll
        for (int j = 0; j < WN / 8; ++j)
          asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
              : "+f"(c[i][j][0]), "+f"(c[i][j][1]), "+f"(c[i][j][2]), "+f"(c[i][j][3])
              : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]), "r"(b[j][0]), "r"(b[j][1]));
    }
  }
  if (REFILL && threadIdx.x == 0) wait_phase(bar_addr, (iters - 1) & 1);  // no copy in flight at exit
  float s = 0.f;
  #pragma unroll
  for (int i = 0; i < WM / 16; ++i)
    #pragma unroll
    for (int j = 0; j < WN / 8; ++j) s += c[i][j][0] + c[i][j][1] + c[i][j][2] + c[i][j][3];
  if (s == 1234.5f) out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
"""
PIPE_SRC = WAIT_SRC + r"""
__device__ __forceinline__ void refill(unsigned full, unsigned dst, const char* src, unsigned bytes) {
  unsigned long long state;
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;" : "=l"(state) : "r"(full), "r"(bytes));
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               :: "r"(dst), "l"(src), "r"(bytes), "r"(full) : "memory");
}
// Stage g % S (g: the K step) is refilled for step g once step g - S has released it. With
// AXE_BARRIERS, as Axe's kernels do it: A (16 KB) and B (four 8 KB boxes) complete on two
// barriers. With SPREAD, each step reads its stage from a different place of a 32 MB buffer
// (L2-sized, like a GEMM's operands) instead of the same 48 KB.
__device__ __forceinline__ void produce(int g, unsigned full0, unsigned empty0, unsigned stages, const char* src) {
  const unsigned s = g % S;
  if (g >= S) wait_phase(empty0 + 8 * s, ((g / S) - 1) & 1);
  if (SPREAD) src += (size_t)((blockIdx.x * 5 + g) % 682) * 49152;
  if (AXE_BARRIERS) {
    const unsigned fa = full0 + 16 * s, fb = fa + 8, dst = stages + s * 49152;
    unsigned long long state;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;" : "=l"(state) : "r"(fa), "r"(16384));
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(dst), "l"(src), "r"(16384), "r"(fa) : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;" : "=l"(state) : "r"(fb), "r"(32768));
    for (int box = 0; box < 4; ++box)
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                   :: "r"(dst + 16384 + box * 8192), "l"(src + 16384 + box * 8192), "r"(8192), "r"(fb) : "memory");
  } else {
    refill(full0 + 16 * s, stages + s * 49152, src, 49152);
  }
}
extern "C" __global__ void __launch_bounds__((WARPS + WS) * 32, 1) tile(float* out, int iters, const char* src) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ __align__(8) unsigned long long bars[3 * S];  // full (A, B) of each stage, then empty
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned stages = (unsigned)__cvta_generic_to_shared(smem);
  const unsigned full0 = (unsigned)__cvta_generic_to_shared(&bars[0]), empty0 = full0 + 16 * S;
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(full0 + 16 * s));
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(full0 + 16 * s + 8));
      // AXE_BARRIERS: every thread arrives (as Axe's `axe.arrive`), else lane 0 of each warp.
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(empty0 + 8 * s), "r"(AXE_BARRIERS ? WARPS * 32 : WARPS));
    }
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncthreads();
  if (WS && warp >= WARPS) {  // the producer warp (warps past it idle)
    // With a whole producer warpgroup (WS 4, sm_90a), setmaxnreg moves registers to the
    // consumers as axe_gen.gemm_ws's kernels do: 40 here, 232 for each computing thread.
    if (WS == 4) asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    if (warp == WARPS && lane == 0)
      for (int g = 0; g < iters; ++g) produce(g, full0, empty0, stages, src);
    return;
  }
  if (WS == 4) asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
  if (!WS && threadIdx.x == 0)
    for (int g = 0; g < S - 1; ++g) produce(g, full0, empty0, stages, src);
  const int wm = (warp % 2) * 64, wn = (warp / 2) * 64;
  float c[4][8][4];
  #pragma unroll
  for (int i = 0; i < 4; ++i)
    #pragma unroll
    for (int j = 0; j < 8; ++j) c[i][j][0] = c[i][j][1] = c[i][j][2] = c[i][j][3] = 0.f;
  for (int it = 0; it < iters; ++it) {
    if (!WS && threadIdx.x == 0 && it + S - 1 < iters) produce(it + S - 1, full0, empty0, stages, src);
    const unsigned s = it % S, sa = stages + s * 49152, sb = sa + 128 * 128;
    wait_phase(full0 + 16 * s, (it / S) & 1);
    if (AXE_BARRIERS) wait_phase(full0 + 16 * s + 8, (it / S) & 1);
    #pragma unroll
    for (int ks = 0; ks < 4; ++ks) {
      unsigned a[4][4], b[8][2];
      #pragma unroll
      for (int i = 0; i < 4; ++i) {
        int row = wm + i * 16 + (lane % 16), chunk = ks * 2 + lane / 16;
        unsigned addr = sa + row * 128 + ((chunk ^ (row % 8)) * 16);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(a[i][0]), "=r"(a[i][1]), "=r"(a[i][2]), "=r"(a[i][3]) : "r"(addr));
      }
      #pragma unroll
      for (int j = 0; j < 8; j += 2) {
        int krow = ks * 16 + (lane % 16), n = wn + j * 8 + (lane / 16) * 8;
        int blk = n / 64, chunk = (n % 64) / 8;
        unsigned addr = sb + blk * 8192 + krow * 128 + ((chunk ^ (krow % 8)) * 16);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(b[j][0]), "=r"(b[j][1]), "=r"(b[j + 1][0]), "=r"(b[j + 1][1]) : "r"(addr));
      }
      #pragma unroll
      for (int i = 0; i < 4; ++i)
        #pragma unroll
        for (int j = 0; j < 8; ++j)
          asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
              : "+f"(c[i][j][0]), "+f"(c[i][j][1]), "+f"(c[i][j][2]), "+f"(c[i][j][3])
              : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]), "r"(b[j][0]), "r"(b[j][1]));
    }
    if (!AXE_BARRIERS) __syncwarp();
    if (AXE_BARRIERS || lane == 0) {
      unsigned long long state;
      asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(empty0 + 8 * s) : "memory");
    }
  }
  float t = 0.f;
  #pragma unroll
  for (int i = 0; i < 4; ++i)
    #pragma unroll
    for (int j = 0; j < 8; ++j) t += c[i][j][0] + c[i][j][1] + c[i][j][2] + c[i][j][3];
  if (t == 1234.5f) out[blockIdx.x * blockDim.x + threadIdx.x] = t;
}
"""


def pipeline():
    """--pipeline: the split and warp-specialized mainloops, 128x256 CTA tiles of 8 warps, and
    the split one with Axe's barrier protocol and/or refills spread over 32 MB (one variable
    at a time, then both), each line one round in one process."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    out = cp.zeros(1 << 22, dtype=cp.float32)
    # The stages' contents: all ones, or random normal halves like a GEMM's (the tensor cores'
    # power, and so the clock under the power limit, depends on the data). The spread refills
    # read 682 stages' worth (32 MB) of random halves.
    ones = cp.full(49152 // 2, 0x3c00, dtype=cp.uint16)
    rand = cp.asarray(torch.randn(682 * 49152 // 2, device="cuda", dtype=torch.float16).view(torch.int16)).view(cp.uint16)
    # (name, WS, AXE_BARRIERS, SPREAD, source)
    # WS: the producer's warps beside the 8 computing ones: none (split), one (sm_90, no
    # setmaxnreg: 168 registers a thread), or a warpgroup (sm_90a, setmaxnreg 40 / 232, the
    # 384 threads of axe_gen.gemm_ws's sm_90a-mma kernels).
    modes = [("split ones", 0, 0, 0, ones), ("split random", 0, 0, 0, rand), ("split, Axe's barriers", 0, 1, 0, rand),
             ("split, spread refills", 0, 0, 1, rand), ("split, both", 0, 1, 1, rand), ("ws random", 1, 0, 0, rand),
             ("ws warpgroup + setmaxnreg", 4, 0, 0, rand), ("ws warpgroup + setmaxnreg, both", 4, 1, 1, rand)]
    stages, iters = 4, 2048
    kernels = {}
    for name, ws, axe, spread, _ in modes:
        k = cp.RawKernel(f"#define S {stages}\n#define WARPS 8\n#define WS {ws}\n#define AXE_BARRIERS {axe}\n"
                         f"#define SPREAD {spread}\n" + PIPE_SRC, "tile", options=("-arch=sm_90a" if ws == 4 else "-arch=sm_90",))
        k.max_dynamic_shared_size_bytes = stages * 49152
        kernels[name] = k
    for _round in range(3):
        cub = 2 * 4096**3 / time_ms(lambda: torch.matmul(a, b), reps=20) / 1e9
        line = f"cuBLAS 4096^3 {cub:.0f} TFLOP/s"
        for name, ws, _, _, src in modes:
            k = kernels[name]
            fn = lambda: k((sms,), ((8 + ws) * 32,), (out, cp.int32(iters), src), shared_mem=stages * 49152)  # noqa: E731
            ms = time_ms(fn, warmup=3, reps=10)
            t = 2 * 128 * 256 * 64 * iters * sms / ms / 1e9
            line += f"; {name}: {t:.0f} TFLOP/s = {t / cub:.3f} of cuBLAS (regs {k.num_regs})"
        print(line, flush=True)


if "--pipeline" in sys.argv:
    pipeline()
    sys.exit(0)
REFILL = "--refill" in sys.argv
SYNC = REFILL and "--sync" in sys.argv
sms = torch.cuda.get_device_properties(0).multi_processor_count
a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
b = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
out = cp.zeros(1 << 22, dtype=cp.float32)
stage = cp.zeros(64 * 1024, dtype=cp.uint8)  # the refills' source: 48 KB at most, L2-resident
for _round in range(2):
    cub = 2 * 4096**3 / time_ms(lambda: torch.matmul(a, b), reps=20) / 1e9
    print(f"cuBLAS 4096^3 {cub:.0f} TFLOP/s")
    for warps, wm, wn in ((8, 64, 64), (8, 64, 32), (4, 64, 64), (16, 32, 64)):
        for bx in (1, 2):
            for ctas_per_sm in (1, 2):
                if warps * 32 * ctas_per_sm > 2048 or (warps == 8 and wm * wn == 4096 and ctas_per_sm == 2):
                    continue
                if REFILL and bx == 1:
                    continue
                src = (SRC.replace("WARPS", str(warps)).replace("WM", str(wm)).replace("WN", str(wn)).replace("BX", str(bx))
                       .replace("REFILL", str(int(REFILL))).replace("SYNC", str(int(SYNC))))
                k = cp.RawKernel(src, "tile", options=("-arch=sm_90",))
                smem = 48 * 1024 + (128 + warps // (128 // wm) * wn) * 128 * REFILL
                k.max_dynamic_shared_size_bytes = smem
                iters = 2048
                fn = lambda: k((sms * ctas_per_sm,), (warps * 32,), (out, cp.int32(iters), stage), shared_mem=smem)
                ms = time_ms(fn, warmup=3, reps=10)
                fl = 2 * wm * wn * 64 * iters * warps * sms * ctas_per_sm
                t = fl / ms / 1e9
                what = ", refills" + (" + CTA barrier" if SYNC else "") if REFILL else ""
                print(f"  {warps} warps x {ctas_per_sm} CTA/SM, warp tile {wm}x{wn}, B ldmatrix x{2*bx}{what}: {t:.0f} TFLOP/s = {t/cub:.3f} of cuBLAS; regs {k.num_regs}", flush=True)
