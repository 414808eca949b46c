"""GPU timing shared by the runners and benchmarks (test/gpu/gemm_typed.py, test/gpu/moe.py,
bench/gpu/bench.py and the other bench/gpu drivers): CUDA events around `fn`, after warm-ups;
the median of the timed runs, in milliseconds."""
import statistics

import torch


def time_ms(fn, warmup=5, reps=30):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def ratio_stats(base, axe):
    """Paired speed ratios (baseline time / Axe time, round by round): median, min, max."""
    ratios = [b / a for b, a in zip(base, axe)]
    return statistics.median(ratios), min(ratios), max(ratios)
