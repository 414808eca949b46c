"""Launching Axe mesh kernels: the calling convention of a function that `axe.mesh` lowered
(its own arguments, then the rank and one peer table per symmetric buffer read or written on
a peer, in the order the launch manifest lists them), and the fused GEMM + reduce-scatter of
bench/gpu/gen_gemm_rs.py on real ranks (symmetric memory from PyTorch) or on ranks simulated
on one GPU (R instances of the kernel, one per stream)."""
import os
import sys

import torch


def call_args(kernel, own, rank, peers):
    """`own`: the function's own arguments, in order; `peers`: {argument index of a symmetric
    buffer: its peer table (int64 device addresses, one per rank)}."""
    args = list(own)
    for spec in kernel.arguments[len(own):]:
        if spec["kind"] == "rank":
            args.append(rank)
        elif spec["kind"] == "peer_table":
            args.append(peers[spec["of"]])
        else:
            raise ValueError(f"unexpected mesh argument {spec}")
    return args


def symmetric(n, dtype, group):
    """A symmetric buffer of n elements on every rank and the table of its device addresses
    (PyTorch's symmetric memory: `empty`, `rendezvous`, `buffer_ptrs`)."""
    from torch.distributed import _symmetric_memory as symm
    t = symm.empty(n, device="cuda", dtype=dtype)
    handle = symm.rendezvous(t, group.group_name)
    return t, torch.tensor(list(handle.buffer_ptrs), device="cuda", dtype=torch.int64)


def rs_buffers(kernel):
    """Element counts of the GEMM + reduce-scatter's symmetric buffers, as its launch manifest
    declares them: P (arguments 2: one M/R x N slot per source rank, M x N in all) and the
    flags (4: one per row tile, source and column tile)."""
    return kernel.arguments[2]["extent"], kernel.arguments[4]["extent"]


class GemmRs:
    """Rank `rank`'s side of the fused GEMM + reduce-scatter: `a` (M x K/R), `b` (K/R x N);
    calling it returns this rank's M/R x N rows of the sum. `buffers` = (p, flags, p_peers,
    flag_peers): symmetric buffers (zeroed flags) and their peer tables. Each call is one
    launch with the next epoch; the host must keep launches apart across ranks (a launch
    overwrites the partial tiles that the previous one's own-tile epilogues read)."""

    def __init__(self, kernel, a, b, m, n, ranks, rank, buffers):
        self.kernel, self.rank = kernel, rank
        self.p, self.flags, self.p_peers, self.flag_peers = buffers
        self.y = torch.empty((m // ranks) * n, device=a.device, dtype=torch.float16)
        self.a, self.b, self.m, self.n, self.ranks = a, b, m, n, ranks
        self.epoch = 0

    def __call__(self, stream=None):
        self.epoch += 1
        own = [self.a, self.b, self.p, self.y, self.flags, self.epoch]
        self.kernel(*call_args(self.kernel, own, self.rank, {2: self.p_peers, 4: self.flag_peers}), stream=stream)
        return self.y.view(self.m // self.ranks, self.n)

    @classmethod
    def distributed(cls, kernel, a, b, m, n, ranks, rank, group):
        """On real ranks: the buffers from PyTorch's symmetric memory."""
        import torch.distributed as dist
        np_, nf = rs_buffers(kernel)
        p, p_peers = symmetric(np_, torch.float16, group)
        flags, flag_peers = symmetric(nf, torch.int32, group)
        flags.zero_()
        torch.cuda.synchronize()
        dist.barrier(group)
        return cls(kernel, a, b, m, n, ranks, rank, (p, flags, p_peers, flag_peers))

    @classmethod
    def simulated(cls, kernel, a_slices, b_slices, m, n):
        """R instances on one GPU: the peer tables point at the R instances' buffers."""
        ranks = len(a_slices)
        np_, nf = rs_buffers(kernel)
        ps = [torch.empty(np_, device="cuda", dtype=torch.float16) for _ in range(ranks)]
        fs = [torch.zeros(nf, device="cuda", dtype=torch.int32) for _ in range(ranks)]
        p_peers = torch.tensor([t.data_ptr() for t in ps], device="cuda", dtype=torch.int64)
        f_peers = torch.tensor([t.data_ptr() for t in fs], device="cuda", dtype=torch.int64)
        return [cls(kernel, a_slices[r], b_slices[r], m, n, ranks, r, (ps[r], fs[r], p_peers, f_peers))
                for r in range(ranks)]


def run_ranks(worker, ranks, make_args, timeout):
    """Runs `worker` in one spawned process per rank (`make_args(rank, port, results)` gives
    its arguments; each process puts `(rank, lines)` on `results`), prints every rank's lines
    and a summary of the `ok` / `FAIL` lines, and exits non-zero on a failure."""
    import torch.multiprocessing as mp
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    port = 29500 + os.getpid() % 1000
    procs = [ctx.Process(target=worker, args=make_args(r, port, results)) for r in range(ranks)]
    for p in procs:
        p.start()
    out = dict(results.get(timeout=timeout) for _ in procs)
    # Every rank has reported. A rank process that then does not exit (seen on the 4-GPU
    # machines: runs with many symmetric buffers printed every rank's results and then ran until
    # their time limit; where the processes hung was not established) is killed after a grace
    # period and said so; its results stand.
    stuck = []
    for r, p in enumerate(procs):
        p.join(timeout=30)
        if p.is_alive():
            p.kill()
            p.join()
            stuck.append(r)
    lines = [line for r in sorted(out) for line in out[r]]
    print("\n".join(lines))
    if stuck:
        print(f"note: rank process(es) {stuck} reported, then did not exit within 30 s; killed")
    failed = sum(line.startswith("FAIL") for line in lines)
    checks = sum(line.startswith(("ok", "FAIL")) for line in lines)
    print(f"{checks - failed} passed, {failed} failed")
    sys.exit(1 if failed or any(p.exitcode for r, p in enumerate(procs) if r not in stuck) else 0)
