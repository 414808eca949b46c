#!/usr/bin/env python3
"""Distributed kernels on real ranks: one process per GPU through torch.distributed (NCCL),
the symmetric buffers from PyTorch's symmetric memory (`torch.distributed._symmetric_memory`:
`empty`, `rendezvous`, the handle's `buffer_ptrs` as the peer table). The kernels are the mesh
kernels of mesh_sim.py, compiled for R devices; this runner launches rank r's instance in
process r. With R = 1 it runs on one GPU (the mesh of the shipped kernels has 4 devices, so R = 1
checks the runner against a 1-device build: see --devices).

    python3 mesh_dist.py DIR [--ranks R]      (DIR holds the *_kernel.json manifests)

NVLink multicast stays off in every process (NCCL_NVLS_ENABLE=0,
TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NVSHMEM_DISABLE_NVLS=1).
"""
import argparse
import os

for k, v in (("NCCL_NVLS_ENABLE", "0"), ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"), ("NVSHMEM_DISABLE_NVLS", "1")):
    os.environ[k] = v

import axe_runtime  # noqa: E402
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from axe_bench.dist import GemmRs, call_args, run_ranks, symmetric  # noqa: E402

# The GEMM + reduce-scatter shape of this runner (M, N, K); its kernels exist for R = 1, 2, 4, 8.
RS_DIST = (8192, 1024, 4096)


def worker(rank, ranks, d, port, results):
    torch.cuda.set_device(rank % torch.cuda.device_count())
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("nccl", rank=rank, world_size=ranks, device_id=torch.device("cuda", torch.cuda.current_device()))
    group = dist.group.WORLD
    lines = []
    try:
        # Reduce-scatter (Figure 8): X (ranks x 64 x 64) sharded over ranks, Y (64 x 64) too.
        rows = 64 // ranks
        rs = axe_runtime.load(f"{d}/mesh_reduce_scatter_r{ranks}_kernel.json")
        x, peers = symmetric(64 * 64, torch.float16, group)
        torch.manual_seed(rank)
        x.copy_(torch.randn(64 * 64, device="cuda", dtype=torch.float16))
        y = torch.full((rows * 64,), float("nan"), device="cuda", dtype=torch.float16)
        dist.barrier()  # every rank's X is complete before any rank reads it
        rs(x, y, peers, rank)
        torch.cuda.synchronize()
        dist.barrier()  # no rank overwrites X while another still reads it
        everything = [torch.empty_like(x) for _ in range(ranks)]
        dist.all_gather(everything, x)
        want = torch.stack([t.float().view(64, 64) for t in everything]).sum(0)[rank * rows:(rank + 1) * rows].half()
        err = (y.view(rows, 64).float() - want.float()).abs().max().item()
        ok = bool(torch.isfinite(y).all()) and err == 0
        lines.append(f"{'ok  ' if ok else 'FAIL'} reduce_scatter rank {rank}/{ranks}: max abs error {err:.3g} against torch (f32 sum, f16 result)")
        # All-gather: X (64 x 64) sharded by rows, Y replicated; bit-exact.
        ag = axe_runtime.load(f"{d}/mesh_all_gather_r{ranks}_kernel.json")
        xs, peers = symmetric(rows * 64, torch.float16, group)
        xs.copy_(torch.randn(rows * 64, device="cuda", dtype=torch.float16))
        y = torch.full((64 * 64,), float("nan"), device="cuda", dtype=torch.float16)
        dist.barrier()
        ag(xs, y, peers, rank)
        torch.cuda.synchronize()
        dist.barrier()
        shards = [torch.empty_like(xs) for _ in range(ranks)]
        dist.all_gather(shards, xs)
        ok = bool(torch.equal(y, torch.cat(shards)))
        lines.append(f"{'ok  ' if ok else 'FAIL'} all_gather rank {rank}/{ranks}: {'bit-exact' if ok else 'differs from'} the shards NCCL gathers")
        # Ring shift inside a kernel: rank r's Y is rank r-1's X, bit-exact, twice (epochs).
        ring = axe_runtime.load(f"{d}/mesh_ring_shift_r{ranks}_kernel.json")
        xr = torch.randn(4096, device="cuda", dtype=torch.float16)
        pr, pr_peers = symmetric(4096, torch.float16, group)
        fr, fr_peers = symmetric(4, torch.int32, group)
        fr.zero_()
        for epoch in (1, 2):
            yr = torch.full((4096,), float("nan"), device="cuda", dtype=torch.float16)
            torch.cuda.synchronize()
            dist.barrier()
            ring(*call_args(ring, [xr, pr, yr, fr, epoch], rank, {1: pr_peers, 3: fr_peers}))
            torch.cuda.synchronize()
            xs_all = [torch.empty_like(xr) for _ in range(ranks)]
            dist.all_gather(xs_all, xr)
            ok = bool(torch.equal(yr, xs_all[(rank - 1) % ranks]))
            lines.append(f"{'ok  ' if ok else 'FAIL'} ring_shift epoch {epoch} rank {rank}/{ranks}: {'bit-exact' if ok else 'differs from'} rank {(rank - 1) % ranks}'s X")
        # The fused GEMM + reduce-scatter (axe_gen.gemm_rs), twice (the epochs).
        # Every form: the non-specialized kernel and the warp-specialized persistent one
        # (`_ws`, cooperative: one CTA per SM on every device; `_ws_d`: publishing each pushed
        # tile one tile later; `_ws_b`: pushing with TMA bulk copies, `_ws_b_a1` with async
        # ones; `_ws_w`: pushed by pusher warps; `_ws_r`: adding the partial tiles into their
        # owners' rows with TMA bulk reductions).
        m, n, k = RS_DIST
        g = torch.Generator(device="cuda").manual_seed(7)
        a = torch.randn(m, k, device="cuda", dtype=torch.float16, generator=g) * 0.1
        b = torch.randn(k, n, device="cuda", dtype=torch.float16, generator=g) * 0.1
        kr, rows = k // ranks, m // ranks
        want = a[rank * rows:(rank + 1) * rows].float() @ b.float()
        for suffix in ("", "_ws", "_ws_d", "_ws_b", "_ws_b_a1", "_ws_w", "_ws_r"):
            kern = axe_runtime.load(f"{d}/gemm_rs_{m}x{n}x{k}_r{ranks}{suffix}_kernel.json")
            fused = GemmRs.distributed(kern, a[:, rank * kr:(rank + 1) * kr].contiguous(),
                                       b[rank * kr:(rank + 1) * kr].contiguous(), m, n, ranks, rank, group)
            for launch in (1, 2):
                fused.y.fill_(float("nan"))
                torch.cuda.synchronize()
                dist.barrier()  # launches are kept apart across ranks (the kernel's contract)
                got = fused().float()
                torch.cuda.synchronize()
                err = (got - want).abs().max().item()
                ok = bool(torch.isfinite(got).all()) and err <= 2e-2
                lines.append(f"{'ok  ' if ok else 'FAIL'} gemm_rs{suffix} {m}x{n}x{k} launch {launch} rank {rank}/{ranks}: max abs error {err:.3g} against the f32 product")
    except Exception as e:  # report, never hang the other ranks
        lines.append(f"FAIL rank {rank}: {type(e).__name__}: {e}")
    finally:
        dist.destroy_process_group()
    results.put((rank, lines))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--ranks", type=int, default=1)
    args = ap.parse_args()
    run_ranks(worker, args.ranks, lambda r, port, results: (r, args.ranks, args.dir, port, results), 300)


if __name__ == "__main__":
    main()
