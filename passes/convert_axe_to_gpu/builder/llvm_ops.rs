//! [`B`]'s builders of the `llvm` dialect: pointers, scoped and atomic loads and stores, fences, aggregates, intrinsics, inline assembly.

use super::*;
use axe_upstream_ods::llvm;
use melior::ir::attribute::{IntegerAttribute, StringAttribute};
use melior::ir::Attribute;

impl B {
    /// `llvm.inttoptr %v : ... to t`.
    pub fn inttoptr(&self, v: MlirValue, t: MlirType) -> MlirValue {
        // SAFETY: `v` is a live value visible here (module and builder contracts).
        self.build_value(|c, l| llvm::inttoptr(c, Self::type_(t), unsafe { value(v) }, l))
    }

    /// `llvm.addrspacecast %v : ... to t`.
    pub fn addrspacecast(&self, v: MlirValue, t: MlirType) -> MlirValue {
        // SAFETY: `v` is a live value visible here (module and builder contracts).
        self.build_value(|c, l| llvm::addrspacecast(c, Self::type_(t), unsafe { value(v) }, l))
    }

    /// `llvm.bitcast %v : ... to t` (same bit width; e.g. a `vector<2xf16>` to the `i32` a
    /// 32-bit register operand of inline PTX takes).
    pub fn llvm_bitcast(&self, v: MlirValue, t: MlirType) -> MlirValue {
        // SAFETY: `v` is a live value visible here (module and builder contracts).
        self.build_value(|c, l| llvm::bitcast(c, Self::type_(t), unsafe { value(v) }, l))
    }

    /// `llvm.load %ptr : ... -> t`, atomic with `ordering` (an `i64` attribute holding an
    /// `llvm::AtomicOrdering`) and `alignment` bytes when given.
    pub fn llvm_load(&self, ptr: MlirValue, t: MlirType, atomic: Option<(MlirAttribute, i64)>) -> MlirValue {
        self.llvm_load_scoped(ptr, t, atomic, None)
    }

    /// `llvm.load` as [`B::llvm_load`], an atomic one at synchronization scope `syncscope`
    /// (LLVM's name: `"device"` is the GPU, NVPTX's `.gpu`; `None` is the system, `.sys`).
    pub fn llvm_load_scoped(
        &self,
        ptr: MlirValue,
        t: MlirType,
        atomic: Option<(MlirAttribute, i64)>,
        syncscope: Option<&str>,
    ) -> MlirValue {
        let i64t = self.int_type(64);
        self.build_value(|c, l| {
            // SAFETY: `ptr` is a live value visible here (module and builder contracts).
            let op = llvm::LoadOperation::builder(c, l)
                .res(Self::type_(t))
                .addr(unsafe { value(ptr) });
            match (atomic, syncscope) {
                (None, _) => op.build(),
                (Some((ordering, alignment)), None) => op
                    .alignment(IntegerAttribute::new(Self::type_(i64t), alignment))
                    .ordering(Self::attribute(ordering))
                    .build(),
                (Some((ordering, alignment)), Some(scope)) => op
                    .alignment(IntegerAttribute::new(Self::type_(i64t), alignment))
                    .ordering(Self::attribute(ordering))
                    .syncscope(StringAttribute::new(c, scope))
                    .build(),
            }
        })
    }

