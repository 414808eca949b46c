#!/usr/bin/env python3
"""Runs `ptxas-neg-vimnmx3.ptx` (b[0] = max(a[0], -a[1], a[2])) assembled at each ptxas level
on a = [1, 5, 2, 0]: the right answer is 2; a dropped negation gives 5.

    python3 fuzz/gpu/repros/run_vimnmx3.py      # needs CuPy and ptxas on PATH
"""
import os
import subprocess

import cupy as cp
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    a = cp.asarray(np.array([1, 5, 2, 0], dtype=np.int32))
    for level in (0, 1, 3):
        cubin = f"/tmp/vimnmx3_O{level}.cubin"
        subprocess.run(["ptxas", f"-O{level}", "-arch=sm_90", os.path.join(HERE, "ptxas-neg-vimnmx3.ptx"),
                        "-o", cubin], check=True)
        b = cp.full((1,), -7, dtype=cp.int32)
        cp.RawModule(path=cubin).get_function("k")((1,), (1,), (a, b))
        got = int(b.get()[0])
        print(f"ptxas -O{level}: b[0] = {got} ({'right' if got == 2 else 'WRONG, expected 2'})")


if __name__ == "__main__":
    main()
