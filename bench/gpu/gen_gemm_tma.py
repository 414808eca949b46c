#!/usr/bin/env python3
"""Writes a multi-stage TMA + wgmma Axe GEMM for sm_90a: C[M, N] = A[M, K] B[K, N], f16
inputs, f32 output, row-major; 128xBN CTA tiles (two warpgroups, 64 rows each), 64-wide K
steps, S shared stages filled by TMA copies (`schedule tma`) that complete on mbarriers.

DTYPE e4m3 / e5m2 makes it the FP8 GEMM (what torch._scaled_mm computes): A [M, K] row-major
and B given as [N, K] row-major (both K-major: wgmma reads FP8 only K-major), 128-wide K
steps (128 bytes, the 128B swizzle row, `#axe.swizzle<3, 4, 3>` on bytes), f32 accumulation,
and per-tensor scales (two `memref<1xf32>` arguments, as torch._scaled_mm's scale_a/scale_b)
multiplied into the accumulator before the output is stored. OUT f16 / bf16 stores the
product in that type (what cuBLAS and Triton store) instead of f32. TMA_STORE 1 writes the
output tile into shared memory and out with one TMA store (`axe.copy %shared, %global
schedule tma`) instead of storing from registers.

Each K step waits for its stage's two copies (their tokens, carried through the loop), starts
the stage's wgmma as an async gemm, waits until only that gemm is in flight (`outstanding 1`:
the previous step's gemm is done with its stage), synchronizes the CTA and refills the
previous stage with the copies S - 1 steps ahead: the tensor cores keep one gemm queued while
TMA keeps S - 1 stages in flight. With OVERLAP = 0 each gemm completes before the next step
(the first version: the stage just computed is refilled S steps ahead). The shared tiles have wgmma's canonical 128-byte-swizzled layouts (A K-major, B
N-major in 64-column blocks), which are also TMA boxes.

    gen_gemm_tma.py M N K [BN [S [OVERLAP [GROUP [CHIP [RELEASE [DTYPE [OUT [TMA_STORE [PREFETCH]]]]]]]]]] > gemm_MxNxK_tma.mlir
    gen_gemm_tma.py --all DIR          (every entry of VARIANTS, as DIR/<name>.mlir)

GROUP (default 8) row tiles are walked per column tile (L2 reuse); 1 is plain row-major order.
CHIP sm_90 (instead of sm_90a) keeps TMA but computes with ldmatrix + mma.sync. RELEASE 1
replaces the CTA barrier before each refill by `axe.arrive` + `after` (only the issuing thread
waits for the others to be done with the stage); RELEASE 2 (mma.sync) refills each stage as
soon as it is free, one K step further ahead (see `kernel`). PREFETCH 1 (mma.sync, S >= 3) writes each
k16 step's fragments as register tensors loaded one step ahead by ldmatrix copies, across stage
boundaries too (see `kernel`).
"""
import sys

# The variants test/gpu/build.sh generates and test/gpu/kernels.py runs:
# (M, N, K, BN, S, OVERLAP, GROUP). The 4096^3 ones compare tile width, stages, gemm overlap
# and raster order; then Llama-3.1-8B's and -70B's MLP GEMMs at batch 8192.
VARIANTS = [
    (512, 256, 1024, 128, 2, 1, 8), (512, 512, 1024, 256, 3, 1, 8),
    (4096, 4096, 4096, 128, 4, 1, 8), (4096, 4096, 4096, 128, 4, 0, 8),
    (4096, 4096, 4096, 256, 3, 1, 8), (4096, 4096, 4096, 256, 4, 1, 8), (4096, 4096, 4096, 256, 3, 1, 1),
    (8192, 14336, 4096, 256, 4, 1, 8), (8192, 4096, 14336, 256, 4, 1, 8),
    (8192, 28672, 8192, 256, 4, 1, 8), (8192, 8192, 28672, 256, 4, 1, 8),
    # sm_90 without the "a": the same TMA pipeline feeding ldmatrix + mma.sync.
    (512, 256, 1024, 128, 2, 1, 8, "sm_90"), (4096, 4096, 4096, 128, 4, 1, 8, "sm_90"),
    (4096, 4096, 4096, 256, 3, 1, 8, "sm_90"), (4096, 4096, 4096, 256, 4, 1, 8, "sm_90"),
    # ... with split CTA barriers; 128x128 tiles in 3 (2) stages run two (three) CTAs per SM.
    (4096, 4096, 4096, 256, 4, 1, 8, "sm_90", 1), (4096, 4096, 4096, 256, 3, 1, 8, "sm_90", 1),
    (4096, 4096, 4096, 128, 4, 1, 8, "sm_90", 1), (4096, 4096, 4096, 128, 3, 1, 8, "sm_90", 1),
    (4096, 4096, 4096, 128, 2, 1, 8, "sm_90", 1),
    # ... with each k16 step's fragments loaded one step ahead, across stages (PREFETCH).
    (4096, 4096, 4096, 256, 4, 1, 8, "sm_90", 1, "f16", "f32", 0, 1), (4096, 4096, 4096, 256, 3, 1, 8, "sm_90", 1, "f16", "f32", 0, 1),
    (4096, 4096, 4096, 128, 4, 1, 8, "sm_90", 1, "f16", "f32", 0, 1), (4096, 4096, 4096, 128, 3, 1, 8, "sm_90", 1, "f16", "f32", 0, 1),
    (512, 256, 1024, 128, 3, 1, 8, "sm_90", 1, "f16", "f32", 0, 1),
    # ... refilling each stage as soon as it is free (RELEASE 2; not yet run on a GPU).
    (4096, 4096, 4096, 256, 4, 1, 8, "sm_90", 2), (4096, 4096, 4096, 256, 3, 1, 8, "sm_90", 2),
    # ... the 128x256 split-barrier kernel at K = 2048, 8192, 16384 (with 4096^3: how its time
    # grows with K, bench/gpu/mma_sync_gemm.py --k-scaling).
    (4096, 4096, 2048, 256, 4, 1, 8, "sm_90", 1), (4096, 4096, 8192, 256, 4, 1, 8, "sm_90", 1),
    (4096, 4096, 16384, 256, 4, 1, 8, "sm_90", 1),
    # The CTA barrier before each refill split: every thread arrives, only the issuing thread
    # waits (axe.arrive + `after`).
    (512, 512, 1024, 256, 3, 1, 8, "sm_90a", 1), (4096, 4096, 4096, 256, 4, 1, 8, "sm_90a", 1),
    (8192, 14336, 4096, 256, 4, 1, 8, "sm_90a", 1), (8192, 8192, 28672, 256, 4, 1, 8, "sm_90a", 1),
]

