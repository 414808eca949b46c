#!/usr/bin/env python3
"""The user-level input of one GEMM (one `axe.matmul` on global tensors), for the drivers in
bench/gpu: the `axe_gen.matmul` module of python/axe_gen writes it through the typed emitter,
and this file re-exports it and its command line.

    matmul_ir.py M N K [DTYPE [OUT]] [--name NAME] [--schedule 'tile_n = 128, ...'] [--workspace]
                 [--gate silu] [--gather R] [--bias] [--activation KIND] [--residual] > mm.mlir
        (the same as PYTHONPATH=python python3 -m axe_gen.matmul ...; its documentation has
        the arguments)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from axe_gen.matmul import ELEMENTS, gather_flags, main, module  # noqa: E402,F401

if __name__ == "__main__":
    main()
