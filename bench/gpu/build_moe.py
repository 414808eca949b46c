#!/usr/bin/env python3
"""Builds the MoE layer's kernels that test/gpu/moe.py runs, for each model configuration
(axe_gen.moe.MODELS) and token count T, as OUTDIR/<kernel>.json launch manifests:

  * the persistent kernels (axe_gen.moe_ws) in the orientation axe_gen.moe.schedule picks, fused and
    as two launches, and, so that a run can tell whether the pick was right, the fused kernel
    of every other row tile (8, 16, 32 and 128 rows), the swapped ones also with one consumer
    warpgroup (moe_ws.kernel(..., consumers=1));
  * the gather, the combine and the routing step (per row tile built) as Axe kernels;
  * with --all, every form of axe_gen.moe_ws and the 128-row non-persistent grouped GEMMs of
    axe_gen.moe (the paper's model: the ablations of bench/RESULTS.md).

    PYTHONPATH=python python3 bench/gpu/build_moe.py OUTDIR [--models qwen3-30b-a3b,mixtral-8x7b,...] [--tokens 1,8,...] [--all] [-j N]
"""
import argparse
import concurrent.futures
import os
import sys

from axe_gen import moe, moe_ws
from lowering import lower


def sources(cfg, t, every):
    """{kernel name: Axe IR} of the layer for T tokens."""
    schedules = [moe.Schedule(None if bm == moe.BM else bm) for bm in moe.ROW_TILES]
    out = moe.kernels(cfg, t, schedules)
    if not every:  # the 128-row non-persistent GEMMs are ablations
        del out[moe.kernel_name(cfg, "up", t)], out[moe.kernel_name(cfg, "down", t)]
        out.update(moe_ws.kernels(cfg, t))
        for s in schedules:
            out[moe_ws.name(cfg, t, "fused", s.swap)] = moe_ws.kernel(cfg, t, "fused", swap=s.swap)
            if s.swap:  # and with one consumer warpgroup
                out[moe_ws.name(cfg, t, "fused", s.swap, 1)] = moe_ws.kernel(cfg, t, "fused", swap=s.swap,
                                                                             consumers=1)
    else:
        out.update(moe_ws.kernels(cfg, t, every=True))
    if t == moe_ws.WIDE_TOKENS:
        out[moe_ws.wide_name(cfg)] = moe_ws.wide_kernel(cfg)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--models", default=",".join(moe.MODELS), help="comma-separated keys of moe.MODELS")
    ap.add_argument("--tokens", default=",".join(map(str, moe.TOKENS)))
    ap.add_argument("--all", action="store_true", help="every kernel form (the ablations)")
    ap.add_argument("-j", type=int, default=os.cpu_count())
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    jobs = {}
    for key in args.models.split(","):
        cfg = moe.model_arg(key)
        for t in map(int, args.tokens.split(",")):
            jobs.update(sources(cfg, t, args.all))
    with concurrent.futures.ThreadPoolExecutor(args.j) as pool:
        errors = [e for e in pool.map(lambda kv: lower(args.outdir, *kv), jobs.items()) if e]
    for e in errors:
        print(e, file=sys.stderr)
    print(f"{len(jobs) - len(errors)} of {len(jobs)} kernels built into {args.outdir}")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
