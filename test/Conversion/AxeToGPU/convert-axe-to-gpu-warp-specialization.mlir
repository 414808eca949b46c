// Warp specialization (the Axe paper §4.1): roles are sliced scopes, stages are handed over
// through axe.mbarrier barriers. A producer warp's first lane issues a TMA copy that completes
// on the full barrier (arrive.expect_tx, no per-thread phase bits); the consumers wait for a
// phase with a try_wait loop (not the bra.uni loop of nvvm.mbarrier.try_wait.parity: a role's
// lanes may diverge), release the stage with one arrival per thread, synchronize on their
// warpgroup's named barrier, and the roles move registers with setmaxnreg (384 threads start
// with 168 each: 40 is a decrease, 232 an increase).
// RUN: axe-opt %s --convert-axe-to-gpu --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @producer_consumer
// CHECK: gpu.launch
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32{{.*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c256_i32{{.*}} : !llvm.ptr<3>, i32
// The producer: warpgroup 0, its warp 0, lane 0 of it issues.
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: scf.while
// CHECK: nvvm.mbarrier.try_wait %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32, i32 -> i1
// CHECK: arith.remui %{{.*}}, %c32
// CHECK: scf.if
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c8192_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// The consumers.
// CHECK: nvvm.setmaxregister increase 232
// CHECK: scf.while
// CHECK: nvvm.mbarrier.try_wait
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK-NOT: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: axe.{{(mbarrier|scope|copy|barrier|set_max_registers)}}
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @producer_consumer(%a: memref<4096xf16> {axe.align = 16 : i64}, %p: i1) {
    %A = axe.view %a : memref<4096xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
    axe.kernel grid [1] threads [384] {
      %s = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      %full = axe.mbarrier arrivals 1
      %empty = axe.mbarrier arrivals 256
      %true = arith.constant true
      %pe = arith.xori %p, %true : i1
      axe.scope warpgroup [0 : 1] {
        axe.set_max_registers 40
        axe.scope warp [0 : 1] {
          axe.mbarrier_wait %empty, %pe
          axe.copy async %A, %s schedule tma barrier %full : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
        }
      }
      axe.scope warpgroup [1 : 3] {
        axe.set_max_registers 232
        axe.mbarrier_wait %full, %p
        axe.mbarrier_arrive %empty
        axe.barrier warpgroup
      }
    }
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @cta_barrier_in_a_role() {
    axe.kernel grid [1] threads [256] {
      axe.scope warpgroup [1 : 2] {
        // expected-error @+1 {{'axe.barrier' op cta inside a sliced scope: the threads outside the slice never reach it (synchronize roles with axe.mbarrier)}}
        axe.barrier cta
      }
    }
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @max_registers_on_sm_90() {
    axe.kernel grid [1] threads [256] {
      axe.scope warpgroup [1 : 2] {
        // expected-error @+1 {{'axe.set_max_registers' op needs setmaxnreg (sm_90a); the module targets sm_90}}
        axe.set_max_registers 232
      }
    }
    return
  }
}
