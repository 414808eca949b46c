#!/usr/bin/env python3
"""Checks and times what build_frontdoor.py built (on the GPU machine):

* every kernel against PyTorch's float32 evaluation of its definition (act(X W + b) + R; the
  output filled with NaN first, so an element not written fails), and the small model entries
  also against onnxruntime's output for the same inputs (computed on the CPU when built);
* the model entries (linalg from torch-mlir, through `axe-from-linalg-pipeline`) timed against
  PyTorch on the same graph: eager (`gelu(x @ w + b)`, `x @ w + r`), `torch.compile` of that
  function, and cuBLAS's GEMM alone (`torch.mm`: the fused kernel's target is to cost no more
  than the GEMM alone). Paired in one process: rounds of the median of RUNS CUDA-event-timed
  runs, the methods' order reversed every other round, L2 flushed before every run; ratios
  are baseline time / Axe time (above 1: Axe faster), median [min-max] over rounds.

    frontdoor.py DIR [--reps 3] [--runs 20] [--only SUBSTR,...] [--no-compile] [--time-epilogues] [--graph]
"""
import argparse
import json
import os
import sys
import zlib

import axe_runtime
import gemm_grid  # beside this script: Timer, L2-flushed CUDA-event timing
import numpy as np
import torch
from axe_bench import timing  # ratio_stats

TORCH = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
# Of the output's largest magnitude: the epilogue rounds once (f16 half an ulp ~ 5e-4), the
# reference is float32; K-long f32 sums in a different order add a little.
RTOL = {"f16": 4e-3, "bf16": 1.6e-2}


def activation(name, x):
    f = torch.nn.functional
    return {None: lambda v: v, "gelu": f.gelu, "gelu_tanh": lambda v: f.gelu(v, approximate="tanh"),
            "silu": f.silu, "relu": torch.relu, "sigmoid": torch.sigmoid, "tanh": torch.tanh}[name](x)


