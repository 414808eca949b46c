// TMA multicast in a cluster of two CTAs (sm_90a), checked against NumPy by run.py: each
// cluster loads a 64x64 tile of A once, half by each CTA, into both CTAs' shared memory; each
// CTA writes what it received to its own rows of O. Then both CTAs release the buffer to each
// other (an arrival on the peer's barrier), and the cluster loads a second tile into it.
// O rows 0-63 and 64-127 are A rows 0-63; O rows 128-255 are A rows 64-127 twice.
!a = !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>
!o = !axe.tensor<256x128xf16, global, #axe.layout<(256, 128) : (128, 1)>>
!g = !axe.tensor<64x64xf16, global, ?>
!s = !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
!b = !axe.tensor<64x256xf16, global, #axe.layout<(64, 256) : (256, 1)>>
!ob = !axe.tensor<128x256xf16, global, #axe.layout<(128, 256) : (256, 1)>>
!gb = !axe.tensor<64x256xf16, global, ?>
!sb = !axe.tensor<64x256xf16, shared, #axe.layout<(64, 4, 64) : (64, 4096, 1)>, #axe.swizzle<3, 3, 3>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @copy_tma_multicast(%a: memref<16384xf16> {axe.align = 16 : i64}, %o: memref<32768xf16>) {
    %A = axe.view %a : memref<16384xf16> to !a
    %O = axe.view %o : memref<32768xf16> to !o
    axe.kernel grid [4] threads [128] cluster [2] {
      %s = axe.alloc : !s
      // One arrival (this CTA's copy) and the whole tile's bytes, half of them from the peer.
      %full = axe.mbarrier arrivals 1
      // Every thread of both CTAs is done reading %s.
      %empty = axe.mbarrier arrivals 256
      %rank = axe.unit_id cta in_cluster
      %cl = axe.unit_id cluster
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %false = arith.constant false
      %true = arith.constant true
      %col = arith.muli %cl, %c64 : index
      %row = arith.muli %rank, %c64 : index
      %row2 = arith.addi %row, %c128 : index
      %g0 = axe.slice %A [%c0 : +64, %col : +64] : !a to !g
      %g1 = axe.slice %A [%c64 : +64, %col : +64] : !a to !g
      axe.scope warp [0 : 1] {
        axe.copy async %g0, %s schedule tma barrier %full multicast [0] : !g, !s
      }
      axe.mbarrier_wait %full, %false
      %d0 = axe.slice %O [%row : +64, %col : +64] : !o to !g
      axe.copy %s, %d0 : !s, !g
      axe.mbarrier_arrive %empty cta %c0
      axe.mbarrier_arrive %empty cta %c1
      axe.mbarrier_wait %empty, %false
      axe.scope warp [0 : 1] {
        axe.copy async %g1, %s schedule tma barrier %full multicast [0] : !g, !s
      }
      axe.mbarrier_wait %full, %true
      %d1 = axe.slice %O [%row2 : +64, %col : +64] : !o to !g
      axe.copy %s, %d1 : !s, !g
    }
    return
  }
  // The B tile of axe_gen.gemm_ws's f16 GEMM: 64x256, four column blocks of 64 (four TMA boxes),
  // multicast to a pair of CTAs, two boxes issued by each; each CTA writes it to its rows of O.
  func.func @copy_tma_multicast_blocks(%b: memref<16384xf16> {axe.align = 16 : i64}, %o: memref<32768xf16>) {
    %B = axe.view %b : memref<16384xf16> to !b
    %O = axe.view %o : memref<32768xf16> to !ob
    axe.kernel grid [2] threads [128] cluster [2] {
      %s = axe.alloc : !sb
      %full = axe.mbarrier arrivals 1
      %rank = axe.unit_id cta in_cluster
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %false = arith.constant false
      %row = arith.muli %rank, %c64 : index
      %g = axe.slice %B [%c0 : +64, %c0 : +256] : !b to !gb
      axe.scope warp [0 : 1] {
        axe.copy async %g, %s schedule tma barrier %full multicast [0] : !gb, !sb
      }
      axe.mbarrier_wait %full, %false
      %d = axe.slice %O [%row : +64, %c0 : +256] : !ob to !gb
      axe.copy %s, %d : !sb, !gb
    }
    return
  }
}
