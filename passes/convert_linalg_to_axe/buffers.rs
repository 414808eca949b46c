//! What the conversion needs to know of bufferized IR's buffers in a straight-line function
//! body: which memref a value views (through `memref.expand_shape` / `collapse_shape`), which
//! ops read or write it, whether it holds zeros before an op (a zero `linalg.fill`, or a copy
//! of zeros, as one-shot-bufferize emits for a fill shared by two matmuls), and the clean-up
//! after the conversion: writes nothing reads any more go, and the temporaries the kernels
//! still use become buffers the launcher allocates (function arguments marked
//! `{axe.workspace}`).

use mlir_sys::*;

use crate::ir;

/// The memref `v` views: through `memref.expand_shape` / `collapse_shape` to the allocation or
/// argument.
pub fn root(mut v: MlirValue) -> MlirValue {
    while let Some(d) = ir::defining_op(v) {
        if is_view(d) {
            v = ir::operand(d, 0);
        } else {
            break;
        }
    }
    v
}

fn is_view(op: MlirOperation) -> bool {
    matches!(ir::name(op).as_str(), "memref.expand_shape" | "memref.collapse_shape")
}

/// How `op` uses the buffer `buffer` (a root): not at all, reading, writing (all of it, with no
/// read: a fill or a copy into it), or both.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Use {
    None,
    Read,
    Overwrite,
    ReadWrite,
}

/// The number of `op`'s input operands when it is a linalg op (the rest are its outputs).
fn linalg_inputs(op: MlirOperation) -> Option<usize> {
    if !ir::name(op).starts_with("linalg.") {
        return None;
    }
    ir::operand_groups(op).and_then(|g| g.first().map(Vec::len))
}

pub fn use_of(op: MlirOperation, buffer: MlirValue) -> Use {
    let hits: Vec<usize> = (0..ir::num_operands(op))
        .filter(|&i| root(ir::operand(op, i)).ptr == buffer.ptr)
        .collect();
    if hits.is_empty() || is_view(op) || ir::name(op) == "memref.dealloc" {
        return Use::None;
    }
    match ir::name(op).as_str() {
        "linalg.fill" => Use::Overwrite,
        "memref.copy" => match (hits.contains(&0), hits.contains(&1)) {
            (false, true) => Use::Overwrite,
            (true, false) => Use::Read,
            _ => Use::ReadWrite,
        },
        _ => match linalg_inputs(op) {
            // A linalg op reads its inputs; its outputs it may read too (a matmul accumulates),
            // except a generic whose body never reads its output's values, or a transpose.
            Some(n) if hits.iter().all(|&i| i < n) => Use::Read,
            Some(n) if hits.iter().all(|&i| i >= n) && overwrites_outputs(op, n) => Use::Overwrite,
            _ => Use::ReadWrite,
        },
    }
}

/// Whether the linalg op `op` (with `inputs` inputs) writes its outputs without reading them:
/// a transpose, or a generic whose body does not use its output arguments.
fn overwrites_outputs(op: MlirOperation, inputs: usize) -> bool {
    match ir::name(op).as_str() {
        "linalg.transpose" => true,
        "linalg.generic" => {
            let args = ir::block_arguments(ir::region_block(op, 0));
            args[inputs.min(args.len())..].iter().all(|a| ir::users(*a).is_empty())
        }
        _ => false,
    }
}

/// The ops of `op`'s block, in order.
fn block_of(op: MlirOperation) -> Vec<MlirOperation> {
    ir::block_of(op).map(ir::block_ops).unwrap_or_default()
}

/// Whether `buffer` holds zeros right before `op`: the last write to it before `op` is a zero
/// `linalg.fill`, or a copy from a buffer that held zeros there.
pub fn zero_before(op: MlirOperation, buffer: MlirValue) -> bool {
    let buffer = root(buffer);
    let ops = block_of(op);
    let Some(at) = ops.iter().position(|o| o.ptr == op.ptr) else {
        return false;
    };
    for &o in ops[..at].iter().rev() {
        match use_of(o, buffer) {
            Use::None | Use::Read => continue,
            Use::Overwrite if ir::name(o) == "linalg.fill" => {
                return ir::defining_op(ir::operand(o, 0))
                    .filter(|&c| ir::name(c) == "arith.constant")
                    .and_then(|c| ir::float_or_int_attr(c, "value"))
                    == Some(0.0)
            }
            Use::Overwrite => return zero_before(o, ir::operand(o, 0)),
            Use::ReadWrite => return false,
        }
    }
    false
}

