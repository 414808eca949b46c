//! Async tokens (`!axe.token`): what each one can come from, analysed over the Axe IR before
//! anything is rewritten, and their retyping to `i32` for the lowering.
//!
//! An `axe.wait` picks its completion mechanisms from its tokens' producers: a TMA copy's
//! token waits on that copy's mbarrier (`tma.rs`), an async gemm's on its wgmma group, any
//! other copy's on the thread's cp.async groups (or nothing: the copy completed). A token
//! flows from its `axe.copy`, `axe.gemm` or `axe.arrive` through `scf.for` (init values,
//! iter_args, yielded values, loop results) and `scf.if` results to the waits; a loop-carried
//! token can come from several kinds of producer, and a wait on it uses every mechanism
//! they need. The lowering rewrites tokens to `i32` values (barrier indices) as it goes, so
//! the kinds are computed up front, per `axe.wait` operand, and looked up when the wait is
//! lowered ([`Tokens::of_wait`]).

use std::collections::HashMap;

use axe_upstream_ods::scf;
use mlir_sys::*;

use crate::dialect::ods::{self, CopySchedule};
use crate::error::AxeError;
use crate::error::Result as R;
use crate::ir;

/// The i32 an async wgmma gemm's token becomes.
pub const GEMM_TOKEN: i64 = -2;

/// What a token can come from.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Kinds {
    /// A TMA copy (completing on its mbarrier).
    pub tma: bool,
    /// An async gemm (a wgmma group).
    pub gemm: bool,
    /// An `axe.arrive` (ordering TMA copies, not something to wait for).
    pub release: bool,
    /// A copy that is not a TMA copy (cp.async groups, or already complete).
    pub copy: bool,
}

impl Kinds {
    pub fn union(self, o: Kinds) -> Kinds {
        Kinds {
            tma: self.tma || o.tma,
            gemm: self.gemm || o.gemm,
            copy: self.copy || o.copy,
            release: self.release || o.release,
        }
    }
}

/// The token analysis of one kernel: per `axe.wait`, the kinds of each of its tokens.
#[derive(Default)]
pub struct Tokens {
    waits: HashMap<usize, Vec<Kinds>>,
}

impl Tokens {
    /// Analyses the tokens of `kernel` (before any of its ops is lowered). For a kernel
    /// lowered to a GPU: TMA copies are TMA copies (emulated on the CPU they are plain copies,
    /// and waits do nothing, so emulation needs no analysis). A wait on a token whose
    /// producer cannot be traced is a located error.
    pub fn analyze(kernel: MlirOperation) -> R<Tokens> {
        let mut waits = HashMap::new();
        for w in ir::collect(kernel, &[ods::ops::WAIT]) {
            let kinds = (0..ir::num_operands(w))
                .map(|i| {
                    kinds_of(ir::operand(w, i), &mut Vec::new()).map_err(|what| {
                        AxeError::at(
                            w,
                            format!(
                                "cannot tell what this wait's token {i} comes from ({what}): tokens flow from axe.copy, axe.gemm and axe.arrive through scf.for (iter_args, results) and scf.if results"
                            ),
                        )
                    })
                })
                .collect::<R<Vec<Kinds>>>()?;
            waits.insert(w.ptr as usize, kinds);
        }
        Ok(Tokens { waits })
    }

    /// The kinds of the tokens that `wait` waits for, in operand order (none for a plain wait).
    pub fn of_wait(&self, wait: MlirOperation) -> R<&[Kinds]> {
        self.waits
            .get(&(wait.ptr as usize))
            .map(Vec::as_slice)
            .ok_or_else(|| AxeError::at(wait, "internal: an axe.wait the token analysis did not see"))
    }
}

