// axe.gemm -> nvgpu.mma.sync m16n8k16, one per (m atom, n atom, k atom) a warp owns. Shared
// 16-bit operands whose 8-element chunks are contiguous and aligned are read with ldmatrix
// (x4 for A; for B, x4 for two n8 atoms at a time, x2 for a lone one, .trans when stored
// [K, N]); others are copied into fragment registers
// through their layouts.
// The layouts are those axe-infer-layout gives (the PTX run infers them again, unchanged).
// RUN: axe-opt %s --convert-axe-to-gpu --split-input-file | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm-pipeline='chip=sm_80' --split-input-file | FileCheck %s --check-prefix=PTX

// One warp, C 16x16 (2 n atoms), K 32 (2 k atoms): 4 mma.sync, each fed by ldmatrix. Each
// fragment is loaded once, the two n atoms' B fragments of a k16 step by one ldmatrix.x4.trans
// (registers 0-1 and 2-3), and the second k16 step's fragments before the first step's mma.sync
// (their latency overlaps it). The second B address is a constant away from the first
// (unswizzled B: +16 rows); A's second is computed anew (the swizzle moves A's k16 blocks by a
// lane-dependent XOR, not by a constant).
// CHECK-LABEL: func.func @warp_gemm
// CHECK: gpu.launch
// CHECK: %[[ACC:.*]] = memref.alloca() : memref<8xf32>
// CHECK-NOT: memref.alloca() : memref<{{.*}}xf16>
// CHECK: %[[A:.*]] = nvgpu.ldmatrix %{{.*}}[%{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<{{.*}}xf16, 3> -> vector<4x2xf16>
// CHECK: %[[X:.*]] = nvgpu.ldmatrix %{{.*}}[%[[OB:.*]]] {numTiles = 4 : i32, transpose = true} : memref<{{.*}}xf16, 3> -> vector<4x2xf16>
// CHECK: vector.extract %[[X]][0, 0]
// CHECK: vector.extract %[[X]][1, 1]
// CHECK: %[[B:.*]] = vector.from_elements {{.*}} : vector<2x2xf16>
// CHECK: vector.extract %[[X]][2, 0]
// CHECK: vector.extract %[[X]][3, 1]
// CHECK: %[[B1:.*]] = vector.from_elements {{.*}} : vector<2x2xf16>
// CHECK: %[[A2:.*]] = nvgpu.ldmatrix %{{.*}}[%{{.*}}] {numTiles = 4 : i32, transpose = false}
// CHECK: %[[OB2:.*]] = arith.addi %[[OB]], %c256{{(_[0-9]+)?}} : index
// CHECK-NEXT: nvgpu.ldmatrix %{{.*}}[%[[OB2]]] {numTiles = 4 : i32, transpose = true}
// CHECK: %[[B2:.*]] = vector.from_elements {{.*}} : vector<2x2xf16>
// CHECK: %[[B3:.*]] = vector.from_elements {{.*}} : vector<2x2xf16>
// CHECK-NOT: nvgpu.ldmatrix
// CHECK: nvgpu.mma.sync(%[[A]], %[[B]], %{{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK: nvgpu.mma.sync(%[[A]], %[[B1]], %{{.*}})
// CHECK: nvgpu.mma.sync(%[[A2]], %[[B2]], %{{.*}})
// CHECK: nvgpu.mma.sync(%[[A2]], %[[B3]], %{{.*}})
// CHECK-NOT: nvgpu.mma.sync
// CHECK: gpu.terminator
// PTX-COUNT-2: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-COUNT-4: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
!sa = !axe.tensor<16x32xf16, shared, #axe.layout<(16, 32) : (32, 1)>, #axe.swizzle<2, 3, 2>>
!sb = !axe.tensor<32x16xf16, shared, #axe.layout<(32, 16) : (16, 1)>>
!acc = !axe.tensor<16x16xf32, register, #axe.layout<(2, 8, 2, 4, 2) : (2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @warp_gemm(%a: memref<512xf16> {axe.align = 16 : i64}, %b: memref<512xf16> {axe.align = 16 : i64}, %c: memref<256xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<512xf16> to !axe.tensor<16x32xf16, global, #axe.layout<(16, 32) : (32, 1)>>
    %B = axe.view %b : memref<512xf16> to !axe.tensor<32x16xf16, global, #axe.layout<(32, 16) : (16, 1)>>
    %C = axe.view %c : memref<256xf32> to !axe.tensor<16x16xf32, global, #axe.layout<(16, 16) : (16, 1)>>
    axe.kernel grid [1] threads [32] {
      %sa = axe.alloc : !sa
      %sb = axe.alloc : !sb
      %acc = axe.alloc : !acc
      %z = arith.constant 0.0 : f32
      axe.fill %acc, %z : !acc, f32
      axe.copy %A, %sa : !axe.tensor<16x32xf16, global, #axe.layout<(16, 32) : (32, 1)>>, !sa
      axe.copy %B, %sb : !axe.tensor<32x16xf16, global, #axe.layout<(32, 16) : (16, 1)>>, !sb
      axe.barrier cta
      axe.gemm %sa, %sb, %acc : !sa, !sb, !acc
      axe.copy %acc, %C : !acc, !axe.tensor<16x16xf32, global, #axe.layout<(16, 16) : (16, 1)>>
    }
    return
  }
}

