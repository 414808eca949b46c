//! [`B`]'s builders of the `gpu` dialect: barriers, terminators, shuffles.

use super::*;
use axe_upstream_ods::gpu;

impl B {
    /// `gpu.barrier`.
    pub fn gpu_barrier(&self) -> MlirOperation {
        self.build(gpu::barrier)
    }

    /// `gpu.terminator`.
    pub fn gpu_terminator(&self) -> MlirOperation {
        self.build(gpu::terminator)
    }

    /// `gpu.shuffle xor %value, %offset, %width`: the shuffled value and its `i1` validity.
    pub fn gpu_shuffle_xor(&self, value_: MlirValue, offset: MlirValue, width: MlirValue) -> (MlirValue, MlirValue) {
        let t = ir::value_type(value_);
        let i1 = self.int_type(1);
        let mode = self.attr("#gpu<shuffle_mode xor>");
        let op = self.build(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let (v, o, w) = unsafe { (value(value_), value(offset), value(width)) };
            gpu::shuffle(c, Self::type_(t), Self::type_(i1), v, o, w, Self::attribute(mode), l)
        });
        // SAFETY: `op` was just built with two results.
        unsafe { (mlirOperationGetResult(op, 0), mlirOperationGetResult(op, 1)) }
    }
}
