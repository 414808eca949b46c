#!/usr/bin/env python3
"""Checks and times the attention kernels build_attention.py built (on the GPU machine).

    PYTHONPATH=python python3 bench/gpu/attention.py DIR [--rounds N] [--only SUBSTR] [--exclude SUBSTR] [--no-time]

Correctness (every entry): O against a float32 evaluation of softmax(scale Q Kᵀ + mask) V from
its definition (per head, chunked; the first, a middle and the last query head, in the first
and the last sequence), the log-sum-exp against the same evaluation's, and NaN sentinels past
O's end (nothing written outside O). The tolerance is the larger of 1e-2 (f16) / 2e-2 (bf16)
and twice the error of PyTorch's own flash backend against the same reference.

Batches of sequences of different lengths (an entry's `lens`: the kernel reads their
cumulative offsets) are checked the same way on their first, shortest and last sequences; every
row of O and the log-sum-exp must be written. Their baselines are the variable-length forms:
FlashAttention-2's (`torch.ops.aten._flash_attention_forward` with the offsets) and
FlashAttention-3's `flash_attn_varlen_func`; SDPA's cuDNN backend has no such form here.

Timing: each round runs every method once, in turn (CUDA events, no host sync between the
methods of a round): Axe, SDPA's cuDNN and flash backends, and FlashAttention-3 (`fa3-fwd`,
when it imports: installed from its wheel, `pip install --no-deps WHEEL_DIR/*.whl`, or the wheel
unpacked into a directory on PYTHONPATH, `unzip -o 'WHEEL_DIR/*.whl' -d FA3_DIR` and
`PYTHONPATH=python:FA3_DIR`). TFLOP/s counts 4 B H S² D (half for causal); ratios are per round
(paired), median with min..max.

axe_runtime is imported from PYTHONPATH (the repository's python/, see python/README.md).
"""
import argparse
import json
import math
import os
import statistics
import sys
import zlib

import axe_runtime
import torch
import torch.nn.functional as F

TORCH = {"f16": torch.float16, "bf16": torch.bfloat16}
SENTINEL = 4096


