// axe-canonicalize: every #axe.layout, as an attribute or nested in a type, into canonical form.
// RUN: axe-opt %s --allow-unregistered-dialect --axe-canonicalize | FileCheck %s
// The pass is idempotent: a second run prints the same IR.
// RUN: axe-opt %s --allow-unregistered-dialect --axe-canonicalize | axe-opt --allow-unregistered-dialect --axe-canonicalize | FileCheck %s
// It runs inside pipelines next to upstream passes.
// RUN: axe-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(axe-canonicalize,canonicalize,cse)' | FileCheck %s

// D0 drops the unit iter, D1 merges the chain 8:4 / 4:1 into 32:1.
// CHECK-LABEL: "test.d0_d1"
// CHECK-SAME: l = #axe.layout<(32) : (1)>
"test.d0_d1"() {l = #axe.layout<(8, 1, 4) : (4, 7, 1)>} : () -> ()

// Iters on different axes never merge.
// CHECK-LABEL: "test.axes_kept"
// CHECK-SAME: l = #axe.layout<(2, 4) : (1@warp, 1)>
"test.axes_kept"() {l = #axe.layout<(2, 4) : (1@warp, 1)>} : () -> ()

// Not a chain (2 * 1 != 2 is fine, but lane strides 1 then 2 run the wrong way): kept.
// CHECK-LABEL: "test.not_a_chain"
// CHECK-SAME: l = #axe.layout<(2, 2) : (1@lane, 2@lane)>
"test.not_a_chain"() {l = #axe.layout<(2, 2) : (1@lane, 2@lane)>} : () -> ()

// Replica iters merge as a multiset (C2): {16, 8}@warp of extent 2 each is (4) : (8@warp).
// CHECK-LABEL: "test.replica_merge"
// CHECK-SAME: l = #axe.layout<(4) : (1) + [(4) : (8@warp)]>
"test.replica_merge"() {l = #axe.layout<(4) : (1) + [(2, 2) : (16@warp, 8@warp)]>} : () -> ()

// A unit replica vanishes (C0); the offset stays.
// CHECK-LABEL: "test.unit_replica"
// CHECK-SAME: l = #axe.layout<(32) : (1) + 2>
"test.unit_replica"() {l = #axe.layout<(4, 8) : (8, 1) + [(1) : (3@warp)] + 2>} : () -> ()

// Layouts nested in !axe.tensor types are rewritten too, on values and in signatures.
// CHECK-LABEL: func.func @nested
// CHECK-SAME: (%[[B:.*]]: memref<384xf16>) -> !axe.tensor<16x24xf16, global, #axe.layout<(384) : (1)>>
// CHECK: %[[V:.*]] = axe.view %[[B]] : memref<384xf16> to !axe.tensor<16x24xf16, global, #axe.layout<(384) : (1)>>
// CHECK: return %[[V]]
func.func @nested(%b: memref<384xf16>) -> !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>> {
  %t = axe.view %b : memref<384xf16> to !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>>
  return %t : !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>>
}

// `?` layouts are left for axe-infer-layout.
// CHECK-LABEL: func.func @unknown
// CHECK: axe.alloc : !axe.tensor<8x4xf32, shared, ?>
func.func @unknown() {
  axe.kernel grid [1] threads [32] {
    %a = axe.alloc : !axe.tensor<8x4xf32, shared, ?>
    %z = arith.constant 0.0 : f32
    axe.fill %a, %z : !axe.tensor<8x4xf32, shared, ?>, f32
  }
  return
}