    /// `llvm.store %v, %ptr`, atomic with `ordering` and `alignment` bytes, at
    /// synchronization scope `syncscope` (as for [`B::llvm_load_scoped`]).
    pub fn llvm_store_atomic(
        &self,
        v: MlirValue,
        ptr: MlirValue,
        ordering: MlirAttribute,
        alignment: i64,
        syncscope: Option<&str>,
    ) {
        let i64t = self.int_type(64);
        self.build(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let (v, ptr) = unsafe { (value(v), value(ptr)) };
            let op = llvm::StoreOperation::builder(c, l)
                .value(v)
                .addr(ptr)
                .alignment(IntegerAttribute::new(Self::type_(i64t), alignment))
                .ordering(Self::attribute(ordering));
            match syncscope {
                None => op.build(),
                Some(scope) => op.syncscope(StringAttribute::new(c, scope)).build(),
            }
        });
    }

    /// `llvm.fence` with `ordering` (an `i64` attribute holding an `llvm::AtomicOrdering`) at
    /// synchronization scope `syncscope` (as for [`B::llvm_load_scoped`]).
    pub fn llvm_fence(&self, ordering: MlirAttribute, syncscope: Option<&str>) {
        self.build(|c, l| {
            let op = llvm::FenceOperation::builder(c, l).ordering(Self::attribute(ordering));
            match syncscope {
                None => op.build(),
                Some(scope) => op.syncscope(StringAttribute::new(c, scope)).build(),
            }
        });
    }

    /// `llvm.mlir.poison : t`.
    pub fn poison(&self, t: MlirType) -> MlirValue {
        self.build_value(|c, l| llvm::mlir_poison(c, Self::type_(t), l))
    }

    /// `llvm.mlir.undef : t`.
    pub fn undef(&self, t: MlirType) -> MlirValue {
        self.build_value(|c, l| llvm::mlir_undef(c, Self::type_(t), l))
    }

    /// `llvm.insertvalue %v, %container[position]`.
    pub fn insertvalue(&self, container: MlirValue, v: MlirValue, position: &[i64]) -> MlirValue {
        let t = ir::value_type(container);
        let position = self.i64_array(position);
        self.build_value(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let (container, v) = unsafe { (value(container), value(v)) };
            llvm::insertvalue(c, Self::type_(t), container, v, Self::attribute(position), l)
        })
    }

    /// `llvm.extractvalue %container[position] : t`.
    pub fn extractvalue(&self, container: MlirValue, position: &[i64], t: MlirType) -> MlirValue {
        let position = self.i64_array(position);
        self.build_value(|c, l| {
            // SAFETY: `container` is a live value visible here (module and builder contracts).
            let container = unsafe { value(container) };
            llvm::extractvalue(c, Self::type_(t), container, Self::attribute(position), l)
        })
    }

    /// `llvm.intr.exp2 %v`.
    pub fn llvm_exp2(&self, v: MlirValue) -> MlirValue {
        // SAFETY: `v` is a live value visible here (module and builder contracts).
        self.build_value(|c, l| llvm::intr_exp_2(c, unsafe { value(v) }, l))
    }

    /// `llvm.intr.sqrt %v`.
    pub fn llvm_sqrt(&self, v: MlirValue) -> MlirValue {
        // SAFETY: `v` is a live value visible here (module and builder contracts).
        self.build_value(|c, l| llvm::intr_sqrt(c, unsafe { value(v) }, l))
    }

    /// `llvm.inline_asm has_side_effects asm_string, constraints (%operands) -> t`.
    pub fn inline_asm_side_effects(
        &self,
        asm: &str,
        constraints: &str,
        operands: &[MlirValue],
        t: MlirType,
    ) -> MlirValue {
        self.build_value(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let operands = unsafe { values(operands) };
            llvm::InlineAsmOperation::builder(c, l)
                .res(Self::type_(t))
                .operands(&operands)
                .asm_string(StringAttribute::new(c, asm))
                .constraints(StringAttribute::new(c, constraints))
                .has_side_effects(Attribute::unit(c))
                .build()
        })
    }

    /// `llvm.inline_asm has_side_effects asm_string, constraints (%operands)` with no result:
    /// an instruction the NVVM dialect has no op for.
    pub fn inline_asm_void(&self, asm: &str, constraints: &str, operands: &[MlirValue]) {
        self.build(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let operands = unsafe { values(operands) };
            llvm::InlineAsmOperation::builder(c, l)
                .operands(&operands)
                .asm_string(StringAttribute::new(c, asm))
                .constraints(StringAttribute::new(c, constraints))
                .has_side_effects(Attribute::unit(c))
                .build()
        });
    }
}
