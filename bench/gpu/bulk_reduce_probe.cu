// Probe: does `cp.reduce.async.bulk ... .add.noftz.f16` (the TMA unit's 1-D bulk reduction,
// shared -> global) work into a peer GPU's memory over NVLink, is the sum exact, and how fast
// is it against the plain bulk copy? The fused GEMM + reduce-scatter could add its partial
// tiles into their owner's output this way instead of the owner reading them back.
//
//   nvcc -arch=sm_90a -O2 -o bulk_reduce_probe bulk_reduce_probe.cu && ./bulk_reduce_probe
//
// Needs two GPUs with peer access. Prints, per mode, bytes moved, time (median of 9) and GB/s,
// and the number of wrong elements (the values are small multiples of 1/4, exact in f16).
#include <cuda_fp16.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); exit(1); } } while (0)

constexpr int TILE = 16384;  // bytes per bulk op (a 64 x 128 f16 block, as the fused kernel's)

// MODE 0: cp.async.bulk (copy); 1: cp.reduce.async.bulk add.noftz.f16. OP: bytes per bulk
// op: a 16 KiB chunk goes as TILE / OP ops (256 bytes: the rows of a 64 x 128 f16 tile of a
// row-major matrix, what the fused kernel's reduce form issues), one bulk group per chunk.
template <int MODE, int OP = TILE>
__global__ void push(__half* dst, long nchunks, int seed) {
  extern __shared__ __align__(128) unsigned char smem[];
  __half* t = reinterpret_cast<__half*>(smem);
  for (int i = threadIdx.x; i < TILE / 2; i += blockDim.x) t[i] = __float2half(0.25f * ((i + seed) % 4));
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    int issued = 0;
    for (long c = blockIdx.x; c < nchunks; c += gridDim.x) {
      for (int o = 0; o < TILE; o += OP) {
        char* g = reinterpret_cast<char*>(dst) + c * TILE + o;
        if (MODE == 0)
          asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(g), "r"(s + o), "r"(OP) : "memory");
        else
          asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16 [%0], [%1], %2;" ::"l"(g), "r"(s + o), "r"(OP) : "memory");
      }
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      if (++issued >= 8) asm volatile("cp.async.bulk.wait_group.read 7;" ::: "memory");
    }
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

__global__ void fill(__half* p, long n, float v) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) p[i] = __float2half(v);
}

