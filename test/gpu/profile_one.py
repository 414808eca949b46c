#!/usr/bin/env python3
"""Launches one kernel built by test/gpu/build.sh once on its test inputs, for a profiler to
watch (named profile_one.py: a profile.py would shadow the standard library's module):

    ncu --clock-control none --section SpeedOfLight -k regex:NAME python3 profile_one.py DIR NAME
"""
import sys

import axe_runtime
from axe_bench.kernels import KERNELS

d, name = sys.argv[1], sys.argv[2]
kernel = axe_runtime.Manifest.load(f"{d}/{name}.json").kernel(name)  # load(..., entry=name), as a Kernel
try:
    import torch
    args = [torch.from_numpy(a).cuda() for a in KERNELS[name][0]()]
    sync = torch.cuda.synchronize
except ImportError:
    import cupy as cp
    args = [cp.asarray(a) for a in KERNELS[name][0]()]
    sync = cp.cuda.runtime.deviceSynchronize
kernel.bind(*args)  # tensor maps built before the launch the profiler watches
kernel(*args)
sync()