def inputs(e):
    """The kernel's arguments in order and the float32 reference of its output."""
    m, n, k = e["m"], e["n"], e["k"]
    g = torch.Generator(device="cuda").manual_seed(zlib.crc32(e["entry"].encode()))

    def rnd(*shape, scale, dtype):
        return (torch.randn(*shape, generator=g, device="cuda") * scale).to(dtype)

    if e["kind"] == "model":
        t = torch.float16
        if e["ort"]:
            z = np.load(os.path.join(e["dir"], e["entry"] + ".npz"))
            feeds = [torch.from_numpy(z[f"in_{name}"]).cuda() for name in z["names"]]
            ort_out = torch.from_numpy(z["output"]).cuda()
        else:
            wshape = (n, k) if e["model"] == "gemm_bias" else (k, n)
            feeds = [rnd(m, k, scale=0.5, dtype=t), rnd(*wshape, scale=k ** -0.5, dtype=t)]
            feeds.append(rnd(n, scale=0.5, dtype=t) if e["model"] in ("linear_gelu", "gemm_bias")
                         else rnd(m, n, scale=1.0, dtype=t))
            ort_out = None
        x, w, third = feeds
        if e["model"] == "gemm_bias":
            w = w.t()  # the weights [N, K]: the product is X W^T
        bias, res, act = {"linear_gelu": (third, None, "gelu"), "gemm_bias": (third, None, None)}.get(
            e["model"], (None, third, None))
        out = torch.full((m, n), float("nan"), device="cuda", dtype=t)
        args = feeds + [out]
    else:
        t = TORCH[e["dtype"]]
        x, w = rnd(m, k, scale=0.5, dtype=t), rnd(k, n, scale=k ** -0.5, dtype=t)
        out = torch.full((m, n), float("nan"), device="cuda", dtype=t)
        args = [x.view(-1), w.view(-1), out.view(-1)]
        if e.get("workspace"):
            fm, fn = -(-m // 64), -(-n // 64)
            args += [torch.zeros(m * n, device="cuda"), torch.zeros(fm * fn, device="cuda", dtype=torch.int32)]
        wu = None
        if e.get("up"):
            wu = rnd(k, n, scale=k ** -0.5, dtype=t)
            args.append(wu.view(-1))
        bias = rnd(n, scale=0.5, dtype=t) if e.get("bias") else None
        res = rnd(m, n, scale=1.0, dtype=t) if e.get("residual") else None
        act = e.get("activation")
        args += [v.view(-1) for v in (bias, res) if v is not None]
        ort_out = None
    if e["kind"] == "model":
        wu = None
    ref = x.float() @ w.float()
    if e.get("gate"):
        ref = activation(e["gate"], ref) * (x.float() @ wu.float())
    if bias is not None:
        ref = ref + bias.float()
    ref = activation(act, ref)
    if res is not None:
        ref = ref + res.float()
    return args, out, ref, ort_out, (x, w, bias, res, act)


def compare(methods, a, timer):
    """Times `methods` (the first is "axe") paired in rounds, the order reversed every other
    round; prints and returns the medians (us) and each baseline's ratio over Axe."""
    times = {name: [] for name in methods}
    for r in range(a.reps):
        for name in (list(methods) if r % 2 == 0 else list(reversed(methods))):
            times[name].append(timer.ms(methods[name], a.runs))
    med = {name: sorted(v)[len(v) // 2] * 1e3 for name, v in times.items()}
    ratios = {name: timing.ratio_stats(times[name], times["axe"]) for name in methods if name != "axe"}
    print("     " + "  ".join(f"{n} {med[n]:.1f} us" for n in methods) + " | "
          + "  ".join(f"x{n} {r[0]:.3f} [{r[1]:.3f}-{r[2]:.3f}]" for n, r in ratios.items()), flush=True)
    return med, ratios


def with_compile(methods, fn, a):
    """`methods` with torch.compile of `fn` added (warmed up), unless --no-compile."""
    if not a.no_compile:
        compiled = torch.compile(fn, dynamic=False)
        for _ in range(3):
            compiled()
        methods["compile"] = compiled
    return methods


def row_inputs(e):
    """A row entry's arguments, output and float32 reference (softmax; Hugging Face's RMSNorm)."""
    m, n = e["m"], e["n"]
    g = torch.Generator(device="cuda").manual_seed(zlib.crc32(e["entry"].encode()))
    x = (torch.randn(m, n, generator=g, device="cuda") * 2).half()
    out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    if e["model"] == "layernorm":
        w = (torch.rand(n, generator=g, device="cuda") + 0.5).half()
        b = (torch.rand(n, generator=g, device="cuda") - 0.5).half()

        def eager():
            return torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5)
        xf = x.float()
        normed = ((xf - xf.mean(-1, keepdim=True)) / torch.sqrt(xf.var(-1, unbiased=False, keepdim=True) + 1e-5))
        ref = normed.half().float() * w.float() + b.float()
        return [x, w, b, out], out, ref, eager, 2 * m * n * 2 + 2 * n * 2
    if e["model"] == "softmax":
        def eager():
            return torch.softmax(x, -1)
        ref = torch.softmax(x.float(), -1)
        return [x, out], out, ref, eager, 2 * m * n * 2
    w = (torch.rand(n, generator=g, device="cuda") + 0.5).half()

    def eager():
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5)).half() * w
    xf = x.float()
    ref = (xf / torch.sqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5)).half().float() * w.float()
    return [x, w, out], out, ref, eager, 2 * m * n * 2 + n * 2


def run_row(e, a, timer, kernel):
    args, out, ref, eager, nbytes = row_inputs(e)
    kernel(*args)
    torch.cuda.synchronize()
    ok, err, scale = check(out, ref, "f16")
    print(f"{'ok  ' if ok else 'FAIL'} {e['entry']} [{e['launch']}] max err {err:.3g} of {scale:.3g}", flush=True)
    if not ok:
        return ok, None
    x = args[0]
    dst = torch.empty_like(x)
    methods = with_compile({"axe": kernel.launcher(*args), "eager": eager, "copy": lambda: dst.copy_(x)}, eager, a)
    med, ratios = compare(methods, a, timer)
    # The row kernel's bandwidth: its inputs read once, its output written once.
    gbps = nbytes / (med["axe"] * 1e-6) / 1e9
    print(f"     Axe {gbps:.0f} GB/s", flush=True)
    return ok, (e, med, ratios, gbps)


