// The pipeline refuses, at the module or kernel, what the chip it compiles for cannot run
// (NVPTX would otherwise abort with "Cannot select" on the missing instructions; a fuzzer
// mutant found it). Fuzzer reproducer: a split-barrier kernel compiled for sm_80.
// RUN: not axe-opt %s --axe-to-nvvm-pipeline=chip=sm_80 --split-input-file 2>&1 | FileCheck %s

// An sm_90 module may be compiled for sm_80 when it uses nothing sm_80 lacks; this one's split
// barrier needs mbarriers.
// CHECK: error: 'axe.kernel' op this kernel's TMA copies or axe.arrive barriers need mbarriers (sm_90 or newer), but the pipeline compiles for sm_80
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @arrive() {
    axe.kernel grid [1] threads [8] {
      %r = axe.arrive
    }
    return
  }
}

// -----

// CHECK: error: the module targets sm_90a (#axe.target), which does not run on sm_80: compile with chip=sm_90a
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @empty() {
    return
  }
}

// -----

// Without a target, the chip decides: mbarriers need sm_90.
// CHECK: error: 'axe.kernel' op this kernel's TMA copies or axe.arrive barriers need mbarriers (sm_90 or newer), but the pipeline compiles for sm_80
module {
  func.func @arrive_no_target() {
    axe.kernel grid [1] threads [8] {
      %r = axe.arrive
    }
    return
  }
}

// -----

// A module for another kind of target is no GPU program, whatever the chip.
// CHECK: error: the module targets trn1 (#axe.target), not a GPU: it cannot be compiled for sm_80
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @nki_module() {
    return
  }
}
