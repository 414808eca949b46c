"""The fused FP16 Mixture-of-Experts layer of the Axe paper's §4.2, for any model
configuration (`axe_gen.moe.MoEConfig`: hidden size H, expert intermediate size I, experts, top-k,
shared experts), as ONE warp-specialized, persistent Axe kernel that runs both grouped GEMMs,
with a tile-level pipeline between them:

  phase 1 (GEMM1):  H[rows, I]  = silu(X[rows, H] W1_gate[e]) * (X W1_up[e])
  phase 2 (GEMM2):  Y[rows, H] = H[rows, I] W2[e]

`rows` are the token-expert assignments grouped by expert, each expert's group padded to whole
row tiles (128 rows; BR in the swapped orientation below: the routing step, test/gpu/moe.py); `%map` gives each row tile's expert and
`%used` the number of row tiles in use (run-time data: the grid is sized once per batch size).
W1's columns alternate 64 gate and 64 up columns (`axe_gen.moe.SWIGLU_BLOCK`), so every column tile
holds whole (gate, up) pairs.

The roles are Axe scopes of a 384-thread CTA, as in axe_gen.gemm_ws: a producer warp issuing TMA
copies into S shared stages (full / empty mbarriers), two consumer warpgroups running async
wgmma on 64 rows each. A tile's K steps (64 columns each) run in rounds of S, one per stage;
where S does not divide them (I = 1408: 22 steps) a last, partial round uses the first stages
only, and each stage's barrier parity counts its own uses. Every CTA walks the tiles t = cta, cta + grid, ... of one sequence: the
phase-1 tiles (row tile, column tile of W1; row-major, so the column tiles of one row tile run
side by side and share its A rows in L2), then the phase-2 tiles. The pipeline between the
phases is per tile, in Axe IR:
  * a phase-1 consumer warpgroup stores its 64 rows of H (swapped: its 64 columns of H), then
    `axe.signal`s its flag F[row tile, 2 c + w] (release: its stores are visible to whoever
    acquires the flag);
  * the phase-2 producer, before the TMA copies of a round of S K steps of H, `axe.signal_wait`s
    on the flags of the phase-1 tiles that wrote those H columns, all at once (acquire, then a
    proxy fence: TMA reads what the generic stores wrote). A phase-2 tile thus starts as soon
    as the H columns it reads exist, not after a kernel boundary.
No deadlock: every CTA finishes its phase-1 tiles, which wait for nothing, before any phase-2
tile, so every flag a phase-2 tile waits for is eventually set -- provided every CTA of the
grid is resident at once (a phase-2 tile may wait on a tile of any other CTA). The grid is one
CTA per SM of an H100/H200 (SMS), and the kernel is declared `cooperative`: its manifest says
so and axe_runtime launches it cooperatively, which the driver refuses with an error, instead of
a hang, where the grid does not fit (fewer SMs, MPS limits, other resident kernels). Flags hold the launch's `%epoch` (the caller zeroes
them, or changes the epoch, between launches).

PHASES: "fused" (both phases, the layer), "up" (phase 1 only, no flags) or "down" (phase 2
only, no waits): "up" then "down" is the same code as two kernels, the ablation that shows what
the pipeline between them gains.

SWAPPED ORIENTATION (`kernel(..., swap=BR)`), for small batches: each expert has only a few
rows there, and a 128-row tile is mostly padding (wgmma's M is 64 per warpgroup). Swapped, the
weights are wgmma's M and the tokens its N: a tile is BR rows (BR = 8, 16 or 32) x 256 weight
columns, each consumer warpgroup computing C^T = W^T X^T for 128 of the columns,
`axe.gemm ... {transpose_a, transpose_b}` on the same stages (the weight tile read M-major, the
token tile K-major). GEMM1's accumulator rows 0-63 / 64-127 are a (gate, up) pair of W1's
64-column blocks, so SwiGLU is a pair of register row slices; H and Y are stored through
column-major views of their buffers (`%HT`, `%YT`). Every PHASES form exists swapped too.

The kernel is written through the typed emitter (`axe_gen.emitter`).

    PYTHONPATH=python python3 -m axe_gen.moe_ws DIR [--model NAME] [--all] [T ...]
        (default: Qwen3-30B-A3B, the paper's token counts; the kernels of moe.schedule's
        choice per count, or with --all every PHASES kernel and their swapped forms for every
        SWAP_ROWS)
"""
from __future__ import annotations

