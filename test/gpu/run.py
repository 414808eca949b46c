#!/usr/bin/env python3
"""Runs every kernel built by test/gpu/build.sh on the GPU through axe_runtime (the launch
manifest <entry>.json that axe-translate wrote, PTX inside) and compares it with its NumPy
reference (axe_bench.kernels). Prints one line per kernel and a summary line 'N passed, M failed';
exits 1 on any failure.

    PYTHONPATH=python python3 test/gpu/run.py DIR   (DIR holds <entry>.json launch manifests)
    python3 target/gpu/run.py DIR                    (build.sh's copy: the packages sit beside it)

axe_runtime and axe_bench are imported from PYTHONPATH (the repository's python/, see
python/README.md), or from beside the script in build.sh's target/gpu.
"""
import os
import sys

import axe_runtime
import numpy as np
from axe_bench.kernels import KERNELS


def device():
    """(NumPy -> device array, device array -> NumPy, synchronize, zeros(n, float32)): PyTorch,
    else CuPy."""
    try:
        import torch
        return (lambda a: torch.from_numpy(a).cuda(), lambda t: t.cpu().numpy(), torch.cuda.synchronize,
                lambda n: torch.zeros(n, dtype=torch.float32, device="cuda"))
    except ImportError:
        import cupy as cp
        return cp.asarray, cp.asnumpy, cp.cuda.runtime.deviceSynchronize, lambda n: cp.zeros(n, dtype=cp.float32)


def main():
    d = sys.argv[1]
    to_dev, to_host, sync, zeros = device()
    passed = failed = 0
    for name, (make, ref, out, (rtol, atol), _, _) in KERNELS.items():
        if ref is None:
            print(f"skip {name}: checked by bench.py against PyTorch on the GPU")
            continue
        path = f"{d}/{name}.json"
        if not os.path.exists(path):
            print(f"FAIL {name}: no launch manifest {path}")
            failed += 1
            continue
        try:
            kernel = axe_runtime.load(path, entry=name)
            host = make()
            dev = [to_dev(a) for a in host]
            kernel(*dev)
            sync()
        except Exception as e:  # a bad manifest, a refused argument, a launch error
            print(f"FAIL {name}: {type(e).__name__}: {e}")
            failed += 1
            continue
        # One output, or several (`out` a tuple, `ref` a list).
        outs = out if isinstance(out, tuple) else (out,)
        wants = ref(host) if isinstance(out, tuple) else [ref(host)]
        ok, err = True, 0.0
        for o, want in zip(outs, wants):
            got = to_host(dev[o])
            ok = ok and np.allclose(got, want, rtol=rtol, atol=atol) and not np.isnan(got).any()
            err = max(err, float(np.max(np.abs(got.astype(np.float64) - want))) if not np.isnan(got).any() else float("nan"))
        print(f"{'ok  ' if ok else 'FAIL'} {name}: max abs error {err:.3g} (rtol {rtol}, atol {atol})")
        passed += ok
        failed += not ok
    # The alignment contract: a buffer that breaks its argument's declared axe.align is refused
    # by the launcher before anything runs (a vector access would fault on it).
    if os.path.exists(f"{d}/copy_1d_kernel.json"):
        k = axe_runtime.load(f"{d}/copy_1d_kernel.json", entry="copy_1d_kernel")
        base = zeros((1 << 26) + 1)  # copy_1d: two 2^26-float buffers
        try:
            k(base[1:], base[:-1])
            sync()
            print("FAIL alignment contract: a 4-byte aligned buffer was launched on axe.align = 16")
            failed += 1
        except ValueError as e:
            print(f"ok   alignment contract: {e}")
            passed += 1
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
