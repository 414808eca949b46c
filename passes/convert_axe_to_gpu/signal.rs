//! `axe.signal` / `axe.signal_wait`: flags between CTAs of one device or of the devices of a
//! mesh (paper §4.3: a GEMM tile's consumers, on another GPU, start as soon as it is done).
//!
//! Both run at the granularity of their innermost scope (the CTA, a warpgroup, a warp, a
//! thread: the "unit"):
//! * `axe.signal %flag, %v`: the unit synchronizes (`bar.sync`, a warpgroup's named barrier or
//!   `bar.warp.sync`, which order every thread's prior writes before what its first thread
//!   does next), then the first thread fences (`fence.acq_rel.{sys,gpu}`, cumulative: it
//!   covers the writes the barrier ordered before it) and stores `v` with release semantics
//!   (`st.release.{sys,gpu}`): whoever acquires `v` at the flag observes every write of the
//!   unit before the signal, on whichever device it made them. (The pattern of CUDA's grid
//!   synchronization: one thread's fence after a barrier, not one per thread — a system-scope
//!   fence waits for the writes to be acknowledged, over NVLink for a peer's memory.)
//! * `axe.signal_wait %flag, %v`: the first thread polls the flag with acquire loads
//!   (`ld.acquire.{sys,gpu}`) until it holds `v`; the unit then synchronizes, which orders
//!   every thread's following reads after the acquire, and, in a kernel with TMA copies,
//!   fences the async proxy (`fence.proxy.async.global`) for the TMA loads that may read the
//!   flagged data next.
//!
//! The flag is a one-element `i32` tensor (the verifier checks it) anywhere a global tensor
//! may be: a local buffer, or a peer's (a distributed flag array sliced at a device), so its
//! address comes from the same layout and peer-table code as every other access. The memory
//! orderings are LLVM's atomic orderings, which the NVPTX backend emits as the instructions
//! above.
//!
//! Scope: the narrowest one that holds every CTA that can observe the flag. A kernel of a
//! device mesh (its function has the `{axe.mesh_rank}` or an `{axe.peers_of}` argument, which
//! the mesh lowering adds) may signal or be signalled by a peer GPU: system scope (`.sys`).
//! Any other kernel's flags are only seen by CTAs of its own GPU: GPU scope (LLVM's `"device"`
//! sync scope, `.gpu`), whose fences and acquire polls do not wait on the system's coherence
//! point. (A flag written by the host or by another process while the kernel runs is outside
//! this contract: such writers are not Axe programs.)

use melior::dialect::arith::CmpiPredicate;
use mlir_sys::*;

use super::builder::{Ix, B};
use super::context::{Ctx, R};
use super::tensor::tensor;
use crate::dialect::ods;
use crate::error::AxeError;
use crate::ir;
use crate::target::{ScopeKind, WARPGROUP_THREADS, WARP_THREADS};
use axe_layout::Axis;

/// LLVM's atomic orderings, as the LLVM dialect's `ordering` attribute holds them (an `i64`
/// enum attribute with no textual form of its own: the values of `llvm::AtomicOrdering`,
/// fixed by LLVM's bitcode format). Neither melior nor the C API names them.
#[derive(Clone, Copy)]
enum Ordering {
    Monotonic = 2,
    Acquire = 4,
    Release = 5,
    AcqRel = 6,
}

fn ordering(b: &B, o: Ordering) -> MlirAttribute {
    b.i64_attr(o as i64)
}

/// The address of every flag of `op`'s flag tensor (in row-major order), as generic LLVM
/// pointers: element x at the memory offset its layout gives it.
fn flag_pointers(b: &B, ctx: &Ctx, op: MlirOperation) -> R<Vec<MlirValue>> {
    // axe.signal and axe.signal_wait both take the flag first.
    let t = tensor(ctx, op, ir::operand(op, ods::signal::operands::FLAG))?;
    if t.swizzle.is_some() || t.per_thread {
        return Err(AxeError::at(op, "internal: a swizzled or per-thread flag (the verifier requires a global flag; signals are refused when emulating)"));
    }
    let base = b.extract_aligned_pointer_as_index(t.buf);
    let i64t = b.int_type(64);
    let mut pointers = Vec::new();
    for x in 0..t.size() {
        let points = t.layout.eval_flat(x).map_err(|e| {
            AxeError::at(
                op,
                format!(
                    "internal: the flag's layout does not cover its shape ({e}); the tensor type's verifier checks it"
                ),
            )
        })?;
        let [point] = points.as_slice() else {
            return Err(AxeError::at(
                op,
                "a flag's layout gives each flag one address (no replicas)",
            ));
        };
        let m = point.get(&Axis::memory()).copied().unwrap_or(0);
        let element = b.add(Ix::C(m), t.dyn_offset);
        let at = b.add(Ix::V(base), b.mul(element, 4));
        let addr = b.index_cast(b.ix(at), i64t);
        pointers.push(b.inttoptr(addr, b.llvm_ptr(0)));
    }
    Ok(pointers)
}

