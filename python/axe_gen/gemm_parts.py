"""Parts that the GEMM generators share (`axe_gen.gemm_tma`, `axe_gen.moe_ws`, the GEMM +
reduce-scatter of `axe_gen.gemm_rs`): the grouped raster, the k16 fragments of the mma.sync
kernels, the SwiGLU pair of an accumulator, casts and stores, and the distributed tensors and
epilogue of a GEMM + reduce-scatter. Each writes its ops through an `Emitter` and returns the
values it defines."""
from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Sequence

from .emitter import F32, I32, At, Emitter, MemRef, Param, Scalar, Span, Tensor, Type, Value, row_major


def reg(shape: tuple[int, ...], elt: Scalar) -> Tensor:
    """A register tensor whose layout `axe-infer-layout` chooses."""
    return Tensor(shape, elt, "register")


def glob(shape: tuple[int, ...], elt: Scalar) -> Tensor:
    """A global tile (a slice) of unspecified layout."""
    return Tensor(shape, elt, "global")


def raster(e: Emitter, tile: Value, tiles_m: int, tiles_n: int, group: int, ctn: Value,
           sfx: str = "") -> tuple[Value, Value]:
    """The row and column tile of tile index `tile`, %bm and %bn (`ctn` holds `tiles_n`).
    Grouped raster (as Triton's GROUP_M) where `group` divides the row tiles: consecutive tiles
    walk `group` row tiles of A down one column tile of B before moving right, so both stay in
    L2; else row-major order. `sfx` suffixes every name it defines."""
    if group > 1 and tiles_m % group == 0:
        cgn = e.constant(group * tiles_n, name=f"cgn{sfx}")
        cg = e.constant(group, name=f"cg{sfx}")
        gid = e.divui(tile, cgn, name=f"gid{sfx}")
        gfirst = e.muli(gid, cg, name=f"gfirst{sfx}")
        gr = e.remui(tile, cgn, name=f"gr{sfx}")
        gm = e.remui(gr, cg, name=f"gm{sfx}")
        return e.addi(gfirst, gm, name=f"bm{sfx}"), e.divui(gr, cg, name=f"bn{sfx}")
    return e.divui(tile, ctn, name=f"bm{sfx}"), e.remui(tile, ctn, name=f"bn{sfx}")


def fragment_types(rows: int, bn: int, elt: Scalar) -> tuple[Tensor, Tensor]:
    """The register types of one k16 step's fragments: A's (`rows` x 16) and B's (16 x `bn`);
    their layouts follow from the gemm's accumulator (axe-infer-layout)."""
    return reg((rows, 16), elt), reg((16, bn), elt)


def fragment_buffers(e: Emitter, rows: int, bn: int, elt: Scalar) -> tuple[list[Value], list[Value]]:
    """Two buffers per operand for one k16 step's fragments, %fa0/%fb0 and %fa1/%fb1 (filled
    by k16_fragments in turn): ([fa0, fa1], [fb0, fb1])."""
    fa_t, fb_t = fragment_types(rows, bn, elt)
    fa, fb = [], []
    for f in range(2):
        fa.append(e.alloc(fa_t, name=f"fa{f}"))
        fb.append(e.alloc(fb_t, name=f"fb{f}"))
    return fa, fb


def k16_fragments(e: Emitter, a: Value, b: Value, rows: int, bn: int, elt: Scalar,
                  swizzle: tuple[int, int, int], step: int, fa: Value, fb: Value, tag: str) -> None:
    """The ldmatrix copies of k16 step `step` of a stage into the fragment buffers `fa` (`rows`
    x 16) and `fb` (16 x `bn`): `a` and `b` are the stage's shared A rows and B tile, `swizzle`
    their swizzle; `tag` names the slices."""
    sfa = Tensor((rows, 16), elt, "shared", None, swizzle)
    sfb = Tensor((16, bn), elt, "shared", None, swizzle)
    ssa = e.slice(a, [Span(0, rows), Span(16 * step, 16 * step + 16)], sfa, name=f"ssa_{tag}")
    ssb = e.slice(b, [Span(16 * step, 16 * step + 16), Span(0, bn)], sfb, name=f"ssb_{tag}")
    e.copy(ssa, fa, schedule="ldmatrix")
    e.copy(ssb, fb, schedule="ldmatrix")


