#!/usr/bin/env python3
"""Writes the kernels of a fused-FP16 Mixture-of-Experts layer (the Axe paper's §4.2
workload) for any model configuration (`MoEConfig`: hidden size H, expert intermediate size I,
routed experts, top-k, shared experts) and a batch of T tokens, as Axe IR, the grouped GEMMs
through gen_gemm_tma.py's TMA + wgmma pipeline:

  moe_<model>_up_t{T}:   H[rows, I]  = silu(X[rows, H] W1_gate[e]) * (X W1_up[e])   (SwiGLU
                 epilogue; W1's columns alternate 64 gate and 64 up columns)
  moe_<model>_down_t{T}: Y[rows, H] = H[rows, I] W2[e]
  moe_<model>_gather_t{T}:  X[row of (token, k)] = x[token]                  (every layer's gather)
  moe_<model>_route_t{T}_bm{BM}: the routing step (rows, tile -> expert map, used tiles),
                 T <= ROUTE_MAX_TOKENS
  moe_<model>_route_count_t{T}, moe_<model>_route_place_t{T}_bm{BM}: the same step in two
                 kernels of ceil(T K / 256) CTAs (per-segment counts, then rows), for larger T
  moe_<model>_combine_t{T}: out[token] = sum_k w[token, k] Y[row of (token, k)]

Shared experts (DeepSeek's, Llama 4's) are experts that every token is routed to with weight
1: the layer's grouped GEMMs see `cfg.n_experts` = routed + shared experts and `cfg.slots` =
top-k + shared assignments per token, and the caller appends the shared ids (E_routed ..
E_routed + S - 1) and weights (1) to each token's routed ones. The shared experts' weights are
then part of the same grouped GEMMs, with no separate dense MLP launch.

`rows` are the token-expert assignments grouped by expert, each expert's group padded to whole
row tiles (the routing step), and `%map` gives each row tile's expert. The grid covers the most
tiles T tokens can need: floor(T K / BM) + min(experts, T K) (each expert with tokens adds at
most one partial tile).

    gen_moe.py DIR [--model NAME] [T ...]     (default: Qwen3-30B-A3B, the paper's token counts)
"""
import argparse
import dataclasses
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_gemm_tma  # noqa: E402


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
    def n_experts(self):
        """The grouped GEMMs' experts: the routed ones, then the shared ones."""
        return self.experts + self.shared

    @property
    def slots(self):
        """Assignments per token: its top-k routed experts and every shared expert."""
        return self.topk + self.shared

    def check(self):
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


def kernel_name(cfg, kind, t, bm=None):
    """moe_<model>_<kind>_t<T>[_bm<BM>]: one name scheme for every kernel of the layer."""
    return f"moe_{cfg.tag}_{kind}_t{t}" + (f"_bm{bm}" if bm else "")


def max_tiles(cfg, t, bm=BM):
    """A bound on the row tiles of `bm` rows that T tokens' assignments fill once each expert's
    group is padded to whole tiles: sum_e ceil(c_e / bm) <= (T K) / bm + (experts in use)."""
    n = t * cfg.slots
    return n // bm + min(cfg.n_experts, n)


# W1's columns alternate blocks of 64 gate columns and the 64 up columns they pair with, so
# that every column tile (128 or 256 wide) holds whole (gate, up) pairs.
SWIGLU_BLOCK = 64


def tile_width(t):
    """Column tile width of the 128-row GEMMs: 128 for small batches (twice the CTAs to stream
    the experts' weights with, the bottleneck there), 256 from 256 tokens up (half the reloads
    of A)."""
    return 128 if t <= 128 else 256


# The row tiles of gen_moe_ws.py's swapped orientation (wgmma's N: multiples of 8). The layers
# pad experts to BM or to one of these: the gather and the combine serve any of their X and Y
# buffers, so their views cover the largest.
SWAP_ROWS = (8, 16, 32)
ROW_TILES = (BM,) + SWAP_ROWS


@dataclasses.dataclass(frozen=True)
class Schedule:
    """How the layer runs for a batch: the row tile (`swap`: BR-row token tiles in the swapped
    orientation, weights as wgmma's M; else 128-row tiles), and `fused` (both grouped GEMMs in
    one persistent kernel, gen_moe_ws.py) or the two phases as two launches."""
    swap: int | None
    fused: bool = True
    consumers: int = 2  # consumer warpgroups of the persistent kernel (1: swapped only)

    @property
    def bm(self):
        return self.swap or BM


