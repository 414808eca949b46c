"""A tuned Triton matmul, the baseline a Triton user would ship: C[M, N] = A[M, K] B[K, N] in
f16 with f32 accumulation and f16 output, grouped raster (GROUP_M row tiles of A walked down
one column tile of B, for L2 reuse), autotuned per (M, N, K) over the configurations below —
the tile shapes and pipeline depths that Triton's own Hopper matmul tutorials and benchmarks
use, 128x256x64 with 3 and 4 stages and 8 warps among them. On Hopper, Triton lowers `tl.dot`
to wgmma and pipelines the loads itself; with `DISABLE_MMA_V3=1` in the environment when it
compiles, to mma.sync (its Ampere path: ldmatrix fragments, cp.async pipelining), the
sm_80-class baseline of bench/gpu/mma_sync_gemm.py, which also passes `mma_sync=True` for the
tile shapes of CUTLASS's sm_80 GEMMs (mostly 32-wide K steps).

    run = matmul()          # None when Triton is missing
    run(a, b, c)            # a [M, K], b [K, N], c [M, N], f16, contiguous
    run.kernel.best_config  # after the first call: the configuration the autotuner chose
"""


def configs(triton, mma_sync=False):
    c = triton.Config
    extra = [
        c({"BM": 128, "BN": 256, "BK": 32, "GROUP_M": 8}, num_stages=3, num_warps=8),
        c({"BM": 256, "BN": 128, "BK": 32, "GROUP_M": 8}, num_stages=3, num_warps=8),
        c({"BM": 128, "BN": 128, "BK": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
        c({"BM": 256, "BN": 128, "BK": 64, "GROUP_M": 8}, num_stages=4, num_warps=8),
    ] if mma_sync else []
    return extra + [
        c({"BM": 128, "BN": 256, "BK": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        c({"BM": 128, "BN": 256, "BK": 64, "GROUP_M": 8}, num_stages=4, num_warps=8),
        c({"BM": 256, "BN": 128, "BK": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        c({"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
        c({"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8}, num_stages=5, num_warps=8),
        c({"BM": 128, "BN": 256, "BK": 32, "GROUP_M": 8}, num_stages=4, num_warps=8),
        c({"BM": 64, "BN": 256, "BK": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
        c({"BM": 128, "BN": 128, "BK": 128, "GROUP_M": 8}, num_stages=3, num_warps=8),
    ]


def matmul(mma_sync=False):
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return None

    @triton.autotune(configs=configs(triton, mma_sync), key=["M", "N", "K"])
    @triton.jit
    def kernel(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
        pid = tl.program_id(0)
        tiles_m = tl.cdiv(M, BM)
        tiles_n = tl.cdiv(N, BN)
        per_group = GROUP_M * tiles_n
        first_m = (pid // per_group) * GROUP_M
        group_m = min(tiles_m - first_m, GROUP_M)
        pid_m = first_m + (pid % per_group) % group_m
        pid_n = (pid % per_group) // group_m
        rm = (pid_m * BM + tl.arange(0, BM)) % M
        rn = (pid_n * BN + tl.arange(0, BN)) % N
        rk = tl.arange(0, BK)
        pa = a + rm[:, None] * K + rk[None, :]
        pb = b + rk[:, None] * N + rn[None, :]
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            x = tl.load(pa, mask=rk[None, :] < K - k * BK, other=0.0)
            y = tl.load(pb, mask=rk[:, None] < K - k * BK, other=0.0)
            acc = tl.dot(x, y, acc)
            pa += BK
            pb += BK * N
        cm = pid_m * BM + tl.arange(0, BM)
        cn = pid_n * BN + tl.arange(0, BN)
        tl.store(c + cm[:, None] * N + cn[None, :], acc.to(tl.float16), mask=(cm[:, None] < M) & (cn[None, :] < N))

    def run(x, y, out):
        m, k = x.shape
        n = y.shape[1]
        grid = lambda meta: (triton.cdiv(m, meta["BM"]) * triton.cdiv(n, meta["BN"]),)  # noqa: E731
        kernel[grid](x, y, out, m, n, k)

    run.kernel = kernel
    return run
