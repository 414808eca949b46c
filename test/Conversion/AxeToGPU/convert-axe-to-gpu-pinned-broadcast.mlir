// Element 0 of a lane-distributed tensor, sliced, is lane 0's alone: copying it into a
// tensor every lane holds moves it between threads (through shared memory on the GPU), which
// the CPU emulation refuses rather than have each lane read its own register.
// RUN: axe-opt %s --convert-axe-to-gpu | FileCheck %s
// RUN: axe-opt %s --convert-axe-to-gpu=emulate-threads-on-cpu=1 --verify-diagnostics

// CHECK-LABEL: func.func @broadcast_lane_zero
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK: memref.load
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @broadcast_lane_zero() {
    axe.kernel grid [1] threads [32] {
      %r = axe.alloc : !axe.tensor<2xi32, register, #axe.layout<(2) : (1@lane)>>
      %s = axe.slice %r [0 : 1] : !axe.tensor<2xi32, register, #axe.layout<(2) : (1@lane)>> to !axe.tensor<1xi32, register, #axe.layout<() : ()>>
      %all = axe.alloc : !axe.tensor<1xi32, register, #axe.layout<(1) : (1@reg) + [(32) : (1@lane)]>>
      // expected-error@+1 {{moves elements between threads}}
      axe.copy %s, %all : !axe.tensor<1xi32, register, #axe.layout<() : ()>>, !axe.tensor<1xi32, register, #axe.layout<(1) : (1@reg) + [(32) : (1@lane)]>>
    }
    return
  }
}
