#!/usr/bin/env python3
"""The FP16 Mixture-of-Experts layer of the Axe paper's §4.2, for any model configuration of
axe_gen.moe (`--model`: Qwen3-30B-A3B, the paper's, by default; Mixtral-8x7B,
DeepSeek-V2-Lite, OLMoE, Llama-4-Scout, DeepSeek-V3), with Axe's grouped GEMMs: checked
against a float32 PyTorch reference of the layer, and with --bench timed against PyTorch
baselines and SGLang, at the paper's token counts (Figure 11's axis). Axe layers, each checked
where its kernels were built (bench/gpu/build_moe.py):
  - "fused" (axe_gen.moe_ws): both grouped GEMMs in ONE warp-specialized persistent
    kernel, GEMM2's tiles waiting only for the GEMM1 tiles whose H columns they read (flags);
  - "two kernels": the same generator's phases as two launches (the ablation of the pipeline);
  - "fused swapBR" / "two kernels swapBR": the same in the swapped orientation (weights as
    wgmma's M, BR-row token tiles as its N), for small batches;
  - "tma": the two non-specialized grouped GEMMs of axe_gen.moe.

    PYTHONPATH=python python3 test/gpu/moe.py DIR [--model NAME] [--bench] [--reps R] [T ...]

The layer, per token x with routed experts e_1..e_K and weights w_1..w_K (softmax of the top-K
router logits, renormalized): out = sum_k w_k * W2[e_k] (silu(W1_gate[e_k] x) * W1_up[e_k] x),
plus, for each shared expert s, W2[s] (silu(W1_gate[s] x) * W1_up[s] x) (axe_gen.moe: shared
experts are experts every token is assigned to with weight 1).

"axe" is the layer axe_gen.moe.schedule picks for the count, with the routing step, the gather and
the combine as Axe kernels: the one the ratios are taken against.

Axe's layer (all of it timed; the layer objects keep their workspace): the routing step in
PyTorch (`plan`: group the token-expert assignments by expert, pad each expert's group to whole
row tiles, the tile -> expert map; no host synchronization), the gather of the tokens' rows,
the grouped GEMMs, and the weighted combine (`combine`).

Baselines, timed paired in the same process (CUDA events, median of 20, R alternating
measurements; the ratio's median and spread are printed), eagerly and, for Axe's layer and
`_grouped_mm`'s, also captured in CUDA graphs (ratios pair graph with graph):
  - torch loop: per expert with tokens, torch.matmul (cuBLAS) for gate/up/down and the same
    combine (the floor; it synchronizes to read the counts, as a loop must);
  - torch._grouped_mm (CUTLASS grouped GEMM, bf16: it takes no fp16) composed into the same
    layer with torch's silu * up, when this torch has it.
SGLang's Triton `fused_moe` (eager and in a graph) when a standalone copy of its kernel file
is found (see sglang_layer); else it is reported as unavailable.

Random routing with a fixed seed; `skew` routes most tokens to 8 of the 128 experts.
"""
import argparse
import importlib.util
import os
import statistics
import sys

import axe_runtime
import torch
import torch.nn.functional as F
from axe_bench import timing
from axe_gen import moe, moe_ws

HERE = os.path.dirname(os.path.abspath(__file__))

# The MoE notation: hidden H, intermediate I, experts E (routed and shared), TOPK assignments
# per token (routed and shared); set by set_model for the configuration CFG.
CFG = moe.DEFAULT
H = I = E = TOPK = 0  # noqa: E741
BM = moe.BM


def set_model(cfg):
    global CFG, H, I, E, TOPK  # noqa: E741
    CFG, H, I, E, TOPK = cfg, cfg.hidden, cfg.inter, cfg.n_experts, cfg.slots  # noqa: E741


set_model(moe.DEFAULT)


def time_ms(fn, warmup=3, reps=20):
    return timing.time_ms(fn, warmup, reps)


