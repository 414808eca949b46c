#!/usr/bin/env python3
"""The tensor-parallel (sequence-parallel) Llama-3.1 MLP block on R GPUs, one process per GPU
(torch.distributed, NCCL), with the kernels of build_mlp.py:

    X_r [T/R, H] --all-gather--> X [T, H] --(X Wg_r, X Wu_r), SwiGLU--> Z_r [T, I/R]
        --Z_r Wd_r--> partial [T, H] --reduce-scatter--> Y_r [T/R, H]

Rank r holds the token rows r T/R .. of X, columns r I/R .. of Wg and Wu (as one [H, 2I/R]
matrix [Wg_r | Wu_r]) and the same rows of Wd. Timed, paired in one run (every repetition
runs every candidate once, in turn), per shape and R:

  up/gate projection (all-gather + GEMM + SwiGLU):
  * cublas+nccl: dist.all_gather_into_tensor, torch.mm, silu(g) * u;
  * torch-async-tp: torch.ops.symm_mem.fused_all_gather_matmul, then silu(g) * u;
  * axe-ag: `axe.matmul ... gate silu gather(...)`, one kernel (the SwiGLU in its epilogue);
  * the parts: the GEMM alone (cuBLAS, and Axe's same kernel without the gather) and the
    all-gather alone (NCCL); the full-overlap bound is the slower of GEMM alone and
    all-gather alone.
  the block (up/gate, then down + reduce-scatter):
  * cublas+nccl: the above, then torch.mm and dist.reduce_scatter_tensor;
  * torch-async-tp: fused_all_gather_matmul, SwiGLU, fused_matmul_reduce_scatter;
  * axe: axe-ag, then the fused GEMM + reduce-scatter (axe_gen.gemm_rs's pusher form).

Correctness: every candidate against a single-GPU float32 PyTorch evaluation of the block on
the whole X (Z's rows and this rank's rows of Y). Per repetition the slowest rank's time
counts (an all-reduce MAX); the median over repetitions is reported with the spread.

    python3 dist_mlp.py DIR --ranks R [--reps N] [--models 8b,70b] [--tokens 8192,2048] [--check-only] [--ablation]
                        [--spin-us US]
    python3 dist_mlp.py DIR --simulate R [--models 8b] [--tokens 2048]   (R ranks on one GPU: checks only)

NVLink multicast stays off in every process (NCCL_NVLS_ENABLE=0,
TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NVSHMEM_DISABLE_NVLS=1).
"""
import argparse
import os
import statistics
import sys