import argparse
import dataclasses
import os
from collections.abc import Callable

from . import moe
from .emitter import F16, F32, I1, I32, INDEX, At, Emitter, MemRef, Param, Span, Tensor, Value, row_major
from .gemm_parts import cast_store, swiglu_pair
from .moe import MoEConfig

BK = 64
SWIGLU_BLOCK = moe.SWIGLU_BLOCK
STAGES = 4
SMS = moe.SMS  # one resident CTA per SM (the no-deadlock argument above)
PRODUCER_REGS, CONSUMER_REGS = 40, 232
PHASES = ("fused", "up", "down")
# The swapped orientation: weight tiles 256 columns wide (each consumer warpgroup 128 of them),
# row tiles of SWAP_ROWS rows (wgmma's N: a multiple of 8).
SWAP_BN = moe.SWAP_BN
SWAP_ROWS = moe.SWAP_ROWS  # one list: moe sizes the gather's and combine's buffers by it
SWIZZLE_128B = (3, 3, 3)  # the 128-byte swizzle of 16-bit rows (wgmma's and TMA's)
STORE_COLUMNS = 128  # the TMA-store tile's columns (256-byte f16 rows)


def tile_width(t: int) -> int:
    """Column tile width, both phases (they share the shared-memory stages): 128 for small
    batches (twice the tiles to stream the experts' weights with, the bottleneck there), 256
    from 256 tokens up (half the reloads of A). $AXE_MOE_BN overrides it (for sweeps; the
    runner reads the same variable, so kernels and workspace agree)."""
    return int(os.environ.get("AXE_MOE_BN", 0)) or moe.tile_width(t)


def name(cfg: MoEConfig, t: int, phases: str = "fused", swap: int | None = None, consumers: int = 2) -> str:
    return moe.kernel_name(cfg, f"ws_{phases}" + (f"_swap{swap}" if swap else "")
                           + ("_c1" if consumers == 1 else ""), t)


