#!/usr/bin/env python3
"""Tensor-parallel MLP down-projection with a reduce-scatter of the output rows (the Axe
paper's §4.3 workload), one process per GPU through torch.distributed (NCCL).

Rank r holds A_r = A[:, r K/R : (r+1) K/R] (M x K/R) and B_r = B[r K/R : (r+1) K/R, :]
(K/R x N); the result C = sum_r A_r B_r (M x N) is reduce-scattered over rows: rank r keeps
rows r M/R .. (r+1) M/R - 1. Timed, paired in one run (every repetition runs every
candidate once, in turn):

  * cublas+nccl: torch.mm (cuBLAS) then dist.reduce_scatter_tensor (NCCL), the non-fused
    baseline;
  * torch-async-tp: torch.ops.symm_mem.fused_matmul_reduce_scatter (PyTorch's fused async-TP);
  * axe-fused: the Axe kernel of axe_gen.gemm_rs (GEMM tiles of the other ranks'
    rows first, each pushed into its owner's memory over NVLink and published with a release
    flag; each rank's own row tiles wait for the peers' flags and add their partial tiles in
    the epilogue), when DIR holds its manifest for (shape, R);
  * axe-fused-ws: the same on the warp-specialized persistent GEMM (gemm_rs.write_ws);
  * axe-fused-ws-defer: that kernel publishing each pushed tile one tile later;
  * axe-fused-ws-bulk: that kernel pushing each tile with TMA bulk copies into the owner's
    memory (the consumers go on with the next tile while the copies travel);
  * axe-fused-ws-bulk-async / -async2: the same with async TMA stores through one or two
    shared tiles per warpgroup (the last part of a tile is read by the TMA unit behind the
    next tile's mainloop, not waited for in the epilogue);
  * axe-fused-ws-pushers: the consumers hand each part of a peer tile to a pusher warp of the
    producer warpgroup (an mbarrier handoff through their shared tile), which stores it into
    the owner's P and publishes the flag: the computing warpgroups do no remote work;
  * axe-fused-ws-reduce: partial tiles added into their owners' rows by TMA bulk reductions;
  * the parts: the local GEMM alone (cuBLAS, and each Axe kernel at R = 1 on this rank's K
    slice) and the reduce-scatter alone (NCCL).

Every rank records CUDA events; per repetition the slowest rank's time counts (an all-reduce
MAX), and the median over repetitions is reported with the spread (min..max).

    python3 dist_gemm_rs.py DIR --ranks R [--reps N] [--shapes 8b,70b] [--check-only] [--spin-us US] [--ablation]

NVLink multicast stays off in every process (NCCL_NVLS_ENABLE=0,
TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NVSHMEM_DISABLE_NVLS=1).
"""
import argparse
import os
import statistics

