//! `axe-lower-to-nvvm`'s Rust step: what the outlined kernels need the NVPTX backend to know
//! before upstream's GPU-to-NVVM pipeline turns them into PTX.
//!
//! The pass shell (C++, `dialect/lib/Pipelines.cpp`) runs upstream's first two steps
//! (`convert-nvgpu-to-nvvm`, `gpu-kernel-outlining`), then this body on the module, then the
//! rest of upstream's pipeline.
//!
//! **Warpgroups that hand registers to each other** (`axe.set_max_registers`, lowered to
//! `nvvm.setmaxregister`; the paper's warp-specialized Hopper GEMM, §4.1): `setmaxnreg` moves
//! registers between warpgroups at run time, but ptxas can only lay out the code after it for
//! the new count when it knows the count every thread starts with. It derives that from the
//! kernel's `.maxntid` (upstream sets it from the launch's constant block size) only together
//! with `.minnctapersm`; without it ptxas may drop the `setmaxnreg`s ("C7508: 'setmaxnreg'
//! ignored; unable to determine register count at entry", CUDA 13, for a kernel whose
//! consumers needed more) and compile the whole kernel within the launch count, 65536 / 384
//! = 168 registers for a producer warpgroup and two consumer warpgroups. Such a kernel holds
//! the SM alone anyway (its consumers take 232 registers each once they run), so each gets
//! `nvvm.minctasm = 1`, the `.minnctapersm 1` that makes the entry count known. Measured on an
//! H100 (bench/RESULTS.md, "A compiler defect: `setmaxnreg` was dropped by ptxas"): an mma.sync
//! consumer's 64 x 64 warp tile spilled 364 bytes at 168 registers and none after, and the
//! kernel ran 1.13x faster.

use axe_upstream_ods::{gpu, nvvm};
use mlir_sys::*;

use crate::ir;

/// The NVVM dialect's function attribute for a kernel's least number of CTAs per SM
/// (upstream `NVVMDialect::getMinctasmAttrName()`, translated to PTX `.minnctapersm`).
const MIN_CTAS_PER_SM: &str = "nvvm.minctasm";

/// Marks every outlined kernel (`gpu.func`) that resizes its warpgroups' registers with one CTA
/// per SM at least, so that ptxas honors its `setmaxnreg`s. Always succeeds.
pub fn run(module: MlirOperation) -> bool {
    for kernel in ir::collect(module, &[gpu::GPUFuncOperation::name()]) {
        if ir::collect(kernel, &[nvvm::SetMaxRegisterOperation::name()]).is_empty()
            || ir::has_attr(kernel, MIN_CTAS_PER_SM)
        {
            continue;
        }
        // SAFETY: `kernel` is live and owned by the running pass.
        let ctx = unsafe { mlirOperationGetContext(kernel) };
        ir::set_discardable_attr(kernel, MIN_CTAS_PER_SM, ir::integer_attr(ctx, 32, 1));
    }
    true
}