# Typed variants (test/gpu/gemm_typed.py checks and times them against torch on the GPU):
# (M, N, K, BN, S, OVERLAP, GROUP, CHIP, RELEASE, DTYPE, OUT[, TMA_STORE]).
TYPED_VARIANTS = [
    # 16-bit output (what cuBLAS and Triton store).
    (512, 256, 1024, 128, 2, 1, 8, "sm_90a", 0, "f16", "f16"), (4096, 4096, 4096, 256, 4, 1, 8, "sm_90a", 1, "f16", "f16"),
    (4096, 4096, 4096, 256, 4, 1, 8, "sm_90a", 1, "f16", "bf16"),
    # FP8 (e4m3, e5m2) with per-tensor scales, bf16 (or f32) output.
    (512, 256, 1024, 128, 2, 1, 8, "sm_90a", 0, "e4m3", "f32"), (512, 256, 1024, 128, 2, 1, 8, "sm_90a", 0, "e5m2", "bf16"),
    (4096, 4096, 4096, 256, 4, 1, 8, "sm_90a", 1, "e4m3", "bf16"), (8192, 14336, 4096, 256, 4, 1, 8, "sm_90a", 1, "e4m3", "bf16"),
    (8192, 4096, 14336, 256, 4, 1, 8, "sm_90a", 1, "e4m3", "bf16"),
    # FP8 tile choices: 128-wide tiles with 4 stages (5 would need 32 TMA barrier sites, more
    # than convert-axe-to-gpu allows), 256-wide with 3; one without the split release.
    (8192, 14336, 4096, 128, 4, 1, 8, "sm_90a", 1, "e4m3", "bf16"), (8192, 14336, 4096, 256, 3, 1, 8, "sm_90a", 1, "e4m3", "bf16"),
    (4096, 4096, 4096, 256, 4, 1, 8, "sm_90a", 0, "e4m3", "bf16"),
    # Any shape: M, N, K that are not tile multiples ({clip} tiles), down to a batch of 8 rows.
    (1000, 1000, 1000, 128, 4, 1, 8, "sm_90a", 0, "f16", "f16"), (8, 4096, 4096, 128, 4, 1, 8, "sm_90a", 1, "f16", "f16"),
    (4000, 4104, 4072, 256, 4, 1, 8, "sm_90a", 1, "f16", "f32"), (1000, 1000, 1008, 128, 2, 1, 8, "sm_90a", 0, "e4m3", "bf16"),
    (8, 14336, 4096, 128, 4, 1, 8, "sm_90a", 1, "e4m3", "bf16"),
    # The epilogue through a shared tile and a TMA store (3 stages leave room for the tile).
    (4096, 4096, 4096, 256, 3, 1, 8, "sm_90a", 1, "f16", "f16", 1), (1000, 1000, 1000, 128, 3, 1, 8, "sm_90a", 0, "f16", "f16", 1),
    (4096, 4096, 4096, 256, 3, 1, 8, "sm_90a", 1, "e4m3", "bf16", 1), (8192, 14336, 4096, 256, 3, 1, 8, "sm_90a", 1, "f16", "f16", 1),
]

# The paper's Figure 10: the projections of eight LLMs at a batch of M = 8192 tokens, from the
# models' published configs (hidden size, attention heads, KV heads, head dim, MLP
# intermediate size): QKV (N = (heads + 2 kv) head_dim), attention output (K = heads head_dim),
# MLP up (gate and up fused: N = 2 intermediate; GPT-3 has no gate) and down.
MODELS = {
    "qwen3-8b": (4096, 32, 8, 128, 12288, True), "qwen3-32b": (5120, 64, 8, 128, 25600, True),
    "llama3.1-8b": (4096, 32, 8, 128, 14336, True), "llama3.1-70b": (8192, 64, 8, 128, 28672, True),
    "llama3.1-405b": (16384, 128, 8, 128, 53248, True), "gemma2-9b": (3584, 16, 8, 256, 14336, True),
    "gemma2-27b": (4608, 32, 16, 128, 36864, True), "gpt3-175b": (12288, 96, 96, 128, 49152, False),
}


def figure10_shapes(m=8192):
    """(model, projection, M, N, K) for every model of MODELS."""
    out = []
    for model, (hidden, heads, kv, hd, inter, gated) in MODELS.items():
        out += [(model, "qkv", m, (heads + 2 * kv) * hd, hidden), (model, "o", m, hidden, heads * hd),
                (model, "up", m, (2 if gated else 1) * inter, hidden), (model, "down", m, hidden, inter)]
    return out