/// The last op before `op` that writes `buffer` (a view of it as an output).
pub fn last_write_before(op: MlirOperation, buffer: MlirValue) -> Option<MlirOperation> {
    let buffer = root(buffer);
    let ops = block_of(op);
    let at = ops.iter().position(|o| o.ptr == op.ptr)?;
    ops[..at]
        .iter()
        .rev()
        .find(|&&o| matches!(use_of(o, buffer), Use::Overwrite | Use::ReadWrite))
        .copied()
}

/// The ops after `op` that use `buffer` before anything overwrites it.
pub fn uses_after(op: MlirOperation, buffer: MlirValue) -> Vec<MlirOperation> {
    let buffer = root(buffer);
    let mut out = vec![];
    for o in block_of(op).into_iter().skip_while(|o| o.ptr != op.ptr).skip(1) {
        match use_of(o, buffer) {
            Use::None => {}
            Use::Overwrite => break,
            Use::Read | Use::ReadWrite => out.push(o),
        }
    }
    out
}

/// Whether `v` is a memref allocated in its function (`memref.alloc`).
pub fn is_alloc(v: MlirValue) -> bool {
    ir::defining_op(root(v)).is_some_and(|d| ir::name(d) == "memref.alloc")
}

/// Erases the writes to temporaries that nothing reads any more (fills, copies and transposes
/// the converted ops left), then the temporaries only deallocations and views use.
pub fn clean_up(func: MlirOperation) {
    loop {
        let block = ir::region_block(func, 0);
        let ops = ir::block_ops(block);
        let mut erased = false;
        for &o in &ops {
            let name = ir::name(o);
            let target = match name.as_str() {
                "linalg.fill" | "memref.copy" | "linalg.transpose" => ir::operand(o, 1),
                _ => continue,
            };
            let r = root(target);
            if !is_alloc(r) {
                continue;
            }
            if uses_after(o, r).is_empty() {
                // SAFETY: `o` writes a temporary that nothing reads afterwards; it has no
                // results, so no uses.
                unsafe { ir::erase(o) };
                erased = true;
                break;
            }
        }
        if !erased {
            break;
        }
    }
    let block = ir::region_block(func, 0);
    for &o in ir::block_ops(block).iter().rev() {
        if is_view(o) && ir::users(ir::result(o, 0)).is_empty() {
            // SAFETY: a view nothing uses.
            unsafe { ir::erase(o) };
        }
    }
    for o in ir::block_ops(block) {
        if ir::name(o) != "memref.alloc" {
            continue;
        }
        let users = ir::users(ir::result(o, 0));
        if users.iter().all(|&u| ir::name(u) == "memref.dealloc") {
            // SAFETY: the deallocations are the allocation's only users; erased first.
            unsafe {
                for u in users {
                    ir::erase(u);
                }
                ir::erase(o);
            }
        }
    }
}

/// Each temporary the Axe kernels still use (through an `axe.view`) becomes a function argument
/// the launcher allocates (`{axe.workspace}`): the buffers a program of several kernels passes
/// from one to the next. Returns how many.
pub fn promote_temporaries(func: MlirOperation) -> usize {
    let block = ir::region_block(func, 0);
    let mut n = 0;
    for o in ir::block_ops(block) {
        if ir::name(o) != "memref.alloc" || !ir::is_identity_memref(ir::value_type(ir::result(o, 0))) {
            continue;
        }
        let v = ir::result(o, 0);
        let viewed = ir::users(v)
            .iter()
            .any(|&u| ir::name(u) == crate::dialect::ods::ops::VIEW);
        if !viewed {
            continue;
        }
        let arg = super::add_workspace_argument(func, ir::value_type(v));
        // SAFETY: `v` and `arg` are live values of the same type; the allocation and its
        // deallocations are erased once nothing else uses it.
        unsafe {
            mlirValueReplaceAllUsesOfWith(v, arg);
            for u in ir::users(arg) {
                if ir::name(u) == "memref.dealloc" {
                    ir::erase(u);
                }
            }
            ir::erase(o);
        }
        n += 1;
    }
    n
}
