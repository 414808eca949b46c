// Round trip of every Axe op and type: custom form, reparse, generic form, --verify-roundtrip.
// RUN: axe-opt %s | FileCheck %s
// RUN: axe-opt %s | axe-opt | FileCheck %s
// RUN: axe-opt %s --mlir-print-op-generic | axe-opt | FileCheck %s
// RUN: axe-opt %s --verify-roundtrip
// Memory effects are declared: CSE/DCE keep every op that writes memory and drop dead pure ones.
// RUN: axe-opt %s --cse --canonicalize | FileCheck %s --check-prefix=DCE

// CHECK: module attributes {axe.target = #axe.target<"sm_90">}
module attributes {axe.target = #axe.target<"sm_90">} {
  // CHECK-LABEL: func.func @all_ops
  // CHECK-SAME: (%[[GA:.*]]: memref<16384xf16>, %[[GC:.*]]: memref<16384xf32>)
  func.func @all_ops(%ga: memref<16384xf16>, %gc: memref<16384xf32>) {
    // CHECK: %[[A:.*]] = axe.view %[[GA]] : memref<16384xf16> to !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>
    %A = axe.view %ga : memref<16384xf16> to !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>
    // CHECK: %[[C:.*]] = axe.view %[[GC]]
    %C = axe.view %gc : memref<16384xf32> to !axe.tensor<128x128xf32, global, #axe.layout<(128, 128) : (128, 1)>>
    // CHECK: axe.kernel grid [4, 2] threads [128] cluster [2, 1] {
    axe.kernel grid [4, 2] threads [128] cluster [2, 1] {
      // CHECK: %[[SA:.*]] = axe.alloc : !axe.tensor<128x32xf16, shared, ?>
      %sa = axe.alloc : !axe.tensor<128x32xf16, shared, ?>
      // CHECK: %[[SB:.*]] = axe.alloc : !axe.tensor<32x128xf16, shared, #axe.layout<(32, 128) : (128, 1)>>
      %sb = axe.alloc : !axe.tensor<32x128xf16, shared, #axe.layout<(32, 128) : (128, 1)>>
      // CHECK: %[[ACC:.*]] = axe.alloc : !axe.tensor<128x128xf32, register, ?>
      %acc = axe.alloc : !axe.tensor<128x128xf32, register, ?>
      // CHECK: %[[Z:.*]] = arith.constant
      %zero = arith.constant 0.0 : f32
      // CHECK: axe.fill %[[ACC]], %[[Z]] : !axe.tensor<128x128xf32, register, ?>, f32
      axe.fill %acc, %zero : !axe.tensor<128x128xf32, register, ?>, f32
      // CHECK: %[[S:.*]] = axe.slice %[[A]] [0 : 128, 32 : 64] : !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>> to !axe.tensor<128x32xf16, global, ?>
      %a1 = axe.slice %A [0 : 128, 32 : 64] : !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>> to !axe.tensor<128x32xf16, global, ?>
      // CHECK: %[[T:.*]] = axe.copy async %[[S]], %[[SA]] schedule cp_async : !axe.tensor<128x32xf16, global, ?>, !axe.tensor<128x32xf16, shared, ?> -> !axe.token
      %t = axe.copy async %a1, %sa schedule cp_async : !axe.tensor<128x32xf16, global, ?>, !axe.tensor<128x32xf16, shared, ?> -> !axe.token
      // CHECK: %[[T2:.*]] = axe.copy async %[[S]], %[[SA]] schedule tma
      %t2 = axe.copy async %a1, %sa schedule tma : !axe.tensor<128x32xf16, global, ?>, !axe.tensor<128x32xf16, shared, ?> -> !axe.token
      // CHECK: %[[R:.*]] = axe.arrive
      %rel = axe.arrive
      // CHECK: axe.copy async %[[S]], %[[SA]] schedule tma after %[[R]] :
      %t3 = axe.copy async %a1, %sa schedule tma after %rel : !axe.tensor<128x32xf16, global, ?>, !axe.tensor<128x32xf16, shared, ?> -> !axe.token
      // CHECK: axe.wait %[[T]], %[[T2]]
      axe.wait %t, %t2
      // CHECK: axe.copy %[[SA]], %[[S]] schedule tma reduce sum : !axe.tensor<128x32xf16, shared, ?>, !axe.tensor<128x32xf16, global, ?>
      axe.copy %sa, %a1 schedule tma reduce sum : !axe.tensor<128x32xf16, shared, ?>, !axe.tensor<128x32xf16, global, ?>
      // CHECK: axe.wait %[[T]] outstanding 1
      axe.wait %t outstanding 1
      // CHECK: axe.barrier cta
      axe.barrier cta
      // CHECK: axe.gemm %[[SA]], %[[SB]], %[[ACC]] : !axe.tensor<128x32xf16, shared, ?>, !axe.tensor<32x128xf16, shared, #axe.layout<(32, 128) : (128, 1)>>, !axe.tensor<128x128xf32, register, ?>
      axe.gemm %sa, %sb, %acc : !axe.tensor<128x32xf16, shared, ?>, !axe.tensor<32x128xf16, shared, #axe.layout<(32, 128) : (128, 1)>>, !axe.tensor<128x128xf32, register, ?>
      // CHECK: %[[G:.*]] = axe.gemm async %[[SA]], %[[SB]], %[[ACC]] : {{.*}} -> !axe.token
      %g = axe.gemm async %sa, %sb, %acc : !axe.tensor<128x32xf16, shared, ?>, !axe.tensor<32x128xf16, shared, #axe.layout<(32, 128) : (128, 1)>>, !axe.tensor<128x128xf32, register, ?> -> !axe.token
      // CHECK: axe.wait %[[G]] outstanding 1
      axe.wait %g outstanding 1
      // CHECK: axe.gemm %[[SB]], %[[SA]], %[[ACC]] {transpose_a, transpose_b}
      axe.gemm %sb, %sa, %acc {transpose_a, transpose_b} : !axe.tensor<32x128xf16, shared, #axe.layout<(32, 128) : (128, 1)>>, !axe.tensor<128x32xf16, shared, ?>, !axe.tensor<128x128xf32, register, ?>
      // CHECK: axe.copy %[[ACC]], %[[C]] : !axe.tensor<128x128xf32, register, ?>, !axe.tensor<128x128xf32, global, #axe.layout<(128, 128) : (128, 1)>>
      axe.copy %acc, %C : !axe.tensor<128x128xf32, register, ?>, !axe.tensor<128x128xf32, global, #axe.layout<(128, 128) : (128, 1)>>
      // CHECK: axe.scope warpgroup {
      axe.scope warpgroup {
        // CHECK: axe.scope warp [0 : 2] {
        axe.scope warp [0 : 2] {
          // CHECK: %[[X:.*]] = axe.alloc : !axe.tensor<64x32xf32, register, #axe.layout<(64, 32) : (1@reg, 1@lane)>>
          %x = axe.alloc : !axe.tensor<64x32xf32, register, #axe.layout<(64, 32) : (1@reg, 1@lane)>>
          // CHECK: %[[M:.*]] = axe.alloc : !axe.tensor<64x1xf32, register, ?>
          %m = axe.alloc : !axe.tensor<64x1xf32, register, ?>
          %h = axe.alloc : !axe.tensor<64x32xf16, register, ?>
          // CHECK: axe.reduce max %[[X]], %[[M]] dims [1]
          axe.reduce max %x, %m dims [1] : !axe.tensor<64x32xf32, register, #axe.layout<(64, 32) : (1@reg, 1@lane)>>, !axe.tensor<64x1xf32, register, ?>
          // CHECK: axe.binary sub %[[X]], %[[M]], %[[X]]
          axe.binary sub %x, %m, %x : !axe.tensor<64x32xf32, register, #axe.layout<(64, 32) : (1@reg, 1@lane)>>, !axe.tensor<64x1xf32, register, ?>, !axe.tensor<64x32xf32, register, #axe.layout<(64, 32) : (1@reg, 1@lane)>>
          // CHECK: axe.unary exp %[[X]], %[[X]]
          axe.unary exp %x, %x : !axe.tensor<64x32xf32, register, #axe.layout<(64, 32) : (1@reg, 1@lane)>>, !axe.tensor<64x32xf32, register, #axe.layout<(64, 32) : (1@reg, 1@lane)>>
          // CHECK: axe.cast %[[X]], %[[H:.*]] :
          axe.cast %x, %h : !axe.tensor<64x32xf32, register, #axe.layout<(64, 32) : (1@reg, 1@lane)>>, !axe.tensor<64x32xf16, register, ?>
          %y = axe.alloc : !axe.tensor<64x32xf32, register, #axe.layout<(2, 32, 32) : (32@reg, 1@lane, 1@reg)>>
          // CHECK: axe.convert_layout %[[X]], %{{.*}} : !axe.tensor<64x32xf32, register, #axe.layout<(64, 32) : (1@reg, 1@lane)>>, !axe.tensor<64x32xf32, register, #axe.layout<(2, 32, 32) : (32@reg, 1@lane, 1@reg)>>
          axe.convert_layout %x, %y : !axe.tensor<64x32xf32, register, #axe.layout<(64, 32) : (1@reg, 1@lane)>>, !axe.tensor<64x32xf32, register, #axe.layout<(2, 32, 32) : (32@reg, 1@lane, 1@reg)>>
          // CHECK: axe.scope thread {
          axe.scope thread {
            %r = axe.alloc : !axe.tensor<4xf32, register, #axe.layout<(4) : (1@reg)>>
            %s = axe.alloc : !axe.tensor<f32, register, #axe.layout<() : ()>>
            // CHECK: axe.reduce sum %{{.*}}, %{{.*}} dims [0] : !axe.tensor<4xf32, register, #axe.layout<(4) : (1@reg)>>, !axe.tensor<f32, register, #axe.layout<() : ()>>
            axe.reduce sum %r, %s dims [0] : !axe.tensor<4xf32, register, #axe.layout<(4) : (1@reg)>>, !axe.tensor<f32, register, #axe.layout<() : ()>>
          }
        }
      }
    }
    return
  }

