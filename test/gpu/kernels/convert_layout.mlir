// axe.convert_layout between register layouts whose elements live in different threads:
// through a shared scratch buffer with barriers. A 64x64 tile goes from rows-by-warps to
// rows-by-lanes across the CTA (4 warps); a 32x4 tile from one element row per lane to one
// column per lane (lanes 0, 8, 16, 24) within warp 0 (warp-scope barrier). Y = X, Y2 = X2.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @convert_layout(%x: memref<4096xf32> {axe.align = 16 : i64}, %y: memref<4096xf32> {axe.align = 16 : i64}, %x2: memref<128xf32> {axe.align = 16 : i64}, %y2: memref<128xf32> {axe.align = 16 : i64}) {
    %X = axe.view %x : memref<4096xf32> to !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    %Y = axe.view %y : memref<4096xf32> to !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    %X2 = axe.view %x2 : memref<128xf32> to !axe.tensor<32x4xf32, global, #axe.layout<(32, 4) : (4, 1)>>
    %Y2 = axe.view %y2 : memref<128xf32> to !axe.tensor<32x4xf32, global, #axe.layout<(32, 4) : (4, 1)>>
    axe.kernel grid [1] threads [128] {
      %a = axe.alloc : !axe.tensor<64x64xf32, register, #axe.layout<(4, 16, 2, 32) : (1@warp, 1@reg, 16@reg, 1@lane)>>
      %b = axe.alloc : !axe.tensor<64x64xf32, register, #axe.layout<(32, 2, 4, 16) : (1@lane, 1@reg, 1@warp, 2@reg)>>
      axe.copy %X, %a : !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf32, register, #axe.layout<(4, 16, 2, 32) : (1@warp, 1@reg, 16@reg, 1@lane)>>
      axe.convert_layout %a, %b : !axe.tensor<64x64xf32, register, #axe.layout<(4, 16, 2, 32) : (1@warp, 1@reg, 16@reg, 1@lane)>>, !axe.tensor<64x64xf32, register, #axe.layout<(32, 2, 4, 16) : (1@lane, 1@reg, 1@warp, 2@reg)>>
      axe.copy %b, %Y : !axe.tensor<64x64xf32, register, #axe.layout<(32, 2, 4, 16) : (1@lane, 1@reg, 1@warp, 2@reg)>>, !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
      %a2 = axe.alloc : !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@lane, 1@reg)>>
      %b2 = axe.alloc : !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@reg, 8@lane)>>
      axe.scope warp [0 : 1] {
        axe.copy %X2, %a2 : !axe.tensor<32x4xf32, global, #axe.layout<(32, 4) : (4, 1)>>, !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@lane, 1@reg)>>
        axe.convert_layout %a2, %b2 : !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@lane, 1@reg)>>, !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@reg, 8@lane)>>
        axe.copy %b2, %Y2 : !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@reg, 8@lane)>>, !axe.tensor<32x4xf32, global, #axe.layout<(32, 4) : (4, 1)>>
      }
    }
    return
  }
}
