//! `axe-canonicalize`: every `#axe.layout` reachable from the operation (attributes, and
//! nested in types such as `!axe.tensor`) into its canonical form (Axe paper, Appendix A).
//!
//! MLIR's `AttrTypeReplacer` (through `axeReplaceLayoutsIn`) does the traversal; the
//! layout logic is `axe_layout`'s canonicalization. Canonical forms are idempotent, so a
//! second run prints identical IR.

use std::os::raw::c_void;

use melior::ir::attribute::Attribute;
use melior::ir::operation::OperationRefMut;
use melior::ir::AttributeLike;
use mlir_sys::MlirAttribute;

use crate::dialect::{self, ffi};

unsafe extern "C" fn canonical_layout(attr: MlirAttribute, _user: *mut c_void) -> MlirAttribute {
    let attr = Attribute::from_raw(attr);
    let Some(layout) = dialect::layout_of_attr(attr) else {
        return MlirAttribute { ptr: std::ptr::null_mut() };
    };
    let canonical = layout.canonical();
    if canonical == layout {
        return MlirAttribute { ptr: std::ptr::null_mut() };
    }
    dialect::layout_attr(&attr.context().to_ref(), &canonical).to_raw()
}

/// The pass body.
pub fn run(op: OperationRefMut) -> bool {
    unsafe { ffi::axeReplaceLayoutsIn(op.to_raw(), canonical_layout, std::ptr::null_mut()) };
    true
}
