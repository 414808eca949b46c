// y = relu(x) * 2 over 2^24 f32 distributed over the grid (4096 CTAs x 256 threads x 16).
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @pointwise(%x: memref<16777216xf32> {axe.align = 16 : i64}, %y: memref<16777216xf32> {axe.align = 16 : i64}) {
    %X = axe.view %x : memref<16777216xf32> to !axe.tensor<16777216xf32, global, #axe.layout<(16777216) : (1)>>
    %Y = axe.view %y : memref<16777216xf32> to !axe.tensor<16777216xf32, global, #axe.layout<(16777216) : (1)>>
    axe.kernel grid [4096] threads [256] {
      %r = axe.alloc : !axe.tensor<16777216xf32, register, #axe.layout<(4096, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>
      %two = axe.alloc : !axe.tensor<16777216xf32, register, #axe.layout<(4096, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>
      %c2 = arith.constant 2.0 : f32
      axe.fill %two, %c2 : !axe.tensor<16777216xf32, register, #axe.layout<(4096, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>, f32
      axe.copy %X, %r : !axe.tensor<16777216xf32, global, #axe.layout<(16777216) : (1)>>, !axe.tensor<16777216xf32, register, #axe.layout<(4096, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>
      axe.unary relu %r, %r : !axe.tensor<16777216xf32, register, #axe.layout<(4096, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>, !axe.tensor<16777216xf32, register, #axe.layout<(4096, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>
      axe.binary mul %r, %two, %r : !axe.tensor<16777216xf32, register, #axe.layout<(4096, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>, !axe.tensor<16777216xf32, register, #axe.layout<(4096, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>, !axe.tensor<16777216xf32, register, #axe.layout<(4096, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>
      axe.copy %r, %Y : !axe.tensor<16777216xf32, register, #axe.layout<(4096, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>, !axe.tensor<16777216xf32, global, #axe.layout<(16777216) : (1)>>
    }
    return
  }
}
