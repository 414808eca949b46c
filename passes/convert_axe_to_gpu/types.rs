//! Element-type queries (MLIR types only, no lowering state).

use mlir_sys::*;

pub fn element_type(t: MlirType) -> MlirType {
    // SAFETY: `t` is a live shaped type (every caller passes a tensor or memref type).
    unsafe { mlirShapedTypeGetElementType(t) }
}

/// Bit width of a scalar int/float type (0 for anything else).
pub fn bit_width(t: MlirType) -> i64 {
    // SAFETY: `t` is a live type (module contract); the width is read only after the kind
    // check that makes the accessor valid.
    unsafe {
        if mlirTypeIsAFloat(t) {
            mlirFloatTypeGetWidth(t) as i64
        } else if mlirTypeIsAInteger(t) {
            mlirIntegerTypeGetWidth(t) as i64
        } else {
            0
        }
    }
}

pub fn is_float(t: MlirType) -> bool {
    // SAFETY: `t` is a live type (module contract).
    unsafe { mlirTypeIsAFloat(t) }
}
