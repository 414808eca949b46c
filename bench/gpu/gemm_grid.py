#!/usr/bin/env python3
"""Checks, then times against named baselines, every GEMM of a grid: the benchmark of the GEMM
issue.

    python3 bench/gpu/gemm_grid.py DIR [--reps R] [--runs N] [--filter SUBSTR] [--json OUT.json]
                                       [--warm-l2] [--no-triton] [--entry-timeout S]

DIR/index.json lists the kernels: [{"entry", "m", "n", "k", "dtype" (f16 | bf16 | e4m3 | e5m2),
"out" (f16 | bf16 | f32), "schedule", "workspace" (optional: the kernel takes split-K's
workspace, f32 sums [M*N] and i32 flags [ceil(M/64)*ceil(N/64)], after its other arguments;
the driver zeroes it once and checks the flags are zero after every launch)}, ...]; DIR/<entry>.json is each one's launch manifest
(bench/gpu/build_matmul_grid.py builds them through the compiler). The kernel's
arguments are axe_gen.gemm_ws's: A [M*K], B [K*N] (FP8: [N*K]), C [M*N][, scale_a [1],
scale_b [1]].

Per entry:
1. Correctness. Inputs are drawn by torch on the GPU, seeded per entry: 16-bit ones N(0, 1) /
   K^(1/4), so every product sums to about N(0, 1) whatever K (no f16 overflow); FP8 ones
   N(0, 1) (K^(1/4) would push them into e4m3's subnormals) with per-tensor scales 0.5 and 0.25,
   as test/gpu/gemm_typed.py. C is the head of a NaN-filled buffer 65,536 elements longer:
   every element of C must be written (no NaN left) and the tail must stay NaN (no store past
   C). Oracle: PyTorch's float32 product of the same inputs (TF32 off) times the scales, with
   gemm_typed.py's tolerances (axe_bench.gemm.RTOL of the output type, relative to the largest
   |entry|; FP8 with f32 output RTOL_FP8_F32; an e4m3 kernel over that bound passes if it is within the
   output's rounding of torch._scaled_mm(use_fast_accum=True), whose accumulation it shares).
   A failing entry prints FAIL, is not timed, and makes the exit status 1; the others go on.
2. Timing, paired in this one process: R rounds (--reps, default 5), each timing every method
   once as the median of N event-timed runs (--runs, default 30; 10 for kernels over 1 ms),
   the order of the methods reversed every other round. The methods:
     axe      the kernel;
     cuBLAS   torch.mm in the input type (f16 / bf16 output); FP8: torch._scaled_mm(a, b.t(),
              scales, out_dtype=out, use_fast_accum=True) — cuBLASLt FP8 with the same
              accumulation as the kernel's wgmma (and the faster of its two modes);
     Triton   axe_bench.triton_matmul's matmul_tuned: same inputs and output type as the
              kernel, tuned per (shape, types) over its TUNED_CONFIGS (large and small tiles,
              two-pass split-K), each configuration checked against the oracle before it can
              be chosen, timed with 5 runs each; the choice is cached per (shape, types).
   Before every timed run the L2 cache is flushed (a 256 MiB read: the weights come from DRAM,
   as they do between the layers of a model); --warm-l2 leaves it out (inputs stay in L2
   across runs). Each batch of N runs is enqueued behind a GPU sleep (~0.2 ms per run), so no
   run's events include the host's launch overhead or a gap between Triton's two split-K
   launches.
   Ratios per round: baseline time / Axe time (over 1: Axe is faster), reported as the median
   and min-max over the R rounds. For M <= 64, the memory floor too: (K*N + M*K) input bytes
   plus M*N output bytes over the DRAM bandwidth measured at the start of this run (a 1 GiB
   device-to-device copy, read plus write bytes), and Axe time / floor (1.0 would be at the
   floor) per round.
3. Output: one line per entry; a summary (geometric mean of Axe/cuBLAS over the timed entries,
   the worst among M >= 128, how many entries are behind Triton); `N passed, M failed`; with
   --json a dump of every number (per-round times included).

A kernel that hangs stops the run after --entry-timeout seconds (default 300) with the entry
named; a launch error that leaves the CUDA context unusable stops it too (the rest not run).
"""
import argparse
import json
import math
import os
import statistics
import sys
import threading
import time
import zlib

import axe_runtime
import torch
from axe_bench import timing, triton_matmul  # timing.ratio_stats; the Triton baseline
from axe_bench.gemm import RTOL, RTOL_FP8_F32, TORCH  # test/gpu/gemm_typed.py's oracle tolerances

