#!/usr/bin/env python3
"""Times the shipped GPU kernels (CUDA events: warm-ups, median of repeated runs) and prints
the ratio against the baseline a user would pick instead (torch.clone for copies, torch
elementwise for pointwise, torch.softmax for the row softmax), as achieved bandwidth
(bytes read + written per second).

    PYTHONPATH=python python3 bench/gpu/bench.py DIR   (DIR: the output of test/gpu/build.sh, <entry>.json manifests)
    python3 target/gpu/bench.py DIR                     (build.sh's copy: the packages sit beside it)

Kernels are launched through axe_runtime; the kernels' inputs and references are
axe_bench.kernels (both from PYTHONPATH: the repository's python/, see python/README.md).
"""
import os
import sys

import axe_runtime
import torch
from axe_bench.kernels import KERNELS
from axe_bench.timing import time_ms


def triton_matmul():
    """The Triton tutorial's matmul (fp16 in, fp32 accumulate), the baseline a Triton user
    would write; None when Triton is unavailable."""
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return None

    @triton.jit
    def kernel(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
            y = tl.load(b + (k + rk)[:, None] * N + rn[None, :])
            acc += tl.dot(x, y)
        tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.float16))

    def run(x, y, out):
        m, k = x.shape
        n = y.shape[1]
        kernel[(m // 128, n // 128)](x, y, out, m, n, k, BM=128, BN=128, BK=64, num_warps=8, num_stages=3)

    return run


def baseline(name, t):
    if name == "torch.clone":
        return lambda: t.clone()
    if name == "torch.relu*2":
        return lambda: torch.relu(t) * 2
    if name == "torch.softmax":
        x = t.view(32768, 1024)
        return lambda: torch.softmax(x, dim=1)
    if name == "torch.softmax[4096x4096]":
        x = t.view(4096, 4096)
        return lambda: torch.softmax(x, dim=1)
    if name == "torch.softmax[32768x4096]":
        x = t.view(32768, 4096)
        return lambda: torch.softmax(x, dim=1)
    return None


def main():
    d = sys.argv[1]
    only = sys.argv[2] if len(sys.argv) > 2 else ""  # a substring of the kernels to time
    print(f"device: {torch.cuda.get_device_name()}")
    for name, (make, _, _, _, nbytes, base) in KERNELS.items():
        if only not in name:
            continue
        path = f"{d}/{name}.json"
        if not os.path.exists(path):
            print(f"{name}: skipped, no launch manifest {path}", flush=True)
            continue
        kernel = axe_runtime.load(path, entry=name)
        args = [torch.from_numpy(a).cuda() for a in make()]
        # Checked, bound (tensor maps built) and loaded once: the timed runs only launch.
        launch = kernel.launcher(*args)
        ms = time_ms(launch)
        line = f"{name}: {ms * 1e3:.1f} us" + (f", {nbytes / ms / 1e9:.3f} TB/s" if nbytes else "")
        if base and base.startswith("torch.matmul["):
            m, n, k = (int(v) for v in base[len("torch.matmul["):-1].split("x"))
            flops = 2 * m * n * k
            x = args[0].view(m, k)
            y = args[1].view(k, n)
            if KERNELS[name][1] is None:
                # Correctness against PyTorch's float32 product (TF32 off).
                torch.backends.cuda.matmul.allow_tf32 = False
                want = torch.matmul(x.float(), y.float())
                got = args[2].view(m, n)
                err = (got - want).abs().max().item()
                rtol, atol = KERNELS[name][3]
                ok = bool(torch.allclose(got, want, rtol=rtol, atol=atol))
                line += f" [{'ok' if ok else 'FAIL'}: max abs error {err:.3g} vs torch float32]"
            tf = flops / ms / 1e9
            bms = time_ms(lambda: torch.matmul(x, y))
            line += f", {tf:.1f} TFLOP/s; torch.matmul (cuBLAS, fp16): {bms * 1e3:.1f} us, {flops / bms / 1e9:.1f} TFLOP/s; ratio {bms / ms:.3f}"
            tri = triton_matmul()
            if tri is not None:
                out = torch.empty(m, n, dtype=torch.float16, device="cuda")
                tms = time_ms(lambda: tri(x, y, out))
                line += f"; Triton: {tms * 1e3:.1f} us, {flops / tms / 1e9:.1f} TFLOP/s; ratio {tms / ms:.3f}"
            print(line, flush=True)
            continue
        if base:
            t = args[0]
            bms = time_ms(baseline(base, t))
            line += f"; {base}: {bms * 1e3:.1f} us, {nbytes / bms / 1e9:.3f} TB/s; ratio {bms / ms:.3f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
