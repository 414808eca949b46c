// axe.mesh: distributed tensors lowered SPMD. A reduction over the gpuid-sharded dimension
// (reduce-scatter: the destination sharded again) becomes one kernel per rank that loads every
// contribution from the rank holding it through the peer table (device addresses of the
// symmetric buffer on every rank) and stores the sums it owns. The function gains the peer
// table and the rank as arguments.
// RUN: axe-opt %s --convert-axe-to-gpu --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @reduce_scatter
// CHECK-SAME: (%[[X:.*]]: memref<4096xf16>, %[[Y:.*]]: memref<1024xf16>, %[[PEERS:.*]]: memref<4xi64> {axe.peers_of = 0 : i64}, %[[RANK:.*]]: index {axe.mesh_rank})
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c4{{.*}}) threads({{.*}}) in ({{.*}} = %c256
// The rank's rows: 16 * (rank mod 4).
// CHECK: arith.remui %[[RANK]], %c4
// CHECK-COUNT-4: memref.load %[[PEERS]]
// CHECK: llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f16
// CHECK: arith.extf
// CHECK: arith.addf {{.*}} : f32
// CHECK: arith.truncf {{.*}} : f32 to f16
// CHECK: memref.store %{{.*}}, %[[Y]]
// CHECK-NOT: axe.{{(view|reduce|mesh)}}
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @reduce_scatter(%xbuf: memref<4096xf16>, %ybuf: memref<1024xf16>) {
    axe.mesh [4] {
      %X = axe.view %xbuf : memref<4096xf16> to !axe.tensor<4x64x64xf16, global, #axe.layout<(4, 64, 64) : (1@gpuid, 64, 1)>>
      %Y = axe.view %ybuf : memref<1024xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(4, 16, 64) : (1@gpuid, 64, 1)>>
      axe.reduce sum %X, %Y dims [0] : !axe.tensor<4x64x64xf16, global, #axe.layout<(4, 64, 64) : (1@gpuid, 64, 1)>>, !axe.tensor<64x64xf16, global, #axe.layout<(4, 16, 64) : (1@gpuid, 64, 1)>>
    }
    return
  }
}

// -----

// All-reduce: the destination is replicated over the devices (no gpuid iter in its shard):
// every rank computes all 64x64 sums.
// CHECK-LABEL: func.func @all_reduce
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c16{{.*}}) threads
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @all_reduce(%xbuf: memref<4096xf32>, %ybuf: memref<4096xf32>) {
    axe.mesh [2] {
      %X = axe.view %xbuf : memref<4096xf32> to !axe.tensor<2x64x64xf32, global, #axe.layout<(2, 64, 64) : (1@gpuid, 64, 1)>>
      %Y = axe.view %ybuf : memref<4096xf32> to !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1) + [(2) : (1@gpuid)]>>
      axe.reduce sum %X, %Y dims [0] : !axe.tensor<2x64x64xf32, global, #axe.layout<(2, 64, 64) : (1@gpuid, 64, 1)>>, !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1) + [(2) : (1@gpuid)]>>
    }
    return
  }
}

// -----

// What is not lowered yet is refused at the op.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @max_over_devices(%xbuf: memref<64xf32>, %ybuf: memref<16xf32>) {
    axe.mesh [4] {
      %X = axe.view %xbuf : memref<64xf32> to !axe.tensor<4x16xf32, global, #axe.layout<(4, 16) : (1@gpuid, 1)>>
      %Y = axe.view %ybuf : memref<16xf32> to !axe.tensor<16xf32, global, #axe.layout<(16) : (1)>>
      // expected-error @+1 {{a mesh reduction lowers for sum only, not max}}
      axe.reduce max %X, %Y dims [0] : !axe.tensor<4x16xf32, global, #axe.layout<(4, 16) : (1@gpuid, 1)>>, !axe.tensor<16xf32, global, #axe.layout<(16) : (1)>>
    }
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @fill_in_mesh(%xbuf: memref<64xf32>) {
    axe.mesh [4] {
      %X = axe.view %xbuf : memref<64xf32> to !axe.tensor<4x16xf32, global, #axe.layout<(4, 16) : (1@gpuid, 1)>>
      %c = arith.constant 0.0 : f32
      // expected-error @+1 {{'axe.fill' in an axe.mesh is not lowered yet: convert-axe-to-gpu lowers views, kernels, copies between distributed layouts and axe.reduce sum over the gpuid axis in a mesh}}
      axe.fill %X, %c : !axe.tensor<4x16xf32, global, #axe.layout<(4, 16) : (1@gpuid, 1)>>, f32
    }
    return
  }
}

// -----

