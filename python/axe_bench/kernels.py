"""The shipped GPU kernels (test/gpu/kernels/*.mlir and the GEMMs test/gpu/build.sh generates):
inputs, NumPy references, tolerances, and the baseline a user would run instead. Shared by
test/gpu/run.py (correctness) and bench/gpu/bench.py (speed)."""
import numpy as np
from axe_gen import gemm_tma

RNG = np.random.default_rng(0)


def _gemm64(transpose_a=False, transpose_b=False):
    """A 64x64x64 f16 -> f32 GEMM entry: inputs, the f32 NumPy product, tolerance (f16 products
    are exact in f32; only the summation order differs)."""
    def ref(a):
        x = a[0].astype(np.float32).reshape(64, 64)
        y = a[1].astype(np.float32).reshape(64, 64)
        return ((x.T if transpose_a else x) @ (y.T if transpose_b else y)).reshape(-1)
    return (
        lambda: [RNG.standard_normal(4096).astype(np.float16), RNG.standard_normal(4096).astype(np.float16),
                 np.full(4096, np.nan, np.float32)],
        ref, 2, (1e-5, 1e-4), 0, None,
    )


def _gemm128(transpose_b=False):
    """A 128x128x64 f16 -> f32 GEMM entry (the wgmma kernels): B is [K, N], or [N, K] with
    transpose_b."""
    def ref(a):
        x = a[0].astype(np.float32).reshape(128, 64)
        y = a[1].astype(np.float32).reshape((128, 64) if transpose_b else (64, 128))
        return (x @ (y.T if transpose_b else y)).reshape(-1)
    return (
        lambda: [RNG.standard_normal(8192).astype(np.float16), RNG.standard_normal(8192).astype(np.float16),
                 np.full(16384, np.nan, np.float32)],
        ref, 2, (1e-5, 1e-4), 0, None,
    )


def _gemm4096():
    """A 4096^3 f16 -> f32 GEMM entry checked against NumPy: K = 4096 f16 products (exact in f32)
    summed in a different order than NumPy's BLAS; entries are about 64 in magnitude."""
    return (
        lambda: [RNG.standard_normal(4096 * 4096).astype(np.float16), RNG.standard_normal(4096 * 4096).astype(np.float16),
                 np.full(4096 * 4096, np.nan, np.float32)],
        lambda a: (a[0].astype(np.float32).reshape(4096, 4096) @ a[1].astype(np.float32).reshape(4096, 4096)).reshape(-1),
        2, (1e-4, 2e-3), 0, "torch.matmul[4096x4096x4096]",
    )


# Row ranges of the five groups of gemm_grouped_window (sizes 37, 0, 63, 61, 95: none a
# multiple of the 64-row window, one empty, one needing two windows).
GROUP_OFFSETS = np.array([0, 37, 37, 100, 161, 256], np.int32)


def _gemm_grouped_window():
    """gemm_grouped_window: Y[r] = X[r] @ W[g] for the rows r of group g (rows past the 256 of
    Y, a sentinel region, must keep their -7), and Z, each CTA's whole 64-row window, zero past
    its group's end. f16 products are exact in f32 (K = 64)."""
    def ref(a):
        x = a[0].astype(np.float32).reshape(256, 64)
        w = a[1].astype(np.float32).reshape(5, 64, 64)
        y = np.full((320, 64), -7.0, np.float32)
        z = np.zeros((640, 64), np.float32)
        for g in range(5):
            s, e = GROUP_OFFSETS[g], GROUP_OFFSETS[g + 1]
            y[s:e] = x[s:e] @ w[g]
            for t in range(2):
                o = s + 64 * t
                rows = max(0, min(e - o, 64))
                z[(2 * g + t) * 64:(2 * g + t) * 64 + rows] = x[o:o + rows] @ w[g]
        return [y.reshape(-1), z.reshape(-1)]
    return (
        lambda: [RNG.standard_normal(16384).astype(np.float16), RNG.standard_normal(20480).astype(np.float16),
                 GROUP_OFFSETS.copy(), np.full(20480, -7.0, np.float32), np.full(40960, np.nan, np.float32)],
        ref, (3, 4), (1e-5, 1e-4), 0, None,
    )


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


