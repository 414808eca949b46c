"""The Mixture-of-Experts layer (the Axe paper's §4.2 workload) for any model configuration
(`MoEConfig`: hidden size H, expert intermediate size I, routed experts, top-k, shared
experts): the configurations of six published models, the schedule the layer runs with for a
batch of T tokens, and the layer's kernels that are not GEMMs, written with the typed emitter:

  moe_<model>_gather_t{T}:  X[row of (token, k)] = x[token]                  (every layer's gather)
  moe_<model>_route_t{T}_bm{BM}: the routing step (rows, tile -> expert map, used tiles),
                 T <= ROUTE_MAX_TOKENS
  moe_<model>_route_count_t{T}, moe_<model>_route_place_t{T}_bm{BM}: the same step in two
                 kernels of ceil(T K / 256) CTAs (per-segment counts, then rows), for larger T
  moe_<model>_combine_t{T}: out[token] = sum_k w[token, k] Y[row of (token, k)]

The grouped GEMMs between the gather and the combine (H = silu(X W1_gate[e]) * (X W1_up[e]),
Y = H W2[e]) are written as two launches by `kernels` here, through `axe_gen.gemm_tma`'s TMA +
wgmma pipeline:

  moe_<model>_up_t{T}:   H[rows, I]  = silu(X[rows, H] W1_gate[e]) * (X W1_up[e])   (SwiGLU
                 epilogue; W1's columns alternate 64 gate and 64 up columns)
  moe_<model>_down_t{T}: Y[rows, H] = H[rows, I] W2[e]

and as one persistent kernel by `axe_gen.moe_ws`; docs/moe.md describes the layer.

    PYTHONPATH=python python3 -m axe_gen.moe DIR [--model NAME] [T ...]
        (every kernel of `kernels` for each T; default: Qwen3-30B-A3B, the paper's token counts)

Shared experts (DeepSeek's, Llama 4's) are experts that every token is routed to with weight
1: the layer's grouped GEMMs see `cfg.n_experts` = routed + shared experts and `cfg.slots` =
top-k + shared assignments per token, and the caller appends the shared ids (E_routed ..
E_routed + S - 1) and weights (1) to each token's routed ones. The shared experts' weights are
then part of the same grouped GEMMs, with no separate dense MLP launch.

`rows` are the token-expert assignments grouped by expert, each expert's group padded to whole
row tiles (the routing step), and a row tile -> expert map gives each row tile's expert. The
GEMMs' grids cover the most tiles T tokens can need: floor(T K / BM) + min(experts, T K) (each
expert with tokens adds at most one partial tile).
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import os
from collections.abc import Callable

from . import gemm_tma
from .emitter import F16, F32, I32, I64, INDEX, At, Emitter, MemRef, Param, Span, Tensor, Type, Value, row_major


@dataclasses.dataclass(frozen=True)
class MoEConfig:
    """One model's MoE layer: hidden size, expert intermediate size, routed experts, experts
    per token (top-k) and shared experts (each of intermediate size `inter`, every token
    routed to each with weight 1). Gated (SwiGLU) experts, f16 weights."""
    tag: str  # the kernels' name part
    hidden: int
    inter: int
    experts: int
    topk: int
    shared: int = 0

    @property
    def n_experts(self) -> int:
        """The grouped GEMMs' experts: the routed ones, then the shared ones."""
        return self.experts + self.shared

    @property
    def slots(self) -> int:
        """Assignments per token: its top-k routed experts and every shared expert."""
        return self.topk + self.shared

    def check(self) -> MoEConfig:
        """What the kernels need of the shapes, as a ValueError naming the field."""
        if self.hidden % 256:
            raise ValueError(f"{self.tag}: hidden size {self.hidden} is not a multiple of 256 (the GEMMs' "
                             "64-wide K steps and 256-wide column tiles, the gather's and combine's 8-element vectors)")
        if self.inter % 128:
            raise ValueError(f"{self.tag}: intermediate size {self.inter} is not a multiple of 128 (whole "
                             "(gate, up) pairs of 64-column blocks)")
        if self.n_experts > 1024:
            raise ValueError(f"{self.tag}: {self.n_experts} experts: the routing kernels run a thread per expert (<= 1024)")
        return self


