// Global -> shared copies with schedule cp_async: nvvm.cp.async.shared.global of 16 bytes
// (.cg) per thread and access on raw pointers taken from the memrefs, one group committed per
// copy; a synchronous copy waits for its group at once, an async one at axe.wait (which may
// leave the N most recent copies in flight).
// RUN: axe-opt %s --convert-axe-to-gpu  | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm-pipeline='chip=sm_80'  | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: func.func @async_then_wait
// CHECK-DAG: %[[SRC:.*]] = memref.extract_aligned_pointer_as_index %arg0 : memref<2048xf16> -> index
// CHECK-DAG: %[[DST:.*]] = memref.extract_aligned_pointer_as_index %{{.*}} : memref<2048xf16, 3> -> index
// CHECK: scf.for
// CHECK: %[[G:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<1>
// CHECK: %[[S:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK: nvvm.cp.async.shared.global %[[S]], %[[G]], 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK: }
// One group per copy; the async copy does not wait, axe.wait does.
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// PTX: cp.async.cg.shared.global [{{[^]]*}}], [{{[^]]*}}], 16;
// PTX: cp.async.commit_group;
// PTX: cp.async.wait_group {{[^;]*}}0;
// PTX: bar.sync {{[^;]*}}0;
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @async_then_wait(%a: memref<2048xf16> {axe.align = 16 : i64}, %o: memref<2048xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<2048xf16> to !axe.tensor<32x64xf16, global, #axe.layout<(32, 64) : (64, 1)>>
    %O = axe.view %o : memref<2048xf16> to !axe.tensor<32x64xf16, global, #axe.layout<(32, 64) : (64, 1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<32x64xf16, shared, #axe.layout<(32, 64) : (64, 1)>>
      %t = axe.copy async %A, %s schedule cp_async : !axe.tensor<32x64xf16, global, #axe.layout<(32, 64) : (64, 1)>>, !axe.tensor<32x64xf16, shared, #axe.layout<(32, 64) : (64, 1)>> -> !axe.token
      axe.wait %t
      axe.barrier cta
      axe.copy %s, %O : !axe.tensor<32x64xf16, shared, #axe.layout<(32, 64) : (64, 1)>>, !axe.tensor<32x64xf16, global, #axe.layout<(32, 64) : (64, 1)>>
      // Prefetch: leave the most recent copy in flight.
      %t2 = axe.copy async %A, %s schedule cp_async : !axe.tensor<32x64xf16, global, #axe.layout<(32, 64) : (64, 1)>>, !axe.tensor<32x64xf16, shared, #axe.layout<(32, 64) : (64, 1)>> -> !axe.token
      axe.wait outstanding 1
    }
    return
  }
}
