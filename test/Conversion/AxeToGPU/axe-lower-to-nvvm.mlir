// axe-lower-to-nvvm (the second half of axe-to-nvvm-pipeline): a kernel whose warpgroups hand
// registers to each other (axe.set_max_registers, setmaxnreg) gets `.minnctapersm 1` beside its
// `.maxntid`: without it ptxas cannot tell the register count each thread starts with and
// may drop the setmaxnregs (C7508), compiling the kernel within 65536 / 384 = 168 registers.
// A kernel without setmaxnreg is left as upstream lowers it.
// RUN: axe-opt %s --axe-to-nvvm-pipeline --split-input-file | FileCheck %s
// RUN: axe-opt %s --convert-axe-to-gpu --axe-lower-to-nvvm --split-input-file | FileCheck %s

// CHECK-LABEL: llvm.func @register_handoff(
// CHECK: gpu.binary @register_handoff_kernel
// CHECK-SAME: .maxntid 384, 1, 1\0A.minnctapersm 1\0A{
// CHECK-SAME: setmaxnreg.dec.sync.aligned.u32 {{.*}}40;
// CHECK-SAME: setmaxnreg.inc.sync.aligned.u32 {{.*}}232;
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @register_handoff(%p: i1) {
    axe.kernel grid [1] threads [384] {
      %full = axe.mbarrier arrivals 128
      axe.scope warpgroup [0 : 1] {
        axe.set_max_registers 40
        axe.mbarrier_arrive %full
      }
      axe.scope warpgroup [1 : 3] {
        axe.set_max_registers 232
        axe.mbarrier_wait %full, %p
      }
    }
    return
  }
}

// -----

// CHECK-LABEL: llvm.func @no_handoff(
// CHECK: gpu.binary @no_handoff_kernel
// CHECK-SAME: .maxntid 384, 1, 1\0A{
// CHECK-NOT: minnctapersm
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @no_handoff(%p: i1) {
    axe.kernel grid [1] threads [384] {
      %full = axe.mbarrier arrivals 128
      axe.scope warpgroup [0 : 1] {
        axe.mbarrier_arrive %full
      }
      axe.scope warpgroup [1 : 3] {
        axe.mbarrier_wait %full, %p
      }
    }
    return
  }
}
