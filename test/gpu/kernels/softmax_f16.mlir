// Row softmax of a 32768x4096 f16 matrix (the shape of the torch.softmax fp16 baseline), one
// CTA (8 warps) per row: 16-byte f16 loads, computed in f32 registers (axe.cast both ways),
// max and sum reduced in-thread, by shuffles, then across warps through shared memory.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @softmax_f16(%x: memref<134217728xf16> {axe.align = 16 : i64}, %y: memref<134217728xf16> {axe.align = 16 : i64}) {
    %X = axe.view %x : memref<134217728xf16> to !axe.tensor<32768x4096xf16, global, #axe.layout<(32768, 4096) : (4096, 1)>>
    %Y = axe.view %y : memref<134217728xf16> to !axe.tensor<32768x4096xf16, global, #axe.layout<(32768, 4096) : (4096, 1)>>
    axe.kernel grid [32768] threads [256] {
      %h = axe.alloc : !axe.tensor<32768x4096xf16, register, #axe.layout<(32768, 2, 8, 32, 8) : (1@cta, 8@reg, 1@warp, 1@lane, 1@reg)>>
      %r = axe.alloc : !axe.tensor<32768x4096xf32, register, #axe.layout<(32768, 2, 8, 32, 8) : (1@cta, 8@reg, 1@warp, 1@lane, 1@reg)>>
      %m = axe.alloc : !axe.tensor<32768x1xf32, register, #axe.layout<(32768) : (1@cta) + [(8, 32) : (1@warp, 1@lane)]>>
      %s = axe.alloc : !axe.tensor<32768x1xf32, register, #axe.layout<(32768) : (1@cta) + [(8, 32) : (1@warp, 1@lane)]>>
      axe.copy %X, %h : !axe.tensor<32768x4096xf16, global, #axe.layout<(32768, 4096) : (4096, 1)>>, !axe.tensor<32768x4096xf16, register, #axe.layout<(32768, 2, 8, 32, 8) : (1@cta, 8@reg, 1@warp, 1@lane, 1@reg)>>
      axe.cast %h, %r : !axe.tensor<32768x4096xf16, register, #axe.layout<(32768, 2, 8, 32, 8) : (1@cta, 8@reg, 1@warp, 1@lane, 1@reg)>>, !axe.tensor<32768x4096xf32, register, #axe.layout<(32768, 2, 8, 32, 8) : (1@cta, 8@reg, 1@warp, 1@lane, 1@reg)>>
      axe.reduce max %r, %m dims [1] : !axe.tensor<32768x4096xf32, register, #axe.layout<(32768, 2, 8, 32, 8) : (1@cta, 8@reg, 1@warp, 1@lane, 1@reg)>>, !axe.tensor<32768x1xf32, register, #axe.layout<(32768) : (1@cta) + [(8, 32) : (1@warp, 1@lane)]>>
      axe.binary sub %r, %m, %r : !axe.tensor<32768x4096xf32, register, #axe.layout<(32768, 2, 8, 32, 8) : (1@cta, 8@reg, 1@warp, 1@lane, 1@reg)>>, !axe.tensor<32768x1xf32, register, #axe.layout<(32768) : (1@cta) + [(8, 32) : (1@warp, 1@lane)]>>, !axe.tensor<32768x4096xf32, register, #axe.layout<(32768, 2, 8, 32, 8) : (1@cta, 8@reg, 1@warp, 1@lane, 1@reg)>>
      axe.unary exp %r, %r : !axe.tensor<32768x4096xf32, register, #axe.layout<(32768, 2, 8, 32, 8) : (1@cta, 8@reg, 1@warp, 1@lane, 1@reg)>>, !axe.tensor<32768x4096xf32, register, #axe.layout<(32768, 2, 8, 32, 8) : (1@cta, 8@reg, 1@warp, 1@lane, 1@reg)>>
      axe.reduce sum %r, %s dims [1] : !axe.tensor<32768x4096xf32, register, #axe.layout<(32768, 2, 8, 32, 8) : (1@cta, 8@reg, 1@warp, 1@lane, 1@reg)>>, !axe.tensor<32768x1xf32, register, #axe.layout<(32768) : (1@cta) + [(8, 32) : (1@warp, 1@lane)]>>
      axe.binary div %r, %s, %r : !axe.tensor<32768x4096xf32, register, #axe.layout<(32768, 2, 8, 32, 8) : (1@cta, 8@reg, 1@warp, 1@lane, 1@reg)>>, !axe.tensor<32768x1xf32, register, #axe.layout<(32768) : (1@cta) + [(8, 32) : (1@warp, 1@lane)]>>, !axe.tensor<32768x4096xf32, register, #axe.layout<(32768, 2, 8, 32, 8) : (1@cta, 8@reg, 1@warp, 1@lane, 1@reg)>>
      axe.cast %r, %h : !axe.tensor<32768x4096xf32, register, #axe.layout<(32768, 2, 8, 32, 8) : (1@cta, 8@reg, 1@warp, 1@lane, 1@reg)>>, !axe.tensor<32768x4096xf16, register, #axe.layout<(32768, 2, 8, 32, 8) : (1@cta, 8@reg, 1@warp, 1@lane, 1@reg)>>
      axe.copy %h, %Y : !axe.tensor<32768x4096xf16, register, #axe.layout<(32768, 2, 8, 32, 8) : (1@cta, 8@reg, 1@warp, 1@lane, 1@reg)>>, !axe.tensor<32768x4096xf16, global, #axe.layout<(32768, 4096) : (4096, 1)>>
    }
    return
  }
}
