// Shared -> registers with ldmatrix, checked end to end: X (64x16 f16) goes global -> shared
// (XOR-swizzled) -> registers in mma.sync's A-fragment layout (four warps, ldmatrix.x4) ->
// global Y; X2 (16x8, K x N) goes through mma.sync's B-fragment layout in warp 0
// (ldmatrix.x2.trans) -> Y2. Y = X and Y2 = X2 exactly.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @ldmatrix_copy(%x: memref<1024xf16> {axe.align = 16 : i64}, %y: memref<1024xf16> {axe.align = 16 : i64}, %x2: memref<128xf16> {axe.align = 16 : i64}, %y2: memref<128xf16> {axe.align = 16 : i64}) {
    %X = axe.view %x : memref<1024xf16> to !axe.tensor<64x16xf16, global, #axe.layout<(64, 16) : (16, 1)>>
    %Y = axe.view %y : memref<1024xf16> to !axe.tensor<64x16xf16, global, #axe.layout<(64, 16) : (16, 1)>>
    %X2 = axe.view %x2 : memref<128xf16> to !axe.tensor<16x8xf16, global, #axe.layout<(16, 8) : (8, 1)>>
    %Y2 = axe.view %y2 : memref<128xf16> to !axe.tensor<16x8xf16, global, #axe.layout<(16, 8) : (8, 1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<64x16xf16, shared, #axe.layout<(64, 16) : (16, 1)>, #axe.swizzle<1, 3, 3>>
      %r = axe.alloc : !axe.tensor<64x16xf16, register, #axe.layout<(4, 2, 8, 2, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
      %s2 = axe.alloc : !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>
      %r2 = axe.alloc : !axe.tensor<16x8xf16, register, #axe.layout<(2, 4, 2, 8) : (2@reg, 1@lane, 1@reg, 4@lane)>>
      axe.copy %X, %s : !axe.tensor<64x16xf16, global, #axe.layout<(64, 16) : (16, 1)>>, !axe.tensor<64x16xf16, shared, #axe.layout<(64, 16) : (16, 1)>, #axe.swizzle<1, 3, 3>>
      axe.copy %X2, %s2 : !axe.tensor<16x8xf16, global, #axe.layout<(16, 8) : (8, 1)>>, !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>
      axe.barrier cta
      axe.copy %s, %r schedule ldmatrix : !axe.tensor<64x16xf16, shared, #axe.layout<(64, 16) : (16, 1)>, #axe.swizzle<1, 3, 3>>, !axe.tensor<64x16xf16, register, #axe.layout<(4, 2, 8, 2, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
      axe.copy %r, %Y : !axe.tensor<64x16xf16, register, #axe.layout<(4, 2, 8, 2, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>, !axe.tensor<64x16xf16, global, #axe.layout<(64, 16) : (16, 1)>>
      axe.scope warp [0 : 1] {
        axe.copy %s2, %r2 schedule ldmatrix : !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>, !axe.tensor<16x8xf16, register, #axe.layout<(2, 4, 2, 8) : (2@reg, 1@lane, 1@reg, 4@lane)>>
        axe.copy %r2, %Y2 : !axe.tensor<16x8xf16, register, #axe.layout<(2, 4, 2, 8) : (2@reg, 1@lane, 1@reg, 4@lane)>>, !axe.tensor<16x8xf16, global, #axe.layout<(16, 8) : (8, 1)>>
      }
    }
    return
  }
}
