//! Host-side checks of the launch contract: what a kernel function's arguments declare
//! (`{axe.align = N}`: the base alignment the lowering relied on for vector and bulk
//! accesses) checked against the buffers a launcher is about to pass.

use axe_upstream_ods::func;
use melior::ir::Module;
use mlir_sys::MlirOperation;

use crate::error::AxeError;
use crate::ir;

/// The base alignment each argument of function `name` declares (`None`: nothing declared, the
/// lowering assumed only the element's natural alignment), or `None` when `module` has no
/// function of that name.
pub fn declared_alignments(module: &Module, name: &str) -> Option<Vec<Option<i64>>> {
    let func = find_function(module.as_operation().to_raw(), name)?;
    let body = ir::region_block(func, 0);
    if body.ptr.is_null() {
        // A declaration: no body, no arguments to read the attributes from.
        return Some(Vec::new());
    }
    // SAFETY: `body` is the live, non-null entry block of a function of `module`, which the
    // borrow keeps alive; arguments are read at indices below their number.
    let n = unsafe { mlir_sys::mlirBlockGetNumArguments(body) };
    Some(
        (0..n)
            // SAFETY: as above, `i` < `n`.
            .map(|i| ir::declared_alignment(unsafe { mlir_sys::mlirBlockGetArgument(body, i) }))
            .collect(),
    )
}

/// Checks the base addresses a launcher passes for function `name`'s arguments (in order)
/// against what the arguments declare. The error names the argument, the address and the
/// alignment it needs.
pub fn check_alignment(module: &Module, name: &str, addresses: &[usize]) -> crate::error::Result<()> {
    let declared = declared_alignments(module, name)
        .ok_or_else(|| AxeError::Message(format!("no function @{name} in the module")))?;
    for (i, (align, &addr)) in declared.iter().zip(addresses).enumerate() {
        if let Some(a) = *align {
            if a > 0 && addr % a as usize != 0 {
                return Err(AxeError::Message(format!(
                    "argument #{i} of @{name} declares axe.align = {a}, but its buffer starts at {addr:#x}, which is not {a}-byte aligned"
                )));
            }
        }
    }
    Ok(())
}

fn find_function(root: MlirOperation, name: &str) -> Option<MlirOperation> {
    ir::collect(root, &[func::FuncOperation::name()])
        .into_iter()
        .find(|f| ir::string_attr(*f, "sym_name").as_deref() == Some(name))
}
