//! `axe-canonicalize`: layouts to canonical form, then folds of Axe ops.
//!
//! 1. Every `#axe.layout` reachable from the operation (attributes, and nested in types such
//!    as `!axe.tensor`) into its canonical form (Axe paper, Appendix A). MLIR's
//!    `AttrTypeReplacer` (through `axeReplaceLayoutsIn`) does the traversal; the layout logic
//!    is `axe_layout`'s canonicalization.
//! 2. Folds, repeated until nothing changes:
//!    * a synchronous copy of a tensor onto itself is erased;
//!    * a slice of a slice becomes one slice of the original tensor;
//!    * a fill whose tensor is entirely overwritten by the next op touching it is erased;
//!    * a layout conversion between tensors of the same type whose destination is a fresh
//!      allocation is erased and the destination replaced by the source — when nothing
//!      writes the source afterwards, so the two can share storage.
//!
//! Canonical forms and folds are idempotent: a second run prints identical IR.

use std::os::raw::c_void;

use melior::ir::attribute::Attribute;
use melior::ir::operation::OperationRefMut;
use melior::ir::AttributeLike;
use mlir_sys::{MlirAttribute, MlirOperation, MlirValue};

use crate::dialect::{self, ffi, ods};
use crate::ir;

/// The canonical form of an `#axe.layout` attribute, or null to keep `attr` (the callback of
/// `axeReplaceLayoutsIn`).
///
/// # Safety
/// `attr` is a live, non-null attribute of the context the pass runs in (`axeReplaceLayoutsIn`
/// passes each attribute of the IR it walks).
unsafe extern "C" fn canonical_layout(attr: MlirAttribute, _user: *mut c_void) -> MlirAttribute {
    // SAFETY: the caller's guarantee.
    let attr = unsafe { Attribute::from_raw(attr) };
    let Some(layout) = dialect::layout_of_attr(attr) else {
        return MlirAttribute {
            ptr: std::ptr::null_mut(),
        };
    };
    let canonical = layout.canonical();
    if canonical == layout {
        return MlirAttribute {
            ptr: std::ptr::null_mut(),
        };
    }
    dialect::layout_attr(attr.context().to_ref(), &canonical).to_raw()
}

/// The operand positions an op writes (its destination tensors).
fn written_operands(name: &str) -> &'static [usize] {
    match name {
        ods::ops::COPY | ods::ops::UNARY | ods::ops::CAST | ods::ops::REDUCE | ods::ops::CONVERT_LAYOUT => &[1],
        ods::ops::FILL | ods::ops::IOTA => &[0],
        ods::ops::GEMM | ods::ops::BINARY => &[2],
        _ => &[],
    }
}

/// Whether `op` writes every element of operand `idx` without reading it first.
fn overwrites(op: MlirOperation, v: MlirValue) -> bool {
    let name = ir::name(op);
    if name == ods::ops::COPY && ir::has_attr(op, ods::copy::REDUCE) {
        return false; // it adds into its destination
    }
    let dest = match name.as_str() {
        ods::ops::COPY | ods::ops::CONVERT_LAYOUT | ods::ops::CAST | ods::ops::UNARY | ods::ops::REDUCE => 1,
        ods::ops::BINARY => 2,
        ods::ops::FILL | ods::ops::IOTA => 0,
        _ => return false,
    };
    let operands: Vec<MlirValue> = (0..ir::num_operands(op)).map(|i| ir::operand(op, i)).collect();
    ir::key(operands[dest]) == ir::key(v)
        && operands
            .iter()
            .enumerate()
            .all(|(i, o)| i == dest || ir::key(*o) != ir::key(v))
}

/// `axe.copy %x, %x` (synchronous) does nothing.
fn fold_self_copy(op: MlirOperation) -> bool {
    let (src, dst) = (ods::copy::operands::SOURCE, ods::copy::operands::DEST);
    if ir::num_results(op) != 0
        || ir::has_attr(op, ods::copy::REDUCE)
        || ir::key(ir::operand(op, src)) != ir::key(ir::operand(op, dst))
    {
        return false;
    }
    // SAFETY: the copy has no results (checked above) and is not kept anywhere else; the
    // rewrite loop re-collects ops after every change.
    unsafe { ir::erase(op) };
    true
}

