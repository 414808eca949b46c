//! [`B`]'s builders of the `vector` dialect: loads, stores, extracts, broadcasts.

use super::*;
use axe_upstream_ods::vector;
use melior::ir::attribute::IntegerAttribute;

impl B {
    /// `vector.load %memref[%indices] : ... , t`, with `alignment` bytes when given.
    pub fn vector_load(
        &self,
        memref: MlirValue,
        indices: &[MlirValue],
        t: MlirType,
        alignment: Option<i64>,
    ) -> MlirValue {
        let i64t = self.int_type(64);
        self.build_value(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let (memref, indices) = unsafe { (value(memref), values(indices)) };
            let op = vector::LoadOperation::builder(c, l)
                .result(Self::type_(t))
                .base(memref)
                .indices(&indices);
            match alignment {
                None => op.build(),
                Some(a) => op.alignment(IntegerAttribute::new(Self::type_(i64t), a)).build(),
            }
        })
    }

    /// `vector.store %v, %memref[%indices]`, with `alignment` bytes when given.
    pub fn vector_store(&self, v: MlirValue, memref: MlirValue, indices: &[MlirValue], alignment: Option<i64>) {
        let i64t = self.int_type(64);
        self.build(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let (v, memref, indices) = unsafe { (value(v), value(memref), values(indices)) };
            let op = vector::StoreOperation::builder(c, l)
                .value_to_store(v)
                .base(memref)
                .indices(&indices);
            match alignment {
                None => op.build(),
                Some(a) => op.alignment(IntegerAttribute::new(Self::type_(i64t), a)).build(),
            }
        });
    }

    /// `vector.extract %v[position]` (static positions).
    pub fn vector_extract(&self, v: MlirValue, position: &[i64]) -> MlirValue {
        let position = self.i64_array(position);
        self.build_value(|c, l| {
            // SAFETY: `v` is a live value visible here (module and builder contracts).
            let v = unsafe { value(v) };
            vector::ExtractOperation::builder(c, l)
                .source(v)
                .dynamic_position(&[])
                .static_position(Self::attribute(position))
                .build()
        })
    }

    /// `vector.from_elements %elements : t`.
    pub fn vector_from_elements(&self, elements: &[MlirValue], t: MlirType) -> MlirValue {
        // SAFETY: live values visible here (module and builder contracts).
        self.build_value(|c, l| vector::from_elements(c, Self::type_(t), &unsafe { values(elements) }, l))
    }

    /// `vector.broadcast %v : ... to t`.
    pub fn vector_broadcast(&self, v: MlirValue, t: MlirType) -> MlirValue {
        // SAFETY: `v` is a live value visible here (module and builder contracts).
        self.build_value(|c, l| vector::broadcast(c, Self::type_(t), unsafe { value(v) }, l))
    }
}
