"""A tuned Triton matmul, the baseline a Triton user would ship: C[M, N] = A[M, K] B[K, N] in
f16 with f32 accumulation and f16 output, grouped raster (GROUP_M row tiles of A walked down
one column tile of B, for L2 reuse), autotuned per (M, N, K) over the configurations below —
the tile shapes and pipeline depths that Triton's own Hopper matmul tutorials and benchmarks
use, 128x256x64 with 3 and 4 stages and 8 warps among them. On Hopper, Triton lowers `tl.dot`
to wgmma and pipelines the loads itself.

    run = matmul()          # None when Triton is missing
    run(a, b, c)            # a [M, K], b [K, N], c [M, N], f16, contiguous
"""


def configs(triton):
    c = triton.Config
    return [
        c({"BM": 128, "BN": 256, "BK": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        c({"BM": 128, "BN": 256, "BK": 64, "GROUP_M": 8}, num_stages=4, num_warps=8),
        c({"BM": 256, "BN": 128, "BK": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        c({"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
        c({"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8}, num_stages=5, num_warps=8),
        c({"BM": 128, "BN": 256, "BK": 32, "GROUP_M": 8}, num_stages=4, num_warps=8),
        c({"BM": 64, "BN": 256, "BK": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
        c({"BM": 128, "BN": 128, "BK": 128, "GROUP_M": 8}, num_stages=3, num_warps=8),
    ]


def matmul():
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return None

    @triton.autotune(configs=configs(triton), key=["M", "N", "K"])
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

    return run
