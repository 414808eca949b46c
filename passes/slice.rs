//! `axe-slice`: give every region slice the layout `L[R:S]` of the region it selects.
//!
//! Phases: (1) fold chains — a slice of a slice becomes one slice of the original tensor
//! (bounds add up); (2) for each slice whose source has a layout, compute `L[R:S]` with the
//! algebra's Algorithm 4 (`axe_layout::Layout::slice`, errata applied) and either fill a `?`
//! result layout or check a given one for equivalence; (3) regions that admit no slice
//! layout are reported at the slice, and the pass fails.

use axe_layout::equiv::equivalent;
use melior::ir::operation::OperationRefMut;

use crate::dialect::ods;
use crate::ir;
use axe_layout::{Layout, LayoutError, TiledRegion};

/// The marker of a run-time origin in an `axe.slice`'s `lower` (MLIR's ShapedType::kDynamic).
pub const DYNAMIC: i64 = i64::MIN;

/// The sizes of a slice's region, and whether any origin is a run-time value.
pub fn region_sizes(op: mlir_sys::MlirOperation) -> (Vec<i64>, bool) {
    let (lo, hi) = (
        ir::i64_array(op, ods::slice::LOWER),
        ir::i64_array(op, ods::slice::UPPER),
    );
    let dynamic = lo.contains(&DYNAMIC);
    (
        lo.iter()
            .zip(&hi)
            .map(|(&l, &h)| if l == DYNAMIC { h } else { h - l })
            .collect(),
        dynamic,
    )
}

/// Per dimension of a slice, its run-time origin (the operand after the source, in order), or
/// `None` for a static bound.
pub fn run_time_origins(op: mlir_sys::MlirOperation) -> Vec<Option<mlir_sys::MlirValue>> {
    let mut next = 1; // operand 0 is the source
    ir::i64_array(op, ods::slice::LOWER)
        .into_iter()
        .map(|l| {
            (l == DYNAMIC).then(|| {
                next += 1;
                ir::operand(op, next - 1)
            })
        })
        .collect()
}

/// Whether a slice is `{clip}`: its run-time-origin tiles may reach past the tensor.
pub fn is_clipped(op: mlir_sys::MlirOperation) -> bool {
    ir::has_attr(op, ods::slice::CLIP)
}

/// Per dimension of a slice, its run-time end (`%o : +size until %end`: the operands after
/// the origins, in the order of the `bounded` dimensions), or `None`.
pub fn run_time_ends(op: mlir_sys::MlirOperation) -> Vec<Option<mlir_sys::MlirValue>> {
    let rank = ir::i64_array(op, ods::slice::LOWER).len();
    let first = 1 + ir::i64_array(op, ods::slice::LOWER)
        .iter()
        .filter(|&&l| l == DYNAMIC)
        .count();
    let mut ends = vec![None; rank];
    for (k, d) in ir::i64_array(op, ods::slice::BOUNDED).into_iter().enumerate() {
        // The verifier keeps every bounded dimension below the rank.
        ends[d as usize] = Some(ir::operand(op, first + k));
    }
    ends
}

/// Whether any dimension of a slice ends at run time (`until %end`).
pub fn has_run_time_end(op: mlir_sys::MlirOperation) -> bool {
    !ir::i64_array(op, ods::slice::BOUNDED).is_empty()
}

/// The value of `v` when it is an `arith.constant` (an index or integer).
fn constant_int(v: mlir_sys::MlirValue) -> Option<i64> {
    let d = ir::defining_op(v)?;
    (ir::name(d) == "arith.constant").then(|| ir::int_attr(d, "value"))?
}

/// Whether every run-time end of slice `op` is a constant at or past the source's extent in
/// its dimension: such a window ends only where its tensor does, which is where TMA's zero
/// fill and clipped stores stop too — a window at any origin that a TMA copy moves exactly
/// (the rows of one sequence of a packed batch, read from any row).
pub fn ends_at_tensor(op: mlir_sys::MlirOperation) -> bool {
    let shape = ir::shape(ir::value_type(ir::operand(op, ods::slice::operands::SOURCE)));
    run_time_ends(op)
        .iter()
        .enumerate()
        .all(|(d, e)| e.is_none_or(|e| constant_int(e).is_some_and(|c| c >= shape[d])))
}

