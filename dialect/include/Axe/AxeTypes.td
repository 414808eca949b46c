//===- AxeTypes.td - Axe types -----------------------------*- tablegen -*-===//

#ifndef AXE_TYPES_TD
#define AXE_TYPES_TD

include "Axe/AxeDialect.td"
include "Axe/AxeAttrs.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def Axe_TensorType : TypeDef<Axe_Dialect, "Tensor", [ShapedTypeInterface]> {
  let typeName = "axe.tensor";
  let summary = "a tensor in a memory scope, with an Axe layout or `?`";
  let description = [{
    `!axe.tensor<SHAPE x ELT, SCOPE, LAYOUT [, SWIZZLE]>` where LAYOUT is an
    `#axe.layout<...>` or `?` (to be inferred by `axe-infer-layout`), and a
    shared tensor may add an `#axe.swizzle<B, M, S>` applied to its memory
    offsets.
    The layout must admit the shape: the product of the shape equals the
    product of the layout's shard extents.

    ```mlir
    !axe.tensor<16x24xf16, shared, #axe.layout<(16, 24) : (24, 1)>>
    !axe.tensor<128x128xf32, register, ?>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "logical shape">:$shape,
    "::mlir::Type":$elementType,
    "::mlir::axe::MemoryScope":$scope,
    "::mlir::Attribute":$layout,  // LayoutAttr, or null for `?`
    "::mlir::Attribute":$swizzle  // SwizzleAttr (shared tensors), or null
  );
  let builders = [
    TypeBuilder<(ins "::llvm::ArrayRef<int64_t>":$shape, "::mlir::Type":$elementType,
                     "::mlir::axe::MemoryScope":$scope, "::mlir::Attribute":$layout), [{
      return $_get($_ctxt, shape, elementType, scope, layout, ::mlir::Attribute());
    }]>
  ];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    using ShapedType::Trait<TensorType>::getElementTypeBitWidth;
    using ShapedType::Trait<TensorType>::getRank;
    using ShapedType::Trait<TensorType>::getNumElements;
    using ShapedType::Trait<TensorType>::isDynamicDim;
    using ShapedType::Trait<TensorType>::hasStaticShape;
    using ShapedType::Trait<TensorType>::getNumDynamicDims;
    using ShapedType::Trait<TensorType>::getDimSize;
    using ShapedType::Trait<TensorType>::getDynamicDimIndex;
    bool hasRank() const { return true; }
    TensorType cloneWith(std::optional<::llvm::ArrayRef<int64_t>> shape,
                         ::mlir::Type elementType) const;
    /// The layout, or null when it is still to be inferred (`?`).
    LayoutAttr getLayoutAttr() const {
      return ::llvm::dyn_cast_or_null<LayoutAttr>(getLayout());
    }
  }];
}

def Axe_Token : TypeDef<Axe_Dialect, "Token"> {
  let typeName = "axe.token";
  let summary = "completion of an asynchronous copy";
  let description = [{
    Produced by `axe.copy async`, consumed by `axe.wait`. Lowers to
    cp.async commit/wait groups or an mbarrier, per the copy's schedule.
  }];
}

def Axe_MBarrier : TypeDef<Axe_Dialect, "MBarrier"> {
  let typeName = "axe.mbarrier";
  let summary = "a CTA's barrier in shared memory, completing in phases";
  let description = [{
    Produced by `axe.mbarrier`; arrived at by `axe.mbarrier_arrive` and by
    TMA copies (`axe.copy async ... schedule tma barrier %b`), waited for by
    `axe.mbarrier_wait`. Lowers to a 64-bit mbarrier in shared memory: the
    synchronization of a producer/consumer pipeline between warp roles.
  }];
}

#endif // AXE_TYPES_TD
