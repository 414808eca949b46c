//! `axe.signal` / `axe.signal_wait`: flags between CTAs of one device or of the devices of a
//! mesh (paper §4.3: a GEMM tile's consumers, on another GPU, start as soon as it is done).
//!
//! * `axe.signal %flag, %v`: the CTA synchronizes (`bar.sync`, which orders every thread's
//!   prior writes before what thread 0 does next), then thread 0 fences at system scope
//!   (`fence.acq_rel.sys`, cumulative: it covers the writes the barrier ordered before it)
//!   and stores `v` with release semantics at system scope (`st.release.sys`): whoever
//!   acquires `v` at the flag observes every write of the CTA before the signal, on whichever
//!   device it made them. (The pattern of CUDA's grid synchronization: one thread's fence
//!   after a CTA barrier, not one per thread — a system-scope fence waits for the writes to
//!   be acknowledged, over NVLink for a peer's memory.)
//! * `axe.signal_wait %flag, %v`: thread 0 polls the flag with acquire loads at system scope
//!   (`ld.acquire.sys`) until it holds `v`; the CTA then synchronizes, which orders every
//!   thread's following reads after the acquire.
//!
//! The flag is a one-element `i32` tensor (the verifier checks it) anywhere a global tensor
//! may be: a local buffer, or a peer's (a distributed flag array sliced at a device), so its
//! address comes from the same layout and peer-table code as every other access. The memory
//! orderings are LLVM's atomic orderings at the default (system) scope, which the NVPTX
//! backend emits as the instructions above.

use melior::dialect::arith::CmpiPredicate;
use mlir_sys::*;

use super::address;
use super::builder::{Ix, B};
use super::context::{Ctx, R};
use super::tensor::tensor;
use crate::dialect::ods;
use crate::error::AxeError;
use crate::ir;

/// LLVM's atomic orderings, as the LLVM dialect's `ordering` attribute holds them (an `i64`
/// enum attribute with no textual form of its own: the values of `llvm::AtomicOrdering`,
/// fixed by LLVM's bitcode format). Neither melior nor the C API names them.
#[derive(Clone, Copy)]
enum Ordering {
    Acquire = 4,
    Release = 5,
    AcqRel = 6,
}

fn ordering(b: &B, o: Ordering) -> MlirAttribute {
    b.i64_attr(o as i64)
}

/// The flag's address, as a generic LLVM pointer.
fn flag_pointer(b: &B, ctx: &Ctx, op: MlirOperation) -> R<MlirValue> {
    // axe.signal and axe.signal_wait both take the flag first.
    let t = tensor(ctx, op, ir::operand(op, ods::signal::operands::FLAG))?;
    if t.swizzle.is_some() || t.per_thread {
        return Err(AxeError::at(op, "a flag is a plain global tensor"));
    }
    let element = b.add(Ix::C(address::offset(&t.layout, "m")), t.dyn_offset);
    let base = b.extract_aligned_pointer_as_index(t.buf);
    let at = b.add(Ix::V(base), b.mul(element, 4));
    let i64t = b.int_type(64);
    let addr = b.index_cast(b.ix(at), i64t);
    Ok(b.inttoptr(addr, b.llvm_ptr(0)))
}

/// An LLVM fence with acquire-release ordering at system scope.
fn fence(b: &B) {
    b.llvm_fence(ordering(b, Ordering::AcqRel));
}

fn refuse_emulation(op: MlirOperation, ctx: &Ctx) -> R<()> {
    if ctx.emulate {
        return Err(AxeError::at(
            op,
            format!(
                "'{}' is not emulated on the CPU: emulated ranks and CTAs run one after another, so a wait could never see its signal",
                ir::name(op)
            ),
        ));
    }
    Ok(())
}

/// `axe.signal %flag, %value`.
pub fn signal(op: MlirOperation, ctx: &Ctx) -> R<()> {
    refuse_emulation(op, ctx)?;
    let b = B::before(op);
    let ptr = flag_pointer(&b, ctx, op)?;
    let value = ir::operand(op, ods::signal::operands::VALUE);
    b.gpu_barrier();
    let first = b.cmp(CmpiPredicate::Eq, Ix::V(ctx.tid), Ix::C(0));
    b.if_(first, |t| -> R<()> {
        fence(&t);
        t.llvm_store_atomic(value, ptr, ordering(&t, Ordering::Release), 4);
        Ok(())
    })?;
    Ok(())
}

/// `axe.signal_wait %flag, %value`.
pub fn wait(op: MlirOperation, ctx: &Ctx) -> R<()> {
    refuse_emulation(op, ctx)?;
    let b = B::before(op);
    let ptr = flag_pointer(&b, ctx, op)?;
    let value = ir::operand(op, ods::signal_wait::operands::VALUE);
    let i32t = b.int_type(32);
    let first = b.cmp(CmpiPredicate::Eq, Ix::V(ctx.tid), Ix::C(0));
    b.if_(first, |t| -> R<()> {
        t.spin_while(|g| {
            let v = g.llvm_load(ptr, i32t, Some((ordering(&g, Ordering::Acquire), 4)));
            g.cmpi(melior::dialect::arith::CmpiPredicate::Ne, v, value)
        });
        Ok(())
    })?;
    b.gpu_barrier();
    Ok(())
}
