// TMA from a column-major f32 tensor (X(i, j) at i + 256 j): the tensor map's contiguous
// dimension is i, the box a 64x32 column-major tile, unswizzled. Each CTA then writes its tile
// to the row-major Y, so Y is X's memory transposed.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @copy_tma_colmajor(%x: memref<65536xf32> {axe.align = 16 : i64}, %y: memref<65536xf32> {axe.align = 16 : i64}) {
    %X = axe.view %x : memref<65536xf32> to !axe.tensor<256x256xf32, global, #axe.layout<(256, 256) : (1, 256)>>
    %Y = axe.view %y : memref<65536xf32> to !axe.tensor<256x256xf32, global, #axe.layout<(256, 256) : (256, 1)>>
    axe.kernel grid [32] threads [128] {
      %cta = axe.unit_id cta
      %c8 = arith.constant 8 : index
      %c64 = arith.constant 64 : index
      %c32 = arith.constant 32 : index
      %bi = arith.divui %cta, %c8 : index
      %bj = arith.remui %cta, %c8 : index
      %oi = arith.muli %bi, %c64 : index
      %oj = arith.muli %bj, %c32 : index
      %s = axe.alloc : !axe.tensor<64x32xf32, shared, #axe.layout<(64, 32) : (1, 64)>>
      %xt = axe.slice %X [%oi : +64, %oj : +32] : !axe.tensor<256x256xf32, global, #axe.layout<(256, 256) : (1, 256)>> to !axe.tensor<64x32xf32, global, ?>
      axe.copy %xt, %s schedule tma : !axe.tensor<64x32xf32, global, ?>, !axe.tensor<64x32xf32, shared, #axe.layout<(64, 32) : (1, 64)>>
      %yt = axe.slice %Y [%oi : +64, %oj : +32] : !axe.tensor<256x256xf32, global, #axe.layout<(256, 256) : (256, 1)>> to !axe.tensor<64x32xf32, global, ?>
      axe.copy %s, %yt : !axe.tensor<64x32xf32, shared, #axe.layout<(64, 32) : (1, 64)>>, !axe.tensor<64x32xf32, global, ?>
    }
    return
  }
}
