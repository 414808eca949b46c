//! Async tokens (`!axe.token`): what each one can come from, analysed over the Axe IR before
//! anything is rewritten, and their retyping to `i32` for the lowering.
//!
//! An `axe.wait` picks its completion mechanisms from its tokens' producers: a TMA copy's
//! token waits on that copy's mbarrier (`tma.rs`), an async TMA store's on its unit's bulk
//! groups (until read), an async gemm's on its wgmma group, any other copy's on the thread's
//! cp.async groups (or nothing: the copy completed). A token
//! flows from its `axe.copy`, `axe.gemm` or `axe.arrive` through `scf.for` (init values,
//! iter_args, yielded values, loop results) and `scf.if` results to the waits; a loop-carried
//! token can come from several kinds of producer, and a wait on it uses every mechanism
//! they need. The lowering rewrites tokens to `i32` values (barrier indices) as it goes, so
//! the kinds are computed up front, per `axe.wait` operand, and looked up when the wait is
//! lowered ([`Tokens::of_wait`]); so is the `axe.arrive` each TMA copy's `after` token comes
//! from ([`Tokens::after`]).

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
    /// An async TMA store (shared → global): a bulk group of its unit's first thread, waited
    /// for until the TMA unit has read the shared source.
    pub store: bool,
}

impl Kinds {
    pub fn union(self, o: Kinds) -> Kinds {
        Kinds {
            tma: self.tma || o.tma,
            gemm: self.gemm || o.gemm,
            copy: self.copy || o.copy,
            release: self.release || o.release,
            store: self.store || o.store,
        }
    }
}

impl std::fmt::Display for Kinds {
    /// The producers, as an error message names them ("a TMA copy or an async gemm").
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let names = [
            (self.tma, "a TMA copy"),
            (self.store, "a TMA store"),
            (self.gemm, "an async gemm"),
            (self.release, "an axe.arrive"),
            (self.copy, "a copy that is not a TMA copy"),
        ];
        let named: Vec<&str> = names.iter().filter(|(k, _)| *k).map(|(_, n)| *n).collect();
        if named.is_empty() {
            return f.write_str("no producer");
        }
        f.write_str(&named.join(" or "))
    }
}

/// One token operand as the analysis sees it.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Token {
    /// What it can come from.
    pub kinds: Kinds,
    /// The Axe op (its pointer, the key of the TMA plan's maps) whose own result the operand
    /// is, when it is one: not carried through `scf.for` or `scf.if`, so it has exactly that
    /// producer. Its lowered value is then that op's replacement, e.g. a TMA copy's barrier
    /// index (a constant of the plan); a carried token's is only known at run time.
    pub producer: Option<usize>,
}

/// The token analysis of one kernel: per `axe.wait`, each of its tokens; per TMA copy with
/// `after`, the `axe.arrive` that token comes from.
#[derive(Default)]
pub struct Tokens {
    waits: HashMap<usize, Vec<Token>>,
    afters: HashMap<usize, usize>,
}

