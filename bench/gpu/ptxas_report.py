#!/usr/bin/env python3
"""ptxas's resource report (registers, spill stores and loads, stack) for the kernels of
launch manifests, on a machine with CUDA's ptxas (the GPU machine).

    python3 bench/gpu/ptxas_report.py MANIFEST.json|DIR [...] [--only SUBSTR] [--ptxas PATH]

Each kernel's PTX is assembled for its own target (`ptxas -arch=<target> -v`); one line per
kernel: registers, bytes of spill stores / loads, stack frame. Exit status 1 when a kernel
spills or ptxas fails.

On a machine without CUDA, PyPI's `nvidia-cuda-nvcc-cu12` wheel carries a ptxas (`pip
download --no-deps nvidia-cuda-nvcc-cu12`, unzip `nvidia/cuda_nvcc/bin/ptxas`, pass it with
`--ptxas`); its CUDA 12.9 ptxas reported within 5 % of the GPU machine's CUDA 13 one on the
attention kernels (216 against 212 bytes of spill stores).
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def manifests(paths: list[str]) -> list[str]:
    out: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            out += sorted(f for f in glob.glob(os.path.join(p, "*.json")) if not f.endswith("index.json"))
        else:
            out.append(p)
    return out


def report(ptxas: str, path: str) -> list[tuple[str, str, bool]]:
    rows = []
    with open(path) as f:
        doc = json.load(f)
    for k in doc.get("kernels", []):
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "k.ptx")
            with open(src, "w") as f:
                f.write(k["ptx"])
            r = subprocess.run([ptxas, f"-arch={k['target']}", "-v", src, "-o", os.path.join(tmp, "k.cubin")],
                               capture_output=True, text=True)
        text = r.stdout + r.stderr
        regs = re.search(r"Used (\d+) registers", text)
        spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", text)
        stack = re.search(r"(\d+) bytes stack frame", text)
        bad = r.returncode != 0 or (spill is not None and (spill.group(1) != "0" or spill.group(2) != "0"))
        line = (f"registers {regs.group(1) if regs else '?'}, spills {spill.group(1) if spill else '?'} / "
                f"{spill.group(2) if spill else '?'} bytes, stack {stack.group(1) if stack else '?'}")
        if r.returncode != 0:
            line = "ptxas failed: " + text.strip().splitlines()[-1][:200]
        rows.append((k["entry"], line, bad))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--only")
    ap.add_argument("--ptxas", default=shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas")
    a = ap.parse_args()
    bad = 0
    for m in manifests(a.paths):
        if a.only and a.only not in os.path.basename(m):
            continue
        for entry, line, b in report(a.ptxas, m):
            bad += b
            print(f"{'SPILL' if b else 'ok'} {entry}: {line}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
