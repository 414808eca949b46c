//! [`B`]'s builders of `memref` allocations and globals, and `builtin.unrealized_conversion_cast`.

use super::*;
use axe_upstream_ods::{builtin, memref as memref_ods};
use melior::ir::attribute::{FlatSymbolRefAttribute, IntegerAttribute, StringAttribute, TypeAttribute};
use melior::ir::Attribute;

impl B {
    /// `memref.alloca() : t` (static shape), with `alignment` bytes when given. By name, not
    /// through `axe_upstream_ods`: an op with `AttrSizedOperandSegments` (see [`B::op`]).
    pub fn alloca(&self, t: MlirType, alignment: Option<i64>) -> MlirValue {
        let mut attrs = vec![("operandSegmentSizes", self.i32_array(&[0, 0]))];
        if let Some(a) = alignment {
            attrs.push(("alignment", self.i64_attr(a)));
        }
        self.val("memref.alloca", &[], t, &attrs)
    }

    /// `memref.global @name : t {alignment}` with no initial value and public visibility: a
    /// declaration of storage defined elsewhere (LLVM: an external global).
    pub fn memref_global_declaration(&self, name: &str, t: MlirType, alignment: i64) {
        let i64t = self.int_type(64);
        self.build(|c, l| {
            memref_ods::GlobalOperation::builder(c, l)
                .sym_name(StringAttribute::new(c, name))
                .r#type(TypeAttribute::new(Self::type_(t)))
                .alignment(IntegerAttribute::new(Self::type_(i64t), alignment))
                .build()
        });
    }

    /// `memref.global "private" @name : t` with no initial value (the attribute `unit`, as
    /// the generic form spells an uninitialized global) and `alignment` bytes.
    pub fn memref_global_uninitialized(&self, name: &str, t: MlirType, alignment: i64) {
        let i64t = self.int_type(64);
        self.build(|c, l| {
            memref_ods::GlobalOperation::builder(c, l)
                .sym_name(StringAttribute::new(c, name))
                .sym_visibility(StringAttribute::new(c, "private"))
                .r#type(TypeAttribute::new(Self::type_(t)))
                .initial_value(Attribute::unit(c))
                .alignment(IntegerAttribute::new(Self::type_(i64t), alignment))
                .build()
        });
    }

    /// `memref.get_global @name : t`.
    pub fn memref_get_global(&self, name: &str, t: MlirType) -> MlirValue {
        self.build_value(|c, l| memref_ods::get_global(c, Self::type_(t), FlatSymbolRefAttribute::new(c, name), l))
    }

    /// `builtin.unrealized_conversion_cast %v : ... to t`.
    pub fn unrealized_conversion_cast(&self, v: MlirValue, t: MlirType) -> MlirValue {
        self.build_value(|c, l| {
            // SAFETY: `v` is a live value visible here (module and builder contracts).
            let v = unsafe { value(v) };
            builtin::unrealized_conversion_cast(c, &[Self::type_(t)], &[v], l)
        })
    }
}
