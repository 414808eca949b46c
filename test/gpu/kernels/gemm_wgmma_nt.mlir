// C = A B^T for 128x128x64 f16 -> f32 on one CTA of two warpgroups with wgmma (sm_90a): A
// [128, 64] and B [128, 64] ([N, K]) are both staged K-major in shared memory in wgmma's
// canonical 128-byte-swizzled layout (64-element rows, Swizzle<3, 3, 3>); the accumulator
// layout is left to axe-infer-layout.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @gemm_wgmma_nt(%a: memref<8192xf16> {axe.align = 16 : i64}, %b: memref<8192xf16> {axe.align = 16 : i64}, %c: memref<16384xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<8192xf16> to !axe.tensor<128x64xf16, global, #axe.layout<(128, 64) : (64, 1)>>
    %B = axe.view %b : memref<8192xf16> to !axe.tensor<128x64xf16, global, #axe.layout<(128, 64) : (64, 1)>>
    %C = axe.view %c : memref<16384xf32> to !axe.tensor<128x128xf32, global, #axe.layout<(128, 128) : (128, 1)>>
    axe.kernel grid [1] threads [256] {
      %sa = axe.alloc : !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      %sb = axe.alloc : !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      %acc = axe.alloc : !axe.tensor<128x128xf32, register, ?>
      %z = arith.constant 0.0 : f32
      axe.fill %acc, %z : !axe.tensor<128x128xf32, register, ?>, f32
      axe.copy %A, %sa : !axe.tensor<128x64xf16, global, #axe.layout<(128, 64) : (64, 1)>>, !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      axe.copy %B, %sb : !axe.tensor<128x64xf16, global, #axe.layout<(128, 64) : (64, 1)>>, !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      axe.barrier cta
      axe.gemm %sa, %sb, %acc {transpose_b} : !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>, !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>, !axe.tensor<128x128xf32, register, ?>
      axe.copy %acc, %C : !axe.tensor<128x128xf32, register, ?>, !axe.tensor<128x128xf32, global, #axe.layout<(128, 128) : (128, 1)>>
    }
    return
  }
}
