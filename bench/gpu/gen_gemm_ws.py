#!/usr/bin/env python3
"""The warp-specialized, persistent TMA + wgmma (or mma.sync) GEMM of the Axe paper's §4.1 and
Figure 10, and its fused GEMM + reduce-scatter forms, for the drivers in bench/gpu and
test/gpu: the `axe_gen.gemm_ws` module of python/axe_gen writes it through the typed emitter,
and this file re-exports its names and its command line.

    gen_gemm_ws.py M N K [BN [S [OUT [PERSISTENT [GROUP [SMS [REGS [TMA_STORE [DTYPE [CLUSTER [CHIP]]]]]]]]]]] > gemm_MxNxK_ws.mlir
    gen_gemm_ws.py M N K [--bn BN] [--stages S] ... (named options: --help)
    gen_gemm_ws.py --all DIR
        (the same as PYTHONPATH=python python3 -m axe_gen.gemm_ws ...)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from axe_gen.gemm_ws import (  # noqa: E402,F401
    CONSUMER_REGS,
    PRODUCER_REGS,
    RASTER_SHAPES,
    RASTER_SWEEP,
    VARIANTS,
    Options,
    choose_cluster,
    compiled_kernel,
    every_variant,
    figure10_async_variants,
    figure10_fp8_variants,
    figure10_variants,
    generate,
    kernel,
    main,
    name,
)

if __name__ == "__main__":
    main()
