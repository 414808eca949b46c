#!/usr/bin/env python3
"""Does a long run change how Axe's GEMM compares with cuBLAS? Figure 10's long runs put a few
large shapes below 0.97 of cuBLAS that measure above 1.0 when run alone (bench/RESULTS.md).
Hypothesis: after minutes of load the GPU runs at its power limit, and the kernel that spends
more energy per GEMM then gets the lower clock. For each shape this script measures, in one
process, every kernel it has: Axe's unclustered kernel, Axe's clusters of two CTAs sharing B by
multicast (where DIR has them), cuBLAS (`torch.matmul`) and, with --triton, the tuned Triton
matmul (axe_bench.triton_matmul, autotuned first):

  1. "cold": paired ratios (baseline time / Axe time, per round: a median of 10 launches of
     each, one after the other), R rounds;
  2. each kernel alone in windows of back-to-back launches, sampling `nvidia-smi` (power, SM
     clock, temperature) every 100 ms. A discarded window of the first kernel warms the card
     first (it heats fastest at the start); then the windows run in palindromic order (A B C C
     B A, each SECONDS / 2 long), so a drift of temperature over the sequence that is linear
     in time weighs on every kernel alike; per kernel, the time per GEMM over both of its
     windows, the median power and clock, and the energy per GEMM (median power x time per
     launch);
  3. "hot": the paired ratios again, right after.

    python3 power_pair.py DIR [--seconds S] [--reps R] [--triton] [M N K ...]
    python3 power_pair.py DIR --figure10 [--shard I/N] [--seconds S] [--reps R] [--triton] [--old OLD]

DIR holds axe_gen.gemm_ws's Figure 10 manifests (the f16-out, 128x256, 4-stage, persistent,
TMA-store kernels and their clustered twins). Shapes default to GPT-3 down, Llama-3.1-70B up and
o. --figure10 takes every distinct shape of the paper's Figure 10 (gemm_tma.figure10_shapes;
--shard I/N: the I-th of N interleaved parts, to split the run) and ends with a summary of the
kernel gemm_ws.choose_cluster picks per shape: its ratios cold, hot and sustained against
each baseline, their geometric means and how many shapes are at >= 0.97 (cuBLAS) or ahead (>= 1).
--old OLD adds, as one more baseline, the same kernel (the heuristic's pick) from OLD, a directory
of manifests built by another compiler: old time / new time.
"""
import math
import os
import statistics
import subprocess
import sys
import threading
import time

import axe_runtime
import torch
from axe_bench.timing import time_ms
from axe_gen import gemm_tma, gemm_ws

SHAPES = [(8192, 12288, 49152), (8192, 57344, 8192), (8192, 8192, 8192)]


class Sampler:
    """nvidia-smi samples (power W, SM clock MHz, temperature C) in a background thread."""

    def __init__(self):
        self.samples, self.stop = [], threading.Event()
        # nvidia-smi's ids need not be torch's: name this process's device by its PCI bus.
        # (Older torch builds lack the PCI fields: then nvidia-smi's device 0.)
        p = torch.cuda.get_device_properties(torch.cuda.current_device())
        try:
            self.device = f"{p.pci_domain_id:08x}:{p.pci_bus_id:02x}:{p.pci_device_id:02x}.0"
        except AttributeError:
            self.device = "0"
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stop.is_set():
            out = subprocess.run(["nvidia-smi", f"--id={self.device}", "--query-gpu=power.draw,clocks.sm,temperature.gpu",
                                  "--format=csv,noheader,nounits"], capture_output=True, text=True).stdout
            try:
                self.samples.append(tuple(float(x) for x in out.strip().split(",")))
            except ValueError:
                pass
            time.sleep(0.1)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()

    def medians(self):
        return tuple(statistics.median(s[i] for s in self.samples) for i in range(3)) if self.samples else (0, 0, 0)


def paired(axe, bases, reps):
    """Per baseline: (median, min, max) over `reps` rounds of baseline time / Axe time."""
    ratios = {k: [] for k in bases}
    for _ in range(reps):
        ta = time_ms(axe, warmup=2, reps=10)
        for k, f in bases.items():
            ratios[k].append(time_ms(f, warmup=2, reps=10) / ta)
    return {k: (statistics.median(r), min(r), max(r)) for k, r in ratios.items()}


def sustained(fns, seconds):
    """Each of `fns` launched back to back in windows of seconds / 2, in palindromic order
    after a discarded warm-up window; per kernel: (ms per launch, W, MHz, C) over its two
    windows."""
    warm = fns[next(iter(fns))]
    t0 = time.time()
    while time.time() - t0 < seconds / 2:
        warm()
        torch.cuda.synchronize()
    order = list(fns) + list(reversed(fns))
    launches = {k: 0 for k in fns}
    elapsed = {k: 0.0 for k in fns}
    samples = {k: [] for k in fns}
    for k in order:
        fns[k]()
        torch.cuda.synchronize()
        with Sampler() as s:
            t0, n = time.time(), 0
            while time.time() - t0 < seconds / 2:
                for _ in range(4):
                    fns[k]()
                n += 4
                torch.cuda.synchronize()
            elapsed[k] += time.time() - t0
        launches[k] += n
        samples[k] += s.samples
    return {k: (elapsed[k] / launches[k] * 1e3,)
            + tuple(statistics.median(x[i] for x in samples[k]) if samples[k] else 0 for i in range(3)) for k in fns}


