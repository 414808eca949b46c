#!/usr/bin/env python3
"""Times the warp-specialized GEMM of axe_gen.gemm_ws with raster groups 4, 8, 16 and 32 (GROUP
row tiles walked down one column tile before moving right) at gemm_ws.RASTER_SHAPES,
against cuBLAS, paired: per repetition every group and torch.matmul in turn (CUDA events,
median of 10 runs each); prints the median ratio cuBLAS time / Axe time per group.

    python3 ws_raster_sweep.py DIR [--reps R]      (DIR: test/gpu/build.sh's target/gpu/sm_90)
"""
import statistics
import sys

import axe_runtime
import torch
from axe_bench import timing
from axe_bench.gemm import inputs
from axe_gen import gemm_ws

GROUPS = (4, 8, 16, 32)


def main():
    d = sys.argv[1]
    reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 3
    for m, n, k in gemm_ws.RASTER_SHAPES:
        a, b, c, _, _ = inputs(m, n, k, "f16", "f16")
        args = [a.view(-1), b.view(-1), c.view(-1)]
        launch = {}
        for g in GROUPS:
            name = gemm_ws.name(m, n, k, 256, 4, "f16", 1, g, 132, 1, 1) + "_kernel"
            launch[g] = axe_runtime.load(f"{d}/{name}.json", entry=name).launcher(*args)
        mine = {g: [] for g in GROUPS}
        base = []
        for _ in range(reps):
            for g in GROUPS:
                mine[g].append(timing.time_ms(launch[g], 3, 10))
            base.append(timing.time_ms(lambda: torch.matmul(a, b), 3, 10))
        ratios = {g: round(statistics.median([t / x for t, x in zip(base, v)]), 3) for g, v in mine.items()}
        print(f"{m}x{n}x{k}: cuBLAS time / Axe time per GROUP {ratios}", flush=True)


if __name__ == "__main__":
    main()
