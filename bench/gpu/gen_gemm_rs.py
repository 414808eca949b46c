#!/usr/bin/env python3
"""The fused GEMM + reduce-scatter of the Axe paper (§4.3), on the TMA pipeline or the
warp-specialized persistent GEMM, for the drivers in bench/gpu and test/gpu: the
`axe_gen.gemm_rs` module of python/axe_gen writes it through the typed emitter, and this file
re-exports its names and its command line.

    gen_gemm_rs.py M N K R [BN S] > gemm_rs_MxNxK_rR.mlir   (K: the whole K; each device gets K/R)
    gen_gemm_rs.py --ws M N K R SMS COOPERATIVE [defer|bulk|async|async2|pushers|commC|reduce]   (the warp-specialized form)
    gen_gemm_rs.py --all DIR                             (SHAPES x RANKS, both forms)
        (the same as PYTHONPATH=python python3 -m axe_gen.gemm_rs ...)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from axe_gen.gemm_rs import (  # noqa: E402,F401
    BN,
    RANKS,
    SHAPES,
    STAGES,
    main,
    name,
    name_ws,
    write,
    write_all,
    write_ws,
)

if __name__ == "__main__":
    main()
