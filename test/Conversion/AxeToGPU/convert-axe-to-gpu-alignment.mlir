// Vector accesses to a global buffer are only as wide as its base alignment is proven: the
// element's natural alignment, or what the function argument declares with `axe.align`.
// RUN: axe-opt %s --convert-axe-to-gpu --split-input-file | FileCheck %s

// No declaration: a contiguous f32 copy stays scalar (4-byte accesses).
// CHECK-LABEL: func.func @undeclared
// CHECK-NOT: vector.load
// CHECK: memref.load %{{.*}} : memref<256xf32>
// CHECK-NOT: vector.load
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @undeclared(%a: memref<256xf32>) {
    %A = axe.view %a : memref<256xf32> to !axe.tensor<256xf32, global, #axe.layout<(256) : (1)>>
    axe.kernel grid [1] threads [64] {
      %r = axe.alloc : !axe.tensor<256xf32, register, #axe.layout<(2, 32, 4) : (1@warp, 1@lane, 1@reg)>>
      axe.copy %A, %r : !axe.tensor<256xf32, global, #axe.layout<(256) : (1)>>, !axe.tensor<256xf32, register, #axe.layout<(2, 32, 4) : (1@warp, 1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// 8 bytes declared: vectors of 2 f32, aligned 8.
// CHECK-LABEL: func.func @declared_8
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<256xf32>, vector<2xf32>
// CHECK-NOT: vector<4xf32>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @declared_8(%a: memref<256xf32> {axe.align = 8 : i64}) {
    %A = axe.view %a : memref<256xf32> to !axe.tensor<256xf32, global, #axe.layout<(256) : (1)>>
    axe.kernel grid [1] threads [64] {
      %r = axe.alloc : !axe.tensor<256xf32, register, #axe.layout<(2, 32, 4) : (1@warp, 1@lane, 1@reg)>>
      axe.copy %A, %r : !axe.tensor<256xf32, global, #axe.layout<(256) : (1)>>, !axe.tensor<256xf32, register, #axe.layout<(2, 32, 4) : (1@warp, 1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// 16 bytes declared: vectors of 4 f32, aligned 16.
// CHECK-LABEL: func.func @declared_16
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<256xf32>, vector<4xf32>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @declared_16(%a: memref<256xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<256xf32> to !axe.tensor<256xf32, global, #axe.layout<(256) : (1)>>
    axe.kernel grid [1] threads [64] {
      %r = axe.alloc : !axe.tensor<256xf32, register, #axe.layout<(2, 32, 4) : (1@warp, 1@lane, 1@reg)>>
      axe.copy %A, %r : !axe.tensor<256xf32, global, #axe.layout<(256) : (1)>>, !axe.tensor<256xf32, register, #axe.layout<(2, 32, 4) : (1@warp, 1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// Shared memory is allocated 16-byte aligned, so a shared → register copy vectorizes even
// when the global source is only element-aligned.
// CHECK: memref.global "private" @[[SMEM:.*]] : memref<256xf32, 3> = uninitialized {alignment = 16 : i64}
// CHECK-LABEL: func.func @shared_is_aligned
// CHECK: %[[S:.*]] = memref.get_global @[[SMEM]]
// CHECK: memref.load %{{.*}} : memref<256xf32>
// CHECK: vector.load %[[S]][%{{.*}}] {alignment = 16 : i64} : memref<256xf32, 3>, vector<4xf32>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @shared_is_aligned(%a: memref<256xf32>) {
    %A = axe.view %a : memref<256xf32> to !axe.tensor<256xf32, global, #axe.layout<(256) : (1)>>
    axe.kernel grid [1] threads [64] {
      %s = axe.alloc : !axe.tensor<256xf32, shared, #axe.layout<(256) : (1)>>
      axe.copy %A, %s : !axe.tensor<256xf32, global, #axe.layout<(256) : (1)>>, !axe.tensor<256xf32, shared, #axe.layout<(256) : (1)>>
      axe.barrier cta
      %r = axe.alloc : !axe.tensor<256xf32, register, #axe.layout<(2, 32, 4) : (1@warp, 1@lane, 1@reg)>>
      axe.copy %s, %r : !axe.tensor<256xf32, shared, #axe.layout<(256) : (1)>>, !axe.tensor<256xf32, register, #axe.layout<(2, 32, 4) : (1@warp, 1@lane, 1@reg)>>
    }
    return
  }
}
