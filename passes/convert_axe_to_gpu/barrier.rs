//! `axe.barrier`: `cta` → `gpu.barrier` (bar.sync 0), `warpgroup` → the warpgroup's named
//! barrier (`bar.sync 1 + w, 128` for warpgroup w: barrier 0 is the CTA's, and a CTA of at
//! most 1024 threads has at most 8 warpgroups of the 15 other hardware barriers), `warp` →
//! `nvvm.bar.warp.sync` with a full mask, `thread` → nothing, `cluster` → `barrier.cluster`
//! arrive (release) and wait (acquire), every thread of every CTA of the cluster (a CTA
//! barrier in a kernel without clusters). When emulating on the CPU, top-level
//! CTA barriers split the kernel into phases (kernel.rs); any other barrier is refused.

use crate::error::AxeError;
use mlir_sys::MlirOperation;

use super::builder::B;
use super::context::{Ctx, R};
use crate::dialect::ods;
use crate::ir;
use crate::target::ScopeKind;

/// Synchronizes the 128 threads of the executing thread's warpgroup (named barrier 1 + w).
pub fn warpgroup(b: &B, ctx: &Ctx) {
    let w = b.div(super::builder::Ix::V(ctx.tid), crate::target::WARPGROUP_THREADS);
    let id = b.add(w, super::builder::Ix::C(1));
    let i32t = b.int_type(32);
    let id = b.index_cast(b.ix(id), i32t);
    let n = b.ci32(128);
    // By name, not through `axe_upstream_ods`: an op with `AttrSizedOperandSegments`, and the
    // generated builders never set `operandSegmentSizes` (see [`B::op`]).
    b.op(
        "nvvm.barrier",
        &[id, n],
        &[],
        &[("operandSegmentSizes", b.i32_array(&[1, 1, 0]))],
        vec![],
    );
}

/// Synchronizes the unit that issues a TMA store: its warpgroup (named barrier) at warpgroup
/// scope, else the CTA.
pub fn store_unit(b: &B, ctx: &Ctx, scope: ScopeKind) {
    if scope == ScopeKind::Warpgroup {
        warpgroup(b, ctx);
    } else {
        b.gpu_barrier();
    }
}

/// Synchronizes every thread of the cluster's CTAs: `barrier.cluster.arrive` (release: this
/// thread's writes, shared memory included, are visible to the cluster) then
/// `barrier.cluster.wait` (acquire).
pub fn cluster(b: &B) {
    b.cluster_arrive();
    b.cluster_wait();
}

pub fn lower(op: MlirOperation, ctx: &mut Ctx) -> R<()> {
    let kind = ir::enum_attr::<ScopeKind>(op, ods::barrier::KIND)?;
    let b = B::before(op);
    match kind {
        Some(ScopeKind::Thread) => Ok(()),
        _ if ctx.emulate => Err(AxeError::at(
            op,
            "emulate-threads-on-cpu supports only `axe.barrier cta` at the top level of the kernel (it splits the kernel into phases)",
        )),
        Some(k @ (ScopeKind::Cta | ScopeKind::Cluster)) if ctx.scope_id != 0 => Err(AxeError::at(
            op,
            format!(
                "axe.barrier {} inside a sliced scope: the threads outside the slice never reach it (synchronize roles with axe.mbarrier)",
                k.as_str()
            ),
        )),
        Some(ScopeKind::Cluster) if ctx.cluster.is_some() => {
            cluster(&b);
            Ok(())
        }
        Some(ScopeKind::Cta | ScopeKind::Cluster) => {
            b.gpu_barrier();
            Ok(())
        }
        Some(ScopeKind::Warp) => {
            let mask = b.ci32(-1);
            b.bar_warp_sync(mask);
            Ok(())
        }
        Some(ScopeKind::Warpgroup) => {
            warpgroup(&b, ctx);
            Ok(())
        }
        None => Err(AxeError::at(op, "internal: axe.barrier without its kind (a required attribute)")),
    }
}