int main() {
  int ndev = 0;
  CK(cudaGetDeviceCount(&ndev));
  if (ndev < 2) { printf("needs 2 GPUs, found %d\n", ndev); return 1; }
  const long bytes = 48l << 20, n = bytes / 2, nchunks = bytes / TILE;
  __half* buf[2];
  cudaStream_t st[2];
  for (int d = 0; d < 2; ++d) {
    CK(cudaSetDevice(d));
    CK(cudaDeviceEnablePeerAccess(1 - d, 0));
    CK(cudaMalloc(&buf[d], bytes));
    CK(cudaStreamCreate(&st[d]));
    CK(cudaFuncSetAttribute(push<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, TILE));
    CK(cudaFuncSetAttribute(push<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, TILE));
    CK(cudaFuncSetAttribute(push<0, 256>, cudaFuncAttributeMaxDynamicSharedMemorySize, TILE));
    CK(cudaFuncSetAttribute(push<1, 256>, cudaFuncAttributeMaxDynamicSharedMemorySize, TILE));
  }
  std::vector<__half> host(n);
  // Correctness: dst = 1.0, then one reduce from each source into the other (both directions
  // at once), and one into its own memory: expect 1 + 0.25 * ((i % 8192 + seed) % 4).
  auto check = [&](int d, int seed, float base, const char* what) {
    CK(cudaSetDevice(d));
    CK(cudaMemcpy(host.data(), buf[d], bytes, cudaMemcpyDeviceToHost));
    long bad = 0;
    for (long i = 0; i < n; ++i) {
      float want = base + 0.25f * (((i % (TILE / 2)) + seed) % 4);
      if (__half2float(host[i]) != want) ++bad;
    }
    printf("%s: %ld of %ld elements wrong\n", what, bad, n);
  };
  for (int d = 0; d < 2; ++d) { CK(cudaSetDevice(d)); fill<<<264, 256>>>(buf[d], n, 1.0f); CK(cudaDeviceSynchronize()); }
  for (int d = 0; d < 2; ++d) { CK(cudaSetDevice(d)); push<1><<<132, 128, TILE, st[d]>>>(buf[1 - d], nchunks, d); }
  for (int d = 0; d < 2; ++d) { CK(cudaSetDevice(d)); CK(cudaDeviceSynchronize()); }
  check(1, 0, 1.0f, "reduce GPU0 -> GPU1");
  check(0, 1, 1.0f, "reduce GPU1 -> GPU0");
  CK(cudaSetDevice(0)); fill<<<264, 256>>>(buf[0], n, 1.0f); push<1><<<132, 128, TILE>>>(buf[0], nchunks, 2);
  CK(cudaDeviceSynchronize());
  check(0, 2, 1.0f, "reduce GPU0 -> GPU0 (local)");

  // Timing: median of 9, one direction (GPU 0 into GPU 1) and both at once, copy vs reduce.
  for (int both = 0; both < 2; ++both)
    for (int mode = 0; mode < 2; ++mode) {
      std::vector<float> ts;
      for (int rep = 0; rep < 9; ++rep) {
        cudaEvent_t a, b;
        CK(cudaSetDevice(0)); CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
        for (int d = 0; d < 2; ++d) { CK(cudaSetDevice(d)); CK(cudaDeviceSynchronize()); }
        CK(cudaSetDevice(0)); CK(cudaEventRecord(a, st[0]));
        for (int d = 0; d < 1 + both; ++d) {
          CK(cudaSetDevice(d));
          if (mode == 0) push<0><<<132, 128, TILE, st[d]>>>(buf[1 - d], nchunks, 0);
          else push<1><<<132, 128, TILE, st[d]>>>(buf[1 - d], nchunks, 0);
        }
        CK(cudaSetDevice(0)); CK(cudaEventRecord(b, st[0])); CK(cudaEventSynchronize(b));
        for (int d = 0; d < 2; ++d) { CK(cudaSetDevice(d)); CK(cudaDeviceSynchronize()); }
        float ms; CK(cudaEventElapsedTime(&ms, a, b)); ts.push_back(ms);
      }
      std::sort(ts.begin(), ts.end());
      printf("%s %s: 48 MiB in %.1f us (GPU 0's stream), %.0f GB/s [min %.1f, max %.1f us]\n",
             both ? "both directions" : "GPU0 -> GPU1", mode ? "reduce-add f16" : "copy", ts[4] * 1e3,
             bytes / (ts[4] * 1e-3) / 1e9, ts[0] * 1e3, ts[8] * 1e3);
    }
  // 256-byte ops, both directions at once.
  for (int mode = 0; mode < 2; ++mode) {
    std::vector<float> ts;
    for (int rep = 0; rep < 9; ++rep) {
      cudaEvent_t a, b;
      CK(cudaSetDevice(0)); CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
      for (int d = 0; d < 2; ++d) { CK(cudaSetDevice(d)); CK(cudaDeviceSynchronize()); }
      CK(cudaSetDevice(0)); CK(cudaEventRecord(a, st[0]));
      for (int d = 0; d < 2; ++d) {
        CK(cudaSetDevice(d));
        if (mode == 0) push<0, 256><<<132, 128, TILE, st[d]>>>(buf[1 - d], nchunks, 0);
        else push<1, 256><<<132, 128, TILE, st[d]>>>(buf[1 - d], nchunks, 0);
      }
      CK(cudaSetDevice(0)); CK(cudaEventRecord(b, st[0])); CK(cudaEventSynchronize(b));
      for (int d = 0; d < 2; ++d) { CK(cudaSetDevice(d)); CK(cudaDeviceSynchronize()); }
      float ms; CK(cudaEventElapsedTime(&ms, a, b)); ts.push_back(ms);
    }
    std::sort(ts.begin(), ts.end());
    printf("both directions, 256-byte ops, %s: 48 MiB in %.1f us, %.0f GB/s\n", mode ? "reduce-add f16" : "copy",
           ts[4] * 1e3, bytes / (ts[4] * 1e-3) / 1e9);
  }
  // Local reduce throughput for comparison.
  for (int mode = 0; mode < 2; ++mode) {
    std::vector<float> ts;
    CK(cudaSetDevice(0));
    for (int rep = 0; rep < 9; ++rep) {
      cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
      CK(cudaEventRecord(a));
      if (mode == 0) push<0><<<132, 128, TILE>>>(buf[0], nchunks, 0); else push<1><<<132, 128, TILE>>>(buf[0], nchunks, 0);
      CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
      float ms; CK(cudaEventElapsedTime(&ms, a, b)); ts.push_back(ms);
    }
    std::sort(ts.begin(), ts.end());
    printf("local %s: %.1f us, %.0f GB/s\n", mode ? "reduce-add f16" : "copy", ts[4] * 1e3, bytes / (ts[4] * 1e-3) / 1e9);
  }
  return 0;
}
