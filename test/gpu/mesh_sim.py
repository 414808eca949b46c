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

import axe_runtime
import torch

# GEMM + reduce-scatter shapes small enough for R simulated ranks (M, N, K, R, kernel name
# suffix): the non-specialized kernel, and the warp-specialized persistent one (also in its
# deferred-publishing form, `_d`, pushing with TMA bulk copies, `_b`, with async ones through
# one or two shared tiles, `_b_a1` / `_b_a2`, handing the pushes to pusher warps, `_w`, or to
# two communication CTAs, `_c2`, and adding into the owners' rows with TMA bulk reductions,
# `_r`) with 16 CTAs per
# rank and an ordinary (not cooperative) launch, so that R of them run at once (what CUDA does
# with this few CTAs on an otherwise idle GPU, not something it guarantees: a hang here may be
# that rather than a kernel bug; mesh_dist.py runs the cooperative kernels on real peers).
RS_SIM = [(2048, 1024, 4096, 2, ""), (4096, 256, 4096, 4, ""),
          (2048, 1024, 4096, 2, "_ws_sm16_nc"), (4096, 256, 4096, 4, "_ws_sm16_nc"),
          (2048, 1024, 4096, 2, "_ws_d_sm16_nc"), (4096, 256, 4096, 4, "_ws_d_sm16_nc"),
          (2048, 1024, 4096, 2, "_ws_b_sm16_nc"), (4096, 256, 4096, 4, "_ws_b_sm16_nc"),
          (2048, 1024, 4096, 2, "_ws_r_sm16_nc"), (4096, 256, 4096, 4, "_ws_r_sm16_nc"),
          (2048, 1024, 4096, 2, "_ws_b_sm16_nc_a1"), (4096, 256, 4096, 4, "_ws_b_sm16_nc_a1"),
          (2048, 1024, 4096, 2, "_ws_b_sm16_nc_a2"), (4096, 256, 4096, 4, "_ws_b_sm16_nc_a2"),
          (2048, 1024, 4096, 2, "_ws_sm16_nc_w"), (4096, 256, 4096, 4, "_ws_sm16_nc_w"),
          (2048, 1024, 4096, 2, "_ws_sm16_nc_c2"), (4096, 256, 4096, 4, "_ws_sm16_nc_c2")]


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
    # Ring shift inside a kernel (remote stores, a flag per CTA): rank r's Y is rank r-1's X,
    # bit-exact, over two launches (epochs 1 and 2).
    from axe_bench.dist import call_args
    ring = axe_runtime.load(f"{d}/mesh_ring_shift_r{ranks}_kernel.json")
    xs = [torch.randn(4096, device="cuda", dtype=torch.float16) for _ in range(ranks)]
    ps = [torch.full((4096,), float("nan"), device="cuda", dtype=torch.float16) for _ in range(ranks)]
    fs = [torch.zeros(4, device="cuda", dtype=torch.int32) for _ in range(ranks)]
    p_peers = torch.tensor([t.data_ptr() for t in ps], device="cuda", dtype=torch.int64)
    f_peers = torch.tensor([t.data_ptr() for t in fs], device="cuda", dtype=torch.int64)
    for epoch in (1, 2):
        ys = [torch.full((4096,), float("nan"), device="cuda", dtype=torch.float16) for _ in range(ranks)]
        torch.cuda.synchronize()
        for r in range(ranks):
            ring(*call_args(ring, [xs[r], ps[r], ys[r], fs[r], epoch], r, {1: p_peers, 3: f_peers}), stream=streams[r])
        torch.cuda.synchronize()
        for r in range(ranks):
            ok = bool(torch.equal(ys[r], xs[(r - 1) % ranks]))
            print(f"{'ok  ' if ok else 'FAIL'} ring_shift epoch {epoch} rank {r}: {'bit-exact' if ok else 'differs from'} rank {(r - 1) % ranks}'s X")
            passed += ok
            failed += not ok
    # The fused GEMM + reduce-scatter (axe_gen.gemm_rs) with R simulated ranks: each
    # instance pushes the other ranks' partial tiles and waits on flags for its own, so all
    # R grids must be resident at once (R x grid <= 132 SMs, one CTA each): small shapes.
    from axe_bench.dist import GemmRs
    for (m, n, k, r, suffix) in RS_SIM:
        kern = axe_runtime.load(f"{d}/gemm_rs_{m}x{n}x{k}_r{r}{suffix}_kernel.json")
        g = torch.Generator(device="cuda").manual_seed(7)
        a = torch.randn(m, k, device="cuda", dtype=torch.float16, generator=g) * 0.1
        b = torch.randn(k, n, device="cuda", dtype=torch.float16, generator=g) * 0.1
        kr, rows = k // r, m // r
        inst = GemmRs.simulated(kern, [a[:, i * kr:(i + 1) * kr].contiguous() for i in range(r)],
                                [b[i * kr:(i + 1) * kr].contiguous() for i in range(r)], m, n)
        want = a.float() @ b.float()
        streams = [torch.cuda.Stream() for _ in range(r)]
        for launch in (1, 2):  # the second launch checks the epochs (flags are never reset)
            for x in inst:
                x.y.fill_(float("nan"))
            torch.cuda.synchronize()
            outs = [x(stream=streams[i]) for i, x in enumerate(inst)]
            torch.cuda.synchronize()
            for i in range(r):
                got = outs[i].float()
                err = (got - want[i * rows:(i + 1) * rows]).abs().max().item()
                ok = bool(torch.isfinite(got).all()) and err <= 2e-2
                print(f"{'ok  ' if ok else 'FAIL'} gemm_rs{suffix} {m}x{n}x{k} R={r} launch {launch} rank {i}: max abs error {err:.3g} against the f32 product")
                passed += ok
                failed += not ok
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