  // Run-time tile origins from the executing CTA.
  // CHECK-LABEL: func.func @tiles
  // CHECK: %[[C:.*]] = axe.unit_id cta
  // CHECK: %[[O:.*]] = arith.muli %[[C]], %{{.*}} : index
  // CHECK: axe.slice %{{.*}} [%[[O]] : +128, 0 : 4096] : !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>> to !axe.tensor<128x4096xf16, global, ?>
  // CHECK: axe.slice %{{.*}} [%[[O]] : +128, 0 : 1000] {clip} : !axe.tensor<1000x1000xf16, global, #axe.layout<(1000, 1000) : (1000, 1)>> to !axe.tensor<128x1000xf16, global, ?>
  // CHECK: axe.slice %{{.*}} [%[[O]] : +128 until %{{.*}}, 0 : 1000] : !axe.tensor<1000x1000xf16, global, #axe.layout<(1000, 1000) : (1000, 1)>> to !axe.tensor<128x1000xf16, global, ?>
  // CHECK: axe.unit_id warp
  func.func @tiles(%a: memref<16777216xf16>, %r: memref<1000000xf16>) {
    %A = axe.view %a : memref<16777216xf16> to !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    axe.kernel grid [32] threads [128] {
      %c = axe.unit_id cta
      %c128 = arith.constant 128 : index
      %o = arith.muli %c, %c128 : index
      %s = axe.slice %A [%o : +128, 0 : 4096] : !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>> to !axe.tensor<128x4096xf16, global, ?>
      // A ragged tensor's last row tile reaches past it: {clip}.
      %R = axe.view %r : memref<1000000xf16> to !axe.tensor<1000x1000xf16, global, #axe.layout<(1000, 1000) : (1000, 1)>>
      %rs = axe.slice %R [%o : +128, 0 : 1000] {clip} : !axe.tensor<1000x1000xf16, global, #axe.layout<(1000, 1000) : (1000, 1)>> to !axe.tensor<128x1000xf16, global, ?>
      // A window of rows that ends at run time (a group's rows in a grouped GEMM).
      %end = arith.constant 700 : index
      %rw = axe.slice %R [%o : +128 until %end, 0 : 1000] : !axe.tensor<1000x1000xf16, global, #axe.layout<(1000, 1000) : (1000, 1)>> to !axe.tensor<128x1000xf16, global, ?>
      %w = axe.unit_id warp
      %z = arith.constant 0.0 : f16
      axe.fill %s, %z : !axe.tensor<128x4096xf16, global, ?>, f16
    }
    return
  }

  // A device mesh with a distributed global tensor (split over 8 GPUs).
  // CHECK-LABEL: func.func @mesh
  // CHECK: axe.mesh [2, 4] {
  // CHECK: axe.alloc : !axe.tensor<8x1024xf16, global, #axe.layout<(8, 1024) : (1@gpuid, 1)>>
  func.func @mesh() {
    axe.mesh [2, 4] {
      %w = axe.alloc : !axe.tensor<8x1024xf16, global, #axe.layout<(8, 1024) : (1@gpuid, 1)>>
    }
    return
  }
}

// DCE-LABEL: func.func @all_ops
// DCE: axe.fill
// DCE: axe.copy async
// DCE: axe.gemm
// DCE: axe.copy
// DCE: axe.reduce max
// DCE-LABEL: func.func @mesh
// The unused allocation is dead: MemAlloc alone does not keep it.
// DCE-NOT: axe.alloc
// DCE: return
