//! [`B`]'s builders of types and attributes: dense arrays, integer, float, LLVM, vector and memref types, strings.

use super::*;
use melior::ir::attribute::IntegerAttribute;
use melior::ir::r#type::{MemRefType, TypeLike};
use melior::ir::{Attribute, Type};
use melior::{Context, ContextRef};

use crate::ir::string_ref as sref;

impl B {
    /// A `DenseI64ArrayAttr` of `values` (`array<i64: ...>`).
    pub fn i64_array(&self, values: &[i64]) -> MlirAttribute {
        // SAFETY: `ctx` is live (builder contract); `values` is borrowed for the call.
        unsafe { mlirDenseI64ArrayGet(self.ctx, values.len() as isize, values.as_ptr()) }
    }

    /// A `DenseI32ArrayAttr` of `values` (`array<i32: ...>`), as `operandSegmentSizes` is.
    pub fn i32_array(&self, values: &[i32]) -> MlirAttribute {
        // SAFETY: `ctx` is live (builder contract); `values` is borrowed for the call.
        unsafe { mlirDenseI32ArrayGet(self.ctx, values.len() as isize, values.as_ptr()) }
    }

    /// `f32`.
    pub fn f32_type(&self) -> MlirType {
        // SAFETY: `ctx` is live (builder contract).
        unsafe { mlirF32TypeGet(self.ctx) }
    }

    /// The signless integer type of `bits` bits.
    pub fn int_type(&self, bits: u32) -> MlirType {
        // SAFETY: `ctx` is live (builder contract).
        unsafe { mlirIntegerTypeGet(self.ctx, bits) }
    }

    /// `!llvm.ptr<address_space>` (`!llvm.ptr` for 0).
    pub fn llvm_ptr(&self, address_space: u32) -> MlirType {
        self.build_type(|c| melior::dialect::llvm::r#type::pointer(c, address_space))
    }

    /// `!llvm.struct<(fields)>` (a literal, unpacked struct).
    pub fn llvm_struct(&self, fields: &[MlirType]) -> MlirType {
        let fields: Vec<Type> = fields.iter().map(|&t| Self::type_(t)).collect();
        self.build_type(|c| melior::dialect::llvm::r#type::r#struct(c, &fields, false))
    }

    /// `!llvm.array<len x element>`.
    pub fn llvm_array(&self, element: MlirType, len: u32) -> MlirType {
        melior::dialect::llvm::r#type::array(Self::type_(element), len).to_raw()
    }

    /// `vector<shape x element>`.
    pub fn vector_type(&self, element: MlirType, shape: &[u64]) -> MlirType {
        Type::vector(shape, Self::type_(element)).to_raw()
    }

    /// `memref<shape x element>` (identity layout, default memory space).
    pub fn memref_type(&self, element: MlirType, shape: &[i64]) -> MlirType {
        MemRefType::new(Self::type_(element), shape, None, None).to_raw()
    }

    /// `memref<shape x element, strided<[strides]>>` (offset 0, default memory space).
    pub fn strided_memref_type(&self, element: MlirType, shape: &[i64], strides: &[i64]) -> MlirType {
        // SAFETY: `ctx` is live (builder contract); `strides` is borrowed for the call.
        let layout = unsafe { mlirStridedLayoutAttrGet(self.ctx, 0, strides.len() as isize, strides.as_ptr()) };
        MemRefType::new(Self::type_(element), shape, Some(Self::attribute(layout)), None).to_raw()
    }

    /// `memref<*x element>` (default memory space).
    pub fn unranked_memref_type(&self, element: MlirType) -> MlirType {
        // SAFETY: `element` is live (builder contract); a null memory space is the default one.
        unsafe { mlirUnrankedMemRefTypeGet(element, MlirAttribute { ptr: std::ptr::null() }) }
    }

    /// `memref<size x element, 3>`: a rank-1 buffer in shared memory (address space 3, an
    /// `i64` attribute as the memref syntax's bare `3` is).
    pub fn shared_memref_type(&self, element: MlirType, size: i64) -> MlirType {
        let i64t = self.int_type(64);
        let space: Attribute = IntegerAttribute::new(Self::type_(i64t), 3).into();
        MemRefType::new(Self::type_(element), &[size], None, Some(space)).to_raw()
    }

    /// A string attribute of `s`.
    pub fn str_attr(&self, s: &str) -> MlirAttribute {
        // SAFETY: `ctx` is live (builder contract); the text is borrowed for the call and copied.
        unsafe { mlirStringAttrGet(self.ctx, sref(s)) }
    }

    /// A type built by one of melior's type constructors, which need the context.
    fn build_type<'c>(&self, build: impl FnOnce(&'c Context) -> Type<'c>) -> MlirType {
        // SAFETY: as in `build`: the view borrows `context_ref`, alive for this call.
        let context_ref = unsafe { ContextRef::from_raw(self.ctx) };
        // SAFETY: as above.
        let context: &'c Context = unsafe { context_ref.to_ref() };
        build(context).to_raw()
    }
}
