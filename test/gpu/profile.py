#!/usr/bin/env python3
"""Launches one extracted kernel once on its test inputs, for a profiler to watch:

    ncu --clock-control none --section SpeedOfLight -k regex:NAME python3 profile.py DIR NAME
"""
import os
import sys

import cupy as cp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from axe_launch import Kernel  # noqa: E402
from kernels import KERNELS  # noqa: E402

d, name = sys.argv[1], sys.argv[2]
args = [cp.asarray(a) for a in KERNELS[name][0]()]
kernel = Kernel(d, name)
kernel.bind(args)
kernel(args)
cp.cuda.runtime.deviceSynchronize()
