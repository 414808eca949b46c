#!/usr/bin/env python3
"""Distributed kernels with simulated ranks on one GPU: the paper's Figure 8 reduce-scatter
(test/Examples/reduce-scatter.mlir) and an all-gather (test/gpu/kernels/mesh_all_gather.mlir)
over a mesh of R = 4 devices. Each rank's instance of
the kernel gets its own X shard and Y block, its rank, and the peer table of X (the device
addresses of all ranks' X buffers, what symmetric memory provides); the R instances run
concurrently on R streams. Checked against torch: rank r's Y is rows 16r..16r+15 of the sum
of the X blocks (f32 accumulation, one f16 rounding). Prints one line per check and a summary.

    python3 mesh_sim.py DIR      (DIR holds reduce_scatter_buffers_kernel.json)
"""
import sys

import torch

from runtime_path import axe_runtime  # noqa: E402  (finds the package)


def main():
    d = sys.argv[1]
    ranks = 4
    kernel = axe_runtime.load(f"{d}/reduce_scatter_buffers_kernel.json")
    torch.manual_seed(0)
    xs = [torch.randn(4096, device="cuda", dtype=torch.float16) for _ in range(ranks)]
    ys = [torch.full((1024,), float("nan"), device="cuda", dtype=torch.float16) for _ in range(ranks)]
    peers = torch.tensor([x.data_ptr() for x in xs], device="cuda", dtype=torch.int64)
    streams = [torch.cuda.Stream() for _ in range(ranks)]
    torch.cuda.synchronize()  # every rank's X is complete before any rank starts (the contract)
    for r in range(ranks):
        kernel(xs[r], ys[r], peers, r, stream=streams[r])
    torch.cuda.synchronize()
    total = torch.stack([x.float().view(64, 64) for x in xs]).sum(0)
    passed = failed = 0
    for r in range(ranks):
        want = total[16 * r:16 * r + 16].half().float()
        got = ys[r].view(16, 64).float()
        err = (got - want).abs().max().item()
        ok = bool(torch.isfinite(got).all()) and err <= 1e-2
        print(f"{'ok  ' if ok else 'FAIL'} reduce_scatter rank {r}: max abs error {err:.3g} against torch (f32 sum, f16 result)")
        passed += ok
        failed += not ok
    # All-gather: rank r's Y is the whole matrix, bit-exact.
    gather = axe_runtime.load(f"{d}/mesh_all_gather_kernel.json")
    xs = [torch.randn(1024, device="cuda", dtype=torch.float16) for _ in range(ranks)]
    ys = [torch.full((4096,), float("nan"), device="cuda", dtype=torch.float16) for _ in range(ranks)]
    peers = torch.tensor([x.data_ptr() for x in xs], device="cuda", dtype=torch.int64)
    torch.cuda.synchronize()
    for r in range(ranks):
        gather(xs[r], ys[r], peers, r, stream=streams[r])
    torch.cuda.synchronize()
    whole = torch.cat(xs)
    for r in range(ranks):
        ok = bool(torch.equal(ys[r], whole))
        print(f"{'ok  ' if ok else 'FAIL'} all_gather rank {r}: {'bit-exact' if ok else 'differs from'} the concatenated shards")
        passed += ok
        failed += not ok
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