# Published configurations (the models' config.json on the Hugging Face hub): hidden_size,
# moe_intermediate_size (or intermediate_size), number of routed experts, experts per token,
# shared experts. Llama 4 scales each token's input by its router score before its expert;
# these kernels take the weights on the experts' outputs (the other models' form), with the
# same shapes.
MODELS = {
    "qwen3-30b-a3b": MoEConfig("qwen3", 2048, 768, 128, 8),
    "mixtral-8x7b": MoEConfig("mixtral", 4096, 14336, 8, 2),
    "deepseek-v2-lite": MoEConfig("dsv2lite", 2048, 1408, 64, 6, shared=2),
    "olmoe-1b-7b": MoEConfig("olmoe", 2048, 1024, 64, 8),
    "llama-4-scout": MoEConfig("llama4scout", 5120, 8192, 16, 1, shared=1),
    "deepseek-v3": MoEConfig("dsv3", 7168, 2048, 256, 8, shared=1),
}
DEFAULT = MODELS["qwen3-30b-a3b"]  # the paper's model
TOKENS = [1, 8, 32, 128, 512, 1024, 2048, 4096]
BM = 128  # the row tile of the unswapped GEMMs


def kernel_name(cfg: MoEConfig, kind: str, t: int, bm: int | None = None) -> str:
    """moe_<model>_<kind>_t<T>[_bm<BM>]: one name scheme for every kernel of the layer."""
    return f"moe_{cfg.tag}_{kind}_t{t}" + (f"_bm{bm}" if bm else "")


def max_tiles(cfg: MoEConfig, t: int, bm: int = BM) -> int:
    """A bound on the row tiles of `bm` rows that T tokens' assignments fill once each expert's
    group is padded to whole tiles: sum_e ceil(c_e / bm) <= (T K) / bm + (experts in use)."""
    n = t * cfg.slots
    return n // bm + min(cfg.n_experts, n)


# W1's columns alternate blocks of 64 gate columns and the 64 up columns they pair with, so
# that every column tile (128 or 256 wide) holds whole (gate, up) pairs.
SWIGLU_BLOCK = 64


def tile_width(t: int) -> int:
    """Column tile width of the 128-row GEMMs: 128 for small batches (twice the CTAs to stream
    the experts' weights with, the bottleneck there), 256 from 256 tokens up (half the reloads
    of A)."""
    return 128 if t <= 128 else 256


# The row tiles of axe_gen.moe_ws's swapped orientation (wgmma's N: multiples of 8). The layers
# pad experts to BM or to one of these: the gather and the combine serve any of their X and Y
# buffers, so their views cover the largest.
SWAP_ROWS = (8, 16, 32)
ROW_TILES = (BM,) + SWAP_ROWS


@dataclasses.dataclass(frozen=True)
class Schedule:
    """How the layer runs for a batch: the row tile (`swap`: BR-row token tiles in the swapped
    orientation, weights as wgmma's M; else 128-row tiles), and `fused` (both grouped GEMMs in
    one persistent kernel, axe_gen.moe_ws) or the two phases as two launches."""
    swap: int | None
    fused: bool = True
    consumers: int = 2  # consumer warpgroups of the persistent kernel (1: swapped only)

    @property
    def bm(self) -> int:
        return self.swap or BM


def expected_rows(cfg: MoEConfig, t: int) -> float:
    """The rows a routed expert gets on average for T tokens: T top-k / routed experts."""
    return t * cfg.topk / cfg.experts


def expected_reads(cfg: MoEConfig, t: int, br: int) -> float:
    """The expected reads of the experts' weights (in units of one expert's) when each group
    of rows is padded to BR-row tiles and every row tile reads its expert's weights once: the
    routed experts' counts Poisson-distributed around `expected_rows` (uniform routing), each
    shared expert T rows."""
    a = expected_rows(cfg, t)
    p, mean_tiles = math.exp(-a), 0.0
    for c in range(1, int(a + 12 * math.sqrt(a) + 24)):
        p *= a / c
        mean_tiles += p * math.ceil(c / br)
    return cfg.experts * mean_tiles + cfg.shared * math.ceil(t / br)


