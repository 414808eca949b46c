#!/usr/bin/env python3
"""Time the CuTe operations axe-layout shares with pycute, and print ratios.

Needs pycute (`pip install nvidia-cutlass` provides the `pycute` module) and the release
builds of `cute-bench` (this crate) and `axe-layout`:

    cargo build --release -p axe-layout-bench -p axe-layout-tool
    python3 bench/layout/pycute_compare.py [--target-dir target] [--min-ms 200]

Three columns per case:
  * pycute: in-process Python, ns/op (timeit, best of 5 repeats);
  * axe (in-process): the same operation through the Rust crate (`cute-bench`), ns/op;
  * axe-layout CLI: one `axe-layout cute ...` process per operation, wall time per call
    (dominated by process start-up; it is what a script calling the tool pays).
Results are compared: structurally (same text modulo spaces) or, failing that, functionally
(same size and the same value at every index of the domain).
"""

import argparse
import ast
import os
import subprocess
import sys
import time
import timeit

try:
    import pycute
    from pycute import Layout
except ImportError:  # pragma: no cover
    sys.exit("pycute is not installed (pip install nvidia-cutlass provides it); nothing to compare")

# (op, A, B-or-cotarget): every CuTe operation both implement.
CASES = [
    ("coalesce", "(2,(2,4)):(1,(2,4))", None),
    ("coalesce", "((4,2),(2,8)):((1,4),(8,16))", None),
    ("composition", "(4,8):(8,1)", "(2,2):(1,4)"),
    ("composition", "(16,8):(8,1)", "(4,4):(1,16)"),
    ("composition", "((4,4),(2,8)):((1,64),(16,256))", "(8,8):(1,8)"),
    ("complement", "(4,8):(1,4)", "1"),
    ("complement", "(2,2):(1,6)", "24"),
    ("complement", "(4,(2,2)):(2,(1,16))", "256"),
    ("right_inverse", "(4,2):(2,1)", None),
    ("right_inverse", "((8,4),(2,4)):((4,1),(32,64))", None),
    ("left_inverse", "(4,2):(2,1)", None),
    ("left_inverse", "(8,4):(1,16)", None),
    ("logical_divide", "(4,8):(8,1)", "2:1"),
    ("logical_divide", "(16,32):(32,1)", "(4,8):(1,4)"),
    ("logical_product", "(2,2):(1,2)", "3:1"),
    ("logical_product", "(4,4):(1,4)", "(2,2):(1,2)"),
]

# The CLI verb of each op (the CLI does not expose `complement`'s cotarget positionally).
CLI_VERB = {
    "coalesce": "coalesce",
    "composition": "compose",
    "complement": "complement",
    "right_inverse": "right-inverse",
    "left_inverse": "left-inverse",
    "logical_divide": "logical-divide",
    "logical_product": "logical-product",
}


def parse(text):
    shape, stride = text.split(":")
    return Layout(ast.literal_eval(shape), ast.literal_eval(stride))


def run_pycute(op, a, b):
    fn = getattr(pycute, op)
    if op == "complement":
        return lambda: fn(a, b)
    if b is None:
        return lambda: fn(a)
    return lambda: fn(a, b)


def same(op, a, py_result, axe_text):
    """How the two results agree: 'text' (same printed form modulo spaces), 'function' (same
    size and value at every index), 'inverse' (both satisfy the defining property of a left or
    right inverse, which does not fix the values off the image), else 'DIFFER'."""
    if str(py_result).replace(" ", "") == axe_text.replace(" ", ""):
        return "text"
    try:
        ours = parse(axe_text)
    except Exception:
        return "DIFFER"
    n = pycute.size(ours)
    if n == pycute.size(py_result) and all(ours(i) == py_result(i) for i in range(n)):
        return "function"
    if op == "left_inverse":
        ok = lambda r: all(r(a(k)) == k for k in range(pycute.size(a)))
        return "inverse" if ok(ours) and ok(py_result) else "DIFFER"
    if op == "right_inverse":
        ok = lambda r: all(a(r(k)) == k for k in range(pycute.size(r)))
        return "inverse" if n == pycute.size(py_result) and ok(ours) and ok(py_result) else "DIFFER"
    return "DIFFER"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--target-dir", default=os.path.join(root, "target"))
    ap.add_argument("--min-ms", type=int, default=200)
    ap.add_argument("--cli-calls", type=int, default=20)
    args = ap.parse_args()
    bench = os.path.join(args.target_dir, "release", "cute-bench")
    cli = os.path.join(args.target_dir, "release", "axe-layout")
    for exe in (bench, cli):
        if not os.access(exe, os.X_OK):
            sys.exit(f"{exe} is not built: cargo build --release -p axe-layout-bench -p axe-layout-tool")

    lines = "".join(f"{op}\t{a}" + (f"\t{b}" if b else "") + "\n" for op, a, b in CASES)
    out = subprocess.run([bench, "--min-ms", str(args.min_ms)], input=lines, capture_output=True, text=True, check=True)
    rust = [line.split("\t") for line in out.stdout.strip().splitlines()]

    header = f"{'op':16} {'A':34} {'B':14} {'pycute ns':>10} {'axe ns':>9} {'py/axe':>7} {'CLI us':>8} {'CLI/py':>7}  agree"
    print(header)
    print("-" * len(header))
    ratios = []
    for (op, at, bt), (rop, rns, rres) in zip(CASES, rust):
        assert op == rop
        a = parse(at)
        b = int(bt) if op == "complement" else (parse(bt) if bt else None)
        fn = run_pycute(op, a, b)
        try:
            py_result = fn()
        except Exception as e:  # an operation pycute refuses
            py_result = None
            py_ns = float("nan")
            agree = f"pycute raised {type(e).__name__}"
        else:
            t = timeit.Timer(fn)
            n, _ = t.autorange()
            py_ns = min(t.repeat(repeat=5, number=n)) / n * 1e9
            agree = "axe: " + rres if rres.startswith("error") else same(op, a, py_result, rres)
        axe_ns = float(rns)
        ratio = py_ns / axe_ns if axe_ns > 0 else float("nan")
        if ratio == ratio:
            ratios.append(ratio)
        # One process per call through the CLI.
        cmd = [cli, "cute", CLI_VERB[op], at]
        if op == "complement":
            cmd += ["--cotarget", bt]
        elif bt:
            cmd.append(bt)
        t0 = time.perf_counter()
        for _ in range(args.cli_calls):
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cli_us = (time.perf_counter() - t0) / args.cli_calls * 1e6
        print(
            f"{op:16} {at:34} {(bt or ''):14} {py_ns:10.0f} {axe_ns:9.0f} {ratio:7.1f} {cli_us:8.0f} {cli_us * 1e3 / py_ns:7.1f}  {agree}"
        )
    if ratios:
        ratios.sort()
        geo = 1.0
        for r in ratios:
            geo *= r
        geo **= 1.0 / len(ratios)
        print(f"\npycute / axe (in-process): geometric mean {geo:.1f}x, min {ratios[0]:.1f}x, max {ratios[-1]:.1f}x over {len(ratios)} cases")


if __name__ == "__main__":
    main()
