"""The fused GEMM + reduce-scatter of the Axe paper (§4.3) in Axe IR: the tensor-parallel MLP
down-projection, where device r of R holds A_r = A[:, r K/R : (r+1) K/R] and
B_r = B[r K/R : (r+1) K/R, :] and keeps rows r M/R .. (r+1) M/R - 1 of C = sum_r A_r B_r (f16,
f32 accumulation).

The GEMM is axe_gen.gemm_tma's TMA + async wgmma pipeline, in an `axe.mesh [R]`; its epilogue
is the reduce-scatter, dispatched from the layouts of two distributed tensors (P, the partial
tiles, and F, their flags: see `axe_gen.gemm_parts.reduce_scatter_epilogue`):
  * each device walks the other devices' row tiles first: such a tile's partial product is
    pushed (remote stores over NVLink) into its owner's slot for this device, and its flag
    set there (`axe.signal`: release at system scope) — communication that overlaps the
    wgmma of the following tiles;
  * its own row tiles come last: each waits for the R - 1 peers' flags of that tile
    (`axe.signal_wait`: acquire at system scope), adds their partial tiles (local reads) to
    its accumulator and stores the sum.
Flags hold an epoch (an argument the host increments per launch), so they are never reset.
`write_ws` is the same on axe_gen.gemm_ws's warp-specialized persistent kernel.

Both are written through the typed emitter (`axe_gen.emitter`).

    PYTHONPATH=python python3 -m axe_gen.gemm_rs M N K R [BN S] > gemm_rs_MxNxK_rR.mlir
        (K: the whole K; each device gets K/R)
    ... --ws M N K R SMS COOPERATIVE [defer|bulk|async|async2|pushers|commC|reduce]   (the warp-specialized form)
    ... --all DIR                             (SHAPES x RANKS, both forms)
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from . import gemm_tma, gemm_ws

# Llama-3.1-8B and -70B MLP down-projections at batch 8192 (M, N, K): [M, inter] x [inter, hidden].
SHAPES = [(8192, 4096, 14336), (8192, 8192, 28672)]
RANKS = [1, 2, 4, 8]
# Per device: 128x256 tiles, 4 stages, grouped raster of 8, split release (gemm_tma.choose).
BN, STAGES = 256, 4


def name(m: int, n: int, k: int, ranks: int, bn: int = BN, stages: int = STAGES) -> str:
    return f"gemm_rs_{m}x{n}x{k}_r{ranks}" + ("" if (bn, stages) == (BN, STAGES) else f"_bn{bn}_s{stages}")


def write(m: int, n: int, k: int, ranks: int, bn: int = BN, stages: int = STAGES) -> str:
    """The fused kernel on gemm_tma's pipeline (K: the whole K)."""
    assert k % ranks == 0
    return gemm_tma.kernel(m, n, k // ranks, bn, stages, 1, 8, "sm_90a", 1, "f16", "f16",
                           fname=name(m, n, k, ranks, bn, stages), ranks=ranks)


def name_ws(m: int, n: int, k: int, ranks: int, sms: int = 132, cooperative: bool = True, defer: bool = False,
            bulk: bool = False, ablate_self: bool = False, reduce: bool = False, ablate: Sequence[str] = (),
            async_push: int = 0, pushers: bool = False, split_regs: tuple[int, int] | None = None,
            comm: int = 0) -> str:
    return (f"gemm_rs_{m}x{n}x{k}_r{ranks}_ws" + ("_r" if reduce else "_b" if bulk else "_d" if defer else "")
            + ("" if sms == 132 else f"_sm{sms}") + ("" if cooperative else "_nc") + ("_self" if ablate_self else "")
            + "".join(f"_no{a}" for a in ablate) + ("" if not async_push else f"_a{async_push}") + ("_w" if pushers else "")
            + ("" if not split_regs else f"_r{split_regs[0]}") + ("" if not comm else f"_c{comm}"))