def expected_rows(cfg, t):
    """The rows a routed expert gets on average for T tokens: T top-k / routed experts."""
    return t * cfg.topk / cfg.experts


def expected_reads(cfg, t, br):
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


def expected_groups(cfg, t):
    """The expected groups of rows (experts with tokens) for T tokens: routed experts with at
    least one of their Poisson-distributed assignments, and every shared expert."""
    return cfg.experts * (1 - math.exp(-expected_rows(cfg, t))) + cfg.shared


def schedule(cfg, t):
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


def combine_rows(cfg, t):
    """The rows of the gather's X and the combine's Y views: the most that any layer's padded
    rows have for T tokens."""
    return max(max_tiles(cfg, t, bm) * bm for bm in ROW_TILES)


def row_threads(cfg):
    """The gather's and combine's CTA: a thread per 8 columns of a row (one 16-byte f16
    vector each): hidden / 8 threads (256 for hidden 2048, 896 for 7168)."""
    return cfg.hidden // 8


def row_register_layout(cfg):
    return f"#axe.layout<({row_threads(cfg) // 32}, 32, 8) : (1@warp, 1@lane, 1@reg)>"


def row_types(cfg, t):
    """The types the gather and the combine share: a one-row global slice, the expert-grouped
    rows' and the tokens' global views (row-major), and a register row in `elt`."""
    H, rows = cfg.hidden, combine_rows(cfg, t)

    def rowmajor(n):
        return f"!axe.tensor<{n}x{H}xf16, global, #axe.layout<({n}, {H}) : ({H}, 1)>>"

    def register(elt):
        return f"!axe.tensor<1x{H}x{elt}, register, {row_register_layout(cfg)}>"
    return rowmajor(1), rowmajor(rows), rowmajor(t), register


def _assignment_row(k, n):
    """The lines that read the row of assignment k of the CTA's token (`%base` + k) from `%pos`
    into `%p{k}` (an index): the run-time origin of the gather's and the combine's row slices."""
    return [f"      %c{k} = arith.constant {k} : index",
            f"      %i{k} = arith.addi %base, %c{k} : index",
            f"      %p64_{k} = memref.load %pos[%i{k}] : memref<{n}xi64>",
            f"      %p{k} = arith.index_cast %p64_{k} : i64 to index"]


def combine(cfg, t, fname=None):
    """moe_<model>_combine_t{T}: out[token] = sum_k w[token, k] Y[pos[token, k]] in f32, stored
    as f16 -- the layer's weighted combine of each token's K = cfg.slots expert rows, as one Axe
    kernel. One CTA of hidden / 8 threads per token: each thread owns 8 consecutive columns
    (one 16-byte load per row), all K rows are loaded before any is used (independent loads in
    flight), and each row's run-time origin is read from `pos` (a one-row slice
    `[%p : +1, 0 : H]`).
    The rows of Y are never copied into a [T K, H] temporary."""
    rows, n, H = combine_rows(cfg, t), t * cfg.slots, cfg.hidden
    f16, f32 = "f16", "f32"
    row_g, gy, go, register = row_types(cfg, t)
    rh, rf = register(f16), register(f32)
    align = "{axe.align = 16 : i64}"
    L = [f"// Generated by bench/gpu/gen_moe.py: the MoE layer's weighted combine for {t} tokens.",
         'module attributes {axe.target = #axe.target<"sm_90">} {',
         f"  func.func @{fname or kernel_name(cfg, 'combine', t)}(%y: memref<{rows * H}x{f16}> {align}, "
         f"%pos: memref<{n}xi64>, %w: memref<{n}x{f32}>, %out: memref<{t * H}x{f16}> {align}) {{",
         f"    %Y = axe.view %y : memref<{rows * H}x{f16}> to {gy}",
         f"    %O = axe.view %out : memref<{t * H}x{f16}> to {go}",
         f"    axe.kernel grid [{t}] threads [{row_threads(cfg)}] {{",
         "      %t = axe.unit_id cta",
         f"      %ck = arith.constant {cfg.slots} : index",
         "      %base = arith.muli %t, %ck : index",
         f"      %acc = axe.alloc : {rf}",
         f"      %yf = axe.alloc : {rf}",
         f"      %wt = axe.alloc : {rf}",
         "      %zero = arith.constant 0.0 : f32",
         f"      axe.fill %acc, %zero : {rf}, f32"]
    for k in range(cfg.slots):
        L += _assignment_row(k, n) + [
            f"      %w{k} = memref.load %w[%i{k}] : memref<{n}x{f32}>",
            f"      %s{k} = axe.slice %Y [%p{k} : +1, 0 : {H}] : {gy} to {row_g}",
            f"      %h{k} = axe.alloc : {rh}",
            f"      axe.copy %s{k}, %h{k} : {row_g}, {rh}"]
    for k in range(cfg.slots):
        L += [f"      axe.cast %h{k}, %yf : {rh}, {rf}",
              f"      axe.fill %wt, %w{k} : {rf}, f32",
              f"      axe.binary mul %yf, %wt, %yf : {rf}, {rf}, {rf}",
              f"      axe.binary add %acc, %yf, %acc : {rf}, {rf}, {rf}"]
    L += [f"      axe.cast %acc, %h0 : {rf}, {rh}",
          f"      %os = axe.slice %O [%t : +1, 0 : {H}] : {go} to {row_g}",
          f"      axe.copy %h0, %os : {rh}, {row_g}",
          "    }",
          "    return",
          "  }",
          "}"]
    return "\n".join(L) + "\n"


