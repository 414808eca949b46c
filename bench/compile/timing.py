#!/usr/bin/env python3
"""Compile time of Axe's passes against the upstream part of axe-to-nvvm-pipeline.

For every shipped GPU kernel (test/gpu/kernels) and the generated TMA GEMMs, runs the release
axe-opt with --mlir-timing a few times and prints, per kernel, the wall time of Axe's passes
(AxeSlice, AxeInferLayout, AxeCanonicalize, ConvertAxeToGPU), of everything else (upstream
passes, NVPTX code generation, parsing, printing) and their ratio (Axe / upstream; the target
is <= 1). The median of the runs is reported. Usage:

    cargo build --release && PYTHONPATH=python python3 bench/compile/timing.py [--runs 5]

(the TMA GEMMs come from `python -m axe_gen.gemm_tma`, which needs python/ on PYTHONPATH)
"""
import argparse
import glob
import os
import re
import statistics
import subprocess
import sys
import tempfile

AXE_PASSES = {"AxeSlice", "AxeInferLayout", "AxeCanonicalize", "ConvertAxeToGPU"}
ROW = re.compile(r"^\s+([0-9.]+) \(\s*[0-9.]+%\)\s+(\S.*)$")


def chip_of(path):
    text = open(path).read()
    return "sm_90a features=+ptx80" if '"sm_90a"' in text else "sm_90"


def timing(opt, path, chip):
    out = subprocess.run(
        [opt, path, f"--axe-to-nvvm-pipeline=chip={chip}", "--mlir-timing", "-o", os.devnull],
        capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return None
    axe = other = 0.0
    section = out.stderr.split("----Name----", 1)[-1]
    for line in section.splitlines():
        m = ROW.match(line)
        if not m:
            continue
        secs, name = float(m.group(1)), m.group(2).strip()
        if name == "Total" or name.startswith("(A)"):
            continue
        # Nested rows (analyses, pipeline parents) are indented further; count leaves only.
        indent = len(line) - len(line.lstrip())
        if indent > 4:
            continue
        if name in AXE_PASSES:
            axe += secs
        else:
            other += secs
    return axe, other


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--opt", default="target/release/axe-opt")
    args = ap.parse_args()
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    os.chdir(root)
    kernels = sorted(glob.glob("test/gpu/kernels/*.mlir"))
    with tempfile.TemporaryDirectory() as gen:
        subprocess.run([sys.executable, "-m", "axe_gen.gemm_tma", "--all", gen], check=True,
                       capture_output=True)
        kernels += sorted(glob.glob(os.path.join(gen, "*.mlir")))[:6]
        print(f"{'kernel':40s} {'axe s':>8s} {'upstream s':>11s} {'axe/upstream':>13s}")
        ratios = []
        for k in kernels:
            runs = [timing(args.opt, k, chip_of(k)) for _ in range(args.runs)]
            if any(r is None for r in runs):
                print(f"{os.path.basename(k):40s} lowering failed")
                continue
            axe = statistics.median(r[0] for r in runs)
            other = statistics.median(r[1] for r in runs)
            ratio = axe / other if other > 0 else float("inf")
            ratios.append(ratio)
            print(f"{os.path.basename(k)[:40]:40s} {axe:8.4f} {other:11.4f} {ratio:13.2f}")
        print(f"kernels: {len(ratios)}  max axe/upstream: {max(ratios):.2f}  "
              f"geomean: {statistics.geometric_mean(ratios):.2f}")


if __name__ == "__main__":
    main()
