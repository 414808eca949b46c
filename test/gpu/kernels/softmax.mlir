// Row softmax of a 32768x1024 f32 matrix: one warp per row (8 rows per CTA, 4096 CTAs), each
// lane 8 vectors of 4. max and sum reduce in-thread, then across the warp by shuffles.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @softmax(%x: memref<33554432xf32> {axe.align = 16 : i64}, %y: memref<33554432xf32> {axe.align = 16 : i64}) {
    %X = axe.view %x : memref<33554432xf32> to !axe.tensor<32768x1024xf32, global, #axe.layout<(32768, 1024) : (1024, 1)>>
    %Y = axe.view %y : memref<33554432xf32> to !axe.tensor<32768x1024xf32, global, #axe.layout<(32768, 1024) : (1024, 1)>>
    axe.kernel grid [4096] threads [256] {
      %r = axe.alloc : !axe.tensor<32768x1024xf32, register, #axe.layout<(4096, 8, 8, 32, 4) : (1@cta, 1@warp, 4@reg, 1@lane, 1@reg)>>
      %m = axe.alloc : !axe.tensor<32768x1xf32, register, #axe.layout<(4096, 8) : (1@cta, 1@warp) + [(32) : (1@lane)]>>
      %s = axe.alloc : !axe.tensor<32768x1xf32, register, #axe.layout<(4096, 8) : (1@cta, 1@warp) + [(32) : (1@lane)]>>
      axe.copy %X, %r : !axe.tensor<32768x1024xf32, global, #axe.layout<(32768, 1024) : (1024, 1)>>, !axe.tensor<32768x1024xf32, register, #axe.layout<(4096, 8, 8, 32, 4) : (1@cta, 1@warp, 4@reg, 1@lane, 1@reg)>>
      axe.reduce max %r, %m dims [1] : !axe.tensor<32768x1024xf32, register, #axe.layout<(4096, 8, 8, 32, 4) : (1@cta, 1@warp, 4@reg, 1@lane, 1@reg)>>, !axe.tensor<32768x1xf32, register, #axe.layout<(4096, 8) : (1@cta, 1@warp) + [(32) : (1@lane)]>>
      axe.binary sub %r, %m, %r : !axe.tensor<32768x1024xf32, register, #axe.layout<(4096, 8, 8, 32, 4) : (1@cta, 1@warp, 4@reg, 1@lane, 1@reg)>>, !axe.tensor<32768x1xf32, register, #axe.layout<(4096, 8) : (1@cta, 1@warp) + [(32) : (1@lane)]>>, !axe.tensor<32768x1024xf32, register, #axe.layout<(4096, 8, 8, 32, 4) : (1@cta, 1@warp, 4@reg, 1@lane, 1@reg)>>
      axe.unary exp %r, %r : !axe.tensor<32768x1024xf32, register, #axe.layout<(4096, 8, 8, 32, 4) : (1@cta, 1@warp, 4@reg, 1@lane, 1@reg)>>, !axe.tensor<32768x1024xf32, register, #axe.layout<(4096, 8, 8, 32, 4) : (1@cta, 1@warp, 4@reg, 1@lane, 1@reg)>>
      axe.reduce sum %r, %s dims [1] : !axe.tensor<32768x1024xf32, register, #axe.layout<(4096, 8, 8, 32, 4) : (1@cta, 1@warp, 4@reg, 1@lane, 1@reg)>>, !axe.tensor<32768x1xf32, register, #axe.layout<(4096, 8) : (1@cta, 1@warp) + [(32) : (1@lane)]>>
      axe.binary div %r, %s, %r : !axe.tensor<32768x1024xf32, register, #axe.layout<(4096, 8, 8, 32, 4) : (1@cta, 1@warp, 4@reg, 1@lane, 1@reg)>>, !axe.tensor<32768x1xf32, register, #axe.layout<(4096, 8) : (1@cta, 1@warp) + [(32) : (1@lane)]>>, !axe.tensor<32768x1024xf32, register, #axe.layout<(4096, 8, 8, 32, 4) : (1@cta, 1@warp, 4@reg, 1@lane, 1@reg)>>
      axe.copy %r, %Y : !axe.tensor<32768x1024xf32, register, #axe.layout<(4096, 8, 8, 32, 4) : (1@cta, 1@warp, 4@reg, 1@lane, 1@reg)>>, !axe.tensor<32768x1024xf32, global, #axe.layout<(32768, 1024) : (1024, 1)>>
    }
    return
  }
}
