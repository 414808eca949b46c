// Round trip of the axe dialect: parse and print; print then reparse; generic form then reparse.
// RUN: axe-opt %s --allow-unregistered-dialect | FileCheck %s
// RUN: axe-opt %s --allow-unregistered-dialect | axe-opt --allow-unregistered-dialect | FileCheck %s
// RUN: axe-opt %s --allow-unregistered-dialect --mlir-print-op-generic | axe-opt --allow-unregistered-dialect | FileCheck %s
// RUN: axe-opt %s --allow-unregistered-dialect --verify-roundtrip

// The paper's tensor-core tile (§2.2) prints exactly as written: printing is canonical, with
// the spacing below.
// CHECK-LABEL: "test.tile"
// CHECK-SAME: l = #axe.layout<(8, 2, 4, 2) : (4@lane, 1@warp, 1@lane, 1@reg) + [(2) : (4@warp)] + 5@warp>
"test.tile"() {l = #axe.layout<(8, 2, 4, 2) : (4@lane, 1@warp, 1@lane, 1@reg) + [(2) : (4@warp)] + 5@warp>} : () -> ()

// Spacing, `@m` and repeated offsets are normalized; zero offsets vanish; memory strides print bare.
// CHECK-LABEL: "test.spacing"
// CHECK-SAME: a = #axe.layout<(16, 8) : (8, 1) + 64>
// CHECK-SAME: b = #axe.layout<(4) : (-1) + 3@warp>
// CHECK-SAME: c = #axe.layout<(2) : (1)>
"test.spacing"() {a = #axe.layout<(16,8):(8@m,1)+64@m>, b = #axe.layout<(4):(-1) + 1@warp + 2@warp>, c = #axe.layout<(2) : (1) + 1@lane + -1@lane>} : () -> ()

// Distributed layouts over a device axis, SBUF partitions and a scalar layout.
// CHECK-LABEL: "test.axes"
// CHECK-SAME: dev = #axe.layout<(4, 1024) : (1@gpuid, 1) + [(2) : (4@gpuid)]>
// CHECK-SAME: sbuf = #axe.layout<(128, 512) : (1@P, 1@F)>
// CHECK-SAME: scalar = #axe.layout<() : ()>
"test.axes"() {dev = #axe.layout<(4, 1024) : (1@gpuid, 1) + [(2) : (4@gpuid)]>, sbuf = #axe.layout<(128, 512) : (1@P, 1@F)>, scalar = #axe.layout<() : ()>} : () -> ()

// CHECK-LABEL: func.func @binary_fastmath
// CHECK: axe.binary mul %{{.*}}, %{{.*}}, %{{.*}} {fastmath = #arith.fastmath<contract>} :
// CHECK: axe.binary add %{{.*}}, %{{.*}}, %{{.*}} :
func.func @binary_fastmath(%a: !axe.tensor<4x8xf32, global, ?>) {
  axe.binary mul %a, %a, %a {fastmath = #arith.fastmath<contract>} : !axe.tensor<4x8xf32, global, ?>, !axe.tensor<4x8xf32, global, ?>, !axe.tensor<4x8xf32, global, ?>
  axe.binary add %a, %a, %a : !axe.tensor<4x8xf32, global, ?>, !axe.tensor<4x8xf32, global, ?>, !axe.tensor<4x8xf32, global, ?>
  return
}

// CHECK-LABEL: func.func @view
// CHECK-SAME: (%[[BUF:.*]]: memref<384xf16>)
// CHECK: %[[T:.*]] = axe.view %[[BUF]] : memref<384xf16> to !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>>
// CHECK: axe.kernel
// CHECK: %[[A:.*]] = axe.alloc : !axe.tensor<8x4xf32, shared, ?>
// CHECK: axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
// CHECK: %[[R:.*]] = axe.alloc : !axe.tensor<128xf32, register, #axe.layout<(32, 4) : (1@lane, 1@reg)>>
// CHECK: return %[[T]]
func.func @view(%b: memref<384xf16>) -> !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>> {
  %t = axe.view %b : memref<384xf16> to !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>>
  axe.kernel grid [1] threads [32] {
    %a = axe.alloc : !axe.tensor<8x4xf32, shared, ?>
    %sw = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
    %r = axe.alloc : !axe.tensor<128xf32, register, #axe.layout<(32, 4) : (1@lane, 1@reg)>>
  }
  return %t : !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>>
}

// Warp specialization: a producer warp fills a stage with a TMA copy on its full barrier, a
// consumer warpgroup with more registers waits for it and releases the stage on its empty one.
// CHECK-LABEL: func.func @warp_roles
// CHECK: %[[FULL:.*]] = axe.mbarrier arrivals 1
// CHECK: %[[EMPTY:.*]] = axe.mbarrier arrivals 128
// CHECK: axe.scope warpgroup [0 : 1] {
// CHECK: axe.set_max_registers 40
// CHECK: axe.scope warp [0 : 1] {
// CHECK: axe.mbarrier_wait %[[EMPTY]], %{{.*}}
// CHECK: axe.copy async %{{.*}}, %{{.*}} schedule tma barrier %[[FULL]] : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, shared, ?>
// CHECK: axe.scope warpgroup [1 : 2] {
// CHECK: axe.set_max_registers 232
// CHECK: axe.mbarrier_wait %[[FULL]], %{{.*}}
// CHECK: axe.mbarrier_arrive %[[EMPTY]]
func.func @warp_roles(%g: !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, %p: i1) {
  axe.kernel grid [1] threads [256] {
    %s = axe.alloc : !axe.tensor<64x64xf16, shared, ?>
    %full = axe.mbarrier arrivals 1
    %empty = axe.mbarrier arrivals 128
    axe.scope warpgroup [0 : 1] {
      axe.set_max_registers 40
      axe.scope warp [0 : 1] {
        axe.mbarrier_wait %empty, %p
        axe.copy async %g, %s schedule tma barrier %full : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, shared, ?>
      }
    }
    axe.scope warpgroup [1 : 2] {
      axe.set_max_registers 232
      axe.mbarrier_wait %full, %p
      axe.mbarrier_arrive %empty
    }
  }
  return
}

// Clusters: a CTA's rank in its cluster, a TMA copy multicast to the cluster's CTAs, an
// arrival on a peer's barrier, a cluster barrier.
// CHECK-LABEL: func.func @cluster_pair
// CHECK: axe.kernel grid [4] threads [128] cluster [2] {
// CHECK: %[[R:.*]] = axe.unit_id cta in_cluster
// CHECK: axe.unit_id cluster
// CHECK: axe.copy async %{{.*}}, %{{.*}} schedule tma barrier %[[B:.*]] multicast [0] :
// CHECK: axe.mbarrier_arrive %[[B]] cta %[[R]]
// CHECK: axe.barrier cluster
func.func @cluster_pair(%g: !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>) {
  axe.kernel grid [4] threads [128] cluster [2] {
    %s = axe.alloc : !axe.tensor<64x64xf16, shared, ?>
    %b = axe.mbarrier arrivals 2
    %r = axe.unit_id cta in_cluster
    %c = axe.unit_id cluster
    axe.copy async %g, %s schedule tma barrier %b multicast [0] : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, shared, ?>
    axe.mbarrier_arrive %b cta %r
    axe.barrier cluster
  }
  return
}

// A cooperative kernel (its CTAs wait on each other: all resident at once), also clustered;
// a wait on a row of flags, in a warp role.
// CHECK-LABEL: func.func @cooperative_roles
// CHECK: axe.kernel grid [132] threads [256] cooperative {
// CHECK: axe.kernel grid [132] threads [256] cluster [2] cooperative {
// CHECK: axe.signal_wait %{{.*}}, %{{.*}} : !axe.tensor<1x4xi32, global, ?>, i32
func.func @cooperative_roles(%flags: !axe.tensor<8x4xi32, global, #axe.layout<(8, 4) : (4, 1)>>, %epoch: i32, %r: index) {
  axe.kernel grid [132] threads [256] cooperative {
  }
  axe.kernel grid [132] threads [256] cluster [2] cooperative {
    axe.scope warp [0 : 1] {
      %row = axe.slice %flags [%r : +1, 0 : 4] : !axe.tensor<8x4xi32, global, #axe.layout<(8, 4) : (4, 1)>> to !axe.tensor<1x4xi32, global, ?>
      axe.signal_wait %row, %epoch : !axe.tensor<1x4xi32, global, ?>, i32
    }
  }
  return
}

// A kernel in a mesh: the device's rank, flags set and awaited across devices.
// CHECK-LABEL: func.func @flags_in_a_mesh
// CHECK: axe.mesh [2] {
// CHECK: %[[R:.*]] = axe.device_id
// CHECK: axe.signal %{{.*}}, %{{.*}} : !axe.tensor<1x1xi32, global, ?>, i32
// CHECK: axe.signal_wait %{{.*}}, %{{.*}} : !axe.tensor<1x1xi32, global, ?>, i32
func.func @flags_in_a_mesh(%flags: !axe.tensor<2x4xi32, global, #axe.layout<(2, 4) : (1@gpuid, 1)>>, %epoch: i32) {
  axe.mesh [2] {
    axe.kernel grid [4] threads [32] {
      %r = axe.device_id
      %cta = axe.unit_id cta
      %f = axe.slice %flags [%r : +1, %cta : +1] : !axe.tensor<2x4xi32, global, #axe.layout<(2, 4) : (1@gpuid, 1)>> to !axe.tensor<1x1xi32, global, ?>
      axe.signal %f, %epoch : !axe.tensor<1x1xi32, global, ?>, i32
      axe.signal_wait %f, %epoch : !axe.tensor<1x1xi32, global, ?>, i32
    }
  }
  return
}
