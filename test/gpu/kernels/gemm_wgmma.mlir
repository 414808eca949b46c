// C = A B for 128x128x64 f16 -> f32 on one CTA of two warpgroups with wgmma (sm_90a): A
// [128, 64] and B [64, 128] are staged in shared memory in wgmma's canonical 128-byte-swizzled
// layouts (A K-major: 64-element rows; B N-major: two 64-column blocks of all 64 K rows), the
// accumulator layout is left to axe-infer-layout (the m64n128k16 D fragment, warpgroup g
// taking rows 64 g ..).
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @gemm_wgmma(%a: memref<8192xf16> {axe.align = 16 : i64}, %b: memref<8192xf16> {axe.align = 16 : i64}, %c: memref<16384xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<8192xf16> to !axe.tensor<128x64xf16, global, #axe.layout<(128, 64) : (64, 1)>>
    %B = axe.view %b : memref<8192xf16> to !axe.tensor<64x128xf16, global, #axe.layout<(64, 128) : (128, 1)>>
    %C = axe.view %c : memref<16384xf32> to !axe.tensor<128x128xf32, global, #axe.layout<(128, 128) : (128, 1)>>
    axe.kernel grid [1] threads [256] {
      %sa = axe.alloc : !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      %sb = axe.alloc : !axe.tensor<64x128xf16, shared, #axe.layout<(64, 2, 64) : (64, 4096, 1)>, #axe.swizzle<3, 3, 3>>
      %acc = axe.alloc : !axe.tensor<128x128xf32, register, ?>
      %z = arith.constant 0.0 : f32
      axe.fill %acc, %z : !axe.tensor<128x128xf32, register, ?>, f32
      axe.copy %A, %sa : !axe.tensor<128x64xf16, global, #axe.layout<(128, 64) : (64, 1)>>, !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      axe.copy %B, %sb : !axe.tensor<64x128xf16, global, #axe.layout<(64, 128) : (128, 1)>>, !axe.tensor<64x128xf16, shared, #axe.layout<(64, 2, 64) : (64, 4096, 1)>, #axe.swizzle<3, 3, 3>>
      axe.barrier cta
      axe.gemm %sa, %sb, %acc : !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>, !axe.tensor<64x128xf16, shared, #axe.layout<(64, 2, 64) : (64, 4096, 1)>, #axe.swizzle<3, 3, 3>>, !axe.tensor<128x128xf32, register, ?>
      axe.copy %acc, %C : !axe.tensor<128x128xf32, register, ?>, !axe.tensor<128x128xf32, global, #axe.layout<(128, 128) : (128, 1)>>
    }
    return
  }
}
