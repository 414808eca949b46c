#!/usr/bin/env python3
"""Runs exported lowering-gpu cases with their PTX assembled by ptxas at -O0 and at -O3 (cubins
loaded with CuPy), each checked against the expected outputs: a case right at -O0 and wrong at
-O3 is ptxas's miscompilation, not the lowering's (the PTX means what the layouts say).

    PYTHONPATH=python python3 fuzz/gpu/ptxas_levels.py DIR CASE [CASE ...]
"""
import json
import os
import subprocess
import sys

import cupy as cp
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
import torch  # noqa: E402  (run_cases' helpers build torch tensors)
from run_cases import SENTINEL, close, input_values, number  # noqa: E402

NP = {"f32": np.float32, "f16": np.float16, "i32": np.int32}


def run(ptx_path, entry, case, level, grid, block, shared, params):
    cubin = f"/tmp/case{case['case']}_O{level}.cubin"
    subprocess.run(["ptxas", f"-O{level}", "-arch=sm_90", ptx_path, "-o", cubin], check=True)
    k = cp.RawModule(path=cubin).get_function(entry)
    bufs = []
    for b, buf in enumerate(case["buffers"]):
        if buf["output"]:
            bufs.append(cp.full((buf["len"],), SENTINEL, dtype=NP[buf["elt"]]))
        else:
            bufs.append(cp.asarray(input_values(buf["elt"], b, buf["len"]).numpy().astype(NP[buf["elt"]])))
    k(tuple(grid), tuple(block), tuple(bufs[p["arg"]] for p in params), shared_mem=shared)
    cp.cuda.Device().synchronize()
    bad = []
    for b, buf in enumerate(case["buffers"]):
        if buf["output"] and buf["expected"] is not None:
            want = torch.tensor([number(x) for x in buf["expected"]], dtype=torch.float64)
            got = torch.tensor(cp.asnumpy(bufs[b]).astype(np.float64))
            ok = close(want, got, buf["elt"])
            if not bool(ok.all()):
                bad.append(f"b{b}: {int((~ok).sum())} of {len(want)} differ")
    return "ok" if not bad else "; ".join(bad)


def main():
    d, cases = sys.argv[1], {int(c) for c in sys.argv[2:]}
    for case in json.load(open(os.path.join(d, "index.json")))["cases"]:
        if case["case"] not in cases:
            continue
        (kernel,) = json.load(open(os.path.join(d, case["manifest"])))["kernels"]
        if any(p["kind"] != "buffer" for p in kernel["params"]):
            print(f"case {case['case']}: not plain buffers, skipped")
            continue
        ptx = f"/tmp/case{case['case']}.ptx"
        open(ptx, "w").write(kernel["ptx"])
        levels = {lv: run(ptx, kernel["entry"], case, lv, kernel["grid"], kernel["block"],
                          kernel["dynamic_shared_bytes"], kernel["params"]) for lv in (0, 3)}
        print(f"case {case['case']} [{case['features']}]: ptxas -O0 {levels[0]}; -O3 {levels[3]}")


if __name__ == "__main__":
    main()
