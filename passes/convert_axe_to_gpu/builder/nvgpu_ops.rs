//! [`B`]'s builders of the `nvgpu` dialect: ldmatrix, mma.sync, TMA descriptors.

use super::*;
use axe_upstream_ods::nvgpu;
use melior::ir::attribute::{ArrayAttribute, BoolAttribute, IntegerAttribute};
use melior::ir::Attribute;

impl B {
    /// `nvgpu.ldmatrix %memref[%indices] {transpose, numTiles} : ... -> t`.
    pub fn nvgpu_ldmatrix(
        &self,
        memref: MlirValue,
        indices: &[MlirValue],
        t: MlirType,
        transpose: bool,
        num_tiles: i64,
    ) -> MlirValue {
        let i32t = self.int_type(32);
        self.build_value(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let (memref, indices) = unsafe { (value(memref), values(indices)) };
            let tiles = IntegerAttribute::new(Self::type_(i32t), num_tiles);
            let transpose = BoolAttribute::new(c, transpose).into();
            nvgpu::ldmatrix(c, Self::type_(t), memref, &indices, transpose, tiles, l)
        })
    }

    /// `nvgpu.mma.sync(%a, %b, %c) {mmaShape = shape} : ... -> t`.
    pub fn nvgpu_mma_sync(&self, a: MlirValue, b: MlirValue, c_: MlirValue, t: MlirType, shape: [i64; 3]) -> MlirValue {
        let i64t = self.int_type(64);
        self.build_value(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let (a, b, c_) = unsafe { (value(a), value(b), value(c_)) };
            let shape: Vec<Attribute> = shape
                .iter()
                .map(|&x| IntegerAttribute::new(Self::type_(i64t), x).into())
                .collect();
            nvgpu::mma_sync(c, Self::type_(t), a, b, c_, ArrayAttribute::new(c, &shape), l)
        })
    }

    /// `nvgpu.tma.create.descriptor %tensor box[%box] : ... -> t`.
    pub fn nvgpu_tma_create_descriptor(
        &self,
        tensor: MlirValue,
        box_dimensions: &[MlirValue],
        t: MlirType,
    ) -> MlirValue {
        self.build_value(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let (tensor, box_dimensions) = unsafe { (value(tensor), values(box_dimensions)) };
            nvgpu::tma_create_descriptor(c, Self::type_(t), tensor, &box_dimensions, l)
        })
    }
}