def starts(e):
    """The first row of every sequence, and the row after the last."""
    lens = e.get("lens") or [e["seq"]] * (e["tokens"] // e["seq"])
    out = [0]
    for n in lens:
        out.append(out[-1] + n)
    return out


def load_fa3():
    """FlashAttention-3's forward from the `fa3-fwd` wheel (installed, or unpacked on
    PYTHONPATH): its interface imports `flash_attn_config`, which the wheel ships as
    `fa3_fwd_config`."""
    try:
        import fa3_fwd_config
        sys.modules.setdefault("flash_attn_config", fa3_fwd_config)
        import fa3_fwd_interface
        return fa3_fwd_interface
    except Exception as x:  # no wheel: the other baselines still run
        print(f"# FlashAttention-3 not available: {type(x).__name__}: {x}", flush=True)
        return None


def reference(q, k, v, e, heads_checked, seqs_checked):
    """float32 O and log-sum-exp rows of the checked (sequence, head)s, from the definition."""
    d, group = e["d"], e["heads"] // e["kv_heads"]
    scale = 1.0 / math.sqrt(d)
    bounds = starts(e)
    out = {}
    for b in seqs_checked:
        rows = slice(bounds[b], bounds[b + 1])
        seq = bounds[b + 1] - bounds[b]
        for h in heads_checked:
            hk = h // group
            qh = q[rows, h * d:(h + 1) * d].float()
            kh = k[rows, hk * d:(hk + 1) * d].float()
            vh = v[rows, hk * d:(hk + 1) * d].float()
            os_, ls = [], []
            for c0 in range(0, seq, 2048):
                s = (qh[c0:c0 + 2048] @ kh.t()) * scale
                if e["causal"]:
                    i = torch.arange(c0, min(c0 + 2048, seq), device="cuda")[:, None]
                    j = torch.arange(seq, device="cuda")[None, :]
                    s = s.masked_fill(j > i, float("-inf"))
                lse = torch.logsumexp(s, dim=1)
                os_.append(torch.exp(s - lse[:, None]) @ vh)
                ls.append(lse)
            out[(b, h)] = (torch.cat(os_), torch.cat(ls))
    return out


def bhsd(x, e, heads):
    """The packed [tokens, heads * d] tensor as [B, heads, S, D] (a strided view)."""
    b = e["tokens"] // e["seq"]
    return x.view(b, e["seq"], heads, e["d"]).transpose(1, 2)


def run_entry(e, d, a, fa3):
    torch.manual_seed(zlib.crc32(e["entry"].encode()))
    dt = TORCH[e["dtype"]]
    t, hq, hk, hd = e["tokens"], e["heads"], e["kv_heads"], e["d"]
    q = torch.randn(t, hq * hd, device="cuda", dtype=dt)
    k = torch.randn(t, hk * hd, device="cuda", dtype=dt)
    v = torch.randn(t, hk * hd, device="cuda", dtype=dt)
    o_store = torch.full((t * hq * hd + SENTINEL,), float("nan"), device="cuda", dtype=dt)
    o = o_store[: t * hq * hd].view(t, hq * hd)
    lse = torch.full((hq * t,), float("nan"), device="cuda", dtype=torch.float32)
    kernel = axe_runtime.load(os.path.join(d, f"{e['entry']}.json"))
    if isinstance(kernel, dict):
        kernel = kernel[e["entry"]]
    bounds = starts(e)
    varlen = bool(e.get("lens"))
    cu = torch.tensor(bounds, device="cuda", dtype=torch.int32)
    args = [q.view(-1), k.view(-1), v.view(-1), o_store[: t * hq * hd], lse] + ([cu] if varlen else [])
    launch = kernel.launcher(*args)
    launch()
    torch.cuda.synchronize()
    rec = dict(e, status="FAIL")
    nseq = len(bounds) - 1
    lens = [bounds[i + 1] - bounds[i] for i in range(nseq)]
    heads_checked = sorted({0, hq // 2 + 1, hq - 1})
    seqs_checked = sorted({0, lens.index(min(lens)), nseq - 1})
    ref = reference(q, k, v, e, heads_checked, seqs_checked)
    causal = e["causal"]
    gqa = hq != hk
    from torch.nn.attention import SDPBackend, sdpa_kernel

    def sdpa_of(qb, kb, vb, backend):
        with sdpa_kernel([backend]):
            return F.scaled_dot_product_attention(qb, kb, vb, is_causal=causal, enable_gqa=gqa)

    if not varlen:
        qb, kb, vb = bhsd(q, e, hq), bhsd(k, e, hk), bhsd(v, e, hk)

    def sdpa(backend):
        return sdpa_of(qb, kb, vb, backend)

    # PyTorch's flash backend against the same reference: the error a 16-bit P costs (each
    # checked sequence alone where lengths vary).
    flash_err = 0.0
    try:
        for (b, h), (ro, _) in ref.items():
            if varlen:
                rows = slice(bounds[b], bounds[b + 1])
                one = [x[rows].view(1, lens[b], -1, hd).transpose(1, 2) for x in (q, k, v)]
                fo = sdpa_of(*one, SDPBackend.FLASH_ATTENTION)[0, h]
            else:
                fo = sdpa(SDPBackend.FLASH_ATTENTION)[b, h]
            flash_err = max(flash_err, (fo.float() - ro).abs().max().item())
    except Exception as x:
        rec["flash_error"] = str(x)[:200]
    tol = max(1e-2 if e["dtype"] == "f16" else 2e-2, 2 * flash_err)
    err_o, err_l = 0.0, 0.0
    lse2 = lse.view(hq, t)
    for (b, h), (ro, rl) in ref.items():
        rows = slice(bounds[b], bounds[b + 1])
        err_o = max(err_o, (o[rows, h * hd:(h + 1) * hd].float() - ro).abs().max().item())
        err_l = max(err_l, (lse2[h, rows] - rl).abs().max().item())
    nan_o = int(torch.isnan(o).sum())
    tail = bool(torch.isnan(o_store[t * hq * hd:]).all())
    nan_l = int(torch.isnan(lse).sum())
    rec.update(max_abs_error=err_o, lse_max_abs_error=err_l, flash_max_abs_error=flash_err, tolerance=tol,
               nan_in_o=nan_o, nan_in_lse=nan_l, tail_untouched=tail)
    ok = err_o <= tol and err_l <= 1e-3 * max(1.0, math.log(e["seq"])) and nan_o == 0 and nan_l == 0 and tail
    if not ok:
        return rec
    rec["status"] = "PASS"
    if a.no_time:
        return rec
    if varlen:
        q3, k3, v3 = (x.view(t, -1, hd) for x in (q, k, v))
        mx = max(lens)
        methods = {"axe": launch,
                   "flash2": lambda: torch.ops.aten._flash_attention_forward(
                       q3, k3, v3, cu, cu, mx, mx, 0.0, causal, False)}
        if fa3 is not None:
            methods["fa3"] = lambda: fa3.flash_attn_varlen_func(q3, k3, v3, cu, cu, mx, mx, causal=causal)
    else:
        methods = {"axe": launch,
                   "cudnn": lambda: sdpa(SDPBackend.CUDNN_ATTENTION),
                   "flash2": lambda: sdpa(SDPBackend.FLASH_ATTENTION)}
        if fa3 is not None:
            q4, k4, v4 = (x.view(nseq, e["seq"], -1, hd) for x in (q, k, v))
            methods["fa3"] = lambda: fa3.flash_attn_func(q4, k4, v4, causal=causal)
    for name in list(methods):
        try:
            for _ in range(3):
                methods[name]()
            torch.cuda.synchronize()
        except Exception as x:
            rec[f"{name}_error"] = f"{type(x).__name__}: {str(x)[:160]}"
            del methods[name]
    times = {n: [] for n in methods}
    for _ in range(a.rounds):
        ev = {n: (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for n in methods}
        torch.cuda._sleep(2_000_000)
        for n, fn in methods.items():
            ev[n][0].record()
            fn()
            ev[n][1].record()
        torch.cuda.synchronize()
        for n in methods:
            times[n].append(ev[n][0].elapsed_time(ev[n][1]))
    flops = sum(4 * n * n * hq * hd for n in lens) * (0.5 if causal else 1.0)
    rec["tflops"] = {n: flops / (statistics.median(v) * 1e-3) / 1e12 for n, v in times.items()}
    rec["ms"] = {n: statistics.median(v) for n, v in times.items()}
    for n in methods:
        if n == "axe":
            continue
        r = [b_ / x for b_, x in zip(times[n], times["axe"])]
        rec[f"vs_{n}"] = (statistics.median(r), min(r), max(r))
    return rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--only")
    ap.add_argument("--exclude", help="skip entries whose name contains this")
    ap.add_argument("--no-time", action="store_true")
    ap.add_argument("--out")
    a = ap.parse_args()
    index = json.load(open(os.path.join(a.dir, "index.json")))
    fa3 = None if a.no_time else load_fa3()
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}", flush=True)
    recs = []
    for e in index:
        if a.only and a.only not in e["entry"] or a.exclude and a.exclude in e["entry"]:
            continue
        try:
            rec = run_entry(e, a.dir, a, fa3)
        except Exception as x:
            rec = dict(e, status="ERROR", error=f"{type(x).__name__}: {str(x)[:300]}")
        recs.append(rec)
        tf = rec.get("tflops", {})
        line = f"{rec['status']} {e['entry']} err {rec.get('max_abs_error', float('nan')):.2e} " \
               f"(tol {rec.get('tolerance', 0):.1e}, flash {rec.get('flash_max_abs_error', 0):.1e}) " \
               f"lse {rec.get('lse_max_abs_error', float('nan')):.1e}"
        if tf:
            line += " | TFLOP/s " + " ".join(f"{n} {v:.0f}" for n, v in tf.items())
            line += " | " + " ".join(f"vs {n[3:]} x{r[0]:.2f} [{r[1]:.2f}-{r[2]:.2f}]"
                                     for n, r in rec.items() if n.startswith("vs_"))
        if rec["status"] != "PASS":
            line += " | " + json.dumps({x: y for x, y in rec.items() if x not in e})
        print(line, flush=True)
        torch.cuda.empty_cache()
    if a.out:
        with open(a.out, "w") as f:
            json.dump(recs, f, indent=1)
    bad = [r for r in recs if r["status"] != "PASS"]
    print(f"# {len(recs) - len(bad)} of {len(recs)} passed", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
