"""A warp-specialized, persistent TMA + wgmma Axe GEMM for sm_90a (the Axe paper §4.1's
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

    PYTHONPATH=python python3 -m axe_gen.gemm_ws M N K [--bn BN] [--stages S] [--out OUT] [--persistent 0|1]
        [--group G] [--sms SMS] [--regs 0|1] [--tma-store 0|1|2] [--dtype DTYPE] [--cluster 1|2] [--chip CHIP]
        [--ranks R ...] > gemm_MxNxK_ws.mlir
    ... M N K [BN [S [OUT [PERSISTENT [GROUP [SMS [REGS [TMA_STORE [DTYPE [CLUSTER [CHIP]]]]]]]]]]]
        (the former positional command line, still accepted)
    (TMA_STORE: 0 stores from registers, 1 through shared memory with TMA stores, 2 the same
    with async TMA stores)
    ... --all DIR          (VARIANTS and Figure 10's kernels, each with and without clusters, as DIR/<name>.mlir)

`kernel` takes the options as keywords (or positionally, as the drivers in bench/gpu call it);
`Options` is the same configuration as one frozen value, `generate(m, n, k, options)` its
kernel.

Each tile is a whole number of rounds of the S stages (stage s of round r is K step r S + s on
every tile); shapes that are not tile multiples use `{clip}` tiles (TMA's zero fill, clipped
stores), the K steps past K reading zeros.

The kernel is written through the typed emitter (`axe_gen.emitter`).
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import os
import sys
from collections.abc import Callable
from typing import Any

from . import matmul
from .emitter import DTYPES, F32, I1, I32, At, Emitter, MemRef, Param, Span, Tensor, Type, Value, row_major
from .gemm_parts import (
    RsViews,
    accumulator_part,
    add_partial,
    fragment_buffers,
    glob,
    k16_fragments,
    raster,
    reg,
    rs_function,
    rs_reduce_function,
    rs_staging_types,
)
from .gemm_tma import figure10_shapes

Variant = tuple[Any, ...]

# (M, N, K, BN, S, OUT, PERSISTENT, GROUP) that test/gpu/build.sh lowers and
# test/gpu/gemm_typed.py --ws runs: a small one (correctness, every role boundary), 4096^3,
# and the Llama-3.1-8B and -70B MLP GEMMs at batch 8192.
VARIANTS: list[Variant] = [
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
RASTER_SWEEP: list[Variant] = [(m, n, k, 256, 4, "f16", 1, g, 132, 1, 1) for (m, n, k) in RASTER_SHAPES for g in (4, 16, 32)]

ELEMENTS = DTYPES  # the element type of each DTYPE / OUT name


def choose_cluster(m: int, n: int, k: int, bm: int = 128, bn: int = 256, sms: int = 132) -> int:
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


def figure10_variants(cluster: int | None = None) -> list[Variant]:
    """Every f16 projection of the paper's Figure 10 (gemm_tma.figure10_shapes: M = 8192),
    f16 out, with one configuration: 128x256 tiles, 4 stages, persistent, grouped raster of 8,
    setmaxnreg and the TMA-store epilogue (the fastest measured at 4096^3 and the Llama-3.1
    shapes, bench/RESULTS.md), in clusters as choose_cluster picks unless `cluster` is given.
    Every such shape is whole tiles of it."""
    return [(m, n, k, 256, 4, "f16", 1, 8, 132, 1, 1) + _clustered(m, n, k, cluster, ("f16",))
            for (_, _, m, n, k) in figure10_shapes()]


def figure10_async_variants() -> list[Variant]:
    """figure10_variants() with async TMA stores in the epilogue (TMA_STORE 2): the twins that
    test/gpu/gemm_typed.py --ws --figure10 --bench times beside them."""
    return [v[:10] + (2,) + v[11:] for v in figure10_variants()]


def figure10_fp8_variants(cluster: int | None = None) -> list[Variant]:
    """The same shapes in FP8: e4m3 A [M, K] and B [N, K], bf16 out (what torch._scaled_mm
    computes), 128-wide K steps; clusters as for f16."""
    return [(m, n, k, 256, 4, "bf16", 1, 8, 132, 1, 1, "e4m3") + _clustered(m, n, k, cluster, ())
            for (_, _, m, n, k) in figure10_shapes()]


def _clustered(m: int, n: int, k: int, cluster: int | None, dtype: tuple[str, ...]) -> Variant:
    """The variant's trailing (dtype, cluster) fields: none for unclustered kernels."""
    cluster = choose_cluster(m, n, k) if cluster is None else cluster
    return () if cluster == 1 else dtype + (cluster,)


def name(m: int, n: int, k: int, bn: int = 256, stages: int = 4, out: str = "f16", persistent: int = 1, group: int = 8,
         sms: int = 132, regs: int = 1, tma_store: int = 0, dtype: str = "f16", cluster: int = 1,
         chip: str = "sm_90a") -> str:
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


@dataclasses.dataclass(frozen=True)
class Options:
    """The kernel's configuration (every field but the shape; `kernel`'s keywords, whose
    comments in `generate` say what each does): tile width BN, stages, output type, persistent
    CTAs, raster group, SMs, the register split, the epilogue's TMA stores, the input type,
    clusters, the consumers' instructions (CHIP); and the fused GEMM + reduce-scatter's
    (RANKS > 0) forms and ablations."""

    bn: int = 256
    stages: int = 4
    out: str = "f16"
    persistent: int = 1
    group: int = 8
    sms: int = 132
    regs: int = 1
    tma_store: int = 0
    dtype: str = "f16"
    cluster: int = 1
    chip: str = "sm_90a"
    ranks: int = 0
    fname: str | None = None
    cooperative: bool = True
    defer: bool = False
    bulk: bool = False
    ablate_self: bool = False
    reduce: bool = False
    ablate_own: bool = False
    ablate_flags: bool = False
    async_push: int = 0
    pushers: bool = False
    split_regs: tuple[int, int] = (PRODUCER_REGS, CONSUMER_REGS)
    comm: int = 0

    def name(self, m: int, n: int, k: int) -> str:
        return name(m, n, k, self.bn, self.stages, self.out, self.persistent, self.group, self.sms, self.regs,
                    self.tma_store, self.dtype, self.cluster, self.chip)


