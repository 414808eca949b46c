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
    canonical text (one fixed spacing; `@m`, zero offsets and an empty replica
    omitted), produced by the Rust `axe-layout` parser, so two attributes are
    equal exactly when their layouts are structurally equal. All semantics
    (evaluation, canonicalization, tiling, slicing) live in the `axe-layout`
    crate; this attribute never interprets the text.

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

def Axe_SwizzleAttr : AttrDef<Axe_Dialect, "Swizzle"> {
  let attrName = "axe.swizzle";
  let summary = "an XOR swizzle of shared-memory offsets (CuTe's Swizzle<B, M, S>)";
  let description = [{
    `#axe.swizzle<B, M, S>` maps an element offset `o` (on the memory axis,
    after the layout) to `o ^ ((o >> S) & (2^B - 1) << M)`: the `B` bits at
    `M + S` are XORed into the `B` bits at `M`. The low `M` bits (a vector of
    `2^M` elements) are never moved, so vector accesses of up to `2^M`
    elements stay contiguous. Only `B ≥ 1`, `S ≥ B` (the swizzle is then an
    involution) and `M + B + S ≤ 30` are accepted.

    ```mlir
    !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
    ```
  }];
  let parameters = (ins "int32_t":$bits, "int32_t":$base, "int32_t":$shift);
  let genVerifyDecl = 1;
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

def Axe_ScopeKind : I32EnumAttr<"ScopeKind", "an execution scope", [
    I32EnumAttrCase<"Cluster", 0, "cluster">,
    I32EnumAttrCase<"Cta", 1, "cta">,
    I32EnumAttrCase<"Warpgroup", 2, "warpgroup">,
    I32EnumAttrCase<"Warp", 3, "warp">,
    I32EnumAttrCase<"Thread", 4, "thread">]> {
  let cppNamespace = "::mlir::axe";
}

def Axe_CopySchedule : I32EnumAttr<"CopySchedule", "how a copy executes", [
    I32EnumAttrCase<"Auto", 0, "auto">,
    I32EnumAttrCase<"Vectorized", 1, "vectorized">,
    I32EnumAttrCase<"CpAsync", 2, "cp_async">,
    I32EnumAttrCase<"Tma", 3, "tma">,
    I32EnumAttrCase<"Ldmatrix", 4, "ldmatrix">]> {
  let cppNamespace = "::mlir::axe";
}

def Axe_UnaryKind : I32EnumAttr<"UnaryKind", "a pointwise unary function", [
    I32EnumAttrCase<"Neg", 0, "neg">,
    I32EnumAttrCase<"Exp", 1, "exp">,
    I32EnumAttrCase<"Exp2", 2, "exp2">,
    I32EnumAttrCase<"Log", 3, "log">,
    I32EnumAttrCase<"Sqrt", 4, "sqrt">,
    I32EnumAttrCase<"Rsqrt", 5, "rsqrt">,
    I32EnumAttrCase<"Abs", 6, "abs">,
    I32EnumAttrCase<"Relu", 7, "relu">,
    I32EnumAttrCase<"Sigmoid", 8, "sigmoid">,
    I32EnumAttrCase<"Silu", 9, "silu">,
    I32EnumAttrCase<"Tanh", 10, "tanh">,
    I32EnumAttrCase<"Erf", 11, "erf">,
    I32EnumAttrCase<"Gelu", 12, "gelu">,
    I32EnumAttrCase<"GeluTanh", 13, "gelu_tanh">]> {
  let cppNamespace = "::mlir::axe";
}

def Axe_BinaryKind : I32EnumAttr<"BinaryKind", "a pointwise binary function", [
    I32EnumAttrCase<"Add", 0, "add">,
    I32EnumAttrCase<"Sub", 1, "sub">,
    I32EnumAttrCase<"Mul", 2, "mul">,
    I32EnumAttrCase<"Div", 3, "div">,
    I32EnumAttrCase<"Max", 4, "max">,
    I32EnumAttrCase<"Min", 5, "min">]> {
  let cppNamespace = "::mlir::axe";
}

def Axe_ReduceKind : I32EnumAttr<"ReduceKind", "a reduction", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">]> {
  let cppNamespace = "::mlir::axe";
}