/// The kinds of producer `v` can come from; `seen` holds the values being traced (a value met
/// again on a loop's back edge adds nothing). An untraceable value is an error naming it.
fn kinds_of(v: MlirValue, seen: &mut Vec<usize>) -> Result<Kinds, String> {
    if seen.contains(&(v.ptr as usize)) {
        return Ok(Kinds::default());
    }
    seen.push(v.ptr as usize);
    if let Some(d) = ir::defining_op(v) {
        let name = ir::name(d);
        let one = |k: Kinds| Ok(k);
        return match name.as_str() {
            ods::ops::COPY if ir::copy_schedule(d) == Some(CopySchedule::Tma) => one(Kinds {
                tma: true,
                ..Default::default()
            }),
            ods::ops::COPY => one(Kinds {
                copy: true,
                ..Default::default()
            }),
            ods::ops::GEMM => one(Kinds {
                gemm: true,
                ..Default::default()
            }),
            ods::ops::ARRIVE => one(Kinds {
                release: true,
                ..Default::default()
            }),
            n if n == scf::ForOperation::name() => {
                // A loop result: the loop's yielded value (and its init, for zero trips).
                let i = result_number(d, v);
                let y = ir::terminator(ir::region_block(d, 0)).ok_or("an scf.for without a body")?;
                Ok(kinds_of(ir::operand(d, 3 + i), seen)?.union(kinds_of(ir::operand(y, i), seen)?))
            }
            n if n == scf::IfOperation::name() => {
                // A branch result: what either branch yields.
                let i = result_number(d, v);
                let mut k = Kinds::default();
                for blk in ir::region_blocks(d) {
                    let y = ir::terminator(blk).ok_or("an scf.if branch without a yield")?;
                    k = k.union(kinds_of(ir::operand(y, i), seen)?);
                }
                Ok(k)
            }
            n => Err(format!("a result of '{n}'")),
        };
    }
    // SAFETY: `v` is live (module contract); its owner block and that block's parent op are
    // only read, a null parent refused before use.
    let (block, owner, n) = unsafe {
        if !mlirValueIsABlockArgument(v) {
            return Err("a value with neither a defining op nor a block".into());
        }
        let block = mlirBlockArgumentGetOwner(v);
        (
            block,
            mlirBlockGetParentOperation(block),
            mlirBlockArgumentGetArgNumber(v) as usize,
        )
    };
    if owner.ptr.is_null() || ir::name(owner) != scf::ForOperation::name() || n == 0 {
        let what = if owner.ptr.is_null() {
            "a block argument".to_string()
        } else {
            format!("block argument {n} of '{}'", ir::name(owner))
        };
        return Err(what);
    }
    // An iter_arg: the loop's init value, then what each iteration yields.
    let y = ir::terminator(block).ok_or("an scf.for without a yield")?;
    Ok(kinds_of(ir::operand(owner, 3 + n - 1), seen)?.union(kinds_of(ir::operand(y, n - 1), seen)?))
}

/// Which result of `op` the value `v` is.
fn result_number(op: MlirOperation, v: MlirValue) -> usize {
    (0..ir::num_results(op))
        .find(|&i| ir::result(op, i).ptr == v.ptr)
        .unwrap_or(0)
}

/// Tokens become `i32` inside the kernel (a TMA copy's barrier index; -1 for another copy,
/// [`GEMM_TOKEN`] for an async wgmma gemm): every token-typed block argument and non-Axe
/// result (loop-carried tokens) is retyped before the ops are lowered.
pub fn retype_tokens(kernel: MlirOperation) {
    // SAFETY: `kernel` is live (module contract); the type is uniqued in its context.
    let i32t = unsafe { mlirIntegerTypeGet(mlirOperationGetContext(kernel), 32) };
    // SAFETY: the value types are live (module contract); the predicate only reads them.
    let is_token = |v: MlirValue| unsafe { crate::dialect::ffi::axeTypeIsAToken(ir::value_type(v)) };
    for op in ir::collect_where(kernel, |_| true) {
        if !ods::is_axe_op(&ir::name(op)) {
            for i in 0..ir::num_results(op) {
                let r = ir::result(op, i);
                if is_token(r) {
                    // SAFETY: every token of the kernel becomes i32, its producers and users
                    // included (the Axe ones are lowered to i32 arithmetic and erased).
                    unsafe { ir::set_value_type(r, i32t) };
                }
            }
        }
        for blk in ir::region_blocks(op) {
            for arg in ir::block_arguments(blk) {
                if is_token(arg) {
                    // SAFETY: as for results: every token of the kernel becomes i32.
                    unsafe { ir::set_value_type(arg, i32t) };
                }
            }
        }
    }
}
