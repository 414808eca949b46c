#!/usr/bin/env python3
"""The double-buffered cp.async + mma.sync Axe GEMM (the structure of
test/gpu/kernels/gemm_4096_db.mlir), for test/gpu/build.sh and the lit tests: the
`axe_gen.gemm_mma` module of python/axe_gen writes it through the typed emitter, and this file
re-exports its names and its command line.

    gen_gemm.py M N K [BK] > gemm_MxNxK.mlir
        (the same as PYTHONPATH=python python3 -m axe_gen.gemm_mma M N K [BK])
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from axe_gen.gemm_mma import kernel, main, name  # noqa: E402,F401

if __name__ == "__main__":
    main()
