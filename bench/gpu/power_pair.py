#!/usr/bin/env python3
"""Does a long run change how Axe's GEMM compares with cuBLAS? Figure 10's long runs put a few
large shapes below 0.97 of cuBLAS that measure above 1.0 when run alone (bench/RESULTS.md).
Hypothesis: after minutes of load the GPU runs at its power limit, and the kernel that spends
more energy per GEMM then gets the lower clock. For each shape this script measures, paired
in one process:

  1. "cold": the paired ratio (cuBLAS time / Axe time, per round: a median of 10 launches of
     each, alternating), R rounds;
  2. each kernel alone for SECONDS seconds of back-to-back launches, sampling `nvidia-smi`
     (power, SM clock, temperature) every 100 ms: the median power and clock under sustained
     load, and the energy per GEMM (median power x mean time per launch). The kernel that runs
     first alternates from shape to shape (the second starts on a GPU the first has heated);
  3. "hot": the paired ratio again, right after.

    python3 power_pair.py DIR [--seconds S] [--reps R] [--cluster] [M N K ...]

DIR holds gen_gemm_ws.py's Figure 10 manifests (the f16-out, 128x256, 4-stage, persistent,
TMA-store kernels; with --cluster, their clusters of two CTAs sharing B by multicast). Shapes
default to GPT-3 down, Llama-3.1-70B up and o.
"""
import os
import statistics
import subprocess
import sys
import threading
import time

import torch

from runtime_path import axe_runtime
from timing import time_ms

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_gemm_ws  # noqa: E402

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


def paired(axe, base, reps):
    ratios = []
    for _ in range(reps):
        ta = time_ms(axe, warmup=2, reps=10)
        tb = time_ms(base, warmup=2, reps=10)
        ratios.append(tb / ta)
    return statistics.median(ratios), min(ratios), max(ratios)


def sustained(fn, seconds):
    """Launches `fn` back to back for `seconds`, sampling; returns (ms per launch, W, MHz, C)."""
    fn()
    torch.cuda.synchronize()
    with Sampler() as s:
        t0, n = time.time(), 0
        while time.time() - t0 < seconds:
            for _ in range(4):
                fn()
            n += 4
            torch.cuda.synchronize()
        dt = time.time() - t0
    return (dt / n * 1e3,) + s.medians()


def main():
    d = sys.argv[1]
    seconds = float(sys.argv[sys.argv.index("--seconds") + 1]) if "--seconds" in sys.argv else 20
    reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 5
    nums = [int(a) for i, a in enumerate(sys.argv[2:], 2) if a.isdigit() and sys.argv[i - 1] not in ("--seconds", "--reps")]
    shapes = [tuple(nums[i:i + 3]) for i in range(0, len(nums), 3)] or SHAPES
    torch.backends.cuda.matmul.allow_tf32 = False
    cluster = ("f16", 2) if "--cluster" in sys.argv else ()
    for index, (m, n, k) in enumerate(shapes):
        name = gen_gemm_ws.name(m, n, k, 256, 4, "f16", 1, 8, 132, 1, 1, *cluster) + "_kernel"
        path = f"{d}/{name}.json"
        if not os.path.exists(path):
            print(f"skip {m}x{n}x{k}: no {path}")
            continue
        g = torch.Generator(device="cuda").manual_seed(0)
        a = torch.randn(m, k, device="cuda", generator=g).half()
        b = torch.randn(k, n, device="cuda", generator=g).half()
        c = torch.empty(m, n, device="cuda", dtype=torch.float16)
        launch = axe_runtime.load(path, entry=name).launcher(a.view(-1), b.view(-1), c.view(-1))
        launch()
        want = torch.matmul(a, b)
        err = (c.float() - want.float()).abs().max().item()
        ok = err <= 2e-3 * want.float().abs().max().item()
        base = lambda: torch.matmul(a, b)  # noqa: E731
        cold = paired(launch, base, reps)
        if index % 2 == 0:
            sa = sustained(launch, seconds)
            sb = sustained(base, seconds)
        else:
            sb = sustained(base, seconds)
            sa = sustained(launch, seconds)
        hot = paired(launch, base, reps)
        print(f"{'ok  ' if ok else 'FAIL'} {m}x{n}x{k} ({name}, max abs error {err:.3g})")
        print(f"     cold: cuBLAS / Axe {cold[0]:.3f} [{cold[1]:.3f}, {cold[2]:.3f}]; "
              f"hot: {hot[0]:.3f} [{hot[1]:.3f}, {hot[2]:.3f}] over {reps} paired rounds")
        for who, (ms, w, mhz, temp) in (("axe", sa), ("cuBLAS", sb)):
            print(f"     {who} sustained {seconds:.0f} s: {ms * 1e3:.0f} us per GEMM, {w:.0f} W, {mhz:.0f} MHz, "
                  f"{temp:.0f} C, {w * ms:.1f} mJ per GEMM")
        print(f"     sustained cuBLAS / Axe time {sb[0] / sa[0]:.3f}; energy per GEMM Axe / cuBLAS "
              f"{sa[1] * sa[0] / (sb[1] * sb[0]):.3f}", flush=True)


if __name__ == "__main__":
    main()