def swiglu_pair(e: Emitter, acc: Value, rows: int, blk: int, p: int, by_rows: bool = False) -> Value:
    """silu(gate) * up for the p-th (gate, up) pair of `blk`-column blocks of the f32
    accumulator `acc` (`rows` rows): register slices of it, so no data moves. `by_rows`: the
    pair is of `blk`-row blocks instead, over `rows` columns (a swapped accumulator, W^T X^T)."""
    g0 = 2 * p * blk
    if by_rows:
        hr = reg((blk, rows), F32)
        gate, up = [Span(g0, g0 + blk), Span(0, rows)], [Span(g0 + blk, g0 + 2 * blk), Span(0, rows)]
    else:
        hr = reg((rows, blk), F32)
        gate, up = [Span(0, rows), Span(g0, g0 + blk)], [Span(0, rows), Span(g0 + blk, g0 + 2 * blk)]
    gv = e.slice(acc, gate, hr, name=f"gate{p}")
    uv = e.slice(acc, up, hr, name=f"up{p}")
    act = e.alloc(hr, name=f"act{p}")
    e.unary("silu", gv, act)
    e.binary("mul", act, uv, act)
    return act


def cast_store(e: Emitter, src: Value, reg_ty: Type, dst_ty: Type, view: Value, at: Sequence[Span | At],
               reg_name: str, dst_name: str) -> None:
    """`src` converted into a new register tensor `reg_name` (`reg_ty`, the output's element
    type) and stored to `dst_name`, the slice `at` of the global `view`."""
    r = e.alloc(reg_ty, name=reg_name)
    e.cast(src, r)
    e.copy(r, e.slice(view, at, dst_ty, name=dst_name))


def add_partial(e: Emitter, tag: str, acc: Value, col: Value, co: Value, row: Value, rows: int, width: int,
                partials: Value, elt: Scalar) -> None:
    """The adds of one peer's partial tile to the f32 register slice `acc` (`rows` x `width`):
    the block of `partials` (P, the GEMM + reduce-scatter's distributed partial tiles, element
    `elt`) at rows `row`, columns `col` + `co`, local memory read straight into the
    accumulator's layout and converted. `tag` names the new values."""
    pcc = e.addi(col, co, name=f"pcc{tag}")
    part = e.slice(partials, [At(row, rows), At(pcc, width)], glob((rows, width), elt), name=f"part{tag}")
    b16 = e.alloc(reg((rows, width), elt), name=f"in{tag}")
    e.copy(part, b16)
    b32 = e.alloc(reg((rows, width), F32), name=f"f{tag}")
    e.cast(b16, b32)
    e.binary("add", acc, b32, acc)


def accumulator_part(e: Emitter, acc: Value, c: int, width: int, part_acc: Type,
                     part: Type | None = None) -> tuple[Value, Value | None]:
    """%pacc{c}, columns c * width .. (c + 1) * width of the f32 register accumulator `acc`
    (64 rows; the part's type `part_acc`), and with `part` (the output's register type) its
    conversion into a new %part{c}. The epilogues convert each part right before it goes out,
    not the whole tile up front."""
    pacc = e.slice(acc, [Span(0, 64), Span(c * width, (c + 1) * width)], part_acc, name=f"pacc{c}")
    if part is None:
        return pacc, None
    pv = e.alloc(part, name=f"part{c}")
    e.cast(pacc, pv)
    return pacc, pv


# -- GEMM + reduce-scatter ------------------------------------------------------------------


def rs_types(m: int, n: int, bn: int, ranks: int, elt: Scalar, flag_rows: int = 128,
             p_blocks: bool = False) -> tuple[Tensor, Tensor, Tensor]:
    """The distributed tensors of a GEMM + reduce-scatter (see reduce_scatter_epilogue): P, the
    flags F (one per `flag_rows` rows of a row tile, source and column tile) and Y.
    `p_blocks`: P's slots are stored in 64 x 128 blocks, each contiguous in memory as two
    64 x 64 row-major halves, (64, 2, 64) : (64, 4096, 1), the order of an unswizzled shared
    tile of that layout, so that one 16 KiB bulk copy moves a block."""
    rows, tf_rows, tn = m // ranks, m // flag_rows, n // bn
    tp = Tensor((m, ranks * n), elt, "global", f"({ranks}, {rows}, {ranks}, {n}) : (1@gpuid, {n}, {rows * n}, 1)")
    if p_blocks:
        assert rows % 64 == 0 and n % 128 == 0
        tp = Tensor((m, ranks * n), elt, "global",
                    f"({ranks}, {rows // 64}, 64, {ranks}, {n // 128}, 2, 64) : "
                    f"(1@gpuid, {ranks * n * 64}, 64, {n * 64}, 8192, 4096, 1)")
    tf = Tensor((tf_rows, ranks * tn), I32, "global",
                f"({ranks}, {tf_rows // ranks}, {ranks}, {tn}) : (1@gpuid, {tn}, {tf_rows // ranks * tn}, 1)")
    return tp, tf, row_major(rows, n, elt)