FP8 = ("e4m3", "e5m2")
FLUSH_BYTES = 256 << 20
# GPU sleep before each batch of timed runs, per run: ~200 us at 1.98 GHz, more than the host
# takes to enqueue one run (flush, two events and up to two launches: Triton's split-K).
PREFILL_CYCLES = 400_000
SENTINEL = 65536


class Timer:
    """CUDA-event timing of one launch (or two: Triton's split-K) after an L2 flush: each run is
    enqueued as flush, start event, launch(es), end event, with no host sync between runs, all
    behind a GPU sleep long enough for the host to enqueue the whole batch first, so that no
    run waits on the host (its launch overhead, or a gap between two launches) inside its
    events."""

    def __init__(self, flush):
        self.flush = flush
        if flush:
            self.buf = torch.ones(FLUSH_BYTES // 4, device="cuda", dtype=torch.float32)
            self.sink = torch.empty((), device="cuda", dtype=torch.float32)

    def runs_ms(self, fn, runs, warmup=3):
        for _ in range(warmup):
            fn()
        ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(runs)]
        torch.cuda._sleep(PREFILL_CYCLES * runs)
        for s, e in ev:
            if self.flush:
                torch.sum(self.buf, 0, out=self.sink)
            s.record()
            fn()
            e.record()
        torch.cuda.synchronize()
        return [s.elapsed_time(e) for s, e in ev]

    def ms(self, fn, runs, warmup=3):
        return statistics.median(self.runs_ms(fn, runs, warmup))


def dram_gbps(timer):
    """Device-to-device copy bandwidth (bytes read + bytes written per second), GB/s."""
    n = 1 << 30
    src = torch.empty(n, device="cuda", dtype=torch.uint8).random_(0, 255)
    dst = torch.empty_like(src)
    t = timer.ms(lambda: dst.copy_(src), 10)
    src = dst = None  # the 2 GiB back before the GEMMs
    torch.cuda.empty_cache()
    return 2 * n / (t * 1e-3) / 1e9


def make_inputs(e):
    m, n, k, dtype, out = e["m"], e["n"], e["k"], e["dtype"], e["out"]
    g = torch.Generator(device="cuda").manual_seed(zlib.crc32(e["entry"].encode()))
    fp8 = dtype in FP8
    s = 1.0 if fp8 else k ** -0.25
    a = (torch.randn(m, k, device="cuda", generator=g) * s).to(TORCH[dtype])
    shape_b = (n, k) if fp8 else (k, n)
    b = (torch.randn(*shape_b, device="cuda", generator=g) * s).to(TORCH[dtype])
    storage = torch.full((m * n + SENTINEL,), float("nan"), device="cuda", dtype=TORCH[out])
    c = storage[: m * n].view(m, n)
    scales = [torch.tensor([0.5], device="cuda"), torch.tensor([0.25], device="cuda")] if fp8 else []
    return a, b, c, scales, storage


def oracle(a, b, scales, fp8):
    if fp8:
        return (a.float() @ b.float().t()) * (scales[0] * scales[1])
    return a.float() @ b.float()


def check(got, want, scale, e, a=None, b=None, scales=None):
    """(ok, max abs error, how): gemm_typed.py's test of one result."""
    fp8 = e["dtype"] in FP8
    out = e["out"]
    got = got.float()
    if torch.isnan(got).any():
        return False, float("nan"), f"{int(torch.isnan(got).sum())} entries unwritten (NaN)"
    err = (got - want).abs().max().item()
    rtol = RTOL_FP8_F32 if fp8 and out == "f32" else RTOL[out]
    ok = err <= rtol * scale
    how = f"bound {rtol * scale:.3g}"
    if not ok and e["dtype"] == "e4m3" and a is not None:
        try:
            fast = torch._scaled_mm(a, b.t(), scale_a=scales[0], scale_b=scales[1],
                                    out_dtype=TORCH[out], use_fast_accum=True).float()
            diff = (got - fast).abs().max().item()
            ok = diff <= RTOL[out] * scale
            how = f"over {rtol * scale:.3g}; {diff:.3g} from _scaled_mm(fast accum), bound {RTOL[out] * scale:.3g}"
        except Exception as x:  # cuBLASLt refuses the shape
            how += f"; no fast-accum oracle ({type(x).__name__})"
    return ok, err, how


def cublas(e, a, b, scales):
    """(name, no-argument launch) of the cuBLAS baseline."""
    if e["dtype"] in FP8:
        bt = b.t()
        od = TORCH[e["out"]]
        return (f"cuBLAS _scaled_mm fast-accum out {e['out']}",
                lambda: torch._scaled_mm(a, bt, scale_a=scales[0], scale_b=scales[1], out_dtype=od, use_fast_accum=True))
    return f"cuBLAS mm out {e['dtype']}", lambda: torch.mm(a, b)


