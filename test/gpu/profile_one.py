#!/usr/bin/env python3
"""Launches one kernel built by test/gpu/build.sh once on its test inputs, for a profiler to
watch (named profile_one.py: a profile.py would shadow the standard library's module):

    ncu --clock-control none --section SpeedOfLight -k regex:NAME python3 profile_one.py DIR NAME
"""
import sys

from kernels import KERNELS  # noqa: E402
from runtime_path import axe_runtime  # noqa: E402  (finds the package)

d, name = sys.argv[1], sys.argv[2]
kernel = axe_runtime.load(f"{d}/{name}.json", entry=name)
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