def column_tile(t: int, swap: int | None, consumers: int = 2) -> int:
    """The column tile: SWAP_BN in the swapped orientation (one (gate, up) pair of W1 per
    consumer warpgroup: half of it with one consumer), else tile_width(t)."""
    return (SWAP_BN * consumers // 2) if swap else tile_width(t)


def flag_count(cfg: MoEConfig, t: int, swap: int | None = None, consumers: int = 2) -> int:
    """The flags a launch for T tokens uses (the caller's zeroed buffer): one per row tile,
    phase-1 column tile and consumer warpgroup, padded to whole phase-2 rounds per row."""
    bn = column_tile(t, swap, consumers)
    nf = consumers * (2 * cfg.inter // bn)
    round_flags = consumers * STAGES // (bn // 2 // BK)
    return moe.max_tiles(cfg, t, swap or moe.BM) * (-(-nf // round_flags) * round_flags)


@dataclasses.dataclass(frozen=True)
class TileAt:
    """Where a CTA's walk is: `it` (its earlier tiles of the phase), the row and column tile,
    their first row and column, and the first row of the tile's expert in B."""

    it: Value
    rt: Value
    ct: Value
    om: Value
    on: Value
    eoff: Value


def kernel(cfg: MoEConfig, t: int, phases: str = "fused", bn: int | None = None, stages: int = STAGES,
           sms: int = SMS, fname: str | None = None, swap: int | None = None, consumers: int = 2) -> str:
    """The layer's persistent kernel for T tokens of model `cfg` (module documentation).
    `swap=BR`: the swapped orientation with BR-row tiles. `consumers=1` (swapped only): one
    consumer warpgroup and 128-column weight tiles (one (gate, up) pair), twice the tiles of
    the two-consumer kernel: more CTAs streaming weights where the batch has few tiles."""
    cfg.check()
    HIDDEN, INTER, EXPERTS = cfg.hidden, cfg.inter, cfg.n_experts
    bn = bn or column_tile(t, swap, consumers)
    if phases not in PHASES or bn % (2 * SWIGLU_BLOCK) or (bn // 2) % BK:
        raise ValueError(f"phases {phases!r} (one of {PHASES}), column tile {bn} (whole (gate, up) pairs)")
    if swap is not None and (bn != column_tile(t, swap, consumers) or swap not in SWAP_ROWS):
        raise ValueError(f"swapped row tile {swap} (one of {SWAP_ROWS}) with column tile {bn}")
    if not (consumers == 2 or (consumers == 1 and swap)):
        raise ValueError("one consumer warpgroup: swapped tiles only")
    wcols = bn // consumers  # a consumer warpgroup's weight columns (swapped)
    run1, run2, flags = phases != "down", phases != "up", phases == "fused"
    BM = swap or moe.BM  # the row tile: the tokens' side
    tiles_m = moe.max_tiles(cfg, t, BM)
    rows = tiles_m * BM
    n1, n2 = 2 * INTER, HIDDEN  # B's columns: W1 (gate and up), W2
    tn1, tn2 = n1 // bn, n2 // bn
    # K steps per tile in rounds of `stages` (one per stage) and a partial last round of rem
    # steps; a stage's uses per tile of a phase: uses[s].
    rounds1, rem1 = divmod(HIDDEN // BK, stages)
    rounds2, rem2 = divmod(INTER // BK, stages)
    if not (rounds1 and rounds2):
        raise ValueError(f"fewer K steps than {stages} stages")
    uses1 = [rounds1 + (s < rem1) for s in range(stages)]
    uses2 = [rounds2 + (s < rem2) for s in range(stages)]
    hb = bn // 2  # H columns one phase-1 tile writes
    steps_per_h = hb // BK  # phase-2 K steps per phase-1 column tile
    if stages % steps_per_h:
        raise ValueError(f"{stages} stages do not read whole column tiles of {hb} H columns")
    nf = consumers * tn1  # flags per row tile: one per phase-1 column tile and consumer warpgroup
    round_flags = consumers * stages // steps_per_h  # the flags of the H columns one phase-2 round reads
    # A row tile's flags, padded to whole rounds: a round's wait is a slice of round_flags at a
    # run-time origin, which must divide the row (the padding flags are never waited for).
    nf_row = -(-nf // round_flags) * round_flags
    grid = min(sms, tiles_m * (tn1 + tn2))

    e = Emitter(f"Generated by axe_gen.moe_ws: the MoE layer for {t} tokens, {phases}, {bn}-wide tiles.")
    gx = e.alias("x", row_major(rows, HIDDEN, F16))
    gw1 = e.alias("w1", row_major(EXPERTS * HIDDEN, n1, F16))
    gh = e.alias("h", row_major(rows, INTER, F16))
    gw2 = e.alias("w2", row_major(EXPERTS * INTER, n2, F16))
    gy = e.alias("y", row_major(rows, HIDDEN, F16))
    gf = e.alias("flags", Tensor((tiles_m, nf_row), I32, "global", f"({tiles_m}, {nf_row}) : ({nf_row}, 1)"))
    ft = e.alias("flag", Tensor((1, 1), I32, "global"))
    at = e.alias("a_tile", Tensor((BM, BK), F16, "global"))
    bt = e.alias("b_tile", Tensor((BK, bn), F16, "global"))
    sa = e.alias("a_stage", Tensor((BM, BK), F16, "shared", f"({BM}, {BK}) : ({BK}, 1)", SWIZZLE_128B))
    sah = e.alias("a_half", Tensor((64, BK), F16, "shared", None, SWIZZLE_128B))
    sb = e.alias("b_stage", Tensor((BK, bn), F16, "shared", f"({BK}, {bn // 64}, 64) : (64, {BK * 64}, 1)",
                                   SWIZZLE_128B))
    sbh = e.alias("b_half", Tensor((BK, wcols), F16, "shared", None, SWIZZLE_128B))
    # A consumer warpgroup's accumulator: 64 rows x the tile's columns, or (swapped) its half of
    # the weight tile's columns x the tile's rows.
    acc_t = e.alias("acc", Tensor((wcols, BM), F32, "register") if swap else Tensor((64, bn), F32, "register"))
    # The epilogue's shared tile for Y's TMA stores (two 64-column swizzled halves).
    stage_t = e.alias("store_stage", Tensor((64, STORE_COLUMNS), F16, "shared", f"(64, 2, 64) : (64, {64 * 64}, 1)",
                                            SWIZZLE_128B))
    ght = gyt = None
    if swap:
        # H and Y seen transposed (column-major views of the same buffers): the swapped
        # accumulators hold (column, row) tiles of them.
        ght = e.alias("h_t", Tensor((INTER, rows), F16, "global", f"({INTER}, {rows}) : (1, {INTER})"))
        gyt = e.alias("y_t", Tensor((HIDDEN, rows), F16, "global", f"({HIDDEN}, {rows}) : (1, {HIDDEN})"))

    params = [Param("x", MemRef(rows * HIDDEN, F16), 16), Param("w1", MemRef(EXPERTS * HIDDEN * n1, F16), 16),
              Param("h", MemRef(rows * INTER, F16), 16), Param("w2", MemRef(EXPERTS * INTER * n2, F16), 16),
              Param("y", MemRef(rows * HIDDEN, F16), 16), Param("map", MemRef(tiles_m, I32)),
              Param("used", MemRef(1, I32)), Param("flags", MemRef(tiles_m * nf_row, I32)), Param("epoch", I32)]
    with e.module("sm_90a"), e.func(fname or name(cfg, t, phases, swap), params) as args:
        x, w1, h, w2, y, tile_map, used, flag_buf, epoch = args
        X, W1, H = e.view(x, gx, name="X"), e.view(w1, gw1, name="W1"), e.view(h, gh, name="H")
        W2, Y, F = e.view(w2, gw2, name="W2"), e.view(y, gy, name="Y"), e.view(flag_buf, gf, name="F")
        HT = YT = None
        if ght is not None and gyt is not None:
            HT, YT = e.view(h, ght, name="HT"), e.view(y, gyt, name="YT")
        # The fused kernel's CTAs wait on each other's flags: every CTA must be resident at once.
        with e.kernel([grid], [128 * (1 + consumers)], cooperative=flags):
            cta = e.unit_id("cta", name="cta")
            c0, c1 = e.constant(0, name="c0"), e.constant(1, name="c1")
            cbm, cbn = e.constant(BM, name="cbm"), e.constant(bn, name="cbn")
            ctn1, ctn2 = e.constant(tn1, name="ctn1"), e.constant(tn2, name="ctn2")
            cgrid = e.constant(grid, name="cgrid")
            crounds1, crounds2 = e.constant(rounds1, name="crounds1"), e.constant(rounds2, name="crounds2")
            chid, cint = e.constant(HIDDEN, name="chid"), e.constant(INTER, name="cint")
            true = e.constant(1, I1, name="true")
            # The walk: U row tiles in use (run-time), phase-1 tiles [0, T1), phase-2 tiles [T1, T1 + T2).
            u = e.index_cast(e.load(used, c0, name="u32"), INDEX, name="u")
            t1 = e.muli(u, ctn1, name="t1") if run1 else e.constant(0, name="t1")
            t2 = e.muli(u, ctn2, name="t2") if run2 else e.constant(0, name="t2")
            tall = e.addi(t1, t2, name="tall")
            # n1: this CTA's phase-1 tiles, ceil((T1 - cta) / grid) (0 past T1); its first phase-2
            # tile continues its walk at cta + n1 * grid.
            d1 = e.subi(e.maxui(t1, cta, name="t1m"), cta, name="d1")
            d1r = e.addi(d1, e.constant(grid - 1, name="cgm1"), name="d1r")
            n1_tiles = e.divui(d1r, cgrid, name="n1")
            start2 = e.addi(cta, e.muli(n1_tiles, cgrid, name="n1g"), name="start2")
            stage_a, stage_b = [], []
            for s in range(stages):
                stage_a.append(e.alloc(sa, name=f"sa{s}"))
                stage_b.append(e.alloc(sb, name=f"sb{s}"))
            full, empty = [], []
            for s in range(stages):
                full.append(e.mbarrier(2, name=f"full{s}"))
                empty.append(e.mbarrier(128 * consumers, name=f"empty{s}"))

            def walk(phase: int, body: Callable[[TileAt], None]) -> None:
                """The CTA's tiles of `phase`, each given to `body`."""
                lo, hi = (cta, t1) if phase == 1 else (start2, tall)
                with e.for_(lo, hi, cgrid, iv="t") as loop:
                    it = e.divui(e.subi(loop.iv, lo, name="tl"), cgrid, name="it")
                    tn = ctn1 if phase == 1 else ctn2
                    local = loop.iv if phase == 1 else e.subi(loop.iv, t1, name="tp")
                    rt, ct = e.divui(local, tn, name="rt"), e.remui(local, tn, name="ct")
                    om, on = e.muli(rt, cbm, name="om"), e.muli(ct, cbn, name="on")
                    ex = e.index_cast(e.load(tile_map, rt, name="e32"), INDEX, name="ex")
                    eoff = e.muli(ex, chid if phase == 1 else cint, name="eoff")
                    body(TileAt(it, rt, ct, om, on, eoff))

            def parities(phase: int, tile: TileAt, r: Value, sfx: str) -> list[Value]:
                """The parity of each stage's current use, for a round `r` of the tile of
                `phase`: stage s's use g = it uses1[s] + r in phase 1, and n1 uses1[s] +
                it uses2[s] + r in phase 2 (the barrier phases continue across the phases,
                after the CTA's n1 phase-1 tiles). One value per distinct count."""
                seen: dict[tuple[int, ...], Value] = {}
                out = []
                for s in range(stages):
                    key = (uses1[s],) if phase == 1 else (uses1[s], uses2[s])
                    if key not in seen:
                        v = f"{len(seen)}{sfx}"
                        g = e.muli(tile.it, e.constant(key[-1], name=f"cu{v}"), name=f"g0_{v}")
                        if phase == 2:
                            g = e.addi(g, e.muli(n1_tiles, e.constant(key[0], name=f"cb{v}"), name=f"gb0_{v}"), name=f"g1_{v}")
                        g = e.addi(g, r, name=f"g_{v}")
                        seen[key] = e.cmpi("ne", e.andi(g, c1, name=f"gb_{v}"), c0, name=f"pf_{v}")
                    out.append(seen[key])
                return out

            def rounds(phase: int, tile: TileAt, round_: Callable[[TileAt, Value, int, bool], None]) -> None:
                """The tile's K: full rounds of the stages in a loop, then the partial one."""
                count, rem = (crounds1, rem1) if phase == 1 else (crounds2, rem2)
                with e.for_(c0, count, c1, iv="r") as loop:
                    round_(tile, loop.iv, stages, False)
                if rem:
                    round_(tile, e.constant(rounds1 if phase == 1 else rounds2, name="rlast"), rem, True)

            def produce(phase: int) -> Callable[[TileAt], None]:
                A, ga, B, gb = (X, gx, W1, gw1) if phase == 1 else (H, gh, W2, gw2)

                def round_(tile: TileAt, r: Value, nst: int, partial: bool) -> None:
                    """The TMA copies of `nst` stages for round `r` (K steps S r .. S r + nst - 1)."""
                    sfx = "_t" if partial else ""
                    pfs = parities(phase, tile, r, sfx)
                    k0 = e.muli(r, e.constant(stages * BK, name=f"cstep{sfx}"), name=f"k0{sfx}")
                    if phase == 2 and flags:
                        # This round reads H's columns [S BK r, S BK r + nst BK): phase-1 column
                        # tiles S BK r / (BN / 2) on, whose flags (one per tile and consumer
                        # warpgroup) are the row's flags [rf r, rf r + nf_r). One wait watches all.
                        if not partial:
                            frt = Tensor((1, round_flags), I32, "global")
                            f0 = e.muli(r, e.constant(round_flags, name="crf"), name="f0")
                            e.signal_wait(e.slice(F, [At(tile.rt, 1), At(f0, round_flags)], frt, name="flr"), epoch)
                        else:
                            # The partial round's flags, a column tile's at a time: a window at a
                            # run-time row must have a width that divides the row, which that does.
                            frt = Tensor((1, consumers), I32, "global")
                            for p in range(nst // steps_per_h):
                                cfl = e.constant(rounds2 * round_flags + consumers * p, name=f"cfl{p}{sfx}")
                                flr = e.slice(F, [At(tile.rt, 1), At(cfl, consumers)], frt, name=f"flr{p}{sfx}")
                                e.signal_wait(flr, epoch)
                    for s in range(nst):
                        e.mbarrier_wait(empty[s], e.xori(pfs[s], true, name=f"pe{s}{sfx}"))
                        k = k0 if not s else e.addi(k0, e.constant(s * BK, name=f"ko{s}{sfx}"), name=f"k{s}{sfx}")
                        a_src = e.slice(A, [At(tile.om, BM), At(k, BK)], at, name=f"at{s}{sfx}")
                        kb = e.addi(tile.eoff, k, name=f"kb{s}{sfx}")
                        b_src = e.slice(B, [At(kb, BK), At(tile.on, bn)], bt, name=f"bt{s}{sfx}")
                        e.copy(a_src, stage_a[s], schedule="tma", barrier=full[s])
                        e.copy(b_src, stage_b[s], schedule="tma", barrier=full[s])

                return lambda tile: rounds(phase, tile, round_)

            # Producer.
            with e.scope("warpgroup", 0, 1):
                e.set_max_registers(PRODUCER_REGS)
                with e.scope("warp", 0, 1):
                    if run1:
                        walk(1, produce(1))
                    if run2:
                        walk(2, produce(2))

            # Consumers: warpgroup 1 computes rows 0-63 of every tile, warpgroup 2 rows 64-127
            # (swapped: warpgroup w the weight columns [(w - 1) BN / 2, w BN / 2) of every tile,
            # for all its rows).
            for w in range(1, consumers + 1):
                with e.scope("warpgroup", w, w + 1):
                    e.set_max_registers(CONSUMER_REGS)
                    row0, col0 = (w - 1) * 64, (w - 1) * wcols
                    if swap:
                        halves = [e.slice(stage_b[s], [Span(0, BK), Span(col0, col0 + wcols)], sbh, name=f"sh{s}")
                                  for s in range(stages)]
                    else:
                        halves = [e.slice(stage_a[s], [Span(row0, row0 + 64), Span(0, BK)], sah, name=f"sh{s}")
                                  for s in range(stages)]
                    acc = e.alloc(acc_t, name="acc")
                    z = e.constant(0.0, F32, name="z")
                    crow = e.constant(row0, name="crow")
                    st = e.alloc(stage_t, name="st") if run2 and not swap else None

                    def mainloop(tile: TileAt, phase: int, w: int = w, halves: list[Value] = halves,
                                 acc: Value = acc, z: Value = z, crow: Value = crow, col0: int = col0) -> Value:
                        """The tile's MMAs into `acc`; returns the first row (first weight column,
                        swapped) of this warpgroup's part of the tile."""

                        def round_(tile: TileAt, r: Value, nst: int, partial: bool) -> None:
                            """The gemms of `nst` stages of round `r`; each stage is released once
                            the next gemm is issued (the round's first releases the last stage of
                            the round before, except in the tile's first round)."""
                            sfx = "_t" if partial else ""
                            pfs = parities(phase, tile, r, sfx)
                            notfirst = None if partial else e.cmpi("ne", r, c0, name="notfirst")
                            for s in range(nst):
                                e.mbarrier_wait(full[s], pfs[s])
                                if swap:
                                    # (W^T)(X^T): A is the weight tile's half stored [K, columns],
                                    # B the row tile stored [rows, K]; both transposed reads.
                                    gm = e.gemm_async(halves[s], stage_a[s], acc, transpose_a=True, transpose_b=True,
                                                      name=f"gm{s}{sfx}")
                                else:
                                    gm = e.gemm_async(halves[s], stage_b[s], acc, name=f"gm{s}{sfx}")
                                e.wait(gm, outstanding=1)
                                if s:
                                    e.mbarrier_arrive(empty[s - 1])
                                elif partial:
                                    # The partial round follows a full one: its last stage is released here.
                                    e.mbarrier_arrive(empty[stages - 1])
                                else:
                                    assert notfirst is not None
                                    with e.if_(notfirst):
                                        e.mbarrier_arrive(empty[stages - 1])

                        e.fill(acc, z)
                        rounds(phase, tile, round_)
                        e.wait()
                        e.mbarrier_arrive(empty[((rem1 if phase == 1 else rem2) or stages) - 1])
                        if swap:
                            return e.addi(tile.on, e.constant(col0, name="ccol"), name="onw")
                        return e.addi(tile.om, crow, name="omw")

                    def publish(tile: TileAt, w: int = w) -> None:
                        if flags:
                            # This warpgroup's part of the tile's H columns is stored: publish it
                            # (flag C ct + w - 1 for C consumers: its rows of the tile's H columns;
                            # swapped, its 64 H columns).
                            fw0 = e.muli(tile.ct, e.constant(consumers, name="cf2"), name="fw0")
                            fw = e.addi(fw0, c0 if w == 1 else c1, name="fw")
                            e.signal(e.slice(F, [At(tile.rt, 1), At(fw, 1)], ft, name="flw"), epoch)

                    def consume1(tile: TileAt, w: int = w, acc: Value = acc,
                                 mainloop: Callable[[TileAt, int], Value] = mainloop,
                                 publish: Callable[[TileAt], None] = publish) -> None:
                        omw = mainloop(tile, 1)
                        blk = SWIGLU_BLOCK
                        if swap:
                            # The accumulator's rows 0-63 are a gate block, rows 64-127 its up block
                            # (W1's 64-column blocks alternate): silu(gate) * up is H^T's 64 columns
                            # x the tile's rows.
                            assert wcols == 2 * blk and HT is not None and ght is not None
                            act = swiglu_pair(e, acc, BM, blk, 0, by_rows=True)
                            # H columns: the tile's pairs start at ct BN / 2; this warpgroup's pair
                            # at + w-1 blocks.
                            onh0 = e.muli(tile.ct, e.constant(hb, name="chalf"), name="onh0")
                            onh = e.addi(onh0, e.constant((w - 1) * blk, name="cwh"), name="onh")
                            cast_store(e, act, Tensor((blk, BM), F16, "register"), Tensor((blk, BM), F16, "global"),
                                       HT, [At(onh, blk), At(tile.om, BM)], "hv", "ht")
                            publish(tile)
                            return
                        # SwiGLU on register slices of the accumulator (no data moves): per
                        # (gate, up) pair of 64-column blocks, silu(gate) * up, cast to f16,
                        # stored at the pair's H columns.
                        hh = Tensor((64, blk), F16, "register")
                        hg = Tensor((64, blk), F16, "global")
                        onh = e.muli(tile.ct, e.constant(hb, name="chalf"), name="onh")
                        for p in range(bn // (2 * blk)):
                            act = swiglu_pair(e, acc, 64, blk, p)
                            hv = e.alloc(hh, name=f"hv{p}")
                            e.cast(act, hv)
                            onp = e.addi(onh, e.constant(p * blk, name=f"cp{p}"), name=f"onp{p}")
                            e.copy(hv, e.slice(H, [At(omw, 64), At(onp, blk)], hg, name=f"ht{p}"))
                        publish(tile)

                    def consume2(tile: TileAt, acc: Value = acc, st: Value | None = st,
                                 mainloop: Callable[[TileAt, int], Value] = mainloop) -> None:
                        first = mainloop(tile, 2)
                        if swap:
                            # Y^T's (columns, rows) tile: element stores through the transposed view.
                            assert YT is not None
                            cast_store(e, acc, Tensor((wcols, BM), F16, "register"),
                                       Tensor((wcols, BM), F16, "global"), YT, [At(first, wcols), At(tile.om, BM)],
                                       "yv", "yt")
                            return
                        # Y's rows through the shared tile and TMA stores, STORE_COLUMNS at a time;
                        # each part converted right before it goes out (axe_gen.gemm_ws's epilogue).
                        assert st is not None
                        part_acc = Tensor((64, STORE_COLUMNS), F32, "register")
                        part_t = Tensor((64, STORE_COLUMNS), F16, "register")
                        part_ct = Tensor((64, STORE_COLUMNS), F16, "global")
                        for c in range(bn // STORE_COLUMNS):
                            cols = Span(c * STORE_COLUMNS, (c + 1) * STORE_COLUMNS)
                            pacc = e.slice(acc, [Span(0, 64), cols], part_acc, name=f"pacc{c}")
                            part = e.alloc(part_t, name=f"part{c}")
                            e.cast(pacc, part)
                            onc = e.addi(tile.on, e.constant(c * STORE_COLUMNS, name=f"co{c}"), name=f"onc{c}")
                            dst = e.slice(Y, [At(first, 64), At(onc, STORE_COLUMNS)], part_ct, name=f"ctp{c}")
                            e.copy(part, st)
                            e.copy(st, dst, schedule="tma")

                    if run1:
                        walk(1, consume1)
                    if run2:
                        walk(2, consume2)
    return e.text()


# A fused kernel launched twice as wide as the device holds (264 CTAs for 132 SMs): test/gpu/moe.py
# checks that its cooperative launch is refused with an error rather than hanging.
WIDE_TOKENS = 32


def wide_name(cfg: MoEConfig) -> str:
    return moe.kernel_name(cfg, "ws_fused_wide", WIDE_TOKENS)


def wide_kernel(cfg: MoEConfig) -> str:
    """The scheduled fused kernel for WIDE_TOKENS tokens, on a grid of twice the SMs."""
    s = moe.schedule(cfg, WIDE_TOKENS)
    return kernel(cfg, WIDE_TOKENS, "fused", sms=2 * SMS, fname=wide_name(cfg), swap=s.swap, consumers=s.consumers)


def kernels(cfg: MoEConfig, t: int, every: bool = False) -> dict[str, str]:
    """The persistent kernels for T tokens: the fused kernel of moe.schedule's choice and
    its two-launch form, or (`every`) every PHASES kernel in every orientation."""
    if every:
        return {name(cfg, t, ph, br): kernel(cfg, t, ph, swap=br) for br in (None, *SWAP_ROWS) for ph in PHASES}
    s = moe.schedule(cfg, t)
    return {name(cfg, t, ph, s.swap, s.consumers): kernel(cfg, t, ph, swap=s.swap, consumers=s.consumers)
            for ph in PHASES}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("tokens", nargs="*", type=int, default=moe.TOKENS)
    ap.add_argument("--model", type=moe.model_arg, default=moe.DEFAULT, help=f"one of {', '.join(moe.MODELS)}")
    ap.add_argument("--all", action="store_true", help="every phase form in every orientation")
    args = ap.parse_args(argv)
    for t in args.tokens:
        for nm, text in kernels(args.model, t, args.all).items():
            with open(os.path.join(args.outdir, nm + ".mlir"), "w") as f:
                f.write(text)
    if WIDE_TOKENS in args.tokens:
        with open(os.path.join(args.outdir, wide_name(args.model) + ".mlir"), "w") as f:
            f.write(wide_kernel(args.model))


if __name__ == "__main__":
    main()
