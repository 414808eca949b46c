#!/usr/bin/env python3
"""The multi-stage TMA + wgmma (or mma.sync) GEMM, for the drivers in bench/gpu and test/gpu:
the `axe_gen.gemm_tma` module of python/axe_gen writes it through the typed emitter, and this
file re-exports its names and its command line.

    gen_gemm_tma.py M N K [BN [S [OVERLAP [GROUP [CHIP [RELEASE [DTYPE [OUT [TMA_STORE [PREFETCH]]]]]]]]]] > gemm_MxNxK_tma.mlir
    gen_gemm_tma.py --all DIR
        (the same as PYTHONPATH=python python3 -m axe_gen.gemm_tma ...)

The text-writing helpers below (`out` a list of lines) are the ones bench/gpu/gen_gemm_ws.py,
not yet written through the emitter, still calls; axe_gen.gemm_parts has their typed forms.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from axe_gen.gemm_tma import (  # noqa: E402,F401
    FIGURE10,
    MLIR,
    MODELS,
    TYPED_VARIANTS,
    VARIANTS,
    choose,
    figure10_shapes,
    figure10_variants,
    kernel,
    main,
    name,
)


def raster(out, ind, tile, tiles_m, tiles_n, group, sfx=""):
    """Appends the ops that give tile index `tile` its row and column tile, %bm and %bn (%ctn
    must hold `tiles_n`). Grouped raster (as Triton's GROUP_M) where `group` divides the row
    tiles: consecutive tiles walk `group` row tiles of A down one column tile of B before moving
    right, so both stay in L2; else row-major order. `sfx` suffixes every name it defines."""
    if group > 1 and tiles_m % group == 0:
        out.append(f"{ind}%cgn{sfx} = arith.constant {group * tiles_n} : index")
        out.append(f"{ind}%cg{sfx} = arith.constant {group} : index")
        out.append(f"{ind}%gid{sfx} = arith.divui {tile}, %cgn{sfx} : index")
        out.append(f"{ind}%gfirst{sfx} = arith.muli %gid{sfx}, %cg{sfx} : index")
        out.append(f"{ind}%gr{sfx} = arith.remui {tile}, %cgn{sfx} : index")
        out.append(f"{ind}%gm{sfx} = arith.remui %gr{sfx}, %cg{sfx} : index")
        out.append(f"{ind}%bm{sfx} = arith.addi %gfirst{sfx}, %gm{sfx} : index")
        out.append(f"{ind}%bn{sfx} = arith.divui %gr{sfx}, %cg{sfx} : index")
    else:
        out.append(f"{ind}%bm{sfx} = arith.divui {tile}, %ctn : index")
        out.append(f"{ind}%bn{sfx} = arith.remui {tile}, %ctn : index")


def fragment_types(rows, bn, e):
    """The register types of one k16 step's fragments: A's (`rows` x 16) and B's (16 x `bn`);
    their layouts follow from the gemm's accumulator (axe-infer-layout)."""
    return f"!axe.tensor<{rows}x16x{e}, register, ?>", f"!axe.tensor<16x{bn}x{e}, register, ?>"


def fragment_buffers(out, ind, rows, bn, e):
    """Appends two buffers per operand for one k16 step's fragments, %fa0/%fb0 and %fa1/%fb1
    (filled by k16_fragments in turn); returns their types."""
    fa, fb = fragment_types(rows, bn, e)
    for f in range(2):
        out.append(f"{ind}%fa{f} = axe.alloc : {fa}")
        out.append(f"{ind}%fb{f} = axe.alloc : {fb}")
    return fa, fb


def k16_fragments(out, ind, a, b, rows, bn, e, swz, step, f, tag):
    """Appends the ldmatrix copies of k16 step `step` of a stage into fragment buffers %fa`f`
    (`rows` x 16) and %fb`f` (16 x `bn`): `a` and `b` are the stage's shared A rows and B tile,
    (value, type); `swz` their swizzle; `tag` names the slices."""
    sfa = f"!axe.tensor<{rows}x16x{e}, shared, ?, {swz}>"
    sfb = f"!axe.tensor<16x{bn}x{e}, shared, ?, {swz}>"
    fa, fb = fragment_types(rows, bn, e)
    out.append(f"{ind}%ssa_{tag} = axe.slice {a[0]} [0 : {rows}, {16 * step} : {16 * step + 16}] : {a[1]} to {sfa}")
    out.append(f"{ind}%ssb_{tag} = axe.slice {b[0]} [{16 * step} : {16 * step + 16}, 0 : {bn}] : {b[1]} to {sfb}")
    out.append(f"{ind}axe.copy %ssa_{tag}, %fa{f} schedule ldmatrix : {sfa}, {fa}")
    out.append(f"{ind}axe.copy %ssb_{tag}, %fb{f} schedule ldmatrix : {sfb}, {fb}")


def add_partial(out, ind, tag, acc, col, co, row, rows, width, tp, e):
    """Appends the adds of one peer's partial tile to the f32 register slice `acc` (`rows` x
    `width`): the P block at rows `row`, columns `col` + `co` (P: the GEMM + reduce-scatter's
    distributed partial tiles, type `tp`, element `e`), local memory read straight into the
    accumulator's layout and converted. `tag` names the new values."""
    b16 = f"!axe.tensor<{rows}x{width}x{e}, register, ?>"
    b32 = f"!axe.tensor<{rows}x{width}xf32, register, ?>"
    gt = f"!axe.tensor<{rows}x{width}x{e}, global, ?>"
    out.append(f"{ind}%pcc{tag} = arith.addi {col}, {co} : index")
    out.append(f"{ind}%part{tag} = axe.slice %P [{row} : +{rows}, %pcc{tag} : +{width}] : {tp} to {gt}")
    out.append(f"{ind}%in{tag} = axe.alloc : {b16}")
    out.append(f"{ind}axe.copy %part{tag}, %in{tag} : {gt}, {b16}")
    out.append(f"{ind}%f{tag} = axe.alloc : {b32}")
    out.append(f"{ind}axe.cast %in{tag}, %f{tag} : {b16}, {b32}")
    out.append(f"{ind}axe.binary add {acc}, %f{tag}, {acc} : {b32}, {b32}, {b32}")


def accumulator_part(out, ind, c, width, acc, part_acc, part=None):
    """Appends %pacc{c}, columns c * width .. (c + 1) * width of the f32 register accumulator
    %acc (type `acc`; the part's type `part_acc`), and with `part` (the output's register
    type) its conversion into a new %part{c}. The epilogues convert each part right before
    it goes out, not the whole tile up front (gen_gemm_ws.py's epilogue says why)."""
    out.append(f"{ind}%pacc{c} = axe.slice %acc [0 : 64, {c * width} : {(c + 1) * width}] : {acc} to {part_acc}")
    if part is not None:
        out.append(f"{ind}%part{c} = axe.alloc : {part}")
        out.append(f"{ind}axe.cast %pacc{c}, %part{c} : {part_acc}, {part}")


def rs_types(m, n, bn, ranks, e, flag_rows=128, p_blocks=False):
    """The distributed tensors of a GEMM + reduce-scatter (see reduce_scatter_views): P, the
    flags F (one per `flag_rows` rows of a row tile, source and column tile) and Y.
    `p_blocks`: P's slots are stored in 64 x 128 blocks, each contiguous in memory as two
    64 x 64 row-major halves, (64, 2, 64) : (64, 4096, 1), the order of an unswizzled shared
    tile of that layout, so that one 16 KiB bulk copy moves a block."""
    rows, tf_rows, tn = m // ranks, m // flag_rows, n // bn
    tp = f"!axe.tensor<{m}x{ranks * n}x{e}, global, #axe.layout<({ranks}, {rows}, {ranks}, {n}) : (1@gpuid, {n}, {rows * n}, 1)>>"
    if p_blocks:
        assert rows % 64 == 0 and n % 128 == 0
        tp = (f"!axe.tensor<{m}x{ranks * n}x{e}, global, #axe.layout<({ranks}, {rows // 64}, 64, {ranks}, {n // 128}, 2, 64) : "
              f"(1@gpuid, {ranks * n * 64}, 64, {n * 64}, 8192, 4096, 1)>>")
    tf = (f"!axe.tensor<{tf_rows}x{ranks * tn}xi32, global, #axe.layout<({ranks}, {tf_rows // ranks}, {ranks}, {tn}) : "
          f"(1@gpuid, {tn}, {tf_rows // ranks * tn}, 1)>>")
    ty = f"!axe.tensor<{rows}x{n}x{e}, global, #axe.layout<({rows}, {n}) : ({n}, 1)>>"
    return tp, tf, ty


def rs_staging_types(m, n, bn, e, flag_rows):
    """The local views of rs_function's `staging` halves: %QV (2M x N) and %LFV (2 TM x TN)."""
    tm, tn = m // flag_rows, n // bn
    return (f"!axe.tensor<{2 * m}x{n}x{e}, global, #axe.layout<({2 * m}, {n}) : ({n}, 1)>>",
            f"!axe.tensor<{2 * tm}x{tn}xi32, global, #axe.layout<({2 * tm}, {tn}) : ({tn}, 1)>>")


def rs_function(out, m, n, k, bn, ranks, e, name_, flag_rows=128, p_blocks=False, staging=False):
    """Appends the function header, `axe.mesh` and the views %P, %F, %Y of a GEMM +
    reduce-scatter (arguments a, b, p, y, flags, epoch: axe_dist.GemmRs's order); returns the
    views' types. `staging`: p and flags are twice as long, and their second halves are this
    device's local views %QV (2M x N: rows M.. hold its partial tiles for the peers before they
    are sent) and %LFV (2 TM x TN flags: rows TM.. say a partial tile is staged)."""
    tp, tf, ty = rs_types(m, n, bn, ranks, e, flag_rows, p_blocks)
    rows, nflags = m // ranks, (m // flag_rows) * (n // bn)
    x = 2 if staging else 1
    out.append(f"  func.func @{name_}(%a: memref<{m * k}x{e}> {{axe.align = 16 : i64}}, %b: memref<{k * n}x{e}> {{axe.align = 16 : i64}}, "
               f"%p: memref<{x * m * n}x{e}> {{axe.align = 16 : i64}}, %y: memref<{rows * n}x{e}> {{axe.align = 16 : i64}}, "
               f"%flags: memref<{x * nflags}xi32>, %epoch: i32) {{")
    out.append(f"    axe.mesh [{ranks}] {{")
    out.append(f"    %P = axe.view %p : memref<{x * m * n}x{e}> to {tp}")
    out.append(f"    %F = axe.view %flags : memref<{x * nflags}xi32> to {tf}")
    out.append(f"    %Y = axe.view %y : memref<{rows * n}x{e}> to {ty}")
    if staging:
        tqv, tlfv = rs_staging_types(m, n, bn, e, flag_rows)
        out.append(f"    %QV = axe.view %p : memref<{x * m * n}x{e}> to {tqv}")
        out.append(f"    %LFV = axe.view %flags : memref<{x * nflags}xi32> to {tlfv}")
    return tp, tf, ty


def rs_reduce_function(out, m, n, k, bn, ranks, e, name_, flag_rows=64):
    """The function header, `axe.mesh` and views of the GEMM + reduce-scatter that adds partial
    tiles into their owner's rows (gen_gemm_ws.py's REDUCE; arguments a, b, y, flags, epoch):
    Y, M x N distributed by rows ((R, M/R, N) : (1@gpuid, N, 1): each device holds its M/R
    rows, a symmetric buffer), and the flags F as in rs_types. Returns (F's, Y's types)."""
    rows = m // ranks
    _, tf, _ = rs_types(m, n, bn, ranks, e, flag_rows)
    tyd = f"!axe.tensor<{m}x{n}x{e}, global, #axe.layout<({ranks}, {rows}, {n}) : (1@gpuid, {n}, 1)>>"
    nflags = (m // flag_rows) * (n // bn)
    out.append(f"  func.func @{name_}(%a: memref<{m * k}x{e}> {{axe.align = 16 : i64}}, %b: memref<{k * n}x{e}> {{axe.align = 16 : i64}}, "
               f"%y: memref<{rows * n}x{e}> {{axe.align = 16 : i64}}, %flags: memref<{nflags}xi32>, %epoch: i32) {{")
    out.append(f"    axe.mesh [{ranks}] {{")
    out.append(f"    %F = axe.view %flags : memref<{nflags}xi32> to {tf}")
    out.append(f"    %Y = axe.view %y : memref<{rows * n}x{e}> to {tyd}")
    return tf, tyd


if __name__ == "__main__":
    main()