def print_summary(summary, labels):
    """The heuristic's kernel per shape: baseline time / Axe time cold, hot and sustained; per
    baseline and measure, the geometric mean and the shapes at >= 0.97 and at >= 1."""
    print("\nsummary: the kernel axe_gen.gemm_ws.choose_cluster picks (baseline time / Axe time: cold, hot, sustained)")
    for (m, n, k), pick, r in summary:
        line = f"  {m}x{n}x{k} [{', '.join(labels.get((m, n, k), []))}] {pick}:"
        for base, vals in r.items():
            line += f" {base} " + " / ".join(f"{v:.3f}" for v in vals) + ";"
        print(line)
    for base in summary[0][2]:
        for i, measure in enumerate(("cold", "hot", "sustained")):
            vals = [r[base][i] for _, _, r in summary if base in r]
            geo = math.exp(sum(math.log(v) for v in vals) / len(vals))
            print(f"  vs {base}, {measure}: geometric mean {geo:.3f}, lowest {min(vals):.3f}, "
                  f"{sum(v >= 0.97 for v in vals)} of {len(vals)} at >= 0.97, {sum(v >= 1 for v in vals)} at >= 1")


def main():
    d = sys.argv[1]
    seconds = float(sys.argv[sys.argv.index("--seconds") + 1]) if "--seconds" in sys.argv else 20
    reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 5
    old = sys.argv[sys.argv.index("--old") + 1] if "--old" in sys.argv else None
    nums = [int(a) for i, a in enumerate(sys.argv[2:], 2) if a.isdigit() and sys.argv[i - 1] not in ("--seconds", "--reps")]
    shapes = [tuple(nums[i:i + 3]) for i in range(0, len(nums), 3)] or SHAPES
    labels = {}
    if "--figure10" in sys.argv:
        shapes = []
        for model, proj, m, n, k in gemm_tma.figure10_shapes():
            labels.setdefault((m, n, k), []).append(f"{model} {proj}")
            if (m, n, k) not in shapes:
                shapes.append((m, n, k))
        if "--shard" in sys.argv:
            i, parts = (int(x) for x in sys.argv[sys.argv.index("--shard") + 1].split("/"))
            shapes = shapes[i::parts]
    summary = []
    torch.backends.cuda.matmul.allow_tf32 = False
    tri, failed = None, 0
    if "--triton" in sys.argv:
        from axe_bench import triton_matmul
        tri = triton_matmul.matmul()
    for m, n, k in shapes:
        g = torch.Generator(device="cuda").manual_seed(0)
        a = torch.randn(m, k, device="cuda", generator=g).half()
        b = torch.randn(k, n, device="cuda", generator=g).half()
        want = torch.matmul(a, b).float()
        tol = 2e-3 * want.abs().max().item()
        axes, bases = {}, {"cuBLAS": lambda: torch.matmul(a, b)}
        # The unclustered kernel and the pairs (the name's trailing dtype, cluster fields);
        # `pick` is the one gemm_ws.choose_cluster takes for this shape.
        forms = {"axe": (), "axe c2": ("f16", 2)}
        pick = "axe c2" if gemm_ws.choose_cluster(m, n, k) == 2 else "axe"

        def load(label, directory, fields):
            """The form's launcher from `directory`, run once and checked (None if absent)."""
            name = gemm_ws.name(m, n, k, 256, 4, "f16", 1, 8, 132, 1, 1, *fields) + "_kernel"
            if not os.path.exists(f"{directory}/{name}.json"):
                print(f"skip {label} {m}x{n}x{k}: no {directory}/{name}.json")
                return None, False
            c = torch.empty(m, n, device="cuda", dtype=torch.float16)
            run = axe_runtime.load(f"{directory}/{name}.json", entry=name).launcher(a.view(-1), b.view(-1), c.view(-1))
            run()
            err = (c.float() - want).abs().max().item()
            print(f"{'ok  ' if err <= tol else 'FAIL'} {label} {m}x{n}x{k} ({directory}/{name}): max abs error {err:.3g}")
            return run, err > tol

        for label, fields in forms.items():
            run, bad = load(label, d, fields)
            failed += bad
            if run:
                axes[label] = run
        if old:
            run, bad = load("axe old", old, forms[pick])
            failed += bad
            if run:
                bases["axe old"] = run
        if tri:
            ct = torch.empty(m, n, device="cuda", dtype=torch.float16)
            bases["Triton"] = lambda: tri(a, b, ct)  # noqa: E731
            bases["Triton"]()  # autotunes
            err = (ct.float() - want).abs().max().item()
            failed += err > tol
            print(f"{'ok  ' if err <= tol else 'FAIL'} Triton {m}x{n}x{k} ({tri.kernel.best_config}): max abs error {err:.3g}")
        if not axes:
            continue
        cold = {label: paired(f, bases, reps) for label, f in axes.items()}
        hot_s = sustained({**axes, **bases}, seconds)
        hot = {label: paired(f, bases, reps) for label, f in axes.items()}
        for label in axes:
            line = f"     {label}:"
            for base in bases:
                (c0, c1, c2), (h0, h1, h2) = cold[label][base], hot[label][base]
                line += (f" {base} / {label} cold {c0:.3f} [{c1:.3f}, {c2:.3f}], hot {h0:.3f} [{h1:.3f}, {h2:.3f}],"
                         f" sustained {hot_s[base][0] / hot_s[label][0]:.3f};")
            print(line)
        for who, (ms, w, mhz, temp) in hot_s.items():
            print(f"     {who} sustained {seconds:.0f} s: {ms * 1e3:.0f} us per GEMM, {w:.0f} W, {mhz:.0f} MHz, "
                  f"{temp:.0f} C, {w * ms:.1f} mJ per GEMM")
        print(f"     ({reps} paired rounds cold and hot)", flush=True)
        if pick in axes:
            summary.append(((m, n, k), pick, {base: (cold[pick][base][0], hot[pick][base][0],
                                                     hot_s[base][0] / hot_s[pick][0]) for base in bases}))
    if summary:
        print_summary(summary, labels)
    print(f"{failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
