// Global (row-major) -> shared (8x8-tiled) -> registers -> global (column-major) on one
// 64x64 f32 tile: Y = X^T. Exercises a tiled shared layout and a transposing store.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @transpose_smem(%x: memref<4096xf32> {axe.align = 16 : i64}, %y: memref<4096xf32> {axe.align = 16 : i64}) {
    %X = axe.view %x : memref<4096xf32> to !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    %Y = axe.view %y : memref<4096xf32> to !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (1, 64)>>
    axe.kernel grid [1] threads [256] {
      %s = axe.alloc : !axe.tensor<64x64xf32, shared, #axe.layout<(8, 8, 8, 8) : (512, 8, 64, 1)>>
      %r = axe.alloc : !axe.tensor<64x64xf32, register, #axe.layout<(8, 8, 16, 4) : (1@warp, 4@reg, 1@lane, 1@reg)>>
      axe.copy %X, %s : !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf32, shared, #axe.layout<(8, 8, 8, 8) : (512, 8, 64, 1)>>
      axe.barrier cta
      axe.copy %s, %r : !axe.tensor<64x64xf32, shared, #axe.layout<(8, 8, 8, 8) : (512, 8, 64, 1)>>, !axe.tensor<64x64xf32, register, #axe.layout<(8, 8, 16, 4) : (1@warp, 4@reg, 1@lane, 1@reg)>>
      axe.copy %r, %Y : !axe.tensor<64x64xf32, register, #axe.layout<(8, 8, 16, 4) : (1@warp, 4@reg, 1@lane, 1@reg)>>, !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (1, 64)>>
    }
    return
  }
}
