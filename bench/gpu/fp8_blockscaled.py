#!/usr/bin/env python3
"""Block-scaled FP8 GEMMs (DeepSeek-V3's scales: A's 1x128, B's 128x128) through `axe.matmul`,
checked and timed against `torch._scaled_mm`'s block-scaled mode.

    PYTHONPATH=python python3 bench/gpu/fp8_blockscaled.py build DIR [--shapes M,N,K ...] [--schedule 'tile_n = 64, ...'] [--workspace]   (here)
    PYTHONPATH=python python3 bench/gpu/fp8_blockscaled.py run DIR [--reps 5] [--runs 20]    (on the GPU machine)

`build` writes, per shape, the user-level module (`python3 -m axe_gen.matmul M N K e4m3b bf16`: e4m3 A
[M, K] and B [N, K], bf16 C; the schedule is the compiler's) lowered to DIR/<entry>.json, and
DIR/index.json; with --workspace each module also takes split-K's workspace (its partial sums
and flags, zeroed once by `run`; the compiler may then split K). `run` makes e4m3 inputs from N(0, 1) and scales from U(0.5, 2) (seeded per
entry), fills C with NaN and a NaN sentinel after it, launches, and checks C against the
float32 product of the dequantized operands (every element within 1e-2 of the largest |C|:
bf16's rounding and the order of f32 sums), the sentinel untouched; then times Axe and
`torch._scaled_mm(a, b.t(), scale_a, scale_b, out_dtype=bf16)` with scale_a [M, K/128]
stored outer-dim-major (strides (1, M)) and scale_b the transpose of an [N/128, K/128] tensor
(PyTorch 2.11 on sm_90), paired in one process: rounds of the median of RUNS L2-flushed
CUDA-event-timed runs, the order reversed every other round. Prints TFLOP/s and the ratio
cuBLAS time / Axe time (above 1: Axe faster), median [min-max] over the rounds.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import zlib

# Square and LLM-like shapes (DeepSeek-V3's projections among them), a serving batch, and a
# ragged one (M and N no multiple of 128, K no multiple of 128 but of 16 for TMA).
SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (4096, 7168, 18432), (4096, 24576, 1536),
          (128, 7168, 18432), (1024, 4096, 7168), (1000, 7000, 3008),
          (1, 7168, 2048), (16, 4096, 7168), (64, 24576, 1536), (2048, 2048, 7168)]


def entry_name(m, n, k):
    return f"fp8b_{m}x{n}x{k}"


def build(args):
    import lowering
    from axe_gen import matmul

    os.makedirs(args.dir, exist_ok=True)
    shapes = [tuple(int(x) for x in s.split(",")) for s in args.shapes] if args.shapes else SHAPES
    index = []
    for m, n, k in shapes:
        entry = entry_name(m, n, k) + ("_ws" if args.workspace else "")
        src = matmul.module(m, n, k, "e4m3b", "bf16", name=entry, schedule=args.schedule,
                            workspace=args.workspace)
        err = lowering.lower(args.dir, entry, src)
        if err:
            print(f"{entry}: not built: {err}", flush=True)
            continue
        opt, _ = lowering.tools()
        scheduled = subprocess.run([opt, "-", "--axe-matmul-schedule"], input=src, capture_output=True, text=True)
        sched = scheduled.stdout.split("schedule = #axe.matmul_schedule<", 1)[-1].split(">", 1)[0]
        index.append({"entry": entry, "m": m, "n": n, "k": k, "schedule": sched, "workspace": args.workspace})
        print(f"{entry}: {sched}", flush=True)
    with open(os.path.join(args.dir, "index.json"), "w") as f:
        json.dump(index, f, indent=1)


def run(args):
    import axe_runtime
    import gemm_grid
    import torch

    timer = gemm_grid.Timer(flush=True)
    print(torch.cuda.get_device_name(), f"torch {torch.__version__}", flush=True)
    rows = []
    failed = 0
    for e in json.load(open(os.path.join(args.dir, "index.json"))):
        m, n, k = e["m"], e["n"], e["k"]
        kb, nb = -(-k // 128), -(-n // 128)
        g = torch.Generator(device="cuda").manual_seed(zlib.crc32(e["entry"].encode()))
        a = torch.randn(m, k, device="cuda", generator=g).to(torch.float8_e4m3fn)
        b = torch.randn(n, k, device="cuda", generator=g).to(torch.float8_e4m3fn)
        sa_rows = torch.rand(m, kb, device="cuda", generator=g) * 1.5 + 0.5
        sb_blocks = torch.rand(nb, kb, device="cuda", generator=g) * 1.5 + 0.5
        # scale_a as torch._scaled_mm takes it: [M, K/128] with strides (1, M); the kernel's
        # view of the same memory is the column-major layout axe_gen.matmul gives it.
        sa = sa_rows.t().contiguous().t()
        sb = sb_blocks.contiguous()
        storage = torch.full((m * n + 1024,), float("nan"), device="cuda", dtype=torch.bfloat16)
        c = storage[: m * n].view(m, n)
        kern = axe_runtime.load(os.path.join(args.dir, f"{e['entry']}.json"))
        sa_flat = sa.t().contiguous().view(-1)  # column-major storage: element (i, j) at i + j M
        sb_flat = sb.view(-1)
        extra = []
        if e.get("workspace"):
            # Split-K's partial sums and flags, zero before the first launch (each leaves them so).
            extra = [torch.zeros(m * n, device="cuda", dtype=torch.float32),
                     torch.zeros(-(-m // 64) * -(-n // 64), device="cuda", dtype=torch.int32)]
        launch = lambda: kern(a.view(-1), b.view(-1), c.view(-1), sa_flat, sb_flat, *extra)  # noqa: E731
        launch()
        torch.cuda.synchronize()
        deq_a = a.float() * sa_rows.repeat_interleave(128, dim=1)[:, :k]
        deq_b = b.float() * sb_blocks.repeat_interleave(128, dim=0)[:n].repeat_interleave(128, dim=1)[:, :k]
        want = deq_a @ deq_b.t()
        scale = want.abs().max().item()
        err = (c.float() - want).abs().max().item()
        ok = not torch.isnan(c).any().item() and err <= 1e-2 * scale and torch.isnan(storage[m * n:]).all().item()
        line = f"{'ok  ' if ok else 'FAIL'} {e['entry']} [{e['schedule']}] max err {err:.3g} of {scale:.3g}"
        methods = [("axe", launch)]
        try:
            sb_t = sb_blocks.t()  # the transpose of an [N/128, K/128] tensor
            ref = torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb_t, out_dtype=torch.bfloat16)
            cerr = (ref.float() - want).abs().max().item()
            line += f"; cuBLAS max err {cerr:.3g}"
            methods.append(("cublas", lambda: torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb_t,
                                                                out_dtype=torch.bfloat16)))
        except Exception as x:  # the baseline may refuse a shape
            line += f"; cuBLAS: {type(x).__name__}: {str(x).splitlines()[0][:120]}"
        print(line, flush=True)
        if not ok:
            failed += 1
            continue
        # Re-checked after the timed launches below (the output of the last one).
        times = {name: [] for name, _ in methods}
        for r in range(args.reps):
            for name, fn in (methods if r % 2 == 0 else methods[::-1]):
                times[name].append(timer.ms(fn, args.runs))
        flops = 2 * m * n * k
        med = {name: statistics.median(t) for name, t in times.items()}
        row = {"entry": e["entry"], "axe_tflops": flops / med["axe"] / 1e9, "axe_ms": med["axe"]}
        if "cublas" in times:
            ratios = [cb / ax for cb, ax in zip(times["cublas"], times["axe"])]
            row.update(cublas_tflops=flops / med["cublas"] / 1e9, ratio=statistics.median(ratios),
                       ratio_min=min(ratios), ratio_max=max(ratios))
        err2 = (c.float() - want).abs().max().item()
        if torch.isnan(c).any().item() or err2 > 1e-2 * scale:
            print(f"FAIL {e['entry']}: wrong after the timed launches (max err {err2:.3g})", flush=True)
            failed += 1
        rows.append(row)
    print("\n| shape | Axe TFLOP/s | cuBLAS TFLOP/s | cuBLAS / Axe time |\n|---|---|---|---|")
    for r in rows:
        cub = f"{r['cublas_tflops']:.0f}" if "cublas_tflops" in r else "-"
        ratio = f"{r['ratio']:.3f} [{r['ratio_min']:.3f}-{r['ratio_max']:.3f}]" if "ratio" in r else "-"
        print(f"| {r['entry']} | {r['axe_tflops']:.0f} | {cub} | {ratio} |")
    print(f"\n{len(rows) - failed} of {len(rows)} correct" if not failed else f"\n{failed} FAILED")
    sys.exit(1 if failed else 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("dir")
    b.add_argument("--shapes", nargs="*", help="M,N,K each (default: the built-in list)")
    b.add_argument("--schedule", help="fields of #axe.matmul_schedule the compiler must keep (an override)")
    b.add_argument("--workspace", action="store_true", help="give each GEMM split-K's workspace")
    r = sub.add_parser("run")
    r.add_argument("dir")
    r.add_argument("--reps", type=int, default=5)
    r.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    (build if args.cmd == "build" else run)(args)


if __name__ == "__main__":
    main()