def write_ws(m: int, n: int, k: int, ranks: int, sms: int = 132, cooperative: bool = True, defer: bool = False,
             bulk: bool = False, ablate_self: bool = False, reduce: bool = False, ablate: Sequence[str] = (),
             async_push: int = 0, pushers: bool = False, split_regs: tuple[int, int] | None = None,
             comm: int = 0) -> str:
    """The same GEMM + reduce-scatter on axe_gen.gemm_ws's warp-specialized persistent kernel
    (128x256 tiles, 4 stages, grouped raster of 8, setmaxnreg, TMA stores for the own rows):
    the consumer warpgroups push and publish each 64-row half of a peer's tile themselves,
    while the producer warp already loads the next tile. SMS: CTAs per device (one per SM);
    fewer, and not `cooperative`, for ranks simulated on one GPU. DEFER: each pushed tile is
    published one tile later (gemm_ws.Options' `defer`); BULK: pushed by TMA bulk copies
    into the peer's memory and published one tile later (`bulk`). ABLATE_SELF: the ablation
    that pushes into this device's own memory (timing only: the sums are wrong). REDUCE: no
    partial tiles; own rows first, then the partials added into their owners' rows by TMA
    bulk reductions (gemm_ws.Options' `reduce`; arguments a, b, y, flags, epoch). ABLATE
    (with BULK; timing only): "own", the own tiles neither wait nor add partials; "flag" too,
    no tile is published (gemm_ws.Options' `ablate_own`, `ablate_flags`). ASYNC_PUSH (with
    BULK): the parts' stores are async TMA stores through 1 or 2 shared tiles per warpgroup
    (gemm_ws.Options' `async_push`). PUSHERS: pusher warps push and publish (`pushers`).
    COMM: the grid's last COMM CTAs only communicate (`comm`; p and flags twice as long)."""
    assert k % ranks == 0
    options = gemm_ws.Options(
        256, 4, "f16", 1, 8, sms, 1, 1, ranks=ranks,
        fname=name_ws(m, n, k, ranks, sms, cooperative, defer or bulk, bulk, ablate_self, reduce, ablate, async_push,
                      pushers, split_regs, comm),
        cooperative=cooperative, defer=defer or bulk, bulk=bulk, ablate_self=ablate_self, reduce=reduce,
        ablate_own="own" in ablate, ablate_flags="flag" in ablate, async_push=async_push, pushers=pushers,
        comm=comm, split_regs=split_regs or (gemm_ws.PRODUCER_REGS, gemm_ws.CONSUMER_REGS))
    return gemm_ws.generate(m, n, k // ranks, options)


def write_all(outdir: str) -> None:
    """SHAPES x RANKS in both forms, the one-device GEMMs and the ablations (--all)."""

    def out(nm: str, text: str) -> None:
        with open(os.path.join(outdir, f"{nm}.mlir"), "w") as f:
            f.write(text)

    for (m, n, k) in SHAPES:
        for r in RANKS:
            out(name(m, n, k, r), write(m, n, k, r))
            # One device's GEMM alone (its K slice, R = 1: no communication), the floor
            # that dist_gemm_rs.py times beside the fused kernel.
            if r > 1:
                out(name(m, n, k // r, 1), write(m, n, k // r, 1))
            # The warp-specialized form, and its one-device GEMM alone (R = 1 at K / R).
            for defer, bulk in ((False, False), (True, False), (True, True)):
                out(name_ws(m, n, k, r, defer=defer, bulk=bulk), write_ws(m, n, k, r, defer=defer, bulk=bulk))
                if r > 1:  # the ablation: the same pushes into this device's own memory
                    out(name_ws(m, n, k, r, defer=defer, bulk=bulk, ablate_self=True),
                        write_ws(m, n, k, r, defer=defer, bulk=bulk, ablate_self=True))
            # The bulk form with async pushes (1 and 2 shared tiles per warpgroup), and the
            # ablations that drop the own tiles' waits and reads, then the flags too, then
            # NVLink (timing only: dist_gemm_rs.py --ablation).
            for a in (1, 2):
                out(name_ws(m, n, k, r, bulk=True, defer=True, async_push=a),
                    write_ws(m, n, k, r, bulk=True, defer=True, async_push=a))
            # The pusher-warp form.
            out(name_ws(m, n, k, r, pushers=True), write_ws(m, n, k, r, pushers=True))
            if r > 1:
                ablations: tuple[tuple[tuple[str, ...], bool], ...] = (
                    (("own",), False), (("own", "flag"), False), (("own", "flag"), True))
                for ablate, self_ in ablations:
                    out(name_ws(m, n, k, r, bulk=True, defer=True, ablate_self=self_, ablate=ablate),
                        write_ws(m, n, k, r, bulk=True, defer=True, ablate_self=self_, ablate=ablate))
                # The same ablations of the pusher form, and its pushes into its own memory.
                pusher_ablations: tuple[tuple[tuple[str, ...], bool], ...] = (
                    (("own",), False), (("own", "flag"), False), (("own", "flag"), True), ((), True))
                for ablate, self_ in pusher_ablations:
                    out(name_ws(m, n, k, r, pushers=True, ablate_self=self_, ablate=ablate),
                        write_ws(m, n, k, r, pushers=True, ablate_self=self_, ablate=ablate))
            # The reduce form (partials added into the owners' rows by TMA bulk reductions).
            out(name_ws(m, n, k, r, reduce=True), write_ws(m, n, k, r, reduce=True))
            if r > 1:
                out(name_ws(m, n, k // r, 1), write_ws(m, n, k // r, 1))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--all", metavar="DIR", help="SHAPES x RANKS, both forms, into DIR")
    ap.add_argument("--ws", action="store_true", help="the warp-specialized form: M N K R SMS COOPERATIVE [FORM]")
    ap.add_argument("params", nargs="*", help="M N K R [BN S], or with --ws M N K R SMS COOPERATIVE [FORM]")
    args = ap.parse_args(argv)
    if args.all:
        write_all(args.all)
        return
    p = args.params
    if args.ws:
        if len(p) not in (6, 7):
            ap.error("--ws M N K R SMS COOPERATIVE [defer|bulk|async|async2|pushers|commC|reduce]")
        m, n, k, r, sms, coop = (int(a) for a in p[:6])
        form = p[6:7]
        apush = {"async": 1, "async2": 2}.get(form[0], 0) if form else 0
        comm = int(form[0][4:]) if form and form[0].startswith("comm") else 0
        sys.stdout.write(write_ws(m, n, k, r, sms, bool(coop), form == ["defer"] or apush > 0,
                                  form == ["bulk"] or apush > 0, reduce=form == ["reduce"], async_push=apush,
                                  pushers=form == ["pushers"], comm=comm))
        return
    if len(p) not in (4, 6):
        ap.error("M N K R [BN S]")
    m, n, k, r = (int(a) for a in p[:4])
    sys.stdout.write(write(m, n, k, r, *(int(a) for a in p[4:6])))


if __name__ == "__main__":
    main()