# The L2 cache of an H100 / H200 (50 MB): where an expert's weights fit in it, the several
# swapped row tiles of one expert re-read them from L2 rather than from memory.
L2_BYTES = 50 * 2 ** 20
SMS = 132  # H100 and H200 SXM: the persistent kernels' grid, one CTA per SM
SWAP_BN = 256  # the swapped kernels' weight columns per tile with two consumer warpgroups


def expected_groups(cfg: MoEConfig, t: int) -> float:
    """The expected groups of rows (experts with tokens) for T tokens: routed experts with at
    least one of their Poisson-distributed assignments, and every shared expert."""
    return cfg.experts * (1 - math.exp(-expected_rows(cfg, t))) + cfg.shared


def schedule(cfg: MoEConfig, t: int) -> Schedule:
    """The layer's schedule for T tokens of model `cfg`. Every expert's group of rows is padded
    to whole row tiles and every row tile reads its expert's weights, so the choice trades
    padding (wide tiles) against re-reading weights (narrow tiles):
      * 128-row tiles (wgmma's full M) once a routed expert gets more than 32 rows on average
        (a = T top-k / routed experts), or more than 16 where an expert's weights do not fit
        in L2 (each re-read of them by another row tile then comes from memory);
      * below that the swapped orientation (weights as wgmma's M), with the narrowest row
        tile (8, 16 or 32 tokens) whose expected weight reads (`expected_reads`, shared
        experts included: they get every token) are within 5 % of the fewest: narrower
        tiles compute less padding.
    Swapped kernels take one consumer warpgroup (128-column weight tiles, twice the tiles)
    where GEMM2 would otherwise have at most half as many tiles as there are SMs (expected
    groups x hidden / 256 <= SMS / 2): few tiles leave most SMs idle while the weights stream.
    Fused (one launch). Calibrated on an H200 over six published models and 1-4096 tokens
    (bench/RESULTS.md, "The MoE layer for any model"), where every row tile was measured."""
    a = expected_rows(cfg, t)
    if a > (16 if 3 * cfg.hidden * cfg.inter * 2 > L2_BYTES else 32):
        return Schedule(None)
    reads = {br: expected_reads(cfg, t, br) for br in SWAP_ROWS}
    fewest = min(reads.values())
    br = next(br for br in SWAP_ROWS if reads[br] <= 1.05 * fewest)
    few = expected_groups(cfg, t) * cfg.hidden / SWAP_BN <= SMS / 2
    return Schedule(br, consumers=1 if few else 2)


def combine_rows(cfg: MoEConfig, t: int) -> int:
    """The rows of the gather's X and the combine's Y views: the most that any layer's padded
    rows have for T tokens."""
    return max(max_tiles(cfg, t, bm) * bm for bm in ROW_TILES)


def row_threads(cfg: MoEConfig) -> int:
    """The gather's and combine's CTA: a thread per 8 columns of a row (one 16-byte f16
    vector each): hidden / 8 threads (256 for hidden 2048, 896 for 7168)."""
    return cfg.hidden // 8


def row_register_layout(cfg: MoEConfig) -> str:
    """A row in registers: 8 consecutive columns per thread, lanes then warps along the row."""
    return f"({row_threads(cfg) // 32}, 32, 8) : (1@warp, 1@lane, 1@reg)"


def _row_kernel_types(e: Emitter, cfg: MoEConfig, t: int, rows_name: str) -> tuple[Type, Type, Type]:
    """The aliases the gather and the combine share: `!row`, a one-row global slice; the
    expert-grouped rows' view (`!<rows_name>`, as many rows as any layer pads T tokens to);
    the tokens' view `!tokens` (row-major)."""
    H = cfg.hidden
    return (e.alias("row", row_major(1, H, F16)), e.alias(rows_name, row_major(combine_rows(cfg, t), H, F16)),
            e.alias("tokens", row_major(t, H, F16)))


