// gemm_mma with 128-byte XOR-swizzled shared tiles (Swizzle<3, 3, 3> on f16 offsets: the
// 16-byte column chunk is XORed with the row index mod 8), written and read through it.
// The register layouts are left to axe-infer-layout.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @gemm_swizzled(%a: memref<4096xf16> {axe.align = 16 : i64}, %b: memref<4096xf16> {axe.align = 16 : i64}, %c: memref<4096xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<4096xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
    %B = axe.view %b : memref<4096xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
    %C = axe.view %c : memref<4096xf32> to !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    axe.kernel grid [1] threads [128] {
      %sa = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      %sb = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      %acc = axe.alloc : !axe.tensor<64x64xf32, register, ?>
      %z = arith.constant 0.0 : f32
      axe.fill %acc, %z : !axe.tensor<64x64xf32, register, ?>, f32
      axe.copy %A, %sa : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      axe.copy %B, %sb : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      axe.barrier cta
      axe.gemm %sa, %sb, %acc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>, !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>, !axe.tensor<64x64xf32, register, ?>
      axe.copy %acc, %C : !axe.tensor<64x64xf32, register, ?>, !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    }
    return
  }
}