/// Whether `v` is a window that may end inside its tensor: a slice with a run-time end that
/// is not [`ends_at_tensor`] (what TMA cannot copy; such a slice is not sliced
/// further, so its own defining op is the one to ask).
pub fn is_window_inside(v: mlir_sys::MlirValue) -> bool {
    ir::defining_op(v).is_some_and(|d| ir::name(d) == ods::ops::SLICE && has_run_time_end(d) && !ends_at_tensor(d))
}

/// Per dimension of a slice, the memory stride of a window dimension (one that ends at run
/// time: its origin may be any index, so it must be one arithmetic progression of memory,
/// `Layout::dimension_stride`), or `None` for the others.
pub fn window_strides(
    layout: &Layout,
    shape: &[i64],
    op: mlir_sys::MlirOperation,
) -> Result<Vec<Option<i64>>, LayoutError> {
    run_time_ends(op)
        .iter()
        .enumerate()
        .map(|(d, end)| {
            if end.is_none() {
                return Ok(None);
            }
            let (axis, stride) = layout.dimension_stride(shape, d)?;
            if !axis.is_memory() {
                return Err(LayoutError::Unsupported(format!(
                    "dimension {d} is laid out along axis '{axis}': a window at a run-time origin moves through memory"
                )));
            }
            Ok(Some(stride))
        })
        .collect()
}

/// The tiling a run-time-origin slice selects one tile of: `tiled_region` of the source, or
/// for a `{clip}` slice or one with run-time ends, of the source padded to whole tiles
/// (`tiled_region_clipped`). A window dimension (run-time end) is one stride of memory
/// (checked here), so its tile keeps this layout at any origin.
pub fn tiling(layout: &Layout, shape: &[i64], op: mlir_sys::MlirOperation) -> Result<TiledRegion, LayoutError> {
    let (sizes, _) = region_sizes(op);
    window_strides(layout, shape, op)?;
    if is_clipped(op) || has_run_time_end(op) {
        Ok(layout.tiled_region_clipped(shape, &sizes)?.0)
    } else {
        layout.tiled_region(shape, &sizes)
    }
}

/// The layout of a slice's result for a source layout over `shape`: `L[R:S]` (Algorithm 4) for
/// a static region, the tile layout of `tiled_region` for a run-time origin.
pub fn sliced_layout(layout: &Layout, shape: &[i64], op: mlir_sys::MlirOperation) -> Result<Layout, LayoutError> {
    let (_, dynamic) = region_sizes(op);
    if dynamic {
        return Ok(tiling(layout, shape, op)?.inner);
    }
    let region: Vec<(i64, i64)> = ir::i64_array(op, ods::slice::LOWER)
        .into_iter()
        .zip(ir::i64_array(op, ods::slice::UPPER))
        .collect();
    layout.slice(shape, &region)
}

