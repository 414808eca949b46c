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

`matmul_tuned(dtype)` is the wider baseline of bench/gpu/gemm_grid.py: f16, bf16 or FP8 (e4m3 /
e5m2, per-tensor scales) inputs, f16 / bf16 / f32 output, any strides (FP8's B [N, K] is passed
as its transpose view), tuned per shape over TUNED_CONFIGS — the large tiles above plus small
ones (64x64, 64x128, 128x64, 64x256) and split-K. Split-K (SPLIT_K > 1) is a two-pass
reduction, chosen over atomic adds for determinism and for needing no zeroed buffer: program
(tile, s) of the first kernel multiplies the s-th slice of K (a whole number of BK steps) and
stores its f32 partial tile into a workspace [SPLIT_K, M, N]; a second, elementwise kernel sums
the SPLIT_K partials, applies the scales and casts to C's type. The tuner times the whole
operation (both kernels) for each configuration, so split-K wins only where it pays for its
extra pass. Split-K configurations are tried only where the split-free grid has fewer tiles
than the GPU has SMs and K has at least two BK steps per slice; BM 128 / 256 tiles only where M
is over 64 / 128 (a taller tile only repeats rows there).

    run = matmul_tuned("bf16")                  # None when Triton is missing
    run(a, b, c)                                # a [M, K], b [K, N] (any strides), c [M, N] contiguous
    run(a, b_nk.t(), c, scale_a, scale_b)       # FP8: scales are 1-element f32 tensors
    go = run.launcher(a, b, c, validate=ok)     # tunes (once per shape and types), returns a
    go()                                        #   no-argument launch of the chosen config
    run.best_config(a, b, c)                    # the chosen configuration's description
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


# (BM, BN, BK, num_stages, num_warps, SPLIT_K) of matmul_tuned, per input width: 16-bit inputs
# step 64 along K (128 bytes, one 128-byte swizzle row); FP8 steps 128 (the same bytes).
TUNED_CONFIGS = {
    2: [
        (128, 256, 64, 3, 8, 1), (128, 256, 64, 4, 8, 1), (256, 128, 64, 3, 8, 1),
        (128, 128, 64, 4, 4, 1), (128, 128, 64, 5, 8, 1), (128, 64, 64, 4, 4, 1),
        (64, 256, 64, 4, 4, 1), (64, 128, 64, 4, 4, 1), (64, 64, 64, 4, 4, 1),
        (128, 128, 64, 4, 4, 2), (64, 128, 64, 4, 4, 4), (64, 64, 64, 4, 4, 8),
    ],
    1: [
        (128, 256, 128, 3, 8, 1), (256, 128, 128, 3, 8, 1), (128, 128, 128, 4, 4, 1),
        (128, 128, 128, 4, 8, 1), (128, 64, 128, 4, 4, 1), (64, 256, 128, 3, 4, 1),
        (64, 128, 128, 4, 4, 1), (64, 64, 128, 4, 4, 1),
        (128, 128, 128, 4, 4, 2), (64, 128, 128, 4, 4, 4), (64, 64, 128, 4, 4, 8),
    ],
}

_TUNED: list = []  # (triton, matmul kernel, split-K reduce kernel), or None without Triton