def gather(cfg, t, fname=None):
    """moe_<model>_gather_t{T}: XP[pos[token, k]] = X[token] for k < K = cfg.slots -- the
    layer's gather of each token's row into the expert-grouped rows its K assignments occupy,
    as one Axe kernel. One CTA of hidden / 8 threads per token: the row is read once (16 bytes
    per thread) and stored K times, at run-time row origins read from `pos`; no row -> token map is built first.
    Padding rows are not written (a GEMM row depends only on its own row of A, and the rows
    computed from padding are never read back)."""
    rows, n, H = combine_rows(cfg, t), t * cfg.slots, cfg.hidden
    f16 = "f16"
    row_g, gxp, gx, register = row_types(cfg, t)
    rh = register(f16)
    align = "{axe.align = 16 : i64}"
    L = [f"// Generated by bench/gpu/gen_moe.py: the MoE layer's gather for {t} tokens.",
         'module attributes {axe.target = #axe.target<"sm_90">} {',
         f"  func.func @{fname or kernel_name(cfg, 'gather', t)}(%x: memref<{t * H}x{f16}> {align}, "
         f"%pos: memref<{n}xi64>, %xp: memref<{rows * H}x{f16}> {align}) {{",
         f"    %X = axe.view %x : memref<{t * H}x{f16}> to {gx}",
         f"    %XP = axe.view %xp : memref<{rows * H}x{f16}> to {gxp}",
         f"    axe.kernel grid [{t}] threads [{row_threads(cfg)}] {{",
         "      %t = axe.unit_id cta",
         f"      %ck = arith.constant {cfg.slots} : index",
         "      %base = arith.muli %t, %ck : index",
         f"      %xs = axe.slice %X [%t : +1, 0 : {H}] : {gx} to {row_g}",
         f"      %h = axe.alloc : {rh}",
         f"      axe.copy %xs, %h : {row_g}, {rh}"]
    for k in range(cfg.slots):
        L += _assignment_row(k, n) + [
            f"      %d{k} = axe.slice %XP [%p{k} : +1, 0 : {H}] : {gxp} to {row_g}",
            f"      axe.copy %h, %d{k} : {rh}, {row_g}"]
    L += ["    }", "    return", "  }", "}"]
    return "\n".join(L) + "\n"


# Token counts up to which the routing kernel is generated: each of its threads scans all T K
# ids twice, which at 128 tokens (1024 ids) already cost more than the PyTorch routing step
# (H100, CUDA graphs: the layer 505 against 487 µs); larger batches keep that.
ROUTE_MAX_TOKENS = 32


