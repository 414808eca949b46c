#!/usr/bin/env python3
"""Launches one GEMM of gemm_typed.py (axe_gen.gemm_tma / gemm_ws kernels) once on random
inputs (axe_bench.gemm's, as gemm_typed.py makes them), for a profiler to watch:

    ncu --clock-control none --section SpeedOfLight --section WarpStateStats \\
        -k regex:NAME python3 profile_gemm.py DIR NAME M N K [DTYPE [OUT]]
"""
import sys

import axe_runtime
import torch
from axe_bench.gemm import inputs

d, name = sys.argv[1], sys.argv[2]
m, n, k = (int(x) for x in sys.argv[3:6])
dtype = sys.argv[6] if len(sys.argv) > 6 else "f16"
out = sys.argv[7] if len(sys.argv) > 7 else "f16"
kernel = axe_runtime.Manifest.load(f"{d}/{name}.json").kernel(name)  # load(..., entry=name), as a Kernel
a, b, c, scales, _ = inputs(m, n, k, dtype, out)
args = [a.view(-1), b.view(-1), c.view(-1)] + scales
kernel.bind(*args)  # tensor maps built before the launch the profiler watches
kernel(*args)
torch.cuda.synchronize()