class Watchdog:
    """Ends the process when one entry runs past `limit` seconds (a hung kernel)."""

    def __init__(self, limit):
        self.limit, self.what, self.since = limit, None, time.monotonic()
        threading.Thread(target=self._watch, daemon=True).start()

    def start(self, what):
        self.what, self.since = what, time.monotonic()

    def _watch(self):
        while True:
            time.sleep(5)
            if self.what and time.monotonic() - self.since > self.limit:
                print(f"\nHUNG {self.what}: over {self.limit} s; stopping (exit 3)", flush=True)
                os._exit(3)


def tf(x):
    return f"{x:.0f}" if x >= 100 else f"{x:.1f}"


def fmt_ratio(r):
    return f"x{r['median']:.3f} [{r['min']:.3f}-{r['max']:.3f}]"


def context_alive():
    try:
        torch.cuda.synchronize()
        return True
    except Exception:
        return False


def run_entry(e, d, args, timer, bw, tri_run, say):
    """Checks and times one entry; returns its record (rec["status"]: PASS, FAIL)."""
    m, n, k, dtype, out = e["m"], e["n"], e["k"], e["dtype"], e["out"]
    fp8 = dtype in FP8
    rec = dict(e, status="FAIL")
    kernel = axe_runtime.load(os.path.join(d, f"{e['entry']}.json"))
    if isinstance(kernel, dict):  # several kernels in the manifest: the entry's
        kernel = kernel[e["entry"]]
    a, b, c, scales, storage = make_inputs(e)
    args_k = [a.view(-1), b.view(-1), c.view(-1)] + scales
    flags = None
    if e.get("workspace"):
        # Split-K's workspace: the running f32 sums and one flag per 64x64 block of C, zero
        # before the first launch; every launch must leave the flags zero again.
        flags = torch.zeros(-(-m // 64) * -(-n // 64), device="cuda", dtype=torch.int32)
        args_k += [torch.zeros(m * n, device="cuda", dtype=torch.float32), flags]
    launch = kernel.launcher(*args_k)
    launch()
    torch.cuda.synchronize()
    want = oracle(a, b, scales, fp8)
    scale = want.abs().max().item()
    ok, err, how = check(c, want, scale, e, a, b, scales)
    if flags is not None and bool(flags.any()):
        ok, how = False, f"left {int(flags.count_nonzero())} workspace flags set; " + how
    tail_ok = bool(torch.isnan(storage[m * n:]).all())
    rec.update(max_abs_error=err, max_abs_entry=scale, check=how, tail_untouched=tail_ok)
    if not tail_ok:
        ok, how = False, f"wrote past the end of C ({int((~torch.isnan(storage[m * n:])).sum())} sentinel elements); " + how
    if not ok:
        rec["check"] = how
        return rec
    rec["status"] = "PASS"

    methods = [("axe", launch)]
    bname, bfn = cublas(e, a, b, scales)
    rec["cublas_name"] = bname
    try:
        bc = bfn()
        torch.cuda.synchronize()
        rec["cublas_max_abs_error"] = (bc.float() - want).abs().max().item()
        methods.append(("cublas", bfn))
    except Exception as x:  # cuBLASLt FP8 refuses shapes that are not multiples of 16
        rec["cublas_error"] = f"{type(x).__name__}: {(str(x).splitlines() or [''])[0][:160]}"
    if tri_run is not None:
        tc = torch.empty(m, n, device="cuda", dtype=TORCH[out])
        tb = b.t() if fp8 else b  # matmul_tuned takes B as [K, N], any strides
        ts = scales if fp8 else [None, None]
        rtrue = lambda cc: check(cc, want, scale, e, a, b, scales)[0]  # noqa: E731
        try:
            t0 = time.monotonic()
            tri = tri_run[dtype]
            go = tri.launcher(a, tb, tc, *ts, validate=rtrue)
            rec["triton_tune_s"] = round(time.monotonic() - t0, 2)
            tc.fill_(float("nan"))
            go()
            torch.cuda.synchronize()
            tok, terr, _ = check(tc, want, scale, e, a, b, scales)
            rec.update(triton_config=tri.best_config(a, tb, tc, *ts), triton_max_abs_error=terr, triton_ok=tok)
            if tok:
                methods.append(("triton", go))
            else:
                rec["triton_error"] = "chosen configuration's result off the oracle"
        except Exception as x:
            rec["triton_error"] = f"{type(x).__name__}: {(str(x).splitlines() or [''])[0][:160]}"
            if not context_alive():
                raise
    want = None  # the reference's memory back before timing (rtrue, which reads it, is done)

    est = timer.ms(launch, 3, warmup=2)
    runs = args.runs if est < 1.0 else max(10, args.runs // 3)
    times = {name: [] for name, _ in methods}
    for r in range(args.reps):
        for name, fn in (methods if r % 2 == 0 else methods[::-1]):
            times[name].append(timer.ms(fn, runs))
    if flags is not None:
        # After every timed launch (the same buffers, flags reused): still right, flags zero.
        c.fill_(float("nan"))
        launch()
        torch.cuda.synchronize()
        again, err2, how2 = check(c, oracle(a, b, scales, fp8), scale, e, a, b, scales)
        if not again or bool(flags.any()):
            rec["status"], rec["check"] = "FAIL", f"after repeated launches: {how2}, flags set {int(flags.count_nonzero())}"
            return rec
    flops = 2 * m * n * k
    rec["runs"], rec["reps"], rec["times_ms"] = runs, args.reps, times
    ta = statistics.median(times["axe"])
    rec["tflops"] = {name: flops / (statistics.median(ts) * 1e-3) / 1e12 for name, ts in times.items()}
    rec["axe_us"] = ta * 1e3
    rec["ratios"] = {}
    for name in times:
        if name != "axe":
            med, lo, hi = timing.ratio_stats(times[name], times["axe"])
            rec["ratios"][name] = {"median": med, "min": lo, "max": hi}
    if m <= 64:
        eb = 1 if fp8 else 2
        ob = TORCH[out].itemsize
        fbytes = (k * n + m * k) * eb + m * n * ob
        floor_ms = fbytes / (bw * 1e9) * 1e3
        fr = [t / floor_ms for t in times["axe"]]
        rec["floor_us"] = floor_ms * 1e3
        rec["floor_bytes"] = fbytes
        rec["axe_over_floor"] = {"median": statistics.median(fr), "min": min(fr), "max": max(fr)}
    return rec


def line(rec):
    e = rec
    head = (f"{rec['status']} {e['entry']} {e['m']}x{e['n']}x{e['k']} {e['dtype']}->{e['out']} [{e['schedule']}]")
    if rec["status"] != "PASS" or "tflops" not in rec:
        if "max_abs_error" in rec:
            return head + f": max abs error {rec['max_abs_error']:.3g} (entries up to {rec['max_abs_entry']:.3g}; {rec['check']})"
        return head + f": {rec.get('error', '')}"
    t = rec["tflops"]
    s = head + f" err {rec['max_abs_error']:.3g} ({rec['check']}) | axe {rec['axe_us']:.1f}us {tf(t['axe'])} TF/s"
    if "cublas" in t:
        s += f" | cuBLAS {tf(t['cublas'])} TF/s axe/cuBLAS {fmt_ratio(rec['ratios']['cublas'])}"
    else:
        s += f" | cuBLAS n/a ({rec.get('cublas_error', '')})"
    if "triton" in t:
        s += f" | Triton {tf(t['triton'])} TF/s ({rec['triton_config']}) axe/Triton {fmt_ratio(rec['ratios']['triton'])}"
    elif "triton_error" in rec:
        s += f" | Triton n/a ({rec['triton_error']})"
    if "axe_over_floor" in rec:
        f = rec["axe_over_floor"]
        s += f" | floor {rec['floor_us']:.1f}us axe/floor {f['median']:.2f} [{f['min']:.2f}-{f['max']:.2f}]"
    return s + f" | {rec.get('wall_s', 0):.1f}s" + (f" (Triton tuning {rec['triton_tune_s']:.1f}s)" if "triton_tune_s" in rec else "")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dir")
    p.add_argument("--reps", type=int, default=5, help="paired rounds (R)")
    p.add_argument("--runs", type=int, default=30, help="timed runs per measurement (N)")
    p.add_argument("--filter", default=None, help="only entries whose name contains this")
    p.add_argument("--json", default=None, help="write every number here")
    p.add_argument("--warm-l2", action="store_true", help="no L2 flush before timed runs")
    p.add_argument("--no-triton", action="store_true")
    p.add_argument("--entry-timeout", type=float, default=300.0)
    args = p.parse_args()

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    entries = json.load(open(os.path.join(args.dir, "index.json")))
    if args.filter:
        entries = [e for e in entries if args.filter in e["entry"]]
    timer = Timer(flush=not args.warm_l2)
    bw = dram_gbps(timer)
    dev = torch.cuda.get_device_name()
    tri_version = None
    if not args.no_triton:
        try:
            import triton
            tri_version = triton.__version__
        except ImportError:
            pass
    print(f"{dev}; torch {torch.__version__}, triton {tri_version}; DRAM copy {bw:.0f} GB/s; "
          f"L2 {'warm' if args.warm_l2 else 'flushed before each timed run'}; {len(entries)} entries, "
          f"{args.reps} rounds x {args.runs} runs", flush=True)

    def say(msg):
        print(f"     {msg}", flush=True)

    tri_run = None
    if not args.no_triton:
        tri_run = {}
        for dt in sorted({e["dtype"] for e in entries}):
            r = triton_matmul.matmul_tuned(dt, timer=lambda fn, reps: timer.ms(fn, reps, warmup=1), log=say)
            if r is None:
                tri_run = None
                break
            tri_run[dt] = r

    dog = Watchdog(args.entry_timeout)
    recs = []
    alive = True
    t_start = time.monotonic()
    for e in entries:
        if not alive:
            recs.append(dict(e, status="NOT RUN", error="CUDA context lost at an earlier entry"))
            continue
        dog.start(e["entry"])
        t0 = time.monotonic()
        try:
            rec = run_entry(e, args.dir, args, timer, bw, tri_run, say)
        except Exception as x:  # a bad manifest, a refused argument, a launch error
            rec = dict(e, status="FAIL", error=f"{type(x).__name__}: {x}")
            alive = context_alive()
        rec["wall_s"] = round(time.monotonic() - t0, 2)
        recs.append(rec)
        print(line(rec), flush=True)
        if not alive:
            print("     CUDA context unusable after this entry: the rest are not run", flush=True)
    dog.start(None)

    timed = [r for r in recs if "ratios" in r and "cublas" in r["ratios"]]
    summary = {"entries": len(recs), "passed": sum(r["status"] == "PASS" for r in recs),
               "failed": sum(r["status"] != "PASS" for r in recs), "wall_s": round(time.monotonic() - t_start, 1)}
    if timed:
        summary["geomean_axe_over_cublas"] = math.exp(statistics.fmean(math.log(r["ratios"]["cublas"]["median"]) for r in timed))
        big = [r for r in timed if r["m"] >= 128]
        if big:
            w = min(big, key=lambda r: r["ratios"]["cublas"]["median"])
            summary["worst_axe_over_cublas_m_ge_128"] = {"entry": w["entry"], "ratio": w["ratios"]["cublas"]["median"]}
    tri = [r for r in recs if "ratios" in r and "triton" in r["ratios"]]
    summary["triton_compared"] = len(tri)
    summary["behind_triton"] = [r["entry"] for r in tri if r["ratios"]["triton"]["median"] < 1.0]
    fl = [r for r in recs if "axe_over_floor" in r]
    if fl:
        summary["geomean_axe_over_floor_m_le_64"] = math.exp(statistics.fmean(math.log(r["axe_over_floor"]["median"]) for r in fl))

    print("summary:")
    if "geomean_axe_over_cublas" in summary:
        print(f"  axe/cuBLAS speed ratio, geometric mean over {len(timed)} timed entries: {summary['geomean_axe_over_cublas']:.3f}")
    if "worst_axe_over_cublas_m_ge_128" in summary:
        w = summary["worst_axe_over_cublas_m_ge_128"]
        print(f"  worst axe/cuBLAS among M >= 128: {w['ratio']:.3f} ({w['entry']})")
    print(f"  behind Triton (axe/Triton median < 1): {len(summary['behind_triton'])} of {len(tri)}"
          + (f" ({', '.join(summary['behind_triton'])})" if summary["behind_triton"] else ""))
    if fl:
        print(f"  axe time / memory floor, geometric mean over {len(fl)} entries with M <= 64: "
              f"{summary['geomean_axe_over_floor_m_le_64']:.2f}")
    bad = [r for r in recs if r["status"] != "PASS"]
    for r in bad:
        print(f"  {r['status']}: {r['entry']}")
    print(f"  wall time {summary['wall_s']} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": dev, "torch": torch.__version__, "triton": tri_version, "dram_copy_GBps": bw,
                       "l2": "warm" if args.warm_l2 else "flushed", "reps": args.reps, "runs": args.runs,
                       "entries": recs, "summary": summary}, f, indent=1, default=str)
    print(f"{summary['passed']} passed, {summary['failed']} failed")
    sys.exit(1 if summary["failed"] else 0)


if __name__ == "__main__":
    main()
