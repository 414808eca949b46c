#!/usr/bin/env python3
"""Writes the fused GEMM + reduce-scatter of the Axe paper (§4.3) in Axe IR: the
tensor-parallel MLP down-projection, where device r of R holds A_r = A[:, r K/R : (r+1) K/R]
and B_r = B[r K/R : (r+1) K/R, :] and keeps rows r M/R .. (r+1) M/R - 1 of
C = sum_r A_r B_r (f16, f32 accumulation).

The GEMM is gen_gemm_tma.py's TMA + async wgmma pipeline, in an `axe.mesh [R]`; its epilogue
is the reduce-scatter, dispatched from the layouts of two distributed tensors (P, the partial
tiles, and F, their flags: see `gen_gemm_tma.reduce_scatter_views`):
  * each device walks the other devices' row tiles first: such a tile's partial product is
    pushed (remote stores over NVLink) into its owner's slot for this device, and its flag
    set there (`axe.signal`: release at system scope) — communication that overlaps the
    wgmma of the following tiles;
  * its own row tiles come last: each waits for the R - 1 peers' flags of that tile
    (`axe.signal_wait`: acquire at system scope), adds their partial tiles (local reads) to
    its accumulator and stores the sum.
Flags hold an epoch (an argument the host increments per launch), so they are never reset.

    gen_gemm_rs.py M N K R [BN S] > gemm_rs_MxNxK_rR.mlir   (K: the whole K; each device gets K/R)
    gen_gemm_rs.py --ws M N K R SMS COOPERATIVE [defer|bulk|async|async2|pushers|commC|reduce]   (the warp-specialized form)
    gen_gemm_rs.py --all DIR                             (SHAPES x RANKS, both forms)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_gemm_ws  # noqa: E402
from gen_gemm_tma import kernel  # noqa: E402

# Llama-3.1-8B and -70B MLP down-projections at batch 8192 (M, N, K): [M, inter] x [inter, hidden].
SHAPES = [(8192, 4096, 14336), (8192, 8192, 28672)]
RANKS = [1, 2, 4, 8]
# Per device: 128x256 tiles, 4 stages, grouped raster of 8, split release (gen_gemm_tma.choose).
BN, STAGES = 256, 4


def name(m, n, k, ranks, bn=BN, stages=STAGES):
    return f"gemm_rs_{m}x{n}x{k}_r{ranks}" + ("" if (bn, stages) == (BN, STAGES) else f"_bn{bn}_s{stages}")


def write(m, n, k, ranks, bn=BN, stages=STAGES):
    assert k % ranks == 0
    return kernel(m, n, k // ranks, bn, stages, 1, 8, "sm_90a", 1, "f16", "f16", fname=name(m, n, k, ranks, bn, stages),
                  ranks=ranks)


def name_ws(m, n, k, ranks, sms=132, cooperative=True, defer=False, bulk=False, ablate_self=False, reduce=False,
            ablate=(), async_push=0, pushers=False, split_regs=None, comm=0):
    return (f"gemm_rs_{m}x{n}x{k}_r{ranks}_ws" + ("_r" if reduce else "_b" if bulk else "_d" if defer else "")
            + ("" if sms == 132 else f"_sm{sms}") + ("" if cooperative else "_nc") + ("_self" if ablate_self else "")
            + "".join(f"_no{a}" for a in ablate) + ("" if not async_push else f"_a{async_push}") + ("_w" if pushers else "")
            + ("" if not split_regs else f"_r{split_regs[0]}") + ("" if not comm else f"_c{comm}"))


def write_ws(m, n, k, ranks, sms=132, cooperative=True, defer=False, bulk=False, ablate_self=False, reduce=False,
             ablate=(), async_push=0, pushers=False, split_regs=None, comm=0):
    """The same GEMM + reduce-scatter on gen_gemm_ws.py's warp-specialized persistent kernel
    (128x256 tiles, 4 stages, grouped raster of 8, setmaxnreg, TMA stores for the own rows):
    the consumer warpgroups push and publish each 64-row half of a peer's tile themselves,
    while the producer warp already loads the next tile. SMS: CTAs per device (one per SM);
    fewer, and not `cooperative`, for ranks simulated on one GPU. DEFER: each pushed tile is
    published one tile later (gen_gemm_ws.kernel's `defer`); BULK: pushed by TMA bulk copies
    into the peer's memory and published one tile later (`bulk`). ABLATE_SELF: the ablation
    that pushes into this device's own memory (timing only: the sums are wrong). REDUCE: no
    partial tiles; own rows first, then the partials added into their owners' rows by TMA
    bulk reductions (gen_gemm_ws.kernel's `reduce`; arguments a, b, y, flags, epoch). ABLATE
    (with BULK; timing only): "own", the own tiles neither wait nor add partials; "flag" too,
    no tile is published (gen_gemm_ws.kernel's `ablate_own`, `ablate_flags`). ASYNC_PUSH (with
    BULK): the parts' stores are async TMA stores through 1 or 2 shared tiles per warpgroup
    (gen_gemm_ws.kernel's `async_push`). PUSHERS: pusher warps push and publish (`pushers`).
    COMM: the grid's last COMM CTAs only communicate (`comm`; p and flags twice as long)."""
    assert k % ranks == 0
    return gen_gemm_ws.kernel(m, n, k // ranks, 256, 4, "f16", 1, 8, sms, 1, 1, ranks=ranks,
                              fname=name_ws(m, n, k, ranks, sms, cooperative, defer or bulk, bulk, ablate_self, reduce,
                                            ablate, async_push, pushers, split_regs, comm),
                              cooperative=cooperative, defer=defer or bulk, bulk=bulk, ablate_self=ablate_self,
                              reduce=reduce, ablate_own="own" in ablate, ablate_flags="flag" in ablate,
                              async_push=async_push, pushers=pushers, comm=comm,
                              **({"split_regs": split_regs} if split_regs else {}))


if __name__ == "__main__":
    if sys.argv[1] == "--all":
        for (m, n, k) in SHAPES:
            for r in RANKS:
                with open(f"{sys.argv[2]}/{name(m, n, k, r)}.mlir", "w") as f:
                    f.write(write(m, n, k, r))
                # One device's GEMM alone (its K slice, R = 1: no communication), the floor
                # that dist_gemm_rs.py times beside the fused kernel.
                if r > 1:
                    with open(f"{sys.argv[2]}/{name(m, n, k // r, 1)}.mlir", "w") as f:
                        f.write(write(m, n, k // r, 1))
                # The warp-specialized form, and its one-device GEMM alone (R = 1 at K / R).
                for defer, bulk in ((False, False), (True, False), (True, True)):
                    with open(f"{sys.argv[2]}/{name_ws(m, n, k, r, defer=defer, bulk=bulk)}.mlir", "w") as f:
                        f.write(write_ws(m, n, k, r, defer=defer, bulk=bulk))
                    if r > 1:  # the ablation: the same pushes into this device's own memory
                        with open(f"{sys.argv[2]}/{name_ws(m, n, k, r, defer=defer, bulk=bulk, ablate_self=True)}.mlir", "w") as f:
                            f.write(write_ws(m, n, k, r, defer=defer, bulk=bulk, ablate_self=True))
                # The bulk form with async pushes (1 and 2 shared tiles per warpgroup), and the
                # ablations that drop the own tiles' waits and reads, then the flags too, then
                # NVLink (timing only: dist_gemm_rs.py --ablation).
                for a in (1, 2):
                    with open(f"{sys.argv[2]}/{name_ws(m, n, k, r, bulk=True, defer=True, async_push=a)}.mlir", "w") as f:
                        f.write(write_ws(m, n, k, r, bulk=True, defer=True, async_push=a))
                # The pusher-warp form.
                with open(f"{sys.argv[2]}/{name_ws(m, n, k, r, pushers=True)}.mlir", "w") as f:
                    f.write(write_ws(m, n, k, r, pushers=True))
                if r > 1:
                    ablations: tuple[tuple[tuple[str, ...], bool], ...] = (
                        (("own",), False), (("own", "flag"), False), (("own", "flag"), True))
                    for ablate, self_ in ablations:
                        nm = name_ws(m, n, k, r, bulk=True, defer=True, ablate_self=self_, ablate=ablate)
                        with open(f"{sys.argv[2]}/{nm}.mlir", "w") as f:
                            f.write(write_ws(m, n, k, r, bulk=True, defer=True, ablate_self=self_, ablate=ablate))
                    # The same ablations of the pusher form, and its pushes into its own memory.
                    pusher_ablations: tuple[tuple[tuple[str, ...], bool], ...] = (
                        (("own",), False), (("own", "flag"), False), (("own", "flag"), True), ((), True))
                    for ablate, self_ in pusher_ablations:
                        nm = name_ws(m, n, k, r, pushers=True, ablate_self=self_, ablate=ablate)
                        with open(f"{sys.argv[2]}/{nm}.mlir", "w") as f:
                            f.write(write_ws(m, n, k, r, pushers=True, ablate_self=self_, ablate=ablate))
                # The reduce form (partials added into the owners' rows by TMA bulk reductions).
                with open(f"{sys.argv[2]}/{name_ws(m, n, k, r, reduce=True)}.mlir", "w") as f:
                    f.write(write_ws(m, n, k, r, reduce=True))
                if r > 1:
                    with open(f"{sys.argv[2]}/{name_ws(m, n, k // r, 1)}.mlir", "w") as f:
                        f.write(write_ws(m, n, k // r, 1))
    elif sys.argv[1] == "--ws":
        m, n, k, r, sms, coop = (int(a) for a in sys.argv[2:8])
        form = sys.argv[8:9]
        apush = {"async": 1, "async2": 2}.get(form[0], 0) if form else 0
        comm = int(form[0][4:]) if form and form[0].startswith("comm") else 0
        print(write_ws(m, n, k, r, sms, bool(coop), form == ["defer"] or apush > 0, form == ["bulk"] or apush > 0,
                       reduce=form == ["reduce"], async_push=apush, pushers=form == ["pushers"], comm=comm), end="")
    else:
        m, n, k, r = (int(a) for a in sys.argv[1:5])
        print(write(m, n, k, r, *(int(a) for a in sys.argv[5:7])), end="")
