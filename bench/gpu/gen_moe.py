#!/usr/bin/env python3
"""The kernels of the Mixture-of-Experts layer (the Axe paper's §4.2 workload) for any model
configuration, for the drivers in bench/gpu and test/gpu: the `axe_gen.moe` module of
python/axe_gen writes them through the typed emitter (the two-launch grouped GEMMs through
`axe_gen.gemm_tma`), and this file re-exports its names and its command line.

    gen_moe.py DIR [--model NAME] [T ...]     (default: Qwen3-30B-A3B, the paper's token counts)
        (the same as PYTHONPATH=python python3 -m axe_gen.moe DIR ...)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
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
    kernels,
    main,
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

if __name__ == "__main__":
    main()
