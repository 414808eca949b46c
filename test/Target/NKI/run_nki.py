#!/usr/bin/env python3
"""Runs an NKI kernel emitted by axe-to-nki on the NumPy oracle (nki_numpy/) and compares the
result with NumPy.

    PYTHONPATH=nki_numpy run_nki.py KERNEL.py gemm M N K        # args (A[M,K] f16, B[K,N] f16, C[M,N] f32)
    PYTHONPATH=nki_numpy run_nki.py KERNEL.py attention S H D   # args (Q, K, V [S, H*D] f32, I [S,S] f32,
                                                                #       scale [S,1] f32, O [S, H*D] f32)

The oracle's `nki` package (nki_numpy/, beside this file) must be on PYTHONPATH, as the lit RUN
lines of test/Target/NKI put it: the emitted kernel imports `nki` itself.

Tolerances: GEMM (f16 inputs, f32 accumulation in both) |err| <= 1e-3 * max|ref| + 1e-5;
attention (all f32) |err| <= 1e-4 * max|ref| + 1e-6. Prints `PASS <kind> max_err=...` or
exits 1 with the failure.
"""
import importlib.util
import sys

import nki.language as nl  # the oracle (nki_numpy/ on PYTHONPATH), not AWS NKI
import numpy as np


def load_kernel(path):
    spec = importlib.util.spec_from_file_location("emitted_kernel", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    kernels = [v for v in vars(mod).values() if callable(v) and getattr(v, "__nki_kernel__", False)]
    if len(kernels) != 1:
        sys.exit(f"run_nki: expected one @nki.jit kernel in {path}, found {len(kernels)}")
    return kernels[0]


def hbm(a):
    return nl.Tensor(a, nl.hbm)


def main():
    path, kind = sys.argv[1], sys.argv[2]
    dims = [int(x) for x in sys.argv[3:6]]
    kernel = load_kernel(path)
    rng = np.random.default_rng(0)
    if kind == "gemm":
        m, n, k = dims
        a = rng.standard_normal((m, k)).astype(np.float16)
        b = rng.standard_normal((k, n)).astype(np.float16)
        c = np.full((m, n), np.nan, dtype=np.float32)
        kernel(hbm(a), hbm(b), hbm(c))
        ref = a.astype(np.float32) @ b.astype(np.float32)
        out, rtol, atol = c, 1e-3, 1e-5
    elif kind == "attention":
        s, h, d = dims
        q, kk, v = (rng.standard_normal((s, h * d)).astype(np.float32) for _ in range(3))
        ident = np.eye(s, dtype=np.float32)
        scale = np.full((s, 1), 1.0 / np.sqrt(d), dtype=np.float32)
        o = np.full((s, h * d), np.nan, dtype=np.float32)
        kernel(hbm(q), hbm(kk), hbm(v), hbm(ident), hbm(scale), hbm(o))
        ref = np.empty_like(o)
        for i in range(h):
            sl = slice(i * d, (i + 1) * d)
            logits = q[:, sl].astype(np.float64) @ kk[:, sl].T.astype(np.float64) / np.sqrt(d)
            p = np.exp(logits - logits.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            ref[:, sl] = p @ v[:, sl]
        out, rtol, atol = o, 1e-4, 1e-6
    else:
        sys.exit(f"run_nki: unknown kind {kind}")
    err = float(np.max(np.abs(out.astype(np.float64) - ref)))
    bound = rtol * float(np.max(np.abs(ref))) + atol
    if not np.isfinite(err) or err > bound:
        sys.exit(f"FAIL {kind} max_err={err:.3e} bound={bound:.3e}")
    print(f"PASS {kind} {'x'.join(map(str, dims))} max_err={err:.3e} bound={bound:.3e}")


if __name__ == "__main__":
    main()