def rs_staging_types(m: int, n: int, bn: int, elt: Scalar, flag_rows: int) -> tuple[Tensor, Tensor]:
    """The local views of rs_function's `staging` halves: %QV (2M x N) and %LFV (2 TM x TN)."""
    tm, tn = m // flag_rows, n // bn
    return row_major(2 * m, n, elt), row_major(2 * tm, tn, I32)


@dataclasses.dataclass
class RsViews:
    """A GEMM + reduce-scatter function's arguments and distributed views (rs_function): a, b,
    (p), y, flags, epoch; P, F, Y (the REDUCE form: no P; Y distributed by rows) and with
    staging QV, LFV."""

    a: Value
    b: Value
    y: Value
    flags: Value
    epoch: Value
    F: Value
    Y: Value
    p: Value | None = None
    P: Value | None = None
    QV: Value | None = None
    LFV: Value | None = None


@contextlib.contextmanager
def rs_function(e: Emitter, m: int, n: int, k: int, bn: int, ranks: int, elt: Scalar, name: str,
                flag_rows: int = 128, p_blocks: bool = False, staging: bool = False) -> Iterator[RsViews]:
    """The function, its `axe.mesh` and the views %P, %F, %Y of a GEMM + reduce-scatter
    (arguments a, b, p, y, flags, epoch: axe_bench.dist.GemmRs's order), as a region: the kernel goes
    inside. `staging`: p and flags are twice as long, and their second halves are this
    device's local views %QV (2M x N: rows M.. hold its partial tiles for the peers before they
    are sent) and %LFV (2 TM x TN flags: rows TM.. say a partial tile is staged)."""
    tp, tf, ty = rs_types(m, n, bn, ranks, elt, flag_rows, p_blocks)
    rows, nflags = m // ranks, (m // flag_rows) * (n // bn)
    x = 2 if staging else 1
    params = [Param("a", MemRef(m * k, elt), 16), Param("b", MemRef(k * n, elt), 16),
              Param("p", MemRef(x * m * n, elt), 16), Param("y", MemRef(rows * n, elt), 16),
              Param("flags", MemRef(x * nflags, I32)), Param("epoch", I32)]
    with e.func(name, params) as (a, b, p, y, flags, epoch), e.mesh(ranks):
        views = RsViews(a, b, y, flags, epoch, p=p, P=e.view(p, tp, name="P"), F=e.view(flags, tf, name="F"),
                        Y=e.view(y, ty, name="Y"))
        if staging:
            tqv, tlfv = rs_staging_types(m, n, bn, elt, flag_rows)
            views.QV, views.LFV = e.view(p, tqv, name="QV"), e.view(flags, tlfv, name="LFV")
        yield views