def compiled_kernel(m: int, n: int, k: int, bn: int, stages: int, out: str, persistent: int, group: int, sms: int,
                    dtype: str, cluster: int, fname: str | None = None) -> str:
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
    return (f"// Generated by axe_gen.gemm_ws {m} {n} {k} {bn} {stages} {out} {persistent} {group} {sms} 1 1 "
            f"{dtype} {cluster} sm_90a: the compiler builds the kernel (axe-expand-matmul).\n"
            + matmul.module(m, n, k, dtype, out, name=fname, schedule=schedule))


def kernel(m: int, n: int, k: int, bn: int = 256, stages: int = 4, out: str = "f16", persistent: int = 1,
           group: int = 8, sms: int = 132, regs: int = 1, tma_store: int = 0, dtype: str = "f16", cluster: int = 1,
           chip: str = "sm_90a", ranks: int = 0, fname: str | None = None, cooperative: bool = True,
           defer: bool = False, bulk: bool = False, ablate_self: bool = False, reduce: bool = False,
           ablate_own: bool = False, ablate_flags: bool = False, async_push: int = 0, pushers: bool = False,
           split_regs: tuple[int, int] = (PRODUCER_REGS, CONSUMER_REGS), comm: int = 0) -> str:
    """The kernel of an M x N x K product with these options (`Options`' fields, positionally
    in the former command line's order or as keywords): `generate(m, n, k, Options(...))`."""
    return generate(m, n, k, Options(bn, stages, out, persistent, group, sms, regs, tma_store, dtype, cluster, chip,
                                     ranks, fname, cooperative, defer, bulk, ablate_self, reduce, ablate_own,
                                     ablate_flags, async_push, pushers, (split_regs[0], split_regs[1]), comm))


@dataclasses.dataclass(frozen=True)
class TileAt:
    """A tile of the CTA's walk: the walk index `t`, the CTA's earlier tiles `it`, the raster's
    row and column tile, C's row tile (`bmx`: rotated, with RANKS), the tile's origin."""

    t: Value
    it: Value
    bm: Value
    bn: Value
    bmx: Value | None
    om: Value
    on: Value


