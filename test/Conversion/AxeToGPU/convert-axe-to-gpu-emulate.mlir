// emulate-threads-on-cpu: the launch becomes loops over blocks and threads; register
// tensors get one row per thread; a top-level CTA barrier splits the body into phases.
// RUN: axe-opt %s --convert-axe-to-gpu=emulate-threads-on-cpu=1 --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @phases
// CHECK-NOT: gpu.
// CHECK-DAG: %[[S:.*]] = memref.alloca() {alignment = 16 : i64} : memref<64xf32>
// CHECK-DAG: %[[R:.*]] = memref.alloca() {alignment = 16 : i64} : memref<32x2xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[T0:.*]] = %{{.*}} to %[[N:.*]] step %{{.*}} {
// CHECK: vector.store %{{.*}}, %[[S]]
// CHECK: }
// CHECK: scf.for %[[T1:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[V:.*]] = memref.load %[[S]]
// CHECK: memref.store %[[V]], %[[R]][%[[T1]], %{{.*}}] : memref<32x2xf32>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @phases(%buf: memref<64xf32> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<64xf32> to !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>
    axe.kernel grid [2] threads [32] {
      %s = axe.alloc : !axe.tensor<64xf32, shared, #axe.layout<(64) : (1)>>
      %r = axe.alloc : !axe.tensor<64xf32, register, #axe.layout<(2, 32) : (1@reg, 1@lane)>>
      axe.copy %G, %s : !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>, !axe.tensor<64xf32, shared, #axe.layout<(64) : (1)>>
      axe.barrier cta
      axe.copy %s, %r : !axe.tensor<64xf32, shared, #axe.layout<(64) : (1)>>, !axe.tensor<64xf32, register, #axe.layout<(2, 32) : (1@reg, 1@lane)>>
    }
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @shuffles() {
    axe.kernel grid [1] threads [32] {
      %x = axe.alloc : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
      %s = axe.alloc : !axe.tensor<f32, register, #axe.layout<() : () + [(32) : (1@lane)]>>
      // expected-error@+1 {{emulate-threads-on-cpu does not model warp shuffles}}
      axe.reduce sum %x, %s dims [0] : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>, !axe.tensor<f32, register, #axe.layout<() : () + [(32) : (1@lane)]>>
    }
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @nested_barrier() {
    axe.kernel grid [1] threads [64] {
      axe.scope warp {
        // expected-error@+1 {{emulate-threads-on-cpu supports only `axe.barrier cta` at the top level}}
        axe.barrier warp
      }
    }
    return
  }
}

// -----

// Emulated, a TMA copy is a plain copy (the hardware's result without its mechanism): no
// tensor map, no mbarrier; its token becomes the i32 -1, carried through the loop.
// CHECK-LABEL: func.func @tma_emulated
// CHECK-NOT: nvgpu.
// CHECK-NOT: nvvm.
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %c-1_i32{{.*}}) -> (i32)
// CHECK: return
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @tma_emulated(%x: memref<2048xf32> {axe.align = 16 : i64}) {
    %X = axe.view %x : memref<2048xf32> to !axe.tensor<64x32xf32, global, #axe.layout<(64, 32) : (32, 1)>>
    axe.kernel grid [1] threads [32] {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %c48 = arith.constant 48 : index
      %s = axe.alloc : !axe.tensor<16x32xf32, shared, #axe.layout<(16, 32) : (32, 1)>>
      %x0 = axe.slice %X [%c0 : +16, 0 : 32] : !axe.tensor<64x32xf32, global, #axe.layout<(64, 32) : (32, 1)>> to !axe.tensor<16x32xf32, global, #axe.layout<(16, 32) : (32, 1)>>
      %t0 = axe.copy async %x0, %s schedule tma : !axe.tensor<16x32xf32, global, #axe.layout<(16, 32) : (32, 1)>>, !axe.tensor<16x32xf32, shared, #axe.layout<(16, 32) : (32, 1)>> -> !axe.token
      %last = scf.for %r = %c0 to %c48 step %c16 iter_args(%t = %t0) -> (!axe.token) {
        axe.wait %t
        %r1 = arith.addi %r, %c16 : index
        %xn = axe.slice %X [%r1 : +16, 0 : 32] : !axe.tensor<64x32xf32, global, #axe.layout<(64, 32) : (32, 1)>> to !axe.tensor<16x32xf32, global, #axe.layout<(16, 32) : (32, 1)>>
        %tn = axe.copy async %xn, %s schedule tma : !axe.tensor<16x32xf32, global, #axe.layout<(16, 32) : (32, 1)>>, !axe.tensor<16x32xf32, shared, #axe.layout<(16, 32) : (32, 1)>> -> !axe.token
        scf.yield %tn : !axe.token
      }
      axe.wait %last
    }
    return
  }
}

