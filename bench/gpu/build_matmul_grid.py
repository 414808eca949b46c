#!/usr/bin/env python3
"""Builds the GEMM benchmark grid through the compiler: for each (M, N, K, dtype, out) the
user-level `axe.matmul` module (axe_gen.matmul), its schedule as `axe-matmul-schedule` chooses it
(or an override), lowered with `axe-to-nvvm-pipeline` (which chooses and expands the schedule
itself) and written as a launch manifest OUTDIR/<entry>.json, as test/gpu/build.sh does; plus
OUTDIR/index.json, the list gemm_grid.py reads ({entry, m, n, k, dtype, out, schedule}).

    PYTHONPATH=python python3 bench/gpu/build_matmul_grid.py OUTDIR [--grid full|small|probe|triton] [--only SUBSTR]

The grid: M in {1, 16, 64, 128, 256, 512, 1024, 2048, 4096, 8192} times the weight shapes of
Llama-3.1-8B (QKV 6144x4096, O 4096x4096, gate/up 14336x4096, down 4096x14336) and -70B (QKV
10240x8192, down 8192x28672) in f16 and bf16; ragged shapes (no dimension a multiple of 64) in
f16 and bf16; FP8 (e4m3, per-tensor scales, bf16 out) at the 8B shapes.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys

from axe_gen import matmul

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")

BATCHES = [1, 16, 64, 128, 256, 512, 1024, 2048, 4096, 8192]
LLAMA_8B = [(6144, 4096), (4096, 4096), (14336, 4096), (4096, 14336)]
LLAMA_70B = [(10240, 8192), (8192, 28672)]
RAGGED = [(1000, 1000, 1000), (3000, 5000, 7000), (200, 3000, 5000), (1, 1000, 3000), (77, 4104, 4040),
          (520, 6152, 4104), (2050, 1000, 8200)]


# Calibration of the schedule heuristic: shapes where the chosen schedule trailed cuBLAS, each
# with the alternatives the cost model weighs (tile, stages), as `schedule` overrides.
PROBE = [
    ((1, 4096, 4096), ["tile_m = 64, tile_n = 64, stages = 4", "tile_m = 64, tile_n = 64, stages = 8",
                       "tile_m = 64, tile_n = 64, stages = 12", "tile_m = 64, tile_n = 128, stages = 8"]),
    ((64, 4096, 14336), ["tile_m = 64, tile_n = 64, stages = 4", "tile_m = 64, tile_n = 64, stages = 8",
                         "tile_m = 64, tile_n = 64, stages = 12", "tile_m = 64, tile_n = 128, stages = 8"]),
    ((128, 4096, 4096), ["tile_m = 64, tile_n = 64, stages = 4", "tile_m = 64, tile_n = 64, stages = 8",
                         "tile_m = 128, tile_n = 64, stages = 8", "tile_m = 128, tile_n = 128, stages = 4",
                         "tile_m = 128, tile_n = 128, stages = 6"]),
    ((256, 4096, 14336), ["tile_m = 128, tile_n = 64, stages = 4", "tile_m = 128, tile_n = 64, stages = 8",
                          "tile_m = 128, tile_n = 128, stages = 6", "tile_m = 64, tile_n = 128, stages = 8",
                          "tile_m = 128, tile_n = 192, stages = 4"]),
    ((2050, 1000, 8200), ["tile_m = 64, tile_n = 256, stages = 4", "tile_m = 128, tile_n = 128, stages = 6",
                          "tile_m = 128, tile_n = 256, stages = 4", "tile_m = 128, tile_n = 64, stages = 8",
                          "tile_m = 128, tile_n = 192, stages = 4"]),
    ((2048, 1024, 8192), ["tile_m = 64, tile_n = 256, stages = 4", "tile_m = 128, tile_n = 128, stages = 6",
                          "tile_m = 128, tile_n = 256, stages = 4"]),
    ((3000, 5000, 7000), ["tile_m = 128, tile_n = 256, stages = 4", "tile_m = 128, tile_n = 128, stages = 6",
                          "tile_m = 128, tile_n = 192, stages = 4"]),
    ((3000, 5000, 7040), ["tile_m = 128, tile_n = 256, stages = 4"]),
    ((3072, 5120, 7168), ["tile_m = 128, tile_n = 256, stages = 4"]),
    ((512, 10240, 8192), ["tile_m = 128, tile_n = 128, stages = 4", "tile_m = 128, tile_n = 256, stages = 4",
                          "tile_m = 128, tile_n = 192, stages = 4", "tile_m = 128, tile_n = 128, stages = 6"]),
    ((1024, 6144, 4096), ["tile_m = 128, tile_n = 128, stages = 4", "tile_m = 128, tile_n = 256, stages = 4",
                          "tile_m = 128, tile_n = 192, stages = 4", "tile_m = 128, tile_n = 128, stages = 6"]),
    ((200, 3000, 5000), ["tile_m = 128, tile_n = 64, stages = 4", "tile_m = 128, tile_n = 64, stages = 8",
                         "tile_m = 64, tile_n = 128, stages = 8", "tile_m = 128, tile_n = 128, stages = 6"]),
]


# Split-K's calibration: shapes whose tiles cannot fill 132 SMs, each part count forced.
SPLIT_PROBE = [(1, 4096, 4096), (16, 4096, 14336), (64, 4096, 14336), (128, 4096, 14336), (1, 8192, 28672),
               (256, 1024, 8192), (64, 14336, 4096)]


def probe():
    return ([(m, n, k, "f16", "f16", sched) for (m, n, k), scheds in PROBE for sched in scheds]
            + [(m, n, k, "f16", "f16", f"split_k = {sk}") for (m, n, k) in SPLIT_PROBE for sk in (1, 2, 4, 8)])


def grid(which):
    if which == "probe":
        return probe()
    if which == "triton":
        # The subset timed against the tuned Triton matmul too (its autotuning costs seconds
        # per shape): f16, the 8B weights at six batches, and three ragged shapes.
        return ([(m, n, k, "f16", "f16") for m in (1, 16, 128, 512, 2048, 8192) for n, k in LLAMA_8B]
                + [(m, n, k, "f16", "f16") for m, n, k in RAGGED[:3]])
    out = []
    batches = BATCHES if which == "full" else [1, 128, 1024, 8192]
    for dtype in ("f16", "bf16"):
        for m in batches:
            for n, k in LLAMA_8B + (LLAMA_70B if which == "full" and dtype == "f16" else []):
                out.append((m, n, k, dtype, dtype))
        for m, n, k in RAGGED:
            out.append((m, n, k, dtype, dtype))
    for m in batches:
        for n, k in LLAMA_8B:
            out.append((m, n, k, "e4m3", "bf16"))
    return out


# Whether the GEMMs get split-K's workspace (--no-workspace: the schedules without split-K).
WORKSPACE = True


def tag(schedule):
    """A name suffix for an override: `tile_m = 64, tile_n = 128, stages = 8` -> `_t64x128s8`,
    `split_k = 4` -> `_k4`."""
    if not schedule:
        return ""
    f = dict(x.split(" = ") for x in schedule.split(", "))
    t = f"_t{f['tile_m']}x{f['tile_n']}s{f['stages']}" if "tile_m" in f else ""
    return t + (f"_k{f['split_k']}" if "split_k" in f else "")


def build(outdir, m, n, k, dtype, out, schedule=None):
    opt = os.environ.get("AXE_OPT", os.path.join(ROOT, "target/release/axe-opt"))
    translate = os.environ.get("AXE_TRANSLATE", os.path.join(os.path.dirname(opt), "axe-translate"))
    entry = f"matmul_{m}x{n}x{k}_{dtype}_o{out}{tag(schedule)}"
    # Every GEMM gets split-K's workspace, as a serving engine would give it; the schedule
    # splits K only where the model says it pays.
    src = matmul.module(m, n, k, dtype, out, name=entry, schedule=schedule, workspace=WORKSPACE)
    chosen = subprocess.run([opt, "-", "--axe-matmul-schedule"], input=src, capture_output=True, text=True)
    if chosen.returncode:
        return None, f"{entry}: {chosen.stderr.strip()}"
    sched = re.search(r"#axe\.matmul_schedule<([^>]*)>", chosen.stdout).group(1)
    lowered = subprocess.run([opt, "-", "--axe-to-nvvm-pipeline=chip=sm_90a features=+ptx80"], input=src,
                             capture_output=True, text=True)
    if lowered.returncode:
        return None, f"{entry}: {lowered.stderr.strip()[:2000]}"
    manifest = subprocess.run([translate, "-", "--axe-to-launch-manifest"], input=lowered.stdout,
                              capture_output=True, text=True)
    if manifest.returncode:
        return None, f"{entry}: {manifest.stderr.strip()[:2000]}"
    data = json.loads(manifest.stdout)
    (kernel,) = data["kernels"]
    with open(os.path.join(outdir, f"{kernel['entry']}.json"), "w") as f:
        json.dump({"version": data["version"], "kernels": [kernel]}, f)
    return {"entry": kernel["entry"], "m": m, "n": n, "k": k, "dtype": dtype, "out": out, "schedule": sched,
            "workspace": WORKSPACE}, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--grid", default="full", choices=["small", "full", "probe", "triton"])
    ap.add_argument("--only")
    ap.add_argument("--no-workspace", action="store_true")
    a = ap.parse_args()
    global WORKSPACE
    WORKSPACE = not a.no_workspace
    os.makedirs(a.outdir, exist_ok=True)
    items = [g for g in grid(a.grid) if not a.only or a.only in "x".join(map(str, g))]
    index, errors = [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for entry, err in pool.map(lambda g: build(a.outdir, *g), items):
            (index.append(entry) if entry else errors.append(err))
    with open(os.path.join(a.outdir, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    print(f"{len(index)} kernels in {a.outdir}, {len(errors)} failed")
    for e in errors:
        print("FAILED", e)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