def _register_row(e: Emitter, cfg: MoEConfig, name: str, elt: Type) -> Type:
    assert elt in (F16, F32)
    return e.alias(name, Tensor((1, cfg.hidden), F16 if elt == F16 else F32, "register", row_register_layout(cfg)))


def _assignment_row(e: Emitter, base: Value, k: int, pos: Value) -> tuple[Value, Value]:
    """The index of assignment k of the CTA's token (`base` + k) and its row, read from `pos`
    (the run-time origin of the gather's and the combine's row slices)."""
    i = e.addi(base, e.constant(k, name=f"c{k}"), name=f"i{k}")
    return i, e.index_cast(e.load(pos, i, name=f"p64_{k}"), INDEX, name=f"p{k}")


def combine(cfg: MoEConfig, t: int, fname: str | None = None) -> str:
    """moe_<model>_combine_t{T}: out[token] = sum_k w[token, k] Y[pos[token, k]] in f32, stored
    as f16 -- the layer's weighted combine of each token's K = cfg.slots expert rows, as one Axe
    kernel. One CTA of hidden / 8 threads per token: each thread owns 8 consecutive columns
    (one 16-byte load per row), all K rows are loaded before any is used (independent loads in
    flight), and each row's run-time origin is read from `pos` (a one-row slice
    `[%p : +1, 0 : H]`).
    The rows of Y are never copied into a [T K, H] temporary."""
    rows, n, H = combine_rows(cfg, t), t * cfg.slots, cfg.hidden
    e = Emitter(f"Generated by axe_gen.moe: the MoE layer's weighted combine for {t} tokens.")
    row, expert_rows, tokens = _row_kernel_types(e, cfg, t, "expert_rows")
    rh, rf = _register_row(e, cfg, "row_f16", F16), _register_row(e, cfg, "row_f32", F32)
    params = [Param("y", MemRef(rows * H, F16), align=16), Param("pos", MemRef(n, I64)),
              Param("w", MemRef(n, F32)), Param("out", MemRef(t * H, F16), align=16)]
    with e.module("sm_90"), e.func(fname or kernel_name(cfg, "combine", t), params) as (y, pos, w, out):
        Y, Out = e.view(y, expert_rows, name="Y"), e.view(out, tokens, name="O")
        with e.kernel([t], [row_threads(cfg)]):
            tok = e.unit_id("cta", name="t")
            base = e.muli(tok, e.constant(cfg.slots, name="ck"), name="base")
            acc, yf, wt = e.alloc(rf, name="acc"), e.alloc(rf, name="yf"), e.alloc(rf, name="wt")
            e.fill(acc, e.constant(0.0, F32, name="zero"))
            # All K rows in flight before any is used.
            loaded = []
            for k in range(cfg.slots):
                i, p = _assignment_row(e, base, k, pos)
                weight = e.load(w, i, name=f"w{k}")
                src = e.slice(Y, [At(p, 1), Span(0, H)], row, name=f"s{k}")
                h = e.alloc(rh, name=f"h{k}")
                e.copy(src, h)
                loaded.append((h, weight))
            for h, weight in loaded:
                e.cast(h, yf)
                e.fill(wt, weight)
                e.binary("mul", yf, wt, yf)
                e.binary("add", acc, yf, acc)
            e.cast(acc, loaded[0][0])
            e.copy(loaded[0][0], e.slice(Out, [At(tok, 1), Span(0, H)], row, name="os"))
    return e.text()