def Axe_TargetAttr : AttrDef<Axe_Dialect, "Target"> {
  let attrName = "axe.target";
  let summary = "the hardware an Axe kernel targets: which axes exist and their bounds";
  let description = [{
    `#axe.target<"sm_90">` (also `sm_80`, `sm_90a`, `sm_100`, `trn1`), usually
    set as the `axe.target` attribute of the module. The axes a target offers
    and their bounds are hardware facts kept in one Rust module
    (`passes/target/mod.rs`), not in the verifiers:

    | target | axes (bound) |
    |--------|--------------|
    | sm_80, sm_90 | m, reg (255), lane (32), warp (32), cta, gpuid |
    | sm_90 also | cluster (16) |
    | sm_100 | as sm_90, plus tmem_lane (128), tmem_col (512) |
    | trn1 | m, P (128), F, gpuid |

    Verifiers reject a tensor whose layout uses an axis the target lacks or
    reaches past its bound.
  }];
  let parameters = (ins StringRefParameter<"target name">:$name);
  let genVerifyDecl = 1;
}

def Axe_MatmulScheduleAttr : AttrDef<Axe_Dialect, "MatmulSchedule"> {
  let mnemonic = "matmul_schedule";
  let summary = "how an `axe.matmul` runs: tiles, stages, cluster, raster, grid";
  let description = [{
    The schedule of the warp-specialized GEMM an `axe.matmul` expands to (Axe
    paper §4.1): every field is optional. `axe-matmul-schedule` fills the
    fields left out from the problem (M, N, K, element types) and the target
    (`#axe.target`: SM count, shared memory, clusters); the fields a user wrote
    are kept, so a schedule attribute is also the override for tuning.
    `axe-expand-matmul` needs every field.

    | field | meaning |
    |-------|---------|
    | `tile_m` | rows of C per CTA tile: 64 (one consumer warpgroup) or 128 (two) |
    | `tile_n` | columns of C per CTA tile: 64 to 256, a multiple of 64 |
    | `tile_k` | K per pipeline stage: 64 (16-bit inputs) or 128 (FP8) — one 128-byte swizzle row |
    | `stages` | shared-memory stages between the TMA producer warp and the consumers |
    | `cluster` | CTAs per cluster (1 or 2: two row tiles share B by TMA multicast) |
    | `group` | grouped raster: row tiles walked down one column tile before moving right |
    | `grid` | CTAs launched (clusters × `cluster`); with `persistent`, each walks tiles `cta, cta + grid, ...` |
    | `split_k` | K split over this many CTAs per output tile (1: none); needs the op's `workspace` |
    | `persistent` | one CTA per SM walking tiles (true), or one CTA per tile (false) |
    | `pushers` | with a gathered A (`gather(...)`): warps of the producer warpgroup (1 to 3) that push this device's rows to the peers; absent otherwise |
    | `pingpong` | two consumer warpgroups take alternate 64-row tiles, their mainloops in turn, so that one's epilogue runs under the other's MMAs (CUTLASS's ping-pong kernel); with `tile_m = 64`, no clusters, no split-K; never chosen by `axe-matmul-schedule` (an override); absent: false |

    ```mlir
    #axe.matmul_schedule<tile_m = 128, tile_n = 256, tile_k = 64, stages = 4, cluster = 1, group = 8, grid = 132, split_k = 1, persistent = true>
    #axe.matmul_schedule<tile_n = 128>   // an override: the other fields are chosen
    ```
  }];
  let parameters = (ins
    OptionalParameter<"int64_t">:$tile_m,
    OptionalParameter<"int64_t">:$tile_n,
    OptionalParameter<"int64_t">:$tile_k,
    OptionalParameter<"int64_t">:$stages,
    OptionalParameter<"int64_t">:$cluster,
    OptionalParameter<"int64_t">:$group,
    OptionalParameter<"int64_t">:$grid,
    OptionalParameter<"int64_t">:$split_k,
    OptionalParameter<"::mlir::BoolAttr">:$persistent,
    OptionalParameter<"int64_t">:$pushers,
    OptionalParameter<"::mlir::BoolAttr">:$pingpong);
  let assemblyFormat = "`<` struct(params) `>`";
}

#endif // AXE_ATTRS_TD
