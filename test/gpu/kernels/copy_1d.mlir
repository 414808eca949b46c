// Global -> registers -> global over the whole grid: 2^26 f32, 16384 CTAs x 256 threads,
// each thread 4 vectors of 4 (16-byte accesses, a warp covers 512 contiguous bytes).
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @copy_1d(%x: memref<67108864xf32> {axe.align = 16 : i64}, %y: memref<67108864xf32> {axe.align = 16 : i64}) {
    %X = axe.view %x : memref<67108864xf32> to !axe.tensor<67108864xf32, global, #axe.layout<(67108864) : (1)>>
    %Y = axe.view %y : memref<67108864xf32> to !axe.tensor<67108864xf32, global, #axe.layout<(67108864) : (1)>>
    axe.kernel grid [16384] threads [256] {
      %r = axe.alloc : !axe.tensor<67108864xf32, register, #axe.layout<(16384, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>
      axe.copy %X, %r : !axe.tensor<67108864xf32, global, #axe.layout<(67108864) : (1)>>, !axe.tensor<67108864xf32, register, #axe.layout<(16384, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>
      axe.copy %r, %Y : !axe.tensor<67108864xf32, register, #axe.layout<(16384, 4, 8, 32, 4) : (1@cta, 4@reg, 1@warp, 1@lane, 1@reg)>>, !axe.tensor<67108864xf32, global, #axe.layout<(67108864) : (1)>>
    }
    return
  }
}
