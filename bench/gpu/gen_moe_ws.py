#!/usr/bin/env python3
"""Writes the fused FP16 Mixture-of-Experts layer of the Axe paper's §4.2, for any model
configuration (gen_moe.MoEConfig: hidden size H, expert intermediate size I, experts, top-k,
shared experts), as ONE warp-specialized, persistent Axe kernel that runs both grouped GEMMs,
with a tile-level pipeline between them:

  phase 1 (GEMM1):  H[rows, I]  = silu(X[rows, H] W1_gate[e]) * (X W1_up[e])
  phase 2 (GEMM2):  Y[rows, H] = H[rows, I] W2[e]

`rows` are the token-expert assignments grouped by expert, each expert's group padded to whole
row tiles (128 rows; BR in the swapped orientation below: the routing step, test/gpu/moe.py); `%map` gives each row tile's expert and
`%used` the number of row tiles in use (run-time data: the grid is sized once per batch size).
W1's columns alternate 64 gate and 64 up columns (gen_moe.SWIGLU_BLOCK), so every column tile
holds whole (gate, up) pairs.

The roles are Axe scopes of a 384-thread CTA, as in gen_gemm_ws.py: a producer warp issuing TMA
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

    gen_moe_ws.py DIR [--model NAME] [--all] [T ...]
        (default: Qwen3-30B-A3B, the paper's token counts; the kernels of gen_moe.schedule's
        choice per count, or with --all every PHASES kernel and their swapped forms for every
        SWAP_ROWS)
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_gemm_tma  # noqa: E402  (the SwiGLU epilogue)
import gen_moe  # noqa: E402  (the layer's shapes, the routing's row-tile bound)

BK = 64
SWIGLU_BLOCK = gen_moe.SWIGLU_BLOCK
STAGES = 4
SMS = gen_moe.SMS  # one resident CTA per SM (the no-deadlock argument above)
PRODUCER_REGS, CONSUMER_REGS = 40, 232
PHASES = ("fused", "up", "down")
# The swapped orientation: weight tiles 256 columns wide (each consumer warpgroup 128 of them),
# row tiles of SWAP_ROWS rows (wgmma's N: a multiple of 8).
SWAP_BN = gen_moe.SWAP_BN
SWAP_ROWS = gen_moe.SWAP_ROWS  # one list: gen_moe sizes the gather's and combine's buffers by it


def tile_width(t):
    """Column tile width, both phases (they share the shared-memory stages): 128 for small
    batches (twice the tiles to stream the experts' weights with, the bottleneck there), 256
    from 256 tokens up (half the reloads of A). $AXE_MOE_BN overrides it (for sweeps; the
    runner reads the same variable, so kernels and workspace agree)."""
    return int(os.environ.get("AXE_MOE_BN", 0)) or gen_moe.tile_width(t)


def name(cfg, t, phases="fused", swap=None, consumers=2):
    return gen_moe.kernel_name(cfg, f"ws_{phases}" + (f"_swap{swap}" if swap else "")
                               + ("_c1" if consumers == 1 else ""), t)


def column_tile(t, swap, consumers=2):
    """The column tile: SWAP_BN in the swapped orientation (one (gate, up) pair of W1 per
    consumer warpgroup: half of it with one consumer), else tile_width(t)."""
    return (SWAP_BN * consumers // 2) if swap else tile_width(t)


def flag_count(cfg, t, swap=None, consumers=2):
    """The flags a launch for T tokens uses (the caller's zeroed buffer): one per row tile,
    phase-1 column tile and consumer warpgroup, padded to whole phase-2 rounds per row."""
    bn = column_tile(t, swap, consumers)
    nf = consumers * (2 * cfg.inter // bn)
    round_flags = consumers * STAGES // (bn // 2 // BK)
    return gen_moe.max_tiles(cfg, t, swap or gen_moe.BM) * (-(-nf // round_flags) * round_flags)


def kernel(cfg, t, phases="fused", bn=None, stages=STAGES, sms=SMS, fname=None, swap=None, consumers=2):
    """`swap=BR`: the swapped orientation (module docstring) with BR-row tiles. `consumers=1`
    (swapped only): one consumer warpgroup and 128-column weight tiles (one (gate, up) pair),
    twice the tiles of the two-consumer kernel: more CTAs streaming weights where the batch
    has few tiles."""
    cfg.check()
    HIDDEN, INTER, EXPERTS = cfg.hidden, cfg.inter, cfg.n_experts
    bn = bn or column_tile(t, swap, consumers)
    assert phases in PHASES and bn % (2 * SWIGLU_BLOCK) == 0 and (bn // 2) % BK == 0
    assert swap is None or (bn == column_tile(t, swap, consumers) and swap in SWAP_ROWS)
    assert consumers == 2 or (consumers == 1 and swap), "one consumer warpgroup: swapped tiles only"
    wcols = bn // consumers  # a consumer warpgroup's weight columns (swapped)
    run1, run2, flags = phases != "down", phases != "up", phases == "fused"
    BM = swap or gen_moe.BM  # the row tile: the tokens' side
    tiles_m = gen_moe.max_tiles(cfg, t, BM)
    rows = tiles_m * BM
    n1, n2 = 2 * INTER, HIDDEN  # B's columns: W1 (gate and up), W2
    tn1, tn2 = n1 // bn, n2 // bn
    # K steps per tile in rounds of `stages` (one per stage) and a partial last round of rem
    # steps; a stage's uses per tile of a phase: uses[s].
    rounds1, rem1 = divmod(HIDDEN // BK, stages)
    rounds2, rem2 = divmod(INTER // BK, stages)
    assert rounds1 and rounds2, "fewer K steps than stages"
    uses1 = [rounds1 + (s < rem1) for s in range(stages)]
    uses2 = [rounds2 + (s < rem2) for s in range(stages)]
    hb = bn // 2  # H columns one phase-1 tile writes
    steps_per_h = hb // BK  # phase-2 K steps per phase-1 column tile
    assert stages % steps_per_h == 0  # so a round (and the partial one) reads whole column tiles
    nf = consumers * tn1  # flags per row tile: one per phase-1 column tile and consumer warpgroup
    round_flags = consumers * stages // steps_per_h  # the flags of the H columns one phase-2 round reads
    # A row tile's flags, padded to whole rounds: a round's wait is a slice of round_flags at a
    # run-time origin, which must divide the row (the padding flags are never waited for).
    nf_row = -(-nf // round_flags) * round_flags
    grid = min(sms, tiles_m * (tn1 + tn2))
    f16 = "f16"
    gx = f"!axe.tensor<{rows}x{HIDDEN}x{f16}, global, #axe.layout<({rows}, {HIDDEN}) : ({HIDDEN}, 1)>>"
    gw1 = f"!axe.tensor<{EXPERTS * HIDDEN}x{n1}x{f16}, global, #axe.layout<({EXPERTS * HIDDEN}, {n1}) : ({n1}, 1)>>"
    gh = f"!axe.tensor<{rows}x{INTER}x{f16}, global, #axe.layout<({rows}, {INTER}) : ({INTER}, 1)>>"
    gw2 = f"!axe.tensor<{EXPERTS * INTER}x{n2}x{f16}, global, #axe.layout<({EXPERTS * INTER}, {n2}) : ({n2}, 1)>>"
    gy = f"!axe.tensor<{rows}x{HIDDEN}x{f16}, global, #axe.layout<({rows}, {HIDDEN}) : ({HIDDEN}, 1)>>"
    gf = f"!axe.tensor<{tiles_m}x{nf_row}xi32, global, #axe.layout<({tiles_m}, {nf_row}) : ({nf_row}, 1)>>"
    ft = "!axe.tensor<1x1xi32, global, ?>"
    at = f"!axe.tensor<{BM}x{BK}x{f16}, global, ?>"
    bt = f"!axe.tensor<{BK}x{bn}x{f16}, global, ?>"
    swz = "#axe.swizzle<3, 3, 3>"
    sa = f"!axe.tensor<{BM}x{BK}x{f16}, shared, #axe.layout<({BM}, {BK}) : ({BK}, 1)>, {swz}>"
    sah = f"!axe.tensor<64x{BK}x{f16}, shared, ?, {swz}>"
    sb = f"!axe.tensor<{BK}x{bn}x{f16}, shared, #axe.layout<({BK}, {bn // 64}, 64) : (64, {BK * 64}, 1)>, {swz}>"
    # A consumer warpgroup's accumulator: 64 rows x the tile's columns, or (swapped) its half of
    # the weight tile's columns x the tile's rows.
    acc = f"!axe.tensor<{wcols}x{BM}xf32, register, ?>" if swap else f"!axe.tensor<64x{bn}xf32, register, ?>"
    tok = "!axe.token"
    L = []
    i2, i3, i4 = (" " * w for w in (6, 8, 10))
    L.append(f"// Generated by bench/gpu/gen_moe_ws.py: the MoE layer for {t} tokens, {phases}, {bn}-wide tiles.")
    L.append('module attributes {axe.target = #axe.target<"sm_90a">} {')
    align = "{axe.align = 16 : i64}"
    L.append(f"  func.func @{fname or name(cfg, t, phases, swap)}(%x: memref<{rows * HIDDEN}x{f16}> {align}, "
             f"%w1: memref<{EXPERTS * HIDDEN * n1}x{f16}> {align}, %h: memref<{rows * INTER}x{f16}> {align}, "
             f"%w2: memref<{EXPERTS * INTER * n2}x{f16}> {align}, %y: memref<{rows * HIDDEN}x{f16}> {align}, "
             f"%map: memref<{tiles_m}xi32>, %used: memref<1xi32>, %flags: memref<{tiles_m * nf_row}xi32>, %epoch: i32) {{")
    for v, mem, ty in (("X", f"%x: memref<{rows * HIDDEN}x{f16}>", gx), ("W1", f"%w1: memref<{EXPERTS * HIDDEN * n1}x{f16}>", gw1),
                       ("H", f"%h: memref<{rows * INTER}x{f16}>", gh), ("W2", f"%w2: memref<{EXPERTS * INTER * n2}x{f16}>", gw2),
                       ("Y", f"%y: memref<{rows * HIDDEN}x{f16}>", gy), ("F", f"%flags: memref<{tiles_m * nf_row}xi32>", gf)):
        arg, mt = mem.split(": ")
        L.append(f"    %{v} = axe.view {arg} : {mt} to {ty}")
    if swap:
        # H and Y seen transposed (column-major views of the same buffers): the swapped
        # accumulators hold (column, row) tiles of them.
        ght = f"!axe.tensor<{INTER}x{rows}x{f16}, global, #axe.layout<({INTER}, {rows}) : (1, {INTER})>>"
        gyt = f"!axe.tensor<{HIDDEN}x{rows}x{f16}, global, #axe.layout<({HIDDEN}, {rows}) : (1, {HIDDEN})>>"
        L.append(f"    %HT = axe.view %h : memref<{rows * INTER}x{f16}> to {ght}")
        L.append(f"    %YT = axe.view %y : memref<{rows * HIDDEN}x{f16}> to {gyt}")
    # The fused kernel's CTAs wait on each other's flags: every CTA must be resident at once.
    coop = " cooperative" if flags else ""
    L.append(f"    axe.kernel grid [{grid}] threads [{128 * (1 + consumers)}]{coop} {{")
    L.append(f"{i2}%cta = axe.unit_id cta")
    for nm, v in (("c0", 0), ("c1", 1), ("cbm", BM), ("cbn", bn), ("ctn1", tn1), ("ctn2", tn2), ("cgrid", grid),
                  ("crounds1", rounds1), ("crounds2", rounds2), ("chid", HIDDEN), ("cint", INTER)):
        L.append(f"{i2}%{nm} = arith.constant {v} : index")
    L.append(f"{i2}%true = arith.constant true")
    # The walk: U row tiles in use (run-time), phase-1 tiles [0, T1), phase-2 tiles [T1, T1 + T2).
    L.append(f"{i2}%u32 = memref.load %used[%c0] : memref<1xi32>")
    L.append(f"{i2}%u = arith.index_cast %u32 : i32 to index")
    L.append(f"{i2}%t1 = arith.muli %u, %ctn1 : index" if run1 else f"{i2}%t1 = arith.constant 0 : index")
    L.append(f"{i2}%t2 = arith.muli %u, %ctn2 : index" if run2 else f"{i2}%t2 = arith.constant 0 : index")
    L.append(f"{i2}%tall = arith.addi %t1, %t2 : index")
    # n1: this CTA's phase-1 tiles, ceil((T1 - cta) / grid) (0 past T1); its first phase-2 tile
    # continues its walk at cta + n1 * grid.
    L.append(f"{i2}%t1m = arith.maxui %t1, %cta : index")
    L.append(f"{i2}%d1 = arith.subi %t1m, %cta : index")
    L.append(f"{i2}%cgm1 = arith.constant {grid - 1} : index")
    L.append(f"{i2}%d1r = arith.addi %d1, %cgm1 : index")
    L.append(f"{i2}%n1 = arith.divui %d1r, %cgrid : index")
    L.append(f"{i2}%n1g = arith.muli %n1, %cgrid : index")
    L.append(f"{i2}%start2 = arith.addi %cta, %n1g : index")
    for s in range(stages):
        L.append(f"{i2}%sa{s} = axe.alloc : {sa}")
        L.append(f"{i2}%sb{s} = axe.alloc : {sb}")
    for s in range(stages):
        L.append(f"{i2}%full{s} = axe.mbarrier arrivals 2")
        L.append(f"{i2}%empty{s} = axe.mbarrier arrivals {128 * consumers}")

    def walk(ind, phase, body):
        """The CTA's tiles of `phase`; `body(ind)` sees %it (this CTA's earlier tiles of the
        phase), %rt / %ct (row and column tile), %om / %on, %eoff (the expert's first row of B)."""
        lo, hi = ("%cta", "%t1") if phase == 1 else ("%start2", "%tall")
        L.append(f"{ind}scf.for %t = {lo} to {hi} step %cgrid {{")
        j = ind + "  "
        L.append(f"{j}%tl = arith.subi %t, {lo} : index")
        L.append(f"{j}%it = arith.divui %tl, %cgrid : index")
        tn = "%ctn1" if phase == 1 else "%ctn2"
        local = "%t" if phase == 1 else "%tp"
        if phase == 2:
            L.append(f"{j}%tp = arith.subi %t, %t1 : index")
        L.append(f"{j}%rt = arith.divui {local}, {tn} : index")
        L.append(f"{j}%ct = arith.remui {local}, {tn} : index")
        L.append(f"{j}%om = arith.muli %rt, %cbm : index")
        L.append(f"{j}%on = arith.muli %ct, %cbn : index")
        L.append(f"{j}%e32 = memref.load %map[%rt] : memref<{tiles_m}xi32>")
        L.append(f"{j}%ex = arith.index_cast %e32 : i32 to index")
        L.append(f"{j}%eoff = arith.muli %ex, {'%chid' if phase == 1 else '%cint'} : index")
        body(j)
        L.append(f"{ind}}}")

    def parities(ind, phase, r, sfx):
        """The parity of each stage's current use, for a round `r` (an index value) of the
        tile %it of `phase`: stage s's use g = it uses1[s] + r in phase 1, and
        n1 uses1[s] + it uses2[s] + r in phase 2 (the barrier phases continue across the
        phases, after the CTA's n1 phase-1 tiles). One %pf per distinct count; returns the
        stages' %pf names."""
        seen, out = {}, []
        for s in range(stages):
            key = (uses1[s],) if phase == 1 else (uses1[s], uses2[s])
            if key not in seen:
                v = f"{len(seen)}{sfx}"
                L.append(f"{ind}%cu{v} = arith.constant {key[-1]} : index")
                L.append(f"{ind}%g0_{v} = arith.muli %it, %cu{v} : index")
                g = f"%g0_{v}"
                if phase == 2:
                    L.append(f"{ind}%cb{v} = arith.constant {key[0]} : index")
                    L.append(f"{ind}%gb0_{v} = arith.muli %n1, %cb{v} : index")
                    L.append(f"{ind}%g1_{v} = arith.addi %g0_{v}, %gb0_{v} : index")
                    g = f"%g1_{v}"
                L.append(f"{ind}%g_{v} = arith.addi {g}, {r} : index")
                L.append(f"{ind}%gb_{v} = arith.andi %g_{v}, %c1 : index")
                L.append(f"{ind}%pf_{v} = arith.cmpi ne, %gb_{v}, %c0 : index")
                seen[key] = f"%pf_{v}"
            out.append(seen[key])
        return out

    # Producer.
    L.append(f"{i2}axe.scope warpgroup [0 : 1] {{")
    L.append(f"{i3}axe.set_max_registers {PRODUCER_REGS}")
    L.append(f"{i3}axe.scope warp [0 : 1] {{")

    def produce(phase):
        A, ga, B, gb, rounds, rem = (("%X", gx, "%W1", gw1, "%crounds1", rem1) if phase == 1
                                     else ("%H", gh, "%W2", gw2, "%crounds2", rem2))

        def round_(q, r, nst, sfx):
            """The TMA copies of `nst` stages for round `r` (K steps S r .. S r + nst - 1)."""
            pfs = parities(q, phase, r, sfx)
            L.append(f"{q}%cstep{sfx} = arith.constant {stages * BK} : index")
            L.append(f"{q}%k0{sfx} = arith.muli {r}, %cstep{sfx} : index")
            if phase == 2 and flags:
                # This round reads H's columns [S BK r, S BK r + nst BK): phase-1 column tiles
                # S BK r / (BN / 2) on, whose flags (two per tile, one per warpgroup) are the
                # row's flags [rf r, rf r + nf_r). One wait watches them all.
                if not sfx:
                    frt = f"!axe.tensor<1x{round_flags}xi32, global, ?>"
                    L.append(f"{q}%crf = arith.constant {round_flags} : index")
                    L.append(f"{q}%f0 = arith.muli {r}, %crf : index")
                    L.append(f"{q}%flr = axe.slice %F [%rt : +1, %f0 : +{round_flags}] : {gf} to {frt}")
                    L.append(f"{q}axe.signal_wait %flr, %epoch : {frt}, i32")
                else:
                    # The partial round's flags, a column tile's at a time: a window at a
                    # run-time row must have a width that divides the row, which that does.
                    frt = f"!axe.tensor<1x{consumers}xi32, global, ?>"
                    for p in range(nst // steps_per_h):
                        L.append(f"{q}%cfl{p}{sfx} = arith.constant {rounds2 * round_flags + consumers * p} : index")
                        L.append(f"{q}%flr{p}{sfx} = axe.slice %F [%rt : +1, %cfl{p}{sfx} : +{consumers}] : {gf} to {frt}")
                        L.append(f"{q}axe.signal_wait %flr{p}{sfx}, %epoch : {frt}, i32")
            for s in range(nst):
                L.append(f"{q}%pe{s}{sfx} = arith.xori {pfs[s]}, %true : i1")
                L.append(f"{q}axe.mbarrier_wait %empty{s}, %pe{s}{sfx}")
                k = f"%k0{sfx}"
                if s:
                    L.append(f"{q}%ko{s}{sfx} = arith.constant {s * BK} : index")
                    L.append(f"{q}%k{s}{sfx} = arith.addi %k0{sfx}, %ko{s}{sfx} : index")
                    k = f"%k{s}{sfx}"
                L.append(f"{q}%at{s}{sfx} = axe.slice {A} [%om : +{BM}, {k} : +{BK}] : {ga} to {at}")
                L.append(f"{q}%kb{s}{sfx} = arith.addi %eoff, {k} : index")
                L.append(f"{q}%bt{s}{sfx} = axe.slice {B} [%kb{s}{sfx} : +{BK}, %on : +{bn}] : {gb} to {bt}")
                L.append(f"{q}axe.copy async %at{s}{sfx}, %sa{s} schedule tma barrier %full{s} : {at}, {sa}")
                L.append(f"{q}axe.copy async %bt{s}{sfx}, %sb{s} schedule tma barrier %full{s} : {bt}, {sb}")

        def body(j):
            L.append(f"{j}scf.for %r = %c0 to {rounds} step %c1 {{")
            round_(j + "  ", "%r", stages, "")
            L.append(f"{j}}}")
            if rem:
                L.append(f"{j}%rlast = arith.constant {rounds1 if phase == 1 else rounds2} : index")
                round_(j, "%rlast", rem, "_t")
        return body

    if run1:
        walk(i4, 1, produce(1))
    if run2:
        walk(i4, 2, produce(2))
    L.append(f"{i3}}}")
    L.append(f"{i2}}}")

    # Consumers: warpgroup 1 computes rows 0-63 of every tile, warpgroup 2 rows 64-127 (swapped:
    # warpgroup w the weight columns [(w - 1) BN / 2, w BN / 2) of every tile, for all its rows).
    for w in range(1, consumers + 1):
        L.append(f"{i2}axe.scope warpgroup [{w} : {w + 1}] {{")
        L.append(f"{i3}axe.set_max_registers {CONSUMER_REGS}")
        row0 = (w - 1) * 64
        col0 = (w - 1) * wcols
        if swap:
            sbh = f"!axe.tensor<{BK}x{wcols}x{f16}, shared, ?, {swz}>"
            for s in range(stages):
                L.append(f"{i3}%sh{s} = axe.slice %sb{s} [0 : {BK}, {col0} : {col0 + wcols}] : {sb} to {sbh}")
        else:
            for s in range(stages):
                L.append(f"{i3}%sh{s} = axe.slice %sa{s} [{row0} : {row0 + 64}, 0 : {BK}] : {sa} to {sah}")
        L.append(f"{i3}%acc = axe.alloc : {acc}")
        L.append(f"{i3}%z = arith.constant 0.0 : f32")
        L.append(f"{i3}%crow = arith.constant {row0} : index")
        sw = 128  # the TMA-store tile's columns (256-byte f16 rows, as gen_gemm_ws.py's)
        stage = (f"!axe.tensor<64x{sw}x{f16}, shared, #axe.layout<(64, 2, 64) : (64, {64 * 64}, 1)>, "
                 f"#axe.swizzle<3, 3, 3>>")
        if run2 and not swap:
            L.append(f"{i3}%st = axe.alloc : {stage}")

        def mainloop(j, phase):
            rounds, rem = ("%crounds1", rem1) if phase == 1 else ("%crounds2", rem2)

            def round_(q, r, nst, sfx):
                """The gemms of `nst` stages of round `r`; each stage is released once the
                next gemm is issued (the round's first releases the last stage of the round
                before, except in the tile's first round)."""
                pfs = parities(q, phase, r, sfx)
                if not sfx:
                    L.append(f"{q}%notfirst = arith.cmpi ne, {r}, %c0 : index")
                for s in range(nst):
                    L.append(f"{q}axe.mbarrier_wait %full{s}, {pfs[s]}")
                    if swap:
                        # (W^T)(X^T): A is the weight tile's half stored [K, columns], B the row tile
                        # stored [rows, K]; both transposed reads of the stages.
                        L.append(f"{q}%gm{s}{sfx} = axe.gemm async %sh{s}, %sa{s}, %acc {{transpose_a, transpose_b}} : "
                                 f"{sbh}, {sa}, {acc} -> {tok}")
                    else:
                        L.append(f"{q}%gm{s}{sfx} = axe.gemm async %sh{s}, %sb{s}, %acc : {sah}, {sb}, {acc} -> {tok}")
                    L.append(f"{q}axe.wait %gm{s}{sfx} outstanding 1")
                    if s:
                        L.append(f"{q}axe.mbarrier_arrive %empty{s - 1}")
                    elif sfx:
                        # The partial round follows a full one: its last stage is released here.
                        L.append(f"{q}axe.mbarrier_arrive %empty{stages - 1}")
                    else:
                        L.append(f"{q}scf.if %notfirst {{")
                        L.append(f"{q}  axe.mbarrier_arrive %empty{stages - 1}")
                        L.append(f"{q}}}")

            L.append(f"{j}axe.fill %acc, %z : {acc}, f32")
            L.append(f"{j}scf.for %r = %c0 to {rounds} step %c1 {{")
            round_(j + "  ", "%r", stages, "")
            L.append(f"{j}}}")
            if rem:
                L.append(f"{j}%rlast = arith.constant {rounds1 if phase == 1 else rounds2} : index")
                round_(j, "%rlast", rem, "_t")
            L.append(f"{j}axe.wait")
            L.append(f"{j}axe.mbarrier_arrive %empty{(rem or stages) - 1}")
            if swap:
                L.append(f"{j}%ccol = arith.constant {col0} : index")
                L.append(f"{j}%onw = arith.addi %on, %ccol : index")
            else:
                L.append(f"{j}%omw = arith.addi %om, %crow : index")

        def consume1_swapped(j):
            # The accumulator's rows 0-63 are a gate block, rows 64-127 its up block (W1's
            # 64-column blocks alternate): silu(gate) * up is H^T's 64 columns x the tile's rows.
            assert wcols == 2 * SWIGLU_BLOCK  # one (gate, up) pair per warpgroup
            blk = SWIGLU_BLOCK
            hr = gen_gemm_tma.swiglu_pair(L, j, acc, BM, blk, 0, by_rows=True)
            # H columns: the tile's pairs start at ct BN / 2; this warpgroup's pair at + w-1 blocks.
            L.append(f"{j}%chalf = arith.constant {hb} : index")
            L.append(f"{j}%onh0 = arith.muli %ct, %chalf : index")
            L.append(f"{j}%cwh = arith.constant {(w - 1) * blk} : index")
            L.append(f"{j}%onh = arith.addi %onh0, %cwh : index")
            gen_gemm_tma.cast_store(L, j, "act0", hr, "hv", f"!axe.tensor<{blk}x{BM}x{f16}, register, ?>", "ht",
                                    f"!axe.tensor<{blk}x{BM}x{f16}, global, ?>", "HT", ght, f"%onh : +{blk}, %om : +{BM}")

        def consume1(j):
            mainloop(j, 1)
            if swap:
                consume1_swapped(j)
                publish(j)
                return
            # SwiGLU on register slices of the accumulator (no data moves): per (gate, up)
            # pair of 64-column blocks, silu(gate) * up, cast to f16, stored at the pair's H
            # columns.
            blk = SWIGLU_BLOCK
            hh = f"!axe.tensor<64x{blk}x{f16}, register, ?>"
            hg = f"!axe.tensor<64x{blk}x{f16}, global, ?>"
            L.append(f"{j}%chalf = arith.constant {hb} : index")
            L.append(f"{j}%onh = arith.muli %ct, %chalf : index")
            for p in range(bn // (2 * blk)):
                hr = gen_gemm_tma.swiglu_pair(L, j, acc, 64, blk, p)
                L.append(f"{j}%hv{p} = axe.alloc : {hh}")
                L.append(f"{j}axe.cast %act{p}, %hv{p} : {hr}, {hh}")
                L.append(f"{j}%cp{p} = arith.constant {p * blk} : index")
                L.append(f"{j}%onp{p} = arith.addi %onh, %cp{p} : index")
                L.append(f"{j}%ht{p} = axe.slice %H [%omw : +64, %onp{p} : +{blk}] : {gh} to {hg}")
                L.append(f"{j}axe.copy %hv{p}, %ht{p} : {hh}, {hg}")
            publish(j)

        def publish(j):
            if flags:
                # This warpgroup's part of the tile's H columns is stored: publish it (flag
                # C ct + w - 1 for C consumers: its rows of the tile's H columns; swapped, its
                # 64 H columns).
                L.append(f"{j}%cf2 = arith.constant {consumers} : index")
                L.append(f"{j}%fw0 = arith.muli %ct, %cf2 : index")
                L.append(f"{j}%fw = arith.addi %fw0, %c{w - 1} : index")
                L.append(f"{j}%flw = axe.slice %F [%rt : +1, %fw : +1] : {gf} to {ft}")
                L.append(f"{j}axe.signal %flw, %epoch : {ft}, i32")

        def consume2(j):
            mainloop(j, 2)
            if swap:
                # Y^T's (columns, rows) tile: element stores through the transposed view.
                gen_gemm_tma.cast_store(L, j, "acc", acc, "yv", f"!axe.tensor<{wcols}x{BM}x{f16}, register, ?>", "yt",
                                        f"!axe.tensor<{wcols}x{BM}x{f16}, global, ?>", "YT", gyt,
                                        f"%onw : +{wcols}, %om : +{BM}")
                return
            # Y's rows through the shared tile and TMA stores, 128 columns at a time; each part
            # converted right before it goes out (see gen_gemm_ws.py's epilogue).
            part_acc = f"!axe.tensor<64x{sw}xf32, register, ?>"
            part = f"!axe.tensor<64x{sw}x{f16}, register, ?>"
            part_ct = f"!axe.tensor<64x{sw}x{f16}, global, ?>"
            for c in range(bn // sw):
                gen_gemm_tma.accumulator_part(L, j, c, sw, acc, part_acc, part)
                L.append(f"{j}%co{c} = arith.constant {c * sw} : index")
                L.append(f"{j}%onc{c} = arith.addi %on, %co{c} : index")
                L.append(f"{j}%ctp{c} = axe.slice %Y [%omw : +64, %onc{c} : +{sw}] : {gy} to {part_ct}")
                L.append(f"{j}axe.copy %part{c}, %st : {part}, {stage}")
                L.append(f"{j}axe.copy %st, %ctp{c} schedule tma : {stage}, {part_ct}")

        if run1:
            walk(i3, 1, consume1)
        if run2:
            walk(i3, 2, consume2)
        L.append(f"{i2}}}")
    L.append("    }")
    L.append("    return")
    L.append("  }")
    L.append("}")
    return "\n".join(L) + "\n"


# A fused kernel launched twice as wide as the device holds (264 CTAs for 132 SMs): test/gpu/moe.py
# checks that its cooperative launch is refused with an error rather than hanging.
WIDE_TOKENS = 32


def wide_name(cfg):
    return gen_moe.kernel_name(cfg, "ws_fused_wide", WIDE_TOKENS)


def wide_kernel(cfg):
    """The scheduled fused kernel for WIDE_TOKENS tokens, on a grid of twice the SMs."""
    s = gen_moe.schedule(cfg, WIDE_TOKENS)
    return kernel(cfg, WIDE_TOKENS, "fused", sms=2 * SMS, fname=wide_name(cfg), swap=s.swap, consumers=s.consumers)


def kernels(cfg, t, every=False):
    """The persistent kernels for T tokens: the fused kernel of gen_moe.schedule's choice and
    its two-launch form, or (`every`) every PHASES kernel in every orientation."""
    if every:
        return {name(cfg, t, ph, br): kernel(cfg, t, ph, swap=br) for br in (None, *SWAP_ROWS) for ph in PHASES}
    s = gen_moe.schedule(cfg, t)
    return {name(cfg, t, ph, s.swap, s.consumers): kernel(cfg, t, ph, swap=s.swap, consumers=s.consumers)
            for ph in PHASES}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("tokens", nargs="*", type=int, default=gen_moe.TOKENS)
    ap.add_argument("--model", type=gen_moe.model_arg, default=gen_moe.DEFAULT)
    ap.add_argument("--all", action="store_true", help="every phase form in every orientation")
    args = ap.parse_args()
    for t in args.tokens:
        for nm, text in kernels(args.model, t, args.all).items():
            with open(os.path.join(args.outdir, nm + ".mlir"), "w") as f:
                f.write(text)
    if WIDE_TOKENS in args.tokens:
        with open(os.path.join(args.outdir, wide_name(args.model) + ".mlir"), "w") as f:
            f.write(wide_kernel(args.model))