def gather(cfg: MoEConfig, t: int, fname: str | None = None) -> str:
    """moe_<model>_gather_t{T}: XP[pos[token, k]] = X[token] for k < K = cfg.slots -- the
    layer's gather of each token's row into the expert-grouped rows its K assignments occupy,
    as one Axe kernel. One CTA of hidden / 8 threads per token: the row is read once (16 bytes
    per thread) and stored K times, at run-time row origins read from `pos`; no row -> token
    map is built first. Padding rows are not written (a GEMM row depends only on its own row
    of A, and the rows computed from padding are never read back)."""
    rows, n, H = combine_rows(cfg, t), t * cfg.slots, cfg.hidden
    e = Emitter(f"Generated by axe_gen.moe: the MoE layer's gather for {t} tokens.")
    row, expert_rows, tokens = _row_kernel_types(e, cfg, t, "expert_rows")
    rh = _register_row(e, cfg, "row_f16", F16)
    params = [Param("x", MemRef(t * H, F16), align=16), Param("pos", MemRef(n, I64)),
              Param("xp", MemRef(rows * H, F16), align=16)]
    with e.module("sm_90"), e.func(fname or kernel_name(cfg, "gather", t), params) as (x, pos, xp):
        X, XP = e.view(x, tokens, name="X"), e.view(xp, expert_rows, name="XP")
        with e.kernel([t], [row_threads(cfg)]):
            tok = e.unit_id("cta", name="t")
            base = e.muli(tok, e.constant(cfg.slots, name="ck"), name="base")
            src = e.slice(X, [At(tok, 1), Span(0, H)], row, name="xs")
            h = e.alloc(rh, name="h")
            e.copy(src, h)
            for k in range(cfg.slots):
                _, p = _assignment_row(e, base, k, pos)
                e.copy(h, e.slice(XP, [At(p, 1), Span(0, H)], row, name=f"d{k}"))
    return e.text()


# Token counts up to which the routing kernel is generated: each of its threads scans all T K
# ids twice, which at 128 tokens (1024 ids) already cost more than the PyTorch routing step
# (H100, CUDA graphs: the layer 505 against 487 µs); larger batches keep that.
ROUTE_MAX_TOKENS = 32


def _count_matches(e: Emitter, ids: Value, lo: Value, hi: Value, expert: Value, zero: Value, one: Value) -> Value:
    """The number of ids in [lo, hi) equal to `expert` (an i64), counted in `zero`'s type."""
    with e.for_(lo, hi, e.constant(1, name="one"), [zero], args=["c"], name="count") as loop:
        eq = e.cmpi("eq", e.load(ids, loop.iv, name="v"), expert, name="eq")
        loop.yield_(e.addi(loop.args[0], e.select(eq, one, zero, name="hit"), name="c2"))
    return loop.results[0]


def _round_up(e: Emitter, v: Value, bm: int) -> Value:
    """`v` rounded up to a multiple of `bm` (in v's type)."""
    tile = e.constant(bm, v.type, name="bm")
    up = e.addi(v, e.constant(bm - 1, v.type, name="bm1"), name="up")
    return e.muli(e.divui(up, tile, name="ntiles"), tile, name="rows")


def _sum_loop(e: Emitter, lo: Value, hi: Value, init: Value, term: Callable[[Value], Value], name: str) -> Value:
    """init + sum of term(j) for j in [lo, hi)."""
    with e.for_(lo, hi, e.constant(1, name="one"), [init], iv="j", args=["a"], name=name) as loop:
        loop.yield_(e.addi(loop.args[0], term(loop.iv), name="a2"))
    return loop.results[0]


def _place(e: Emitter, ids: Value, pos: Value, lo: Value, hi: Value, expert: Value, first: Value) -> None:
    """pos[i] = first + (the assignments to `expert` before i in [lo, hi)) for every i in
    [lo, hi) that goes to `expert` (`first` in pos's element type)."""
    with e.for_(lo, hi, e.constant(1, name="one"), [first], args=["k"], name="last") as loop:
        k = loop.args[0]
        eq = e.cmpi("eq", e.load(ids, loop.iv, name="v"), expert, name="eq")
        with e.if_(eq, [k.type], name="k2") as br:
            e.store(k, pos, loop.iv)
            br.yield_(e.addi(k, e.constant(1, k.type, name="one"), name="k1"))
            br.else_()
            br.yield_(k)
        loop.yield_(br.results[0])


