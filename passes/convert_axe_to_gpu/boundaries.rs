//! Global tensors at function boundaries. A function may take or return a global
//! `!axe.tensor` (a view of a buffer with a layout); lowered, it takes or returns the buffer
//! itself, `memref<N x elt>` with `N` the memory span of the layout — the layout is
//! compile-time metadata, as bufferization's function boundaries pass a tensor as its buffer.
//! Inside the function the argument is viewed again with the same type, so kernels lower as
//! usual; a returned tensor must be a view of a buffer of exactly that type. Calls to converted
//! functions pass and receive buffers the same way. Shared and register tensors live inside a
//! kernel and cannot cross a function boundary.

use crate::error::AxeError;
use std::collections::HashSet;

use axe_upstream_ods::func;
use mlir_sys::*;

use super::builder::B;
use super::context::R;
use crate::dialect::ods;
use crate::ir::{self, MemoryScope};
use crate::target::coordinate_range;

/// The buffer type a global tensor type crosses function boundaries as (`None`: not a tensor).
fn buffer_type(op: MlirOperation, t: MlirType) -> R<Option<MlirType>> {
    let Some(scope) = ir::tensor_scope(t) else {
        return Ok(None);
    };
    if scope != MemoryScope::Global {
        return Err(AxeError::at(op, format!(
            "{} cannot cross a function boundary: only global tensors can (shared and register tensors live inside a kernel)",
            ir::type_to_string(t)
        )));
    }
    let Some(layout) = ir::tensor_layout(t) else {
        return Err(AxeError::at(
            op,
            format!(
                "{} crosses a function boundary with layout '?': run axe-infer-layout first",
                ir::type_to_string(t)
            ),
        ));
    };
    // A distributed tensor (on gpuid) crosses as its local shard: the memory part.
    if let Some(a) = layout
        .axes()
        .into_iter()
        .find(|a| !a.is_memory() && a.name() != "gpuid")
    {
        return Err(AxeError::at(op, format!("the global tensor {} uses axis '{a}'; at a function boundary it must live on the memory axis (and gpuid, across a mesh) only", ir::type_to_string(t))));
    }
    let (lo, hi) = coordinate_range(&layout)
        .get(&axe_layout::Axis::memory())
        .copied()
        .unwrap_or((0, 0));
    if lo < 0 {
        return Err(AxeError::at(
            op,
            format!(
                "the layout of {} reaches the negative offset {lo}",
                ir::type_to_string(t)
            ),
        ));
    }
    let elt = super::types::element_type(t);
    let b = B::before(op);
    Ok(Some(b.memref_type(elt, &[hi + 1])))
}

/// The buffer a tensor value is a view of, when its type is `want`.
fn viewed_buffer(user: MlirOperation, v: MlirValue, want: MlirType) -> R<MlirValue> {
    match ir::defining_op(v) {
        Some(d) if ir::name(d) == ods::ops::VIEW => {
            let m = ir::operand(d, ods::view::operands::SOURCE);
            // SAFETY: both types are live (module contract); comparing them only reads them.
            if unsafe { mlirTypeEqual(ir::value_type(m), want) } {
                Ok(m)
            } else {
                Err(AxeError::at(user, format!(
                    "this tensor is a view of {}, but it crosses the function boundary as {}: pass a view of the whole buffer",
                    ir::type_to_string(ir::value_type(m)),
                    ir::type_to_string(want)
                )))
            }
        }
        _ => Err(AxeError::at(user, "a tensor that crosses a function boundary must be an axe.view of a buffer (or the function's own tensor argument)")),
    }
}

