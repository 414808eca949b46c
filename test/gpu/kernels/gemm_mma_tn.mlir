// C = A^T B (A stored K x M, fragments copied through their layouts: no ldmatrix form) for 64x64x64
// staged through shared memory, layouts are left to axe-infer-layout (the mma fragments,
// padded shared tiles), fragments are loaded from shared memory by the layouts.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @gemm_mma_tn(%a: memref<4096xf16> {axe.align = 16 : i64}, %b: memref<4096xf16> {axe.align = 16 : i64}, %c: memref<4096xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<4096xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
    %B = axe.view %b : memref<4096xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
    %C = axe.view %c : memref<4096xf32> to !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    axe.kernel grid [1] threads [128] {
      %sa = axe.alloc : !axe.tensor<64x64xf16, shared, ?>
      %sb = axe.alloc : !axe.tensor<64x64xf16, shared, ?>
      %acc = axe.alloc : !axe.tensor<64x64xf32, register, ?>
      %z = arith.constant 0.0 : f32
      axe.fill %acc, %z : !axe.tensor<64x64xf32, register, ?>, f32
      axe.copy %A, %sa : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, shared, ?>
      axe.copy %B, %sb : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, shared, ?>
      axe.barrier cta
      axe.gemm %sa, %sb, %acc {transpose_a} : !axe.tensor<64x64xf16, shared, ?>, !axe.tensor<64x64xf16, shared, ?>, !axe.tensor<64x64xf32, register, ?>
      axe.copy %acc, %C : !axe.tensor<64x64xf32, register, ?>, !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    }
    return
  }
}