def generate(m: int, n: int, k: int, o: Options) -> str:
    """The kernel (module documentation; `Options`)."""
    bn, stages, out, persistent, group, sms = o.bn, o.stages, o.out, o.persistent, o.group, o.sms
    regs, tma_store, dtype, cluster, chip, ranks = o.regs, o.tma_store, o.dtype, o.cluster, o.chip, o.ranks
    defer, bulk, ablate_self, reduce, ablate_own, ablate_flags = (o.defer, o.bulk, o.ablate_self, o.reduce,
                                                                  o.ablate_own, o.ablate_flags)
    async_push, pushers, split_regs, comm = o.async_push, o.pushers, o.split_regs, o.comm
    # The compiler builds this kernel itself (`axe.matmul`, expanded by axe-expand-matmul: the
    # same IR, op for op) wherever its schedule can say it: one GPU, wgmma consumers with the
    # register split and the TMA-store epilogue. This generator then only writes the matmul
    # with that schedule; the forms below stay for what the compiler does not build (the
    # fused reduce-scatter, mma.sync consumers, the registers- and async-store epilogues).
    if (not ranks and chip == "sm_90a" and regs and tma_store == 1 and split_regs == (PRODUCER_REGS, CONSUMER_REGS)):
        return compiled_kernel(m, n, k, bn, stages, out, persistent, group, sms, dtype, cluster, o.fname)
    # FP8 (DTYPE e4m3 / e5m2): B is [N, K] (wgmma reads FP8 only K-major) and a K step is 128
    # bytes, the 128B swizzle row, as in gemm_tma; the per-tensor scales multiply the
    # accumulator before the store.
    fp8 = dtype in ("e4m3", "e5m2")
    bm, bk = 128, (128 if fp8 else 64)
    assert bn % 64 == 0 and cluster in (1, 2)
    # RANKS > 0: the fused GEMM + reduce-scatter of axe_gen.gemm_rs (the Axe paper §4.3) on this
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
    et, ot = ELEMENTS[dtype], ELEMENTS[out]
    tiles_m, tiles_n = -(-m // bm), -(-n // bn)
    # With clusters, a "tile" of the walk is a cluster's: `cluster` row tiles, one column tile.
    tiles_mc = -(-tiles_m // cluster)
    tiles = tiles_mc * tiles_n
    rounds = -(-k // (bk * stages))
    grid = min(tiles, sms // cluster) if persistent else tiles  # in clusters
    fname = o.fname or name(m, n, k, bn, stages, out, persistent, group, sms, regs, tma_store, dtype, cluster, chip)

    e = Emitter(f"Generated by axe_gen.gemm_ws {m} {n} {k} {bn} {stages} {out} {persistent} {group} {sms} {regs} "
                f"{tma_store} {dtype} {cluster} {chip}.")
    swz = (3, 4, 3) if fp8 else (3, 3, 3)
    ga = e.alias("a", row_major(m, k, et))
    gb = e.alias("b", row_major(n, k, et) if fp8 else row_major(k, n, et))
    gc = e.alias("c", row_major(m, n, ot))
    ar = e.alias("a_rows", glob((bm, k), et))
    bc = e.alias("b_cols", glob((bn, k), et) if fp8 else glob((k, bn), et))
    at = e.alias("a_tile", glob((bm, bk), et))
    bt = e.alias("b_tile", glob((bn, bk), et) if fp8 else glob((bk, bn), et))
    sa = e.alias("a_stage", Tensor((bm, bk), et, "shared", f"({bm}, {bk}) : ({bk}, 1)", swz))
    sah = e.alias("a_half", Tensor((64, bk), et, "shared", None, swz))
    sb = e.alias("b_stage", Tensor((bn, bk), et, "shared", f"({bn}, {bk}) : ({bk}, 1)", swz) if fp8
                 else Tensor((bk, bn), et, "shared", f"({bk}, {bn // 64}, 64) : (64, {bk * 64}, 1)", swz))
    acc_t = e.alias("acc", reg((64, bn), F32))
    if mma_sm90a:
        # m16n8k16's C fragment (lane l: rows l/4 and l/4 + 8, columns 2 (l % 4) + {0, 1}) over
        # 4 atom rows in registers and BN/32 atom columns per warp, the four warps side by side.
        na = bn // 32
        acc_t = e.alias("acc_mma", Tensor((64, bn), F32, "register",
                                          f"(4, 2, 8, {na}, 4, 4, 2) : ({4 * na}@reg, 2@reg, 4@lane, 4@reg, "
                                          f"1@warp, 1@lane, 1@reg)"))
    res_t = reg((64, bn), ot)
    ct_t = glob((64, bn), ot)
    ft1 = glob((1, 1), I32)
    sg = Tensor((1, 1), F32, "global", "(1, 1) : (1, 1)")
    sr = reg((1, 1), F32)

    with contextlib.ExitStack() as stack:
        stack.enter_context(e.module(target))
        views: RsViews | None = None
        tqv = tlfv = None
        if ranks:
            # P (the partial tiles pushed to their owner), F (one flag per 64 rows: a consumer
            # warpgroup's half of a tile) and Y (the device's rows of the sum).
            if reduce:
                views = stack.enter_context(rs_reduce_function(e, m, n, k, bn, ranks, et, fname, flag_rows=64))
            else:
                views = stack.enter_context(rs_function(e, m, n, k, bn, ranks, et, fname, flag_rows=64,
                                                        p_blocks=bulk or pushers, staging=comm > 0))
                tqv, tlfv = rs_staging_types(m, n, bn, et, 64)
            a_buf, b_buf = views.a, views.b
        else:
            params = [Param("a", MemRef(m * k, et), 16), Param("b", MemRef(k * n, et), 16),
                      Param("c", MemRef(m * n, ot), 16)]
            if fp8:
                params += [Param("scale_a", MemRef(1, F32)), Param("scale_b", MemRef(1, F32))]
            args = stack.enter_context(e.func(fname, params))
            a_buf, b_buf = args[0], args[1]
        A = e.view(a_buf, ga, name="A")
        B = e.view(b_buf, gb, name="B")
        C = e.view(args[2], gc, name="C") if not ranks else None
        SA = SB = None
        if fp8:
            SA, SB = e.view(args[3], sg, name="SA"), e.view(args[4], sg, name="SB")
        stack.enter_context(e.kernel([grid * cluster], [384], cluster=[cluster] if cluster > 1 else None,
                                     cooperative=bool(ranks and o.cooperative)))
        rank: Value | None = None
        if cluster > 1:
            cta = e.unit_id("cluster", name="cta")
            rank = e.unit_id("cta in_cluster", name="rank")
        else:
            cta = e.unit_id("cta", name="cta")
        c0 = e.constant(0, name="c0")
        c1 = e.constant(1, name="c1")
        cbm = e.constant(bm, name="cbm")
        cbn = e.constant(bn, name="cbn")
        ctn = e.constant(tiles_n, name="ctn")
        ctiles = e.constant(tiles, name="ctiles")
        cgrid = e.constant(grid - comm, name="cgrid")
        crounds = e.constant(rounds, name="crounds")
        true = e.constant(1, I1, name="true")
        cr = ctm = ctmr = cown = crows = cn = c2 = rshift = rbase = None
        if ranks:
            rank = e.device_id(name="rank")
            cr = e.constant(ranks, name="cR")
            ctm = e.constant(tiles_m, name="ctm")
            ctmr = e.constant(tiles_m // ranks, name="ctmr")
            cown = e.constant(tiles_m - tiles_m // ranks, name="cown")
            crows = e.constant(m // ranks, name="crows")
            cn = e.constant(n, name="cn")
            c2 = e.constant(2, name="c2")
            rank1 = e.addi(rank, c1, name="rank1")
            # The walk's first row tiles: the next device's (own rows last).
            rshift = e.muli(rank1, ctmr, name="rshift")
            rbase = e.muli(rank, crows, name="rbase")
        cw = [c0, c1]  # %c{w - 1}, %c{h}
        # The stages and their barriers: full (two TMA copies land), empty (256 consumer
        # threads are done reading).
        sa_s, sb_s, full, empty = [], [], [], []
        for s in range(stages):
            sa_s.append(e.alloc(sa, name=f"sa{s}"))
            sb_s.append(e.alloc(sb, name=f"sb{s}"))
        for s in range(stages):
            full.append(e.mbarrier(2, name=f"full{s}"))
            empty.append(e.mbarrier(256 if cluster == 1 else 8 * cluster, name=f"empty{s}"))

        def tile_loop(body: Callable[[TileAt], None]) -> None:
            """The CTA's tiles: t = cta, cta + grid, ...; `body(tile)` with `tile.it` the number
            of tiles this CTA did before (for the barrier phases) and the tile's origin."""
            with e.for_(cta, ctiles, cgrid, iv="t") as loop:
                t = loop.iv
                tl = e.subi(t, cta, name="tl")
                it = e.divui(tl, cgrid, name="it")
                bmv, bnv = raster(e, t, tiles_mc, tiles_n, group, ctn)
                bmx = None
                if cluster > 1:
                    assert rank is not None
                    # This CTA's row tile of its cluster's.
                    ccl = e.constant(cluster, name="ccl")
                    bmc = e.muli(bmv, ccl, name="bmc")
                    bmr = e.addi(bmc, rank, name="bmr")
                    om = e.muli(bmr, cbm, name="om")
                elif ranks:
                    assert rshift is not None and ctm is not None
                    # The walk's row tile %bm is C's row tile %bmx: the own rows come last.
                    bmw = e.addi(bmv, rshift, name="bmw")
                    bmx = e.remui(bmw, ctm, name="bmx")
                    om = e.muli(bmx, cbm, name="om")
                else:
                    om = e.muli(bmv, cbm, name="om")
                on = e.muli(bnv, cbn, name="on")
                body(TileAt(t, it, bmv, bnv, bmx, om, on))

        def phase(it: Value, r: Value) -> Value:
            """%pf: the parity of this round's phase (g = it * rounds + r, g & 1)."""
            g = e.muli(it, crounds, name="g")
            use = e.addi(g, r, name="use")
            gb_ = e.andi(use, c1, name="gb")
            return e.cmpi("ne", gb_, c0, name="pf")

        def stage_type() -> tuple[int, Tensor]:
            """The consumers' shared tile for the epilogue: (its columns, its type)."""
            # TMA_STORE: the warpgroup's 64 output rows go out 256 bytes of each row at a time
            # through its own shared tile (128-byte swizzled rows in two blocks, as wgmma's B:
            # conflict-free fragment writes) and a TMA store issued by the warpgroup
            # (synchronized on its named barrier). Two such 32 KiB tiles fit beside 4 stages of
            # 48 KiB.
            ob = 4 if out == "f32" else 2
            sw = 256 // ob  # the tile's columns
            blocks = f"(64, 2, {128 // ob}) : ({128 // ob}, {64 * 128 // ob}, 1)"
            stage = Tensor((64, sw), ot, "shared", blocks, (3, 4 - ob.bit_length() + 1, 3))
            if bulk or pushers:
                # Unswizzled: P's blocks hold the tile in this order, a bulk copy moves it whole.
                stage = Tensor((64, sw), ot, "shared", blocks)
                if async_push == 2:
                    # Two tiles of half the columns (8 KiB each, one half of a P block: one
                    # run), the same shared memory as one whole tile: 4 stages still fit.
                    sw = 128 // ob
                    stage = Tensor((64, sw), ot, "shared", f"(64, {sw}) : ({sw}, 1)")
            if reduce:
                # Row-major, unswizzled: each row is one run of Y's (256 bytes), 64 bulk ops a part.
                stage = Tensor((64, sw), ot, "shared", f"(64, {sw}) : ({sw}, 1)")
            return sw, stage

        stw: dict[int, Value] = {}
        staged: dict[int, Value] = {}
        freed: dict[int, Value] = {}
        false = None
        if pushers:
            # The consumers' shared tiles (kernel-wide: the pushers read them) and the handoff.
            _, stage_p = stage_type()
            false = e.constant(0, I1, name="false")
            for w in (1, 2):
                stw[w] = e.alloc(stage_p, name=f"stw{w}")
                staged[w] = e.mbarrier(128, name=f"staged{w}")
                freed[w] = e.mbarrier(32, name=f"freed{w}")

        if_comm = None
        if comm:
            assert views is not None and views.P is not None and views.QV is not None and views.LFV is not None
            assert rank is not None and rshift is not None and ctm is not None and cn is not None and c2 is not None
            # The communication CTAs (the grid's last COMM), then the computing ones.
            tm64 = m // 64
            c_walk = e.constant(grid - comm, name="c_walk")
            is_comm = e.cmpi("uge", cta, c_walk, name="is_comm")
            if_comm = e.if_(is_comm)
            comm_branch = if_comm.__enter__()
            for g in range(3):
                with e.scope("warpgroup", g, g + 1):
                    cm_i = e.subi(cta, c_walk, name="cm_i")
                    cm_3 = e.constant(3, name="cm_3")
                    cm_i3 = e.muli(cm_i, cm_3, name="cm_i3")
                    cm_g = e.constant(g, name="cm_g")
                    cm_start = e.addi(cm_i3, cm_g, name="cm_start")
                    cm_peer = e.constant((tiles_m - tiles_m // ranks) * tiles_n, name="cm_peer")
                    cm_step = e.constant(3 * comm, name="cm_step")
                    cm_tm = e.constant(tm64, name="cm_tm")
                    cm_m = e.constant(m, name="cm_m")
                    with e.for_(cm_start, cm_peer, cm_step, iv="t") as loop:
                        bmv, bnv = raster(e, loop.iv, tiles_mc, tiles_n, group, ctn)
                        bmw = e.addi(bmv, rshift, name="bmw")
                        bmx = e.remui(bmw, ctm, name="bmx")
                        om = e.muli(bmx, cbm, name="om")
                        on = e.muli(bnv, cbn, name="on")
                        cm_rn = e.muli(rank, cn, name="cm_rn")
                        cm_rc = e.addi(cm_rn, on, name="cm_rc")
                        cm_rt = e.muli(rank, ctn, name="cm_rt")
                        cm_rtc = e.addi(cm_rt, bnv, name="cm_rtc")
                        cm_f2 = e.muli(bmx, c2, name="cm_f2")
                        hv, hr = glob((64, bn), et), reg((64, bn), et)
                        # Both halves' flags, then both halves' loads, then their stores, then
                        # their flags: the loads (and the stores) of the two halves are in flight
                        # together.
                        omw, fr, rg = {}, {}, {}
                        for h in range(2):
                            cm_h = e.constant(h * 64, name=f"cm_h{h}")
                            omw[h] = e.addi(om, cm_h, name=f"cm_omw{h}")
                            fr[h] = e.addi(cm_f2, cw[h], name=f"cm_fr{h}")
                            lr = e.addi(fr[h], cm_tm, name=f"cm_lr{h}")
                            e.signal_wait(e.slice(views.LFV, [At(lr, 1), At(bnv, 1)], ft1, name=f"cm_lf{h}"), views.epoch)
                        for h in range(2):
                            qr = e.addi(omw[h], cm_m, name=f"cm_qr{h}")
                            qt = e.slice(views.QV, [At(qr, 64), At(on, bn)], hv, name=f"cm_qt{h}")
                            rg[h] = e.alloc(hr, name=f"cm_rg{h}")
                            e.copy(qt, rg[h])
                        for h in range(2):
                            pt = e.slice(views.P, [At(omw[h], 64), At(cm_rc, bn)], hv, name=f"cm_pt{h}")
                            e.copy(rg[h], pt)
                        for h in range(2):
                            fo = e.slice(views.F, [At(fr[h], 1), At(cm_rtc, 1)], ft1, name=f"cm_fo{h}")
                            e.signal(fo, views.epoch)
            comm_branch.else_()

        def bslice(src: Value, n_part: Span | At, k_part: Span | At, t: Type, nm: str,
                   clip: bool = False) -> Value:
            """B's slice: B is [N, K] for FP8 (K-major, what wgmma reads), else [K, N]."""
            return e.slice(src, [n_part, k_part] if fp8 else [k_part, n_part], t, name=nm, clip=clip)

        def produce(tile: TileAt) -> None:
            if reduce:
                assert views is not None and ctmr is not None and c2 is not None and tile.bmx is not None
                # The tile's owner (this device for its own rows) must have zeroed it: the
                # "zeroed" flags of its two 64-row halves, in the owner's slot. The consumers
                # add into it only after the stages loaded below, which they wait for.
                owner = e.divui(tile.bmx, ctmr, name="rs_owner")
                oc = e.muli(owner, ctn, name="rs_oc")
                ocn = e.addi(oc, tile.bn, name="rs_ocn")
                orow = e.muli(tile.bmx, c2, name="rs_or")
                e.signal_wait(e.slice(views.F, [At(orow, 2), At(ocn, 1)], glob((2, 1), I32), name="rs_st"),
                              views.epoch)
            arows = bcols = None
            if not ragged:  # ragged: two-dimensional {clip} tiles per K step, below
                arows = e.slice(A, [At(tile.om, bm), Span(0, k)], ar, name="arows")
                bcols = bslice(B, At(tile.on, bn), Span(0, k), bc, "bcols")
            with e.for_(c0, crounds, c1, iv="r") as loop:
                pf = phase(tile.it, loop.iv)
                pe = e.xori(pf, true, name="pe")
                cstep = e.constant(stages * bk, name="cstep")
                k0 = e.muli(loop.iv, cstep, name="k0")
                for s in range(stages):
                    e.mbarrier_wait(empty[s], pe)
                    ks = k0
                    if s:
                        ko = e.constant(s * bk, name=f"ko{s}")
                        ks = e.addi(k0, ko, name=f"k{s}")
                    if ragged:
                        a_t = e.slice(A, [At(tile.om, bm), At(ks, bk)], at, name=f"at{s}", clip=True)
                        b_t = bslice(B, At(tile.on, bn), At(ks, bk), bt, f"bt{s}", clip=True)
                    else:
                        assert arows is not None and bcols is not None
                        a_t = e.slice(arows, [Span(0, bm), At(ks, bk)], at, name=f"at{s}")
                        b_t = bslice(bcols, Span(0, bn), At(ks, bk), bt, f"bt{s}")
                    e.copy(a_t, sa_s[s], schedule="tma", barrier=full[s])
                    e.copy(b_t, sb_s[s], schedule="tma", barrier=full[s], multicast=[0] if cluster > 1 else None)

        def push_row(row: Value, tag: str) -> Value:
            """The row of P a push of C's row `row` goes to: `row` on its owner, or with
            ABLATE_SELF the same slot offset in this device's own P (timing only)."""
            if not ablate_self:
                return row
            assert crows is not None and rbase is not None
            sr_ = e.remui(row, crows, name=f"sr_{tag}")
            return e.addi(sr_, rbase, name=f"sw_{tag}")

        def push(tile: TileAt, w: int) -> None:
            """Pusher warp of consumer warpgroup w: each part of the warpgroup's peer tiles,
            once staged, into its owner's P; then the half tile's flag. Own tiles come last in
            every walk, so a CTA's peer tiles are its first ones and part c of any of them
            completes the barriers' phases of parity c (two parts a tile)."""
            assert views is not None and views.P is not None and cown is not None and rank is not None
            assert cn is not None and c2 is not None and tile.bmx is not None and false is not None
            sw_p, stage_p = stage_type()
            pct = glob((64, sw_p), et)
            pu_peer = e.cmpi("ult", tile.bm, cown, name="pu_peer")
            with e.if_(pu_peer):
                pu_row = e.constant((w - 1) * 64, name="pu_row")
                pu_omw = e.addi(tile.om, pu_row, name="pu_omw")
                pu_rn = e.muli(rank, cn, name="pu_rn")
                pu_rc = e.addi(pu_rn, tile.on, name="pu_rc")
                for c in range(bn // sw_p):
                    e.mbarrier_wait(staged[w], true if c % 2 else false)
                    pu_co = e.constant(c * sw_p, name=f"pu_co{c}")
                    pu_pc = e.addi(pu_rc, pu_co, name=f"pu_pc{c}")
                    prow = push_row(pu_omw, f"pu_{c}")
                    dst = e.slice(views.P, [At(prow, 64), At(pu_pc, sw_p)], pct, name=f"pu_push{c}")
                    e.copy(stw[w], dst)
                    e.mbarrier_arrive(freed[w])
                pu_f2 = e.muli(tile.bmx, c2, name="pu_f2")
                pu_fr = e.addi(pu_f2, cw[w - 1], name="pu_fr")
                pu_rt = e.muli(rank, ctn, name="pu_rt")
                pu_rtc = e.addi(pu_rt, tile.bn, name="pu_rtc")
                pu_fo = e.slice(views.F, [At(pu_fr, 1), At(pu_rtc, 1)], ft1, name="pu_fo")
                if not ablate_flags:
                    e.signal(pu_fo, views.epoch)

        def consumer(w: int) -> None:
            """Consumer warpgroup w: rows (w - 1) 64 .. of every tile, its epilogue."""
            if regs:
                e.set_max_registers(split_regs[1])
            row0 = (w - 1) * 64
            sh = [e.slice(sa_s[s], [Span(row0, row0 + 64), Span(0, bk)], sah, name=f"sh{s}") for s in range(stages)]
            acc = e.alloc(acc_t, name="acc")
            res = e.alloc(res_t, name="res") if out != "f32" and not tma_store else None
            sw, stage = stage_type()
            part = reg((64, sw), ot)
            part_acc = reg((64, sw), F32)
            part_ct = glob((64, sw), ot)
            st: Value | None = stw[w] if pushers else None
            st1: Value | None = None
            if tma_store and not pushers:
                st = e.alloc(stage, name="st")
                if async_push == 2:
                    st1 = e.alloc(stage, name="st1")

            def staged_store(c: int, src: Value, dst: Value) -> None:
                """Part c of the tile: registers -> a shared tile -> `dst` (global) by TMA."""
                assert st is not None
                if not async_push:
                    e.copy(src, st)
                    e.copy(st, dst, schedule="tma")
                    return
                buf = st if c % async_push == 0 else st1
                assert buf is not None
                e.wait(outstanding=async_push - 1)
                e.copy(src, buf)
                e.copy_async(buf, dst, schedule="tma", name=f"stok{c}")

            z = e.constant(0.0, F32, name="z")
            sa_r = None
            if fp8:
                assert SA is not None and SB is not None
                # The product of the per-tensor scales, once per warpgroup.
                sa_r = e.alloc(sr, name="sa_r")
                sb_r = e.alloc(sr, name="sb_r")
                e.copy(SA, sa_r)
                e.copy(SB, sb_r)
                e.binary("mul", sa_r, sb_r, sa_r)

            signal = lane = None
            if cluster > 1:
                tid = e.unit_id("thread", name="tid")
                c32 = e.constant(32, name="c32")
                lane = e.remui(tid, c32, name="lane")
                ccl2 = e.constant(cluster, name="ccl2")
                signal = e.cmpi("ult", lane, ccl2, name="signal")

            def release(s: int) -> None:
                """The consumers are done with stage s: every thread arrives on its barrier, or
                with clusters lane r of each warp on the barrier of the CTA of rank r."""
                if cluster == 1:
                    e.mbarrier_arrive(empty[s])
                    return
                assert signal is not None and lane is not None
                with e.if_(signal):
                    e.mbarrier_arrive(empty[s], cta=lane)

            # Two buffers per operand for one k16 step's fragments.
            fa: list[Value] = []
            fb: list[Value] = []
            if chip == "sm_90a-mma-frag":
                fa, fb = fragment_buffers(e, 64, bn, et)

            def fragments(s: int, step: int, f: int) -> None:
                """Loads k16 step `step` of stage `s` into fragment buffers `f`."""
                k16_fragments(e, sh[s], sb_s[s], 64, bn, et, swz, step, fa[f], fb[f], f"{s}_{step}")

            def fragment_steps(s: int, pf: Value) -> None:
                """Stage s: its first fragments, then its four k16 gemms, each step's fragments
                loaded before the previous step's gemm; the stage is released right after its
                last fragments are loaded (the gemms read registers only). (Waiting for the next
                stage and loading its first fragments before this stage's last gemm, as
                gemm_tma's PREFETCH does, ran at 0.45 of cuBLAS against 0.63 for the whole-stage
                gemm: a late stage then holds back a gemm that could run.)"""
                e.mbarrier_wait(full[s], pf)
                fragments(s, 0, 0)
                steps = bk // 16
                for t in range(steps):
                    if t + 1 < steps:
                        fragments(s, t + 1, (t + 1) % 2)
                    else:
                        release(s)
                    e.gemm(fa[t % 2], fb[t % 2], acc)

            def consume(tile: TileAt) -> None:
                e.fill(acc, z)
                with e.for_(c0, crounds, c1, iv="r") as loop:
                    pf = phase(tile.it, loop.iv)
                    notfirst = e.cmpi("ne", loop.iv, c0, name="notfirst")
                    for s in range(stages):
                        if chip == "sm_90a-mma-frag":
                            fragment_steps(s, pf)
                            continue
                        e.mbarrier_wait(full[s], pf)
                        if chip == "sm_90a-mma":
                            e.gemm(sh[s], sb_s[s], acc)
                            release(s)
                            continue
                        gm = e.gemm_async(sh[s], sb_s[s], acc, transpose_b=fp8, name=f"gm{s}")
                        e.wait(gm, outstanding=1)
                        # The previous K step's gemm is done: its stage may be refilled. (At a
                        # tile's first step that stage was released after the previous tile.)
                        if s:
                            release(s - 1)
                        else:
                            with e.if_(notfirst):
                                release(stages - 1)
                if not mma_sm90a:
                    e.wait()
                    release(stages - 1)
                if fp8:
                    assert sa_r is not None
                    e.binary("mul", acc, sa_r, acc)
                if ranks and reduce:
                    rs_reduce_epilogue(tile)
                    return
                if ranks:
                    rs_epilogue(tile)
                    return
                assert C is not None
                # The epilogue: this warpgroup's 64 rows, from registers.
                crow = e.constant(row0, name="crow")
                omw = e.addi(tile.om, crow, name="omw")
                ct = e.slice(C, [At(omw, 64), At(tile.on, bn)], ct_t, name="ct", clip=ragged)
                if tma_store:
                    # Each part is converted right before it goes to shared memory (a register
                    # slice of the accumulator, then its cast), not the whole tile up front: with
                    # the whole tile converted after the wait, ptxas (CUDA 13.0) placed the
                    # conversions of half the accumulator registers above `wgmma.wait_group 0`
                    # (SASS: F2FP before WARPGROUP.DEPBAR.LE gsb0, 0x0) in kernels where each CTA
                    # had one tile, and those columns missed the last K step (bench/RESULTS.md).
                    for c in range(bn // sw):
                        pacc, pv = accumulator_part(e, acc, c, sw, part_acc, part if out != "f32" else None)
                        co = e.constant(c * sw, name=f"co{c}")
                        onc = e.addi(tile.on, co, name=f"onc{c}")
                        ctp = e.slice(C, [At(omw, 64), At(onc, sw)], part_ct, name=f"ctp{c}", clip=ragged)
                        staged_store(c, pv if pv is not None else pacc, ctp)
                else:
                    src = acc
                    if res is not None:
                        e.cast(acc, res)
                        src = res
                    e.copy(src, ct)

            def rs_epilogue(tile: TileAt) -> None:
                """The reduce-scatter, for this warpgroup's 64 rows of the tile, `sw` columns at
                a time through its shared tile %st:
                  * an own row tile: wait for each peer's flag of these rows (`axe.signal_wait`,
                    acquire at system scope), add the peers' partials (local reads of P,
                    straight into the accumulator's layout) and store the sum into Y with TMA;
                  * another device's: push the partial into its owner's slot of P for this
                    device (16-byte stores over NVLink, shared -> the peer's global) and publish
                    it (`axe.signal`: release at system scope, after the warpgroup's barrier)."""
                assert views is not None and views.P is not None and rank is not None and tile.bmx is not None
                assert c2 is not None and cown is not None and cr is not None and cn is not None
                assert rbase is not None
                P, F, Y, epoch = views.P, views.F, views.Y, views.epoch
                if defer:
                    publish_previous(tile)
                crow = e.constant(row0, name="crow")
                omw = e.addi(tile.om, crow, name="omw")
                frow2 = e.muli(tile.bmx, c2, name="frow2")
                frow = e.addi(frow2, cw[w - 1], name="frow")
                own = e.cmpi("uge", tile.bm, cown, name="own")
                with e.if_(own) as branch:
                    if pushers:
                        # The pusher warp must be done with the shared tile before the own parts
                        # go through it: the warpgroup's last peer part (parity 1; a fresh
                        # barrier, where the CTA had no peer tile, passes).
                        e.mbarrier_wait(freed[w], true)
                    col: dict[int, Value] = {}
                    for q in range(1, 1 if ablate_own else ranks):
                        # Source (rank + q) mod R: its flag of these rows, then its slot's columns.
                        cq = e.constant(q, name=f"rs_q{q}")
                        sq = e.addi(rank, cq, name=f"rs_s{q}")
                        src = e.remui(sq, cr, name=f"rs_src{q}")
                        ft = e.muli(src, ctn, name=f"rs_ft{q}")
                        fc = e.addi(ft, tile.bn, name=f"rs_fc{q}")
                        e.signal_wait(e.slice(F, [At(frow, 1), At(fc, 1)], ft1, name=f"rs_fl{q}"), epoch)
                        sn = e.muli(src, cn, name=f"rs_sn{q}")
                        col[q] = e.addi(sn, tile.on, name=f"rs_col{q}")
                    oml = e.subi(omw, rbase, name="oml")
                    for c in range(bn // sw):
                        pacc, _ = accumulator_part(e, acc, c, sw, part_acc)
                        co = e.constant(c * sw, name=f"co{c}")
                        for q in range(1, 1 if ablate_own else ranks):
                            add_partial(e, f"{q}_{c}", pacc, col[q], co, omw, 64, sw, P, et)
                        pv = e.alloc(part, name=f"part{c}")
                        e.cast(pacc, pv)
                        onc = e.addi(tile.on, co, name=f"onc{c}")
                        yt = e.slice(Y, [At(oml, 64), At(onc, sw)], part_ct, name=f"yt{c}")
                        staged_store(c, pv, yt)
                    branch.else_()
                    rn = e.muli(rank, cn, name="rs_rn")
                    rc = e.addi(rn, tile.on, name="rs_rc")
                    for c in range(bn // sw):
                        _, pv_ = accumulator_part(e, acc, c, sw, part_acc, part)
                        assert pv_ is not None
                        co = e.constant(c * sw, name=f"co{c}")
                        pc = e.addi(rc, co, name=f"rs_pc{c}")
                        if comm:
                            assert views.QV is not None
                            # Into this device's own staging rows (a local TMA store); flagged below.
                            cm_m = e.constant(m, name=f"cm_m{c}")
                            cm_q = e.addi(omw, cm_m, name=f"cm_q{c}")
                            cm_onc = e.addi(tile.on, co, name=f"cm_onc{c}")
                            qs = e.slice(views.QV, [At(cm_q, 64), At(cm_onc, sw)], part_ct, name=f"cm_qs{c}")
                            staged_store(c, pv_, qs)
                            continue
                        if pushers:
                            assert false is not None and st is not None
                            # Hand the part to the pusher warp: wait until it read the previous
                            # one (parity c ^ 1: two parts a tile), write it, signal it staged.
                            e.mbarrier_wait(freed[w], false if c % 2 else true)
                            e.copy(pv_, st)
                            e.mbarrier_arrive(staged[w])
                            continue
                        # This device's own push of the part: into its owner's P.
                        prow = push_row(omw, f"rs_{c}")
                        dst = e.slice(P, [At(prow, 64), At(pc, sw)], part_ct, name=f"push{c}")
                        if bulk:
                            staged_store(c, pv_, dst)
                            continue
                        assert st is not None
                        e.copy(pv_, st)
                        # The shared tile is written by every thread and read back in other
                        # threads' 16-byte pieces: the warpgroup's barrier on both sides.
                        e.barrier("warpgroup")
                        e.copy(st, dst)
                        e.barrier("warpgroup")
                    if comm:
                        assert views.LFV is not None
                        cm_tm = e.constant(m // 64, name="cm_tm")
                        cm_lr = e.addi(frow, cm_tm, name="cm_lr")
                        e.signal(e.slice(views.LFV, [At(cm_lr, 1), At(tile.bn, 1)], ft1, name="cm_lf"), epoch)
                    if not defer and not pushers and not comm:
                        rt = e.muli(rank, ctn, name="rs_rt")
                        rtc = e.addi(rt, tile.bn, name="rs_rtc")
                        e.signal(e.slice(F, [At(frow, 1), At(rtc, 1)], ft1, name="rs_fo"), epoch)

            def zero_own_rows() -> None:
                """REDUCE's start: this warpgroup's share of the device's own 64 x BN half tiles
                of Y (h = 2 cta + w - 1, stepping by the grid's warpgroups), each zeroed through
                the shared tile (`sw` columns at a time) and published "zeroed" in its own slot."""
                assert views is not None and rank is not None and c2 is not None and st is not None
                halves = 2 * (tiles_m // ranks) * tiles_n
                c64 = e.constant(64, name="c64")
                hn0 = e.constant(2 * (tiles_m // ranks), name="rs_hn0")
                z16 = e.constant(0.0, ot, name="z16")
                e.fill(st, z16)
                z0 = e.muli(cta, c2, name="rs_z0")
                z1 = e.addi(z0, cw[w - 1], name="rs_z1")
                zn = e.constant(halves, name="rs_zn")
                zs = e.muli(cgrid, c2, name="rs_zs")
                with e.for_(z1, zn, zs, iv="h") as loop:
                    zr = e.divui(loop.iv, ctn, name="rs_zr")
                    zc = e.remui(loop.iv, ctn, name="rs_zc")
                    zf = e.muli(rank, hn0, name="rs_zf")
                    zfr = e.addi(zf, zr, name="rs_zfr")
                    zrow = e.muli(zfr, c64, name="rs_zrow")
                    zcol = e.muli(zc, cbn, name="rs_zcol")
                    for c in range(bn // sw):
                        zco = e.constant(c * sw, name=f"rs_zco{c}")
                        zcc = e.addi(zcol, zco, name=f"rs_zcc{c}")
                        zt = e.slice(views.Y, [At(zrow, 64), At(zcc, sw)], part_ct, name=f"rs_zt{c}")
                        e.copy(st, zt, schedule="tma")
                    zo = e.muli(rank, ctn, name="rs_zo")
                    zoc = e.addi(zo, zc, name="rs_zoc")
                    e.signal(e.slice(views.F, [At(zfr, 1), At(zoc, 1)], ft1, name="rs_zfl"), views.epoch)

            def rs_reduce_epilogue(tile: TileAt) -> None:
                """REDUCE's epilogue: this warpgroup's 64 rows of the tile, `sw` columns at a
                time through its shared tile %st, added into the owner's rows of Y (its own
                too); an added peer tile is published at the CTA's next tile."""
                assert views is not None and st is not None
                publish_previous(tile)
                crow = e.constant(row0, name="crow")
                omw = e.addi(tile.om, crow, name="omw")
                for c in range(bn // sw):
                    _, pv = accumulator_part(e, acc, c, sw, part_acc, part)
                    assert pv is not None
                    co = e.constant(c * sw, name=f"co{c}")
                    onc = e.addi(tile.on, co, name=f"onc{c}")
                    yt = e.slice(views.Y, [At(omw, 64), At(onc, sw)], part_ct, name=f"yt{c}")
                    e.copy(pv, st)
                    e.copy(st, yt, schedule="tma reduce sum")

            def publish_previous(tile: TileAt) -> None:
                """Publishes this CTA's previous tile (t - grid) if it was pushed to (or added
                into) another device's rows."""
                hp = e.cmpi("ne", tile.it, c0, name="rs_hp")
                with e.if_(hp):
                    tp = e.subi(tile.t, cgrid, name="rs_tp")
                    publish_if_pushed(tp, "_pv")

            def publish_if_pushed(tile: Value, sfx: str) -> None:
                """Signals this warpgroup's flag of walk tile `tile` if it was another device's
                (pushed) tile: its row and column tile by the raster, rotated as in tile_loop."""
                if ablate_flags:
                    return
                assert views is not None and rank is not None and cown is not None and rshift is not None
                assert ctm is not None and c2 is not None
                bmv, bnv = raster(e, tile, tiles_mc, tiles_n, group, ctn, sfx)
                pushed = e.cmpi("ult", bmv, cown, name=f"rs_pushed{sfx}")
                with e.if_(pushed):
                    bw = e.addi(bmv, rshift, name=f"rs_bw{sfx}")
                    bx = e.remui(bw, ctm, name=f"rs_bx{sfx}")
                    f2 = e.muli(bx, c2, name=f"rs_f2{sfx}")
                    fr = e.addi(f2, cw[w - 1], name=f"rs_fr{sfx}")
                    rt = e.muli(rank, ctn, name=f"rs_rt{sfx}")
                    rc = e.addi(rt, bnv, name=f"rs_rc{sfx}")
                    e.signal(e.slice(views.F, [At(fr, 1), At(rc, 1)], ft1, name=f"rs_fo{sfx}"), views.epoch)

            if reduce:
                zero_own_rows()
            tile_loop(consume)
            if ranks and (defer or reduce):
                # The CTA's last tile, t = cta + n grid with n = (tiles - 1 - cta) / grid (the
                # grid has at most as many CTAs as there are tiles), published if it was pushed.
                l0 = e.subi(ctiles, c1, name="rs_l0")
                l1 = e.subi(l0, cta, name="rs_l1")
                l2 = e.divui(l1, cgrid, name="rs_l2")
                l3 = e.muli(l2, cgrid, name="rs_l3")
                tl = e.addi(cta, l3, name="rs_tl")
                publish_if_pushed(tl, "_ls")
            if reduce:
                assert views is not None and rank is not None and c2 is not None
                # Y's own rows are complete once every device's flag of them holds the epoch
                # (the own "zeroed" flags and the peers' "added" ones, all column tiles; this
                # device's own adds complete at the kernel's exit): each warpgroup waits for its
                # share of the own 64-row halves, so the kernel ends only then.
                h0 = e.muli(cta, c2, name="rs_h0")
                h1 = e.addi(h0, cw[w - 1], name="rs_h1")
                hn = e.constant(2 * (tiles_m // ranks), name="rs_hn")  # own halves' rows
                hs = e.muli(cgrid, c2, name="rs_hs")
                hb = e.muli(rank, hn, name="rs_hb")
                with e.for_(h1, hn, hs, iv="hw") as loop:
                    fr = e.addi(hb, loop.iv, name="rs_fr")
                    flags_all = e.slice(views.F, [At(fr, 1), Span(0, ranks * tiles_n)],
                                        glob((1, ranks * tiles_n), I32), name="rs_all")
                    e.signal_wait(flags_all, views.epoch)

        # Producer: warpgroup 0 gives up registers; its first warp's lane 0 issues the copies.
        with e.scope("warpgroup", 0, 1):
            if regs:
                e.set_max_registers(split_regs[0])
            with e.scope("warp", 0, 1):
                tile_loop(produce)
            if pushers:
                for w in (1, 2):
                    with e.scope("warp", w + 1, w + 2):
                        tile_loop(functools.partial(push, w=w))
        # Consumers: warpgroup 1 computes rows 0-63 of every tile, warpgroup 2 rows 64-127.
        for w in (1, 2):
            with e.scope("warpgroup", w, w + 1):
                consumer(w)
        if if_comm is not None:
            if_comm.__exit__(None, None, None)
    return e.text()


def _positional(a: list[str]) -> list[Any]:
    """The former command line's arguments: M N K BN S integers, OUT a string, PERSISTENT GROUP
    SMS REGS TMA_STORE integers, DTYPE a string, CLUSTER an integer, CHIP a string."""
    rest = a[5:]
    return ([int(x) for x in a[:5]] + rest[:1] + [int(x) for x in rest[1:6]] + rest[6:7]
            + [int(x) for x in rest[7:8]] + rest[8:9])


def every_variant() -> list[Variant]:
    """What --all writes: VARIANTS, Figure 10's kernels (f16 and FP8, unclustered, as
    choose_cluster picks and all in pairs), the raster sweep and the async-store twins."""
    return list(dict.fromkeys(VARIANTS + figure10_variants(1) + figure10_fp8_variants(1) + RASTER_SWEEP
                              + figure10_variants() + figure10_fp8_variants() + figure10_variants(2)
                              + figure10_fp8_variants(2) + figure10_async_variants()))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--all", metavar="DIR", help="write every_variant()'s kernels into DIR")
    ap.add_argument("shape", nargs="*", help="M N K (or the former positional form: M N K BN S OUT ...)")
    defaults = Options()
    for field in dataclasses.fields(Options):
        if field.name in ("fname", "split_regs"):
            continue
        flag = "--" + field.name.replace("_", "-")
        default = getattr(defaults, field.name)
        if isinstance(default, bool):
            ap.add_argument(flag, action=argparse.BooleanOptionalAction, default=None)
        else:
            ap.add_argument(flag, type=type(default), default=None)
    ap.add_argument("--name", dest="fname", default=None, help="the function's name")
    ap.add_argument("--split-regs", type=int, nargs=2, default=None, metavar=("PRODUCER", "CONSUMER"))
    args = ap.parse_args(argv)
    if args.all:
        for v in every_variant():
            with open(os.path.join(args.all, f"{name(*v)}.mlir"), "w") as f:
                f.write(kernel(*v))
        return
    if len(args.shape) < 3:
        ap.error("M N K required")
    named = {fd.name: getattr(args, fd.name) for fd in dataclasses.fields(Options) if getattr(args, fd.name) is not None}
    if "split_regs" in named:
        named["split_regs"] = tuple(named["split_regs"])
    if len(args.shape) > 3:
        if named:
            ap.error("the positional options and the named ones do not mix")
        sys.stdout.write(kernel(*_positional(args.shape)))
        return
    m, n, k = (int(x) for x in args.shape)
    sys.stdout.write(generate(m, n, k, dataclasses.replace(Options(), **named)))


if __name__ == "__main__":
    main()
