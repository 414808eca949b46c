//===- AxePasses.td - Axe pass declarations ----------------*- tablegen -*-===//
//
// Every Axe pass is declared here (flag, summary, description, options); the
// generated base class's runOnOperation calls the pass body written in Rust
// (passes/). `--help` and the generated Markdown docs come from this file.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_PASSES_TD
#define AXE_PASSES_TD

include "mlir/Pass/PassBase.td"

def AxeCanonicalize : Pass<"axe-canonicalize"> {
  let summary = "Put every Axe layout into canonical form";
  let description = [{
    Rewrites every `#axe.layout` attribute reachable from the operation —
    as an attribute or nested in a type such as `!axe.tensor` — into its
    canonical form (the Axe paper's Appendix A: drop unit iters (D0), merge
    chained shard iters (D1), and normalize the replica (C0–C2)). Canonical
    forms make equal maps print equally, so later passes and FileCheck lines
    can compare layouts textually where the gap condition holds.

    Before / after:

    ```mlir
    %a = axe.alloc : !axe.tensor<8x4xf32, shared, #axe.layout<(8, 1, 4) : (4, 7, 1)>>
    // becomes
    %a = axe.alloc : !axe.tensor<8x4xf32, shared, #axe.layout<(32) : (1)>>
    ```

    The pass is idempotent; it never changes the map a layout induces.
  }];
}

def AxeSlice : Pass<"axe-slice"> {
  let summary = "Give region slices their layout L[R:S]";
  let description = [{
    Every `axe.slice` whose source has a layout gets the layout of the region
    it selects, computed by the Axe paper's Algorithm 4 (Appendix E, with the
    errata of `papers/README.md`): the sliced layout `L[R:S]`, whose offset
    is the source's value at the region's first element. Chains of slices
    compose: a slice of a slice is first folded into one slice of the
    original tensor. A region that admits no slice layout (neither of
    Theorem E.3's sufficient forms holds) is reported with a located error.

    Before / after:

    ```mlir
    %s = axe.slice %t [0 : 8, 8 : 24] : !axe.tensor<16x24xf16, shared, #axe.layout<(16, 24) : (24, 1)>> to !axe.tensor<8x16xf16, shared, ?>
    // becomes
    %s = axe.slice %t [0 : 8, 8 : 24] : !axe.tensor<16x24xf16, shared, #axe.layout<(16, 24) : (24, 1)>> to !axe.tensor<8x16xf16, shared, #axe.layout<(8, 16) : (24, 1) + 8>>
    ```

    A slice whose result already has a layout is checked against `L[R:S]`.
  }];
}

def ConvertAxeToGPU : Pass<"convert-axe-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower Axe kernels to gpu/scf/memref/vector/nvgpu";
  let description = [{
    Turns every `axe.kernel` into a `gpu.launch` whose thread and block ids
    feed the layouts: each operator becomes a schedule chosen from its
    operands' layouts and scope (vectorized loads/stores, cp.async, warp
    shuffles, ldmatrix + mma.sync), with addresses computed by evaluating
    the layouts symbolically. Tensors whose layout is still `?` are refused
    (run axe-infer-layout first).
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect", "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::NVVM::NVVMDialect", "::mlir::math::MathDialect",
                           "::mlir::func::FuncDialect"];
}

#endif // AXE_PASSES_TD