for k, v in (("NCCL_NVLS_ENABLE", "0"), ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"), ("NVSHMEM_DISABLE_NVLS", "1")):
    os.environ[k] = v

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from dist_gemm_rs import timed  # noqa: E402  (paired repetitions, the slowest rank's time)

MODELS = {"8b": (4096, 14336), "70b": (8192, 28672)}


def load(d, entry):
    path = f"{d}/{entry}.json"
    if not os.path.exists(path):
        return None
    import axe_runtime
    return axe_runtime.load(path)


def weights(hidden, inter, ranks, rank, seed=1234):
    """This rank's [Wg_r | Wu_r] ([H, 2I/R]) and Wd_r ([I/R, H]), and the whole matrices'
    generator state: every rank draws the same full matrices and keeps its slices."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    s = hidden ** -0.5
    wg = torch.randn(hidden, inter, device="cuda", generator=g) * s
    wu = torch.randn(hidden, inter, device="cuda", generator=g) * s
    wd = torch.randn(inter, hidden, device="cuda", generator=g) * inter ** -0.5
    i = inter // ranks
    cols = slice(rank * i, (rank + 1) * i)
    w_up = torch.cat([wg[:, cols], wu[:, cols]], dim=1).half().contiguous()
    w_down = wd[cols].half().contiguous()
    return w_up, w_down, (wg, wu, wd)


def reference(x, full, rows):
    """The block in float32 on one GPU (the f16 inputs, rounded as the kernels see them)."""
    wg, wu, wd = (w.half().float() for w in full)
    xf = x.float()
    z = F.silu(xf @ wg) * (xf @ wu)
    return z, (z.half().float() @ wd)[rows]


def swiglu(h):
    n = h.shape[1] // 2
    return F.silu(h[:, :n]) * h[:, n:]


class Lines(list):
    """Result lines, also printed as they come (flushed) when `echo`: a run cut short by its
    time limit still shows how far it got."""

    def __init__(self, echo=False):
        super().__init__()
        self.echo = echo

    def append(self, line):
        super().append(line)
        if self.echo:
            print(line, flush=True)


def check(lines, label, got, want, what):
    got = got.float()
    scale = want.abs().max().item()
    err = (got - want).abs().max().item()
    ok = bool(torch.isfinite(got).all()) and err <= 2e-2 * max(scale, 1.0)
    lines.append(f"{'ok  ' if ok else 'FAIL'} {label}: {what}: max abs error {err:.3g} (entries up to {scale:.3g})")
    return ok


def simulate(d, ranks, models, tokens):
    """R ranks on one GPU: the all-gather GEMM's R instances launched together on R streams,
    three times in a row (epochs 1-3, no synchronization between the launches)."""
    from axe_bench.dist import AgGemm
    lines = Lines()
    for model in models:
        hidden, inter = MODELS[model]
        for t in tokens:
            tag = f"{model}_t{t}_r{ranks}"
            kernel = load(d, f"ag_{tag}_sim")
            if kernel is None:
                lines.append(f"FAIL {tag}: no ag_{tag}_sim.json in {d}")
                continue
            w_up, _, full = weights(hidden, inter, ranks, 0)
            x = (torch.randn(t, hidden, device="cuda", generator=torch.Generator(device="cuda").manual_seed(7))).half()
            z_want, _ = reference(x, full, slice(0, 1))
            n = inter // ranks
            shards = [x[r * t // ranks:(r + 1) * t // ranks].contiguous() for r in range(ranks)]
            outs = [torch.empty(t, n, device="cuda", dtype=torch.float16) for _ in range(ranks)]
            insts = AgGemm.simulated(kernel, shards, w_up, outs)
            streams = [torch.cuda.Stream() for _ in range(ranks)]
            for launch in range(3):
                for r in range(ranks):
                    outs[r].fill_(float("nan"))
                torch.cuda.synchronize()
                for r in range(ranks):
                    insts[r](stream=streams[r])
                torch.cuda.synchronize()
                for r in range(ranks):
                    check(lines, f"{tag} simulated rank {r} launch {launch + 1}", outs[r], z_want[:, :n],
                          "Z = SwiGLU(all-gathered X W_up) against f32")
    return lines


# The spin before each start event (--spin-us), for the reports.
SPIN_US = [0.0]


def report(lines, title, times, base, bound_parts):
    med = {k: statistics.median(v) for k, v in times.items()}
    bound = max(med[p] for p in bound_parts) if bound_parts and all(p in med for p in bound_parts) else None
    lines.append(f"     {title}")
    if SPIN_US[0]:
        lines.append(f"     (GPU time: each candidate's host launch work hidden behind a {SPIN_US[0]:g} us spin)")
    for name, ts in times.items():
        extra = f"  bound/this = {bound / med[name]:.3f}" if bound and not name.startswith("part:") else ""
        lines.append(f"     {name:26s} {med[name] * 1e3:9.1f} us  ({min(ts) * 1e3:.1f}..{max(ts) * 1e3:.1f})"
                     f"  {base}/this = {med[base] / med[name]:.3f}{extra}")
    if bound:
        lines.append(f"     full-overlap bound (slower of {' and '.join(bound_parts)}): {bound * 1e3:.1f} us")


def one_shape(model, t, rank, ranks, d, group, lines, reps, check_only, ablation, spin_us):
    """Checks and times the block at one model and token count on this rank (a function, so
    that its tensors are freed before the next shape's)."""
    import torch.distributed as dist
    from axe_bench.dist import AgGemm, GemmRs
    hidden, inter = MODELS[model]
    tag = f"{model}_t{t}_r{ranks}"
    if lines.echo:
        print(f"progress: {tag}", flush=True)
    rows = slice(rank * t // ranks, (rank + 1) * t // ranks)
    w_up, w_down, full = weights(hidden, inter, ranks, rank)
    x = torch.randn(t, hidden, device="cuda", generator=torch.Generator(device="cuda").manual_seed(7)).half()
    z_want, y_want = reference(x, full, rows)
    n = inter // ranks
    z_want = z_want[:, rank * n:(rank + 1) * n]
    del full
    x_r = x[rows].contiguous()
    x_all = torch.empty_like(x)
    z = torch.empty(t, n, device="cuda", dtype=torch.float16)
    y = torch.empty(t // ranks, hidden, device="cuda", dtype=torch.float16)

    def up_nccl():
        dist.all_gather_into_tensor(x_all, x_r, group=group)
        return swiglu(torch.mm(x_all, w_up))

    def up_async_tp():
        _, (h,) = torch.ops.symm_mem.fused_all_gather_matmul(x_r, [w_up], 0, group.group_name)
        return swiglu(h)

    up = {"cublas+nccl": up_nccl, "torch-async-tp": up_async_tp}
    kernel = load(d, f"ag_{tag}")
    if kernel is not None:
        up["axe-ag"] = AgGemm.distributed(kernel, x_r, w_up, z, group)
    else:
        lines.append(f"FAIL {tag}: no ag_{tag}.json in {d}")
    # build_mlp.py --pushers N / --variant SUFFIX=...: the same op built another way
    # (checked and timed too).
    import glob
    for path in sorted(glob.glob(f"{d}/ag_{tag}_*.json")):
        suffix = os.path.basename(path)[len(f"ag_{tag}_"):-len(".json")]
        if suffix in ("sim", "nowait", "nopush"):
            continue
        up[f"axe-ag-{suffix}"] = AgGemm.distributed(load(d, f"ag_{tag}_{suffix}"), x_r, w_up, z, group)
    from axe_gen import gemm_rs
    rs_kernel = load(d, gemm_rs.name_ws(t, hidden, inter, ranks, pushers=True))
    rs = GemmRs.distributed(rs_kernel, z, w_down, t, hidden, ranks, rank, group) if rs_kernel else None

    def block_nccl():
        h = up_nccl()
        dist.reduce_scatter_tensor(y, torch.mm(h, w_down), group=group)
        return y

    def block_async_tp():
        return torch.ops.symm_mem.fused_matmul_reduce_scatter(up_async_tp(), w_down, "sum", 0,
                                                             group.group_name)

    block = {"cublas+nccl": block_nccl, "torch-async-tp": block_async_tp}
    if kernel is not None and rs is not None:
        def block_axe():
            up["axe-ag"]()
            return rs()
        block["axe"] = block_axe
    for name, fn in up.items():
        z.fill_(float("nan"))
        check(lines, f"{tag} rank {rank} {name}", fn(), z_want, "Z (up/gate + SwiGLU)")
    for name, fn in block.items():
        check(lines, f"{tag} rank {rank} block {name}", fn(), y_want, "Y (this rank's rows)")
    if check_only:
        return
    local = load(d, f"gemm_{tag}")
    z_local = torch.empty_like(z)
    one = torch.ones(1, device="cuda")
    parts = {"part:gemm(cublas)": lambda: torch.mm(x, w_up),
             # The ranks' skew as one small collective sees it (its latency too).
             "part:allreduce-1(nccl)": lambda: dist.all_reduce(one, group=group),
             "part:allgather(nccl)": lambda: dist.all_gather_into_tensor(x_all, x_r, group=group)}
    if local is not None:
        parts["part:gemm+swiglu(axe)"] = lambda: local(x, w_up, z_local)
        local(x, w_up, z_local)  # loaded (the PTX compiled) before the timing
    if lines.echo:
        print(f"progress: {tag} timing", flush=True)
    if ablation:
        # Timing only (the results are wrong): build_mlp.py --ablation's variants.
        for suffix in ("_nowait", "_nopush"):
            k = load(d, f"ag_{tag}{suffix}")
            if k is not None:
                parts[f"ablation:{suffix[1:]}"] = AgGemm.distributed(k, x_r, w_up, z_local, group)
                parts[f"ablation:{suffix[1:]}"]()
    ut = timed({**up, **parts}, reps, group, spin_us)
    if rank == 0:
        report(lines, f"{tag}: up/gate projection, all-gather + GEMM + SwiGLU (M={t} N={2 * n} K={hidden}); "
               f"median of {reps}, slowest rank", ut, "cublas+nccl",
               ("part:gemm(cublas)", "part:allgather(nccl)"))
    z_tmp = swiglu(torch.mm(x, w_up))
    partial = torch.mm(z_tmp, w_down)
    bparts = {"part:down-gemm(cublas)": lambda: torch.mm(z_tmp, w_down),
              "part:reducescatter(nccl)": lambda: dist.reduce_scatter_tensor(y, partial, group=group)}
    bt = timed({**block, **bparts}, reps, group, spin_us)
    if rank == 0:
        report(lines, f"{tag}: the block (up/gate + SwiGLU, down + reduce-scatter); median of {reps}",
               bt, "cublas+nccl", ())


def worker(rank, ranks, d, port, models, tokens, reps, check_only, results, ablation=False, spin_us=0):
    import torch.distributed as dist
    torch.cuda.set_device(rank % torch.cuda.device_count())
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("nccl", rank=rank, world_size=ranks,
                            device_id=torch.device("cuda", torch.cuda.current_device()))
    group = dist.group.WORLD
    SPIN_US[0] = spin_us
    lines = Lines(echo=os.environ.get("AXE_ECHO") == "1" and rank == 0)
    try:
        from torch.distributed import _symmetric_memory as symm
        if hasattr(symm, "enable_symm_mem_for_group"):
            symm.enable_symm_mem_for_group(group.group_name)
        for model in models:
            for t in tokens:
                one_shape(model, t, rank, ranks, d, group, lines, reps, check_only, ablation, spin_us)
                torch.cuda.empty_cache()
    except Exception as e:  # report, never hang the other ranks
        import traceback
        lines.append(f"FAIL rank {rank}: {type(e).__name__}: {e}\n{traceback.format_exc()}")
    finally:
        dist.destroy_process_group()
    results.put((rank, lines))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--ranks", type=int, default=0)
    ap.add_argument("--simulate", type=int, default=0)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--models", default="8b,70b")
    ap.add_argument("--tokens", default="8192,2048")
    ap.add_argument("--check-only", action="store_true")
    ap.add_argument("--spin-us", type=float, default=0,
                    help="queue a spin kernel this long before each start event (times the GPU's work alone)")
    ap.add_argument("--ablation", action="store_true",
                    help="also time build_mlp.py --ablation's variants of the gathered GEMM (timing only)")
    a = ap.parse_args()
    models, tokens = a.models.split(","), [int(t) for t in a.tokens.split(",")]
    if a.simulate:
        lines = simulate(a.dir, a.simulate, models, tokens)
        print("\n".join(lines))
        failed = sum(line.startswith("FAIL") for line in lines)
        print(f"{len(lines) - failed} passed, {failed} failed")
        sys.exit(1 if failed else 0)
    from axe_bench.dist import run_ranks
    run_ranks(worker, a.ranks,
              lambda r, port, results: (r, a.ranks, a.dir, port, models, tokens, a.reps, a.check_only, results,
                                       a.ablation, a.spin_us), 580)


if __name__ == "__main__":
    main()
