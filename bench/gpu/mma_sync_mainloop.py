#!/usr/bin/env python3
"""The in-SM ceiling of an mma.sync GEMM mainloop on this GPU: what Axe's sm_80-class GEMMs
could reach if nothing but their inner loop ran. Per warp a WM x WN tile; each k16 step loads
the A fragments (ldmatrix.x4) and the B fragments (ldmatrix.x2.trans, or .x4.trans for two n8
atoms at once) from a 128-byte-swizzled shared tile, then issues (WM/16)(WN/8) mma.sync
m16n8k16 (f16 in, f32 accumulation). No global memory traffic, no barriers, no epilogue: the
gap between this and a real kernel is what its pipeline (TMA refills, stage barriers, the
epilogue, the waves of CTAs) costs. Timed beside cuBLAS's f16 GEMM at 4096^3, two rounds.
NVRTC (CuPy) compiles it for sm_90.

    python3 mma_sync_mainloop.py
"""
import cupy as cp
import torch

from timing import time_ms
SRC = r"""
extern "C" __global__ void __launch_bounds__(WARPS*32, 1) tile(float* out, int iters) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned sa = (unsigned)__cvta_generic_to_shared(smem);
  const unsigned sb = sa + 128 * 128;   // A: 128 rows x 64 halves (128 B rows), 16 KB
  for (int i = threadIdx.x; i < 48 * 1024 / 4; i += blockDim.x) ((unsigned*)smem)[i] = 0x3c003c00u ^ i;
  __syncthreads();
  const int wm = (warp % (128 / WM)) * WM, wn = (warp / (128 / WM)) * WN;
  float c[WM / 16][WN / 8][4];
  #pragma unroll
  for (int i = 0; i < WM / 16; ++i)
    #pragma unroll
    for (int j = 0; j < WN / 8; ++j) c[i][j][0] = c[i][j][1] = c[i][j][2] = c[i][j][3] = 0.f;
  for (int it = 0; it < iters; ++it) {
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
  float s = 0.f;
  #pragma unroll
  for (int i = 0; i < WM / 16; ++i)
    #pragma unroll
    for (int j = 0; j < WN / 8; ++j) s += c[i][j][0] + c[i][j][1] + c[i][j][2] + c[i][j][3];
  if (s == 1234.5f) out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
"""
sms = torch.cuda.get_device_properties(0).multi_processor_count
a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16); b = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
out = cp.zeros(1 << 22, dtype=cp.float32)
for r in range(2):
    cub = 2 * 4096**3 / time_ms(lambda: torch.matmul(a, b), reps=20) / 1e9
    print(f"cuBLAS 4096^3 {cub:.0f} TFLOP/s")
    for warps, wm, wn in ((8, 64, 64), (8, 64, 32), (4, 64, 64), (16, 32, 64)):
        for bx in (1, 2):
            for ctas_per_sm in (1, 2):
                if warps * 32 * ctas_per_sm > 2048 or (warps == 8 and wm * wn == 4096 and ctas_per_sm == 2): continue
                src = SRC.replace("WARPS", str(warps)).replace("WM", str(wm)).replace("WN", str(wn)).replace("BX", str(bx))
                k = cp.RawKernel(src, "tile", options=("-arch=sm_90",))
                k.max_dynamic_shared_size_bytes = 48 * 1024
                iters = 2048
                fn = lambda: k((sms * ctas_per_sm,), (warps * 32,), (out, cp.int32(iters)), shared_mem=48 * 1024)
                ms = time_ms(fn, warmup=3, reps=10)
                fl = 2 * wm * wn * 64 * iters * warps * sms * ctas_per_sm
                t = fl / ms / 1e9
                print(f"  {warps} warps x {ctas_per_sm} CTA/SM, warp tile {wm}x{wn}, B ldmatrix x{2*bx}: {t:.0f} TFLOP/s = {t/cub:.3f} of cuBLAS; regs {k.num_regs}", flush=True)