for k, v in (("NCCL_NVLS_ENABLE", "0"), ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"), ("NVSHMEM_DISABLE_NVLS", "1")):
    os.environ[k] = v

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

# Llama-3.1 MLP down-projections at batch 8192: [M, intermediate] x [intermediate, hidden].
SHAPES = {"8b": (8192, 14336, 4096), "70b": (8192, 28672, 8192)}


# The fused candidates: (label, warp-specialized, the form as gemm_rs.name_ws's keywords).
CANDIDATES = [
    ("axe-fused", False, {}),
    ("axe-fused-ws", True, {}),
    ("axe-fused-ws-defer", True, dict(defer=True)),
    ("axe-fused-ws-bulk", True, dict(defer=True, bulk=True)),
    ("axe-fused-ws-bulk-async", True, dict(defer=True, bulk=True, async_push=1)),
    ("axe-fused-ws-bulk-async2", True, dict(defer=True, bulk=True, async_push=2)),
    ("axe-fused-ws-pushers", True, dict(pushers=True)),
    ("axe-fused-ws-reduce", True, dict(reduce=True)),
]

# --ablation (timing only: the sums are wrong): each warp-specialized form pushing into this
# device's own memory (what its communication costs apart from NVLink); then the bulk and the
# pusher forms without the own tiles' waits and reads ("no own"), without the flags too ("no
# flags"), and both into this device's own memory: what the own tiles, the flags and NVLink
# each add to the pushes.
ABLATIONS = [
    ("ablation:ws-self", dict(ablate_self=True)),
    ("ablation:ws-defer-self", dict(defer=True, ablate_self=True)),
    ("ablation:ws-bulk-self", dict(defer=True, bulk=True, ablate_self=True)),
    ("ablation:ws-bulk-no-own", dict(defer=True, bulk=True, ablate=("own",))),
    ("ablation:ws-bulk-no-own-no-flags", dict(defer=True, bulk=True, ablate=("own", "flag"))),
    ("ablation:ws-bulk-self-no-own-no-flags", dict(defer=True, bulk=True, ablate_self=True, ablate=("own", "flag"))),
    ("ablation:ws-pushers-self", dict(pushers=True, ablate_self=True)),
    ("ablation:ws-pushers-no-own", dict(pushers=True, ablate=("own",))),
    ("ablation:ws-pushers-no-own-no-flags", dict(pushers=True, ablate=("own", "flag"))),
    ("ablation:ws-pushers-self-no-own-no-flags", dict(pushers=True, ablate_self=True, ablate=("own", "flag"))),
]


def axe_kernel(d, m, k, n, ranks, ws=False, **form):
    """The Axe fused kernel for this shape and R (`ws`: the warp-specialized persistent one, in
    the form that `form`, gemm_rs.name_ws's keywords, names), if it was built."""
    try:
        from axe_gen.gemm_rs import name, name_ws
    except ImportError:
        return None
    nm = name_ws(m, n, k, ranks, **form) if ws else name(m, n, k, ranks)
    path = f"{d}/{nm}_kernel.json"
    if not os.path.exists(path):
        return None
    import axe_runtime
    return axe_runtime.load(path)


def timed(fns, reps, group, spin_us=0):
    """Per candidate: the slowest rank's time per repetition (ms), repetitions interleaved.
    `spin_us` > 0: a spin kernel of about that long is queued before the start event, so the
    host's work to launch the candidate (Python, argument checks, NCCL's enqueue) overlaps it
    and the events time the GPU's work alone; 0: the host's launch work counts too."""
    times = {name: [] for name in fns}
    cycles = int(spin_us * torch.cuda.get_device_properties(0).clock_rate / 1e3) if spin_us else 0
    for _ in range(reps):
        for name, fn in fns.items():
            dist.barrier(group)
            torch.cuda.synchronize()
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            if cycles:
                torch.cuda._sleep(cycles)
            a.record()
            fn()
            b.record()
            torch.cuda.synchronize()
            t = torch.tensor([a.elapsed_time(b)], device="cuda")
            dist.all_reduce(t, op=dist.ReduceOp.MAX, group=group)
            times[name].append(t.item())
    return times


def worker(rank, ranks, d, port, shapes, reps, check_only, results, spin_us=0, ablation=False, also=()):
    torch.cuda.set_device(rank % torch.cuda.device_count())
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("nccl", rank=rank, world_size=ranks,
                            device_id=torch.device("cuda", torch.cuda.current_device()))
    group = dist.group.WORLD
    lines = []
    try:
        from torch.distributed import _symmetric_memory as symm
        if hasattr(symm, "enable_symm_mem_for_group"):
            symm.enable_symm_mem_for_group(group.group_name)
        for key in shapes:
            m, k, n = SHAPES[key]
            kr, rows = k // ranks, m // ranks
            gen = torch.Generator(device="cuda").manual_seed(1234)
            # The whole A and B, identical on every rank (same seed); each rank keeps its slice.
            a_full = torch.randn(m, k, device="cuda", dtype=torch.float16, generator=gen) * 0.1
            b_full = torch.randn(k, n, device="cuda", dtype=torch.float16, generator=gen) * 0.1
            a = a_full[:, rank * kr:(rank + 1) * kr].contiguous()
            b = b_full[rank * kr:(rank + 1) * kr].contiguous()
            want = (a_full[rank * rows:(rank + 1) * rows].float() @ b_full.float())
            del a_full, b_full
            out = torch.empty(rows, n, device="cuda", dtype=torch.float16)

            def cublas_nccl():
                c = torch.mm(a, b)
                dist.reduce_scatter_tensor(out, c, group=group)
                return out

            def async_tp():
                return torch.ops.symm_mem.fused_matmul_reduce_scatter(a, b, "sum", 0, group.group_name)

            fns = {"cublas+nccl": cublas_nccl}
            notes = []
            try:
                async_tp()
                fns["torch-async-tp"] = async_tp
            except Exception as e:  # the baseline's absence is reported, not fatal
                notes.append(f"torch-async-tp unavailable: {type(e).__name__}: {str(e)[:160]}")
            from axe_bench.dist import GemmRs
            floors = {}
            for label, ws, form in CANDIDATES:
                kernel = axe_kernel(d, m, k, n, ranks, ws, **form)
                if kernel is not None:
                    fns[label] = GemmRs.distributed(kernel, a, b, m, n, ranks, rank, group)
                else:
                    notes.append(f"{label}: no manifest for this shape and R in DIR")
                local = axe_kernel(d, m, k // ranks, n, 1, ws) if ranks > 1 and not form else None
                if local is not None:
                    # This rank's GEMM alone with Axe's kernel (no communication): the floor.
                    floors["gemm-only(axe" + ("-ws)" if ws else ")")] = GemmRs.simulated(local, [a], [b], m, n)[0]
            # --also LABEL=SUFFIX: another build of a fused kernel, gemm_rs_MxNxK_rR{SUFFIX}_kernel.json
            # in DIR (e.g. the previous compiler's, renamed), checked and timed beside the others.
            for spec in also:
                label, suffix = spec.split("=", 1)
                path = f"{d}/gemm_rs_{m}x{n}x{k}_r{ranks}{suffix}_kernel.json"
                if os.path.exists(path):
                    import axe_runtime
                    fns[label] = GemmRs.distributed(axe_runtime.load(path), a, b, m, n, ranks, rank, group)
                else:
                    notes.append(f"{label}: no {path}")
            # Correctness: every candidate against the float32 product of the full matrices.
            scale = want.abs().max().item()
            for name, fn in fns.items():
                got = fn().float()
                torch.cuda.synchronize()
                err = (got - want).abs().max().item()
                ok = bool(torch.isfinite(got).all()) and err <= 2e-2 * max(scale, 1.0)
                lines.append(f"{'ok  ' if ok else 'FAIL'} {key} R={ranks} rank {rank} {name}: max abs error {err:.3g} (entries up to {scale:.3g}) against the f32 product")
            if check_only:
                continue
            if ablation:
                for label, form in ABLATIONS:
                    kernel = axe_kernel(d, m, k, n, ranks, True, **form)
                    if kernel is not None:
                        fns[label] = GemmRs.distributed(kernel, a, b, m, n, ranks, rank, group)
                        fns[label]()
            c_tmp = torch.mm(a, b)
            parts = {"gemm-only(cublas)": lambda: torch.mm(a, b),
                     "rs-only(nccl)": lambda: dist.reduce_scatter_tensor(out, c_tmp, group=group)}
            parts.update(floors)
            for fn in floors.values():  # loaded and run once before the timing
                fn()
            times = timed({**fns, **parts}, reps, group, spin_us)
            if rank == 0:
                base = statistics.median(times["cublas+nccl"])
                how = f"GPU time: host launch work hidden behind a {spin_us} us spin" if spin_us else "host launch work included"
                lines.append(f"     {key} M={m} K={k} N={n} R={ranks}: median of {reps} (slowest rank per repetition), min..max; {how}")
                for name, ts in times.items():
                    med = statistics.median(ts)
                    lines.append(f"     {name:18s} {med * 1e3:9.1f} us  ({min(ts) * 1e3:.1f}..{max(ts) * 1e3:.1f})  cublas+nccl/this = {base / med:.3f}")
                for note in notes:
                    lines.append(f"     note: {note}")
    except Exception as e:  # report, never hang the other ranks
        import traceback
        lines.append(f"FAIL rank {rank}: {type(e).__name__}: {e}\n{traceback.format_exc()}")
    finally:
        dist.destroy_process_group()
    results.put((rank, lines))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--shapes", default="8b,70b")
    ap.add_argument("--check-only", action="store_true")
    ap.add_argument("--also", action="append", default=[], metavar="LABEL=SUFFIX",
                    help="also check and time DIR/gemm_rs_MxNxK_rR{SUFFIX}_kernel.json as LABEL")
    ap.add_argument("--ablation", action="store_true",
                    help="also time the WS kernels pushing into this device's own memory (timing only)")
    ap.add_argument("--spin-us", type=float, default=0,
                    help="queue a spin kernel this long before each start event (times the GPU's work alone)")
    args = ap.parse_args()
    shapes = args.shapes.split(",")
    from axe_bench.dist import run_ranks
    run_ranks(worker, args.ranks,
              lambda r, port, results: (r, args.ranks, args.dir, port, shapes, args.reps, args.check_only, results,
                                       args.spin_us, args.ablation, tuple(args.also)), 560)


if __name__ == "__main__":
    main()
