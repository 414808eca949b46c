#!/usr/bin/env python3
"""The multi-stage TMA + wgmma (or mma.sync) GEMM, for the drivers in bench/gpu and test/gpu:
the `axe_gen.gemm_tma` module of python/axe_gen writes it through the typed emitter, and this
file re-exports its names and its command line.

    gen_gemm_tma.py M N K [BN [S [OVERLAP [GROUP [CHIP [RELEASE [DTYPE [OUT [TMA_STORE [PREFETCH]]]]]]]]]] > gemm_MxNxK_tma.mlir
    gen_gemm_tma.py --all DIR
        (the same as PYTHONPATH=python python3 -m axe_gen.gemm_tma ...)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from axe_gen.gemm_tma import (  # noqa: E402,F401
    FIGURE10,
    MODELS,
    TYPED_VARIANTS,
    VARIANTS,
    choose,
    figure10_shapes,
    figure10_variants,
    kernel,
    main,
    name,
)

if __name__ == "__main__":
    main()