// -----

// Flags are not emulated: CPU ranks and CTAs run one after another, so a wait would never end.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @wait_on_cpu(%f: memref<4xi32>, %e: i32) {
    %F = axe.view %f : memref<4xi32> to !axe.tensor<4xi32, global, #axe.layout<(4) : (1)>>
    axe.kernel grid [1] threads [32] {
      %c0 = arith.constant 0 : index
      %one = axe.slice %F [%c0 : +1] : !axe.tensor<4xi32, global, #axe.layout<(4) : (1)>> to !axe.tensor<1xi32, global, #axe.layout<() : ()>>
      // expected-error @+1 {{'axe.signal_wait' is not emulated on the CPU: emulated ranks and CTAs run one after another, so a wait could never see its signal}}
      axe.signal_wait %one, %e : !axe.tensor<1xi32, global, #axe.layout<() : ()>>, i32
    }
    return
  }
}

// -----

// Emulated threads run one after another: a role waiting for another's arrival would hang.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @emulated_barrier(%p: i1) {
    axe.kernel grid [1] threads [128] {
      // expected-error @+1 {{'axe.mbarrier' cannot be emulated on the CPU}}
      %b = axe.mbarrier arrivals 128
      axe.mbarrier_wait %b, %p
    }
    return
  }
}

// -----

// A value computed before a CTA barrier by an op the emulation cannot recompute after it (each
// phase is its own loop over the threads): a located error at its user.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @across_barrier(%buf: memref<64xf32> {axe.align = 16 : i64}, %flag: i1) {
    %G = axe.view %buf : memref<64xf32> to !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>
    axe.kernel grid [2] threads [32] {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %o = scf.if %flag -> index {
        scf.yield %c32 : index
      } else {
        scf.yield %c0 : index
      }
      %s = axe.alloc : !axe.tensor<32xf32, shared, #axe.layout<(32) : (1)>>
      axe.barrier cta
      // expected-error @+1 {{this op uses a value computed by 'scf.if' before a CTA barrier}}
      %t = axe.slice %G [%o : +32] : !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>> to !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>
      axe.copy %s, %t : !axe.tensor<32xf32, shared, #axe.layout<(32) : (1)>>, !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>
    }
    return
  }
}

// -----

// A reducing TMA store is emulated as loads, adds and stores (the threads run one after
// another), for what the GPU lowering takes: `sum` only.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @reduce_max(%buf: memref<32xf32> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<32xf32> to !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>
    axe.kernel grid [1] threads [32] {
      %s = axe.alloc : !axe.tensor<32xf32, shared, #axe.layout<(32) : (1)>>
      // expected-error @+1 {{a reducing TMA store is lowered for 'sum' only, not 'max'}}
      axe.copy %s, %G schedule tma reduce max : !axe.tensor<32xf32, shared, #axe.layout<(32) : (1)>>, !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>
    }
    return
  }
}

// -----

// Tokens across a CTA barrier: a wait in a later phase on a loop's token (an emulated wait does
// nothing and is erased), and a copy's token carried into a later phase's loop (-1 there, as
// every emulated token): both lower.
// CHECK-LABEL: func.func @tokens_across_barriers
// CHECK-NOT: axe.wait
// CHECK-NOT: axe.copy
// CHECK-NOT: axe.kernel
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tokens_across_barriers(%buf: memref<64xf32> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<64xf32> to !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>
    axe.kernel grid [1] threads [32] {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %s = axe.alloc : !axe.tensor<64xf32, shared, #axe.layout<(64) : (1)>>
      %t0 = axe.copy async %G, %s schedule cp_async : !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>, !axe.tensor<64xf32, shared, #axe.layout<(64) : (1)>> -> !axe.token
      %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%t = %t0) -> (!axe.token) {
        axe.wait %t
        %tn = axe.copy async %G, %s schedule cp_async : !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>, !axe.tensor<64xf32, shared, #axe.layout<(64) : (1)>> -> !axe.token
        scf.yield %tn : !axe.token
      }
      %t1 = axe.copy async %G, %s schedule cp_async : !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>, !axe.tensor<64xf32, shared, #axe.layout<(64) : (1)>> -> !axe.token
      axe.barrier cta
      axe.wait %r
      %q = scf.for %i = %c0 to %c2 step %c1 iter_args(%t = %t1) -> (!axe.token) {
        axe.wait %t
        scf.yield %t : !axe.token
      }
      axe.wait %q
    }
    return
  }
}