def _tuned_kernels():
    """The two kernels of matmul_tuned (built once; None without Triton)."""
    if _TUNED:
        return _TUNED[0]
    try:
        import triton
        import triton.language as tl
    except ImportError:
        _TUNED.append(None)
        return None

    @triton.jit
    def mm(a, b, c, ws, sa, sb, M, N, K, s_am, s_ak, s_bk, s_bn,
           D_N: tl.constexpr, D_K: tl.constexpr,
           D_AM: tl.constexpr, D_AK: tl.constexpr, D_BK: tl.constexpr, D_BN: tl.constexpr,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
           SPLIT_K: tl.constexpr, SCALED: tl.constexpr):
        # N, K and the strides arrive divided by D_* (their largest power-of-two factors up to
        # 16): the products tell Triton's alignment analysis what its own specialization
        # (integers divisible by 16) misses on ragged shapes (N = K = 1000: 8-element rows, the
        # `% N` wrap and the `< K` masks constant over 8 elements), so those loads can stay
        # vectorized. C is contiguous: its row stride is N.
        N = N * D_N
        K = K * D_K
        s_am = s_am * D_AM
        s_ak = s_ak * D_AK
        s_bk = s_bk * D_BK
        s_bn = s_bn * D_BN
        pid = tl.program_id(0)
        pid_k = tl.program_id(1)
        tiles_m = tl.cdiv(M, BM)
        tiles_n = tl.cdiv(N, BN)
        per_group = GROUP_M * tiles_n
        first_m = (pid // per_group) * GROUP_M
        group_m = tl.minimum(tiles_m - first_m, GROUP_M)
        pid_m = first_m + (pid % per_group) % group_m
        pid_n = (pid % per_group) // group_m
        # K slice of this program: a whole number of BK steps (all of K without split-K).
        k_span = tl.cdiv(K, SPLIT_K * BK) * BK
        k0 = pid_k * k_span
        k_end = tl.minimum(K, k0 + k_span)
        rm = (pid_m * BM + tl.arange(0, BM)) % M
        rn = (pid_n * BN + tl.arange(0, BN)) % N
        rk = tl.arange(0, BK)
        pa = a + rm[:, None] * s_am + (k0 + rk)[None, :] * s_ak
        pb = b + (k0 + rk)[:, None] * s_bk + rn[None, :] * s_bn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for kk in range(k0, k_end, BK):
            x = tl.load(pa, mask=(kk + rk)[None, :] < K, other=0.0)
            y = tl.load(pb, mask=(kk + rk)[:, None] < K, other=0.0)
            acc = tl.dot(x, y, acc)
            pa += BK * s_ak
            pb += BK * s_bk
        cm = pid_m * BM + tl.arange(0, BM)
        cn = pid_n * BN + tl.arange(0, BN)
        mask = (cm[:, None] < M) & (cn[None, :] < N)
        if SPLIT_K == 1:
            if SCALED:
                acc = acc * (tl.load(sa) * tl.load(sb))
            tl.store(c + cm[:, None] * N + cn[None, :], acc.to(c.dtype.element_ty), mask=mask)
        else:
            tl.store(ws + pid_k * M * N + cm[:, None] * N + cn[None, :], acc, mask=mask)

    @triton.jit
    def reduce(ws, c, sa, sb, MN, SPLIT_K: tl.constexpr, SCALED: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < MN
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for s in tl.static_range(SPLIT_K):
            acc += tl.load(ws + s * MN + offs, mask=mask, other=0.0)
        if SCALED:
            acc = acc * (tl.load(sa) * tl.load(sb))
        tl.store(c + offs, acc.to(c.dtype.element_ty), mask=mask)

    _TUNED.append((triton, mm, reduce))
    return _TUNED[0]


def _split_pow2(x):
    """(x / d, d): d the largest power of two up to 16 dividing x (1 for x = 0 or 1)."""
    d = 16
    while d > 1 and (x == 0 or x % d):
        d //= 2
    return x // d, d


def _events_ms(fn, reps):
    """Default tuning timer: median of `reps` event-timed runs, in milliseconds (imported
    here, not at module level: the module loads without torch)."""
    from axe_bench.timing import time_ms
    return time_ms(fn, warmup=0, reps=reps)


def describe(cfg):
    bm, bn, bk, stages, warps, split = cfg
    return f"{bm}x{bn}x{bk} s{stages} w{warps}" + (f" splitk{split}" if split > 1 else "")


def matmul_tuned(dtype="f16", timer=None, tune_reps=5, validate=None, log=None):
    """A Triton matmul tuned per shape (see the module's docstring); None without Triton.

    `dtype` ("f16", "bf16", "e4m3", "e5m2") picks the configuration list (TUNED_CONFIGS by
    input width); the kernels themselves take whatever types the tensors have. `timer(fn,
    reps)` -> milliseconds times one configuration (default: CUDA events, `tune_reps` runs);
    `validate(c)` -> bool, when given, checks each configuration's first result, and a
    configuration that fails it is never chosen; `log(str)` hears about failed or refused
    configurations. The choice is cached per (M, N, K, types, strides)."""
    built = _tuned_kernels()
    if built is None:
        return None
    triton, mm, reduce = built
    import torch
    width = 1 if dtype in ("e4m3", "e5m2") else 2
    configs = TUNED_CONFIGS[width]
    sms = torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
    chosen = {}     # key -> config
    workspace = {}  # (SPLIT_K, M, N) -> f32 tensor
    timer = timer or _events_ms

    def key(a, b, c, scaled):
        return (a.shape[0], b.shape[1], a.shape[1], a.dtype, b.dtype, c.dtype, a.stride(), b.stride(), scaled)

    def candidates(m, n, k):
        out = []
        for cfg in configs:
            bm, bn, bk, _, _, split = cfg
            if (bm >= 128 and m <= 64) or (bm >= 256 and m <= 128):
                continue
            tiles = triton.cdiv(m, bm) * triton.cdiv(n, bn)
            if split > 1 and (tiles >= sms or triton.cdiv(k, bk) < 2 * split):
                continue
            out.append(cfg)
        return out or list(configs)

    def bind(cfg, a, b, c, sa, sb):
        """A no-argument launch of configuration `cfg` on these tensors."""
        bm, bn, bk, stages, warps, split = cfg
        m, k = a.shape
        n = b.shape[1]
        scaled = sa is not None
        sa_, sb_ = (sa, sb) if scaled else (c, c)  # unread without SCALED
        grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn), split)
        (q_n, d_n), (q_k, d_k), (q_am, d_am), (q_ak, d_ak), (q_bk, d_bk), (q_bn, d_bn) = (
            _split_pow2(x) for x in (n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1)))
        sizes = (m, q_n, q_k, q_am, q_ak, q_bk, q_bn)  # M, N, K, strides as the kernel takes them
        divs = dict(D_N=d_n, D_K=d_k, D_AM=d_am, D_AK=d_ak, D_BK=d_bk, D_BN=d_bn)
        if split == 1:
            def go():
                mm[grid](a, b, c, c, sa_, sb_, *sizes, **divs,
                         BM=bm, BN=bn, BK=bk, GROUP_M=8, SPLIT_K=1, SCALED=scaled,
                         num_stages=stages, num_warps=warps)
            return go
        ws = workspace.get((split, m, n))
        if ws is None:
            ws = workspace[(split, m, n)] = torch.empty(split * m * n, device=c.device, dtype=torch.float32)
        rgrid = (triton.cdiv(m * n, 1024),)

        def go():
            mm[grid](a, b, c, ws, sa_, sb_, *sizes, **divs,
                     BM=bm, BN=bn, BK=bk, GROUP_M=8, SPLIT_K=split, SCALED=scaled,
                     num_stages=stages, num_warps=warps)
            reduce[rgrid](ws, c, sa_, sb_, m * n, SPLIT_K=split, SCALED=scaled, BLOCK=1024, num_warps=4)
        return go

    def tune(a, b, c, sa, sb, check=None):
        check = check or validate
        kk = key(a, b, c, sa is not None)
        if kk in chosen:
            return chosen[kk]
        assert c.is_contiguous(), "C must be contiguous"
        m, k = a.shape
        n = b.shape[1]
        best, best_t = None, None
        for cfg in candidates(m, n, k):
            go = bind(cfg, a, b, c, sa, sb)
            if check is not None:
                c.fill_(float("nan"))  # what a configuration leaves unwritten must not pass
            try:
                go()  # compiles on first use
                torch.cuda.synchronize()
            except Exception as e:  # out of shared memory or registers, an unsupported type
                if log:
                    log(f"triton {describe(cfg)} refused: {type(e).__name__}: {(str(e).splitlines() or [''])[0][:120]}")
                continue
            if check is not None and not check(c):
                if log:
                    log(f"triton {describe(cfg)} gave a wrong result: not chosen")
                continue
            t = timer(go, tune_reps)
            if best_t is None or t < best_t:
                best, best_t = cfg, t
        if best is None:
            raise RuntimeError(f"no Triton configuration ran for {m}x{n}x{k}")
        chosen[kk] = best
        return best

    def launcher(a, b, c, scale_a=None, scale_b=None, validate=None):
        """Tunes for these tensors' shape and types (once; `validate` overrides matmul_tuned's
        for this tuning) and returns a no-argument launch of the chosen configuration."""
        return bind(tune(a, b, c, scale_a, scale_b, validate), a, b, c, scale_a, scale_b)

    def run(a, b, c, scale_a=None, scale_b=None):
        launcher(a, b, c, scale_a, scale_b)()

    def best_config(a, b, c, scale_a=None, scale_b=None):
        return describe(tune(a, b, c, scale_a, scale_b))

    run.launcher = launcher
    run.best_config = best_config
    run.configs = configs
    run.chosen = chosen
    return run
