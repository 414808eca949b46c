"""A multi-stage TMA + wgmma Axe GEMM for sm_90a: C[M, N] = A[M, K] B[K, N], f16
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

    PYTHONPATH=python python3 -m axe_gen.gemm_tma M N K [BN [S [OVERLAP [GROUP [CHIP [RELEASE [DTYPE [OUT
        [TMA_STORE [PREFETCH]]]]]]]]]] > gemm_MxNxK_tma.mlir
    PYTHONPATH=python python3 -m axe_gen.gemm_tma --all DIR
        (every entry of VARIANTS, TYPED_VARIANTS and FIGURE10, as DIR/<name>.mlir)

GROUP (default 8) row tiles are walked per column tile (L2 reuse); 1 is plain row-major order.
CHIP sm_90 (instead of sm_90a) keeps TMA but computes with ldmatrix + mma.sync. RELEASE 1
replaces the CTA barrier before each refill by `axe.arrive` + `after` (only the issuing thread
waits for the others to be done with the stage); RELEASE 2 (mma.sync) refills each stage as
soon as it is free, one K step further ahead (see `kernel`). PREFETCH 1 (mma.sync, S >= 3) writes each
k16 step's fragments as register tensors loaded one step ahead by ldmatrix copies, across stage
boundaries too (see `kernel`).

The kernel is written through the typed emitter (`axe_gen.emitter`).
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import Any

from .emitter import DTYPES, F32, I32, INDEX, At, Emitter, MemRef, Param, Span, Tensor, Value, row_major
from .gemm_parts import (
    RsTile,
    RsViews,
    fragment_buffers,
    glob,
    k16_fragments,
    raster,
    reduce_scatter_epilogue,
    reg,
    rs_function,
    swiglu_pair,
)

Variant = tuple[Any, ...]

# The variants test/gpu/build.sh generates and axe_bench.kernels runs:
# (M, N, K, BN, S, OVERLAP, GROUP). The 4096^3 ones compare tile width, stages, gemm overlap
# and raster order; then Llama-3.1-8B's and -70B's MLP GEMMs at batch 8192.
VARIANTS: list[Variant] = [
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
TYPED_VARIANTS: list[Variant] = [
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
MODELS: dict[str, tuple[int, int, int, int, int, bool]] = {
    "qwen3-8b": (4096, 32, 8, 128, 12288, True), "qwen3-32b": (5120, 64, 8, 128, 25600, True),
    "llama3.1-8b": (4096, 32, 8, 128, 14336, True), "llama3.1-70b": (8192, 64, 8, 128, 28672, True),
    "llama3.1-405b": (16384, 128, 8, 128, 53248, True), "gemma2-9b": (3584, 16, 8, 256, 14336, True),
    "gemma2-27b": (4608, 32, 16, 128, 36864, True), "gpt3-175b": (12288, 96, 96, 128, 49152, False),
}


def figure10_shapes(m: int = 8192) -> list[tuple[str, str, int, int, int]]:
    """(model, projection, M, N, K) for every model of MODELS."""
    out = []
    for model, (hidden, heads, kv, hd, inter, gated) in MODELS.items():
        out += [(model, "qkv", m, (heads + 2 * kv) * hd, hidden), (model, "o", m, hidden, heads * hd),
                (model, "up", m, (2 if gated else 1) * inter, hidden), (model, "down", m, hidden, inter)]
    return out


def choose(m: int, n: int, k: int, dtype: str = "f16") -> tuple[int, int, int, int, str, int]:
    """The tile heuristic for a shape (documented, not tuned per kernel): 128x256 tiles, 4
    stages, grouped raster of 8, the split release — the fastest combination measured at 4096^3
    and the Llama-3.1 shapes (bench/RESULTS.md) — except that grids of fewer than two waves
    of 132 SMs use 128-wide tiles (twice the CTAs)."""
    bn = 256 if -(-m // 128) * -(-n // 256) >= 2 * 132 else 128
    return bn, 4, 1, 8, "sm_90a", 1


def figure10_variants(dtype: str) -> list[Variant]:
    out_t = "bf16" if dtype != "f16" else "f16"
    return [(m, n, k) + choose(m, n, k, dtype) + (dtype, out_t) for (_, _, m, n, k) in figure10_shapes()]


# Figure 10 in f16 (f16 output) and FP8 e4m3 (bf16 output); gemm_typed.py --figure10 runs them.
FIGURE10 = figure10_variants("f16") + figure10_variants("e4m3")

ELEMENTS = DTYPES  # the element type of each DTYPE / OUT name


def name(m: int, n: int, k: int, bn: int = 128, stages: int = 4, overlap: int = 1, group: int = 8,
         chip: str = "sm_90a", release: int = 0, dtype: str = "f16", out: str = "f32", tma_store: int = 0,
         prefetch: int = 0) -> str:
    return (f"gemm_{m}x{n}x{k}_tma" + ("" if (bn, stages) == (128, 4) else f"_bn{bn}_s{stages}")
            + ("" if overlap else "_sync") + ("" if group == 8 else f"_g{group}")
            + ("" if chip == "sm_90a" else "_mma") + ("_rel" if release == 1 else "_rel2" if release == 2 else "")
            + ("" if dtype == "f16" else f"_{dtype}") + ("" if out == "f32" else f"_o{out}")
            + ("_ts" if tma_store else "") + ("_pf" if prefetch else ""))


def kernel(m: int, n: int, k: int, bn: int = 128, stages: int = 4, overlap: int = 1, group: int = 8,
           chip: str = "sm_90a", release: int = 0, dtype: str = "f16", out: str = "f32", tma_store: int = 0,
           prefetch: int = 0, experts: int = 0, swiglu: bool | int = False, fname: str | None = None,
           ranks: int = 0) -> str:
    """The module (see the module documentation for the positional arguments). `experts` > 0:
    the grouped GEMM of a Mixture-of-Experts layer. B holds one [K, N] matrix per expert,
    stacked ([experts * K, N]), and an `i32` argument `%map` gives, per 128-row tile of A, the
    expert whose B that tile multiplies (the routing step groups each expert's tokens into
    whole tiles). `swiglu`: B's column tiles hold gate and up columns side by side (BN/2 each,
    or pairs of blocks of `swiglu` columns), and the epilogue stores silu(gate) * up: C has N/2
    columns. `ranks` > 0: the GEMM + reduce-scatter of axe_gen.gemm_rs (each of R devices
    multiplies its K slice; C's rows are reduce-scattered over the devices)."""
    fp8 = dtype in ("e4m3", "e5m2")
    assert not (experts and (fp8 or m % 128 or n % bn or k % 64)), "grouped GEMMs: f16, whole tiles"
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
    et, ot = ELEMENTS[dtype], ELEMENTS[out]
    nc = n // 2 if swiglu else n  # C's columns
    kb_rows = k * max(experts, 1)  # B's rows: one K per expert
    tiles_n, tiles_m = -(-n // bn), -(-m // bm)
    # K steps in the loop: each issues step + S (+ S - 1 when overlapping gemms).
    loop_end = (nk - stages) // stages * stages if not overlap else (nk - stages + 1) // stages * stages

    e = Emitter(f"Generated by axe_gen.gemm_tma {m} {n} {k} {bn} {stages} {overlap} {group} {chip} {release} "
                f"{dtype} {out}" + (f" {tma_store} {prefetch}" if tma_store or prefetch else "") + ".")
    swz = (3, 4, 3) if fp8 else (3, 3, 3)
    ga = e.alias("a", row_major(m, k, et))
    gc = e.alias("c", row_major(m, nc, ot))
    ar = e.alias("a_rows", glob((bm, k), et))
    at = e.alias("a_tile", glob((bm, bk), et))
    sa = e.alias("a_stage", Tensor((bm, bk), et, "shared", f"({bm}, {bk}) : ({bk}, 1)", swz))
    if fp8:
        # B is [N, K] (K-major), the gemm reads it transposed.
        gb = e.alias("b", row_major(n, k, et))
        bc = e.alias("b_cols", glob((bn, k), et))
        bt = e.alias("b_tile", glob((bn, bk), et))
        sb = e.alias("b_stage", Tensor((bn, bk), et, "shared", f"({bn}, {bk}) : ({bk}, 1)", swz))
    else:
        gb = e.alias("b", row_major(kb_rows, n, et))
        bc = e.alias("b_cols", glob((k, bn), et))
        bt = e.alias("b_tile", glob((bk, bn), et))
        sb = e.alias("b_stage", Tensor((bk, bn), et, "shared", f"({bk}, {bn // 64}, 64) : (64, {bk * 64}, 1)", swz))
    acc_t = e.alias("acc", reg((bm, bn), F32))
    sg = Tensor((1, 1), F32, "global", "(1, 1) : (1, 1)")

    with contextlib.ExitStack() as stack:
        stack.enter_context(e.module(chip))
        views: RsViews | None = None
        if ranks:
            views = stack.enter_context(rs_function(e, m, n, k, bn, ranks, et, name_))
            a_buf, b_buf, c_buf = views.a, views.b, None
        else:
            params = [Param("a", MemRef(m * k, et), 16), Param("b", MemRef(kb_rows * n, et), 16),
                      Param("c", MemRef(m * nc, ot), 16)]
            if fp8:
                params += [Param("scale_a", MemRef(1, F32)), Param("scale_b", MemRef(1, F32))]
            if experts:
                params.append(Param("map", MemRef(tiles_m, I32)))
            args = stack.enter_context(e.func(name_, params))
            a_buf, b_buf, c_buf = args[0], args[1], args[2]
        A = e.view(a_buf, ga, name="A")
        B = e.view(b_buf, gb, name="B")
        C = e.view(c_buf, gc, name="C") if c_buf is not None else None
        SA = SB = None
        if fp8:
            SA, SB = e.view(args[3], sg, name="SA"), e.view(args[4], sg, name="SB")
        stack.enter_context(e.kernel([tiles_m * tiles_n], [256]))
        cta = e.unit_id("cta", name="cta")
        c0 = e.constant(0, name="c0")
        cbm = e.constant(bm, name="cbm")
        cbn = e.constant(bn, name="cbn")
        ctn = e.constant(tiles_n, name="ctn")
        kend = e.constant(loop_end * bk, name="kend")
        kstep = e.constant(stages * bk, name="kstep")
        bm_v, bn_v = raster(e, cta, tiles_m, tiles_n, group, ctn)
        tile: RsTile | None = None
        if ranks:
            # Every device walks the other devices' row tiles first and its own last: the last
            # M / R rows of the walk are rotated onto its own. Its own tiles wait for the peers'
            # partial tiles, which the peers computed first: a tile never waits for a tile of
            # its own device dispatched after it.
            rank = e.device_id(name="rank")
            c1r = e.constant(1, name="c1r")
            ctmr = e.constant(tiles_m // ranks, name="ctmr")
            ctm = e.constant(tiles_m, name="ctm")
            rank1 = e.addi(rank, c1r, name="rank1")
            rshift = e.muli(rank1, ctmr, name="rshift")
            bmw = e.addi(bm_v, rshift, name="bmw")
            bmx = e.remui(bmw, ctm, name="bmx")
            om = e.muli(bmx, cbm, name="om")
        else:
            om = e.muli(bm_v, cbm, name="om")
        on = e.muli(bn_v, cbn, name="on")
        if ranks:
            tile = RsTile(rank, bm_v, bn_v, bmx, om, on)
        eoff = None
        if experts:
            # The row tile's expert (routing data, read at run time) selects B's rows.
            e32 = e.load(args[3], bm_v, name="e32")
            ex = e.index_cast(e32, INDEX, name="ex")
            ck = e.constant(k, name="ck")
            eoff = e.muli(ex, ck, name="eoff")
            # Tiles past the last expert's (the grid is sized for the most tiles the batch can
            # need) are marked -1 in the map: such a CTA does nothing.
            cz32 = e.constant(0, I32, name="cz32")
            used = e.cmpi("sge", e32, cz32, name="used")
            stack.enter_context(e.if_(used))
        sa_s, sb_s = [], []
        for s in range(stages):
            sa_s.append(e.alloc(sa, name=f"sa{s}"))
            sb_s.append(e.alloc(sb, name=f"sb{s}"))
        acc = e.alloc(acc_t, name="acc")
        z = e.constant(0.0, F32, name="z")
        e.fill(acc, z)
        # The CTA's row band of A and column band of B (sliced per K step in `issue`).
        arows = bcols = None
        if not ragged:
            arows = e.slice(A, [At(om, bm), Span(0, k)], ar, name="arows")
        if not ragged and not experts:
            if fp8:
                bcols = e.slice(B, [At(on, bn), Span(0, k)], bc, name="bcols")
            else:
                bcols = e.slice(B, [Span(0, k), At(on, bn)], bc, name="bcols")

        def issue(kv: Value, s: int, tag: str, after: Value | None = None) -> tuple[Value, Value]:
            # A's tile: a clipped 2-D tile of A (ragged shapes), or a K step of the CTA's row band.
            if ragged:
                a_t = e.slice(A, [At(om, bm), At(kv, bk)], at, name=f"at_{tag}", clip=True)
            else:
                assert arows is not None
                a_t = e.slice(arows, [Span(0, bm), At(kv, bk)], at, name=f"at_{tag}")
            # B's tile: the tile's expert's rows (e K + kv), a clipped 2-D tile, or a K step of
            # the CTA's column band; B is [N, K] for FP8.
            if experts:
                assert eoff is not None
                kb = e.addi(eoff, kv, name=f"kb_{tag}")
                b_t = e.slice(B, [At(kb, bk), At(on, bn)], bt, name=f"bt_{tag}")
            elif ragged and fp8:
                b_t = e.slice(B, [At(on, bn), At(kv, bk)], bt, name=f"bt_{tag}", clip=True)
            elif ragged:
                b_t = e.slice(B, [At(kv, bk), At(on, bn)], bt, name=f"bt_{tag}", clip=True)
            elif fp8:
                assert bcols is not None
                b_t = e.slice(bcols, [Span(0, bn), At(kv, bk)], bt, name=f"bt_{tag}")
            else:
                assert bcols is not None
                b_t = e.slice(bcols, [At(kv, bk), Span(0, bn)], bt, name=f"bt_{tag}")
            return (e.copy_async(a_t, sa_s[s], schedule="tma", after=after, name=f"ta_{tag}"),
                    e.copy_async(b_t, sb_s[s], schedule="tma", after=after, name=f"tb_{tag}"))

        def release_point(tag: str) -> Value | None:
            """Before refilling a stage: a CTA barrier, or (release) every thread's arrival that
            only the issuing thread waits for."""
            if release:
                return e.arrive(name=f"rel_{tag}")
            e.barrier("cta")
            return None

        def compute(s: int, ta: Value, tb: Value) -> None:
            e.wait(ta, tb)
            e.gemm(sa_s[s], sb_s[s], acc, transpose_b=fp8)
            e.barrier("cta")

        frag_a: list[Value] = []
        frag_b: list[Value] = []

        def fragments(s: int, step: int, f: int, tag: str) -> None:
            """PREFETCH: loads k16 step `step` of stage `s` into fragment buffers `f`."""
            k16_fragments(e, sa_s[s], sb_s[s], bm, bn, et, swz, step, frag_a[f], frag_b[f], tag)

        def prefetched_steps(s: int, next_tokens: tuple[Value, Value] | None, more: bool, tag: str) -> None:
            """PREFETCH: the stage's four k16 gemms on register fragments, each step's fragments
            loaded before the previous step's gemm; before the last gemm, (if `more`) the wait
            for the next stage and its first fragments. Stage steps alternate buffers 0, 1, 0, 1."""
            steps = bk // 16
            for j in range(steps):
                if j + 1 < steps:
                    fragments(s, j + 1, (j + 1) % 2, f"{tag}_{j + 1}")
                elif more:
                    assert next_tokens is not None
                    e.wait(*next_tokens)
                    fragments((s + 1) % stages, 0, 0, f"{tag}_n")
                e.gemm(frag_a[j % 2], frag_b[j % 2], acc)

        if not overlap:
            toks, kp = [], []
            for s in range(stages):
                kp.append(e.constant(s * bk, name=f"kp{s}"))
                toks.append(issue(kp[s], s, f"p{s}"))
            inits = [t for pair in toks for t in pair]
            names = [f"l{ab}{s}" for s in range(stages) for ab in "ab"]
            with e.for_(c0, kend, kstep, inits, iv="k", args=names, name="r", packed=True) as loop:
                yields: list[Value] = []
                for s in range(stages):
                    compute(s, loop.args[2 * s], loop.args[2 * s + 1])
                    kn = e.addi(loop.iv, kp[s], name=f"kn{s}")
                    kf = e.addi(kn, kstep, name=f"kf{s}")
                    yields += issue(kf, s, f"l{s}")
                loop.yield_(*yields)
            cur = {s: (loop.results[2 * s], loop.results[2 * s + 1]) for s in range(stages)}
            for j in range(loop_end, nk):
                s = j % stages
                compute(s, *cur[s])
                if j + stages < nk:
                    ke = e.constant((j + stages) * bk, name=f"ke{j}")
                    cur[s] = issue(ke, s, f"e{j}")
        else:
            # Step i: wait for stage i % S, start its gemm (async), wait until only that gemm is
            # in flight (the previous one is done with its stage), synchronize the CTA, refill
            # the previous stage with step i + S - 1.
            kp = [e.constant(s * bk, name=f"kp{s}") for s in range(stages - 1)]
            ko = [e.constant((s + stages - 1) * bk, name=f"ko{s}") for s in range(stages)]
            toks = [issue(kp[s], s, f"p{s}") for s in range(stages - 1)]
            if prefetch:
                # Two register buffers per operand for one k16 step's fragments, and step 0 of
                # stage 0.
                frag_a, frag_b = fragment_buffers(e, bm, bn, et)
                e.wait(*toks[0])
                fragments(0, 0, 0, "p")
            inits = [t for pair in toks for t in pair]
            names = [f"l{ab}{s}" for s in range(stages - 1) for ab in "ab"]
            with e.for_(c0, kend, kstep, inits, iv="k", args=names, name="r", packed=True) as loop:
                cur = {s: (loop.args[2 * s], loop.args[2 * s + 1]) for s in range(stages - 1)}
                rels: dict[int, Value | None] = {}
                for s in range(stages):
                    ta, tb = cur[s]
                    if release == 2 and s > 0:
                        # Refill step s - 1's stage, just released, with step s - 1 + S.
                        kf = e.addi(loop.iv, ko[s], name=f"kf{s}")
                        cur[(s + stages - 1) % stages] = issue(kf, (s + stages - 1) % stages, f"l{s}", rels[s - 1])
                        e.wait(ta, tb)
                        e.gemm(sa_s[s], sb_s[s], acc, transpose_b=fp8)
                        if s + 1 < stages:
                            rels[s] = release_point(f"l{s}")  # what step s + 1 refills behind
                        continue
                    if prefetch:
                        # The stage was waited for where its first fragments were loaded.
                        prefetched_steps(s, cur[(s + 1) % stages], True, f"l{s}")
                    else:
                        e.wait(ta, tb)
                        g = e.gemm_async(sa_s[s], sb_s[s], acc, transpose_b=fp8, name=f"g{s}")
                        e.wait(g, outstanding=1)
                    rels[s] = rel = release_point(f"l{s}")
                    kf = e.addi(loop.iv, ko[s], name=f"kf{s}")
                    cur[(s + stages - 1) % stages] = issue(kf, (s + stages - 1) % stages, f"l{s}", rel)
                loop.yield_(*[t for s in range(stages - 1) for t in cur[s]])
            cur = {s: (loop.results[2 * s], loop.results[2 * s + 1]) for s in range(stages - 1)}
            last = None
            for j in range(loop_end, nk):
                s = j % stages
                if prefetch:
                    prefetched_steps(s, cur.get((s + 1) % stages), j + 1 < nk, f"e{j}")
                else:
                    e.wait(*cur[s])
                    last = e.gemm_async(sa_s[s], sb_s[s], acc, transpose_b=fp8, name=f"ge{j}")
                    e.wait(last, outstanding=1)
                if j + stages - 1 < nk:
                    rel = release_point(f"e{j}")
                    ke = e.constant((j + stages - 1) * bk, name=f"ke{j}")
                    cur[(j + stages - 1) % stages] = issue(ke, (j + stages - 1) % stages, f"e{j}", rel)
            if last is not None:
                e.wait(last)
        # Epilogue: the per-tensor scales (FP8), the output type, the store.
        if fp8:
            assert SA is not None and SB is not None
            sr = reg((1, 1), F32)
            sa_r = e.alloc(sr, name="sa_r")
            sb_r = e.alloc(sr, name="sb_r")
            e.copy(SA, sa_r)
            e.copy(SB, sb_r)
            e.binary("mul", sa_r, sb_r, sa_r)
            e.binary("mul", acc, sa_r, acc)

        def store(res: Value, width: int, col: Value, tag: str) -> None:
            """Casts `res` (f32 registers, `width` columns) to the output type and stores it
            at the tile's rows and columns `col`."""
            assert C is not None
            if ot != F32:
                r = e.alloc(reg((bm, width), ot), name=f"res{tag}")
                e.cast(res, r)
                res = r
            ct = e.slice(C, [At(om, bm), At(col, width)], glob((bm, width), ot), name=f"ct{tag}", clip=ragged)
            if tma_store:
                # Through a shared tile, which one TMA store writes out (clipped at the
                # tensor's end by the hardware).
                st = e.alloc(Tensor((bm, width), ot, "shared", f"({bm}, {width}) : ({width}, 1)"), name=f"st{tag}")
                e.copy(res, st)
                e.copy(st, ct, schedule="tma")
            else:
                e.copy(res, ct)

        if ranks:
            assert views is not None and tile is not None
            reduce_scatter_epilogue(e, views, m, n, bn, ranks, et, acc, tile)
        elif swiglu:
            # B's column tile holds pairs of (gate, up) blocks of `swiglu` columns each: per
            # pair, register slices of the accumulator (no data moves), silu(gate) * up, stored
            # at the pair's columns of C (which has half of B's).
            blk = bn // 2 if swiglu is True else int(swiglu)
            assert bn % (2 * blk) == 0
            chalf = e.constant(bn // 2, name="chalf")
            onc = e.muli(bn_v, chalf, name="onc")
            for p in range(bn // (2 * blk)):
                act = swiglu_pair(e, acc, bm, blk, p)
                col = onc
                if p:
                    cpair = e.constant(p * blk, name=f"cpair{p}")
                    col = e.addi(onc, cpair, name=f"onc{p}")
                store(act, blk, col, f"_{p}")
        else:
            store(acc, bn, on, "")
    return e.text()


def _positional(argv: list[str]) -> list[Any]:
    """The old command line's positional arguments: M N K BN S OVERLAP GROUP are integers, CHIP
    a string, RELEASE an integer, DTYPE OUT strings, TMA_STORE PREFETCH integers."""
    return ([int(a) for a in argv[0:7]] + argv[7:8] + [int(a) for a in argv[8:9]] + argv[9:11]
            + [int(a) for a in argv[11:13]])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--all", metavar="DIR", help="write every VARIANTS, TYPED_VARIANTS and FIGURE10 entry into DIR")
    ap.add_argument("params", nargs="*", help="M N K [BN [S [OVERLAP [GROUP [CHIP [RELEASE [DTYPE [OUT "
                                              "[TMA_STORE [PREFETCH]]]]]]]]]]")
    args = ap.parse_args(argv)
    if args.all:
        for v in VARIANTS + TYPED_VARIANTS + FIGURE10:
            with open(os.path.join(args.all, f"{name(*v)}.mlir"), "w") as f:
                f.write(kernel(*v))
        return
    if len(args.params) < 3:
        ap.error("M N K required")
    sys.stdout.write(kernel(*_positional(args.params)))


if __name__ == "__main__":
    main()
