#!/usr/bin/env python3
"""Builds the MoE layer's kernels that test/gpu/moe.py runs, for each model configuration
(gen_moe.MODELS) and token count T, as OUTDIR/<kernel>.json launch manifests:

  * the persistent kernels (gen_moe_ws.py) in the orientation gen_moe.schedule picks, fused and
    as two launches, and, so that a run can tell whether the pick was right, the fused kernel
    of every other row tile (8, 16, 32 and 128 rows), the swapped ones also with one consumer
    warpgroup (gen_moe_ws.kernel(..., consumers=1));
  * the gather, the combine and the routing step (per row tile built) as Axe kernels;
  * with --all, every form of gen_moe_ws.py and the 128-row non-persistent grouped GEMMs of
    gen_moe.py (the paper's model: the ablations of bench/RESULTS.md).

    build_moe.py OUTDIR [--models qwen3-30b-a3b,mixtral-8x7b,...] [--tokens 1,8,...] [--all] [-j N]
"""
import argparse
import concurrent.futures
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
import gen_moe  # noqa: E402
import gen_moe_ws  # noqa: E402
from lowering import lower  # noqa: E402


def sources(cfg, t, every):
    """{kernel name: Axe IR} of the layer for T tokens."""
    schedules = [gen_moe.Schedule(None if bm == gen_moe.BM else bm) for bm in gen_moe.ROW_TILES]
    out = gen_moe.kernels(cfg, t, schedules)
    if not every:  # the 128-row non-persistent GEMMs are ablations
        del out[gen_moe.kernel_name(cfg, "up", t)], out[gen_moe.kernel_name(cfg, "down", t)]
        out.update(gen_moe_ws.kernels(cfg, t))
        for s in schedules:
            out[gen_moe_ws.name(cfg, t, "fused", s.swap)] = gen_moe_ws.kernel(cfg, t, "fused", swap=s.swap)
            if s.swap:  # and with one consumer warpgroup
                out[gen_moe_ws.name(cfg, t, "fused", s.swap, 1)] = gen_moe_ws.kernel(cfg, t, "fused", swap=s.swap,
                                                                                     consumers=1)
    else:
        out.update(gen_moe_ws.kernels(cfg, t, every=True))
    if t == gen_moe_ws.WIDE_TOKENS:
        out[gen_moe_ws.wide_name(cfg)] = gen_moe_ws.wide_kernel(cfg)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--models", default=",".join(gen_moe.MODELS), help="comma-separated keys of gen_moe.MODELS")
    ap.add_argument("--tokens", default=",".join(map(str, gen_moe.TOKENS)))
    ap.add_argument("--all", action="store_true", help="every kernel form (the ablations)")
    ap.add_argument("-j", type=int, default=os.cpu_count())
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    jobs = {}
    for key in args.models.split(","):
        cfg = gen_moe.model_arg(key)
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