KERNELS = {
    # name: (make inputs, reference on the inputs, output argument index, (rtol, atol),
    #        bytes moved per run, baseline name)
    "copy_1d_kernel": (
        lambda: [RNG.standard_normal(1 << 26, dtype=np.float32), np.full(1 << 26, np.nan, np.float32)],
        lambda a: a[0],
        1, (0, 0), 2 * 4 * (1 << 26), "torch.clone",
    ),
    "transpose_smem_kernel": (
        lambda: [RNG.standard_normal(4096, dtype=np.float32), np.full(4096, np.nan, np.float32)],
        # Y is the same logical 64x64 tensor laid out column-major: y[i + 64 j] = X(i, j) =
        # x[64 i + j], i.e. X's memory transposed.
        lambda a: a[0].reshape(64, 64).reshape(-1, order="F"),
        1, (0, 0), 2 * 4 * 4096, None,
    ),
    "pointwise_kernel": (
        lambda: [RNG.standard_normal(1 << 24, dtype=np.float32), np.full(1 << 24, np.nan, np.float32)],
        lambda a: np.maximum(a[0], 0) * 2,
        1, (0, 0), 2 * 4 * (1 << 24), "torch.relu*2",
    ),
    "softmax_kernel": (
        lambda: [RNG.standard_normal(32768 * 1024, dtype=np.float32) * 4, np.full(32768 * 1024, np.nan, np.float32)],
        lambda a: _softmax(a[0].reshape(32768, 1024).astype(np.float64)).astype(np.float32).reshape(-1),
        # ex2.approx.f32 has about 2 ulp of relative error per element.
        1, (1e-5, 1e-7), 2 * 4 * 32768 * 1024, "torch.softmax",
    ),
    "softmax_wide_kernel": (
        lambda: [RNG.standard_normal(4096 * 4096, dtype=np.float32) * 4, np.full(4096 * 4096, np.nan, np.float32)],
        lambda a: _softmax(a[0].reshape(4096, 4096).astype(np.float64)).astype(np.float32).reshape(-1),
        1, (1e-5, 1e-7), 2 * 4 * 4096 * 4096, "torch.softmax[4096x4096]",
    ),
    "softmax_f16_kernel": (
        lambda: [(RNG.standard_normal(32768 * 4096, dtype=np.float32) * 4).astype(np.float16),
                 np.full(32768 * 4096, np.nan, np.float16)],
        lambda a: _softmax(a[0].reshape(32768, 4096).astype(np.float32)).astype(np.float16).reshape(-1),
        # f16 output: half an ulp of rounding (2^-11 relative) on both sides, plus ex2.approx.
        1, (2e-3, 1e-6), 2 * 2 * 32768 * 4096, "torch.softmax[32768x4096]",
    ),
    "gemm_4096_kernel": _gemm4096(),
    "gemm_4096_db_kernel": _gemm4096(),
    "gemm_4096_pipe_kernel": _gemm4096(),
    # The paper's Figure 3 GEMM (test/Examples/gemm-kernel.mlir): C = A B, 128^3, f16 in and out,
    # 4 warps each owning a 64x64 block, a 3-stage cp.async pipeline. f16 output: the product
    # rounded once to f16 (entries ~11 in magnitude, f16 spacing 2^-7..2^-6 there).
    "gemm_kernel": (
        lambda: [RNG.standard_normal(16384).astype(np.float16), RNG.standard_normal(16384).astype(np.float16),
                 np.full(16384, np.nan, np.float16)],
        lambda a: (a[0].astype(np.float32).reshape(128, 128) @ a[1].astype(np.float32).reshape(128, 128)).astype(np.float16).reshape(-1),
        2, (2e-3, 2e-2), 0, None,
    ),
    "gemm_mma_kernel": _gemm64(),
    "gemm_cp_async_kernel": _gemm64(),
    "gemm_grouped_window_kernel": _gemm_grouped_window(),
    "gemm_swizzled_kernel": _gemm64(),
    "gemm_mma_tn_kernel": _gemm64(transpose_a=True),
    "gemm_mma_nt_kernel": _gemm64(transpose_b=True),
    # sm_90a (wgmma): built with chip=sm_90a by build.sh.
    "gemm_wgmma_kernel": _gemm128(),
    "gemm_wgmma_nt_kernel": _gemm128(transpose_b=True),
    "gemm_4096_wgmma_kernel": _gemm4096(),
    # ldmatrix copies into mma fragments (x4, and x2.trans in one warp): both outputs exact.
    "ldmatrix_copy_kernel": (
        lambda: [RNG.standard_normal(1024).astype(np.float16), np.full(1024, np.nan, np.float16),
                 RNG.standard_normal(128).astype(np.float16), np.full(128, np.nan, np.float16)],
        lambda a: [a[0], a[2]],
        (1, 3), (0, 0), 0, None,
    ),
    # Register layout conversions that move elements between threads (through shared memory).
    "convert_layout_kernel": (
        lambda: [RNG.standard_normal(4096, dtype=np.float32), np.full(4096, np.nan, np.float32),
                 RNG.standard_normal(128, dtype=np.float32), np.full(128, np.nan, np.float32)],
        lambda a: [a[0], a[2]],
        (1, 3), (0, 0), 0, None,
    ),
    # TMA copies (sm_90a): global -> shared through tensor maps, completion on mbarriers.
    "copy_tma_kernel": (
        lambda: [RNG.standard_normal(65536).astype(np.float16), np.full(65536, np.nan, np.float16)],
        lambda a: a[0],
        1, (0, 0), 0, None,
    ),
    "copy_tma_grouped_kernel": (
        lambda: [RNG.standard_normal(65536).astype(np.float16), np.full(32768, np.nan, np.float16)],
        # Row r of X is at 8192 (r / 64) + 64 (r % 64): the first half of each 8192 block.
        lambda a: a[0].reshape(8, 8192)[:, :4096].reshape(-1),
        1, (0, 0), 0, None,
    ),
    # TMA multicast in clusters of two CTAs, and arrivals on the peer's barrier: O is A's rows
    # 0-63 twice (each CTA of each cluster writes what both received), then rows 64-127 twice.
    "copy_tma_multicast_kernel": (
        lambda: [RNG.standard_normal(16384).astype(np.float16), np.full(32768, np.nan, np.float16)],
        lambda a: np.concatenate([a[0].reshape(128, 128)[r:r + 64] for r in (0, 0, 64, 64)]).reshape(-1),
        1, (0, 0), 0, None,
    ),
    # The f16 GEMM's B tile (four column blocks, four boxes) multicast to a pair: O = [B; B].
    "copy_tma_multicast_blocks_kernel": (
        lambda: [RNG.standard_normal(16384).astype(np.float16), np.full(32768, np.nan, np.float16)],
        lambda a: np.concatenate([a[0], a[0]]),
        1, (0, 0), 0, None,
    ),
    "copy_tma_colmajor_kernel": (
        lambda: [RNG.standard_normal(65536, dtype=np.float32), np.full(65536, np.nan, np.float32)],
        # X(i, j) = x[i + 256 j]; Y(i, j) = y[256 i + j].
        lambda a: a[0].reshape(256, 256).T.reshape(-1),
        1, (0, 0), 0, None,
    ),
}

