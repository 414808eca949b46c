#!/usr/bin/env python3
"""Runs every kernel extracted by test/gpu/build.sh on the GPU (CuPy RawModule over the PTX)
and compares it with its NumPy reference (kernels.py). Prints one line per kernel and a
summary line 'N passed, M failed'; exits 1 on any failure.

    python3 run.py DIR      (DIR holds <entry>.ptx and <entry>.json)
"""
import os
import sys

import cupy as cp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from axe_launch import Kernel  # noqa: E402
from kernels import KERNELS  # noqa: E402


def main():
    d = sys.argv[1]
    passed = failed = 0
    for name, (make, ref, out, (rtol, atol), _, _) in KERNELS.items():
        if ref is None:
            print(f"skip {name}: checked by bench.py against PyTorch on the GPU")
            continue
        if not os.path.exists(f"{d}/{name}.ptx"):
            print(f"FAIL {name}: no PTX")
            failed += 1
            continue
        host = make()
        dev = [cp.asarray(a) for a in host]
        Kernel(d, name)(dev)
        cp.cuda.runtime.deviceSynchronize()
        # One output, or several (`out` a tuple, `ref` a list).
        outs = out if isinstance(out, tuple) else (out,)
        wants = ref(host) if isinstance(out, tuple) else [ref(host)]
        ok, err = True, 0.0
        for o, want in zip(outs, wants):
            got = cp.asnumpy(dev[o])
            ok = ok and np.allclose(got, want, rtol=rtol, atol=atol) and not np.isnan(got).any()
            err = max(err, float(np.max(np.abs(got.astype(np.float64) - want))) if not np.isnan(got).any() else float("nan"))
        print(f"{'ok  ' if ok else 'FAIL'} {name}: max abs error {err:.3g} (rtol {rtol}, atol {atol})")
        passed += ok
        failed += not ok
    # The alignment contract: a buffer that breaks its argument's declared axe.align is refused
    # by the launcher before anything runs (a vector access would fault on it).
    if os.path.exists(f"{d}/copy_1d_kernel.json"):
        k = Kernel(d, "copy_1d_kernel")
        base = cp.zeros((1 << 26) + 1, dtype=cp.float32)  # copy_1d: two 2^26-float buffers
        try:
            k([base[1:], base[:-1]])
            print("FAIL alignment contract: a 4-byte aligned buffer was launched on axe.align = 16")
            failed += 1
        except ValueError as e:
            print(f"ok   alignment contract: {e}")
            passed += 1
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
