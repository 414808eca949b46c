//! `axe.barrier`: `cta` → `gpu.barrier` (bar.sync 0), `warp` → `nvvm.bar.warp.sync` with a
//! full mask, `thread` → nothing. Warpgroup and cluster barriers are refused (they need
//! named barriers / cluster barriers, not implemented). When emulating on the CPU, top-level
//! CTA barriers split the kernel into phases (kernel.rs); any other barrier is refused.

use crate::error::AxeError;
use mlir_sys::MlirOperation;

use super::builder::B;
use super::{Ctx, R};
use crate::dialect::ods;
use crate::ir;
use crate::target::ScopeKind;

pub fn lower(op: MlirOperation, ctx: &mut Ctx) -> R<()> {
    let kind = ir::enum_attr::<ScopeKind>(op, ods::barrier::KIND)?;
    let b = B::before(op);
    match kind {
        Some(ScopeKind::Thread) => Ok(()),
        _ if ctx.emulate => Err(AxeError::at(
            op,
            "emulate-threads-on-cpu supports only `axe.barrier cta` at the top level of the kernel (it splits the kernel into phases)",
        )),
        Some(ScopeKind::Cta) if ctx.in_sliced_scope => Err(AxeError::at(
            op,
            "axe.barrier cta inside a sliced scope: the threads outside the slice never reach it (synchronize roles with axe.mbarrier)",
        )),
        Some(ScopeKind::Cta) => {
            b.op("gpu.barrier", &[], &[], &[], vec![]);
            Ok(())
        }
        Some(ScopeKind::Warp) => {
            let mask = b.ci32(-1);
            b.op("nvvm.bar.warp.sync", &[mask], &[], &[], vec![]);
            Ok(())
        }
        Some(k) => Err(AxeError::at(
            op,
            format!(
                "{} {} is not lowered by convert-axe-to-gpu yet (needs named/cluster barriers)",
                ods::barrier::NAME,
                k.as_str()
            ),
        )),
        None => Err(AxeError::at(op, "bad barrier kind")),
    }
}
