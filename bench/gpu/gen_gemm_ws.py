#!/usr/bin/env python3
"""Writes a warp-specialized, persistent TMA + wgmma Axe GEMM for sm_90a (the Axe paper §4.1's
Hopper GEMM): C[M, N] = A[M, K] B[K, N], f16 inputs, f32 accumulation, f16 / bf16 / f32
output, row-major; 128xBN CTA tiles, 64-wide K steps, S shared stages.

The roles are Axe scopes of one 384-thread CTA, and the IR says who does what:
  * `axe.scope warp [0 : 1]`, the producer: for each of its tiles and K steps, waits for the
    stage to be empty (`axe.mbarrier_wait %empty_s`) and fills it with two TMA copies that
    complete on the stage's full barrier (`axe.copy async ... schedule tma barrier %full_s`);
  * `axe.scope warpgroup [1 : 2]` and `[2 : 3]`, the consumers: rows 0-63 and 64-127 of the
    tile. For each K step each waits for the stage to be full, starts its wgmma (async), waits
    until only that gemm is in flight and releases the previous stage (`axe.mbarrier_arrive
    %empty`, one arrival per consumer thread: `arrivals 256`); after the tile's last step it
    stores its 64 rows from registers while the producer already loads the next tile.
Warps 1-3 of warpgroup 0 have no role. With REGS 1 the roles move registers
(`axe.set_max_registers`): the producer warpgroup down to 40 per thread, the consumers up to
232, room for a 64x256 f32 accumulator each without spilling. Barrier phases are computed, not tracked: the g-th use
of a stage (counted over the CTA's tiles) waits for parity g & 1 on its full barrier; the
producer waits for parity (g & 1) ^ 1 on the empty one (on a fresh barrier, parity 1 passes).

PERSISTENT 1 launches one CTA per SM (132 on H100 and H200) that walks tiles t = cta, cta +
grid, ... in GROUP-grouped raster order (as Triton's GROUP_M); 0 launches one CTA per tile.

    gen_gemm_ws.py M N K [BN [S [OUT [PERSISTENT [GROUP [SMS [REGS [TMA_STORE [DTYPE [CLUSTER [CHIP]]]]]]]]]]] > gemm_MxNxK_ws.mlir
    (TMA_STORE: 0 stores from registers, 1 through shared memory with TMA stores, 2 the same
    with async TMA stores)
    gen_gemm_ws.py --all DIR          (VARIANTS and Figure 10's kernels, each with and without clusters, as DIR/<name>.mlir)

Each tile is a whole number of rounds of the S stages (stage s of round r is K step r S + s on
every tile); shapes that are not tile multiples use `{clip}` tiles (TMA's zero fill, clipped
stores), the K steps past K reading zeros.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_gemm_tma  # noqa: E402  (the grouped raster, Figure 10's shapes)
import matmul_ir  # noqa: E402  (the axe.matmul the compiler expands)

# (M, N, K, BN, S, OUT, PERSISTENT, GROUP) that test/gpu/build.sh lowers and
# test/gpu/gemm_typed.py --ws runs: a small one (correctness, every role boundary), 4096^3,
# and the Llama-3.1-8B and -70B MLP GEMMs at batch 8192.
VARIANTS = [
    (256, 256, 512, 128, 2, "f32", 1, 8, 2), (512, 512, 1024, 256, 4, "f16", 1, 8, 132),
    (512, 512, 1024, 256, 4, "f16", 0, 8, 132),
    (4096, 4096, 4096, 256, 4, "f16", 1, 8, 132), (4096, 4096, 4096, 256, 4, "f16", 0, 8, 132),
    (4096, 4096, 4096, 128, 4, "f16", 1, 8, 132), (4096, 4096, 4096, 256, 4, "f16", 1, 8, 132, 0),
    (8192, 14336, 4096, 256, 4, "f16", 1, 8, 132), (8192, 4096, 14336, 256, 4, "f16", 1, 8, 132),
    (8192, 4096, 7168, 256, 4, "f16", 1, 8, 132),
    (8192, 8192, 28672, 256, 4, "f16", 1, 8, 132), (8192, 8192, 14336, 256, 4, "f16", 1, 8, 132),
    # The epilogue through shared memory and TMA stores.
    (256, 256, 512, 128, 2, "f32", 1, 8, 2, 1, 1), (4096, 4096, 4096, 256, 4, "f16", 1, 8, 132, 1, 1),
    (8192, 4096, 14336, 256, 4, "f16", 1, 8, 132, 1, 1), (8192, 4096, 7168, 256, 4, "f16", 1, 8, 132, 1, 1),
    (8192, 8192, 28672, 256, 4, "f16", 1, 8, 132, 1, 1), (8192, 8192, 14336, 256, 4, "f16", 1, 8, 132, 1, 1),
    (8192, 14336, 4096, 256, 4, "f16", 1, 8, 132, 1, 1),
    # Any shape: M, N, K that are not tile multiples ({clip} tiles), down to a batch of 8 rows.
    (1000, 1000, 1000, 128, 4, "f16", 1, 8, 132, 1, 1), (8, 4096, 4096, 256, 4, "f16", 1, 8, 132, 1, 1),
    (4000, 4104, 4072, 256, 4, "f32", 1, 8, 132, 1, 0), (1000, 1000, 1008, 256, 4, "bf16", 1, 8, 132, 1, 1, "e4m3"),
    # One tile per CTA (M = 64: 16 tiles on 16 CTAs), the case where ptxas hoisted the
    # conversions of a whole accumulator above the wgmma wait (see the epilogue).
    (64, 4096, 4096, 256, 4, "f16", 1, 8, 132, 1, 1), (256, 4096, 4096, 256, 4, "f16", 1, 1, 132, 1, 1),
    # FP8 (e4m3 A and B [N, K], per-tensor scales, bf16 out).
    (512, 512, 1024, 256, 4, "bf16", 1, 8, 2, 1, 1, "e4m3"), (4096, 4096, 4096, 256, 4, "bf16", 1, 8, 132, 1, 1, "e4m3"),
    (8192, 4096, 14336, 256, 4, "bf16", 1, 8, 132, 1, 1, "e4m3"),
    # Clusters of two CTAs sharing B by TMA multicast: small (one cluster walking two cluster
    # tiles), an odd number of row tiles (the last CTA's rows all past M), 4096^3, the Llama-3.1
    # shapes, FP8.
    (256, 256, 512, 128, 2, "f32", 1, 8, 2, 1, 1, "f16", 2), (384, 512, 1024, 256, 4, "f16", 1, 8, 132, 1, 1, "f16", 2),
    (4096, 4096, 4096, 256, 4, "f16", 1, 8, 132, 1, 1, "f16", 2),
    (8192, 14336, 4096, 256, 4, "f16", 1, 8, 132, 1, 1, "f16", 2), (8192, 4096, 14336, 256, 4, "f16", 1, 8, 132, 1, 1, "f16", 2),
    (512, 512, 1024, 256, 4, "bf16", 1, 8, 2, 1, 1, "e4m3", 2), (4096, 4096, 4096, 256, 4, "bf16", 1, 8, 132, 1, 1, "e4m3", 2),
    # mma.sync consumers (sm_90): both consumer warpgroups' warps must find their own rows (a
    # gemm in warpgroup 1 once computed warp 0's rows on all four warps), 128- and 256-wide.
    (256, 256, 512, 128, 2, "f32", 1, 8, 2, 0, 1, "f16", 1, "sm_90"),
    (4096, 4096, 4096, 128, 4, "f32", 1, 8, 132, 0, 1, "f16", 1, "sm_90"),
    (4096, 4096, 4096, 128, 4, "f32", 1, 8, 132, 0, 0, "f16", 1, "sm_90"),
    # mma.sync consumers on sm_90a, with setmaxnreg (64x64 warp tiles, 128x256 CTA tiles),
    # alone and in clusters of two.
    (256, 256, 512, 128, 2, "f32", 1, 8, 2, 1, 1, "f16", 1, "sm_90a-mma"),
    (256, 256, 512, 128, 2, "f32", 1, 8, 2, 1, 1, "f16", 2, "sm_90a-mma"),
    (4096, 4096, 4096, 256, 4, "f32", 1, 8, 132, 1, 1, "f16", 1, "sm_90a-mma"),
    (4096, 4096, 4096, 256, 4, "f32", 1, 8, 132, 1, 1, "f16", 2, "sm_90a-mma"),
    # ... with f16 output (what cuBLAS stores: half the epilogue's bytes), alone and in pairs,
    # and with async TMA stores (bench/gpu/mma_sync_gemm.py, mma_sync_bound.py).
    (4096, 4096, 4096, 256, 4, "f16", 1, 8, 132, 1, 1, "f16", 1, "sm_90a-mma"),
    (4096, 4096, 4096, 256, 4, "f16", 1, 8, 132, 1, 1, "f16", 2, "sm_90a-mma"),
    (4096, 4096, 4096, 256, 4, "f16", 1, 8, 132, 1, 2, "f16", 1, "sm_90a-mma"),
    (4096, 4096, 4096, 256, 4, "f32", 1, 8, 132, 1, 2, "f16", 1, "sm_90a-mma"),
    # ... with explicit k16 fragments loaded one step ahead (sm_90a-mma-frag).
    (256, 256, 512, 128, 2, "f32", 1, 8, 2, 1, 1, "f16", 1, "sm_90a-mma-frag"),
    (4096, 4096, 4096, 256, 4, "f32", 1, 8, 132, 1, 1, "f16", 1, "sm_90a-mma-frag"),
    (4096, 4096, 4096, 256, 4, "f32", 1, 8, 132, 1, 1, "f16", 2, "sm_90a-mma-frag"),
]

# The raster-group sweep of bench/gpu/ws_raster_sweep.py: the three Figure 10 shapes that came
# out lowest against cuBLAS in one run, with GROUP 4, 16 and 32 (GROUP 8 is the Figure 10 kernel).
RASTER_SHAPES = [(8192, 12288, 49152), (8192, 49152, 12288), (8192, 73728, 4608)]
RASTER_SWEEP = [(m, n, k, 256, 4, "f16", 1, g, 132, 1, 1) for (m, n, k) in RASTER_SHAPES for g in (4, 16, 32)]

MLIR = {"f16": "f16", "bf16": "bf16", "f32": "f32", "e4m3": "f8E4M3FN", "e5m2": "f8E5M2"}


def choose_cluster(m, n, k, bm=128, bn=256, sms=132):
    """Clusters of two CTAs sharing B by TMA multicast, or none: the generator's heuristic.

    A pair loads each B tile once for two row tiles, so it halves B's traffic from L2 into the
    SMs and the energy spent on it, at the price of coupling the pair (a stage is refilled only
    when both CTAs have released it). On the H100 (bench/RESULTS.md, "Clusters of two chosen per shape"):
    - Large GEMMs run at the card's power limit within seconds, where energy per GEMM decides
      the speed. Timed in palindromic windows of sustained load, the pairs ran 1.4-5.0 % faster
      than the same kernel unclustered at ten Figure 10 shapes that came out low in short
      runs, at 1.4-4.9 % less energy per GEMM; in short runs of Figure 10, f16, 1.027 in
      geometric mean.
    - Below about 10^12 flops (the smaller models' attention and down projections) the pairs
      won nothing in short runs: f16 even, FP8 0.6-7 % slower.
    So: pairs for GEMMs of at least 10^12 flops with two row tiles and two waves of tiles (on
    fewer, the pair's shared start and a tail of half as many units cost more than the traffic
    saves)."""
    tiles_m, tiles_n = -(-m // bm), -(-n // bn)
    return 2 if tiles_m >= 2 and tiles_m * tiles_n >= 2 * sms and 2 * m * n * k >= 10**12 else 1


def figure10_variants(cluster=None):
    """Every f16 projection of the paper's Figure 10 (gen_gemm_tma.figure10_shapes: M = 8192),
    f16 out, with one configuration: 128x256 tiles, 4 stages, persistent, grouped raster of 8,
    setmaxnreg and the TMA-store epilogue (the fastest measured at 4096^3 and the Llama-3.1
    shapes, bench/RESULTS.md), in clusters as choose_cluster picks unless `cluster` is given.
    Every such shape is whole tiles of it."""
    return [(m, n, k, 256, 4, "f16", 1, 8, 132, 1, 1) + _clustered(m, n, k, cluster, ("f16",))
            for (_, _, m, n, k) in gen_gemm_tma.figure10_shapes()]


def figure10_async_variants():
    """figure10_variants() with async TMA stores in the epilogue (TMA_STORE 2): the twins that
    test/gpu/gemm_typed.py --ws --figure10 --bench times beside them."""
    return [v[:10] + (2,) + v[11:] for v in figure10_variants()]


def figure10_fp8_variants(cluster=None):
    """The same shapes in FP8: e4m3 A [M, K] and B [N, K], bf16 out (what torch._scaled_mm
    computes), 128-wide K steps; clusters as for f16."""
    return [(m, n, k, 256, 4, "bf16", 1, 8, 132, 1, 1, "e4m3") + _clustered(m, n, k, cluster, ())
            for (_, _, m, n, k) in gen_gemm_tma.figure10_shapes()]


def _clustered(m, n, k, cluster, dtype):
    """The variant's trailing (dtype, cluster) fields: none for unclustered kernels."""
    cluster = choose_cluster(m, n, k) if cluster is None else cluster
    return () if cluster == 1 else dtype + (cluster,)


def name(m, n, k, bn=256, stages=4, out="f16", persistent=1, group=8, sms=132, regs=1, tma_store=0, dtype="f16",
         cluster=1, chip="sm_90a"):
    return (f"gemm_{m}x{n}x{k}_ws_bn{bn}_s{stages}" + ("" if dtype == "f16" else f"_{dtype}")
            + ("" if out == "f32" else f"_o{out}")
            + ("_p" if persistent else "") + ("" if group == 8 else f"_g{group}")
            + ("" if sms == 132 or not persistent else f"_sm{sms}") + ("" if regs else "_nr")
            + {0: "", 1: "_ts", 2: "_tsa"}[tma_store] + ("" if cluster == 1 else f"_c{cluster}")
            + {"sm_90a": "", "sm_90": "_mma", "sm_90a-mma": "_mma_sm90a", "sm_90a-mma-frag": "_mma_sm90a_f"}[chip])


# setmaxnreg: the producer warpgroup keeps 40 registers per thread, the consumers get 232
# (128 x 40 + 256 x 232 = 64,512 of the 65,536; at launch each of the 384 threads has 168).
PRODUCER_REGS, CONSUMER_REGS = 40, 232
# What the consumers may take is what the producer warpgroup gives up: 2 (C - 168) <= 168 - P.
# SPLIT_REGS (P, C) other than the default keeps that.


def compiled_kernel(m, n, k, bn, stages, out, persistent, group, sms, dtype, cluster, fname=None):
    """The `axe.matmul` of this configuration with its schedule spelled out (the compiler's
    override attribute), for `axe-to-nvvm-pipeline` to expand."""
    fp8 = dtype in ("e4m3", "e5m2")
    tiles_m, tiles_n = -(-m // 128), -(-n // bn)
    walk = -(-tiles_m // cluster) * tiles_n
    grid = (min(walk, sms // cluster) if persistent else walk) * cluster
    schedule = (f"tile_m = 128, tile_n = {bn}, tile_k = {128 if fp8 else 64}, stages = {stages}, "
                f"cluster = {cluster}, group = {group}, grid = {grid}, split_k = 1, "
                f"persistent = {'true' if persistent else 'false'}")
    fname = fname or name(m, n, k, bn, stages, out, persistent, group, sms, 1, 1, dtype, cluster)
    return (f"// Generated by bench/gpu/gen_gemm_ws.py {m} {n} {k} {bn} {stages} {out} {persistent} {group} {sms} 1 1 "
            f"{dtype} {cluster} sm_90a: the compiler builds the kernel (axe-expand-matmul).\n"
            + matmul_ir.module(m, n, k, dtype, out, name=fname, schedule=schedule))


def kernel(m, n, k, bn=256, stages=4, out="f16", persistent=1, group=8, sms=132, regs=1, tma_store=0,
           dtype="f16", cluster=1, chip="sm_90a", ranks=0, fname=None, cooperative=True, defer=False, bulk=False,
           ablate_self=False, reduce=False, ablate_own=False, ablate_flags=False, async_push=0, pushers=False,
           split_regs=(PRODUCER_REGS, CONSUMER_REGS), comm=0):
    # The compiler builds this kernel itself (`axe.matmul`, expanded by axe-expand-matmul: the
    # same IR, op for op) wherever its schedule can say it: one GPU, wgmma consumers with the
    # register split and the TMA-store epilogue. This generator then only writes the matmul
    # with that schedule; the forms below stay for what the compiler does not build (the
    # fused reduce-scatter, mma.sync consumers, the registers- and async-store epilogues).
    if (not ranks and chip == "sm_90a" and regs and tma_store == 1 and split_regs == (PRODUCER_REGS, CONSUMER_REGS)):
        return compiled_kernel(m, n, k, bn, stages, out, persistent, group, sms, dtype, cluster, fname)
    # FP8 (DTYPE e4m3 / e5m2): B is [N, K] (wgmma reads FP8 only K-major) and a K step is 128
    # bytes, the 128B swizzle row, as in gen_gemm_tma.py; the per-tensor scales multiply the
    # accumulator before the store.
    fp8 = dtype in ("e4m3", "e5m2")
    bm, bk = 128, (128 if fp8 else 64)
    assert bn % 64 == 0 and cluster in (1, 2)
    # RANKS > 0: the fused GEMM + reduce-scatter of gen_gemm_rs.py (the Axe paper §4.3) on this
    # kernel: device r of R multiplies its K slice, and the rows of C are reduce-scattered
    # over the devices in the consumers' epilogue (rs_epilogue below). Every device walks
    # the other devices' row tiles first and its own last (its walk's row tiles rotated by
    # (r + 1) M / R), so an own tile waits only for peer tiles that come earlier in every
    # walk; the kernel is `cooperative` (all its CTAs resident, or the launch is refused), so
    # a CTA that waits never holds back the CTA it waits for. COOPERATIVE 0 is for ranks
    # simulated on one GPU (mesh_sim.py): R concurrent launches, each of few CTAs. DEFER: a
    # pushed tile is published at the CTA's next tile's epilogue (or after its last tile), when
    # its remote stores have long landed, so the system-scope fence before the flag does not
    # hold the consumer warpgroup until they are acknowledged. BULK (with DEFER): the push is a
    # TMA store into the peer's memory (one 16 KiB bulk copy per 64 x 128 block: P's slots are
    # laid out in such blocks, the warpgroup's shared tile unswizzled in the same order), which
    # frees the shared tile once read and lands behind the next tile's mainloop.
    assert not bulk or (ranks and defer)
    # REDUCE: no partial-tile buffer. Y is a distributed tensor (device r holds rows r M/R ..);
    # every device first zeroes its share of its own rows (through its consumers' shared tile)
    # and publishes a "zeroed" flag per 64 x BN half tile; then it walks the other devices' row
    # tiles and its own last, as the other forms do, and adds every partial tile into its
    # owner's Y with TMA bulk reductions (`axe.copy ... schedule tma reduce sum`: the owner's
    # memory system does the adds, in f16 as NCCL's reduce-scatter does) once its producer
    # warp has seen that tile's "zeroed" flags, and publishes an "added" flag one tile later.
    # At its end a device waits for every flag of its own rows, so its Y is complete when the
    # kernel ends. The owner never reads partial tiles back, its own tiles (last) are local
    # reductions while the pushes before them drain over NVLink, and nothing is reset between
    # launches (flags hold the epoch).
    assert not reduce or (ranks and not (defer or bulk or ablate_self))
    # ABLATE_SELF (timing only, the sums are wrong): every push goes into this device's own
    # memory (the same slot offsets, on its own device) instead of the owner's, flags as usual:
    # what the pushes cost without NVLink.
    assert not ablate_self or ranks
    # ABLATE_OWN (timing only, the sums are wrong): the own row tiles wait for no flag and add
    # no partial (each stores its own product); ABLATE_FLAGS (with it): no tile is published
    # either. Against the full form they split its cost into the pushes, the flags and the own
    # tiles' waits and reads.
    assert not (ablate_own or ablate_flags) or (ranks and (bulk or pushers))
    assert not ablate_flags or ablate_own
    # ASYNC_PUSH (with BULK): the consumers' stores of a tile's parts (pushes into the peers'
    # memory, stores of the own rows into Y) are async TMA stores (`axe.copy async ...
    # schedule tma`) through ASYNC_PUSH shared tiles per warpgroup used in turn; before a tile
    # is written the warpgroup waits until at most ASYNC_PUSH - 1 stores are still reading
    # theirs (`axe.wait outstanding`). The last part's store then travels behind the next
    # tile's mainloop instead of holding the warpgroup until the TMA unit has read it over a
    # busy NVLink (what the ablations of bench/RESULTS.md, "The fused GEMM + reduce-scatter, taken
    # apart", found the pushes cost).
    # With two, each is half as wide (64 columns), so 4 stages still fit.
    assert async_push in (0, 1, 2) and (not async_push or bulk)
    # TMA_STORE 2: the TMA-store epilogue's stores are async (as ASYNC_PUSH 1): the last part
    # of a tile is read by the TMA unit, and written to C, behind the next tile's mainloop.
    assert tma_store in (0, 1, 2) and (tma_store < 2 or not ranks)
    # PUSHERS: the consumers never store into a peer. They write a peer tile's part into their
    # shared tile and hand it to a pusher warp of the producer warpgroup (warp 2 serves
    # consumer warpgroup 1, warp 3 warpgroup 2: otherwise idle) through two mbarriers
    # ("staged": the warpgroup's 128 threads wrote it; "free": the warp's 32 threads read
    # it); the pusher copies it into the owner's P with 16-byte thread stores and publishes
    # the half tile's flag (`axe.signal`, system scope), so the computing warpgroups spend
    # nothing on NVLink or flags, and the SM's TMA unit only loads. The own tiles are as in
    # the other forms. (The ablations of bench/RESULTS.md, "The fused GEMM + reduce-scatter,
    # taken apart": the pushes over NVLink and the flags cost the
    # bulk form 59 and 28 us at Llama-3.1-8B, R = 4.)
    assert not pushers or (ranks and not (bulk or defer or reduce or async_push))
    # COMM > 0: the last COMM CTAs of the grid compute nothing. The others walk the tiles among
    # themselves and put each peer tile's partial into this device's own memory (%QV, a TMA
    # store: what a computing SM then writes is local only), flagging it staged in local flags
    # (%LFV); each warpgroup of a communication CTA takes every (3 COMM)-th peer tile, waits
    # for its flags, copies its two halves into the owner's P (16-byte loads and stores through
    # registers) and publishes the owner's flags. The own tiles are as in the other forms.
    # What it separates: whether remote stores cost the SM that issues them or the GPU.
    assert not comm or (ranks and persistent and not (bulk or defer or reduce or async_push or pushers or ablate_self))
    assert 2 * (split_regs[1] - 168) <= 168 - split_regs[0] and all(r % 8 == 0 for r in split_regs)
    if tma_store == 2:
        async_push = 1
    assert not ranks or (dtype == "f16" and out == "f16" and tma_store and regs and persistent and cluster == 1
                         and chip == "sm_90a" and m % (bm * ranks * group) == 0 and n % bn == 0
                         and k % (bk * stages) == 0), \
        "GEMM + reduce-scatter: f16, TMA stores, persistent, whole tiles, R * GROUP row tiles per device"
    # CHIP sm_90 (not sm_90a): the same roles, the consumers computing with ldmatrix + mma.sync
    # (what the gemm lowers to without wgmma); setmaxnreg needs sm_90a.
    # CHIP sm_90a-mma: an sm_90a kernel (setmaxnreg: the consumers get 232 registers, room for
    # 64x64 f32 warp tiles that spill under sm_90's 168) whose gemm still runs as ldmatrix +
    # mma.sync, because its accumulator is declared with the m16n8k16 tiling over the
    # warpgroup's four warps (1 x 4, each 64 x BN/4) rather than left to inference, which
    # would anchor it to wgmma's (the dispatch follows the layout, paper §3.4). mma.sync is
    # synchronous, so a stage is released right after its own gemm, not one step later.
    # CHIP sm_90a-mma-frag: the same, each stage's gemm split into its four k16 steps on
    # explicit register fragments (`axe.copy ... schedule ldmatrix`, two buffers per operand),
    # each step's fragments loaded while the previous step computes; the stage is released
    # once its last fragments are loaded. As fast as the whole-stage gemm (bench/RESULTS.md,
    # "A compiler defect: `setmaxnreg` was dropped by ptxas": the spills both had came from
    # ptxas ignoring setmaxnreg, since fixed).
    target = chip.split("-")[0]
    mma_sm90a = chip.startswith("sm_90a-mma")
    assert chip in ("sm_90a", "sm_90", "sm_90a-mma", "sm_90a-mma-frag")
    assert chip != "sm_90" or (not regs and dtype == "f16"), "sm_90: f16, REGS 0"
    assert not mma_sm90a or dtype == "f16", "sm_90a-mma: f16"
    # CLUSTER 2: pairs of CTAs (a cluster, `axe.kernel ... cluster [2]`) compute two row tiles
    # of one column tile; the B tile they share is loaded once for both, half by each CTA
    # (`axe.copy ... multicast [0]`), and a stage is refilled only once the consumers of both
    # CTAs released it: in each consumer warp, lane r arrives on the empty barrier of the CTA
    # of rank r (`axe.mbarrier_arrive %empty cta %lane`), 8 warps x 2 CTAs = 16 arrivals.
    # Any M, N, K: tiles that reach past A, B or C are `{clip}` slices, which TMA fills with
    # zeros (zeros add nothing along K) and whose stores write only what exists; K is walked
    # in whole rounds of the S stages, the steps past K reading only zeros.
    ragged = m % bm != 0 or n % bn != 0 or k % (bk * stages) != 0 or -(-m // bm) % cluster != 0
    clip = " {clip}" if ragged else ""
    e, o = MLIR[dtype], MLIR[out]
    tiles_m, tiles_n = -(-m // bm), -(-n // bn)
    # With clusters, a "tile" of the walk is a cluster's: `cluster` row tiles, one column tile.
    tiles_mc = -(-tiles_m // cluster)
    tiles = tiles_mc * tiles_n
    rounds = -(-k // (bk * stages))
    grid = min(tiles, sms // cluster) if persistent else tiles  # in clusters
    ga = f"!axe.tensor<{m}x{k}x{e}, global, #axe.layout<({m}, {k}) : ({k}, 1)>>"
    gb = (f"!axe.tensor<{n}x{k}x{e}, global, #axe.layout<({n}, {k}) : ({k}, 1)>>" if fp8
          else f"!axe.tensor<{k}x{n}x{e}, global, #axe.layout<({k}, {n}) : ({n}, 1)>>")
    gc = f"!axe.tensor<{m}x{n}x{o}, global, #axe.layout<({m}, {n}) : ({n}, 1)>>"
    ar = f"!axe.tensor<{bm}x{k}x{e}, global, ?>"
    bc = f"!axe.tensor<{bn}x{k}x{e}, global, ?>" if fp8 else f"!axe.tensor<{k}x{bn}x{e}, global, ?>"
    at = f"!axe.tensor<{bm}x{bk}x{e}, global, ?>"
    bt = f"!axe.tensor<{bn}x{bk}x{e}, global, ?>" if fp8 else f"!axe.tensor<{bk}x{bn}x{e}, global, ?>"
    swz = "#axe.swizzle<3, 4, 3>" if fp8 else "#axe.swizzle<3, 3, 3>"
    sa = f"!axe.tensor<{bm}x{bk}x{e}, shared, #axe.layout<({bm}, {bk}) : ({bk}, 1)>, {swz}>"
    sah = f"!axe.tensor<64x{bk}x{e}, shared, ?, {swz}>"
    sb = (f"!axe.tensor<{bn}x{bk}x{e}, shared, #axe.layout<({bn}, {bk}) : ({bk}, 1)>, {swz}>" if fp8
          else f"!axe.tensor<{bk}x{bn}x{e}, shared, #axe.layout<({bk}, {bn // 64}, 64) : (64, {bk * 64}, 1)>, {swz}>")
    gemm_attr = " {transpose_b}" if fp8 else ""
    acc = f"!axe.tensor<64x{bn}xf32, register, ?>"
    if mma_sm90a:
        # m16n8k16's C fragment (lane l: rows l/4 and l/4 + 8, columns 2 (l % 4) + {0, 1}) over
        # 4 atom rows in registers and BN/32 atom columns per warp, the four warps side by side.
        na = bn // 32
        acc = (f"!axe.tensor<64x{bn}xf32, register, #axe.layout<(4, 2, 8, {na}, 4, 4, 2) : "
               f"({4 * na}@reg, 2@reg, 4@lane, 4@reg, 1@warp, 1@lane, 1@reg)>>")
    res = f"!axe.tensor<64x{bn}x{o}, register, ?>"
    ct = f"!axe.tensor<64x{bn}x{o}, global, ?>"
    tok = "!axe.token"
    ft1 = "!axe.tensor<1x1xi32, global, ?>"
    fname = fname or name(m, n, k, bn, stages, out, persistent, group, sms, regs, tma_store, dtype, cluster, chip)
    L = []
    i2, i3, i4, i5 = (" " * w for w in (6, 8, 10, 12))
    L.append(f"// Generated by bench/gpu/gen_gemm_ws.py {m} {n} {k} {bn} {stages} {out} {persistent} {group} {sms} {regs} {tma_store} {dtype} {cluster} {chip}.")
    L.append(f'module attributes {{axe.target = #axe.target<"{target}">}} {{')
    scales = ", %scale_a: memref<1xf32>, %scale_b: memref<1xf32>" if fp8 else ""
    if ranks:
        # P (the partial tiles pushed to their owner), F (one flag per 64 rows: a consumer
        # warpgroup's half of a tile) and Y (the device's rows of the sum).
        if reduce:
            tf, tyd = gen_gemm_tma.rs_reduce_function(L, m, n, k, bn, ranks, e, fname, flag_rows=64)
        else:
            tp, tf, ty = gen_gemm_tma.rs_function(L, m, n, k, bn, ranks, e, fname, flag_rows=64, p_blocks=bulk or pushers,
                                                  staging=comm > 0)
            tqv, tlfv = gen_gemm_tma.rs_staging_types(m, n, bn, e, 64)
    else:
        L.append(f"  func.func @{fname}(%a: memref<{m * k}x{e}> {{axe.align = 16 : i64}}, %b: memref<{k * n}x{e}> {{axe.align = 16 : i64}}, %c: memref<{m * n}x{o}> {{axe.align = 16 : i64}}{scales}) {{")
    L.append(f"    %A = axe.view %a : memref<{m * k}x{e}> to {ga}")
    L.append(f"    %B = axe.view %b : memref<{k * n}x{e}> to {gb}")
    if not ranks:
        L.append(f"    %C = axe.view %c : memref<{m * n}x{o}> to {gc}")
    sg = "!axe.tensor<1x1xf32, global, #axe.layout<(1, 1) : (1, 1)>>"
    sr = "!axe.tensor<1x1xf32, register, ?>"
    if fp8:
        L.append(f"    %SA = axe.view %scale_a : memref<1xf32> to {sg}")
        L.append(f"    %SB = axe.view %scale_b : memref<1xf32> to {sg}")
    clustered = f" cluster [{cluster}]" if cluster > 1 else ""
    clustered += " cooperative" if ranks and cooperative else ""
    L.append(f"    axe.kernel grid [{grid * cluster}] threads [384]{clustered} {{")
    if cluster > 1:
        L.append(f"{i2}%cta = axe.unit_id cluster")
        L.append(f"{i2}%rank = axe.unit_id cta in_cluster")
    else:
        L.append(f"{i2}%cta = axe.unit_id cta")
    for nm, v in (("c0", 0), ("c1", 1), ("cbm", bm), ("cbn", bn), ("ctn", tiles_n), ("ctiles", tiles),
                  ("cgrid", grid - comm), ("crounds", rounds)):
        L.append(f"{i2}%{nm} = arith.constant {v} : index")
    L.append(f"{i2}%true = arith.constant true")
    if ranks:
        L.append(f"{i2}%rank = axe.device_id")
        for nm, v in (("cR", ranks), ("ctm", tiles_m), ("ctmr", tiles_m // ranks), ("cown", tiles_m - tiles_m // ranks),
                      ("crows", m // ranks), ("cn", n), ("c2", 2)):
            L.append(f"{i2}%{nm} = arith.constant {v} : index")
        L.append(f"{i2}%rank1 = arith.addi %rank, %c1 : index")
        # The walk's first row tiles: the next device's (own rows last).
        L.append(f"{i2}%rshift = arith.muli %rank1, %ctmr : index")
        L.append(f"{i2}%rbase = arith.muli %rank, %crows : index")
    # The stages and their barriers: full (two TMA copies land), empty (256 consumer threads
    # are done reading).
    for s in range(stages):
        L.append(f"{i2}%sa{s} = axe.alloc : {sa}")
        L.append(f"{i2}%sb{s} = axe.alloc : {sb}")
    for s in range(stages):
        L.append(f"{i2}%full{s} = axe.mbarrier arrivals 2")
        L.append(f"{i2}%empty{s} = axe.mbarrier arrivals {256 if cluster == 1 else 8 * cluster}")

    def tile_loop(ind, body):
        """The CTA's tiles: t = cta, cta + grid, ...; `body(ind, it)` with `it` the number of
        tiles this CTA did before (for the barrier phases) and %om, %on the tile's origin."""
        L.append(f"{ind}scf.for %t = %cta to %ctiles step %cgrid {{")
        j = ind + "  "
        L.append(f"{j}%tl = arith.subi %t, %cta : index")
        L.append(f"{j}%it = arith.divui %tl, %cgrid : index")
        gen_gemm_tma.raster(L, j, "%t", tiles_mc, tiles_n, group)
        if cluster > 1:
            # This CTA's row tile of its cluster's.
            L.append(f"{j}%ccl = arith.constant {cluster} : index")
            L.append(f"{j}%bmc = arith.muli %bm, %ccl : index")
            L.append(f"{j}%bmr = arith.addi %bmc, %rank : index")
            L.append(f"{j}%om = arith.muli %bmr, %cbm : index")
        elif ranks:
            # The walk's row tile %bm is C's row tile %bmx: the own rows come last.
            L.append(f"{j}%bmw = arith.addi %bm, %rshift : index")
            L.append(f"{j}%bmx = arith.remui %bmw, %ctm : index")
            L.append(f"{j}%om = arith.muli %bmx, %cbm : index")
        else:
            L.append(f"{j}%om = arith.muli %bm, %cbm : index")
        L.append(f"{j}%on = arith.muli %bn, %cbn : index")
        body(j)
        L.append(f"{ind}}}")

    def phase(ind, tag):
        """%pf{tag}: the parity of this round's phase (g = it * rounds + r, g & 1)."""
        L.append(f"{ind}%g{tag} = arith.muli %it, %crounds : index")
        L.append(f"{ind}%use{tag} = arith.addi %g{tag}, %r : index")
        L.append(f"{ind}%gb{tag} = arith.andi %use{tag}, %c1 : index")
        L.append(f"{ind}%pf{tag} = arith.cmpi ne, %gb{tag}, %c0 : index")

    def stage_type():
        """The consumers' shared tile for the epilogue: (its columns, its type)."""
        # TMA_STORE: the warpgroup's 64 output rows go out 256 bytes of each row at a time
        # through its own shared tile (128-byte swizzled rows in two blocks, as wgmma's B:
        # conflict-free fragment writes) and a TMA store issued by the warpgroup (synchronized
        # on its named barrier). Two such 32 KiB tiles fit beside 4 stages of 48 KiB.
        ob = 4 if out == "f32" else 2
        sw = 256 // ob  # the tile's columns
        stage = (f"!axe.tensor<64x{sw}x{o}, shared, #axe.layout<(64, 2, {128 // ob}) : "
                 f"({128 // ob}, {64 * 128 // ob}, 1)>, #axe.swizzle<3, {4 - ob.bit_length() + 1}, 3>>")
        if bulk or pushers:
            # Unswizzled: P's blocks hold the tile in this order, a bulk copy moves it whole.
            stage = f"!axe.tensor<64x{sw}x{o}, shared, #axe.layout<(64, 2, {128 // ob}) : ({128 // ob}, {64 * 128 // ob}, 1)>>"
            if async_push == 2:
                # Two tiles of half the columns (8 KiB each, one half of a P block: one run),
                # the same shared memory as one whole tile: 4 stages still fit.
                sw = 128 // ob
                stage = f"!axe.tensor<64x{sw}x{o}, shared, #axe.layout<(64, {sw}) : ({sw}, 1)>>"
        if reduce:
            # Row-major, unswizzled: each row is one run of Y's (256 bytes), 64 bulk ops a part.
            stage = f"!axe.tensor<64x{sw}x{o}, shared, #axe.layout<(64, {sw}) : ({sw}, 1)>>"
        return sw, stage

    if pushers:
        # The consumers' shared tiles (kernel-wide: the pushers read them) and the handoff.
        _, stage_p = stage_type()
        L.append(f"{i2}%false = arith.constant false")
        for w in (1, 2):
            L.append(f"{i2}%stw{w} = axe.alloc : {stage_p}")
            L.append(f"{i2}%staged{w} = axe.mbarrier arrivals 128")
            L.append(f"{i2}%freed{w} = axe.mbarrier arrivals 32")

    if comm:
        # The communication CTAs (the grid's last COMM), then the computing ones.
        tm64 = m // 64
        L.append(f"{i2}%c_walk = arith.constant {grid - comm} : index")
        L.append(f"{i2}%is_comm = arith.cmpi uge, %cta, %c_walk : index")
        L.append(f"{i2}scf.if %is_comm {{")
        for g in range(3):
            j = i3 + "  "
            L.append(f"{i3}axe.scope warpgroup [{g} : {g + 1}] {{")
            L.append(f"{j}%cm_i = arith.subi %cta, %c_walk : index")
            L.append(f"{j}%cm_3 = arith.constant 3 : index")
            L.append(f"{j}%cm_i3 = arith.muli %cm_i, %cm_3 : index")
            L.append(f"{j}%cm_g = arith.constant {g} : index")
            L.append(f"{j}%cm_start = arith.addi %cm_i3, %cm_g : index")
            L.append(f"{j}%cm_peer = arith.constant {(tiles_m - tiles_m // ranks) * tiles_n} : index")
            L.append(f"{j}%cm_step = arith.constant {3 * comm} : index")
            L.append(f"{j}%cm_tm = arith.constant {tm64} : index")
            L.append(f"{j}%cm_m = arith.constant {m} : index")
            L.append(f"{j}scf.for %t = %cm_start to %cm_peer step %cm_step {{")
            q = j + "  "
            gen_gemm_tma.raster(L, q, "%t", tiles_mc, tiles_n, group)
            L.append(f"{q}%bmw = arith.addi %bm, %rshift : index")
            L.append(f"{q}%bmx = arith.remui %bmw, %ctm : index")
            L.append(f"{q}%om = arith.muli %bmx, %cbm : index")
            L.append(f"{q}%on = arith.muli %bn, %cbn : index")
            L.append(f"{q}%cm_rn = arith.muli %rank, %cn : index")
            L.append(f"{q}%cm_rc = arith.addi %cm_rn, %on : index")
            L.append(f"{q}%cm_rt = arith.muli %rank, %ctn : index")
            L.append(f"{q}%cm_rtc = arith.addi %cm_rt, %bn : index")
            L.append(f"{q}%cm_f2 = arith.muli %bmx, %c2 : index")
            hv = f"!axe.tensor<64x{bn}x{e}, global, ?>"
            hr = f"!axe.tensor<64x{bn}x{e}, register, ?>"
            # Both halves' flags, then both halves' loads, then their stores, then their
            # flags: the loads (and the stores) of the two halves are in flight together.
            for h in range(2):
                L.append(f"{q}%cm_h{h} = arith.constant {h * 64} : index")
                L.append(f"{q}%cm_omw{h} = arith.addi %om, %cm_h{h} : index")
                L.append(f"{q}%cm_fr{h} = arith.addi %cm_f2, %c{h} : index")
                L.append(f"{q}%cm_lr{h} = arith.addi %cm_fr{h}, %cm_tm : index")
                L.append(f"{q}%cm_lf{h} = axe.slice %LFV [%cm_lr{h} : +1, %bn : +1] : {tlfv} to {ft1}")
                L.append(f"{q}axe.signal_wait %cm_lf{h}, %epoch : {ft1}, i32")
            for h in range(2):
                L.append(f"{q}%cm_qr{h} = arith.addi %cm_omw{h}, %cm_m : index")
                L.append(f"{q}%cm_qt{h} = axe.slice %QV [%cm_qr{h} : +64, %on : +{bn}] : {tqv} to {hv}")
                L.append(f"{q}%cm_rg{h} = axe.alloc : {hr}")
                L.append(f"{q}axe.copy %cm_qt{h}, %cm_rg{h} : {hv}, {hr}")
            for h in range(2):
                L.append(f"{q}%cm_pt{h} = axe.slice %P [%cm_omw{h} : +64, %cm_rc : +{bn}] : {tp} to {hv}")
                L.append(f"{q}axe.copy %cm_rg{h}, %cm_pt{h} : {hr}, {hv}")
            for h in range(2):
                L.append(f"{q}%cm_fo{h} = axe.slice %F [%cm_fr{h} : +1, %cm_rtc : +1] : {tf} to {ft1}")
                L.append(f"{q}axe.signal %cm_fo{h}, %epoch : {ft1}, i32")
            L.append(f"{j}}}")
            L.append(f"{i3}}}")
        L.append(f"{i2}}} else {{")
    # Producer: warpgroup 0 gives up registers; its first warp's lane 0 issues the copies.
    L.append(f"{i2}axe.scope warpgroup [0 : 1] {{")
    if regs:
        L.append(f"{i3}axe.set_max_registers {split_regs[0]}")
    L.append(f"{i3}axe.scope warp [0 : 1] {{")

    def bidx(n_part, k_part):
        """B's slice bounds: B is [N, K] for FP8 (K-major, what wgmma reads), else [K, N]."""
        return f"[{n_part}, {k_part}]" if fp8 else f"[{k_part}, {n_part}]"

    def produce(j):
        if reduce:
            # The tile's owner (this device for its own rows) must have zeroed it: the "zeroed"
            # flags of its two 64-row halves, in the owner's slot. The consumers add into it
            # only after the stages loaded below, which they wait for.
            L.append(f"{j}%rs_owner = arith.divui %bmx, %ctmr : index")
            L.append(f"{j}%rs_oc = arith.muli %rs_owner, %ctn : index")
            L.append(f"{j}%rs_ocn = arith.addi %rs_oc, %bn : index")
            L.append(f"{j}%rs_or = arith.muli %bmx, %c2 : index")
            L.append(f"{j}%rs_st = axe.slice %F [%rs_or : +2, %rs_ocn : +1] : {tf} to !axe.tensor<2x1xi32, global, ?>")
            L.append(f"{j}axe.signal_wait %rs_st, %epoch : !axe.tensor<2x1xi32, global, ?>, i32")
        if not ragged:  # ragged: two-dimensional {clip} tiles per K step, below
            L.append(f"{j}%arows = axe.slice %A [%om : +{bm}, 0 : {k}] : {ga} to {ar}")
            L.append(f"{j}%bcols = axe.slice %B {bidx(f'%on : +{bn}', f'0 : {k}')} : {gb} to {bc}")
        L.append(f"{j}scf.for %r = %c0 to %crounds step %c1 {{")
        q = j + "  "
        phase(q, "")
        L.append(f"{q}%pe = arith.xori %pf, %true : i1")
        L.append(f"{q}%cstep = arith.constant {stages * bk} : index")
        L.append(f"{q}%k0 = arith.muli %r, %cstep : index")
        for s in range(stages):
            L.append(f"{q}axe.mbarrier_wait %empty{s}, %pe")
            if s:
                L.append(f"{q}%ko{s} = arith.constant {s * bk} : index")
                L.append(f"{q}%k{s} = arith.addi %k0, %ko{s} : index")
            if ragged:
                L.append(f"{q}%at{s} = axe.slice %A [%om : +{bm}, %k{s} : +{bk}] {{clip}} : {ga} to {at}")
                L.append(f"{q}%bt{s} = axe.slice %B {bidx(f'%on : +{bn}', f'%k{s} : +{bk}')} {{clip}} : {gb} to {bt}")
            else:
                L.append(f"{q}%at{s} = axe.slice %arows [0 : {bm}, %k{s} : +{bk}] : {ar} to {at}")
                L.append(f"{q}%bt{s} = axe.slice %bcols {bidx(f'0 : {bn}', f'%k{s} : +{bk}')} : {bc} to {bt}")
            L.append(f"{q}axe.copy async %at{s}, %sa{s} schedule tma barrier %full{s} : {at}, {sa}")
            mc = " multicast [0]" if cluster > 1 else ""
            L.append(f"{q}axe.copy async %bt{s}, %sb{s} schedule tma barrier %full{s}{mc} : {bt}, {sb}")
        L.append(f"{j}}}")

    def push_row(j, row, tag):
        """The row of P a push of C's row `row` goes to: `row` on its owner, or with
        ABLATE_SELF the same slot offset in this device's own P (timing only)."""
        if not ablate_self:
            return row
        L.append(f"{j}%sr_{tag} = arith.remui {row}, %crows : index")
        L.append(f"{j}%sw_{tag} = arith.addi %sr_{tag}, %rbase : index")
        return f"%sw_{tag}"

    def push(j, w):
        """Pusher warp of consumer warpgroup w: each part of the warpgroup's peer tiles, once
        staged, into its owner's P; then the half tile's flag. Own tiles come last in every
        walk, so a CTA's peer tiles are its first ones and part c of any of them completes the
        barriers' phases of parity c (two parts a tile)."""
        sw_p, stage_p = stage_type()
        pct = f"!axe.tensor<64x{sw_p}x{e}, global, ?>"
        j2 = j + "  "
        L.append(f"{j}%pu_peer = arith.cmpi ult, %bm, %cown : index")
        L.append(f"{j}scf.if %pu_peer {{")
        L.append(f"{j2}%pu_row = arith.constant {(w - 1) * 64} : index")
        L.append(f"{j2}%pu_omw = arith.addi %om, %pu_row : index")
        L.append(f"{j2}%pu_rn = arith.muli %rank, %cn : index")
        L.append(f"{j2}%pu_rc = arith.addi %pu_rn, %on : index")
        for c in range(bn // sw_p):
            L.append(f"{j2}axe.mbarrier_wait %staged{w}, {'%true' if c % 2 else '%false'}")
            L.append(f"{j2}%pu_co{c} = arith.constant {c * sw_p} : index")
            L.append(f"{j2}%pu_pc{c} = arith.addi %pu_rc, %pu_co{c} : index")
            prow = push_row(j2, "%pu_omw", f"pu_{c}")
            L.append(f"{j2}%pu_push{c} = axe.slice %P [{prow} : +64, %pu_pc{c} : +{sw_p}] : {tp} to {pct}")
            L.append(f"{j2}axe.copy %stw{w}, %pu_push{c} : {stage_p}, {pct}")
            L.append(f"{j2}axe.mbarrier_arrive %freed{w}")
        L.append(f"{j2}%pu_f2 = arith.muli %bmx, %c2 : index")
        L.append(f"{j2}%pu_fr = arith.addi %pu_f2, %c{w - 1} : index")
        L.append(f"{j2}%pu_rt = arith.muli %rank, %ctn : index")
        L.append(f"{j2}%pu_rtc = arith.addi %pu_rt, %bn : index")
        L.append(f"{j2}%pu_fo = axe.slice %F [%pu_fr : +1, %pu_rtc : +1] : {tf} to {ft1}")
        if not ablate_flags:
            L.append(f"{j2}axe.signal %pu_fo, %epoch : {ft1}, i32")
        L.append(f"{j}}}")

    tile_loop(i4, produce)
    L.append(f"{i3}}}")
    if pushers:
        for w in (1, 2):
            L.append(f"{i3}axe.scope warp [{w + 1} : {w + 2}] {{")
            tile_loop(i4, lambda j, w=w: push(j, w))
            L.append(f"{i3}}}")
    L.append(f"{i2}}}")
    # Consumers: warpgroup 1 computes rows 0-63 of every tile, warpgroup 2 rows 64-127.
    for w in (1, 2):
        L.append(f"{i2}axe.scope warpgroup [{w} : {w + 1}] {{")
        if regs:
            L.append(f"{i3}axe.set_max_registers {split_regs[1]}")
        row0 = (w - 1) * 64
        for s in range(stages):
            L.append(f"{i3}%sh{s} = axe.slice %sa{s} [{row0} : {row0 + 64}, 0 : {bk}] : {sa} to {sah}")
        L.append(f"{i3}%acc = axe.alloc : {acc}")
        if out != "f32" and not tma_store:
            L.append(f"{i3}%res = axe.alloc : {res}")
        sw, stage = stage_type()
        part = f"!axe.tensor<64x{sw}x{o}, register, ?>"
        part_acc = f"!axe.tensor<64x{sw}xf32, register, ?>"
        part_ct = f"!axe.tensor<64x{sw}x{o}, global, ?>"
        st = f"%stw{w}" if pushers else "%st"
        if tma_store and not pushers:
            L.append(f"{i3}%st = axe.alloc : {stage}")
            if async_push == 2:
                L.append(f"{i3}%st1 = axe.alloc : {stage}")

        def staged_store(j, c, src, src_t, dst):
            """Part c of the tile: registers -> a shared tile -> `dst` (global) by TMA."""
            if not async_push:
                L.append(f"{j}axe.copy {src}, {st} : {src_t}, {stage}")
                L.append(f"{j}axe.copy {st}, {dst} schedule tma : {stage}, {part_ct}")
                return
            buf = "%st" if c % async_push == 0 else "%st1"
            L.append(f"{j}axe.wait outstanding {async_push - 1}")
            L.append(f"{j}axe.copy {src}, {buf} : {src_t}, {stage}")
            L.append(f"{j}%stok{c} = axe.copy async {buf}, {dst} schedule tma : {stage}, {part_ct} -> !axe.token")

        L.append(f"{i3}%z = arith.constant 0.0 : f32")
        if fp8:
            # The product of the per-tensor scales, once per warpgroup.
            L.append(f"{i3}%sa_r = axe.alloc : {sr}")
            L.append(f"{i3}%sb_r = axe.alloc : {sr}")
            L.append(f"{i3}axe.copy %SA, %sa_r : {sg}, {sr}")
            L.append(f"{i3}axe.copy %SB, %sb_r : {sg}, {sr}")
            L.append(f"{i3}axe.binary mul %sa_r, %sb_r, %sa_r : {sr}, {sr}, {sr}")

        if cluster > 1:
            L.append(f"{i3}%tid = axe.unit_id thread")
            L.append(f"{i3}%c32 = arith.constant 32 : index")
            L.append(f"{i3}%lane = arith.remui %tid, %c32 : index")
            L.append(f"{i3}%ccl2 = arith.constant {cluster} : index")
            L.append(f"{i3}%signal = arith.cmpi ult, %lane, %ccl2 : index")

        def release(ind, s):
            """The consumers are done with stage s: every thread arrives on its barrier, or with
            clusters lane r of each warp on the barrier of the CTA of rank r."""
            if cluster == 1:
                L.append(f"{ind}axe.mbarrier_arrive %empty{s}")
            else:
                L.append(f"{ind}scf.if %signal {{")
                L.append(f"{ind}  axe.mbarrier_arrive %empty{s} cta %lane")
                L.append(f"{ind}}}")

        # Two buffers per operand for one k16 step's fragments.
        fa, fb = (gen_gemm_tma.fragment_buffers(L, i3, 64, bn, e) if chip == "sm_90a-mma-frag"
                  else gen_gemm_tma.fragment_types(64, bn, e))

        def fragments(q, s, step, f):
            """Loads k16 step `step` of stage `s` into fragment buffers `f`."""
            gen_gemm_tma.k16_fragments(L, q, (f"%sh{s}", sah), (f"%sb{s}", sb), 64, bn, e, swz, step, f, f"{s}_{step}")

        def fragment_steps(q, s):
            """Stage s: its first fragments, then its four k16 gemms, each step's fragments
            loaded before the previous step's gemm; the stage is released right after its
            last fragments are loaded (the gemms read registers only). (Waiting for the next
            stage and loading its first fragments before this stage's last gemm, as
            gen_gemm_tma's PREFETCH does, ran at 0.45 of cuBLAS against 0.63 for the
            whole-stage gemm: a late stage then holds back a gemm that could run.)"""
            L.append(f"{q}axe.mbarrier_wait %full{s}, %pf")
            fragments(q, s, 0, 0)
            steps = bk // 16
            for t in range(steps):
                if t + 1 < steps:
                    fragments(q, s, t + 1, (t + 1) % 2)
                else:
                    release(q, s)
                f = t % 2
                L.append(f"{q}axe.gemm %fa{f}, %fb{f}, %acc : {fa}, {fb}, {acc}")

        def consume(j):
            L.append(f"{j}axe.fill %acc, %z : {acc}, f32")
            L.append(f"{j}scf.for %r = %c0 to %crounds step %c1 {{")
            q = j + "  "
            phase(q, "")
            L.append(f"{q}%notfirst = arith.cmpi ne, %r, %c0 : index")
            for s in range(stages):
                if chip == "sm_90a-mma-frag":
                    fragment_steps(q, s)
                    continue
                L.append(f"{q}axe.mbarrier_wait %full{s}, %pf")
                if chip == "sm_90a-mma":
                    L.append(f"{q}axe.gemm %sh{s}, %sb{s}, %acc : {sah}, {sb}, {acc}")
                    release(q, s)
                    continue
                L.append(f"{q}%gm{s} = axe.gemm async %sh{s}, %sb{s}, %acc{gemm_attr} : {sah}, {sb}, {acc} -> {tok}")
                L.append(f"{q}axe.wait %gm{s} outstanding 1")
                # The previous K step's gemm is done: its stage may be refilled. (At a tile's
                # first step that stage was released after the previous tile.)
                if s:
                    release(q, s - 1)
                else:
                    L.append(f"{q}scf.if %notfirst {{")
                    release(q + "  ", stages - 1)
                    L.append(f"{q}}}")
            L.append(f"{j}}}")
            if not mma_sm90a:
                L.append(f"{j}axe.wait")
                release(j, stages - 1)
            if fp8:
                L.append(f"{j}axe.binary mul %acc, %sa_r, %acc : {acc}, {sr}, {acc}")
            if ranks and reduce:
                rs_reduce_epilogue(j)
                return
            if ranks:
                rs_epilogue(j)
                return
            # The epilogue: this warpgroup's 64 rows, from registers.
            L.append(f"{j}%crow = arith.constant {row0} : index")
            L.append(f"{j}%omw = arith.addi %om, %crow : index")
            L.append(f"{j}%ct = axe.slice %C [%omw : +64, %on : +{bn}]{clip} : {gc} to {ct}")
            src, src_t = ("%acc", acc) if out == "f32" else ("%res", res)
            if tma_store:
                # Each part is converted right before it goes to shared memory (a register
                # slice of the accumulator, then its cast), not the whole tile up front: with
                # the whole tile converted after the wait, ptxas (CUDA 13.0) placed the
                # conversions of half the accumulator registers above `wgmma.wait_group 0`
                # (SASS: F2FP before WARPGROUP.DEPBAR.LE gsb0, 0x0) in kernels where each CTA
                # had one tile, and those columns missed the last K step (bench/RESULTS.md).
                for c in range(bn // sw):
                    gen_gemm_tma.accumulator_part(L, j, c, sw, acc, part_acc, part if out != "f32" else None)
                    psrc = f"%part{c}" if out != "f32" else f"%pacc{c}"
                    L.append(f"{j}%co{c} = arith.constant {c * sw} : index")
                    L.append(f"{j}%onc{c} = arith.addi %on, %co{c} : index")
                    L.append(f"{j}%ctp{c} = axe.slice %C [%omw : +64, %onc{c} : +{sw}]{clip} : {gc} to {part_ct}")
                    staged_store(j, c, psrc, part if out != 'f32' else part_acc, f"%ctp{c}")
            else:
                if out != "f32":
                    L.append(f"{j}axe.cast %acc, %res : {acc}, {res}")
                L.append(f"{j}axe.copy {src}, %ct : {src_t}, {ct}")

        def rs_epilogue(j):
            """The reduce-scatter, for this warpgroup's 64 rows of the tile, `sw` columns at a
            time through its shared tile %st:
              * an own row tile: wait for each peer's flag of these rows (`axe.signal_wait`,
                acquire at system scope), add the peers' partials (local reads of P, straight
                into the accumulator's layout) and store the sum into Y with TMA;
              * another device's: push the partial into its owner's slot of P for this device
                (16-byte stores over NVLink, shared -> the peer's global) and publish it
                (`axe.signal`: release at system scope, after the warpgroup's barrier)."""
            j2 = j + "  "
            if defer:
                publish_previous(j)
            L.append(f"{j}%crow = arith.constant {row0} : index")
            L.append(f"{j}%omw = arith.addi %om, %crow : index")
            L.append(f"{j}%frow2 = arith.muli %bmx, %c2 : index")
            L.append(f"{j}%frow = arith.addi %frow2, %c{w - 1} : index")
            L.append(f"{j}%own = arith.cmpi uge, %bm, %cown : index")
            L.append(f"{j}scf.if %own {{")
            if pushers:
                # The pusher warp must be done with the shared tile before the own parts go
                # through it: the warpgroup's last peer part (parity 1; a fresh barrier, where
                # the CTA had no peer tile, passes).
                L.append(f"{j2}axe.mbarrier_wait %freed{w}, %true")
            for q in range(1, 1 if ablate_own else ranks):
                # Source (rank + q) mod R: its flag of these rows, then its slot's columns.
                L.append(f"{j2}%rs_q{q} = arith.constant {q} : index")
                L.append(f"{j2}%rs_s{q} = arith.addi %rank, %rs_q{q} : index")
                L.append(f"{j2}%rs_src{q} = arith.remui %rs_s{q}, %cR : index")
                L.append(f"{j2}%rs_ft{q} = arith.muli %rs_src{q}, %ctn : index")
                L.append(f"{j2}%rs_fc{q} = arith.addi %rs_ft{q}, %bn : index")
                L.append(f"{j2}%rs_fl{q} = axe.slice %F [%frow : +1, %rs_fc{q} : +1] : {tf} to {ft1}")
                L.append(f"{j2}axe.signal_wait %rs_fl{q}, %epoch : {ft1}, i32")
                L.append(f"{j2}%rs_sn{q} = arith.muli %rs_src{q}, %cn : index")
                L.append(f"{j2}%rs_col{q} = arith.addi %rs_sn{q}, %on : index")
            L.append(f"{j2}%oml = arith.subi %omw, %rbase : index")
            for c in range(bn // sw):
                gen_gemm_tma.accumulator_part(L, j2, c, sw, acc, part_acc)
                L.append(f"{j2}%co{c} = arith.constant {c * sw} : index")
                for q in range(1, 1 if ablate_own else ranks):
                    gen_gemm_tma.add_partial(L, j2, f"{q}_{c}", f"%pacc{c}", f"%rs_col{q}", f"%co{c}", "%omw", 64, sw, tp, e)
                L.append(f"{j2}%part{c} = axe.alloc : {part}")
                L.append(f"{j2}axe.cast %pacc{c}, %part{c} : {part_acc}, {part}")
                L.append(f"{j2}%onc{c} = arith.addi %on, %co{c} : index")
                L.append(f"{j2}%yt{c} = axe.slice %Y [%oml : +64, %onc{c} : +{sw}] : {ty} to {part_ct}")
                staged_store(j2, c, f"%part{c}", part, f"%yt{c}")
            L.append(f"{j}}} else {{")
            L.append(f"{j2}%rs_rn = arith.muli %rank, %cn : index")
            L.append(f"{j2}%rs_rc = arith.addi %rs_rn, %on : index")
            for c in range(bn // sw):
                gen_gemm_tma.accumulator_part(L, j2, c, sw, acc, part_acc, part)
                L.append(f"{j2}%co{c} = arith.constant {c * sw} : index")
                L.append(f"{j2}%rs_pc{c} = arith.addi %rs_rc, %co{c} : index")
                if comm:
                    # Into this device's own staging rows (a local TMA store); flagged below.
                    L.append(f"{j2}%cm_m{c} = arith.constant {m} : index")
                    L.append(f"{j2}%cm_q{c} = arith.addi %omw, %cm_m{c} : index")
                    L.append(f"{j2}%cm_onc{c} = arith.addi %on, %co{c} : index")
                    L.append(f"{j2}%cm_qs{c} = axe.slice %QV [%cm_q{c} : +64, %cm_onc{c} : +{sw}] : {tqv} to {part_ct}")
                    staged_store(j2, c, f"%part{c}", part, f"%cm_qs{c}")
                    continue
                if pushers:
                    # Hand the part to the pusher warp: wait until it read the previous one
                    # (parity c ^ 1: two parts a tile), write it, signal it staged.
                    L.append(f"{j2}axe.mbarrier_wait %freed{w}, {'%false' if c % 2 else '%true'}")
                    L.append(f"{j2}axe.copy %part{c}, {st} : {part}, {stage}")
                    L.append(f"{j2}axe.mbarrier_arrive %staged{w}")
                    continue
                # This device's own push of the part: into its owner's P.
                prow = push_row(j2, "%omw", f"rs_{c}")
                L.append(f"{j2}%push{c} = axe.slice %P [{prow} : +64, %rs_pc{c} : +{sw}] : {tp} to {part_ct}")
                if bulk:
                    staged_store(j2, c, f"%part{c}", part, f"%push{c}")
                    continue
                L.append(f"{j2}axe.copy %part{c}, %st : {part}, {stage}")
                # The shared tile is written by every thread and read back in other threads'
                # 16-byte pieces: the warpgroup's barrier on both sides.
                L.append(f"{j2}axe.barrier warpgroup")
                L.append(f"{j2}axe.copy %st, %push{c} : {stage}, {part_ct}")
                L.append(f"{j2}axe.barrier warpgroup")
            if comm:
                L.append(f"{j2}%cm_tm = arith.constant {m // 64} : index")
                L.append(f"{j2}%cm_lr = arith.addi %frow, %cm_tm : index")
                L.append(f"{j2}%cm_lf = axe.slice %LFV [%cm_lr : +1, %bn : +1] : {tlfv} to {ft1}")
                L.append(f"{j2}axe.signal %cm_lf, %epoch : {ft1}, i32")
            if not defer and not pushers and not comm:
                L.append(f"{j2}%rs_rt = arith.muli %rank, %ctn : index")
                L.append(f"{j2}%rs_rtc = arith.addi %rs_rt, %bn : index")
                L.append(f"{j2}%rs_fo = axe.slice %F [%frow : +1, %rs_rtc : +1] : {tf} to {ft1}")
                L.append(f"{j2}axe.signal %rs_fo, %epoch : {ft1}, i32")
            L.append(f"{j}}}")

        def zero_own_rows(j):
            """REDUCE's start: this warpgroup's share of the device's own 64 x BN half tiles
            of Y (h = 2 cta + w - 1, stepping by the grid's warpgroups), each zeroed through
            the shared tile (`sw` columns at a time) and published "zeroed" in its own slot."""
            halves = 2 * (tiles_m // ranks) * tiles_n
            L.append(f"{j}%c64 = arith.constant 64 : index")
            L.append(f"{j}%rs_hn0 = arith.constant {2 * (tiles_m // ranks)} : index")
            L.append(f"{j}%z16 = arith.constant 0.0 : {o}")
            L.append(f"{j}axe.fill %st, %z16 : {stage}, {o}")
            L.append(f"{j}%rs_z0 = arith.muli %cta, %c2 : index")
            L.append(f"{j}%rs_z1 = arith.addi %rs_z0, %c{w - 1} : index")
            L.append(f"{j}%rs_zn = arith.constant {halves} : index")
            L.append(f"{j}%rs_zs = arith.muli %cgrid, %c2 : index")
            L.append(f"{j}scf.for %h = %rs_z1 to %rs_zn step %rs_zs {{")
            q = j + "  "
            L.append(f"{q}%rs_zr = arith.divui %h, %ctn : index")
            L.append(f"{q}%rs_zc = arith.remui %h, %ctn : index")
            L.append(f"{q}%rs_zf = arith.muli %rank, %rs_hn0 : index")
            L.append(f"{q}%rs_zfr = arith.addi %rs_zf, %rs_zr : index")
            L.append(f"{q}%rs_zrow = arith.muli %rs_zfr, %c64 : index")
            L.append(f"{q}%rs_zcol = arith.muli %rs_zc, %cbn : index")
            for c in range(bn // sw):
                L.append(f"{q}%rs_zco{c} = arith.constant {c * sw} : index")
                L.append(f"{q}%rs_zcc{c} = arith.addi %rs_zcol, %rs_zco{c} : index")
                L.append(f"{q}%rs_zt{c} = axe.slice %Y [%rs_zrow : +64, %rs_zcc{c} : +{sw}] : {tyd} to {part_ct}")
                L.append(f"{q}axe.copy %st, %rs_zt{c} schedule tma : {stage}, {part_ct}")
            L.append(f"{q}%rs_zo = arith.muli %rank, %ctn : index")
            L.append(f"{q}%rs_zoc = arith.addi %rs_zo, %rs_zc : index")
            L.append(f"{q}%rs_zfl = axe.slice %F [%rs_zfr : +1, %rs_zoc : +1] : {tf} to {ft1}")
            L.append(f"{q}axe.signal %rs_zfl, %epoch : {ft1}, i32")
            L.append(f"{j}}}")

        def rs_reduce_epilogue(j):
            """REDUCE's epilogue: this warpgroup's 64 rows of the tile, `sw` columns at a time
            through its shared tile %st, added into the owner's rows of Y (its own too); an
            added peer tile is published at the CTA's next tile."""
            publish_previous(j)
            L.append(f"{j}%crow = arith.constant {row0} : index")
            L.append(f"{j}%omw = arith.addi %om, %crow : index")
            for c in range(bn // sw):
                gen_gemm_tma.accumulator_part(L, j, c, sw, acc, part_acc, part)
                L.append(f"{j}%co{c} = arith.constant {c * sw} : index")
                L.append(f"{j}%onc{c} = arith.addi %on, %co{c} : index")
                L.append(f"{j}%yt{c} = axe.slice %Y [%omw : +64, %onc{c} : +{sw}] : {tyd} to {part_ct}")
                L.append(f"{j}axe.copy %part{c}, %st : {part}, {stage}")
                L.append(f"{j}axe.copy %st, %yt{c} schedule tma reduce sum : {stage}, {part_ct}")

        def publish_previous(j):
            """Publishes this CTA's previous tile (t - grid) if it was pushed to (or added into)
            another device's rows."""
            L.append(f"{j}%rs_hp = arith.cmpi ne, %it, %c0 : index")
            L.append(f"{j}scf.if %rs_hp {{")
            L.append(f"{j}  %rs_tp = arith.subi %t, %cgrid : index")
            publish_if_pushed(j + "  ", "%rs_tp", "_pv")
            L.append(f"{j}}}")

        def publish_if_pushed(j, tile, sfx):
            """Signals this warpgroup's flag of walk tile `tile` if it was another device's
            (pushed) tile: its row and column tile by the raster, rotated as in tile_loop."""
            j2 = j + "  "
            if ablate_flags:
                return
            gen_gemm_tma.raster(L, j, tile, tiles_mc, tiles_n, group, sfx)
            L.append(f"{j}%rs_pushed{sfx} = arith.cmpi ult, %bm{sfx}, %cown : index")
            L.append(f"{j}scf.if %rs_pushed{sfx} {{")
            L.append(f"{j2}%rs_bw{sfx} = arith.addi %bm{sfx}, %rshift : index")
            L.append(f"{j2}%rs_bx{sfx} = arith.remui %rs_bw{sfx}, %ctm : index")
            L.append(f"{j2}%rs_f2{sfx} = arith.muli %rs_bx{sfx}, %c2 : index")
            L.append(f"{j2}%rs_fr{sfx} = arith.addi %rs_f2{sfx}, %c{w - 1} : index")
            L.append(f"{j2}%rs_rt{sfx} = arith.muli %rank, %ctn : index")
            L.append(f"{j2}%rs_rc{sfx} = arith.addi %rs_rt{sfx}, %bn{sfx} : index")
            L.append(f"{j2}%rs_fo{sfx} = axe.slice %F [%rs_fr{sfx} : +1, %rs_rc{sfx} : +1] : {tf} to {ft1}")
            L.append(f"{j2}axe.signal %rs_fo{sfx}, %epoch : {ft1}, i32")
            L.append(f"{j}}}")

        if reduce:
            zero_own_rows(i3)
        tile_loop(i3, consume)
        if ranks and (defer or reduce):
            # The CTA's last tile, t = cta + n grid with n = (tiles - 1 - cta) / grid (the grid
            # has at most as many CTAs as there are tiles), published if it was pushed.
            L.append(f"{i3}%rs_l0 = arith.subi %ctiles, %c1 : index")
            L.append(f"{i3}%rs_l1 = arith.subi %rs_l0, %cta : index")
            L.append(f"{i3}%rs_l2 = arith.divui %rs_l1, %cgrid : index")
            L.append(f"{i3}%rs_l3 = arith.muli %rs_l2, %cgrid : index")
            L.append(f"{i3}%rs_tl = arith.addi %cta, %rs_l3 : index")
            publish_if_pushed(i3, "%rs_tl", "_ls")
        if reduce:
            # Y's own rows are complete once every device's flag of them holds the epoch (the
            # own "zeroed" flags and the peers' "added" ones, all column tiles; this device's
            # own adds complete at the kernel's exit): each warpgroup waits for its share of
            # the own 64-row halves, so the kernel ends only then.
            L.append(f"{i3}%rs_h0 = arith.muli %cta, %c2 : index")
            L.append(f"{i3}%rs_h1 = arith.addi %rs_h0, %c{w - 1} : index")
            L.append(f"{i3}%rs_hn = arith.constant {2 * (tiles_m // ranks)} : index")  # own halves' rows
            L.append(f"{i3}%rs_hs = arith.muli %cgrid, %c2 : index")
            L.append(f"{i3}%rs_hb = arith.muli %rank, %rs_hn : index")
            L.append(f"{i3}scf.for %hw = %rs_h1 to %rs_hn step %rs_hs {{")
            L.append(f"{i3}  %rs_fr = arith.addi %rs_hb, %hw : index")
            L.append(f"{i3}  %rs_all = axe.slice %F [%rs_fr : +1, 0 : {ranks * tiles_n}] : {tf} to !axe.tensor<1x{ranks * tiles_n}xi32, global, ?>")
            L.append(f"{i3}  axe.signal_wait %rs_all, %epoch : !axe.tensor<1x{ranks * tiles_n}xi32, global, ?>, i32")
            L.append(f"{i3}}}")
        L.append(f"{i2}}}")
    if comm:
        L.append(f"{i2}}}")
    L.append("    }")
    if ranks:
        L.append("    }")
    L.append("    return")
    L.append("  }")
    L.append("}")
    return "\n".join(L) + "\n"


if __name__ == "__main__":
    if sys.argv[1] == "--all":
        for v in dict.fromkeys(VARIANTS + figure10_variants(1) + figure10_fp8_variants(1) + RASTER_SWEEP
                               + figure10_variants() + figure10_fp8_variants() + figure10_variants(2)
                               + figure10_fp8_variants(2) + figure10_async_variants()):
            with open(f"{sys.argv[2]}/{name(*v)}.mlir", "w") as f:
                f.write(kernel(*v))
    else:
        a = sys.argv[1:]
        ints = [int(x) for x in a[:5]]
        rest = a[5:]
        print(kernel(*ints, *(rest[:1]), *[int(x) for x in rest[1:6]], *rest[6:7], *[int(x) for x in rest[7:8]],
                     *rest[8:9]), end="")