def _tile_map(e: Emitter, tile_e: Value, used: Value, tiles: int, experts: int, f: Value, start: Value,
              mine: Value, bm: int) -> None:
    """The routing kernels' last ops: thread `f` (expert f) writes its tiles of the row tile ->
    expert map (`start`, `mine`: its first row and padded rows, index values); the last
    expert's thread, which knows the total (its first row plus its rows), writes the used-tile
    count and -1 into the tiles after."""
    cbm, zero, one = e.constant(bm, name="dbm"), e.constant(0, name="d0"), e.constant(1, name="d1")
    t0, tn = e.divui(start, cbm, name="t0"), e.divui(mine, cbm, name="tn")
    f32 = e.index_cast(f, I32, name="f32")
    with e.for_(zero, tn, one, iv="j") as loop:
        e.store(f32, tile_e, e.addi(t0, loop.iv, name="tj"))
    lastexp = e.subi(e.constant(experts, name="dexp"), one, name="dlast")
    with e.if_(e.cmpi("eq", f, lastexp, name="islast")):
        u = e.divui(e.addi(start, mine, name="total"), cbm, name="u")
        e.store(e.index_cast(u, I32, name="u32"), used, zero)
        m1 = e.constant(-1, I32, name="m1")
        with e.for_(u, e.constant(tiles, name="dtiles"), one, iv="j") as loop:
            e.store(m1, tile_e, loop.iv)


def route(cfg: MoEConfig, t: int, bm: int, fname: str | None = None) -> str:
    """moe_route_t{T}_bm{BM}: the routing step for small batches as one Axe kernel of one CTA,
    a thread per expert (the plan of test/gpu/moe.py: assignment -> row of the expert-grouped
    matrix, each expert's rows padded to whole `bm`-row tiles, in the assignments' order; the
    row tile -> expert map, -1 past the last used tile; the number of used tiles). Each thread
    counts its expert's assignments (a scan of all T K ids), publishes its padded count, and
    after a CTA barrier sums the counts of the experts before it (its first row), writes the
    rows of its assignments and its tiles. Every thread reads all T K ids twice: meant for
    small batches (generated up to ROUTE_MAX_TOKENS)."""
    n, tiles, E = t * cfg.slots, max_tiles(cfg, t, bm), cfg.n_experts
    e = Emitter(f"Generated by axe_gen.moe: the MoE routing step for {t} tokens, {bm}-row tiles.")
    params = [Param("ids", MemRef(n, I64)), Param("pos", MemRef(n, I64)), Param("tile_e", MemRef(tiles, I32)),
              Param("used", MemRef(1, I32)), Param("padded", MemRef(E, I64))]
    with e.module("sm_90"), e.func(fname or kernel_name(cfg, "route", t, bm), params) as (ids, pos, tile_e, used,
                                                                                           padded):
        with e.kernel([1], [E]):
            ex = e.unit_id("thread", name="e")
            zero = e.constant(0, name="c0")
            count = _count_matches(e, ids, zero, e.constant(n, name="cn"), e.index_cast(ex, I64, name="e64"), zero,
                                   e.constant(1, name="c1"))
            e.store(e.index_cast(_round_up(e, count, bm), I64, name="rows64"), padded, ex)
            e.barrier("cta")
            # After the barrier (a new phase: what it uses is recomputed or reloaded).
            f = e.unit_id("thread", name="f")
            f64 = e.index_cast(f, I64, name="f64")
            d0 = e.constant(0, name="d0")
            start = _sum_loop(e, d0, f, d0, lambda j: e.index_cast(e.load(padded, j, name="r"), INDEX, name="ri"),
                              "start")
            mine = e.index_cast(e.load(padded, f, name="mine64"), INDEX, name="mine")
            row0 = e.index_cast(start, I64, name="start64")
            _place(e, ids, pos, d0, e.constant(n, name="dn"), f64, row0)
            _tile_map(e, tile_e, used, tiles, E, f, start, mine, bm)
    return e.text()


# The segmented routing step (route_count + route_place) for larger batches: each CTA takes
# ROUTE_SEGMENT consecutive assignments, a thread per expert.
ROUTE_SEGMENT = 256