/// Folds `slice(slice(t, R1), R2)` into `slice(t, R1 ∘ R2)`; the inner slice is erased once
/// it has no other use. Returns whether anything changed.
pub(crate) fn fold_chain(op: mlir_sys::MlirOperation) -> bool {
    let mut changed = false;
    loop {
        let source = ir::operand(op, ods::slice::operands::SOURCE);
        let Some(inner) = ir::defining_op(source).filter(|d| ir::name(*d) == ods::ops::SLICE) else {
            return changed;
        };
        // Run-time origins do not compose statically.
        if region_sizes(inner).1 || region_sizes(op).1 {
            return changed;
        }
        changed = true;
        let (ilo, olo, ohi) = (
            ir::i64_array(inner, ods::slice::LOWER),
            ir::i64_array(op, ods::slice::LOWER),
            ir::i64_array(op, ods::slice::UPPER),
        );
        let lower: Vec<i64> = ilo.iter().zip(&olo).map(|(a, b)| a + b).collect();
        let upper: Vec<i64> = ilo.iter().zip(&ohi).map(|(a, b)| a + b).collect();
        // SAFETY: the outer slice now slices the inner one's source (same tensor type,
        // defined before both) by the composed bounds (DenseI64ArrayAttrs, as ODS declares);
        // the inner slice is erased only without uses, and is not held elsewhere.
        unsafe {
            ir::set_operand(
                op,
                ods::slice::operands::SOURCE,
                ir::operand(inner, ods::slice::operands::SOURCE),
            );
            ir::set_i64_array(op, ods::slice::LOWER, &lower);
            ir::set_i64_array(op, ods::slice::UPPER, &upper);
            if !ir::has_uses(ir::result(inner, 0)) {
                ir::erase(inner);
            }
        }
    }
}

/// Gives one slice its layout; false (after a diagnostic) when no slice layout exists.
fn slice_layout(op: mlir_sys::MlirOperation) -> bool {
    let source_type = ir::value_type(ir::operand(op, ods::slice::operands::SOURCE));
    let Some(layout) = ir::tensor_layout(source_type) else {
        return true; // `?` source: left for axe-infer-layout.
    };
    let shape = ir::shape(source_type);
    let region: Vec<(i64, i64)> = ir::i64_array(op, ods::slice::LOWER)
        .into_iter()
        .zip(ir::i64_array(op, ods::slice::UPPER))
        .collect();
    let ends = run_time_ends(op);
    let region_text = region
        .iter()
        .zip(&ends)
        .map(|((l, h), end)| match (*l == DYNAMIC, end) {
            (true, Some(_)) => format!("?:+{h} until ?"),
            (true, None) => format!("?:+{h}"),
            _ => format!("{l}:{h}"),
        })
        .collect::<Vec<_>>()
        .join(", ");
    let sliced = match sliced_layout(&layout, &shape, op) {
        Ok(s) => s,
        Err(e) => {
            ir::error(
                op,
                &format!("region [{region_text}] of layout {layout} admits no slice layout: {e}"),
            );
            return false;
        }
    };
    let result = ir::result(op, 0);
    let result_type = ir::value_type(result);
    match ir::tensor_layout(result_type) {
        None => {
            // Refining a value's type is safe only where every user is an Axe op (their
            // verifiers accept any layout); a func.return or call would change type.
            if let Some(user) = ir::users(result).into_iter().find(|u| !ods::is_axe_op(&ir::name(*u))) {
                ir::warning(
                    op,
                    &format!(
                        "layout {sliced} of this slice is not filled in: its result is used by '{}', whose types would change",
                        ir::name(user)
                    ),
                );
            } else {
                // SAFETY: only the layout of the result's `!axe.tensor` type changes; its
                // users (checked above) accept any layout.
                unsafe { ir::set_value_type(result, ir::with_layout(result_type, &sliced)) };
            }
        }
        Some(given) => match equivalent(&given, &sliced) {
            Ok(e) if e.equal => {}
            Ok(_) => {
                ir::error(
                    op,
                    &format!("slice layout {given} disagrees with L[R:S] = {sliced} of region [{region_text}]"),
                );
                return false;
            }
            Err(e) => {
                ir::error(op, &format!("cannot compare slice layouts {given} and {sliced}: {e}"));
                return false;
            }
        },
    }
    true
}

/// The pass body.
pub fn run(root: OperationRefMut) -> bool {
    let root = root.to_raw();
    let slices = ir::collect(root, &[ods::ops::SLICE]);
    for &op in &slices {
        fold_chain(op);
    }
    // Re-collect: folding erased inner slices.
    let mut ok = true;
    for op in ir::collect(root, &[ods::ops::SLICE]) {
        ok &= slice_layout(op);
    }
    ok
}