// All-gather: X sharded over 4 devices (16 rows each), Y replicated: every rank pulls all 64
// rows, each from the rank that holds it; a copy, so no f32 accumulation.
// CHECK-LABEL: func.func @all_gather
// CHECK-SAME: %[[PEERS:[a-z0-9]+]]: memref<4xi64> {axe.peers_of = 0 : i64}
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c16{{.*}}) threads
// CHECK: memref.load %[[PEERS]]
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f16
// CHECK-NOT: arith.extf
// CHECK: memref.store
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @all_gather(%xbuf: memref<1024xf16>, %ybuf: memref<4096xf16>) {
    axe.mesh [4] {
      %X = axe.view %xbuf : memref<1024xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(4, 16, 64) : (1@gpuid, 64, 1)>>
      %Y = axe.view %ybuf : memref<4096xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1) + [(4) : (1@gpuid)]>>
      axe.copy %X, %Y : !axe.tensor<64x64xf16, global, #axe.layout<(4, 16, 64) : (1@gpuid, 64, 1)>>, !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1) + [(4) : (1@gpuid)]>>
    }
    return
  }
}

// -----

// A kernel in a mesh (SPMD: every rank launches it). `axe.device_id` is the rank argument;
// the distributed tensors it slices to one device (P at the next rank: a push; the flags at
// this rank and the next) are addressed through their buffers' peer tables, which the
// function gains in its arguments' order after the rank. A slice at device d is a memref
// descriptor around peers[d]: the copy into it is the ordinary layout-driven store.
// axe.signal: CTA barrier, then thread 0 fences and stores with release ordering (system
// scope); axe.signal_wait: thread 0 spins on an acquire load, then the CTA barrier.
// CHECK-LABEL: func.func @push_and_flag
// CHECK-SAME: (%{{[a-z0-9]+}}: memref<4096xf32> {axe.align = 16 : i64}, %{{[a-z0-9]+}}: memref<4096xf32> {axe.align = 16 : i64}, %{{[a-z0-9]+}}: memref<4xi32>, %[[E:[a-z0-9]+]]: i32, %[[RANK:[a-z0-9]+]]: index {axe.mesh_rank}, %[[PP:[a-z0-9]+]]: memref<2xi64> {axe.peers_of = 1 : i64}, %[[FP:[a-z0-9]+]]: memref<2xi64> {axe.peers_of = 2 : i64})
// CHECK: gpu.launch
// CHECK: %[[NEXT:.*]] = arith.remui %{{.*}}, %c2
// CHECK: %[[BASE:.*]] = memref.load %[[PP]][%[[NEXT]]] : memref<2xi64>
// CHECK: %[[PTR:.*]] = llvm.inttoptr %[[BASE]] : i64 to !llvm.ptr
// CHECK: llvm.insertvalue %[[PTR]]
// CHECK: %[[THERE:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<4096xf32>
// CHECK: vector.store %{{.*}}, %[[THERE]]
// CHECK: memref.load %[[FP]][%[[NEXT]]]
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK-NEXT: llvm.fence acq_rel
// CHECK-NEXT: llvm.store %[[E]], %{{.*}} atomic release {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK: memref.load %[[FP]][%[[RANK]]]
// CHECK: scf.while
// CHECK-NEXT: %[[SEEN:.*]] = llvm.load %{{.*}} atomic acquire {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NEXT: %[[MORE:.*]] = arith.cmpi ne, %[[SEEN]], %[[E]] : i32
// CHECK-NEXT: scf.condition(%[[MORE]])
// CHECK: gpu.barrier
// CHECK-NOT: axe.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @push_and_flag(%x: memref<4096xf32> {axe.align = 16 : i64}, %p: memref<4096xf32> {axe.align = 16 : i64}, %flags: memref<4xi32>, %epoch: i32) {
    axe.mesh [2] {
      %X = axe.view %x : memref<4096xf32> to !axe.tensor<1x64x64xf32, global, #axe.layout<(1, 64, 64) : (4096, 64, 1)>>
      %P = axe.view %p : memref<4096xf32> to !axe.tensor<2x64x64xf32, global, #axe.layout<(2, 64, 64) : (1@gpuid, 64, 1)>>
      %F = axe.view %flags : memref<4xi32> to !axe.tensor<2x4xi32, global, #axe.layout<(2, 4) : (1@gpuid, 1)>>
      axe.kernel grid [4] threads [128] {
        %rank = axe.device_id
        %c1 = arith.constant 1 : index
        %c2 = arith.constant 2 : index
        %c16 = arith.constant 16 : index
        %r1 = arith.addi %rank, %c1 : index
        %next = arith.remui %r1, %c2 : index
        %cta = axe.unit_id cta
        %om = arith.muli %cta, %c16 : index
        %xs = axe.slice %X [0 : 1, %om : +16, 0 : 64] : !axe.tensor<1x64x64xf32, global, #axe.layout<(1, 64, 64) : (4096, 64, 1)>> to !axe.tensor<1x16x64xf32, global, #axe.layout<(16, 64) : (64, 1)>>
        %r = axe.alloc : !axe.tensor<1x16x64xf32, register, #axe.layout<(4, 32, 8) : (1@warp, 1@lane, 1@reg)>>
        axe.copy %xs, %r : !axe.tensor<1x16x64xf32, global, #axe.layout<(16, 64) : (64, 1)>>, !axe.tensor<1x16x64xf32, register, #axe.layout<(4, 32, 8) : (1@warp, 1@lane, 1@reg)>>
        %there = axe.slice %P [%next : +1, %om : +16, 0 : 64] : !axe.tensor<2x64x64xf32, global, #axe.layout<(2, 64, 64) : (1@gpuid, 64, 1)>> to !axe.tensor<1x16x64xf32, global, #axe.layout<(16, 64) : (64, 1)>>
        axe.copy %r, %there : !axe.tensor<1x16x64xf32, register, #axe.layout<(4, 32, 8) : (1@warp, 1@lane, 1@reg)>>, !axe.tensor<1x16x64xf32, global, #axe.layout<(16, 64) : (64, 1)>>
        %fnext = axe.slice %F [%next : +1, %cta : +1] : !axe.tensor<2x4xi32, global, #axe.layout<(2, 4) : (1@gpuid, 1)>> to !axe.tensor<1x1xi32, global, #axe.layout<() : ()>>
        axe.signal %fnext, %epoch : !axe.tensor<1x1xi32, global, #axe.layout<() : ()>>, i32
        %fmine = axe.slice %F [%rank : +1, %cta : +1] : !axe.tensor<2x4xi32, global, #axe.layout<(2, 4) : (1@gpuid, 1)>> to !axe.tensor<1x1xi32, global, #axe.layout<() : ()>>
        axe.signal_wait %fmine, %epoch : !axe.tensor<1x1xi32, global, #axe.layout<() : ()>>, i32
      }
    }
    return
  }
}

