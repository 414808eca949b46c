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
use crate::target::{ScopeKind, WARPGROUP_THREADS, WARP_THREADS};

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

/// The threads that execute a signal or a wait in a scope of `kind`: every thread of the
/// executing unit (the CTA, a warpgroup, a warp, one thread).
fn unit_threads(op: MlirOperation, ctx: &Ctx, kind: ScopeKind) -> R<i64> {
    match kind {
        ScopeKind::Thread => Ok(1),
        ScopeKind::Warp => Ok(WARP_THREADS),
        ScopeKind::Warpgroup => Ok(WARPGROUP_THREADS),
        // A sliced scope's threads are not the whole CTA: a CTA barrier would never complete.
        ScopeKind::Cta | ScopeKind::Cluster if ctx.scope_id != 0 => Err(AxeError::at(
            op,
            format!(
                "'{}' at CTA granularity inside a sliced scope: the threads outside the slice never reach its CTA barrier (put it in a warp or warpgroup scope)",
                ir::name(op)
            ),
        )),
        ScopeKind::Cta | ScopeKind::Cluster => Ok(ctx.threads),
    }
}

/// Synchronizes the executing unit of `threads` threads (a CTA barrier, the warpgroup's named
/// barrier, a warp barrier; nothing for one thread).
fn sync_unit(b: &B, ctx: &Ctx, threads: i64) {
    match threads {
        1 => {}
        WARP_THREADS => {
            let mask = b.ci32(-1);
            b.bar_warp_sync(mask);
        }
        WARPGROUP_THREADS if threads != ctx.threads => super::barrier::warpgroup(b, ctx),
        _ => {
            b.gpu_barrier();
        }
    }
}

/// Runs `body` on the unit's first thread only (the one that stores or polls the flag); a
/// unit of one thread runs it unconditionally.
fn on_first_of_unit(b: &B, ctx: &Ctx, threads: i64, body: impl FnOnce(&B)) -> R<()> {
    if threads == 1 {
        body(b);
        return Ok(());
    }
    let within = if threads >= ctx.threads {
        Ix::V(ctx.tid)
    } else {
        b.rem(Ix::V(ctx.tid), threads)
    };
    let first = b.cmp(CmpiPredicate::Eq, within, Ix::C(0));
    b.if_(first, |t| -> R<()> {
        body(&t);
        Ok(())
    })?;
    Ok(())
}

/// `axe.signal %flag, %value`, executed by every thread of the enclosing scope's unit.
pub fn signal(op: MlirOperation, ctx: &Ctx, scope: ScopeKind) -> R<()> {
    refuse_emulation(op, ctx)?;
    let threads = unit_threads(op, ctx, scope)?;
    let b = B::before(op);
    let ptr = flag_pointer(&b, ctx, op)?;
    let value = ir::operand(op, ods::signal::operands::VALUE);
    // The barrier orders every thread's prior writes before the first thread's fence, which
    // is cumulative: the release store publishes them all.
    sync_unit(&b, ctx, threads);
    on_first_of_unit(&b, ctx, threads, |t| {
        fence(t);
        t.llvm_store_atomic(value, ptr, ordering(t, Ordering::Release), 4);
    })?;
    Ok(())
}

/// `axe.signal_wait %flag, %value`, executed by every thread of the enclosing scope's unit.
pub fn wait(op: MlirOperation, ctx: &Ctx, scope: ScopeKind) -> R<()> {
    refuse_emulation(op, ctx)?;
    let threads = unit_threads(op, ctx, scope)?;
    let b = B::before(op);
    let ptr = flag_pointer(&b, ctx, op)?;
    let value = ir::operand(op, ods::signal_wait::operands::VALUE);
    let i32t = b.int_type(32);
    on_first_of_unit(&b, ctx, threads, |t| {
        t.spin_while(|g| {
            let v = g.llvm_load(ptr, i32t, Some((ordering(&g, Ordering::Acquire), 4)));
            g.cmpi(CmpiPredicate::Ne, v, value)
        });
    })?;
    sync_unit(&b, ctx, threads);
    // The flagged data may next be read by TMA (the async proxy), which the acquire above
    // does not order: each thread orders its generic-proxy view before its async-proxy reads.
    b.fence_proxy_async_global();
    Ok(())
}