/// The sync scope of `op`'s flag accesses: the system for a kernel of a device mesh, else the
/// GPU (see the module's documentation).
fn sync_scope(op: MlirOperation) -> Option<&'static str> {
    // The mesh lowering gives the function the rank argument, or a peer table per buffer that
    // other devices reach (a mesh kernel may have only the latter).
    let in_mesh = ir::enclosing_function(op).is_some_and(|f| {
        ir::region_blocks(f).first().is_some_and(|&entry| {
            ir::block_arguments(entry).into_iter().any(|a| {
                ir::declared_flag(a, ods::discardable_attrs::MESH_RANK)
                    || ir::declared_int(a, ods::discardable_attrs::PEERS_OF).is_some()
            })
        })
    });
    if in_mesh {
        None
    } else {
        Some("device")
    }
}

/// An LLVM fence with acquire-release ordering at `scope`.
fn fence(b: &B, scope: Option<&str>) {
    b.llvm_fence(ordering(b, Ordering::AcqRel), scope);
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
                "internal: '{}' at CTA granularity inside a sliced scope (scopes nest narrower, and slices of CTA scopes are refused)",
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
    let ptr = flag_pointers(&b, ctx, op)?[0];
    let value = ir::operand(op, ods::signal::operands::VALUE);
    // Bulk stores and reductions into peers' memory (`bulk.rs`) complete behind the issuing
    // thread: every thread of the unit first waits for its own bulk groups (nothing for a
    // thread that issued none), so the writes they made are complete, and visible to their
    // issuer, before the barrier.
    if !ctx.tma.bulk_stores.is_empty() {
        b.cp_async_bulk_wait_group(0);
    }
    // The barrier orders every thread's prior writes before the first thread's fence, which
    // is cumulative: the release store publishes them all.
    sync_unit(&b, ctx, threads);
    let scope = sync_scope(op);
    on_first_of_unit(&b, ctx, threads, |t| {
        fence(t, scope);
        t.llvm_store_atomic(value, ptr, ordering(t, Ordering::Release), 4, scope);
    })?;
    Ok(())
}

/// `axe.signal_wait %flag, %value`, executed by every thread of the enclosing scope's unit.
pub fn wait(op: MlirOperation, ctx: &Ctx, scope: ScopeKind) -> R<()> {
    refuse_emulation(op, ctx)?;
    let threads = unit_threads(op, ctx, scope)?;
    let b = B::before(op);
    let pointers = flag_pointers(&b, ctx, op)?;
    let value = ir::operand(op, ods::signal_wait::operands::VALUE);
    let i32t = b.int_type(32);
    let scope = sync_scope(op);
    on_first_of_unit(&b, ctx, threads, |t| {
        if let [ptr] = pointers[..] {
            t.spin_while(|g| {
                let v = g.llvm_load_scoped(ptr, i32t, Some((ordering(&g, Ordering::Acquire), 4)), scope);
                g.cmpi(CmpiPredicate::Ne, v, value)
            });
        } else {
            // Several flags: relaxed loads of all of them per round (independent: in flight
            // together), until every one holds the value; then an acquire fence, which makes
            // the relaxed loads that saw the values acquire them.
            t.spin_while(|g| {
                let missing: Vec<MlirValue> = pointers
                    .iter()
                    .map(|&ptr| {
                        let v = g.llvm_load_scoped(ptr, i32t, Some((ordering(&g, Ordering::Monotonic), 4)), scope);
                        g.cmpi(CmpiPredicate::Ne, v, value)
                    })
                    .collect();
                missing[1..].iter().fold(missing[0], |any, &m| g.ori(any, m))
            });
            t.llvm_fence(ordering(t, Ordering::Acquire), scope);
        }
    })?;
    sync_unit(&b, ctx, threads);
    // The flagged data may next be read by TMA (the async proxy), which the acquire above
    // does not order: each thread orders its generic-proxy view before its async-proxy reads.
    // Only a kernel with TMA copies has such reads (bulk reductions read their destination
    // too), and sm_80 has no async proxy (NVPTX aborts on the fence there).
    if ctx.tma.active() || !ctx.tma.bulk_stores.is_empty() {
        b.fence_proxy_async_global();
    }
    Ok(())
}