impl Tokens {
    /// Analyses the tokens of `kernel` (before any of its ops is lowered). For a kernel
    /// lowered to a GPU: TMA copies are TMA copies (emulated on the CPU they are plain copies,
    /// and waits do nothing, so emulation needs no analysis). A wait on a token whose
    /// producer cannot be traced is a located error, and so is a TMA copy's `after` token
    /// that is not an `axe.arrive`'s own.
    pub fn analyze(kernel: MlirOperation) -> R<Tokens> {
        let untraced = |op: MlirOperation, what: String, why: String| {
            AxeError::at(
                op,
                format!(
                    "cannot tell what {what} comes from ({why}): tokens flow from axe.copy, axe.gemm and axe.arrive through scf.for (iter_args, results) and scf.if results"
                ),
            )
        };
        let mut waits = HashMap::new();
        for w in ir::collect(kernel, &[ods::ops::WAIT]) {
            let tokens = (0..ir::num_operands(w))
                .map(|i| token_of(ir::operand(w, i)).map_err(|why| untraced(w, format!("this wait's token {i}"), why)))
                .collect::<R<Vec<Token>>>()?;
            waits.insert(w.ptr as usize, tokens);
        }
        // `after`: the one token operand a copy can have. The verifier admits only an
        // `axe.arrive`'s own result there (and only on a TMA copy), so the refusal below is an
        // internal error, for IR that skipped verification.
        let mut afters = HashMap::new();
        for c in ir::collect(kernel, &[ods::ops::COPY]) {
            // SAFETY: the operand types are live (module contract); the predicate only reads them.
            let Some(after) = (ods::copy::MIN_OPERANDS..ir::num_operands(c))
                .map(|i| ir::operand(c, i))
                .find(|&v| unsafe { crate::dialect::ffi::axeTypeIsAToken(ir::value_type(v)) })
            else {
                continue;
            };
            let t = token_of(after).map_err(|why| {
                AxeError::at(
                    c,
                    format!("internal: this copy's 'after' token cannot be traced ({why}); the verifier admits only an axe.arrive's own token there"),
                )
            })?;
            let release = Kinds {
                release: true,
                ..Default::default()
            };
            match t.producer {
                Some(arrive) if t.kinds == release => {
                    afters.insert(c.ptr as usize, arrive);
                }
                _ => {
                    let how = if t.producer.is_some() {
                        ""
                    } else {
                        " carried through scf.for or scf.if"
                    };
                    return Err(AxeError::at(
                        c,
                        format!(
                            "internal: 'after' takes an axe.arrive's own token (the verifier's rule); this one comes from {}{how}",
                            t.kinds
                        ),
                    ));
                }
            }
        }
        Ok(Tokens { waits, afters })
    }

    /// The tokens that `wait` waits for, in operand order (none for a plain wait).
    pub fn of_wait(&self, wait: MlirOperation) -> R<&[Token]> {
        self.waits
            .get(&(wait.ptr as usize))
            .map(Vec::as_slice)
            .ok_or_else(|| AxeError::at(wait, "internal: an axe.wait the token analysis did not see"))
    }

    /// The `axe.arrive` (its pointer, the key of the TMA plan's `arrives`) whose token the
    /// copy `copy` is ordered `after`; None for a copy without `after`.
    pub fn after(&self, copy: MlirOperation) -> Option<usize> {
        self.afters.get(&(copy.ptr as usize)).copied()
    }
}

/// What the token `v` can come from, and its producer if it is an Axe op's own result.
fn token_of(v: MlirValue) -> Result<Token, String> {
    let kinds = kinds_of(v, &mut Vec::new())?;
    let producer = ir::defining_op(v)
        .filter(|d| ods::is_axe_op(&ir::name(*d)))
        .map(|d| d.ptr as usize);
    Ok(Token { kinds, producer })
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
            ods::ops::COPY if ir::copy_schedule(d) == Some(CopySchedule::Tma) && super::tma_plan::is_store(d) => {
                one(Kinds {
                    store: true,
                    ..Default::default()
                })
            }
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
                let y = ir::terminator(ir::region_block(d, 0)).ok_or("internal: an scf.for without a body")?;
                Ok(kinds_of(ir::operand(d, 3 + i), seen)?.union(kinds_of(ir::operand(y, i), seen)?))
            }
            n if n == scf::IfOperation::name() => {
                // A branch result: what either branch yields.
                let i = result_number(d, v);
                let mut k = Kinds::default();
                for blk in ir::region_blocks(d) {
                    let y = ir::terminator(blk).ok_or("internal: an scf.if branch without a yield")?;
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
            return Err("internal: a value with neither a defining op nor a block".into());
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
            "internal: an argument of a block outside any operation".to_string()
        } else {
            format!("block argument {n} of '{}'", ir::name(owner))
        };
        return Err(what);
    }
    // An iter_arg: the loop's init value, then what each iteration yields.
    let y = ir::terminator(block).ok_or("internal: an scf.for without a yield")?;
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
