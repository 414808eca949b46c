//! Emitting MLIR diagnostics from Rust pass bodies, at an operation's location.

use melior::ir::operation::OperationLike;
use mlir_sys::{mlirEmitError, mlirOperationGetLocation, MlirOperation};

/// Emits `error: message` at `op`'s location.
pub fn emit_error<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, message: &str) {
    emit_error_raw(op.to_raw(), message);
}

pub(crate) fn emit_error_raw(op: MlirOperation, message: &str) {
    let c = std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default();
    // SAFETY: `op` is live (the module contract of `crate::ir`); `c` is a NUL-terminated
    // string alive for the call (MLIR copies the message).
    unsafe { mlirEmitError(mlirOperationGetLocation(op), c.as_ptr()) }
}