def route(cfg, t, bm, fname=None):
    """moe_route_t{T}_bm{BM}: the routing step for small batches as one Axe kernel of one CTA,
    a thread per expert (the plan of test/gpu/moe.py: assignment -> row of the expert-grouped
    matrix, each expert's rows padded to whole `bm`-row tiles, in the assignments' order; the
    row tile -> expert map, -1 past the last used tile; the number of used tiles). Each thread
    counts its expert's assignments (a scan of all T K ids), publishes its padded count, and
    after a CTA barrier sums the counts of the experts before it (its first row), writes the
    rows of its assignments and its tiles. Every thread reads all T K ids twice: meant for
    small batches (generated up to ROUTE_MAX_TOKENS)."""
    n, tiles, E = t * cfg.slots, max_tiles(cfg, t, bm), cfg.n_experts
    L = [f"// Generated by bench/gpu/gen_moe.py: the MoE routing step for {t} tokens, {bm}-row tiles.",
         'module attributes {axe.target = #axe.target<"sm_90">} {',
         f"  func.func @{fname or kernel_name(cfg, 'route', t, bm)}(%ids: memref<{n}xi64>, %pos: memref<{n}xi64>, "
         f"%tile_e: memref<{tiles}xi32>, %used: memref<1xi32>, %padded: memref<{E}xi64>) {{",
         f"    axe.kernel grid [1] threads [{E}] {{",
         "      %e = axe.unit_id thread",
         "      %e64 = arith.index_cast %e : index to i64",
         "      %c0 = arith.constant 0 : index",
         "      %c1 = arith.constant 1 : index",
         f"      %cn = arith.constant {n} : index",
         f"      %cbm = arith.constant {bm} : index",
         f"      %cbm1 = arith.constant {bm - 1} : index",
         "      %count = scf.for %i = %c0 to %cn step %c1 iter_args(%c = %c0) -> (index) {",
         f"        %v = memref.load %ids[%i] : memref<{n}xi64>",
         "        %eq = arith.cmpi eq, %v, %e64 : i64",
         "        %one = arith.select %eq, %c1, %c0 : index",
         "        %c2 = arith.addi %c, %one : index",
         "        scf.yield %c2 : index",
         "      }",
         "      %up = arith.addi %count, %cbm1 : index",
         "      %ntiles = arith.divui %up, %cbm : index",
         "      %rows = arith.muli %ntiles, %cbm : index",
         "      %rows64 = arith.index_cast %rows : index to i64",
         f"      memref.store %rows64, %padded[%e] : memref<{E}xi64>",
         "      axe.barrier cta",
         # After the barrier (a new phase: what it uses is recomputed or reloaded).
         "      %f = axe.unit_id thread",
         "      %f64 = arith.index_cast %f : index to i64",
         "      %d0 = arith.constant 0 : index",
         "      %d1 = arith.constant 1 : index",
         f"      %dn = arith.constant {n} : index",
         f"      %dbm = arith.constant {bm} : index",
         f"      %dexp = arith.constant {E} : index",
         f"      %dtiles = arith.constant {tiles} : index",
         "      %start = scf.for %j = %d0 to %f step %d1 iter_args(%s = %d0) -> (index) {",
         f"        %r = memref.load %padded[%j] : memref<{E}xi64>",
         "        %ri = arith.index_cast %r : i64 to index",
         "        %s2 = arith.addi %s, %ri : index",
         "        scf.yield %s2 : index",
         "      }",
         f"      %mine64 = memref.load %padded[%f] : memref<{E}xi64>",
         "      %mine = arith.index_cast %mine64 : i64 to index",
         "      %last = scf.for %i = %d0 to %dn step %d1 iter_args(%k = %d0) -> (index) {",
         f"        %v = memref.load %ids[%i] : memref<{n}xi64>",
         "        %eq = arith.cmpi eq, %v, %f64 : i64",
         "        %k2 = scf.if %eq -> (index) {",
         "          %row = arith.addi %start, %k : index",
         "          %row64 = arith.index_cast %row : index to i64",
         f"          memref.store %row64, %pos[%i] : memref<{n}xi64>",
         "          %k1 = arith.addi %k, %d1 : index",
         "          scf.yield %k1 : index",
         "        } else {",
         "          scf.yield %k : index",
         "        }",
         "        scf.yield %k2 : index",
         "      }",
         ] + tile_map("      ", tiles, "%start", "%mine", "%dbm") + [
         "    }",
         "    return",
         "  }",
         "}"]
    return "\n".join(L) + "\n"