def run_block(e, a, timer):
    """The Llama MLP block program: checked against a float32 evaluation that rounds to f16
    where the graph stores f16 (the normed rows, SiLU(gate) * up), timed against eager,
    torch.compile of the same function, and cuBLAS's two GEMMs alone (gate and up as one
    GEMM of concatenated weights, then down)."""
    m, h, f = e["m"], e["hidden"], e["inter"]
    g = torch.Generator(device="cuda").manual_seed(zlib.crc32(e["entry"].encode()))
    x = torch.randn(m, h, generator=g, device="cuda").half()
    w = (torch.rand(h, generator=g, device="cuda") + 0.5).half()
    wg = (torch.randn(h, f, generator=g, device="cuda") * h ** -0.5).half()
    wu = (torch.randn(h, f, generator=g, device="cuda") * h ** -0.5).half()
    wd = (torch.randn(f, h, generator=g, device="cuda") * f ** -0.5).half()
    out = torch.full((m, h), float("nan"), device="cuda", dtype=torch.float16)
    block = axe_runtime.program(os.path.join(a.dir, e["entry"] + ".json"))
    block(x, w, wg, wu, wd, out)
    torch.cuda.synchronize()
    xf = x.float()
    hn = ((xf / torch.sqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5)).half() * w).float()
    gate, up = hn @ wg.float(), hn @ wu.float()
    act = (gate * torch.sigmoid(gate) * up).half().float()
    ref = xf + act @ wd.float()
    ok, err, scale = check(out, ref, "f16")
    print(f"{'ok  ' if ok else 'FAIL'} {e['entry']} [{len(block.kernels)} kernels] max err {err:.3g} of {scale:.3g}",
          flush=True)
    if not ok:
        return ok, None
    if a.graph:
        # The program captured in a CUDA graph (its launcher binds once, on the capture stream)
        # and replayed into a NaN-filled output.
        s = torch.cuda.Stream()
        launch = block.launcher(x, w, wg, wu, wd, out, stream=s)
        with torch.cuda.stream(s):
            launch()
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=s):
            launch()
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        gok, gerr, _ = check(out, ref, "f16")
        print(f"{'ok  ' if gok else 'FAIL'} {e['entry']} replayed from a CUDA graph: max err {gerr:.3g}", flush=True)
        ok = ok and gok

    def eager():
        xf = x.float()
        hn = (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5)).half() * w
        return x + (torch.nn.functional.silu(hn @ wg) * (hn @ wu)) @ wd
    wgu = torch.cat([wg, wu], 1)
    hn16, a16 = hn.half(), act.half()
    methods = with_compile({"axe": block.launcher(x, w, wg, wu, wd, out), "eager": eager,
                            "cublas_2gemm": lambda: (torch.mm(hn16, wgu), torch.mm(a16, wd))}, eager, a)
    med, ratios = compare(methods, a, timer)
    return ok, (e, med, ratios)


def check(got, want, dtype):
    got = got.float().view_as(want)
    scale = want.abs().max().item()
    err = (got - want).abs().max().item()
    nan = torch.isnan(got).any().item()
    return (not nan) and err <= RTOL[dtype] * max(scale, 1e-3), err, scale