def choose(m, n, k, dtype="f16"):
    """The tile heuristic for a shape (documented, not tuned per kernel): 128x256 tiles, 4
    stages, grouped raster of 8, the split release — the fastest combination measured at 4096^3
    and the Llama-3.1 shapes (bench/RESULTS.md) — except that grids of fewer than two waves
    of 132 SMs use 128-wide tiles (twice the CTAs)."""
    bn = 256 if -(-m // 128) * -(-n // 256) >= 2 * 132 else 128
    return bn, 4, 1, 8, "sm_90a", 1


def figure10_variants(dtype):
    out_t = "bf16" if dtype != "f16" else "f16"
    return [(m, n, k) + choose(m, n, k, dtype) + (dtype, out_t) for (_, _, m, n, k) in figure10_shapes()]


# Figure 10 in f16 (f16 output) and FP8 e4m3 (bf16 output); gemm_typed.py --figure10 runs them.
FIGURE10 = figure10_variants("f16") + figure10_variants("e4m3")

# The MLIR element type of each DTYPE / OUT name.
MLIR = {"f16": "f16", "bf16": "bf16", "f32": "f32", "e4m3": "f8E4M3FN", "e5m2": "f8E5M2"}


def name(m, n, k, bn=128, stages=4, overlap=1, group=8, chip="sm_90a", release=0, dtype="f16", out="f32",
         tma_store=0, prefetch=0):
    return (f"gemm_{m}x{n}x{k}_tma" + ("" if (bn, stages) == (128, 4) else f"_bn{bn}_s{stages}")
            + ("" if overlap else "_sync") + ("" if group == 8 else f"_g{group}")
            + ("" if chip == "sm_90a" else "_mma") + ("_rel" if release == 1 else "_rel2" if release == 2 else "")
            + ("" if dtype == "f16" else f"_{dtype}") + ("" if out == "f32" else f"_o{out}")
            + ("_ts" if tma_store else "") + ("_pf" if prefetch else ""))


def raster(out, ind, tile, tiles_m, tiles_n, group, sfx=""):
    """Appends the ops that give tile index `tile` its row and column tile, %bm and %bn (%ctn
    must hold `tiles_n`). Grouped raster (as Triton's GROUP_M) where `group` divides the row
    tiles: consecutive tiles walk `group` row tiles of A down one column tile of B before moving
    right, so both stay in L2; else row-major order. `sfx` suffixes every name it defines."""
    if group > 1 and tiles_m % group == 0:
        out.append(f"{ind}%cgn{sfx} = arith.constant {group * tiles_n} : index")
        out.append(f"{ind}%cg{sfx} = arith.constant {group} : index")
        out.append(f"{ind}%gid{sfx} = arith.divui {tile}, %cgn{sfx} : index")
        out.append(f"{ind}%gfirst{sfx} = arith.muli %gid{sfx}, %cg{sfx} : index")
        out.append(f"{ind}%gr{sfx} = arith.remui {tile}, %cgn{sfx} : index")
        out.append(f"{ind}%gm{sfx} = arith.remui %gr{sfx}, %cg{sfx} : index")
        out.append(f"{ind}%bm{sfx} = arith.addi %gfirst{sfx}, %gm{sfx} : index")
        out.append(f"{ind}%bn{sfx} = arith.divui %gr{sfx}, %cg{sfx} : index")
    else:
        out.append(f"{ind}%bm{sfx} = arith.divui {tile}, %ctn : index")
        out.append(f"{ind}%bn{sfx} = arith.remui {tile}, %ctn : index")


def fragment_types(rows, bn, e):
    """The register types of one k16 step's fragments: A's (`rows` x 16) and B's (16 x `bn`);
    their layouts follow from the gemm's accumulator (axe-infer-layout)."""
    return f"!axe.tensor<{rows}x16x{e}, register, ?>", f"!axe.tensor<16x{bn}x{e}, register, ?>"


def fragment_buffers(out, ind, rows, bn, e):
    """Appends two buffers per operand for one k16 step's fragments, %fa0/%fb0 and %fa1/%fb1
    (filled by k16_fragments in turn); returns their types."""
    fa, fb = fragment_types(rows, bn, e)
    for f in range(2):
        out.append(f"{ind}%fa{f} = axe.alloc : {fa}")
        out.append(f"{ind}%fb{f} = axe.alloc : {fb}")
    return fa, fb


def k16_fragments(out, ind, a, b, rows, bn, e, swz, step, f, tag):
    """Appends the ldmatrix copies of k16 step `step` of a stage into fragment buffers %fa`f`
    (`rows` x 16) and %fb`f` (16 x `bn`): `a` and `b` are the stage's shared A rows and B tile,
    (value, type); `swz` their swizzle; `tag` names the slices."""
    sfa = f"!axe.tensor<{rows}x16x{e}, shared, ?, {swz}>"
    sfb = f"!axe.tensor<16x{bn}x{e}, shared, ?, {swz}>"
    fa, fb = fragment_types(rows, bn, e)
    out.append(f"{ind}%ssa_{tag} = axe.slice {a[0]} [0 : {rows}, {16 * step} : {16 * step + 16}] : {a[1]} to {sfa}")
    out.append(f"{ind}%ssb_{tag} = axe.slice {b[0]} [{16 * step} : {16 * step + 16}, 0 : {bn}] : {b[1]} to {sfb}")
    out.append(f"{ind}axe.copy %ssa_{tag}, %fa{f} schedule ldmatrix : {sfa}, {fa}")
    out.append(f"{ind}axe.copy %ssb_{tag}, %fb{f} schedule ldmatrix : {sfb}, {fb}")


def kernel(m, n, k, bn=128, stages=4, overlap=1, group=8, chip="sm_90a", release=0, dtype="f16", out="f32",
           tma_store=0, prefetch=0, experts=0, swiglu=False, fname=None, ranks=0):
    """`experts` > 0: the grouped GEMM of a Mixture-of-Experts layer. B holds one [K, N] matrix
    per expert, stacked ([experts * K, N]), and an `i32` argument `%map` gives, per 128-row
    tile of A, the expert whose B that tile multiplies (the routing step groups each expert's
    tokens into whole tiles). `swiglu`: B's column tiles hold gate and up columns side by side
    (BN/2 each), and the epilogue stores silu(gate) * up: C has N/2 columns."""
    fp8 = dtype in ("e4m3", "e5m2")
    assert not (experts and (fp8 or m % 128 or n % bn or k % 64)), "grouped GEMMs: f16, whole tiles"
    # `ranks` > 0: the GEMM + reduce-scatter of gen_gemm_rs.py (each of R devices multiplies
    # its K slice; C's rows are reduce-scattered over the devices).
    assert not ranks or (dtype == "f16" and out == "f16" and not (experts or tma_store or swiglu)
                         and m % (128 * ranks * group) == 0 and n % bn == 0 and k % 64 == 0), \
        "GEMM + reduce-scatter: f16, whole tiles, R * GROUP row tiles per device"
    # One K step is 128 bytes of K: the 128B swizzle row.
    bm, bk = 128, (128 if fp8 else 64)
    # M, N, K need not be tile multiples: the tiles are `{clip}` slices, whose parts past the
    # tensors TMA fills with zeros (zeros add nothing along K) and the epilogue does not store.
    ragged = m % bm != 0 or n % bn != 0 or k % bk != 0
    nk = -(-k // bk)
    assert nk >= 2 * stages and bn % 64 == 0
    assert not fp8 or chip == "sm_90a", "FP8 GEMMs need wgmma (sm_90a)"
    # PREFETCH 1 (mma.sync only): the fragments of each k16 step are explicit register tensors,
    # loaded by `axe.copy ... schedule ldmatrix` one step ahead of the gemm that reads them,
    # across stage boundaries too: the next stage's first fragments are loaded (after its
    # wait) before the current stage's last gemm, so no stage starts waiting for ldmatrix.
    # S >= 3: with S = 2 the next stage's copies would be issued only after the current stage
    # is released, too late to load its first fragments before the current stage's last gemm.
    assert not prefetch or (chip != "sm_90a" and overlap and not fp8 and bk == 64 and stages >= 3), \
        "fragment prefetch: mma.sync (CHIP sm_90/sm_80), OVERLAP 1, 16-bit inputs, S >= 3"
    # RELEASE 2 (mma.sync only): the split release, refilling each stage as soon as it is free.
    # An mma.sync gemm is done with its stage when it returns, so once every thread has arrived
    # after step j - 1, stage j - 1 can take step j - 1 + S: issued at the start of step j, S - 1
    # steps before it is needed. RELEASE 1 waits for the same arrivals at the same point but
    # refills the stage of step j - 2 (with step j - 2 + S), one step less ahead: wgmma's rule,
    # whose arrival after `wait outstanding 1` releases only the previous stage. In the loop
    # body steps 1 .. S - 1 refill this way before waiting for their own stage; step 0 keeps
    # RELEASE 1's order (the previous round's last arrival is in the previous iteration, and
    # `after` takes an arrive of the same block), and the round's last step arrives for no one.
    assert release != 2 or (chip != "sm_90a" and not prefetch and overlap), \
        "RELEASE 2: mma.sync (CHIP sm_90/sm_80) without PREFETCH, OVERLAP 1"
    name_ = fname or name(m, n, k, bn, stages, overlap, group, chip, release, dtype, out, tma_store, prefetch)
    e, o = MLIR[dtype], MLIR[out]
    nc = n // 2 if swiglu else n  # C's columns
    kb_rows = k * max(experts, 1)  # B's rows: one K per expert
    ga = f"!axe.tensor<{m}x{k}x{e}, global, #axe.layout<({m}, {k}) : ({k}, 1)>>"
    gc = f"!axe.tensor<{m}x{nc}x{o}, global, #axe.layout<({m}, {nc}) : ({nc}, 1)>>"
    ar = f"!axe.tensor<{bm}x{k}x{e}, global, ?>"
    at = f"!axe.tensor<{bm}x{bk}x{e}, global, ?>"
    swz = "#axe.swizzle<3, 4, 3>" if fp8 else "#axe.swizzle<3, 3, 3>"
    sa = f"!axe.tensor<{bm}x{bk}x{e}, shared, #axe.layout<({bm}, {bk}) : ({bk}, 1)>, {swz}>"
    if fp8:
        # B is [N, K] (K-major), the gemm reads it transposed.
        gb = f"!axe.tensor<{n}x{k}x{e}, global, #axe.layout<({n}, {k}) : ({k}, 1)>>"
        bc = f"!axe.tensor<{bn}x{k}x{e}, global, ?>"
        bt = f"!axe.tensor<{bn}x{bk}x{e}, global, ?>"
        sb = f"!axe.tensor<{bn}x{bk}x{e}, shared, #axe.layout<({bn}, {bk}) : ({bk}, 1)>, {swz}>"
    else:
        gb = f"!axe.tensor<{kb_rows}x{n}x{e}, global, #axe.layout<({kb_rows}, {n}) : ({n}, 1)>>"
        bc = f"!axe.tensor<{k}x{bn}x{e}, global, ?>"
        bt = f"!axe.tensor<{bk}x{bn}x{e}, global, ?>"
        sb = f"!axe.tensor<{bk}x{bn}x{e}, shared, #axe.layout<({bk}, {bn // 64}, 64) : (64, {bk * 64}, 1)>, {swz}>"
    gemm_attr = " {transpose_b}" if fp8 else ""
    acc = f"!axe.tensor<{bm}x{bn}xf32, register, ?>"
    tok = "!axe.token"
    out_type = o
    out = []

    def issue(kv, s, ind, tag, after=None):
        aft = f" after {after}" if after else ""
        # A's tile: a clipped 2-D tile of A (ragged shapes), or a K step of the CTA's row band.
        if ragged:
            out.append(f"{ind}%at_{tag} = axe.slice %A [%om : +{bm}, {kv} : +{bk}] {{clip}} : {ga} to {at}")
        else:
            out.append(f"{ind}%at_{tag} = axe.slice %arows [0 : {bm}, {kv} : +{bk}] : {ar} to {at}")
        # B's tile: the tile's expert's rows (e K + kv), a clipped 2-D tile, or a K step of the
        # CTA's column band; B is [N, K] for FP8.
        if experts:
            out.append(f"{ind}%kb_{tag} = arith.addi %eoff, {kv} : index")
            out.append(f"{ind}%bt_{tag} = axe.slice %B [%kb_{tag} : +{bk}, %on : +{bn}] : {gb} to {bt}")
        elif ragged and fp8:
            out.append(f"{ind}%bt_{tag} = axe.slice %B [%on : +{bn}, {kv} : +{bk}] {{clip}} : {gb} to {bt}")
        elif ragged:
            out.append(f"{ind}%bt_{tag} = axe.slice %B [{kv} : +{bk}, %on : +{bn}] {{clip}} : {gb} to {bt}")
        elif fp8:
            out.append(f"{ind}%bt_{tag} = axe.slice %bcols [0 : {bn}, {kv} : +{bk}] : {bc} to {bt}")
        else:
            out.append(f"{ind}%bt_{tag} = axe.slice %bcols [{kv} : +{bk}, 0 : {bn}] : {bc} to {bt}")
        out.append(f"{ind}%ta_{tag} = axe.copy async %at_{tag}, %sa{s} schedule tma{aft} : {at}, {sa} -> {tok}")
        out.append(f"{ind}%tb_{tag} = axe.copy async %bt_{tag}, %sb{s} schedule tma{aft} : {bt}, {sb} -> {tok}")
        return f"%ta_{tag}", f"%tb_{tag}"

    def release_point(ind, tag):
        """Before refilling a stage: a CTA barrier, or (release) every thread's arrival that
        only the issuing thread waits for."""
        if release:
            out.append(f"{ind}%rel_{tag} = axe.arrive")
            return f"%rel_{tag}"
        out.append(f"{ind}axe.barrier cta")
        return None

    def compute(s, ta, tb, ind):
        out.append(f"{ind}axe.wait {ta}, {tb}")
        out.append(f"{ind}axe.gemm %sa{s}, %sb{s}, %acc{gemm_attr} : {sa}, {sb}, {acc}")
        out.append(f"{ind}axe.barrier cta")

    def fragments(s, step, f, ind, tag):
        """PREFETCH: loads k16 step `step` of stage `s` into fragment buffers `f`."""
        k16_fragments(out, ind, (f"%sa{s}", sa), (f"%sb{s}", sb), bm, bn, e, swz, step, f, tag)

    def prefetched_steps(s, next_tokens, more, ind, tag):
        """PREFETCH: the stage's four k16 gemms on register fragments, each step's fragments
        loaded before the previous step's gemm; before the last gemm, (if `more`) the wait for
        the next stage and its first fragments. Stage steps alternate buffers 0, 1, 0, 1."""
        steps = bk // 16
        for j in range(steps):
            if j + 1 < steps:
                fragments(s, j + 1, (j + 1) % 2, ind, f"{tag}_{j + 1}")
            elif more:
                out.append(f"{ind}axe.wait {next_tokens[0]}, {next_tokens[1]}")
                fragments((s + 1) % stages, 0, 0, ind, f"{tag}_n")
            fr = j % 2
            fa, fb = fragment_types(bm, bn, e)
            out.append(f"{ind}axe.gemm %fa{fr}, %fb{fr}, %acc : {fa}, {fb}, {acc}")

    i6, i8 = " " * 6, " " * 8
    tiles_n = -(-n // bn)
    # K steps in the loop: each issues step + S (+ S - 1 when overlapping gemms).
    loop_end = (nk - stages) // stages * stages if not overlap else (nk - stages + 1) // stages * stages
    out.append(f"// Generated by bench/gpu/gen_gemm_tma.py {m} {n} {k} {bn} {stages} {overlap} {group} {chip} {release} {dtype} {out_type}"
               + (f" {tma_store} {prefetch}" if tma_store or prefetch else "") + ".")
    out.append(f'module attributes {{axe.target = #axe.target<"{chip}">}} {{')
    scales = ", %scale_a: memref<1xf32>, %scale_b: memref<1xf32>" if fp8 else ""
    tiles_m = -(-m // bm)
    if experts:
        scales += f", %map: memref<{tiles_m}xi32>"
    if ranks:
        rs_epilogue = reduce_scatter_views(out, m, n, k, bn, ranks, e, name_)
    else:
        out.append(f"  func.func @{name_}(%a: memref<{m * k}x{e}> {{axe.align = 16 : i64}}, %b: memref<{kb_rows * n}x{e}> {{axe.align = 16 : i64}}, %c: memref<{m * nc}x{o}> {{axe.align = 16 : i64}}{scales}) {{")
    out.append(f"    %A = axe.view %a : memref<{m * k}x{e}> to {ga}")
    out.append(f"    %B = axe.view %b : memref<{kb_rows * n}x{e}> to {gb}")
    if not ranks:
        out.append(f"    %C = axe.view %c : memref<{m * nc}x{o}> to {gc}")
    sg = "!axe.tensor<1x1xf32, global, #axe.layout<(1, 1) : (1, 1)>>"
    if fp8:
        out.append(f"    %SA = axe.view %scale_a : memref<1xf32> to {sg}")
        out.append(f"    %SB = axe.view %scale_b : memref<1xf32> to {sg}")
    out.append(f"    axe.kernel grid [{tiles_m * tiles_n}] threads [256] {{")
    out.append(f"{i6}%cta = axe.unit_id cta")
    out.append(f"{i6}%c0 = arith.constant 0 : index")
    out.append(f"{i6}%cbm = arith.constant {bm} : index")
    out.append(f"{i6}%cbn = arith.constant {bn} : index")
    out.append(f"{i6}%ctn = arith.constant {tiles_n} : index")
    out.append(f"{i6}%kend = arith.constant {loop_end * bk} : index")
    out.append(f"{i6}%kstep = arith.constant {stages * bk} : index")
    raster(out, i6, "%cta", tiles_m, tiles_n, group)
    if ranks:
        # Every device walks the other devices' row tiles first and its own last: the last
        # M / R rows of the walk are rotated onto its own. Its own tiles wait for the peers'
        # partial tiles, which the peers computed first: a tile never waits for a tile of
        # its own device dispatched after it.
        out.append(f"{i6}%rank = axe.device_id")
        out.append(f"{i6}%c1r = arith.constant 1 : index")
        out.append(f"{i6}%ctmr = arith.constant {tiles_m // ranks} : index")
        out.append(f"{i6}%ctm = arith.constant {tiles_m} : index")
        out.append(f"{i6}%rank1 = arith.addi %rank, %c1r : index")
        out.append(f"{i6}%rshift = arith.muli %rank1, %ctmr : index")
        out.append(f"{i6}%bmw = arith.addi %bm, %rshift : index")
        out.append(f"{i6}%bmx = arith.remui %bmw, %ctm : index")
        out.append(f"{i6}%om = arith.muli %bmx, %cbm : index")
    else:
        out.append(f"{i6}%om = arith.muli %bm, %cbm : index")
    out.append(f"{i6}%on = arith.muli %bn, %cbn : index")
    if experts:
        # The row tile's expert (routing data, read at run time) selects B's rows.
        out.append(f"{i6}%e32 = memref.load %map[%bm] : memref<{tiles_m}xi32>")
        out.append(f"{i6}%ex = arith.index_cast %e32 : i32 to index")
        out.append(f"{i6}%ck = arith.constant {k} : index")
        out.append(f"{i6}%eoff = arith.muli %ex, %ck : index")
        # Tiles past the last expert's (the grid is sized for the most tiles the batch can
        # need) are marked -1 in the map: such a CTA does nothing.
        out.append(f"{i6}%cz32 = arith.constant 0 : i32")
        out.append(f"{i6}%used = arith.cmpi sge, %e32, %cz32 : i32")
        out.append(f"{i6}scf.if %used {{")
    for s in range(stages):
        out.append(f"{i6}%sa{s} = axe.alloc : {sa}")
        out.append(f"{i6}%sb{s} = axe.alloc : {sb}")
    out.append(f"{i6}%acc = axe.alloc : {acc}")
    out.append(f"{i6}%z = arith.constant 0.0 : f32")
    out.append(f"{i6}axe.fill %acc, %z : {acc}, f32")
    # The CTA's row band of A and column band of B (sliced per K step in `issue`).
    if not ragged:
        out.append(f"{i6}%arows = axe.slice %A [%om : +{bm}, 0 : {k}] : {ga} to {ar}")
    if not ragged and not experts:
        if fp8:
            out.append(f"{i6}%bcols = axe.slice %B [%on : +{bn}, 0 : {k}] : {gb} to {bc}")
        else:
            out.append(f"{i6}%bcols = axe.slice %B [0 : {k}, %on : +{bn}] : {gb} to {bc}")
    if not overlap:
        toks = []
        for s in range(stages):
            out.append(f"{i6}%kp{s} = arith.constant {s * bk} : index")
            toks.append(issue(f"%kp{s}", s, i6, f"p{s}"))
        iters = ", ".join(f"%la{s} = {a}, %lb{s} = {b}" for s, (a, b) in enumerate(toks))
        types = ", ".join([tok] * (2 * stages))
        out.append(f"{i6}%r:{2 * stages} = scf.for %k = %c0 to %kend step %kstep iter_args({iters}) -> ({types}) {{")
        yields = []
        for s in range(stages):
            compute(s, f"%la{s}", f"%lb{s}", i8)
            out.append(f"{i8}%kn{s} = arith.addi %k, %kp{s} : index")
            out.append(f"{i8}%kf{s} = arith.addi %kn{s}, %kstep : index")
            yields += issue(f"%kf{s}", s, i8, f"l{s}")
        out.append(f"{i8}scf.yield {', '.join(yields)} : {types}")
        out.append(f"{i6}}}")
        cur = {s: (f"%r#{2 * s}", f"%r#{2 * s + 1}") for s in range(stages)}
        for j in range(loop_end, nk):
            s = j % stages
            compute(s, *cur[s], i6)
            if j + stages < nk:
                out.append(f"{i6}%ke{j} = arith.constant {(j + stages) * bk} : index")
                cur[s] = issue(f"%ke{j}", s, i6, f"e{j}")
    else:
        # Step i: wait for stage i % S, start its gemm (async), wait until only that gemm is
        # in flight (the previous one is done with its stage), synchronize the CTA, refill the
        # previous stage with step i + S - 1.
        for s in range(stages - 1):
            out.append(f"{i6}%kp{s} = arith.constant {s * bk} : index")
        for s in range(stages):
            out.append(f"{i6}%ko{s} = arith.constant {(s + stages - 1) * bk} : index")
        toks = [issue(f"%kp{s}", s, i6, f"p{s}") for s in range(stages - 1)]
        if prefetch:
            # Two register buffers per operand for one k16 step's fragments, and step 0 of
            # stage 0.
            fragment_buffers(out, i6, bm, bn, e)
            out.append(f"{i6}axe.wait {toks[0][0]}, {toks[0][1]}")
            fragments(0, 0, 0, i6, "p")
        iters = ", ".join(f"%la{s} = {a}, %lb{s} = {b}" for s, (a, b) in enumerate(toks))
        types = ", ".join([tok] * (2 * (stages - 1)))
        nres = 2 * (stages - 1)
        out.append(f"{i6}%r:{nres} = scf.for %k = %c0 to %kend step %kstep iter_args({iters}) -> ({types}) {{")
        cur = {s: (f"%la{s}", f"%lb{s}") for s in range(stages - 1)}
        for s in range(stages):
            ta, tb = cur[s]
            if release == 2 and s > 0:
                # Refill step s - 1's stage, just released, with step s - 1 + S.
                out.append(f"{i8}%kf{s} = arith.addi %k, %ko{s} : index")
                cur[(s + stages - 1) % stages] = issue(f"%kf{s}", (s + stages - 1) % stages, i8, f"l{s}", f"%rel_l{s - 1}")
                out.append(f"{i8}axe.wait {ta}, {tb}")
                out.append(f"{i8}axe.gemm %sa{s}, %sb{s}, %acc{gemm_attr} : {sa}, {sb}, {acc}")
                if s + 1 < stages:
                    release_point(i8, f"l{s}")  # what step s + 1 refills behind
                continue
            if prefetch:
                # The stage was waited for where its first fragments were loaded.
                prefetched_steps(s, cur[(s + 1) % stages], True, i8, f"l{s}")
            else:
                out.append(f"{i8}axe.wait {ta}, {tb}")
                out.append(f"{i8}%g{s} = axe.gemm async %sa{s}, %sb{s}, %acc{gemm_attr} : {sa}, {sb}, {acc} -> {tok}")
                out.append(f"{i8}axe.wait %g{s} outstanding 1")
            rel = release_point(i8, f"l{s}")
            out.append(f"{i8}%kf{s} = arith.addi %k, %ko{s} : index")
            cur[(s + stages - 1) % stages] = issue(f"%kf{s}", (s + stages - 1) % stages, i8, f"l{s}", rel)
        yields = [t for s in range(stages - 1) for t in cur[s]]
        out.append(f"{i8}scf.yield {', '.join(yields)} : {types}")
        out.append(f"{i6}}}")
        cur = {s: (f"%r#{2 * s}", f"%r#{2 * s + 1}") for s in range(stages - 1)}
        last = None
        for j in range(loop_end, nk):
            s = j % stages
            ta, tb = cur[s]
            if prefetch:
                prefetched_steps(s, cur.get((s + 1) % stages), j + 1 < nk, i6, f"e{j}")
            else:
                out.append(f"{i6}axe.wait {ta}, {tb}")
                out.append(f"{i6}%ge{j} = axe.gemm async %sa{s}, %sb{s}, %acc{gemm_attr} : {sa}, {sb}, {acc} -> {tok}")
                out.append(f"{i6}axe.wait %ge{j} outstanding 1")
                last = f"%ge{j}"
            if j + stages - 1 < nk:
                rel = release_point(i6, f"e{j}")
                out.append(f"{i6}%ke{j} = arith.constant {(j + stages - 1) * bk} : index")
                cur[(j + stages - 1) % stages] = issue(f"%ke{j}", (j + stages - 1) % stages, i6, f"e{j}", rel)
        if last:
            out.append(f"{i6}axe.wait {last}")
    # Epilogue: the per-tensor scales (FP8), the output type, the store.
    res = "%acc"
    if fp8:
        sr = "!axe.tensor<1x1xf32, register, ?>"
        out.append(f"{i6}%sa_r = axe.alloc : {sr}")
        out.append(f"{i6}%sb_r = axe.alloc : {sr}")
        out.append(f"{i6}axe.copy %SA, %sa_r : {sg}, {sr}")
        out.append(f"{i6}axe.copy %SB, %sb_r : {sg}, {sr}")
        out.append(f"{i6}axe.binary mul %sa_r, %sb_r, %sa_r : {sr}, {sr}, {sr}")
        out.append(f"{i6}axe.binary mul %acc, %sa_r, %acc : {acc}, {sr}, {acc}")
    clip = " {clip}" if ragged else ""

    def store(res, res_in, width, col, tag):
        """Casts `res` (f32 registers, `width` columns) to the output type and stores it at
        the tile's rows and columns `col`."""
        if out_type != "f32":
            res_t = f"!axe.tensor<{bm}x{width}x{o}, register, ?>"
            out.append(f"{i6}%res{tag} = axe.alloc : {res_t}")
            out.append(f"{i6}axe.cast {res}, %res{tag} : {res_in}, {res_t}")
            res = f"%res{tag}"
        else:
            res_t = res_in
        ct = f"!axe.tensor<{bm}x{width}x{o}, global, ?>"
        out.append(f"{i6}%ct{tag} = axe.slice %C [%om : +{bm}, {col} : +{width}]{clip} : {gc} to {ct}")
        if tma_store:
            # Through a shared tile, which one TMA store writes out (clipped at the tensor's
            # end by the hardware).
            stage = f"!axe.tensor<{bm}x{width}x{o}, shared, #axe.layout<({bm}, {width}) : ({width}, 1)>>"
            out.append(f"{i6}%st{tag} = axe.alloc : {stage}")
            out.append(f"{i6}axe.copy {res}, %st{tag} : {res_t}, {stage}")
            out.append(f"{i6}axe.copy %st{tag}, %ct{tag} schedule tma : {stage}, {ct}")
        else:
            out.append(f"{i6}axe.copy {res}, %ct{tag} : {res_t}, {ct}")

    if ranks:
        rs_epilogue(out, i6, acc, tiles_m, tiles_n)
    elif swiglu:
        # B's column tile holds pairs of (gate, up) blocks of `swiglu` columns each: per pair,
        # register slices of the accumulator (no data moves), silu(gate) * up, stored at the
        # pair's columns of C (which has half of B's).
        blk = bn // 2 if swiglu is True else swiglu
        assert bn % (2 * blk) == 0
        out.append(f"{i6}%chalf = arith.constant {bn // 2} : index")
        out.append(f"{i6}%onc = arith.muli %bn, %chalf : index")
        for p in range(bn // (2 * blk)):
            hr = swiglu_pair(out, i6, acc, bm, blk, p)
            col = "%onc"
            if p:
                out.append(f"{i6}%cpair{p} = arith.constant {p * blk} : index")
                out.append(f"{i6}%onc{p} = arith.addi %onc, %cpair{p} : index")
                col = f"%onc{p}"
            store(f"%act{p}", hr, blk, col, f"_{p}")
    else:
        store(res, acc, bn, "%on", "")
    if experts:
        out.append(f"{i6}}}")
    out.append("    }")
    if ranks:
        out.append("    }")
    out.append("    return")
    out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"


def swiglu_pair(out, ind, acc, rows, blk, p, by_rows=False):
    """Appends %act{p} = silu(gate) * up for the p-th (gate, up) pair of `blk`-column blocks of
    the f32 accumulator %acc (type `acc`, `rows` rows): register slices of it, so no data
    moves. `by_rows`: the pair is of `blk`-row blocks instead, over `rows` columns (a swapped
    accumulator, W^T X^T). Returns %act{p}'s type."""
    g0 = 2 * p * blk
    if by_rows:
        hr = f"!axe.tensor<{blk}x{rows}xf32, register, ?>"
        gate, up = f"{g0} : {g0 + blk}, 0 : {rows}", f"{g0 + blk} : {g0 + 2 * blk}, 0 : {rows}"
    else:
        hr = f"!axe.tensor<{rows}x{blk}xf32, register, ?>"
        gate, up = f"0 : {rows}, {g0} : {g0 + blk}", f"0 : {rows}, {g0 + blk} : {g0 + 2 * blk}"
    out.append(f"{ind}%gate{p} = axe.slice %acc [{gate}] : {acc} to {hr}")
    out.append(f"{ind}%up{p} = axe.slice %acc [{up}] : {acc} to {hr}")
    out.append(f"{ind}%act{p} = axe.alloc : {hr}")
    out.append(f"{ind}axe.unary silu %gate{p}, %act{p} : {hr}, {hr}")
    out.append(f"{ind}axe.binary mul %act{p}, %up{p}, %act{p} : {hr}, {hr}, {hr}")
    return hr


def add_partial(out, ind, tag, acc, col, co, row, rows, width, tp, e):
    """Appends the adds of one peer's partial tile to the f32 register slice `acc` (`rows` x
    `width`): the P block at rows `row`, columns `col` + `co` (P: the GEMM + reduce-scatter's
    distributed partial tiles, type `tp`, element `e`), local memory read straight into the
    accumulator's layout and converted. `tag` names the new values."""
    b16 = f"!axe.tensor<{rows}x{width}x{e}, register, ?>"
    b32 = f"!axe.tensor<{rows}x{width}xf32, register, ?>"
    gt = f"!axe.tensor<{rows}x{width}x{e}, global, ?>"
    out.append(f"{ind}%pcc{tag} = arith.addi {col}, {co} : index")
    out.append(f"{ind}%part{tag} = axe.slice %P [{row} : +{rows}, %pcc{tag} : +{width}] : {tp} to {gt}")
    out.append(f"{ind}%in{tag} = axe.alloc : {b16}")
    out.append(f"{ind}axe.copy %part{tag}, %in{tag} : {gt}, {b16}")
    out.append(f"{ind}%f{tag} = axe.alloc : {b32}")
    out.append(f"{ind}axe.cast %in{tag}, %f{tag} : {b16}, {b32}")
    out.append(f"{ind}axe.binary add {acc}, %f{tag}, {acc} : {b32}, {b32}, {b32}")


def accumulator_part(out, ind, c, width, acc, part_acc, part=None):
    """Appends %pacc{c}, columns c * width .. (c + 1) * width of the f32 register accumulator
    %acc (type `acc`; the part's type `part_acc`), and with `part` (the output's register
    type) its conversion into a new %part{c}. The epilogues convert each part right before
    it goes out, not the whole tile up front (gen_gemm_ws.py's epilogue says why)."""
    out.append(f"{ind}%pacc{c} = axe.slice %acc [0 : 64, {c * width} : {(c + 1) * width}] : {acc} to {part_acc}")
    if part is not None:
        out.append(f"{ind}%part{c} = axe.alloc : {part}")
        out.append(f"{ind}axe.cast %pacc{c}, %part{c} : {part_acc}, {part}")


def cast_store(out, ind, src, src_ty, reg, reg_ty, dst, dst_ty, view, view_ty, at):
    """Appends the register tensor %{src} converted into a new register tensor %{reg} (type
    `reg_ty`, the output's element type) and stored to %{dst}, the slice `[at]` of the global
    view %{view}."""
    out.append(f"{ind}%{reg} = axe.alloc : {reg_ty}")
    out.append(f"{ind}axe.cast %{src}, %{reg} : {src_ty}, {reg_ty}")
    out.append(f"{ind}%{dst} = axe.slice %{view} [{at}] : {view_ty} to {dst_ty}")
    out.append(f"{ind}axe.copy %{reg}, %{dst} : {reg_ty}, {dst_ty}")


def rs_types(m, n, bn, ranks, e, flag_rows=128, p_blocks=False):
    """The distributed tensors of a GEMM + reduce-scatter (see reduce_scatter_views): P, the
    flags F (one per `flag_rows` rows of a row tile, source and column tile) and Y.
    `p_blocks`: P's slots are stored in 64 x 128 blocks, each contiguous in memory as two
    64 x 64 row-major halves, (64, 2, 64) : (64, 4096, 1), the order of an unswizzled shared
    tile of that layout, so that one 16 KiB bulk copy moves a block."""
    rows, tf_rows, tn = m // ranks, m // flag_rows, n // bn
    tp = f"!axe.tensor<{m}x{ranks * n}x{e}, global, #axe.layout<({ranks}, {rows}, {ranks}, {n}) : (1@gpuid, {n}, {rows * n}, 1)>>"
    if p_blocks:
        assert rows % 64 == 0 and n % 128 == 0
        tp = (f"!axe.tensor<{m}x{ranks * n}x{e}, global, #axe.layout<({ranks}, {rows // 64}, 64, {ranks}, {n // 128}, 2, 64) : "
              f"(1@gpuid, {ranks * n * 64}, 64, {n * 64}, 8192, 4096, 1)>>")
    tf = (f"!axe.tensor<{tf_rows}x{ranks * tn}xi32, global, #axe.layout<({ranks}, {tf_rows // ranks}, {ranks}, {tn}) : "
          f"(1@gpuid, {tn}, {tf_rows // ranks * tn}, 1)>>")
    ty = f"!axe.tensor<{rows}x{n}x{e}, global, #axe.layout<({rows}, {n}) : ({n}, 1)>>"
    return tp, tf, ty


def rs_staging_types(m, n, bn, e, flag_rows):
    """The local views of rs_function's `staging` halves: %QV (2M x N) and %LFV (2 TM x TN)."""
    tm, tn = m // flag_rows, n // bn
    return (f"!axe.tensor<{2 * m}x{n}x{e}, global, #axe.layout<({2 * m}, {n}) : ({n}, 1)>>",
            f"!axe.tensor<{2 * tm}x{tn}xi32, global, #axe.layout<({2 * tm}, {tn}) : ({tn}, 1)>>")


def rs_function(out, m, n, k, bn, ranks, e, name_, flag_rows=128, p_blocks=False, staging=False):
    """Appends the function header, `axe.mesh` and the views %P, %F, %Y of a GEMM +
    reduce-scatter (arguments a, b, p, y, flags, epoch: axe_dist.GemmRs's order); returns the
    views' types. `staging`: p and flags are twice as long, and their second halves are this
    device's local views %QV (2M x N: rows M.. hold its partial tiles for the peers before they
    are sent) and %LFV (2 TM x TN flags: rows TM.. say a partial tile is staged)."""
    tp, tf, ty = rs_types(m, n, bn, ranks, e, flag_rows, p_blocks)
    rows, nflags = m // ranks, (m // flag_rows) * (n // bn)
    x = 2 if staging else 1
    out.append(f"  func.func @{name_}(%a: memref<{m * k}x{e}> {{axe.align = 16 : i64}}, %b: memref<{k * n}x{e}> {{axe.align = 16 : i64}}, "
               f"%p: memref<{x * m * n}x{e}> {{axe.align = 16 : i64}}, %y: memref<{rows * n}x{e}> {{axe.align = 16 : i64}}, "
               f"%flags: memref<{x * nflags}xi32>, %epoch: i32) {{")
    out.append(f"    axe.mesh [{ranks}] {{")
    out.append(f"    %P = axe.view %p : memref<{x * m * n}x{e}> to {tp}")
    out.append(f"    %F = axe.view %flags : memref<{x * nflags}xi32> to {tf}")
    out.append(f"    %Y = axe.view %y : memref<{rows * n}x{e}> to {ty}")
    if staging:
        tqv, tlfv = rs_staging_types(m, n, bn, e, flag_rows)
        out.append(f"    %QV = axe.view %p : memref<{x * m * n}x{e}> to {tqv}")
        out.append(f"    %LFV = axe.view %flags : memref<{x * nflags}xi32> to {tlfv}")
    return tp, tf, ty


def rs_reduce_function(out, m, n, k, bn, ranks, e, name_, flag_rows=64):
    """The function header, `axe.mesh` and views of the GEMM + reduce-scatter that adds partial
    tiles into their owner's rows (gen_gemm_ws.py's REDUCE; arguments a, b, y, flags, epoch):
    Y, M x N distributed by rows ((R, M/R, N) : (1@gpuid, N, 1): each device holds its M/R
    rows, a symmetric buffer), and the flags F as in rs_types. Returns (F's, Y's types)."""
    rows = m // ranks
    _, tf, _ = rs_types(m, n, bn, ranks, e, flag_rows)
    tyd = f"!axe.tensor<{m}x{n}x{e}, global, #axe.layout<({ranks}, {rows}, {n}) : (1@gpuid, {n}, 1)>>"
    nflags = (m // flag_rows) * (n // bn)
    out.append(f"  func.func @{name_}(%a: memref<{m * k}x{e}> {{axe.align = 16 : i64}}, %b: memref<{k * n}x{e}> {{axe.align = 16 : i64}}, "
               f"%y: memref<{rows * n}x{e}> {{axe.align = 16 : i64}}, %flags: memref<{nflags}xi32>, %epoch: i32) {{")
    out.append(f"    axe.mesh [{ranks}] {{")
    out.append(f"    %F = axe.view %flags : memref<{nflags}xi32> to {tf}")
    out.append(f"    %Y = axe.view %y : memref<{rows * n}x{e}> to {tyd}")
    return tf, tyd


def reduce_scatter_views(out, m, n, k, bn, ranks, e, name_):
    """The function, mesh and distributed views of the GEMM + reduce-scatter; returns the
    epilogue writer.

    Device r holds A_r [M, K] and B_r [K, N] (its K slice of the whole product) and owns rows
    r M/R .. (r+1) M/R - 1 of C = sum_r A_r B_r. Symmetric buffers (every device passes its
    own): P, the partial tiles pushed to it — one M/R x N slot per source device — and F, one
    flag per (row tile, source, column tile). As 2-D distributed tensors:
      P: M x (R N),     (R, M/R, R, N)     : (1@gpuid, N, M/R N, 1)
      F: TM x (R TN),   (R, TM/R, R, TN)   : (1@gpuid, TN, TM/R TN, 1)
    so P[row, p N + col] is source p's partial of C[row, col], on the device owning `row`.
    """
    rows, tm, tn = m // ranks, m // 128, n // bn
    tp, tf, ty = rs_function(out, m, n, k, bn, ranks, e, name_)

    def epilogue(out, ind, acc, tiles_m, tiles_n):
        """Own row tile: wait for each peer's partial tile, add it (local reads), store the sum
        in Y. Other rows: push the partial tile to its owner's slot for this device, then
        signal; the push moves 64 columns at a time through one shared tile, so that NVLink
        sees whole 16-byte row pieces rather than the accumulator's 4-byte fragments."""
        i2 = ind + "  "
        # 128-byte rows, swizzled (as wgmma's tiles): the accumulator's fragments write it
        # without bank conflicts.
        st = f"!axe.tensor<128x64x{e}, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>"
        b16 = f"!axe.tensor<128x64x{e}, register, ?>"
        b32 = "!axe.tensor<128x64xf32, register, ?>"
        gt = f"!axe.tensor<128x64x{e}, global, ?>"
        ft = "!axe.tensor<1x1xi32, global, ?>"
        out.append(f"{ind}%stage = axe.alloc : {st}")
        out.append(f"{ind}%cown = arith.constant {tm - tm // ranks} : index")
        out.append(f"{ind}%own = arith.cmpi uge, %bm, %cown : index")
        out.append(f"{ind}%ctn_r = arith.constant {tn} : index")
        out.append(f"{ind}%cn_r = arith.constant {n} : index")
        out.append(f"{ind}%cR = arith.constant {ranks} : index")

        def through_stage(ind, src_regs, dst, tag):
            """Registers (f32) -> f16 -> the shared tile -> the global tile `dst`."""
            out.append(f"{ind}%h{tag} = axe.alloc : {b16}")
            out.append(f"{ind}axe.cast {src_regs}, %h{tag} : {b32}, {b16}")
            out.append(f"{ind}axe.copy %h{tag}, %stage : {b16}, {st}")
            out.append(f"{ind}axe.barrier cta")
            out.append(f"{ind}axe.copy %stage, {dst} : {st}, {gt}")
            out.append(f"{ind}axe.barrier cta")

        out.append(f"{ind}scf.if %own {{")
        for j in range(1, ranks):
            # Source p = (rank + j) mod R: its flag for this tile, then its slot's columns.
            out.append(f"{i2}%cj{j} = arith.constant {j} : index")
            out.append(f"{i2}%pj{j} = arith.addi %rank, %cj{j} : index")
            out.append(f"{i2}%p{j} = arith.remui %pj{j}, %cR : index")
            out.append(f"{i2}%pt{j} = arith.muli %p{j}, %ctn_r : index")
            out.append(f"{i2}%fc{j} = arith.addi %pt{j}, %bn : index")
            out.append(f"{i2}%fl{j} = axe.slice %F [%bmx : +1, %fc{j} : +1] : {tf} to {ft}")
            out.append(f"{i2}axe.signal_wait %fl{j}, %epoch : {ft}, i32")
            out.append(f"{i2}%pn{j} = arith.muli %p{j}, %cn_r : index")
            out.append(f"{i2}%pc{j} = arith.addi %pn{j}, %on : index")
        out.append(f"{i2}%crows = arith.constant {rows} : index")
        out.append(f"{i2}%rbase = arith.muli %rank, %crows : index")
        out.append(f"{i2}%oml = arith.subi %om, %rbase : index")
        for c in range(bn // 64):
            out.append(f"{i2}%acc_o{c} = axe.slice %acc [0 : 128, {c * 64} : {c * 64 + 64}] : {acc} to {b32}")
            out.append(f"{i2}%co{c} = arith.constant {c * 64} : index")
            for j in range(1, ranks):
                add_partial(out, i2, f"{j}_{c}", f"%acc_o{c}", f"%pc{j}", f"%co{c}", "%om", 128, 64, tp, e)
        rt = f"!axe.tensor<128x{bn}x{e}, register, ?>"
        yt = f"!axe.tensor<128x{bn}x{e}, global, ?>"
        cast_store(out, i2, "acc", acc, "sum", rt, "yt", yt, "Y", ty, f"%oml : +128, %on : +{bn}")
        out.append(f"{ind}}} else {{")
        out.append(f"{i2}%rn = arith.muli %rank, %cn_r : index")
        out.append(f"{i2}%rc = arith.addi %rn, %on : index")
        for c in range(bn // 64):
            out.append(f"{i2}%acc_p{c} = axe.slice %acc [0 : 128, {c * 64} : {c * 64 + 64}] : {acc} to {b32}")
            out.append(f"{i2}%cq{c} = arith.constant {c * 64} : index")
            out.append(f"{i2}%rcc{c} = arith.addi %rc, %cq{c} : index")
            out.append(f"{i2}%push{c} = axe.slice %P [%om : +128, %rcc{c} : +64] : {tp} to {gt}")
            through_stage(i2, f"%acc_p{c}", f"%push{c}", f"p{c}")
        out.append(f"{i2}%rt = arith.muli %rank, %ctn_r : index")
        out.append(f"{i2}%rtc = arith.addi %rt, %bn : index")
        out.append(f"{i2}%fo = axe.slice %F [%bmx : +1, %rtc : +1] : {tf} to {ft}")
        out.append(f"{i2}axe.signal %fo, %epoch : {ft}, i32")
        out.append(f"{ind}}}")

    return epilogue


if __name__ == "__main__":
    if sys.argv[1] == "--all":
        for v in VARIANTS + TYPED_VARIANTS + FIGURE10:
            with open(f"{sys.argv[2]}/{name(*v)}.mlir", "w") as f:
                f.write(kernel(*v))
    else:
        args = ([int(a) for a in sys.argv[1:8]] + sys.argv[8:9] + [int(a) for a in sys.argv[9:10]] + sys.argv[10:12]
                + [int(a) for a in sys.argv[12:14]])
        print(kernel(*args), end="")