def tile_map(ind, tiles, start, mine, bm):
    """The routing kernels' last lines: thread %f (expert f) writes its tiles of the row tile ->
    expert map (`start`, `mine`: its first row and padded rows, `bm` the row tile, index
    values); the last expert's thread, which knows the total (its first row plus its rows),
    writes the used-tile count and -1 into the tiles after. Uses the index constants %d0, %d1,
    %dexp (the experts) and %dtiles (the map's length)."""
    return [f"{ind}%t0 = arith.divui {start}, {bm} : index",
            f"{ind}%tn = arith.divui {mine}, {bm} : index",
            f"{ind}%f32 = arith.index_cast %f : index to i32",
            f"{ind}scf.for %j = %d0 to %tn step %d1 {{",
            f"{ind}  %tj = arith.addi %t0, %j : index",
            f"{ind}  memref.store %f32, %tile_e[%tj] : memref<{tiles}xi32>",
            f"{ind}}}",
            f"{ind}%dlast = arith.subi %dexp, %d1 : index",
            f"{ind}%islast = arith.cmpi eq, %f, %dlast : index",
            f"{ind}scf.if %islast {{",
            f"{ind}  %total = arith.addi {start}, {mine} : index",
            f"{ind}  %u = arith.divui %total, {bm} : index",
            f"{ind}  %u32 = arith.index_cast %u : index to i32",
            f"{ind}  memref.store %u32, %used[%d0] : memref<1xi32>",
            f"{ind}  %m1 = arith.constant -1 : i32",
            f"{ind}  scf.for %j = %u to %dtiles step %d1 {{",
            f"{ind}    memref.store %m1, %tile_e[%j] : memref<{tiles}xi32>",
            f"{ind}  }}",
            f"{ind}}}"]


# The segmented routing step (route_count + route_place) for larger batches: each CTA takes
# ROUTE_SEGMENT consecutive assignments, a thread per expert.
ROUTE_SEGMENT = 256


