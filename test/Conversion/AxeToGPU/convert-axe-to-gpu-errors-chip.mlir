// Refusals of convert-axe-to-gpu's chip= option, each with a located error: a module whose
// #axe.target does not run on the chip, or is not a GPU, and a kernel that needs what the chip
// lacks. (axe-to-nvvm-pipeline-errors.mlir checks the same through the whole pipeline.)
// RUN: axe-opt %s --convert-axe-to-gpu=chip=sm_80 --split-input-file --verify-diagnostics

// An arch-specific target (sm_90a: its gemms become wgmma) is compiled for exactly that chip.
// expected-error @+1 {{the module targets sm_90a (#axe.target), which does not run on sm_80: compile with chip=sm_90a}}
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @arch_specific_for_sm80() {
    return
  }
}

// -----

// A Trainium module has no GPU lowering.
// expected-error @+1 {{the module targets trn1 (#axe.target), not a GPU: it cannot be compiled for sm_80}}
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @trainium_for_sm80() {
    return
  }
}

// -----

// An sm_90 module may be compiled for sm_80 when it uses nothing sm_80 lacks: a TMA copy completes on an mbarrier, which sm_80 has not.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_for_sm80(%buf: memref<256xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<256xf16> to !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>
    // expected-error @+1 {{'axe.kernel' op this kernel's TMA copies or axe.arrive barriers need mbarriers (sm_90 or newer), but the pipeline compiles for sm_80: compile for sm_90 or newer, or copy without `schedule tma`}}
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
      axe.copy %G, %s schedule tma : !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>, !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
    }
    return
  }
}
