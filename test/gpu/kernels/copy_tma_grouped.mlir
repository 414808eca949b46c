// TMA from a global tensor whose row dimension is two iters: 512 rows in 8 blocks of 64,
// the blocks 8192 elements apart (X(r, c) at 8192 (r / 64) + 64 (r % 64) + c). The tensor
// map has three dimensions (block, row, column); each CTA's 64-row tile is one box at block
// coordinate r / 64. Then shared -> the row-major Y.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @copy_tma_grouped(%x: memref<65536xf16> {axe.align = 16 : i64}, %y: memref<32768xf16> {axe.align = 16 : i64}) {
    %X = axe.view %x : memref<65536xf16> to !axe.tensor<512x64xf16, global, #axe.layout<(8, 64, 64) : (8192, 64, 1)>>
    %Y = axe.view %y : memref<32768xf16> to !axe.tensor<512x64xf16, global, #axe.layout<(512, 64) : (64, 1)>>
    axe.kernel grid [8] threads [128] {
      %cta = axe.unit_id cta
      %c64 = arith.constant 64 : index
      %r = arith.muli %cta, %c64 : index
      %s = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      %xt = axe.slice %X [%r : +64, 0 : 64] : !axe.tensor<512x64xf16, global, #axe.layout<(8, 64, 64) : (8192, 64, 1)>> to !axe.tensor<64x64xf16, global, ?>
      %t = axe.copy async %xt, %s schedule tma : !axe.tensor<64x64xf16, global, ?>, !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>> -> !axe.token
      axe.wait %t
      %yt = axe.slice %Y [%r : +64, 0 : 64] : !axe.tensor<512x64xf16, global, #axe.layout<(512, 64) : (64, 1)>> to !axe.tensor<64x64xf16, global, ?>
      axe.copy %s, %yt : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>, !axe.tensor<64x64xf16, global, ?>
    }
    return
  }
}