/// A fill of a fresh allocation, overwritten by the next op in the same block that touches the
/// tensor, with no slice aliasing it.
fn fold_dead_fill(op: MlirOperation) -> bool {
    let t = ir::operand(op, ods::fill::operands::DEST);
    let Some(def) = ir::defining_op(t) else { return false };
    if ir::name(def) != ods::ops::ALLOC {
        return false;
    }
    let users = ir::users(t);
    if users.iter().any(|u| ir::name(*u) == ods::ops::SLICE) {
        return false;
    }
    // The next op after the fill (in its block) that uses `t`, directly or in a region.
    let mut next = ir::next_in_block(op);
    while let Some(n) = next {
        let touches = users.iter().any(|u| u.ptr == n.ptr || ir::is_ancestor(n, *u));
        if touches {
            if users.iter().any(|u| u.ptr == n.ptr) && overwrites(n, t) {
                // SAFETY: an axe.fill has no results; nothing else holds it (the rewrite
                // loop re-collects ops after every change).
                unsafe { ir::erase(op) };
                return true;
            }
            return false;
        }
        next = ir::next_in_block(n);
    }
    false
}

/// `axe.convert_layout %src, %dst` between identical types, `%dst` a fresh allocation only
/// read afterwards and `%src` never written afterwards: `%dst` is `%src`.
fn fold_trivial_conversion(op: MlirOperation) -> bool {
    let (src, dst) = (
        ir::operand(op, ods::convert_layout::operands::SOURCE),
        ir::operand(op, ods::convert_layout::operands::DEST),
    );
    // SAFETY: both types are live (module contract); comparing them only reads them.
    if !unsafe { mlir_sys::mlirTypeEqual(ir::value_type(src), ir::value_type(dst)) } {
        return false;
    }
    let Some(alloc) = ir::defining_op(dst).filter(|d| ir::name(*d) == ods::ops::ALLOC) else {
        return false;
    };
    let writers = |v: MlirValue| -> Vec<MlirOperation> {
        ir::users(v)
            .into_iter()
            .filter(|&u| {
                u.ptr != op.ptr
                    && written_operands(&ir::name(u))
                        .iter()
                        .any(|&i| ir::key(ir::operand(u, i)) == ir::key(v))
            })
            .collect()
    };
    // Writes to the source before the conversion produce the data; after it they would be
    // seen through the shared storage.
    let later = |u: MlirOperation| !ir::is_ancestor_block(op, u);
    let non_axe = |v: MlirValue| ir::users(v).into_iter().any(|u| !ods::is_axe_op(&ir::name(u)));
    if writers(src).into_iter().any(later) || !writers(dst).is_empty() || non_axe(dst) || non_axe(src) {
        return false;
    }
    // SAFETY: `src` is defined before the conversion (its operand), has `dst`'s type (a
    // conversion between equal layouts), and the checks above show that nothing observes the
    // difference; after the replacement neither the conversion (no results) nor the
    // allocation has uses, and neither is held anywhere else.
    unsafe {
        ir::replace_all_uses(dst, src);
        ir::erase(op);
        ir::erase(alloc);
    }
    true
}

/// The pass body.
pub fn run(op: OperationRefMut) -> bool {
    let root = op.to_raw();
    // SAFETY: `root` is the live operation the pass runs on; `canonical_layout` returns a
    // layout attribute of the same context (or null to keep one), which every place an
    // `#axe.layout` is held accepts, and ignores its user data.
    unsafe { ffi::axeReplaceLayoutsIn(root, Some(canonical_layout), std::ptr::null_mut()) };
    for _ in 0..64 {
        let mut changed = false;
        for op in ir::collect(root, &[ods::ops::COPY]) {
            changed |= fold_self_copy(op);
        }
        for op in ir::collect(root, &[ods::ops::SLICE]) {
            changed |= crate::slice::fold_chain(op);
        }
        for op in ir::collect(root, &[ods::ops::FILL]) {
            changed |= fold_dead_fill(op);
        }
        for op in ir::collect(root, &[ods::ops::CONVERT_LAYOUT]) {
            changed |= fold_trivial_conversion(op);
        }
        if !changed {
            break;
        }
    }
    true
}
