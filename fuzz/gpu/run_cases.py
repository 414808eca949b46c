#!/usr/bin/env python3
"""Runs the cases `axe-fuzz lowering-gpu --export DIR` wrote, on a GPU, and checks each output
against the layouts' definition (the expected contents the exporter computed).

    PYTHONPATH=python python3 fuzz/gpu/run_cases.py DIR [--json OUT.json]

Per case: the buffers are made as the CPU harness makes them (input element i of buffer b is
`input_value(elt, b, i)`, outputs start at the sentinel -7), the kernel is launched through
`axe_runtime` from the case's launch manifest, and every output buffer the oracle defines is
compared element by element with the tolerance of `fuzz/src/lowering/oracle.rs`'s `close`
(exact for i32; 2e-5 relative for f32; 4e-3 for f16). Prints one line per mismatch or launch
failure (with the case number: `axe-fuzz lowering --seed S --case K` prints the kernel), then a
summary; exits 1 if any case mismatched or failed. With --triage each mismatch is re-run with
its PTX assembled by ptxas -O0 (ptxas_levels.py): right there means ptxas's miscompilation.
"""
import argparse
import json
import math
import os
import sys

import axe_runtime
import torch

TORCH = {"f32": torch.float32, "f16": torch.float16, "i32": torch.int32}
SENTINEL = -7.0


def input_values(elt, b, n):
    """fuzz/src/lowering/program.rs's input_value for elements 0..n of buffer b."""
    i = torch.arange(n, dtype=torch.float64)
    if elt == "f32":
        return b * 5000 + i + 0.5
    if elt == "f16":
        return torch.remainder(b * 300 + i, 1000) + 0.5
    return b * 5000 + i - 20.0


def number(x):
    return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}.get(x, x) if isinstance(x, str) else float(x)


def close(want, got, elt):
    """oracle.rs's close(), elementwise: a boolean tensor."""
    both_nan = torch.isnan(want) & torch.isnan(got)
    equal = want == got
    if elt == "i32":
        return equal | both_nan
    tol = 2e-5 if elt == "f32" else 4e-3
    near = (want - got).abs() <= tol * torch.clamp(want.abs(), min=1.0)
    return (equal | near | both_nan) & ~(torch.isnan(want) ^ torch.isnan(got))


def run_case(d, case, verbose=False):
    manifest = axe_runtime.Manifest.load(os.path.join(d, case["manifest"]))
    kernels = list(manifest)
    if len(kernels) > 1:
        raise RuntimeError(f"{len(kernels)} kernels in one case")
    bufs = []
    for b, buf in enumerate(case["buffers"]):
        if buf["output"]:
            t = torch.full((buf["len"],), SENTINEL, dtype=TORCH[buf["elt"]], device="cuda")
        else:
            t = input_values(buf["elt"], b, buf["len"]).to(TORCH[buf["elt"]]).cuda()
        bufs.append(t)
    # A kernel whose body lowered to nothing has no launch: the outputs keep the sentinel.
    if kernels:
        kernels[0](*bufs)
    torch.cuda.synchronize()
    if verbose:
        for b, t in enumerate(bufs):
            print(f"  b{b} ({case['buffers'][b]['elt']}): {t.tolist()}")
            if case["buffers"][b]["expected"] is not None:
                print(f"  b{b} expected: {case['buffers'][b]['expected']}")
    problems = []
    for b, buf in enumerate(case["buffers"]):
        if not buf["output"] or buf["expected"] is None:
            continue
        want = torch.tensor([number(x) for x in buf["expected"]], dtype=torch.float64)
        got = bufs[b].double().cpu()
        ok = close(want, got, buf["elt"])
        if not bool(ok.all()):
            bad = (~ok).nonzero().flatten()
            i = int(bad[0])
            problems.append(f"b{b}: {len(bad)} of {len(want)} elements differ, first at [{i}]: "
                            f"expected {want[i].item()} got {got[i].item()}")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--json")
    ap.add_argument("--verbose", type=int, nargs="*", default=[], help="cases whose buffers to print")
    ap.add_argument("--triage", action="store_true", help="re-run mismatches with ptxas -O0 (needs CuPy, ptxas)")
    a = ap.parse_args()
    index = json.load(open(os.path.join(a.dir, "index.json")))
    seed, cases = index["seed"], index["cases"]
    print(f"{torch.cuda.get_device_name()}; {len(cases)} cases of seed {seed}", flush=True)
    ok, bad, failed, records = 0, 0, 0, []
    for case in cases:
        try:
            problems = run_case(a.dir, case, case["case"] in a.verbose)
        except Exception as e:  # a launch error: the context may be gone
            failed += 1
            print(f"FAILED case {case['case']} [{case['features']}]: {type(e).__name__}: {e}", flush=True)
            records.append({"case": case["case"], "status": "failed", "error": str(e)})
            try:
                torch.cuda.synchronize()
            except Exception:
                print("the CUDA context is unusable: stopping", flush=True)
                break
            continue
        if problems:
            bad += 1
            print(f"MISMATCH case {case['case']} [{case['features']}]: {'; '.join(problems)}", flush=True)
            records.append({"case": case["case"], "status": "mismatch", "problems": problems})
        else:
            ok += 1
    # Triage: a mismatch the same PTX does not show when ptxas does not optimize (-O0) is
    # ptxas's miscompilation, not the lowering's.
    toolchain = 0
    mismatched = [r for r in records if r["status"] == "mismatch"]
    if mismatched and a.triage:
        import ptxas_levels  # noqa: E402  (needs CuPy and ptxas)
        by_case = {c["case"]: c for c in cases}
        for r in mismatched:
            case = by_case[r["case"]]
            (k,) = json.load(open(os.path.join(a.dir, case["manifest"])))["kernels"]
            ptx = f"/tmp/triage{case['case']}.ptx"
            open(ptx, "w").write(k["ptx"])
            o0 = ptxas_levels.run(ptx, k["entry"], case, 0, k["grid"], k["block"], k["dynamic_shared_bytes"], k["params"])
            r["ptxas_O0"] = o0
            if o0 == "ok":
                toolchain += 1
            print(f"TRIAGE case {case['case']}: " + ("right with ptxas -O0: ptxas miscompiles it" if o0 == "ok"
                                                  else f"wrong with ptxas -O0 too ({o0}): the lowering's"), flush=True)
    print(f"seed {seed}: {ok} ok, {bad} mismatched ({toolchain} of them ptxas's), {failed} failed, "
          f"of {len(cases)} lowered cases")
    if a.json:
        json.dump({"seed": seed, "ok": ok, "mismatched": bad, "failed": failed, "records": records},
                  open(a.json, "w"), indent=1)
    sys.exit(1 if bad or failed else 0)


if __name__ == "__main__":
    main()
