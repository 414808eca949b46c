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

// Folds of Axe ops.

// Copy to self: erased. A copy between different tensors stays.
// CHECK-LABEL: func.func @self_copy
// CHECK-SAME: (%[[A:.*]]: !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>, %[[B:.*]]: !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>)
// CHECK-NEXT: axe.copy %[[A]], %[[B]]
// CHECK-NEXT: return
func.func @self_copy(%a: !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>, %b: !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>) {
  axe.copy %a, %a : !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>, !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>
  axe.copy %a, %b : !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>, !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>
  return
}

// Slice of a slice: one slice of the original ([4:12] then [2:6] is [6:10]).
// CHECK-LABEL: func.func @slice_of_slice
// CHECK: %[[S:.*]] = axe.slice %{{.*}} [6 : 10] : !axe.tensor<16xf16, global, #axe.layout<(16) : (1)>> to !axe.tensor<4xf16, global, ?>
// CHECK-NOT: axe.slice
func.func @slice_of_slice(%t: !axe.tensor<16xf16, global, #axe.layout<(16) : (1)>>) {
  %a = axe.slice %t [4 : 12] : !axe.tensor<16xf16, global, #axe.layout<(16) : (1)>> to !axe.tensor<8xf16, global, ?>
  %b = axe.slice %a [2 : 6] : !axe.tensor<8xf16, global, ?> to !axe.tensor<4xf16, global, ?>
  %z = arith.constant 0.0 : f16
  axe.fill %b, %z : !axe.tensor<4xf16, global, ?>, f16
  return
}

// A fill overwritten by the next op that touches the tensor is dead; a fill that is read
// first (by the gemm accumulating into it) is not.
// CHECK-LABEL: func.func @dead_fill
// CHECK: %[[R:.*]] = axe.alloc : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
// CHECK-NEXT: axe.copy %{{.*}}, %[[R]]
// CHECK-NOT: axe.fill %[[R]]
// CHECK: %[[ACC:.*]] = axe.alloc : !axe.tensor<16x8xf32, register
// CHECK-NEXT: axe.fill %[[ACC]]
// CHECK-NEXT: axe.gemm
func.func @dead_fill(%g: !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>, %a: !axe.tensor<16x16xf16, shared, #axe.layout<(16, 16) : (16, 1)>>, %b: !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>) {
  axe.kernel grid [1] threads [32] {
    %z = arith.constant 0.0 : f32
    %r = axe.alloc : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
    axe.fill %r, %z : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>, f32
    axe.copy %g, %r : !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>, !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
    %acc = axe.alloc : !axe.tensor<16x8xf32, register, #axe.layout<(2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)>>
    axe.fill %acc, %z : !axe.tensor<16x8xf32, register, #axe.layout<(2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)>>, f32
    axe.gemm %a, %b, %acc : !axe.tensor<16x16xf16, shared, #axe.layout<(16, 16) : (16, 1)>>, !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>, !axe.tensor<16x8xf32, register, #axe.layout<(2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)>>
  }
  return
}

// A conversion between equivalent layouts (equal once canonical) into a fresh tensor that is
// only read: the fresh tensor is the source. One whose source is written afterwards stays.
// CHECK-LABEL: func.func @trivial_conversion
// CHECK: %[[X:.*]] = axe.alloc : !axe.tensor<8x4xf32, register, #axe.layout<(32) : (1@lane)>>
// CHECK-NOT: axe.convert_layout %[[X]]
// CHECK: axe.copy %[[X]], %{{.*}}
// CHECK: axe.convert_layout
func.func @trivial_conversion(%g: !axe.tensor<8x4xf32, global, #axe.layout<(32) : (1)>>) {
  axe.kernel grid [1] threads [32] {
    %x = axe.alloc : !axe.tensor<8x4xf32, register, #axe.layout<(32) : (1@lane)>>
    %y = axe.alloc : !axe.tensor<8x4xf32, register, #axe.layout<(8, 4) : (4@lane, 1@lane)>>
    axe.copy %g, %x : !axe.tensor<8x4xf32, global, #axe.layout<(32) : (1)>>, !axe.tensor<8x4xf32, register, #axe.layout<(32) : (1@lane)>>
    axe.convert_layout %x, %y : !axe.tensor<8x4xf32, register, #axe.layout<(32) : (1@lane)>>, !axe.tensor<8x4xf32, register, #axe.layout<(8, 4) : (4@lane, 1@lane)>>
    axe.copy %y, %g : !axe.tensor<8x4xf32, register, #axe.layout<(8, 4) : (4@lane, 1@lane)>>, !axe.tensor<8x4xf32, global, #axe.layout<(32) : (1)>>
    %u = axe.alloc : !axe.tensor<8x4xf32, register, #axe.layout<(32) : (1@lane)>>
    %w = axe.alloc : !axe.tensor<8x4xf32, register, #axe.layout<(32) : (1@lane)>>
    axe.copy %g, %u : !axe.tensor<8x4xf32, global, #axe.layout<(32) : (1)>>, !axe.tensor<8x4xf32, register, #axe.layout<(32) : (1@lane)>>
    axe.convert_layout %u, %w : !axe.tensor<8x4xf32, register, #axe.layout<(32) : (1@lane)>>, !axe.tensor<8x4xf32, register, #axe.layout<(32) : (1@lane)>>
    axe.unary neg %w, %u : !axe.tensor<8x4xf32, register, #axe.layout<(32) : (1@lane)>>, !axe.tensor<8x4xf32, register, #axe.layout<(32) : (1@lane)>>
  }
  return
}
