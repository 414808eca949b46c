// Row softmax of a 4096x4096 f32 matrix with one CTA (8 warps) per row: each row spans all
// warps, so max and sum reduce in-thread, across lanes by shuffles, then across warps through
// shared memory.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @softmax_wide(%x: memref<16777216xf32> {axe.align = 16 : i64}, %y: memref<16777216xf32> {axe.align = 16 : i64}) {
    %X = axe.view %x : memref<16777216xf32> to !axe.tensor<4096x4096xf32, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    %Y = axe.view %y : memref<16777216xf32> to !axe.tensor<4096x4096xf32, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    axe.kernel grid [4096] threads [256] {
      %r = axe.alloc : !axe.tensor<4096x4096xf32, register, #axe.layout<(4096, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>
      %m = axe.alloc : !axe.tensor<4096x1xf32, register, #axe.layout<(4096) : (1@cta) + [(8, 32) : (1@warp, 1@lane)]>>
      %s = axe.alloc : !axe.tensor<4096x1xf32, register, #axe.layout<(4096) : (1@cta) + [(8, 32) : (1@warp, 1@lane)]>>
      axe.copy %X, %r : !axe.tensor<4096x4096xf32, global, #axe.layout<(4096, 4096) : (4096, 1)>>, !axe.tensor<4096x4096xf32, register, #axe.layout<(4096, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>
      axe.reduce max %r, %m dims [1] : !axe.tensor<4096x4096xf32, register, #axe.layout<(4096, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>, !axe.tensor<4096x1xf32, register, #axe.layout<(4096) : (1@cta) + [(8, 32) : (1@warp, 1@lane)]>>
      axe.binary sub %r, %m, %r : !axe.tensor<4096x4096xf32, register, #axe.layout<(4096, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>, !axe.tensor<4096x1xf32, register, #axe.layout<(4096) : (1@cta) + [(8, 32) : (1@warp, 1@lane)]>>, !axe.tensor<4096x4096xf32, register, #axe.layout<(4096, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>
      axe.unary exp %r, %r : !axe.tensor<4096x4096xf32, register, #axe.layout<(4096, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>, !axe.tensor<4096x4096xf32, register, #axe.layout<(4096, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>
      axe.reduce sum %r, %s dims [1] : !axe.tensor<4096x4096xf32, register, #axe.layout<(4096, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>, !axe.tensor<4096x1xf32, register, #axe.layout<(4096) : (1@cta) + [(8, 32) : (1@warp, 1@lane)]>>
      axe.binary div %r, %s, %r : !axe.tensor<4096x4096xf32, register, #axe.layout<(4096, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>, !axe.tensor<4096x1xf32, register, #axe.layout<(4096) : (1@cta) + [(8, 32) : (1@warp, 1@lane)]>>, !axe.tensor<4096x4096xf32, register, #axe.layout<(4096, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>
      axe.copy %r, %Y : !axe.tensor<4096x4096xf32, register, #axe.layout<(4096, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>, !axe.tensor<4096x4096xf32, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    }
    return
  }
}
