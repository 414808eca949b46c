// A grouped GEMM over windows with run-time ends: Y[r] = X[r] @ W[g] for the rows r of group
// g, whose row ranges are data (offsets[g] to offsets[g + 1], at any row: no padding). Each
// CTA computes one 64-row window of one group: cp.async reads the rows before the group's
// end and zero-fills the rest (`until %e`), mma.sync multiplies, and predicated stores write
// only the group's rows of Y. Z receives every CTA's whole 64-row result (rows past the end
// are zero), to check the zero fill.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @gemm_grouped_window(%x: memref<16384xf16> {axe.align = 16 : i64}, %w: memref<20480xf16> {axe.align = 16 : i64}, %off: memref<6xi32>, %y: memref<20480xf32> {axe.align = 16 : i64}, %z: memref<40960xf32> {axe.align = 16 : i64}) {
    %X = axe.view %x : memref<16384xf16> to !axe.tensor<256x64xf16, global, #axe.layout<(256, 64) : (64, 1)>>
    %W = axe.view %w : memref<20480xf16> to !axe.tensor<320x64xf16, global, #axe.layout<(320, 64) : (64, 1)>>
    %Y = axe.view %y : memref<20480xf32> to !axe.tensor<256x64xf32, global, #axe.layout<(256, 64) : (64, 1)>>
    %Z = axe.view %z : memref<40960xf32> to !axe.tensor<640x64xf32, global, #axe.layout<(640, 64) : (64, 1)>>
    axe.kernel grid [10] threads [128] {
      %c = axe.unit_id cta
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c64 = arith.constant 64 : index
      %g = arith.divui %c, %c2 : index
      %t = arith.remui %c, %c2 : index
      %g1 = arith.addi %g, %c1 : index
      %s32 = memref.load %off[%g] : memref<6xi32>
      %e32 = memref.load %off[%g1] : memref<6xi32>
      %s = arith.index_cast %s32 : i32 to index
      %e = arith.index_cast %e32 : i32 to index
      %t64 = arith.muli %t, %c64 : index
      %o = arith.addi %s, %t64 : index
      %wo = arith.muli %g, %c64 : index
      %zo = arith.muli %c, %c64 : index
      %xa = axe.slice %X [%o : +64 until %e, 0 : 64] : !axe.tensor<256x64xf16, global, #axe.layout<(256, 64) : (64, 1)>> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
      %wb = axe.slice %W [%wo : +64, 0 : 64] : !axe.tensor<320x64xf16, global, #axe.layout<(320, 64) : (64, 1)>> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
      %sa = axe.alloc : !axe.tensor<64x64xf16, shared, ?>
      %sb = axe.alloc : !axe.tensor<64x64xf16, shared, ?>
      %acc = axe.alloc : !axe.tensor<64x64xf32, register, ?>
      %zero = arith.constant 0.0 : f32
      axe.fill %acc, %zero : !axe.tensor<64x64xf32, register, ?>, f32
      %ta = axe.copy async %xa, %sa schedule cp_async : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, shared, ?> -> !axe.token
      %tb = axe.copy async %wb, %sb schedule cp_async : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, shared, ?> -> !axe.token
      axe.wait %ta, %tb
      axe.barrier cta
      axe.gemm %sa, %sb, %acc : !axe.tensor<64x64xf16, shared, ?>, !axe.tensor<64x64xf16, shared, ?>, !axe.tensor<64x64xf32, register, ?>
      %yw = axe.slice %Y [%o : +64 until %e, 0 : 64] : !axe.tensor<256x64xf32, global, #axe.layout<(256, 64) : (64, 1)>> to !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
      axe.copy %acc, %yw : !axe.tensor<64x64xf32, register, ?>, !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
      %zt = axe.slice %Z [%zo : +64, 0 : 64] : !axe.tensor<640x64xf32, global, #axe.layout<(640, 64) : (64, 1)>> to !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
      axe.copy %acc, %zt : !axe.tensor<64x64xf32, register, ?>, !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    }
    return
  }
}
