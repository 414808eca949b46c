// More refusals of convert-axe-to-gpu, each with a located error, one case per error site of
// the lowering that no other test reaches: an axe.arrive inside a scope, TMA copies ordered
// after one axe.arrive in two blocks, and an Axe op left outside any kernel.
// (convert-axe-to-gpu-errors-sites.mlir and -sites2.mlir have the earlier such cases;
// convert-axe-to-gpu-errors-chip.mlir those of the chip= option.)
// RUN: axe-opt %s --convert-axe-to-gpu --split-input-file --verify-diagnostics

// An axe.arrive counts every thread of the CTA on its barrier: one executed by each warp of a warp scope is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @arrive_in_warp_scope() {
    axe.kernel grid [1] threads [64] {
      axe.scope warp {
        // expected-error @+1 {{'axe.arrive' op counts every thread of the CTA; this one executes at warp scope: arrive at CTA scope (outside any axe.scope), or arrive on an axe.mbarrier of one role with axe.mbarrier_arrive}}
        %r = axe.arrive
      }
    }
    return
  }
}

// -----

// The copies ordered after one axe.arrive share its barrier's phase: one of them inside an scf.if (another block) is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @after_in_two_blocks(%buf: memref<256xf16> {axe.align = 16 : i64}, %c: i1) {
    %G = axe.view %buf : memref<256xf16> to !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
      %t = axe.alloc : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
      %r = axe.arrive
      // expected-error @+1 {{'axe.copy' op the TMA copies after one axe.arrive must be in one block: issue them in one block, or give each block's copies an axe.arrive of their own}}
      %k1 = axe.copy async %G, %s schedule tma after %r : !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>, !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>> -> !axe.token
      scf.if %c {
        %k2 = axe.copy async %G, %t schedule tma after %r : !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>, !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>> -> !axe.token
        axe.wait %k2
      }
      axe.wait %k1
    }
    return
  }
}

// -----

// Outside kernels the lowering keeps views, slices, allocations and meshes only: an axe.fill of a global tensor in the function body is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @fill_outside_a_kernel(%buf: memref<64xf32>) {
    %G = axe.view %buf : memref<64xf32> to !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>
    %c = arith.constant 1.0 : f32
    // expected-error @+1 {{'axe.fill' outside an axe.kernel is not lowered by convert-axe-to-gpu: move it into an axe.kernel}}
    axe.fill %G, %c : !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>, f32
    return
  }
}
