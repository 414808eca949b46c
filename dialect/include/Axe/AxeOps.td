//===- AxeOps.td - Axe operations --------------------------*- tablegen -*-===//

#ifndef AXE_OPS_TD
#define AXE_OPS_TD

include "Axe/AxeDialect.td"
include "Axe/AxeAttrs.td"
include "Axe/AxeTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Axe_AnyTensor : Type<CPred<"::llvm::isa<::mlir::axe::TensorType>($_self)">,
                         "Axe tensor", "::mlir::axe::TensorType">;

def Axe_AllocOp : Axe_Op<"alloc", [MemoryEffects<[MemAlloc]>]> {
  let summary = "allocate a tensor in its memory scope";
  let description = [{
    Allocates storage for a tensor in the memory scope of its type (shared
    memory, registers, SBUF, PSUM, ...), laid out by the type's layout.

    ```mlir
    %s = axe.alloc : !axe.tensor<16x24xf16, shared, #axe.layout<(16, 24) : (24, 1)>>
    ```
  }];
  let results = (outs Axe_AnyTensor:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
}

def Axe_ViewOp : Axe_Op<"view", [Pure]> {
  let summary = "view a memref as an Axe tensor with a layout";
  let description = [{
    Gives a memref (typically a kernel's global buffer) an Axe tensor type:
    logical shape, element type, memory scope and layout. The element types
    must match; the layout addresses the memref's elements on the memory axis.

    ```mlir
    %t = axe.view %buf : memref<384xf16> to !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>>
    ```
  }];
  let arguments = (ins AnyMemRef:$source);
  let results = (outs Axe_AnyTensor:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `to` qualified(type($result))";
  let hasVerifier = 1;
}

#endif // AXE_OPS_TD
