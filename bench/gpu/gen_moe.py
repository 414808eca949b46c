#!/usr/bin/env python3
"""Writes the kernels of a fused-FP16 Mixture-of-Experts layer (the Axe paper's §4.2
workload) for any model configuration (`axe_gen.moe.MoEConfig`) and batches of T tokens, as
Axe IR: the two grouped GEMMs as two launches, through gen_gemm_tma.py's TMA + wgmma pipeline,

  moe_<model>_up_t{T}:   H[rows, I]  = silu(X[rows, H] W1_gate[e]) * (X W1_up[e])   (SwiGLU
                 epilogue; W1's columns alternate 64 gate and 64 up columns)
  moe_<model>_down_t{T}: Y[rows, H] = H[rows, I] W2[e]

and the layer's other kernels (gather, routing, combine), which the `axe_gen.moe` package
writes with its typed emitter (its documentation describes the layer's rows, tiles and shared
experts). gen_moe_ws.py writes the persistent kernel that fuses both GEMMs.

    gen_moe.py DIR [--model NAME] [T ...]     (default: Qwen3-30B-A3B, the paper's token counts)

This module re-exports `axe_gen.moe`'s names for the drivers that import it.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import gen_gemm_tma  # noqa: E402
from axe_gen.moe import (  # noqa: E402,F401
    BM,
    DEFAULT,
    L2_BYTES,
    MODELS,
    ROUTE_MAX_TOKENS,
    ROUTE_SEGMENT,
    ROW_TILES,
    SMS,
    SWAP_BN,
    SWAP_ROWS,
    SWIGLU_BLOCK,
    TOKENS,
    MoEConfig,
    Schedule,
    combine,
    combine_rows,
    expected_groups,
    expected_reads,
    expected_rows,
    gather,
    kernel_name,
    max_tiles,
    model_arg,
    route,
    route_count,
    route_place,
    route_segments,
    row_threads,
    schedule,
    tile_width,
)


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
