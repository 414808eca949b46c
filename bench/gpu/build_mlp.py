#!/usr/bin/env python3
"""Builds the kernels of the tensor-parallel (sequence-parallel) MLP block that dist_mlp.py
runs, for each model, token count T and device count R:

  * the up/gate projection with the all-gather of the tokens fused in and the SwiGLU in its
    epilogue: one `axe.matmul ... gate silu gather(...)` per device in an `axe.mesh [R]`
    (axe_gen.matmul), scheduled and expanded by the compiler (`axe-to-nvvm-pipeline`):
    OUTDIR/ag_<model>_t<T>_r<R>.json; with --simulate also a copy for R ranks simulated on one
    GPU (a grid of 132 / R CTAs per rank, so the R launches are resident together):
    ..._sim.json;
  * the same GEMM without the gather (this device's GEMM alone, every row local, R = 1): the
    GEMM the fused kernel overlaps: OUTDIR/gemm_<model>_t<T>_r<R>.json;
  * the down projection with the reduce-scatter fused in (the pusher form of the Axe paper's
    §4.3 kernel, axe_gen.gemm_rs): OUTDIR/gemm_rs_..._ws_w_kernel.json, as dist_gemm_rs.py
    names it.

    PYTHONPATH=python python3 bench/gpu/build_mlp.py OUTDIR [--models 8b,70b] [--tokens 8192,2048] [--ranks 2,4] [--simulate] [--ablation]
                 [--pushers 1,2]

--ablation (timing only: the results are wrong) also builds, from the expanded IR of the
gathered GEMM, ..._nowait (the producer does not wait for the pieces; the pushes run) and
..._nopush (no pushes and no waits: the gathered kernel's structure alone), so dist_mlp.py
--ablation can tell the pushes' interference, the waits and the structure apart.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

from axe_gen import matmul
from lowering import lower, tools

# Llama-3.1 MLPs: (hidden, intermediate).
MODELS = {"8b": (4096, 14336), "70b": (8192, 28672)}


def schedule_of(src):
    opt, _ = tools()
    chosen = subprocess.run([opt, "-", "--axe-matmul-schedule"], input=src, capture_output=True, text=True)
    if chosen.returncode:
        return chosen.stderr.strip()
    import re
    return re.search(r"#axe\.matmul_schedule<([^>]*)>", chosen.stdout).group(1)


def ablations(outdir, entry, src):
    """The timing-only variants of a gathered GEMM (see --ablation): its expanded IR with the
    producer's waits for pieces removed (`_nowait`), and with the pushers' loops emptied too
    (`_nopush`)."""
    import re
    opt, _ = tools()
    expanded = subprocess.run([opt, "-", "--axe-matmul-schedule", "--axe-expand-matmul"], input=src,
                              capture_output=True, text=True)
    if expanded.returncode:
        return f"{entry}: {expanded.stderr.strip()[:2000]}"
    ir = expanded.stdout
    # The producer's wait reads a run of flags (1x1xN, N > 1); the pushers' start waits one.
    nowait = re.sub(r"^\s*axe\.signal_wait %\w+, %\w+ : !axe\.tensor<1x1x(?!1xi32)\d+xi32.*$", "", ir, flags=re.M)
    # Each pusher warp (`axe.scope warp [w : w + 1]`, w >= 1) walks its pieces in the first
    # scf.for of its scope: start == end leaves it empty.
    lines, in_pusher = [], False
    for line in nowait.split("\n"):
        if re.search(r"axe\.scope warp \[[1-9]\d* : \d+\]", line):
            in_pusher = True
        elif in_pusher and "scf.for" in line:
            line = re.sub(r"(scf\.for %\w+ = (%\w+) to )%\w+", r"\1\2", line)
            in_pusher = False
        lines.append(line)
    nopush = "\n".join(lines)
    errors = []
    for suffix, text in (("_nowait", nowait), ("_nopush", nopush)):
        name = entry + suffix
        text = text.replace(f"@{entry}(", f"@{name}(")
        err = lower(outdir, name, text)
        if err:
            errors.append(err)
    return "; ".join(errors) or None


def with_pushers(outdir, entry, model, t, r, n):
    """The gathered GEMM with `n` pusher warps (the schedule's `pushers`, an override):
    OUTDIR/<entry>_p<n>.json."""
    hidden, inter = MODELS[model]
    name = f"{entry}_p{n}"
    return lower(outdir, name, matmul.module(t, inter // r, hidden, name=name, gate="silu", gather=r,
                                             schedule=f"pushers = {n}"))


def jobs(models, tokens, ranks, simulate):
    out = []
    for model in models:
        hidden, inter = MODELS[model]
        for t in tokens:
            for r in ranks:
                n = inter // r
                tag = f"{model}_t{t}_r{r}"
                out.append((f"ag_{tag}", matmul.module(t, n, hidden, name=f"ag_{tag}", gate="silu", gather=r)))
                out.append((f"gemm_{tag}", matmul.module(t, n, hidden, name=f"gemm_{tag}", gate="silu")))
                if simulate:
                    out.append((f"ag_{tag}_sim", matmul.module(t, n, hidden, name=f"ag_{tag}_sim", gate="silu",
                                                               gather=r, schedule=f"grid = {132 // r}")))
                out.append(("rs", (t, hidden, inter, r)))
    return out


def rs_group(m, ranks):
    """The down projection's raster group: the largest that splits each device's row tiles."""
    return next(g for g in (8, 4, 2, 1) if m % (128 * ranks * g) == 0)


def build_rs(outdir, m, n, k, ranks):
    """The fused GEMM + reduce-scatter (pusher form) for the down projection [T, I] x [I, H]."""
    from axe_gen import gemm_rs, gemm_ws
    name = gemm_rs.name_ws(m, n, k, ranks, pushers=True)
    src = gemm_ws.kernel(m, n, k // ranks, 256, 4, "f16", 1, rs_group(m, ranks), 132, 1, 1, ranks=ranks,
                         fname=name, cooperative=True, pushers=True)
    return lower(outdir, name, src)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--models", default="8b,70b")
    ap.add_argument("--tokens", default="8192,2048")
    ap.add_argument("--ranks", default="2,4")
    ap.add_argument("--simulate", action="store_true")
    ap.add_argument("--ablation", action="store_true")
    ap.add_argument("--variant", action="append", default=[], metavar="SUFFIX=SCHEDULE",
                    help="also build the gathered GEMM with this schedule override: ..._<SUFFIX>.json "
                         "(e.g. g8='group = 8')")
    ap.add_argument("--pushers", default="",
                    help="also build the gathered GEMM with these pusher counts (#axe.matmul_schedule<pushers = N>): "
                         "..._p<N>.json")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    items = jobs(a.models.split(","), [int(t) for t in a.tokens.split(",")], [int(r) for r in a.ranks.split(",")],
                 a.simulate)
    index = {}

    def one(item):
        entry, src = item
        if entry == "rs":
            return build_rs(a.outdir, *src)
        index[entry] = schedule_of(src)
        err = lower(a.outdir, entry, src)
        if not err and a.ablation and entry.startswith("ag_") and not entry.endswith("_sim"):
            err = ablations(a.outdir, entry, src)
        if not err and entry.startswith("ag_") and not entry.endswith("_sim"):
            model, t, r = entry[3:].split("_")
            hidden, inter = MODELS[model]
            t, r = int(t[1:]), int(r[1:])
            for n in filter(None, a.pushers.split(",")):
                err = err or with_pushers(a.outdir, entry, model, t, r, int(n))
            for spec in a.variant:
                suffix, sched = spec.split("=", 1)
                name = f"{entry}_{suffix}"
                err = err or lower(a.outdir, name, matmul.module(t, inter // r, hidden, name=name, gate="silu",
                                                                 gather=r, schedule=sched))
        return err

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        errors = [e for e in pool.map(one, items) if e]
    with open(os.path.join(a.outdir, "schedules.json"), "w") as f:
        json.dump(index, f, indent=1, sort_keys=True)
    print(f"{len(items) - len(errors)} kernels in {a.outdir}, {len(errors)} failed")
    for e in errors:
        print("FAILED", e)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
