// Thread-block clusters (sm_90): a clustered kernel becomes a gpu.launch with `clusters`; its
// CTAs synchronize the cluster once their barriers are initialized and again before they exit
// (peers multicast into them and arrive on their barriers). A CTA's rank in its cluster and
// its cluster's index come from its block id; a multicast TMA copy splits the tile's boxes
// among the group (member j issues boxes j, j + n, ...) and sends each with the group's CTA
// mask; an arrival on a peer's barrier maps the barrier's address into the peer (mapa) and
// arrives there (release at CTA scope, as CUTLASS does).
// RUN: axe-opt %s --convert-axe-to-gpu --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @multicast
// CHECK: gpu.launch clusters(%{{.*}}) in (%{{.*}} = %c2{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) blocks
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c256_i32
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// The rank (block id mod 2) and the cluster (block id / 2).
// CHECK: arith.remui %[[BID:.*]], %c2
// CHECK: arith.divui %[[BID]], %c2
// The multicast mask: 0b11 shifted to the group's first rank (here always 0).
// CHECK: %[[MASK:.*]] = arith.shli %c3_i16
// The whole tile's bytes are expected on this CTA's barrier: 64 x 64 x 2.
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c8192_i32
// Member 0 issues box 0, member 1 box 1: boxes of 32 rows (the tile's one 64-row box, cut in two).
// CHECK: %[[M0:.*]] = arith.cmpi eq, %[[MEMBER:.*]], %c0
// CHECK: scf.if %[[M0]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] multicast_mask = %[[MASK]] : !llvm.ptr<7>, !llvm.ptr
// CHECK: arith.cmpi eq, %[[MEMBER]], %c1
// CHECK: scf.if
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] multicast_mask = %[[MASK]] : !llvm.ptr<7>, !llvm.ptr
// Arrivals on the barrier of CTA 1 of the cluster.
// CHECK: %[[PEER:.*]] = nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: nvvm.mbarrier.arrive %[[PEER]] : !llvm.ptr<7>
// axe.barrier cluster.
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// Before the CTA exits.
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK-NEXT: gpu.terminator
// CHECK-NOT: axe.{{(copy|mbarrier|unit_id|barrier|kernel|scope)}}
!a = !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>
!g = !axe.tensor<64x64xf16, global, ?>
!s = !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @multicast(%a: memref<16384xf16> {axe.align = 16 : i64}, %p: i1) {
    %A = axe.view %a : memref<16384xf16> to !a
    axe.kernel grid [4] threads [128] cluster [2] {
      %s = axe.alloc : !s
      %full = axe.mbarrier arrivals 1
      %empty = axe.mbarrier arrivals 256
      %rank = axe.unit_id cta in_cluster
      %cl = axe.unit_id cluster
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %col = arith.muli %cl, %c64 : index
      %g = axe.slice %A [%col : +64, %col : +64] : !a to !g
      axe.scope warp [0 : 1] {
        axe.copy async %g, %s schedule tma barrier %full multicast [0] : !g, !s
      }
      axe.mbarrier_wait %full, %p
      axe.mbarrier_arrive %empty cta %c1
      axe.barrier cluster
    }
    return
  }
}

// -----

// Two dimensions of cluster, multicast along the second: the group is the two CTAs of one
// column of the 2x2 cluster (ranks r and r + 2), mask 0b101 shifted to the column.
// CHECK-LABEL: func.func @multicast_2d
// CHECK: gpu.launch clusters
// CHECK: arith.shli %c5_i16
// CHECK-COUNT-2: multicast_mask
!a = !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>
!g = !axe.tensor<64x64xf16, global, ?>
!s = !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @multicast_2d(%a: memref<16384xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<16384xf16> to !a
    axe.kernel grid [4, 2] threads [128] cluster [2, 2] {
      %s = axe.alloc : !s
      %full = axe.mbarrier arrivals 1
      %c0 = arith.constant 0 : index
      %g = axe.slice %A [%c0 : +64, %c0 : +64] : !a to !g
      axe.scope warp [0 : 1] {
        axe.copy async %g, %s schedule tma barrier %full multicast [1] : !g, !s
      }
    }
    return
  }
}

// -----

// A kernel without barriers needs no cluster synchronization; a cluster barrier in a kernel
// without clusters is a CTA barrier (clusters of one CTA).
// CHECK-LABEL: func.func @no_barriers
// CHECK: gpu.launch clusters
// CHECK-NOT: nvvm.cluster.arrive
// CHECK: gpu.terminator
// CHECK-LABEL: func.func @cluster_of_one
// CHECK: gpu.barrier
// CHECK-NOT: nvvm.cluster
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @no_barriers() {
    axe.kernel grid [2] threads [32] cluster [2] {
    }
    return
  }
  func.func @cluster_of_one() {
    axe.kernel grid [2] threads [32] {
      axe.barrier cluster
    }
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @cluster_barrier_in_role() {
    axe.kernel grid [2] threads [64] cluster [2] {
      axe.scope warp [0 : 1] {
        // expected-error @+1 {{'axe.barrier' op cluster inside a sliced scope: the threads outside the slice never reach it}}
        axe.barrier cluster
      }
    }
    return
  }
}