/// Rewrites every function signature, return and call that carries global tensors.
pub fn lower(root: MlirOperation) -> R<()> {
    let mut converted: HashSet<String> = HashSet::new();
    for f in ir::collect(root, &[func::FuncOperation::name()]) {
        let fty = function_type(f)?;
        // SAFETY: `fty` is a live function type (checked by `function_type`); its inputs and
        // results are read at indices below their numbers.
        let inputs: Vec<MlirType> = (0..unsafe { mlirFunctionTypeGetNumInputs(fty) })
            // SAFETY: as above.
            .map(|i| unsafe { mlirFunctionTypeGetInput(fty, i) })
            .collect();
        // SAFETY: as above.
        let results: Vec<MlirType> = (0..unsafe { mlirFunctionTypeGetNumResults(fty) })
            // SAFETY: as above.
            .map(|i| unsafe { mlirFunctionTypeGetResult(fty, i) })
            .collect();
        let new_inputs = inputs
            .iter()
            .map(|&t| Ok(buffer_type(f, t)?.unwrap_or(t)))
            .collect::<R<Vec<_>>>()?;
        let new_results = results
            .iter()
            .map(|&t| Ok(buffer_type(f, t)?.unwrap_or(t)))
            .collect::<R<Vec<_>>>()?;
        if new_inputs
            .iter()
            .zip(&inputs)
            .chain(new_results.iter().zip(&results))
            // SAFETY: live types (module contract); comparing them only reads them.
            .all(|(a, b)| unsafe { mlirTypeEqual(*a, *b) })
        {
            continue;
        }
        if let Some(name) = ir::string_attr(f, "sym_name") {
            converted.insert(name);
        }
        // A func.func has one region; it is empty for a declaration.
        let entry = ir::region_block(f, 0);
        if !entry.ptr.is_null() {
            for (i, (&old, &new)) in inputs.iter().zip(&new_inputs).enumerate() {
                // SAFETY: live types (module contract); comparing them only reads them.
                if unsafe { mlirTypeEqual(old, new) } {
                    continue;
                }
                // SAFETY: `entry` is the live entry block of `f`, whose arguments are the
                // function type's inputs (the func verifier checks it), so `i` is in range.
                let arg = unsafe { mlirBlockGetArgument(entry, i as isize) };
                // SAFETY: the argument becomes a buffer of type `new`; every use of it is
                // moved to the view (of the old type) built at the start of the entry block,
                // whose own operand is then the retyped argument: types stay consistent.
                unsafe { ir::set_value_type(arg, new) };
                let view = B::before(f).at_start(entry).val(ods::ops::VIEW, &[arg], old, &[]);
                // SAFETY: as above: the view has the argument's old type, and is visible at
                // every use (it is the first op of the entry block).
                unsafe { ir::replace_all_uses(arg, view) };
                // Cannot fail: `view` is the result of the op just built.
                let view_op = ir::defining_op(view).expect("just built");
                // SAFETY: as above: the view's operand is the buffer it views.
                unsafe { ir::set_operand(view_op, 0, arg) };
            }
            for ret in ir::collect(f, &[func::ReturnOperation::name()]) {
                for (j, (&old, &new)) in results.iter().zip(&new_results).enumerate() {
                    // SAFETY: live types (module contract); comparing them only reads them.
                    if !unsafe { mlirTypeEqual(old, new) } {
                        let buf = viewed_buffer(ret, ir::operand(ret, j), new)?;
                        // SAFETY: `buf` (defined before the return) has the new result type.
                        unsafe { ir::set_operand(ret, j, buf) };
                    }
                }
            }
        }
        // SAFETY: `f` is live (module contract).
        let ctx = unsafe { mlirOperationGetContext(f) };
        // SAFETY: `ctx` is live; the type list pointers and lengths are those of two live
        // vectors of live types (MLIR copies them into the uniqued type).
        let new_fty = unsafe {
            mlirFunctionTypeGet(
                ctx,
                new_inputs.len() as isize,
                new_inputs.as_ptr(),
                new_results.len() as isize,
                new_results.as_ptr(),
            )
        };
        // SAFETY: `f` is a func.func, whose C++ accessors read `function_type` as a TypeAttr of
        // a FunctionType, which this is; the body's arguments and returns were retyped above to
        // match it.
        unsafe { mlirOperationSetAttributeByName(f, sref("function_type"), mlirTypeAttrGet(new_fty)) };
    }
    for call in ir::collect(root, &[func::CallOperation::name()]) {
        // SAFETY: `call` is live (module contract).
        let callee = unsafe { mlirOperationGetAttributeByName(call, sref("callee")) };
        // SAFETY: `callee` is non-null when tested (short-circuit).
        if callee.ptr.is_null() || !unsafe { mlirAttributeIsAFlatSymbolRef(callee) } {
            continue;
        }
        // SAFETY: `callee` is a FlatSymbolRefAttr (checked above); its name is owned by the
        // context.
        let name = ir::string_of(unsafe { mlirFlatSymbolRefAttrGetValue(callee) });
        if !converted.contains(&name) {
            continue;
        }
        for i in 0..ir::num_operands(call) {
            let v = ir::operand(call, i);
            if let Some(buf) = buffer_type(call, ir::value_type(v))? {
                let m = viewed_buffer(call, v, buf)?;
                // SAFETY: `m` (defined before the call) has the callee's new argument type.
                unsafe { ir::set_operand(call, i, m) };
            }
        }
        for j in 0..ir::num_results(call) {
            let r = ir::result(call, j);
            let old = ir::value_type(r);
            if let Some(buf) = buffer_type(call, old)? {
                // SAFETY: the result takes the callee's new result type; its uses move to a
                // view of the old type built right after the call, whose operand is the result.
                unsafe { ir::set_value_type(r, buf) };
                let after = ir::next_in_block(call).ok_or_else(|| {
                    AxeError::at(call, "a func.call at the end of its block (no terminator after it)")
                })?;
                let view = B::before(after).val(ods::ops::VIEW, &[r], old, &[]);
                // SAFETY: as above: the view (right after the call) has the result's old type and
                // is visible at every use of the result; its own operand is the result again.
                // `defining_op` cannot fail: `view` is the result of the op just built.
                unsafe {
                    ir::replace_all_uses(r, view);
                    ir::set_operand(ir::defining_op(view).expect("just built"), 0, r);
                }
            }
        }
    }
    Ok(())
}

/// The `function_type` of a `func.func` (a located error when it has none, which the func
/// verifier rules out for verified input).
fn function_type(f: MlirOperation) -> R<MlirType> {
    // SAFETY: `f` is live (module contract); the attribute and its type are tested before they
    // are read as a TypeAttr and a FunctionType.
    unsafe {
        let a = mlirOperationGetAttributeByName(f, sref("function_type"));
        if !a.ptr.is_null() && mlirAttributeIsAType(a) {
            let t = mlirTypeAttrGetValue(a);
            if mlirTypeIsAFunction(t) {
                return Ok(t);
            }
        }
    }
    Err(AxeError::at(
        f,
        "internal: a func.func without a function type (the func.func parser gives one)",
    ))
}

use crate::ir::string_ref as sref;