// -----

// `overwrite` on mma.sync (no scale-d there): the accumulator's 8 registers are zeroed before
// the first mma.sync.
// CHECK-LABEL: func.func @overwrite_mma_sync
// CHECK: %[[ACC:.*]] = memref.alloca() : memref<8xf32>
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-COUNT-8: memref.store %[[Z]], %[[ACC]]
// CHECK: nvgpu.mma.sync
!sa = !axe.tensor<16x32xf16, shared, #axe.layout<(16, 32) : (32, 1)>, #axe.swizzle<2, 3, 2>>
!sb = !axe.tensor<32x16xf16, shared, #axe.layout<(32, 16) : (16, 1)>>
!acc = !axe.tensor<16x16xf32, register, #axe.layout<(2, 8, 2, 4, 2) : (2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @overwrite_mma_sync(%a: memref<512xf16> {axe.align = 16 : i64}, %b: memref<512xf16> {axe.align = 16 : i64}, %c: memref<256xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<512xf16> to !axe.tensor<16x32xf16, global, #axe.layout<(16, 32) : (32, 1)>>
    %B = axe.view %b : memref<512xf16> to !axe.tensor<32x16xf16, global, #axe.layout<(32, 16) : (16, 1)>>
    %C = axe.view %c : memref<256xf32> to !axe.tensor<16x16xf32, global, #axe.layout<(16, 16) : (16, 1)>>
    axe.kernel grid [1] threads [32] {
      %sa = axe.alloc : !sa
      %sb = axe.alloc : !sb
      %acc = axe.alloc : !acc
      axe.copy %A, %sa : !axe.tensor<16x32xf16, global, #axe.layout<(16, 32) : (32, 1)>>, !sa
      axe.copy %B, %sb : !axe.tensor<32x16xf16, global, #axe.layout<(32, 16) : (16, 1)>>, !sb
      axe.barrier cta
      axe.gemm %sa, %sb, %acc {overwrite} : !sa, !sb, !acc
      axe.copy %acc, %C : !acc, !axe.tensor<16x16xf32, global, #axe.layout<(16, 16) : (16, 1)>>
    }
    return
  }
}

// -----

