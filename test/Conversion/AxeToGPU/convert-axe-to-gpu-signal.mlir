// RUN: axe-opt --convert-axe-to-gpu --split-input-file --verify-diagnostics %s | FileCheck %s

// Flags between the roles of a warp-specialized kernel: axe.signal and axe.signal_wait run at
// the granularity of their innermost scope. In a warp scope the warp's first lane polls with
// acquire loads, then the warp synchronizes (in a kernel with TMA copies each thread then
// fences the async proxy, for the TMA loads of the data it waited for: runner-inputs.test
// checks that in the fused MoE kernel; these kernels have none). In a warpgroup scope the warpgroup's named barrier (1 + w, 128
// threads) orders its threads' writes before thread 0 of the warpgroup fences and stores the
// value with release ordering; no CTA barrier appears (the other roles never reach one). A
// kernel outside a device mesh has no peer GPU to observe its flags: every access is at GPU
// scope (syncscope "device"; convert-axe-to-gpu-mesh.mlir checks the system scope of a mesh).
// CHECK-LABEL: func.func @roles
// CHECK: gpu.launch
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c32
// CHECK: %[[FIRST_LANE:.*]] = arith.cmpi eq, %[[LANE]], %{{.*}}
// CHECK: scf.if %[[FIRST_LANE]] {
// CHECK: scf.while
// CHECK: llvm.load %{{.*}} atomic syncscope("device") acquire {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK: }
// CHECK: nvvm.bar.warp.sync
// CHECK-NOT: nvvm.fence.proxy
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index
// CHECK: %[[AT:.*]] = arith.addi %[[BASE]], %c4 : index
// CHECK: %[[AT64:.*]] = arith.index_cast %[[AT]] : index to i64
// CHECK: %[[FLAG:.*]] = llvm.inttoptr %[[AT64]] : i64 to !llvm.ptr
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK: %[[IN_WG:.*]] = arith.remui %{{.*}}, %c128
// CHECK: %[[FIRST_T:.*]] = arith.cmpi eq, %[[IN_WG]], %{{.*}}
// CHECK: scf.if %[[FIRST_T]] {
// CHECK-NEXT: llvm.fence syncscope("device") acq_rel
// CHECK-NEXT: llvm.store %{{.*}}, %[[FLAG]] atomic syncscope("device") release {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @roles(%f: memref<4xi32>, %epoch: i32) {
    %F = axe.view %f : memref<4xi32> to !axe.tensor<4xi32, global, #axe.layout<(4) : (1)>>
    axe.kernel grid [1] threads [384] {
      axe.scope warpgroup [0 : 1] {
        axe.scope warp [0 : 1] {
          %f0 = axe.slice %F [0 : 1] : !axe.tensor<4xi32, global, #axe.layout<(4) : (1)>> to !axe.tensor<1xi32, global, #axe.layout<(1) : (1)>>
          axe.signal_wait %f0, %epoch : !axe.tensor<1xi32, global, #axe.layout<(1) : (1)>>, i32
        }
      }
      axe.scope warpgroup [1 : 2] {
        %f1 = axe.slice %F [1 : 2] : !axe.tensor<4xi32, global, #axe.layout<(4) : (1)>> to !axe.tensor<1xi32, global, #axe.layout<(1) : (1) + 1>>
        axe.signal %f1, %epoch : !axe.tensor<1xi32, global, #axe.layout<(1) : (1) + 1>>, i32
      }
    }
    return
  }
}

// -----

// One thread (a thread scope): no synchronization at all, the thread itself polls.
// CHECK-LABEL: func.func @one_thread
// CHECK: gpu.launch
// CHECK-NOT: nvvm.bar
// CHECK-NOT: gpu.barrier
// CHECK: scf.if
// CHECK-NOT: scf.if
// CHECK: scf.while
// CHECK: llvm.load %{{.*}} atomic syncscope("device") acquire
// CHECK-NOT: nvvm.bar
// CHECK-NOT: gpu.barrier
// CHECK-NOT: nvvm.fence.proxy
// CHECK: gpu.terminator
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @one_thread(%f: memref<1xi32>, %epoch: i32) {
    %F = axe.view %f : memref<1xi32> to !axe.tensor<1xi32, global, #axe.layout<(1) : (1)>>
    axe.kernel grid [1] threads [64] {
      axe.scope thread [0 : 1] {
        axe.signal_wait %F, %epoch : !axe.tensor<1xi32, global, #axe.layout<(1) : (1)>>, i32
      }
    }
    return
  }
}

// -----

// A wait on several flags (a run-time slice of a row of a flag array): one round of relaxed
// loads of all of them (their addresses from the slice's layout: row %r of 8 flags, columns
// 4-7), repeated until none differs from the value, then one acquire fence.
// CHECK-LABEL: func.func @many
// CHECK: scf.while
// CHECK-COUNT-4: llvm.load %{{.*}} atomic syncscope("device") monotonic {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK: arith.ori
// CHECK: arith.ori
// CHECK: %[[ANY:.*]] = arith.ori
// CHECK: scf.condition(%[[ANY]])
// CHECK: llvm.fence syncscope("device") acquire
// CHECK: nvvm.bar.warp.sync
// CHECK-NOT: nvvm.fence.proxy
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @many(%f: memref<16xi32>, %epoch: i32, %r: index) {
    %F = axe.view %f : memref<16xi32> to !axe.tensor<2x8xi32, global, #axe.layout<(2, 8) : (8, 1)>>
    axe.kernel grid [1] threads [64] {
      axe.scope warp [1 : 2] {
        %c4 = arith.constant 4 : index
        %row = axe.slice %F [%r : +1, %c4 : +4] : !axe.tensor<2x8xi32, global, #axe.layout<(2, 8) : (8, 1)>> to !axe.tensor<1x4xi32, global, #axe.layout<(1, 4) : (8, 1)>>
        axe.signal_wait %row, %epoch : !axe.tensor<1x4xi32, global, #axe.layout<(1, 4) : (8, 1)>>, i32
      }
    }
    return
  }
}

// -----

// A kernel of a device mesh that reaches a peer's flag through its peer table only (no rank
// argument): the flag lives on another GPU, so the poll is at system scope (no syncscope).
// CHECK-LABEL: func.func @static_peer
// CHECK-SAME: {axe.peers_of = 1 : i64}
// CHECK: llvm.load %{{.*}} atomic acquire {alignment = 4 : i64} : !llvm.ptr -> i32
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @static_peer(%p: memref<4096xf32> {axe.align = 16 : i64}, %flags: memref<4xi32>, %epoch: i32) {
    axe.mesh [2] {
      %F = axe.view %flags : memref<4xi32> to !axe.tensor<2x4xi32, global, #axe.layout<(2, 4) : (1@gpuid, 1)>>
      axe.kernel grid [4] threads [128] {
        %f0 = axe.slice %F [0 : 1, 2 : 3] : !axe.tensor<2x4xi32, global, #axe.layout<(2, 4) : (1@gpuid, 1)>> to !axe.tensor<1x1xi32, global, #axe.layout<(1, 1) : (1, 1) + 2>>
        axe.signal_wait %f0, %epoch : !axe.tensor<1x1xi32, global, #axe.layout<(1, 1) : (1, 1) + 2>>, i32
      }
    }
    return
  }
}
