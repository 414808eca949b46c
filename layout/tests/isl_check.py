#!/usr/bin/env python3
"""Check ISL relations exported by `Layout::to_isl` against brute-force tables.

Reads a JSON list on stdin; each case is
  {"isl": "<relation>", "shape": [..], "axes": [..], "table": [[{axis: value}, ..], ..]}
where table[x] is the set of points of flat logical index x (zero coordinates omitted).
The relation is enumerated with islpy and must equal exactly
  { (unflatten(x, shape), point) : x, point in table[x] }.

Exit status: 0 when every case matches, 1 on a mismatch, 77 when islpy is missing
(the Rust test treats 77 as "skipped").
"""
import json
import sys

try:
    import islpy as isl
except ImportError:
    print("islpy not installed", file=sys.stderr)
    sys.exit(77)


def unflatten(x, shape):
    out = [0] * len(shape)
    for i in reversed(range(len(shape))):
        out[i] = x % shape[i]
        x //= shape[i]
    return out


def main():
    cases = json.load(sys.stdin)
    bad = 0
    for case in cases:
        rel = isl.Map(case["isl"])
        shape, axes = case["shape"], case["axes"]
        n = len(shape) + len(axes)
        got = set()

        def add(p):
            got.add(tuple(p.get_coordinate_val(isl.dim_type.set, k).to_python() for k in range(n)))

        rel.wrap().foreach_point(add)
        want = set()
        for x, points in enumerate(case["table"]):
            coord = unflatten(x, shape)
            for p in points:
                want.add(tuple(coord + [p.get(a, 0) for a in axes]))
        if got != want:
            bad += 1
            print("MISMATCH", case["isl"], file=sys.stderr)
            print("  only in ISL:", sorted(got - want)[:5], file=sys.stderr)
            print("  only in table:", sorted(want - got)[:5], file=sys.stderr)
    print(f"{len(cases) - bad}/{len(cases)} relations match")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