def route_segments(cfg, t):
    """The CTAs of the segmented routing kernels for T tokens: ceil(T K / ROUTE_SEGMENT) (the
    last segment may be partial)."""
    return -(-t * cfg.slots // ROUTE_SEGMENT)


def segment_end(ind, lo, n):
    """The lines that set %hi, the end of the segment starting at `lo` (an index value):
    min(lo + ROUTE_SEGMENT, n), so that a partial last segment reads no id past the T K."""
    return [f"{ind}%seg = arith.constant {ROUTE_SEGMENT} : index",
            f"{ind}%nall = arith.constant {n} : index",
            f"{ind}%hi0 = arith.addi {lo}, %seg : index",
            f"{ind}%hi = arith.minui %hi0, %nall : index"]


def route_count(cfg, t, fname=None):
    """moe_route_count_t{T}: the first of the two segmented routing kernels, for batches of any
    size. CTA s, thread e: how many of the assignments s L .. (s + 1) L - 1 (L = ROUTE_SEGMENT)
    go to expert e, into counts[s E + e]. Every thread reads its CTA's L ids once (fewer in a
    partial last segment)."""
    n, segs, E = t * cfg.slots, route_segments(cfg, t), cfg.n_experts
    L = [f"// Generated by bench/gpu/gen_moe.py: the MoE routing step's counts for {t} tokens.",
         'module attributes {axe.target = #axe.target<"sm_90">} {',
         f"  func.func @{fname or kernel_name(cfg, 'route_count', t)}(%ids: memref<{n}xi64>, %counts: memref<{segs * E}xi64>) {{",
         f"    axe.kernel grid [{segs}] threads [{E}] {{",
         "      %s = axe.unit_id cta",
         "      %e = axe.unit_id thread",
         "      %e64 = arith.index_cast %e : index to i64",
         "      %c1 = arith.constant 1 : index",
         "      %c0 = arith.constant 0 : index",
         "      %c0i = arith.constant 0 : i64",
         "      %c1i = arith.constant 1 : i64",
         f"      %cl = arith.constant {ROUTE_SEGMENT} : index",
         f"      %cexp = arith.constant {E} : index",
         "      %lo = arith.muli %s, %cl : index",
         ] + segment_end("      ", "%lo", n) + [
         "      %count = scf.for %i = %lo to %hi step %c1 iter_args(%c = %c0i) -> (i64) {",
         f"        %v = memref.load %ids[%i] : memref<{n}xi64>",
         "        %eq = arith.cmpi eq, %v, %e64 : i64",
         "        %one = arith.select %eq, %c1i, %c0i : i64",
         "        %c2 = arith.addi %c, %one : i64",
         "        scf.yield %c2 : i64",
         "      }",
         "      %row = arith.muli %s, %cexp : index",
         "      %at = arith.addi %row, %e : index",
         f"      memref.store %count, %counts[%at] : memref<{segs * E}xi64>",
         "    }",
         "    return",
         "  }",
         "}"]
    return "\n".join(L) + "\n"


def route_place(cfg, t, bm, fname=None):
    """moe_route_place_t{T}_bm{BM}: the second segmented routing kernel (after route_count):
    the plan of `route`, the same for every batch size. CTA s, thread e: its expert's total
    (the sum of its counts over all segments) padded to whole `bm`-row tiles, published in the
    CTA's row of `padded`; after a CTA barrier, its expert's first row (the padded totals of
    the experts before it) plus the expert's assignments in the segments before s, then the
    rows of its assignments in segment s, in order. CTA 0 also writes the tile -> expert map
    and the used-tile count."""
    n, segs, tiles, E = t * cfg.slots, route_segments(cfg, t), max_tiles(cfg, t, bm), cfg.n_experts
    sz = segs * E
    L = [f"// Generated by bench/gpu/gen_moe.py: the MoE routing step's placement for {t} tokens, {bm}-row tiles.",
         'module attributes {axe.target = #axe.target<"sm_90">} {',
         f"  func.func @{fname or kernel_name(cfg, 'route_place', t, bm)}(%ids: memref<{n}xi64>, %pos: memref<{n}xi64>, "
         f"%tile_e: memref<{tiles}xi32>, %used: memref<1xi32>, %counts: memref<{sz}xi64>, %padded: memref<{sz}xi64>) {{",
         f"    axe.kernel grid [{segs}] threads [{E}] {{",
         "      %s = axe.unit_id cta",
         "      %e = axe.unit_id thread",
         "      %c0 = arith.constant 0 : index",
         "      %c1 = arith.constant 1 : index",
         f"      %cexp = arith.constant {E} : index",
         f"      %csegs = arith.constant {segs} : index",
         f"      %cbm1 = arith.constant {bm - 1} : i64",
         f"      %cbm = arith.constant {bm} : i64",
         "      %c0i = arith.constant 0 : i64",
         "      %assigned = scf.for %j = %c0 to %csegs step %c1 iter_args(%a = %c0i) -> (i64) {",
         "        %r = arith.muli %j, %cexp : index",
         "        %at = arith.addi %r, %e : index",
         f"        %v = memref.load %counts[%at] : memref<{sz}xi64>",
         "        %a2 = arith.addi %a, %v : i64",
         "        scf.yield %a2 : i64",
         "      }",
         "      %up = arith.addi %assigned, %cbm1 : i64",
         "      %nt = arith.divui %up, %cbm : i64",
         "      %rows = arith.muli %nt, %cbm : i64",
         "      %mine_row = arith.muli %s, %cexp : index",
         "      %mine_at = arith.addi %mine_row, %e : index",
         f"      memref.store %rows, %padded[%mine_at] : memref<{sz}xi64>",
         "      axe.barrier cta",
         # After the barrier (a new phase: what it uses is recomputed or reloaded).
         "      %s2 = axe.unit_id cta",
         "      %f = axe.unit_id thread",
         "      %f64 = arith.index_cast %f : index to i64",
         "      %d0 = arith.constant 0 : index",
         "      %d1 = arith.constant 1 : index",
         f"      %dexp = arith.constant {E} : index",
         f"      %dl = arith.constant {ROUTE_SEGMENT} : index",
         f"      %dtiles = arith.constant {tiles} : index",
         f"      %dbm = arith.constant {bm} : i64",
         "      %z = arith.constant 0 : i64",
         "      %row0 = arith.muli %s2, %dexp : index",
         # The expert's first row: the padded totals of the experts before it.
         "      %start = scf.for %j = %d0 to %f step %d1 iter_args(%a = %z) -> (i64) {",
         "        %at = arith.addi %row0, %j : index",
         f"        %v = memref.load %padded[%at] : memref<{sz}xi64>",
         "        %a2 = arith.addi %a, %v : i64",
         "        scf.yield %a2 : i64",
         "      }",
         # Plus its assignments in the segments before this one.
         "      %first = scf.for %j = %d0 to %s2 step %d1 iter_args(%a = %start) -> (i64) {",
         "        %r = arith.muli %j, %dexp : index",
         "        %at = arith.addi %r, %f : index",
         f"        %v = memref.load %counts[%at] : memref<{sz}xi64>",
         "        %a2 = arith.addi %a, %v : i64",
         "        scf.yield %a2 : i64",
         "      }",
         "      %lo = arith.muli %s2, %dl : index",
         ] + segment_end("      ", "%lo", n) + [
         "      %last = scf.for %i = %lo to %hi step %d1 iter_args(%k = %first) -> (i64) {",
         f"        %v = memref.load %ids[%i] : memref<{n}xi64>",
         "        %eq = arith.cmpi eq, %v, %f64 : i64",
         "        %k2 = scf.if %eq -> (i64) {",
         f"          memref.store %k, %pos[%i] : memref<{n}xi64>",
         "          %one = arith.constant 1 : i64",
         "          %k1 = arith.addi %k, %one : i64",
         "          scf.yield %k1 : i64",
         "        } else {",
         "          scf.yield %k : i64",
         "        }",
         "        scf.yield %k2 : i64",
         "      }",
         # CTA 0: the expert's tiles; its last thread the used tiles and the -1s after them.
         "      %cta0 = arith.cmpi eq, %s2, %d0 : index",
         "      scf.if %cta0 {",
         "        %mine_at2 = arith.addi %row0, %f : index",
         f"        %mine = memref.load %padded[%mine_at2] : memref<{sz}xi64>",
         "        %start_ix = arith.index_cast %start : i64 to index",
         "        %mine_ix = arith.index_cast %mine : i64 to index",
         f"        %dbm_ix = arith.constant {bm} : index",
         ] + tile_map("        ", tiles, "%start_ix", "%mine_ix", "%dbm_ix") + [
         "      }",
         "    }",
         "    return",
         "  }",
         "}"]
    return "\n".join(L) + "\n"


def kernels(cfg, t, schedules=None):
    """The layer's kernels for T tokens of model `cfg` that gen_moe.py writes (gen_moe_ws.py
    writes the persistent ones): the 128-row grouped GEMMs, the gather and the combine, and
    the routing step for the row tile of every schedule in `schedules` (default: every row
    tile) -- one kernel up to ROUTE_MAX_TOKENS, else the segmented pair."""
    cfg.check()
    rows = max_tiles(cfg, t) * BM
    bn = tile_width(t)
    up = gen_gemm_tma.kernel(rows, 2 * cfg.inter, cfg.hidden, bn, 4, 1, 1, "sm_90a", 0, "f16", "f16",
                             experts=cfg.n_experts, swiglu=SWIGLU_BLOCK, fname=kernel_name(cfg, "up", t))
    down = gen_gemm_tma.kernel(rows, cfg.hidden, cfg.inter, bn, 4, 1, 1, "sm_90a", 0, "f16", "f16",
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


def model_arg(name):
    """argparse type: a key of MODELS."""
    if name not in MODELS:
        raise argparse.ArgumentTypeError(f"unknown model {name!r}; known: {', '.join(MODELS)}")
    return MODELS[name]


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("tokens", nargs="*", type=int, default=TOKENS)
    ap.add_argument("--model", type=model_arg, default=DEFAULT, help=f"one of {', '.join(MODELS)}")
    args = ap.parse_args()
    for t in args.tokens:
        for name, text in kernels(args.model, t).items():
            with open(os.path.join(args.outdir, name + ".mlir"), "w") as f:
                f.write(text)
