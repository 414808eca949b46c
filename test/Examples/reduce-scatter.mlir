// Figure 8 of the Axe paper (§3.2, "Representing Distributed Tensor"), in Axe IR: the signature
// of a reduce-scatter kernel over 4 GPUs. It accepts a DTensor X of shape (4, 64, 64) sharded
// over its first dimension (GPU g holds X[g], a 64x64 row-major block), sums over dimension 0,
// and produces a DTensor Y of shape (64, 64) sharded over its first dimension (GPU g holds rows
// 16g .. 16g + 15, a 16x64 row-major block).
//
// How the paper's Python-like DSL maps to the ops:
//   the device mesh of 4 GPUs               -> axe.mesh [4] { ... }; the mesh's devices are the
//                                              `gpuid` axis (its bound, 4, is checked)
//   DTensor parameters with Axe layouts     -> func arguments of type !axe.tensor<..., global,
//                                              LAYOUT> whose layouts shard over gpuid
//     X: (4, 64, 64) sharded on dim 0       -> (4, 64, 64) : (1@gpuid, 64, 1)
//     Y: (64, 64) sharded on dim 0          -> (4, 16, 64) : (1@gpuid, 64, 1)  (rows = 4 x 16)
//   the reduce-scatter ("sum over 0")       -> axe.reduce sum %X, %Y dims [0] inside the mesh:
//                                              the source and destination layouts together say
//                                              that it is a reduce-scatter (the reduced dimension
//                                              is the sharded one; the result is sharded again)
//   per-device buffers (second function)    -> memref arguments (each GPU's local shard) + axe.view
//                                              with the distributed layout, inside the mesh
//
// Canonical forms (D1 merges the row-major local block): X = (4, 4096) : (1@gpuid, 1),
// Y = (4, 1024) : (1@gpuid, 1): device g owns the 4096 (resp. 1024) contiguous local elements.

// RUN: axe-opt %s | FileCheck %s
// RUN: axe-opt %s | axe-opt | FileCheck %s
// RUN: axe-opt %s --mlir-print-op-generic | axe-opt | FileCheck %s
// RUN: axe-opt %s --axe-canonicalize | FileCheck %s --check-prefix=CANON
// It lowers to PTX (SPMD: every rank runs the kernel; the function gains the rank and the
// peer table of X, the device addresses of every rank's X), and its launch manifest says so.
// RUN: rm -rf %t && mkdir -p %t
// RUN: axe-opt %s --axe-to-nvvm-pipeline=chip=sm_90 | axe-translate --axe-to-launch-manifest | %python %S/../Target/GPU/Inputs/manifest_summary.py %t | FileCheck %s --check-prefix=MANIFEST
// MANIFEST: "entry": "reduce_scatter_kernel"
// MANIFEST-SAME: "params": [{"arg": 3, "kind": "rank"}, {"arg": 2, "devices": 4, "kind": "peer_table", "of": 0}, {"align": 2, "arg": 1, "dtype": "f16", "extent": 1024, "kind": "buffer"}]
// MANIFEST: "entry": "reduce_scatter_buffers_kernel"

// CHECK: module attributes {axe.target = #axe.target<"sm_90">}
// CHECK-LABEL: func.func @reduce_scatter
// CHECK-SAME: (%[[X:.*]]: !axe.tensor<4x64x64xf16, global, #axe.layout<(4, 64, 64) : (1@gpuid, 64, 1)>>, %[[Y:.*]]: !axe.tensor<64x64xf16, global, #axe.layout<(4, 16, 64) : (1@gpuid, 64, 1)>>)
// CHECK-NEXT: axe.mesh [4] {
// CHECK-NEXT: axe.reduce sum %[[X]], %[[Y]] dims [0] : !axe.tensor<4x64x64xf16, global, #axe.layout<(4, 64, 64) : (1@gpuid, 64, 1)>>, !axe.tensor<64x64xf16, global, #axe.layout<(4, 16, 64) : (1@gpuid, 64, 1)>>
// CHECK-NEXT: }
// CHECK-NEXT: return

