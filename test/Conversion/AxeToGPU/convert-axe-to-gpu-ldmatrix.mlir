// axe.copy shared -> registers with `schedule ldmatrix`: the register layout's pairs must be
// the 8x8 matrices ldmatrix delivers (checked by enumeration for every warp and lane); each
// instruction loads up to four of them, addressed per lane by an affine function of its bits.
// RUN: axe-opt %s --convert-axe-to-gpu --split-input-file --verify-diagnostics | FileCheck %s

// mma.sync's A fragment of four stacked 16x16 tiles (4 warps) from a row-major 64x16 tile:
// one ldmatrix.x4 per thread (rows 0-7/8-15 x columns 0-7/8-15), no transpose.
// CHECK-LABEL: func.func @a_fragment
// CHECK: %[[V:.*]] = nvgpu.ldmatrix %{{.*}}[%{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<1024xf16, 3> -> vector<4x2xf16>
// CHECK-NOT: nvgpu.ldmatrix
// CHECK-COUNT-8: memref.store
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @a_fragment(%x: memref<1024xf16> {axe.align = 16 : i64}) {
    %X = axe.view %x : memref<1024xf16> to !axe.tensor<64x16xf16, global, #axe.layout<(64, 16) : (16, 1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<64x16xf16, shared, #axe.layout<(64, 16) : (16, 1)>>
      %r = axe.alloc : !axe.tensor<64x16xf16, register, #axe.layout<(4, 2, 8, 2, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
      axe.copy %X, %s : !axe.tensor<64x16xf16, global, #axe.layout<(64, 16) : (16, 1)>>, !axe.tensor<64x16xf16, shared, #axe.layout<(64, 16) : (16, 1)>>
      axe.barrier cta
      axe.copy %s, %r schedule ldmatrix : !axe.tensor<64x16xf16, shared, #axe.layout<(64, 16) : (16, 1)>>, !axe.tensor<64x16xf16, register, #axe.layout<(4, 2, 8, 2, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// mma.sync's B fragment (16x8, K x N) from K rows of 8: ldmatrix.x2.trans, one warp.
// CHECK-LABEL: func.func @b_fragment
// CHECK: nvgpu.ldmatrix %{{.*}}[%{{.*}}] {numTiles = 2 : i32, transpose = true} : memref<128xf16, 3> -> vector<2x2xf16>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @b_fragment() {
    axe.kernel grid [1] threads [32] {
      %s = axe.alloc : !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>
      %r = axe.alloc : !axe.tensor<16x8xf16, register, #axe.layout<(2, 4, 2, 8) : (2@reg, 1@lane, 1@reg, 4@lane)>>
      axe.scope warp {
        axe.copy %s, %r schedule ldmatrix : !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>, !axe.tensor<16x8xf16, register, #axe.layout<(2, 4, 2, 8) : (2@reg, 1@lane, 1@reg, 4@lane)>>
      }
    }
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @f32() {
    axe.kernel grid [1] threads [32] {
      %s = axe.alloc : !axe.tensor<64xf32, shared, #axe.layout<(64) : (1)>>
      %r = axe.alloc : !axe.tensor<64xf32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>
      // expected-error@+1 {{cannot copy with ldmatrix: ldmatrix moves 16-bit elements}}
      axe.copy %s, %r schedule ldmatrix : !axe.tensor<64xf32, shared, #axe.layout<(64) : (1)>>, !axe.tensor<64xf32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// Lane t holds elements t and t + 32: its register pair is not two adjacent elements.
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @split_pairs() {
    axe.kernel grid [1] threads [32] {
      %s = axe.alloc : !axe.tensor<64xf16, shared, #axe.layout<(64) : (1)>>
      %r = axe.alloc : !axe.tensor<64xf16, register, #axe.layout<(2, 32) : (1@reg, 1@lane)>>
      // expected-error@+1 {{cannot copy with ldmatrix: register layout (2, 32) : (1@reg, 1@lane) over shared layout (64) : (1): its register pairs are not the 8x8 matrices of 16-byte shared rows that ldmatrix delivers}}
      axe.copy %s, %r schedule ldmatrix : !axe.tensor<64xf16, shared, #axe.layout<(64) : (1)>>, !axe.tensor<64xf16, register, #axe.layout<(2, 32) : (1@reg, 1@lane)>>
    }
    return
  }
}

// -----

// Fragments replicated over warps (what axe-infer-layout gives a gemm's register A and B on a
// 2x2 warp grid: A is shared by the two warps of a row, B by the two of a column): every warp
// loads its replica. From k16 slices of 128-byte-swizzled tiles (a software-pipelined mainloop
// loads each k16 step this way): A's two ldmatrix.x4 are 32 rows (2048 elements, a multiple of
// the swizzle's 512-element period) apart, so the second swizzles the same value as the first
// (CSE merges the two) and adds the 2048 after the XOR.
// CHECK-LABEL: func.func @replicated_fragments
// CHECK: %[[XA:.*]] = arith.xori
// CHECK-NEXT: nvgpu.ldmatrix %{{.*}}[%[[XA]]] {numTiles = 4 : i32, transpose = false}
// CHECK: %[[XA2:.*]] = arith.xori
// CHECK: %[[A2:.*]] = arith.addi %[[XA2]], %c2048 : index
// CHECK-NEXT: nvgpu.ldmatrix %{{.*}}[%[[A2]]] {numTiles = 4 : i32, transpose = false}
// CHECK-COUNT-2: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK-NOT: nvgpu.ldmatrix
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @replicated_fragments() {
    axe.kernel grid [1] threads [128] {
      %sa = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      %sb = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      %fa = axe.alloc : !axe.tensor<64x16xf16, register, #axe.layout<(2, 2, 2, 8, 2, 4, 2) : (8@reg, 2@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg) + [(2) : (1@warp)]>>
      %fb = axe.alloc : !axe.tensor<16x64xf16, register, #axe.layout<(2, 4, 2, 4, 2, 8) : (2@reg, 1@lane, 1@reg, 4@reg, 1@warp, 4@lane) + [(2) : (2@warp)]>>
      %a1 = axe.slice %sa [0 : 64, 16 : 32] : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>> to !axe.tensor<64x16xf16, shared, #axe.layout<(64, 16) : (64, 1) + 16>, #axe.swizzle<3, 3, 3>>
      %b1 = axe.slice %sb [16 : 32, 0 : 64] : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>> to !axe.tensor<16x64xf16, shared, #axe.layout<(16, 64) : (64, 1) + 1024>, #axe.swizzle<3, 3, 3>>
      axe.copy %a1, %fa schedule ldmatrix : !axe.tensor<64x16xf16, shared, #axe.layout<(64, 16) : (64, 1) + 16>, #axe.swizzle<3, 3, 3>>, !axe.tensor<64x16xf16, register, #axe.layout<(2, 2, 2, 8, 2, 4, 2) : (8@reg, 2@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg) + [(2) : (1@warp)]>>
      axe.copy %b1, %fb schedule ldmatrix : !axe.tensor<16x64xf16, shared, #axe.layout<(16, 64) : (64, 1) + 1024>, #axe.swizzle<3, 3, 3>>, !axe.tensor<16x64xf16, register, #axe.layout<(2, 4, 2, 4, 2, 8) : (2@reg, 1@lane, 1@reg, 4@reg, 1@warp, 4@lane) + [(2) : (2@warp)]>>
    }
    return
  }
}

// -----

// Registers may replicate elements over warps, shared memory may not: each register must come
// from one shared address.
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @replicated_shared() {
    axe.kernel grid [1] threads [32] {
      %s = axe.alloc : !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1) + [(2) : (128)]>>
      %r = axe.alloc : !axe.tensor<16x8xf16, register, #axe.layout<(2, 4, 2, 8) : (2@reg, 1@lane, 1@reg, 4@lane)>>
      axe.scope warp {
        // expected-error @+1 {{cannot copy with ldmatrix: the shared layout replicates elements}}
        axe.copy %s, %r schedule ldmatrix : !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1) + [(2) : (128)]>>, !axe.tensor<16x8xf16, register, #axe.layout<(2, 4, 2, 8) : (2@reg, 1@lane, 1@reg, 4@lane)>>
      }
    }
    return
  }
}