// -----

// A kernel operand spread over several devices is refused: slice it to one device first.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @spread_in_kernel(%p: memref<1024xf32>) {
    axe.mesh [2] {
      %P = axe.view %p : memref<1024xf32> to !axe.tensor<2x1024xf32, global, #axe.layout<(2, 1024) : (1@gpuid, 1)>>
      axe.kernel grid [1] threads [128] {
        %z = arith.constant 0.0 : f32
        // expected-error @+1 {{this operand is a distributed tensor spread over several devices (layout (2, 1024) : (1@gpuid, 1)): slice it to one device first}}
        axe.fill %P, %z : !axe.tensor<2x1024xf32, global, #axe.layout<(2, 1024) : (1@gpuid, 1)>>, f32
      }
    }
    return
  }
}

// -----

// A distributed layout outside a mesh has no devices to live on (the verifier says so).
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @gpuid_outside_mesh(%p: memref<1024xf32>) {
    // expected-error @+1 {{the layout distributes over devices (gpuid), but the tensor is used outside an axe.mesh}}
    %P = axe.view %p : memref<1024xf32> to !axe.tensor<2x512xf32, global, #axe.layout<(2, 512) : (1@gpuid, 1)>>
    axe.kernel grid [1] threads [128] {
      %z = arith.constant 0.0 : f32
      %c0 = arith.constant 0 : index
      %t = axe.slice %P [%c0 : +1, 0 : 512] : !axe.tensor<2x512xf32, global, #axe.layout<(2, 512) : (1@gpuid, 1)>> to !axe.tensor<1x512xf32, global, ?>
      axe.fill %t, %z : !axe.tensor<1x512xf32, global, ?>, f32
    }
    return
  }
}

// -----

// TMA tensor maps are built by the host for local buffers: a distributed source (a TMA load
// from a peer) is refused. (A TMA store into a peer's memory is a bulk copy:
// convert-axe-to-gpu-tma-peer.mlir.)
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @tma_of_peer(%p: memref<8192xf16> {axe.align = 16 : i64}) {
    axe.mesh [2] {
      %P = axe.view %p : memref<8192xf16> to !axe.tensor<2x64x64xf16, global, #axe.layout<(2, 64, 64) : (1@gpuid, 64, 1)>>
      axe.kernel grid [1] threads [128] {
        %c1 = arith.constant 1 : index
        %s = axe.alloc : !axe.tensor<1x64x64xf16, shared, #axe.layout<(1, 64, 64) : (4096, 64, 1)>>
        %t = axe.slice %P [%c1 : +1, 0 : 64, 0 : 64] : !axe.tensor<2x64x64xf16, global, #axe.layout<(2, 64, 64) : (1@gpuid, 64, 1)>> to !axe.tensor<1x64x64xf16, global, ?>
        // expected-error @+1 {{a TMA load of a distributed tensor (layout (2, 64, 64) : (1@gpuid, 64, 1), over gpuid) is not lowered: the host builds tensor maps of local buffers only}}
        %tok = axe.copy async %t, %s schedule tma : !axe.tensor<1x64x64xf16, global, ?>, !axe.tensor<1x64x64xf16, shared, #axe.layout<(1, 64, 64) : (4096, 64, 1)>> -> !axe.token
        axe.wait %tok
      }
    }
    return
  }
}