// CHECK-LABEL: func.func @reduce_scatter_buffers
// CHECK-SAME: (%[[XB:.*]]: memref<4096xf16>, %[[YB:.*]]: memref<1024xf16>)
// CHECK-NEXT: axe.mesh [4] {
// CHECK-NEXT: %[[XV:.*]] = axe.view %[[XB]] : memref<4096xf16> to !axe.tensor<4x64x64xf16, global, #axe.layout<(4, 64, 64) : (1@gpuid, 64, 1)>>
// CHECK-NEXT: %[[YV:.*]] = axe.view %[[YB]] : memref<1024xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(4, 16, 64) : (1@gpuid, 64, 1)>>
// CHECK-NEXT: axe.reduce sum %[[XV]], %[[YV]] dims [0] :
// CHECK-NEXT: }

// CANON-LABEL: func.func @reduce_scatter
// CANON-SAME: (%[[X:.*]]: !axe.tensor<4x64x64xf16, global, #axe.layout<(4, 4096) : (1@gpuid, 1)>>, %[[Y:.*]]: !axe.tensor<64x64xf16, global, #axe.layout<(4, 1024) : (1@gpuid, 1)>>)
// CANON: axe.mesh [4] {
// CANON-NEXT: axe.reduce sum %[[X]], %[[Y]] dims [0] : !axe.tensor<4x64x64xf16, global, #axe.layout<(4, 4096) : (1@gpuid, 1)>>, !axe.tensor<64x64xf16, global, #axe.layout<(4, 1024) : (1@gpuid, 1)>>
// CANON-LABEL: func.func @reduce_scatter_buffers
// CANON: axe.view %{{.*}} : memref<4096xf16> to !axe.tensor<4x64x64xf16, global, #axe.layout<(4, 4096) : (1@gpuid, 1)>>
// CANON: axe.view %{{.*}} : memref<1024xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(4, 1024) : (1@gpuid, 1)>>
// CANON: axe.reduce sum

module attributes {axe.target = #axe.target<"sm_90">} {
  // The figure's signature: the DTensors are the kernel's parameters.
  func.func @reduce_scatter(%X: !axe.tensor<4x64x64xf16, global, #axe.layout<(4, 64, 64) : (1@gpuid, 64, 1)>>,
                            %Y: !axe.tensor<64x64xf16, global, #axe.layout<(4, 16, 64) : (1@gpuid, 64, 1)>>) {
    axe.mesh [4] {
      axe.reduce sum %X, %Y dims [0] : !axe.tensor<4x64x64xf16, global, #axe.layout<(4, 64, 64) : (1@gpuid, 64, 1)>>, !axe.tensor<64x64xf16, global, #axe.layout<(4, 16, 64) : (1@gpuid, 64, 1)>>
    }
    return
  }

  // The same kernel from each GPU's local buffers: a 64x64 block of X and a 16x64 block of Y.
  func.func @reduce_scatter_buffers(%xbuf: memref<4096xf16>, %ybuf: memref<1024xf16>) {
    axe.mesh [4] {
      %X = axe.view %xbuf : memref<4096xf16> to !axe.tensor<4x64x64xf16, global, #axe.layout<(4, 64, 64) : (1@gpuid, 64, 1)>>
      %Y = axe.view %ybuf : memref<1024xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(4, 16, 64) : (1@gpuid, 64, 1)>>
      axe.reduce sum %X, %Y dims [0] : !axe.tensor<4x64x64xf16, global, #axe.layout<(4, 64, 64) : (1@gpuid, 64, 1)>>, !axe.tensor<64x64xf16, global, #axe.layout<(4, 16, 64) : (1@gpuid, 64, 1)>>
    }
    return
  }
}
