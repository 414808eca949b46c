#!/usr/bin/env python3
"""Times the shipped GPU kernels (CUDA events: warm-ups, median of repeated runs) and prints
the ratio against the baseline a user would pick instead (torch.clone for copies, torch
elementwise for pointwise, torch.softmax for the row softmax), as achieved bandwidth
(bytes read + written per second).

    python3 bench.py DIR     (DIR: the output of test/gpu/build.sh)
"""
import json
import os
import statistics
import sys

import cupy as cp
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernels import KERNELS  # noqa: E402


def time_ms(fn, warmup=5, reps=30):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def baseline(name, t):
    if name == "torch.clone":
        return lambda: t.clone()
    if name == "torch.relu*2":
        return lambda: torch.relu(t) * 2
    if name == "torch.softmax":
        x = t.view(32768, 1024)
        return lambda: torch.softmax(x, dim=1)
    if name == "torch.softmax[4096x4096]":
        x = t.view(4096, 4096)
        return lambda: torch.softmax(x, dim=1)
    return None


def main():
    d = sys.argv[1]
    print(f"device: {torch.cuda.get_device_name()}")
    for name, (make, _, _, _, nbytes, base) in KERNELS.items():
        spec = json.load(open(f"{d}/{name}.json"))
        fn = cp.RawModule(path=f"{d}/{name}.ptx").get_function(spec["entry"])
        args = [cp.asarray(a) for a in make()]
        ms = time_ms(lambda: fn(tuple(spec["grid"]), tuple(spec["block"]), tuple(args)))
        line = f"{name}: {ms * 1e3:.1f} us" + (f", {nbytes / ms / 1e9:.3f} TB/s" if nbytes else "")
        if base:
            t = torch.as_tensor(args[0], device="cuda")
            bms = time_ms(baseline(base, t))
            line += f"; {base}: {bms * 1e3:.1f} us, {nbytes / bms / 1e9:.3f} TB/s; ratio {bms / ms:.3f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