def eager_fn(x, w, bias, res, act):
    def f():
        y = x @ w
        if bias is not None:
            y = y + bias
        y = activation(act, y)
        if res is not None:
            y = y + res
        return y
    return f


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--only")
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--graph", action="store_true", help="also replay each block program from a CUDA graph")
    ap.add_argument("--time-epilogues", action="store_true",
                    help="time the epilogue entries too, against cuBLAS's plain GEMM of A and B")
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    with open(os.path.join(a.dir, "index.json")) as f:
        index = json.load(f)
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}", flush=True)
    timer = gemm_grid.Timer(flush=True)
    passed = failed = 0
    rows = []
    row_rows = []
    block_rows = []
    for e in index:
        if a.only and not any(o in e["entry"] for o in a.only.split(",")):
            continue
        e["dir"] = a.dir
        if e["kind"] == "block":
            ok, row = run_block(e, a, timer)
            passed += ok
            failed += not ok
            if row:
                block_rows.append(row)
            continue
        kernel = axe_runtime.load(os.path.join(a.dir, e["entry"] + ".json"))
        if e["kind"] == "row":
            ok, row = run_row(e, a, timer, kernel)
            passed += ok
            failed += not ok
            if row:
                row_rows.append(row)
            continue
        args, out, ref, ort_out, parts = inputs(e)
        kernel(*args)
        torch.cuda.synchronize()
        ok, err, scale = check(out, ref, e.get("dtype", "f16"))
        note = f"max err {err:.3g} of {scale:.3g}"
        if ort_out is not None:
            ok_ort, err_ort, _ = check(out, ort_out.float(), "f16")
            ok = ok and ok_ort
            note += f"; vs onnxruntime {err_ort:.3g} ({'ok' if ok_ort else 'FAIL'})"
        if e.get("workspace"):
            # Split-K's workspace must be zero again (flags) for the next launch: run twice more.
            out.fill_(float("nan"))
            kernel(*args)
            kernel(*args)
            torch.cuda.synchronize()
            ok2, err2, _ = check(out, ref, e.get("dtype", "f16"))
            ok = ok and ok2
            note += f"; relaunched {err2:.3g}"
        passed += ok
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {e['entry']} [{e.get('fused', '')}] {note}", flush=True)
        if e["kind"] == "epilogue" and a.time_epilogues and ok:
            x, w = parts[0], parts[1]
            compare({"axe": kernel.launcher(*args), "cublas_mm": lambda: torch.mm(x, w)}, a, timer)
        if e["kind"] != "model" or e["ort"] or not ok:
            continue
        x, w, bias, res, act = parts
        eager = eager_fn(x, w, bias, res, act)
        launch = kernel.launcher(*args)
        methods = {"axe": launch, "eager": eager, "cublas_mm": lambda: torch.mm(x, w)}
        if e.get("plain"):
            plain = axe_runtime.load(os.path.join(a.dir, e["plain"] + ".json"))
            m, n = e["m"], e["n"]
            cp = torch.empty(m * n, device="cuda", dtype=torch.float16)
            ws = [torch.zeros(m * n, device="cuda"), torch.zeros(-(-m // 64) * -(-n // 64), device="cuda",
                                                               dtype=torch.int32)]
            wkn = w.contiguous()  # [K, N] (a Linear's weights are given as [N, K])
            methods["axe_plain"] = plain.launcher(x.view(-1), wkn.view(-1), cp, *ws)
        med, ratios = compare(with_compile(methods, eager, a), a, timer)
        rows.append((e, med, ratios))
    print(f"\n{passed} passed, {failed} failed")
    print("\n| entry | epilogue | Axe us | Axe GEMM alone us | eager us | compile us | cuBLAS mm us | x eager "
          "| x compile | x cuBLAS mm | x Axe GEMM alone |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for e, med, r in rows:
        def rr(n):
            return f"{r[n][0]:.3f} [{r[n][1]:.3f}-{r[n][2]:.3f}]" if n in r else "-"
        print(f"| {e['entry']} | {e['fused']} | {med['axe']:.1f} | {med.get('axe_plain', float('nan')):.1f} | "
              f"{med['eager']:.1f} | {med.get('compile', float('nan')):.1f} | {med['cublas_mm']:.1f} | "
              f"{rr('eager')} | {rr('compile')} | {rr('cublas_mm')} | {rr('axe_plain')} |")
    print("\n| entry | launch | Axe us | eager us | compile us | copy us | Axe GB/s | x eager | x compile | of copy |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for e, med, r, gbps in row_rows:
        def rr(n):
            return f"{r[n][0]:.3f} [{r[n][1]:.3f}-{r[n][2]:.3f}]" if n in r else "-"
        print(f"| {e['entry']} | {e['launch']} | {med['axe']:.1f} | {med['eager']:.1f} | "
              f"{med.get('compile', float('nan')):.1f} | {med['copy']:.1f} | {gbps:.0f} | {rr('eager')} | "
              f"{rr('compile')} | {rr('copy')} |")
    print("\n| block | tokens | Axe us | eager us | compile us | cuBLAS 2 GEMMs us | x eager | x compile | x 2 GEMMs |")
    print("|---|---|---|---|---|---|---|---|---|")
    for e, med, r in block_rows:
        def rr(n):
            return f"{r[n][0]:.3f} [{r[n][1]:.3f}-{r[n][2]:.3f}]" if n in r else "-"
        print(f"| {e['entry']} | {e['m']} | {med['axe']:.1f} | {med['eager']:.1f} | "
              f"{med.get('compile', float('nan')):.1f} | {med['cublas_2gemm']:.1f} | {rr('eager')} | {rr('compile')} | "
              f"{rr('cublas_2gemm')} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
