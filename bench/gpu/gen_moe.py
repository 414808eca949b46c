#!/usr/bin/env python3
"""Writes the two grouped GEMMs of a fused-FP16 Mixture-of-Experts layer (the Axe paper's
§4.2 workload; Qwen3-30B-A3B's shapes: hidden 2048, 128 experts, 8 routed per token, expert
intermediate size 768) for a batch of T tokens, as Axe IR, through gen_gemm_tma.py's TMA +
wgmma pipeline:

  moe_up_t{T}:   H[rows, 768]  = silu(X[rows, 2048] W1_gate[e]) * (X W1_up[e])   (SwiGLU epilogue;
                 W1's columns alternate 64 gate and 64 up columns)
  moe_down_t{T}: Y[rows, 2048] = H[rows, 768] W2[e]

`rows` are the token-expert assignments grouped by expert, each expert's group padded to whole
128-row tiles (the routing step, test/gpu/moe.py, does that in PyTorch), and `%map` gives each
row tile's expert. The grid covers the most tiles T tokens can need:
floor(8 T / 128) + min(128, 8 T) (each expert with tokens adds at most one partial tile).

    gen_moe.py DIR [T ...]     (default: the paper's token counts)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_gemm_tma  # noqa: E402

HIDDEN, INTER, EXPERTS, TOPK, BM = 2048, 768, 128, 8, 128
TOKENS = [1, 8, 32, 128, 512, 1024, 2048, 4096]


def max_tiles(t, bm=BM):
    """A bound on the row tiles of `bm` rows that T tokens' assignments fill once each expert's
    group is padded to whole tiles: sum_e ceil(c_e / bm) <= (T K) / bm + (experts in use)."""
    return (t * TOPK) // bm + min(EXPERTS, t * TOPK)


# W1's columns alternate blocks of 64 gate columns and the 64 up columns they pair with, so
# that every column tile (128 or 256 wide) holds whole (gate, up) pairs.
SWIGLU_BLOCK = 64


def tile_width(t):
    """Column tile width: 128 for small batches (twice the CTAs to stream the experts' weights
    with, the bottleneck there), 256 from 256 tokens up (half the reloads of A)."""
    return 128 if t <= 128 else 256


def kernels(t):
    rows = max_tiles(t) * BM
    bn = tile_width(t)
    up = gen_gemm_tma.kernel(rows, 2 * INTER, HIDDEN, bn, 4, 1, 1, "sm_90a", 0, "f16", "f16",
                             experts=EXPERTS, swiglu=SWIGLU_BLOCK, fname=f"moe_up_t{t}")
    down = gen_gemm_tma.kernel(rows, HIDDEN, INTER, bn, 4, 1, 1, "sm_90a", 0, "f16", "f16",
                               experts=EXPERTS, fname=f"moe_down_t{t}")
    return {f"moe_up_t{t}": up, f"moe_down_t{t}": down}


if __name__ == "__main__":
    out = sys.argv[1]
    for t in [int(a) for a in sys.argv[2:]] or TOKENS:
        for name, text in kernels(t).items():
            with open(os.path.join(out, name + ".mlir"), "w") as f:
                f.write(text)
