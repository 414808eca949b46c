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
      // expected-error @+1 {{'axe.fill' in an axe.mesh is not lowered yet: convert-axe-to-gpu lowers views, copies between distributed layouts and axe.reduce sum over the gpuid axis in a mesh}}
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
