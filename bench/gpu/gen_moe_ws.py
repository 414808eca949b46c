#!/usr/bin/env python3
"""The MoE layer's persistent kernel (both grouped GEMMs in one warp-specialized launch), for
the drivers in bench/gpu and test/gpu: the `axe_gen.moe_ws` module of python/axe_gen writes it
through the typed emitter, and this file re-exports its names and its command line.

    gen_moe_ws.py DIR [--model NAME] [--all] [T ...]
        (the same as PYTHONPATH=python python3 -m axe_gen.moe_ws DIR ...)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from axe_gen.moe_ws import (  # noqa: E402,F401
    BK,
    CONSUMER_REGS,
    PHASES,
    PRODUCER_REGS,
    SMS,
    STAGES,
    SWAP_BN,
    SWAP_ROWS,
    SWIGLU_BLOCK,
    WIDE_TOKENS,
    column_tile,
    flag_count,
    kernel,
    kernels,
    main,
    name,
    tile_width,
    wide_kernel,
    wide_name,
)

if __name__ == "__main__":
    main()
