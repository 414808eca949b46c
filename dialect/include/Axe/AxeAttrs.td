//===- AxeAttrs.td - Axe attributes ------------------------*- tablegen -*-===//

#ifndef AXE_ATTRS_TD
#define AXE_ATTRS_TD

include "Axe/AxeDialect.td"
include "mlir/IR/EnumAttr.td"

def Axe_LayoutAttr : AttrDef<Axe_Dialect, "Layout"> {
  let attrName = "axe.layout";
  let summary = "an Axe layout (D, R, O) over named hardware axes";
  let description = [{
    A thin, verified carrier of an Axe layout. The parameter is the layout's
    canonical text (DESIGN.md §3), produced by the Rust `axe-layout` parser,
    so two attributes are equal exactly when their layouts are structurally
    equal. All semantics (evaluation, canonicalization, tiling, slicing) live
    in the `axe-layout` crate; this attribute never interprets the text.

    ```mlir
    #axe.layout<(16, 8) : (8, 1)>
    #axe.layout<(8, 2) : (4@lane, 1@warp) + [(2) : (4@warp)] + 5@warp>
    ```

    Example: `(2, 2) : (1@lane, 2)` over a 2x2 tensor owns

    | logical | lane | m |
    |---------|------|---|
    | (0, 0)  | 0    | 0 |
    | (0, 1)  | 0    | 2 |
    | (1, 0)  | 1    | 0 |
    | (1, 1)  | 1    | 2 |
  }];
  let parameters = (ins StringRefParameter<"canonical layout text">:$spec);
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Parses `text` with the Rust grammar; emits a diagnostic through
    /// `emitError` (with the byte offset of the problem) and returns null on error.
    static LayoutAttr parse(::mlir::MLIRContext *context, ::llvm::StringRef text,
        ::llvm::function_ref<void(size_t offset, ::llvm::StringRef message)> onError);
  }];
}

def Axe_MemoryScope : I32EnumAttr<"MemoryScope", "memory scope of an Axe tensor", [
    I32EnumAttrCase<"Global", 0, "global">,
    I32EnumAttrCase<"Shared", 1, "shared">,
    I32EnumAttrCase<"Register", 2, "register">,
    I32EnumAttrCase<"TMem", 3, "tmem">,
    I32EnumAttrCase<"SBuf", 4, "sbuf">,
    I32EnumAttrCase<"PSum", 5, "psum">]> {
  let cppNamespace = "::mlir::axe";
  let genSpecializedAttr = 0;
}

#endif // AXE_ATTRS_TD