@contextlib.contextmanager
def rs_reduce_function(e: Emitter, m: int, n: int, k: int, bn: int, ranks: int, elt: Scalar, name: str,
                       flag_rows: int = 64) -> Iterator[RsViews]:
    """The function, `axe.mesh` and views of the GEMM + reduce-scatter that adds partial tiles
    into their owner's rows (axe_gen.gemm_ws's REDUCE; arguments a, b, y, flags, epoch): Y,
    M x N distributed by rows ((R, M/R, N) : (1@gpuid, N, 1): each device holds its M/R rows,
    a symmetric buffer), and the flags F as in rs_types."""
    rows = m // ranks
    _, tf, _ = rs_types(m, n, bn, ranks, elt, flag_rows)
    tyd = Tensor((m, n), elt, "global", f"({ranks}, {rows}, {n}) : (1@gpuid, {n}, 1)")
    nflags = (m // flag_rows) * (n // bn)
    params = [Param("a", MemRef(m * k, elt), 16), Param("b", MemRef(k * n, elt), 16),
              Param("y", MemRef(rows * n, elt), 16), Param("flags", MemRef(nflags, I32)), Param("epoch", I32)]
    with e.func(name, params) as (a, b, y, flags, epoch), e.mesh(ranks):
        yield RsViews(a, b, y, flags, epoch, F=e.view(flags, tf, name="F"), Y=e.view(y, tyd, name="Y"))


@dataclasses.dataclass(frozen=True)
class RsTile:
    """Where a GEMM + reduce-scatter's CTA is: the device (`rank`), the raster's row and column
    tile (`bm`, `bn`), the row tile after the rotation onto the own rows last (`bmx`), and the
    tile's first row and column (`om`, `on`)."""

    rank: Value
    bm: Value
    bn: Value
    bmx: Value
    om: Value
    on: Value


def reduce_scatter_epilogue(e: Emitter, views: RsViews, m: int, n: int, bn: int, ranks: int, elt: Scalar,
                            acc: Value, at: RsTile) -> None:
    """The epilogue of the GEMM + reduce-scatter of axe_gen.gemm_tma (`ranks`).

    Device r holds A_r [M, K] and B_r [K, N] (its K slice of the whole product) and owns rows
    r M/R .. (r+1) M/R - 1 of C = sum_r A_r B_r. Symmetric buffers (every device passes its
    own): P, the partial tiles pushed to it -- one M/R x N slot per source device -- and F, one
    flag per (row tile, source, column tile). As 2-D distributed tensors:
      P: M x (R N),     (R, M/R, R, N)     : (1@gpuid, N, M/R N, 1)
      F: TM x (R TN),   (R, TM/R, R, TN)   : (1@gpuid, TN, TM/R TN, 1)
    so P[row, p N + col] is source p's partial of C[row, col], on the device owning `row`.

    Own row tile: wait for each peer's partial tile, add it (local reads), store the sum in Y.
    Other rows: push the partial tile to its owner's slot for this device, then signal; the
    push moves 64 columns at a time through one shared tile, so that NVLink sees whole 16-byte
    row pieces rather than the accumulator's 4-byte fragments."""
    assert views.P is not None
    P, F, Y = views.P, views.F, views.Y
    rows, tm, tn = m // ranks, m // 128, n // bn
    # 128-byte rows, swizzled (as wgmma's tiles): the accumulator's fragments write it
    # without bank conflicts.
    st = Tensor((128, 64), elt, "shared", "(128, 64) : (64, 1)", (3, 3, 3))
    b16, b32, gt, ft = reg((128, 64), elt), reg((128, 64), F32), glob((128, 64), elt), glob((1, 1), I32)
    stage = e.alloc(st, name="stage")
    cown = e.constant(tm - tm // ranks, name="cown")
    own = e.cmpi("uge", at.bm, cown, name="own")
    ctn_r = e.constant(tn, name="ctn_r")
    cn_r = e.constant(n, name="cn_r")
    cr = e.constant(ranks, name="cR")

    def through_stage(src: Value, dst: Value, tag: str) -> None:
        """Registers (f32) -> f16 -> the shared tile -> the global tile `dst`."""
        h = e.alloc(b16, name=f"h{tag}")
        e.cast(src, h)
        e.copy(h, stage)
        e.barrier("cta")
        e.copy(stage, dst)
        e.barrier("cta")

    with e.if_(own) as branch:
        pc: dict[int, Value] = {}
        for j in range(1, ranks):
            # Source p = (rank + j) mod R: its flag for this tile, then its slot's columns.
            cj = e.constant(j, name=f"cj{j}")
            pj = e.addi(at.rank, cj, name=f"pj{j}")
            p = e.remui(pj, cr, name=f"p{j}")
            pt = e.muli(p, ctn_r, name=f"pt{j}")
            fc = e.addi(pt, at.bn, name=f"fc{j}")
            e.signal_wait(e.slice(F, [At(at.bmx, 1), At(fc, 1)], ft, name=f"fl{j}"), views.epoch)
            pn = e.muli(p, cn_r, name=f"pn{j}")
            pc[j] = e.addi(pn, at.on, name=f"pc{j}")
        crows = e.constant(rows, name="crows")
        rbase = e.muli(at.rank, crows, name="rbase")
        oml = e.subi(at.om, rbase, name="oml")
        for c in range(bn // 64):
            acc_o = e.slice(acc, [Span(0, 128), Span(c * 64, c * 64 + 64)], b32, name=f"acc_o{c}")
            co = e.constant(c * 64, name=f"co{c}")
            for j in range(1, ranks):
                add_partial(e, f"{j}_{c}", acc_o, pc[j], co, at.om, 128, 64, P, elt)
        cast_store(e, acc, reg((128, bn), elt), glob((128, bn), elt), Y, [At(oml, 128), At(at.on, bn)], "sum", "yt")
        branch.else_()
        rn = e.muli(at.rank, cn_r, name="rn")
        rc = e.addi(rn, at.on, name="rc")
        for c in range(bn // 64):
            acc_p = e.slice(acc, [Span(0, 128), Span(c * 64, c * 64 + 64)], b32, name=f"acc_p{c}")
            cq = e.constant(c * 64, name=f"cq{c}")
            rcc = e.addi(rc, cq, name=f"rcc{c}")
            push = e.slice(P, [At(at.om, 128), At(rcc, 64)], gt, name=f"push{c}")
            through_stage(acc_p, push, f"p{c}")
        rt = e.muli(at.rank, ctn_r, name="rt")
        rtc = e.addi(rt, at.bn, name="rtc")
        e.signal(e.slice(F, [At(at.bmx, 1), At(rtc, 1)], ft, name="fo"), views.epoch)

