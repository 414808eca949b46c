"""Launching Axe mesh kernels: the calling convention of a function that `axe.mesh` lowered
(its own arguments, then the rank and one peer table per symmetric buffer read or written on
a peer, in the order the launch manifest lists them), and the fused GEMM + reduce-scatter of
`axe_gen.gemm_rs` on real ranks (symmetric memory from PyTorch) or on ranks simulated on one
GPU (R instances of the kernel, one per stream). Used by test/gpu/mesh_sim.py and mesh_dist.py
and by bench/gpu/dist_gemm_rs.py and dist_mlp.py."""
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


def rs_arguments(kernel):
    """The GEMM + reduce-scatter's buffer arguments after a and b, by its launch manifest:
    (p, y, flags) for the form with partial tiles (a, b, p, y, flags, epoch: P and the flags
    symmetric, y local), (y, flags) for the `reduce` form (a, b, y, flags, epoch: Y and the
    flags symmetric, the peers adding into Y). Returns (names, the symmetric ones' indices)."""
    own = sum(1 for s in kernel.arguments if s["kind"] in ("buffer", "scalar"))
    names = ("p", "y", "flags") if own == 6 else ("y", "flags")
    peers = {s["of"] for s in kernel.arguments if s["kind"] == "peer_table"}
    return names, peers


DTYPES = {"f16": torch.float16, "i32": torch.int32}


class GemmRs:
    """Rank `rank`'s side of the fused GEMM + reduce-scatter: `a` (M x K/R), `b` (K/R x N);
    calling it returns this rank's M/R x N rows of the sum. `buffers`: {argument index: (its
    symmetric buffer, its peer table)} for every buffer the kernel reaches on peers (flags
    zeroed); other buffers are allocated here. Each call is one launch with the next epoch;
    with partial tiles (P) the host must keep launches apart across ranks (a launch
    overwrites the partial tiles that the previous one's own-tile epilogues read); the
    `reduce` form needs nothing between launches by its protocol (each device's launch ends
    only once its peers have added into its rows, and they add only after its new launch
    zeroed them), though the runners still keep launches apart."""

    def __init__(self, kernel, a, b, m, n, ranks, rank, buffers):
        self.kernel, self.rank, self.buffers = kernel, rank, buffers
        names, _ = rs_arguments(kernel)
        self.bufs = []
        for i, _name in enumerate(names, start=2):
            if i in buffers:
                self.bufs.append(buffers[i][0])
            else:
                spec = kernel.arguments[i]
                self.bufs.append(torch.empty(spec["extent"], device=a.device, dtype=DTYPES[spec["dtype"]]))
        self.y = self.bufs[names.index("y")]
        self.a, self.b, self.m, self.n, self.ranks = a, b, m, n, ranks
        self.epoch = 0

    def __call__(self, stream=None):
        self.epoch += 1
        own = [self.a, self.b, *self.bufs, self.epoch]
        tables = {i: t for i, (_, t) in self.buffers.items()}
        self.kernel(*call_args(self.kernel, own, self.rank, tables), stream=stream)
        return self.y.view(self.m // self.ranks, self.n)

    @classmethod
    def distributed(cls, kernel, a, b, m, n, ranks, rank, group):
        """On real ranks: the symmetric buffers from PyTorch's symmetric memory."""
        import torch.distributed as dist
        _, peers = rs_arguments(kernel)
        buffers = {}
        for i in sorted(peers):
            spec = kernel.arguments[i]
            buffers[i] = symmetric(spec["extent"], DTYPES[spec["dtype"]], group)
            if spec["dtype"] == "i32":  # flags
                buffers[i][0].zero_()
        torch.cuda.synchronize()
        dist.barrier(group)
        return cls(kernel, a, b, m, n, ranks, rank, buffers)

    @classmethod
    def simulated(cls, kernel, a_slices, b_slices, m, n):
        """R instances on one GPU: the peer tables point at the R instances' buffers."""
        ranks = len(a_slices)
        _, peers = rs_arguments(kernel)
        per_rank = [{} for _ in range(ranks)]
        for i in sorted(peers):
            spec = kernel.arguments[i]
            ts = [torch.zeros(spec["extent"], device="cuda", dtype=DTYPES[spec["dtype"]]) for _ in range(ranks)]
            table = torch.tensor([t.data_ptr() for t in ts], device="cuda", dtype=torch.int64)
            for r in range(ranks):
                per_rank[r][i] = (ts[r], table)
        return [cls(kernel, a_slices[r], b_slices[r], m, n, ranks, r, per_rank[r]) for r in range(ranks)]


class AgGemm:
    """Rank `rank`'s side of `axe.matmul ... gather(%G, %F, %epoch)` (the all-gather of the
    tokens fused into the up/gate projection; arguments a, b, c, g, gf, epoch as
    axe_gen.matmul writes them): `a` is this rank's M/R x K rows, `b` its [K, N']
    weights, `c` its M x N'' output (all M rows). G and the flags are symmetric buffers
    (`buffers`: {argument index: (buffer, peer table)}, flags zeroed once). Each call is one
    launch with the next epoch; the kernel's start flags keep consecutive launches apart, so
    the host needs no barrier between them."""

    def __init__(self, kernel, a, b, c, rank, buffers):
        self.kernel, self.a, self.b, self.c, self.rank, self.buffers = kernel, a, b, c, rank, buffers
        self.epoch = 0

    def __call__(self, stream=None):
        self.epoch += 1
        own = [self.a, self.b, self.c, self.buffers[3][0], self.buffers[4][0], self.epoch]
        tables = {i: t for i, (_, t) in self.buffers.items()}
        self.kernel(*call_args(self.kernel, own, self.rank, tables), stream=stream)
        return self.c

    @staticmethod
    def _specs(kernel):
        return {i: kernel.arguments[i] for i in (3, 4)}

    @classmethod
    def distributed(cls, kernel, a, b, c, group):
        import torch.distributed as dist
        buffers = {}
        for i, spec in cls._specs(kernel).items():
            buffers[i] = symmetric(spec["extent"], DTYPES[spec["dtype"]], group)
            buffers[i][0].zero_()
        torch.cuda.synchronize()
        dist.barrier(group)
        return cls(kernel, a, b, c, dist.get_rank(group), buffers)

    @classmethod
    def simulated(cls, kernel, a_shards, b, cs):
        """R instances on one GPU (the peer tables point at the R instances' buffers)."""
        ranks = len(a_shards)
        per_rank = [{} for _ in range(ranks)]
        for i, spec in cls._specs(kernel).items():
            ts = [torch.zeros(spec["extent"], device="cuda", dtype=DTYPES[spec["dtype"]]) for _ in range(ranks)]
            table = torch.tensor([t.data_ptr() for t in ts], device="cuda", dtype=torch.int64)
            for r in range(ranks):
                per_rank[r][i] = (ts[r], table)
        return [cls(kernel, a_shards[r], b, cs[r], r, per_rank[r]) for r in range(ranks)]


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