def route_segments(cfg: MoEConfig, t: int) -> int:
    """The CTAs of the segmented routing kernels for T tokens: ceil(T K / ROUTE_SEGMENT) (the
    last segment may be partial)."""
    return -(-t * cfg.slots // ROUTE_SEGMENT)


def _segment(e: Emitter, s: Value, n: int) -> tuple[Value, Value]:
    """The assignments of segment `s`: [lo, hi) with hi = min(lo + ROUTE_SEGMENT, n), so that a
    partial last segment reads no id past the T K."""
    seg = e.constant(ROUTE_SEGMENT, name="seg")
    lo = e.muli(s, seg, name="lo")
    return lo, e.minui(e.addi(lo, seg, name="hi0"), e.constant(n, name="nall"), name="hi")


def route_count(cfg: MoEConfig, t: int, fname: str | None = None) -> str:
    """moe_route_count_t{T}: the first of the two segmented routing kernels, for batches of any
    size. CTA s, thread e: how many of the assignments s L .. (s + 1) L - 1 (L = ROUTE_SEGMENT)
    go to expert e, into counts[s E + e]. Every thread reads its CTA's L ids once (fewer in a
    partial last segment)."""
    n, segs, E = t * cfg.slots, route_segments(cfg, t), cfg.n_experts
    e = Emitter(f"Generated by axe_gen.moe: the MoE routing step's counts for {t} tokens.")
    params = [Param("ids", MemRef(n, I64)), Param("counts", MemRef(segs * E, I64))]
    with e.module("sm_90"), e.func(fname or kernel_name(cfg, "route_count", t), params) as (ids, counts):
        with e.kernel([segs], [E]):
            s, ex = e.unit_id("cta", name="s"), e.unit_id("thread", name="e")
            e64 = e.index_cast(ex, I64, name="e64")
            lo, hi = _segment(e, s, n)
            count = _count_matches(e, ids, lo, hi, e64, e.constant(0, I64, name="c0i"), e.constant(1, I64, name="c1i"))
            at = e.addi(e.muli(s, e.constant(E, name="cexp"), name="row"), ex, name="at")
            e.store(count, counts, at)
    return e.text()


def route_place(cfg: MoEConfig, t: int, bm: int, fname: str | None = None) -> str:
    """moe_route_place_t{T}_bm{BM}: the second segmented routing kernel (after route_count):
    the plan of `route`, the same for every batch size. CTA s, thread e: its expert's total
    (the sum of its counts over all segments) padded to whole `bm`-row tiles, published in the
    CTA's row of `padded`; after a CTA barrier, its expert's first row (the padded totals of
    the experts before it) plus the expert's assignments in the segments before s, then the
    rows of its assignments in segment s, in order. CTA 0 also writes the tile -> expert map
    and the used-tile count."""
    n, segs, tiles, E = t * cfg.slots, route_segments(cfg, t), max_tiles(cfg, t, bm), cfg.n_experts
    sz = segs * E
    e = Emitter(f"Generated by axe_gen.moe: the MoE routing step's placement for {t} tokens, {bm}-row tiles.")
    params = [Param("ids", MemRef(n, I64)), Param("pos", MemRef(n, I64)), Param("tile_e", MemRef(tiles, I32)),
              Param("used", MemRef(1, I32)), Param("counts", MemRef(sz, I64)), Param("padded", MemRef(sz, I64))]
    name = fname or kernel_name(cfg, "route_place", t, bm)
    with e.module("sm_90"), e.func(name, params) as (ids, pos, tile_e, used, counts, padded):
        with e.kernel([segs], [E]):
            s, ex = e.unit_id("cta", name="s"), e.unit_id("thread", name="e")
            c0, cexp = e.constant(0, name="c0"), e.constant(E, name="cexp")

            def count_of(seg: Value, expert: Value) -> Value:
                return e.load(counts, e.addi(e.muli(seg, cexp, name="r"), expert, name="at"), name="v")

            assigned = _sum_loop(e, c0, e.constant(segs, name="csegs"), e.constant(0, I64, name="c0i"),
                                 lambda j: count_of(j, ex), "assigned")
            e.store(_round_up(e, assigned, bm), padded, e.addi(e.muli(s, cexp, name="mine_row"), ex, name="mine_at"))
            e.barrier("cta")
            # After the barrier (a new phase: what it uses is recomputed or reloaded).
            s2, f = e.unit_id("cta", name="s2"), e.unit_id("thread", name="f")
            f64 = e.index_cast(f, I64, name="f64")
            d0, dexp = e.constant(0, name="d0"), e.constant(E, name="dexp")
            row0 = e.muli(s2, dexp, name="row0")
            # The expert's first row: the padded totals of the experts before it ...
            start = _sum_loop(e, d0, f, e.constant(0, I64, name="z"),
                              lambda j: e.load(padded, e.addi(row0, j, name="at"), name="v"), "start")
            # ... plus its assignments in the segments before this one.
            first = _sum_loop(e, d0, s2, start,
                              lambda j: e.load(counts, e.addi(e.muli(j, dexp, name="r"), f, name="at"), name="v"),
                              "first")
            lo, hi = _segment(e, s2, n)
            _place(e, ids, pos, lo, hi, f64, first)
            # CTA 0: the expert's tiles; its last thread the used tiles and the -1s after them.
            with e.if_(e.cmpi("eq", s2, d0, name="cta0")):
                mine = e.load(padded, e.addi(row0, f, name="mine_at2"), name="mine")
                _tile_map(e, tile_e, used, tiles, E, f, e.index_cast(start, INDEX, name="start_ix"),
                          e.index_cast(mine, INDEX, name="mine_ix"), bm)
    return e.text()


def model_arg(name: str) -> MoEConfig:
    """argparse type: a key of MODELS."""
    if name not in MODELS:
        raise argparse.ArgumentTypeError(f"unknown model {name!r}; known: {', '.join(MODELS)}")
    return MODELS[name]


def kernels(cfg: MoEConfig, t: int, schedules: list[Schedule] | None = None) -> dict[str, str]:
    """The layer's kernels for T tokens of model `cfg` in its two-launch form (`axe_gen.moe_ws`
    writes the persistent ones): the 128-row grouped GEMMs, the gather and the combine, and
    the routing step for the row tile of every schedule in `schedules` (default: every row
    tile) -- one kernel up to ROUTE_MAX_TOKENS, else the segmented pair."""
    cfg.check()
    rows = max_tiles(cfg, t) * BM
    bn = tile_width(t)
    up = gemm_tma.kernel(rows, 2 * cfg.inter, cfg.hidden, bn, 4, 1, 1, "sm_90a", 0, "f16", "f16",
                         experts=cfg.n_experts, swiglu=SWIGLU_BLOCK, fname=kernel_name(cfg, "up", t))
    down = gemm_tma.kernel(rows, cfg.hidden, cfg.inter, bn, 4, 1, 1, "sm_90a", 0, "f16", "f16",
                           experts=cfg.n_experts, fname=kernel_name(cfg, "down", t))
    out = {kernel_name(cfg, "up", t): up, kernel_name(cfg, "down", t): down,
           kernel_name(cfg, "gather", t): gather(cfg, t), kernel_name(cfg, "combine", t): combine(cfg, t)}
    tiles = sorted({s.bm for s in schedules}) if schedules else ROW_TILES
    if t <= ROUTE_MAX_TOKENS:
        out.update({kernel_name(cfg, "route", t, bm): route(cfg, t, bm) for bm in tiles})
    else:
        out[kernel_name(cfg, "route_count", t)] = route_count(cfg, t)
        out.update({kernel_name(cfg, "route_place", t, bm): route_place(cfg, t, bm) for bm in tiles})
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("tokens", nargs="*", type=int, default=TOKENS)
    ap.add_argument("--model", type=model_arg, default=DEFAULT, help=f"one of {', '.join(MODELS)}")
    args = ap.parse_args(argv)
    for t in args.tokens:
        for name, text in kernels(args.model, t).items():
            with open(os.path.join(args.outdir, name + ".mlir"), "w") as f:
                f.write(text)


if __name__ == "__main__":
    main()