# The paper's LLM shapes (batch 8192 tokens through Llama-3.1-8B's MLP: up-projection
# 8192x14336x4096 and down-projection 8192x4096x14336), generated by axe_gen.gemm_mma.
# Too large for a NumPy reference on the GPU machine's CPU: bench.py checks them against
# PyTorch's float32 product on the GPU instead. Tensor-core accumulation rounds differently
# from IEEE float32 sums, and the difference grows with K: atol = 2e-6 K (0.029 for K = 14336,
# entries of magnitude ~sqrt(K) ~ 120).
# "_bk64": 64-wide K steps, two stages of 32 KiB: dynamic shared memory.
for _m, _n, _k, _s in [(8192, 14336, 4096, ""), (8192, 4096, 14336, ""), (4096, 4096, 4096, "_bk64"),
                       (8192, 14336, 4096, "_bk64"), (8192, 4096, 14336, "_bk64"),
                       ]:
    KERNELS[f"gemm_{_m}x{_n}x{_k}{_s}_kernel"] = (
        (lambda m=_m, n=_n, k=_k: [RNG.standard_normal(m * k).astype(np.float16),
                                   RNG.standard_normal(k * n).astype(np.float16),
                                   np.full(m * n, np.nan, np.float32)]),
        None, 2, (1e-4, 2e-6 * _k), 0, f"torch.matmul[{_m}x{_n}x{_k}]",
    )

# The multi-stage TMA + wgmma GEMMs (sm_90a) of axe_gen.gemm_tma's VARIANTS, also at
# Llama-3.1-70B's MLP shapes (hidden 8192, intermediate 28672): the small ones against NumPy,
# the others against PyTorch on the GPU (bench.py), with the tolerance above.
for _v in gemm_tma.VARIANTS:
    _m, _n, _k = _v[:3]
    _make = (lambda m=_m, n=_n, k=_k: [RNG.standard_normal(m * k).astype(np.float16),
                                       RNG.standard_normal(k * n).astype(np.float16),
                                       np.full(m * n, np.nan, np.float32)])
    _ref = None
    if _m * _n * _k <= 1 << 30:
        _ref = (lambda a, m=_m, n=_n, k=_k:
                (a[0].astype(np.float32).reshape(m, k) @ a[1].astype(np.float32).reshape(k, n)).reshape(-1))
    KERNELS[gemm_tma.name(*_v) + "_kernel"] = (
        _make, _ref, 2, (1e-4, 2e-6 * _k if _ref is None else 1e-3), 0,
        None if _ref is not None else f"torch.matmul[{_m}x{_n}x{_k}]",
    )
