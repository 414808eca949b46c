// axe.gemm lowered to mma.sync inside a warpgroup scope (sm_90, no wgmma), with pinned
// layouts; CSE leaves one warp id and one warp-in-warpgroup index to check against.
// RUN: axe-opt %s --convert-axe-to-gpu --cse | FileCheck %s

// A gemm in the second warpgroup of a CTA (a consumer role of a warp-specialized kernel, on
// sm_90: mma.sync): the warps' atom offsets are selected by the warp's index within the
// warpgroup (0-3), not the CTA's warp id (4-7), which would give every warp warp 0's rows.
// The accumulator is pinned to the m16n8k16 tiling over a 2x2 warp grid.
// CHECK-LABEL: func.func @mma_in_second_warpgroup
// CHECK: %[[W:.*]] = arith.divui %[[TID:.*]], %c32 : index
// CHECK-NEXT: %c4 = arith.constant 4 : index
// CHECK-NEXT: %[[WIN:.*]] = arith.remui %[[W]], %c4 : index
// CHECK-NOT: arith.cmpi eq, %[[W]],
// CHECK: arith.cmpi eq, %[[WIN]], %c2 : index
// CHECK-NOT: arith.cmpi eq, %[[W]],
// CHECK: nvgpu.mma.sync
!acc = !axe.tensor<64x64xf32, register, #axe.layout<(2, 2, 2, 8, 4, 2, 4, 2) : (16@reg, 2@warp, 2@reg, 4@lane, 4@reg, 1@warp, 1@lane, 1@reg)>>
!sa = !axe.tensor<64x16xf16, shared, #axe.layout<(64, 16) : (16, 1)>>
!sb = !axe.tensor<16x64xf16, shared, #axe.layout<(16, 64) : (64, 1)>>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @mma_in_second_warpgroup(%c: memref<4096xf32> {axe.align = 16 : i64}) {
    %C = axe.view %c : memref<4096xf32> to !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    axe.kernel grid [1] threads [256] {
      %sa = axe.alloc : !sa
      %sb = axe.alloc : !sb
      axe.scope warpgroup [1 : 2] {
        %acc = axe.alloc : !acc
        %z = arith.constant 0.0 : f32
        axe.fill %acc, %z : !acc, f32
        axe.gemm %sa, %sb, %acc : !sa, !sb, !acc
        axe.copy %acc, %C : !acc, !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
      }
    }
    return
  }
}
