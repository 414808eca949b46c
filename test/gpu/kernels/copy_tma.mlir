// Global -> shared with TMA (one 2-D tensor map over X, four 32x64 boxes per CTA into a
// 128B-swizzled shared tile laid out as four 64-column blocks), then shared -> global.
// The CTA waits on the copy's mbarrier through its token.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @copy_tma(%x: memref<65536xf16> {axe.align = 16 : i64}, %y: memref<65536xf16> {axe.align = 16 : i64}) {
    %X = axe.view %x : memref<65536xf16> to !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>>
    %Y = axe.view %y : memref<65536xf16> to !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>>
    axe.kernel grid [8] threads [128] {
      %cta = axe.unit_id cta
      %c32 = arith.constant 32 : index
      %r = arith.muli %cta, %c32 : index
      %s = axe.alloc : !axe.tensor<32x256xf16, shared, #axe.layout<(32, 4, 64) : (64, 2048, 1)>, #axe.swizzle<3, 3, 3>>
      %xt = axe.slice %X [%r : +32, 0 : 256] : !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>> to !axe.tensor<32x256xf16, global, ?>
      %t = axe.copy async %xt, %s schedule tma : !axe.tensor<32x256xf16, global, ?>, !axe.tensor<32x256xf16, shared, #axe.layout<(32, 4, 64) : (64, 2048, 1)>, #axe.swizzle<3, 3, 3>> -> !axe.token
      axe.wait %t
      %yt = axe.slice %Y [%r : +32, 0 : 256] : !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>> to !axe.tensor<32x256xf16, global, ?>
      axe.copy %s, %yt : !axe.tensor<32x256xf16, shared, #axe.layout<(32, 4, 64) : (64, 2048, 1)>, #axe.swizzle<3, 3, 3>>, !axe.tensor<32x256xf16, global, ?>
    }
    return
  }
}