// A stored [K, M] (transpose_a) in a column-chunked layout: no ldmatrix form applies, so the
// A fragments (16 f16 registers) are copied from shared memory through their layouts.
// CHECK-LABEL: func.func @fragment_copy
// CHECK-DAG: memref.alloca() : memref<16xf16>
// CHECK-COUNT-4: nvgpu.mma.sync
!acc = !axe.tensor<16x16xf32, register, #axe.layout<(2, 8, 2, 4, 2) : (2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @fragment_copy(%a: memref<512xf16> {axe.align = 16 : i64}, %b: memref<512xf16> {axe.align = 16 : i64}, %c: memref<256xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<512xf16> to !axe.tensor<32x16xf16, global, #axe.layout<(32, 16) : (16, 1)>>
    %B = axe.view %b : memref<512xf16> to !axe.tensor<32x16xf16, global, #axe.layout<(32, 16) : (16, 1)>>
    %C = axe.view %c : memref<256xf32> to !axe.tensor<16x16xf32, global, #axe.layout<(16, 16) : (16, 1)>>
    axe.kernel grid [1] threads [32] {
      %sa = axe.alloc : !axe.tensor<32x16xf16, shared, #axe.layout<(32, 16) : (16, 1)>>
      %sb = axe.alloc : !axe.tensor<32x16xf16, shared, #axe.layout<(32, 16) : (16, 1)>>
      %acc = axe.alloc : !acc
      %z = arith.constant 0.0 : f32
      axe.fill %acc, %z : !acc, f32
      axe.copy %A, %sa : !axe.tensor<32x16xf16, global, #axe.layout<(32, 16) : (16, 1)>>, !axe.tensor<32x16xf16, shared, #axe.layout<(32, 16) : (16, 1)>>
      axe.copy %B, %sb : !axe.tensor<32x16xf16, global, #axe.layout<(32, 16) : (16, 1)>>, !axe.tensor<32x16xf16, shared, #axe.layout<(32, 16) : (16, 1)>>
      axe.barrier cta
      axe.gemm %sa, %sb, %acc {transpose_a} : !axe.tensor<32x16xf16, shared, #axe.layout<(32, 16) : (16, 1)>>, !axe.tensor<32x16xf16, shared, #axe.layout<(32, 16) : (16, 1)>>, !acc
      axe.copy %acc, %C : !acc, !axe.tensor<16x16xf32, global, #axe.layout<(16, 16) : (16, 1)>>
    }
    return
  }
}

// -----

// B stored [N, K] (transpose_b), three n atoms on one warp: atoms 0 and 1 come from one
// ldmatrix.x4 without .trans (lanes 16-31 address the rows of atom 1), atom 2 alone from an x2.
// CHECK-LABEL: func.func @nk_pairs
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<256xf16, 3> -> vector<4x2xf16>
// CHECK: %[[X:.*]] = nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<384xf16, 3> -> vector<4x2xf16>
// CHECK: %[[B2:.*]] = nvgpu.ldmatrix %{{.*}} {numTiles = 2 : i32, transpose = false} : memref<384xf16, 3> -> vector<2x2xf16>
// CHECK-COUNT-2: nvgpu.mma.sync
// CHECK: nvgpu.mma.sync(%{{.*}}, %[[B2]], %{{.*}})
// CHECK-NOT: nvgpu.ldmatrix
!sa = !axe.tensor<16x16xf16, shared, #axe.layout<(16, 16) : (16, 1)>>
!sb = !axe.tensor<24x16xf16, shared, #axe.layout<(24, 16) : (16, 1)>>
!acc = !axe.tensor<16x24xf32, register, #axe.layout<(2, 8, 3, 4, 2) : (2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @nk_pairs(%a: memref<256xf16> {axe.align = 16 : i64}, %b: memref<384xf16> {axe.align = 16 : i64}, %c: memref<384xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<256xf16> to !axe.tensor<16x16xf16, global, #axe.layout<(16, 16) : (16, 1)>>
    %B = axe.view %b : memref<384xf16> to !axe.tensor<24x16xf16, global, #axe.layout<(24, 16) : (16, 1)>>
    %C = axe.view %c : memref<384xf32> to !axe.tensor<16x24xf32, global, #axe.layout<(16, 24) : (24, 1)>>
    axe.kernel grid [1] threads [32] {
      %sa = axe.alloc : !sa
      %sb = axe.alloc : !sb
      %acc = axe.alloc : !acc
      %z = arith.constant 0.0 : f32
      axe.fill %acc, %z : !acc, f32
      axe.copy %A, %sa : !axe.tensor<16x16xf16, global, #axe.layout<(16, 16) : (16, 1)>>, !sa
      axe.copy %B, %sb : !axe.tensor<24x16xf16, global, #axe.layout<(24, 16) : (16, 1)>>, !sb
      axe.barrier cta
      axe.gemm %sa, %sb, %acc {transpose_b} : !sa, !sb, !acc
      axe.copy %acc, %C : !acc, !axe.tensor<16x24xf32, global, #axe.layout<(16, 24) : (24, 1)>>
    }
    return
  }
}
