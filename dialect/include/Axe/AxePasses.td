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

#endif // AXE_PASSES_TD