def weights(gen):
    # Drawn in f16 (DeepSeek-V3's are 22 GB in f16; in f32 first they would not fit beside the
    # baselines' copies).
    g = torch.randn(E, H, I, device="cuda", generator=gen, dtype=torch.half).div_(H ** 0.5)
    u = torch.randn(E, H, I, device="cuda", generator=gen, dtype=torch.half).div_(H ** 0.5)
    d = torch.randn(E, I, H, device="cuda", generator=gen, dtype=torch.half).div_(I ** 0.5)
    # Axe's W1: [E * H, 2 I], blocks of 64 gate columns, each followed by its 64 up columns.
    blk = moe.SWIGLU_BLOCK
    w1 = torch.stack([g.view(E, H, I // blk, blk), u.view(E, H, I // blk, blk)], dim=3).reshape(E * H, 2 * I)
    return g, u, d, w1.contiguous(), d.reshape(E * I, H).contiguous()


def route(t, skew, gen):
    """Each token's routed experts (top-k of random router logits; `skew`: most tokens go to
    the same few experts, max(k, E / 16) of them) and renormalized weights, then the shared
    experts with weight 1."""
    logits = torch.randn(t, CFG.experts, device="cuda", generator=gen)
    if skew:
        logits[:, :max(CFG.topk, CFG.experts // 16)] += 4.0
    w, ids = torch.topk(torch.softmax(logits, dim=-1), CFG.topk, dim=-1)
    w = w / w.sum(dim=-1, keepdim=True)
    if CFG.shared:
        shared = torch.arange(CFG.experts, E, device="cuda").expand(t, CFG.shared)
        ids = torch.cat([ids, shared], dim=1).contiguous()
        w = torch.cat([w, torch.ones(t, CFG.shared, device="cuda")], dim=1).contiguous()
    return ids, w


def expert_counts(flat):
    """Tokens per expert, without the host synchronization of torch.bincount on CUDA (which
    reads the maximum to size its output), so that the layer can be captured in a graph."""
    return torch.zeros(E, dtype=torch.long, device="cuda").scatter_add_(0, flat, torch.ones_like(flat))


_EXPERT_IDS: dict[torch.device, torch.Tensor] = {}
ONEHOT_MAX = 8192  # assignments (T K) up to which `plan` scans a one-hot matrix instead of sorting


def plan(ids, t, bm=BM, tile_e=None, used=None, mark_unused=False):
    """The routing step, with no sort and no host synchronization: assignment (t, k) -> row of
    the expert-grouped matrix, each expert's group padded to whole `bm`-row tiles (`pos`); row
    tile -> expert, written into `tile_e` (int32); the number of row tiles in use, written into
    `used` (a one-element int32 tensor). Rows of one expert keep the assignments' order: an
    assignment's rank is the count of earlier ones with its expert (a cumulative sum over the
    one-hot [E, T K] matrix), which costs a dozen small kernels where the sort-based
    `plan_by_sort` (its oracle in main) costs about twice as many. Tiles past the last used one
    keep whatever expert the search gives (the persistent kernels read only the `used` first);
    `mark_unused` writes -1 there (the per-tile kernels launch a CTA for every tile)."""
    if ids.numel() > ONEHOT_MAX:
        # The [E, T K] scan costs more than the sort at 32768 assignments (H100, above an empty
        # graph: 131 against 116 us at 4096 tokens), less at 4096 (39 against 79 us at 512
        # tokens); the threshold between them is an interpolation.
        pos, te, u = plan_by_sort(ids, t, bm)
        if tile_e is not None:
            tile_e.copy_(te)  # -1 past the last used tile, as mark_unused asks
            te = tile_e
        if used is not None:
            used.copy_(u)
            u = used
        return pos, te, u
    return plan_onehot(ids, t, bm, tile_e, used, mark_unused)


def plan_onehot(ids, t, bm=BM, tile_e=None, used=None, mark_unused=False):
    """`plan` by a cumulative sum over the one-hot [E, T K] matrix, at any size."""
    key = ids.device
    if key not in _EXPERT_IDS:
        _EXPERT_IDS[key] = torch.arange(E, device=ids.device)
    flat = ids.reshape(1, -1)
    # rank[e, i]: the assignments 0..i routed to expert e (a cumulative sum along the rows of
    # the one-hot [E, T K] matrix: a scan of contiguous rows, which torch does fast; along the
    # columns of [T K, E] it took 0.7 ms at 512 tokens); its last column is every expert's count.
    rank = torch.cumsum(_EXPERT_IDS[key].view(-1, 1) == flat, 1, dtype=torch.int32)
    counts = rank[:, -1]
    padded = (counts + (bm - 1)) // bm * bm
    ends = torch.cumsum(padded, 0, dtype=torch.int32)
    # pos = (expert's first row) + (rank among its assignments) - 1 = ends - padded + rank - 1
    first = ends - padded - 1
    pos = (torch.gather(rank, 0, flat) + first[flat]).reshape(-1).long()
    tiles = moe.max_tiles(CFG, t, bm)
    if tile_e is None:
        tile_e = torch.empty(tiles, device=ids.device, dtype=torch.int32)
    if used is None:
        used = torch.empty(1, device=ids.device, dtype=torch.int32)
    rows = _tile_rows(tiles, bm, ids.device)
    torch.searchsorted(ends, rows, right=True, out_int32=True, out=tile_e)
    if mark_unused:
        tile_e.masked_fill_(tile_e >= E, -1)
    torch.floor_divide(ends[-1:], bm, out=used)
    return pos, tile_e, used


_TILE_ROWS: dict[tuple, torch.Tensor] = {}


def _tile_rows(tiles, bm, device):
    key = (tiles, bm, device)
    if key not in _TILE_ROWS:
        _TILE_ROWS[key] = torch.arange(tiles, device=device, dtype=torch.int32) * bm
    return _TILE_ROWS[key]


def plan_by_sort(ids, t, bm=BM):
    """The routing step by a stable sort (the layer's first version): the oracle `plan` is
    checked against. Returns pos, tile_e (-1 past the last used tile) and used."""
    flat = ids.reshape(-1)
    counts = expert_counts(flat)
    padded = (counts + bm - 1) // bm * bm
    ends = torch.cumsum(padded, 0)
    starts = ends - padded
    order = torch.argsort(flat, stable=True)
    sorted_e = flat[order]
    first = (torch.cumsum(counts, 0) - counts)[sorted_e]
    rank = torch.arange(flat.numel(), device="cuda") - first
    pos = torch.empty_like(flat)
    pos[order] = starts[sorted_e] + rank
    tiles = moe.max_tiles(CFG, t, bm)
    # Tiles past the last expert's are marked -1: their CTAs do nothing.
    tile_rows = torch.arange(tiles, device="cuda") * bm
    tile_e = torch.searchsorted(ends, tile_rows, right=True)
    tile_e = torch.where(tile_e < E, tile_e, -1).to(torch.int32)
    used = (ends[-1:] // bm).to(torch.int32)
    return pos, tile_e, used


def combine(yp, pos, w, t):
    """out[token] = sum_k w[token, k] * Y[row of (token, k)], in one pass over the rows
    (`embedding_bag`: bags of the TOPK rows of each token, weighted, summed in float32 and
    stored as f16), without materializing the gathered [T K, H] rows first (at 4096 tokens those
    are 134 MB written and read again)."""
    return F.embedding_bag(pos.view(t, TOPK), yp, mode="sum", per_sample_weights=w.to(yp.dtype).reshape(t, TOPK))


def gather(x, pos, token, inv, xp):
    """xp[row] = x[token of the assignment at row], for the rows of `pos` (assignment -> row):
    the inverse map `inv` (row -> token) is scattered first, then one `index_select` writes
    every row of xp straight from x (which stays in L2), instead of gathering [T K, H] rows into
    a temporary and copying them. Padding rows get whatever token `inv` last held there (valid
    rows of x, never read back)."""
    inv.index_copy_(0, pos, token)
    torch.index_select(x, 0, inv, out=xp)


class AxeRowSteps:
    """The layer's gather and weighted combine as two Axe kernels (moe.gather, .combine):
    moe_gather_t{T} stores each token's row into the rows of its TOPK assignments (read once,
    stored 8 times, no row -> token map), moe_combine_t{T} sums each token's TOPK rows of Y
    weighted (f32, stored as f16; each thread loads its 16 bytes of all TOPK rows before adding
    any). They own the expert-grouped X and Y buffers (sized for any row tile: a layer's are
    prefixes of them), the assignment -> row map and the weights, copied in on each call: the
    kernels are bound to fixed buffers, as for a graph (the gather to the input x it is first
    called with, again if that changes)."""

    def __init__(self, t, gather_kernel, combine_kernel, stream=None, route_kernels=None):
        rows = moe.combine_rows(CFG, t)
        # Per row tile, where generated: the routing step as Axe kernels (moe_route_t{T}_bm{BM},
        # or the segmented pair for larger T, see route_kernels) writing the assignment -> row
        # map straight into `pos` (else `plan`, in PyTorch).
        self.route_kernels, self.routes = route_kernels or {}, {}
        self.padded = torch.zeros(E, device="cuda", dtype=torch.long)
        self.used = torch.zeros(1, device="cuda", dtype=torch.int32)  # for layers that keep no count
        # The gather never writes padding rows, so they keep these values: finite, not zero.
        # With zero padding rows the warp-specialized GEMMs ran 18-25 % slower at 4096 tokens
        # (the same kernels on the same tile map; swapping only X's contents swapped the times:
        # bench/RESULTS.md, "The MoE layer: where the time goes, and the gather and combine as Axe
        # kernels"; the SM clock was the same). The cause was not found.
        self.x = torch.empty(rows, H, device="cuda", dtype=torch.half).normal_()
        self.y = torch.empty(rows, H, device="cuda", dtype=torch.half)
        self.pos = torch.zeros(t * TOPK, device="cuda", dtype=torch.long)
        self.w = torch.zeros(t * TOPK, device="cuda", dtype=torch.float32)
        self.out = torch.empty(t, H, device="cuda", dtype=torch.half)
        self.gather_kernel, self.stream, self.bound = gather_kernel, stream, None
        self.combine_launch = combine_kernel.launcher(self.y.view(-1), self.pos, self.w, self.out.view(-1),
                                                      stream=stream)

    def plan(self, ids, t, bm, tile_e, used):
        """The routing step: the Axe kernel for this row tile if there is one (its launch bound
        to these buffers once), else `plan`. Returns the assignment -> row map."""
        kernel = self.route_kernels.get(bm)
        if kernel is None:
            return plan(ids, t, bm, tile_e=tile_e, used=used, mark_unused=True)[0]
        assert ids.is_contiguous(), "the routing kernel reads ids in place"
        used = self.used if used is None else used
        key = (ids.data_ptr(), tile_e.data_ptr(), used.data_ptr())
        if key not in self.routes:
            self.routes[key] = kernel.launcher(ids.view(-1), self.pos, tile_e, used, self.padded, stream=self.stream)
        self.routes[key]()
        return self.pos

    def gather(self, x, pos):
        assert x.is_contiguous(), "the gather kernel reads x in place"
        if self.bound is None or self.bound[0] != x.data_ptr():
            self.bound = (x.data_ptr(), self.gather_kernel.launcher(x.view(-1), self.pos, self.x.view(-1),
                                                                    stream=self.stream))
        if pos is not self.pos:
            self.pos.copy_(pos)
        self.bound[1]()

    def combine(self, w):
        self.w.copy_(w.reshape(-1))
        self.combine_launch()
        return self.out


class AxeLayer:
    """Axe's layer for T tokens, with its workspace (the expert-grouped rows, the intermediate
    and output rows, the tile map) allocated once and the two kernels bound to it once, as an
    inference engine does: a call runs the routing step, the gather, both grouped GEMMs and the
    combine, with no host synchronization. Rows of padding get copies of some token's row (see
    `gather`): a GEMM row depends only on its own row of A, and padding rows are never read back."""

    def __init__(self, t, up, down, w1, w2, stream=None, steps=None):
        self.t, self.rows = t, moe.max_tiles(CFG, t) * BM
        self.steps = steps
        self.xp = steps.x[:self.rows] if steps else torch.zeros(self.rows, H, device="cuda", dtype=torch.half)
        self.hmid = torch.empty(self.rows, I, device="cuda", dtype=torch.half)
        self.yp = steps.y[:self.rows] if steps else torch.empty(self.rows, H, device="cuda", dtype=torch.half)
        self.tile_e = torch.zeros(moe.max_tiles(CFG, t), device="cuda", dtype=torch.int32)
        self.token = torch.arange(t, device="cuda").repeat_interleave(TOPK)
        self.inv = torch.zeros(self.rows, device="cuda", dtype=torch.long)
        self.up = up.launcher(self.xp.view(-1), w1.view(-1), self.hmid.view(-1), self.tile_e, stream=stream)
        self.down = down.launcher(self.hmid.view(-1), w2.view(-1), self.yp.view(-1), self.tile_e, stream=stream)

    def __call__(self, x, ids, w):
        if self.steps:
            pos = self.steps.plan(ids, self.t, BM, self.tile_e, None)
            self.steps.gather(x, pos)
            self.gemms()
            return self.steps.combine(w)
        pos, _, _ = plan(ids, self.t, tile_e=self.tile_e, mark_unused=True)
        gather(x, pos, self.token, self.inv, self.xp)
        self.gemms()
        return combine(self.yp, pos, w, self.t)

    def gemms(self):
        self.up()
        self.down()


class AxeFusedLayer:
    """The layer with axe_gen.moe_ws's kernels: `fused` (one launch: both grouped GEMMs with the
    per-tile pipeline between them) or, for the ablation, `up` then `down` (the same code as
    two launches); `swap`: the row tile of kernels generated in the swapped orientation.
    Workspace as AxeLayer's, plus the row-tile count and the flags, which are zeroed before
    each launch (the kernel waits for the value 1)."""

    def __init__(self, t, kernels, w1, w2, stream=None, swap=None, steps=None, consumers=2):
        self.t, self.bm = t, swap or BM
        self.rows = moe.max_tiles(CFG, t, self.bm) * self.bm
        self.steps = steps
        self.xp = steps.x[:self.rows] if steps else torch.zeros(self.rows, H, device="cuda", dtype=torch.half)
        self.hmid = torch.empty(self.rows, I, device="cuda", dtype=torch.half)
        self.yp = steps.y[:self.rows] if steps else torch.empty(self.rows, H, device="cuda", dtype=torch.half)
        self.tile_e = torch.zeros(moe.max_tiles(CFG, t, self.bm), device="cuda", dtype=torch.int32)
        self.used = torch.zeros(1, device="cuda", dtype=torch.int32)
        self.flags = torch.zeros(moe_ws.flag_count(CFG, t, swap, consumers), device="cuda", dtype=torch.int32)
        self.token = torch.arange(t, device="cuda").repeat_interleave(TOPK)
        self.inv = torch.zeros(self.rows, device="cuda", dtype=torch.long)
        args = (self.xp.view(-1), w1.view(-1), self.hmid.view(-1), w2.view(-1), self.yp.view(-1), self.tile_e,
                self.used, self.flags, 1)
        # The fused kernel is declared `cooperative` (its CTAs wait on each other's flags): its
        # manifest says so, and axe_runtime launches it cooperatively.
        self.launches = [k.launcher(*args, stream=stream) for k in kernels]

    def __call__(self, x, ids, w):
        if self.steps:
            pos = self.steps.plan(ids, self.t, self.bm, self.tile_e, self.used)
            self.steps.gather(x, pos)
            self.gemms()
            return self.steps.combine(w)
        pos, _, _ = plan(ids, self.t, self.bm, tile_e=self.tile_e, used=self.used)
        gather(x, pos, self.token, self.inv, self.xp)
        self.gemms()
        return combine(self.yp, pos, w, self.t)

    def gemms(self):
        self.flags.zero_()
        for launch in self.launches:
            launch()


def reference(x, ids, w, g, u, d):
    """The layer in float32 (per expert with tokens)."""
    t = x.shape[0]
    out = torch.zeros(t, H, device="cuda")
    flat = ids.reshape(-1)
    token = torch.arange(t, device="cuda").repeat_interleave(TOPK)
    for e in torch.unique(flat).tolist():
        sel = (flat == e).nonzero().squeeze(1)
        xe = x[token[sel]].float()
        h = F.silu(xe @ g[e].float()) * (xe @ u[e].float())
        out.index_add_(0, token[sel], (h @ d[e].float()) * w.reshape(-1)[sel].unsqueeze(1))
    return out


def torch_loop(x, ids, w, g, u, d):
    t = x.shape[0]
    out = torch.zeros(t, H, device="cuda")
    flat = ids.reshape(-1)
    token = torch.arange(t, device="cuda").repeat_interleave(TOPK)
    order = torch.argsort(flat, stable=True)
    counts = torch.bincount(flat, minlength=E).tolist()
    start = 0
    for e, c in enumerate(counts):
        if c == 0:
            continue
        sel = order[start:start + c]
        start += c
        xe = x[token[sel]]
        h = F.silu(xe @ g[e]) * (xe @ u[e])
        out.index_add_(0, token[sel], (h @ d[e]).float() * w.reshape(-1)[sel].unsqueeze(1))
    return out.half()


def grouped_mm_layer(bf):
    """torch._grouped_mm (bf16) composed into the layer; None if this torch has none."""
    if not hasattr(torch, "_grouped_mm"):
        return None
    g, u, d = bf

    def layer(x, ids, w):
        t = x.shape[0]
        flat = ids.reshape(-1)
        order = torch.argsort(flat, stable=True)
        token = torch.arange(t, device="cuda").repeat_interleave(TOPK)[order]
        offs = torch.cumsum(expert_counts(flat), 0).to(torch.int32)
        xs = x.to(torch.bfloat16)[token]
        gate = torch._grouped_mm(xs, g, offs=offs)
        upv = torch._grouped_mm(xs, u, offs=offs)
        y = torch._grouped_mm(F.silu(gate) * upv, d, offs=offs)
        # The same combine as Axe's layers: row of assignment (t, k) = its place in `order`.
        rows = torch.empty_like(order)
        rows[order] = torch.arange(order.numel(), device="cuda")
        return combine(y, rows, w, t).half()
    return layer


def _load_sglang():
    """The module sglang_fused_moe: the first sglang_fused_moe.py in $AXE_SGLANG_MOE or
    sglang_moe/ beside this script, else the one on PYTHONPATH; ImportError when there is none
    or it does not import. Loaded once per process, like an import."""
    if "sglang_fused_moe" in sys.modules:
        return sys.modules["sglang_fused_moe"]
    for where in (os.environ.get("AXE_SGLANG_MOE"), os.path.join(HERE, "sglang_moe")):
        path = os.path.join(where, "sglang_fused_moe.py") if where else None
        if path and os.path.exists(path):
            spec = importlib.util.spec_from_file_location("sglang_fused_moe", path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {path}")
            module = importlib.util.module_from_spec(spec)
            sys.modules["sglang_fused_moe"] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules["sglang_fused_moe"]
                raise
            return module
    import sglang_fused_moe
    return sglang_fused_moe


def sglang_layer(g, u, d):
    """SGLang's Triton `fused_moe` (its own token alignment, the Triton grouped GEMMs with the
    tuned configs SGLang ships for this E, N and device where it has them, else its default,
    SiLU-and-mul, the top-k sum) as a layer, or None.
    The GPU machine has no package index, so this takes a standalone copy of the kernel file:
    sglang_fused_moe.py (SGLang's python/sglang/srt/layers/moe/fused_moe_triton/fused_moe.py
    with its sgl-kernel imports replaced by Triton/torch equivalents; not part of this
    repository) from $AXE_SGLANG_MOE or sglang_moe/ beside this script, loaded from its path
    (importlib), else an importable `sglang_fused_moe` (on PYTHONPATH)."""
    try:
        sglang_fused_moe = _load_sglang()
    except ImportError:
        return None
    # SGLang's weight layout: w1 [E, 2 I, H] (gate rows, then up rows), w2 [E, H, I].
    w1 = torch.cat([g.transpose(1, 2), u.transpose(1, 2)], dim=1).contiguous()
    w2 = d.transpose(1, 2).contiguous()

    def layer(x, ids, w):
        return sglang_fused_moe.fused_moe(x, w1, w2, w.float().contiguous(), ids.to(torch.int32).contiguous())
    source = getattr(sglang_fused_moe, "config_source", None)
    device = torch.cuda.get_device_name().replace(" ", "_")
    layer.config = source(E, I, device) if source else "unknown"
    return layer


def graphed(fn, stream):
    """`fn` captured once in a CUDA graph on `stream` (after a warm-up there): returns the
    replay, which launches every kernel of `fn` with no host work in between — what serving
    engines do for small batches. Its outputs are the captured tensors."""
    # The side stream must not run ahead of work queued on the current one (the inputs, the
    # layer's freshly zeroed workspace): without this the warm-up raced the routing step.
    torch.cuda.synchronize()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        fn()
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=stream):
        fn()
    torch.cuda.synchronize()

    def replay():
        g.replay()
    # The graph holds raw addresses of whatever `fn` uses (a layer's workspace, its kernels'
    # tensor maps): the replay keeps `fn`, and with it those, alive.
    replay.keeps = fn
    return replay


def check(got, want):
    """f16 inputs, f32 accumulation; H and the output rounded to f16."""
    scale = want.abs().max().item()
    err = (got.float() - want).abs().max().item()
    return err <= 1e-2 * scale and not torch.isnan(got).any(), err, scale


def built(d, name):
    """Whether bench/gpu/build_moe.py built kernel `name` into `d`."""
    return os.path.exists(f"{d}/{name}.json")


def load(d, name):
    return axe_runtime.load(f"{d}/{name}.json")


class SegmentedRoute:
    """The segmented routing step for larger batches, moe_route_count_t{T} then
    moe_route_place_t{T}_bm{BM} (moe.route_count / route_place), with the interface of the
    one-kernel moe_route_t{T}_bm{BM}: called or bound to (ids, pos, tile_e, used, padded). The
    two kernels keep their own per-segment scratch, so `padded` is not used."""

    def __init__(self, count, place, t):
        segs = moe.route_segments(CFG, t)
        self.count, self.place = count, place
        self.counts = torch.zeros(segs * E, device="cuda", dtype=torch.long)
        self.padded = torch.zeros(segs * E, device="cuda", dtype=torch.long)

    def launcher(self, ids, pos, tile_e, used, padded=None, stream=None):
        first = self.count.launcher(ids, self.counts, stream=stream)
        second = self.place.launcher(ids, pos, tile_e, used, self.counts, self.padded, stream=stream)

        def run():
            first()
            second()
        return run

    def __call__(self, ids, pos, tile_e, used, padded=None):
        self.launcher(ids, pos, tile_e, used)()


def route_kernels(d, t):
    """The routing kernels built for T tokens, by row tile: moe.route's one kernel for
    small batches, else the segmented pair (SegmentedRoute) where built."""
    out = {}
    name = moe.kernel_name
    for bm in moe.ROW_TILES:
        if built(d, name(CFG, "route", t, bm)):
            out[bm] = load(d, name(CFG, "route", t, bm))
        elif built(d, name(CFG, "route_count", t)) and built(d, name(CFG, "route_place", t, bm)):
            out[bm] = SegmentedRoute(load(d, name(CFG, "route_count", t)), load(d, name(CFG, "route_place", t, bm)), t)
    return out


def copy_bandwidth(nbytes=1 << 30):
    """Bytes read plus written per second by a device-to-device copy of `nbytes` (median)."""
    src = torch.randn(nbytes // 2, device="cuda").half()
    dst = torch.empty_like(src)
    t = time_ms(lambda: dst.copy_(src))
    return 2 * nbytes / (t * 1e-3)


READ_KERNEL = r"""
extern "C" __global__ void read_all(const uint4* __restrict__ x, long long n, unsigned* out) {
    // Every 16-byte word read once (grid-stride, four loads in flight per thread); the XOR of
    // what a thread read is stored so the loads are not dropped.
    unsigned acc = 0;
    long long stride = (long long)gridDim.x * blockDim.x;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        uint4 a = x[i], b = x[i + stride], c = x[i + 2 * stride], d = x[i + 3 * stride];
        acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w;
    }
    for (; i < n; i += stride) {
        uint4 a = x[i];
        acc ^= a.x ^ a.y ^ a.z ^ a.w;
    }
    out[(long long)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
"""


def read_bandwidth(nbytes=1 << 30):
    """Bytes read per second by a kernel that only reads `nbytes` (16-byte loads; the layer's
    weights are only read), or None without CuPy (it compiles the kernel with NVRTC)."""
    try:
        import cupy
    except ImportError:
        return None
    k = cupy.RawKernel(READ_KERNEL, "read_all")
    x = torch.randn(nbytes // 2, device="cuda").half()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    blocks, threads = 8 * sms, 512
    out = torch.empty(blocks * threads, device="cuda", dtype=torch.int32)
    args = (cupy.asarray(x), cupy.int64(nbytes // 16), cupy.asarray(out))
    stream = cupy.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)

    def run():
        with stream:
            k((blocks,), (threads,), args)
    t = time_ms(run)
    return nbytes / (t * 1e-3)


def gemm_rate():
    """The dense f16 GEMM rate (flop/s) cuBLAS reaches on this device (torch.mm, 8192^3,
    median): the compute floor's rate."""
    a = torch.randn(8192, 8192, device="cuda").half()
    b = torch.randn(8192, 8192, device="cuda").half()
    return 2 * 8192 ** 3 / (time_ms(lambda: torch.mm(a, b)) * 1e-3)


def floors(t, ids, bandwidth, rate):
    """The layer's memory floor (every routed expert's gate, up and down weights read once, x
    read and the output written once, at the measured bandwidth) and compute floor (its
    2 T K (2 H I + I H) flop of unpadded rows at the dense GEMM rate), in us."""
    experts = int(torch.unique(ids).numel())
    nbytes = experts * (2 * I * H + H * I) * 2 + 2 * t * H * 2
    flop = 2 * ids.numel() * 3 * H * I
    return experts, nbytes, nbytes / bandwidth * 1e6, flop / rate * 1e6


def label(swap, phases="fused", consumers=2):
    """A persistent layer's name in the tables: fused / two kernels, [swapBR], [c1: one
    consumer warpgroup]."""
    return (("fused" if phases == "fused" else "two kernels") + (f" swap{swap}" if swap else "")
            + (" c1" if consumers == 1 else ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", help="the kernels bench/gpu/build_moe.py built")
    ap.add_argument("tokens", nargs="*", type=int, default=moe.TOKENS)
    ap.add_argument("--model", type=moe.model_arg, default=moe.DEFAULT)
    ap.add_argument("--bench", action="store_true")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--scheduled-only", action="store_true",
                    help="check and time only the layer moe.schedule picks (not the other row tiles)")
    args = ap.parse_args()
    d, bench, reps = args.dir, args.bench, args.reps
    set_model(args.model)
    print(f"model {CFG.tag}: hidden {H}, intermediate {I}, {CFG.experts} routed experts, top-{CFG.topk}, "
          f"{CFG.shared} shared", flush=True)
    torch.backends.cuda.matmul.allow_tf32 = False
    gen = torch.Generator(device="cuda").manual_seed(0)
    g, u, dn, w1, w2 = weights(gen)
    gm = sgl = None
    if bench:
        gm = grouped_mm_layer((g.to(torch.bfloat16), u.to(torch.bfloat16), dn.to(torch.bfloat16)))
        sgl = sglang_layer(g, u, dn)
        if sgl is None:
            print("note: SGLang's Triton fused_moe is not available (neither sglang nor a standalone copy "
                  "in $AXE_SGLANG_MOE / sglang_moe/ next to this script): no such baseline")
        else:
            print(f"note: SGLang's config for E = {E}, N = {I}: {sgl.config}")
    # The memory floor takes the faster of a copy (bytes read + written) and a read-only kernel.
    bandwidth = rate = None
    if bench:
        copy_bw, read_bw = copy_bandwidth(), read_bandwidth()
        rate = gemm_rate()
        print(f"note: device-to-device copy bandwidth {copy_bw / 1e12:.2f} TB/s (read + written, 1 GiB copy); "
              f"read-only kernel {read_bw / 1e12 if read_bw else float('nan'):.2f} TB/s (1 GiB); "
              f"dense f16 GEMM (cuBLAS, 8192^3) {rate / 1e12:.0f} TFLOP/s", flush=True)
        bandwidth = max(copy_bw, read_bw or 0)
    passed = failed = 0
    # The fused kernel needs all its CTAs resident: launched wider than the device holds, its
    # cooperative launch must fail with an error (not hang).
    if built(d, moe_ws.wide_name(CFG)):
        t = moe_ws.WIDE_TOKENS
        try:
            sched = moe.schedule(CFG, t)
            wide = AxeFusedLayer(t, [load(d, moe_ws.wide_name(CFG))], w1, w2, swap=sched.swap,
                                 consumers=sched.consumers)
            x = torch.randn(t, H, device="cuda", generator=gen).half()
            wide(x, *route(t, False, gen))
            torch.cuda.synchronize()
            print("FAIL cooperative launch of a grid wider than the device: it ran", flush=True)
            failed += 1
        except RuntimeError as e:
            ok = "COOPERATIVE_LAUNCH_TOO_LARGE" in str(e)
            print(f"{'ok  ' if ok else 'FAIL'} cooperative launch of a grid wider than the device refused: {e}", flush=True)
            passed += ok
            failed += not ok
    for t in args.tokens:
        chosen = moe.schedule(CFG, t)
        for skew in (False, True):
            tag = f"T={t}{' skewed' if skew else ''}"
            x = (torch.randn(t, H, device="cuda", generator=gen)).half()
            ids, w = route(t, skew, gen)
            want = reference(x, ids, w, g, u, dn)
            # The routing step against its sort-based oracle, for every row tile in use: the
            # one-hot form at any size, and `plan` as the layers call it (into their buffers;
            # without mark_unused only the used tiles are defined).
            for bm in (BM,) + moe_ws.SWAP_ROWS:
                p_want, te_want, u_want = plan_by_sort(ids, t, bm)
                p_got, te_got, u_got = plan_onehot(ids, t, bm, mark_unused=True)
                ok = torch.equal(p_got, p_want) and torch.equal(te_got, te_want) and torch.equal(u_got, u_want)
                te_buf = torch.full_like(te_want, 7)
                u_buf = torch.zeros_like(u_want)
                p_got, _, _ = plan(ids, t, bm, tile_e=te_buf, used=u_buf)
                n = int(u_want.item())
                ok = ok and torch.equal(p_got, p_want) and torch.equal(te_buf[:n], te_want[:n]) and torch.equal(u_buf, u_want)
                # The Axe routing kernel, where built: every tile (-1 past the used ones).
                rk = route_kernels(d, t).get(bm)
                if rk is not None:
                    p_k = torch.full_like(p_want, -7)
                    te_k = torch.full_like(te_want, 7)
                    u_k = torch.zeros_like(u_want)
                    rk(ids.contiguous().view(-1), p_k, te_k, u_k, torch.zeros(E, device="cuda", dtype=torch.long))
                    torch.cuda.synchronize()
                    ok_k = torch.equal(p_k, p_want) and torch.equal(te_k, te_want) and torch.equal(u_k, u_want)
                    if not ok_k:
                        print(f"FAIL {tag} routing kernel (bm {bm}) differs from the sort-based plan", flush=True)
                    passed += ok_k
                    failed += not ok_k
                if not ok:
                    print(f"FAIL {tag} routing plan (bm {bm}) differs from the sort-based one", flush=True)
                passed += ok
                failed += not ok
            # Each Axe layer that was built: how to build it (on a stream), checked on its own.
            makers = {}
            for br in (None, *moe_ws.SWAP_ROWS):
                fused, up, down = (moe_ws.name(CFG, t, ph, br) for ph in moe_ws.PHASES)
                if built(d, fused):
                    makers[label(br)] = lambda stream=None, c=None, br=br, k=fused: AxeFusedLayer(
                        t, [load(d, k)], w1, w2, stream, swap=br, steps=c)
                if built(d, up) and built(d, down):
                    makers[label(br, "two")] = lambda stream=None, c=None, br=br, k=(up, down): AxeFusedLayer(
                        t, [load(d, k[0]), load(d, k[1])], w1, w2, stream, swap=br, steps=c)
                one = moe_ws.name(CFG, t, "fused", br, consumers=1)
                if br and built(d, one):
                    makers[label(br, consumers=1)] = lambda stream=None, c=None, br=br, k=one: AxeFusedLayer(
                        t, [load(d, k)], w1, w2, stream, swap=br, steps=c, consumers=1)
            if built(d, moe.kernel_name(CFG, "up", t)):
                makers["tma"] = lambda stream=None, c=None: AxeLayer(
                    t, load(d, moe.kernel_name(CFG, "up", t)), load(d, moe.kernel_name(CFG, "down", t)),
                    w1, w2, stream, steps=c)
            # Every layer again with the routing step, the gather and the combine as Axe kernels
            # instead of PyTorch's.
            if built(d, moe.kernel_name(CFG, "combine", t)):
                for kind, make in list(makers.items()):
                    makers[f"{kind} +axe steps"] = lambda stream=None, make=make: make(
                        stream, AxeRowSteps(t, load(d, moe.kernel_name(CFG, "gather", t)),
                                            load(d, moe.kernel_name(CFG, "combine", t)), stream,
                                            route_kernels(d, t)))
            axe = f"{label(chosen.swap, consumers=chosen.consumers)} +axe steps"
            if args.scheduled_only:
                makers = {k: v for k, v in makers.items() if k == axe}
            if axe not in makers:
                print(f"FAIL {tag}: the scheduled layer ({axe}) was not built into {d}", flush=True)
                failed += 1
                continue
            layers = {}
            for kind, make in makers.items():
                try:
                    layer = make()
                    got = layer(x, ids, w)
                    torch.cuda.synchronize()
                except Exception as e:  # a bad manifest, a refused argument, a launch error
                    print(f"FAIL {tag} {kind}: {type(e).__name__}: {e}", flush=True)
                    failed += 1
                    continue
                ok, err, scale = check(got, want)
                if ok and (kind.startswith("fused") or kind.startswith("two")):
                    # Again, after the flags are reset: every launch must wait afresh.
                    for _ in range(3):
                        ok2, err2, _ = check(layer(x, ids, w), want)
                        ok, err = ok and ok2, max(err, err2)
                mark = " (scheduled)" if kind == axe else ""
                print(f"{'ok  ' if ok else 'FAIL'} {tag} {kind}{mark}: max abs error {err:.3g} (entries up to "
                      f"{scale:.3g}, bound {1e-2 * scale:.3g})", flush=True)
                passed += ok
                failed += not ok
                if ok:
                    layers[kind] = (layer, make)
            if not bench or axe not in layers:
                continue
            fns = {"torch loop": lambda: torch_loop(x, ids, w, g, u, dn)}
            if gm is not None:
                try:
                    gm(x, ids, w)
                    fns["torch._grouped_mm"] = lambda: gm(x, ids, w)
                except Exception as e:  # noqa: BLE001 (an unsupported build)
                    print(f"     torch._grouped_mm unavailable ({type(e).__name__}: {str(e)[:80]})")
            if sgl is not None:
                ok_s, err_s, _ = check(sgl(x, ids, w), want)
                print(f"     SGLang fused_moe: {'correct' if ok_s else 'WRONG'} (max abs error {err_s:.3g})")
                if ok_s:
                    fns["sglang fused_moe"] = lambda: sgl(x, ids, w)
            # Everything timed in CUDA graphs (the loop synchronizes: it cannot be), as serving
            # engines run a layer.
            cap = torch.cuda.Stream()
            graphs = {}
            for kind, (_, make) in layers.items():
                # make(cap) as a default: each layer built once, here, for its own lambda.
                graphs[kind] = graphed(lambda lay=make(cap): lay(x, ids, w), cap)  # noqa: B008
            for k in ("torch._grouped_mm", "sglang fused_moe"):
                if k in fns:
                    graphs[k] = graphed(fns.pop(k), cap)
            fns.update(graphs)
            times = {k: [] for k in fns}
            for _ in range(reps):
                for k, fn in fns.items():
                    times[k].append(time_ms(fn))
            med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
            experts, nbytes, mem_us, flop_us = floors(t, ids, bandwidth, rate)
            line = f"     {tag}: " + ", ".join(f"{k} {v:.0f} us" for k, v in med.items())
            baselines = [k for k in ("sglang fused_moe", "torch._grouped_mm") if k in med]
            best_axe = min((k for k in med if k in layers), key=med.get)
            line += (f"\n     floors: {experts} experts' weights + x + out = {nbytes / 1e6:.0f} MB at "
                     f"{bandwidth / 1e12:.2f} TB/s: {mem_us:.0f} us; {2 * ids.numel() * 3 * H * I / 1e9:.0f} GFLOP at "
                     f"{rate / 1e12:.0f} TFLOP/s: {flop_us:.0f} us; axe {med[axe]:.0f} us = "
                     f"{max(mem_us, flop_us) / med[axe]:.2f} of the higher floor; fastest Axe layer: {best_axe} "
                     f"{med[best_axe]:.0f} us")
            for k in baselines + ["torch loop"]:
                r = [b / a for a, b in zip(times[axe], times[k])]
                line += f"\n     {k} / axe: {statistics.median(r):.2f} (min {min(r):.2f}, max {max(r):.2f})"
            print(line, flush=True)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
