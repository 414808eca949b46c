// Refusals at the limits of the hardware and of the lowering's bookkeeping, and of operands a
// thread distribution cannot serve. Run for sm_90a (the chip the TMA cases need).
// RUN: axe-opt %s --convert-axe-to-gpu="chip=sm_90a" --split-input-file --verify-diagnostics

// An mbarrier's transaction count is below 2^20 bytes: one TMA copy of a 1024 x 1024 f16 tile
// (2 MiB) cannot complete on one. (Without a target no shared-memory budget refuses the tile
// first.)
module {
  func.func @tma_copy_over_the_transaction_count(%x: memref<1048576xf16> {axe.align = 16 : i64}) {
    %X = axe.view %x : memref<1048576xf16> to !axe.tensor<1024x1024xf16, global, #axe.layout<(1024, 1024) : (1024, 1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<1024x1024xf16, shared, #axe.layout<(1024, 16, 64) : (64, 65536, 1)>, #axe.swizzle<3, 3, 3>>
      // expected-error @+1 {{a TMA copy of 2097152 bytes exceeds an mbarrier's transaction count (< 2^20 bytes)}}
      %t = axe.copy async %X, %s schedule tma : !axe.tensor<1024x1024xf16, global, #axe.layout<(1024, 1024) : (1024, 1)>>, !axe.tensor<1024x1024xf16, shared, #axe.layout<(1024, 16, 64) : (64, 65536, 1)>, #axe.swizzle<3, 3, 3>> -> !axe.token
      axe.wait %t
    }
    return
  }
}

// -----

// The tensor map describes the global view a TMA copy reads: a view whose layout is left to
// inference has none yet.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @tma_source_view_without_layout(%x: memref<4096xf16> {axe.align = 16 : i64}) {
    // expected-error @+1 {{the TMA source's view has layout '?'}}
    %X = axe.view %x : memref<4096xf16> to !axe.tensor<64x64xf16, global, ?>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      %t = axe.copy async %X, %s schedule tma : !axe.tensor<64x64xf16, global, ?>, !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>> -> !axe.token
      axe.wait %t
    }
    return
  }
}

// -----

// The lowering keeps at most 31 mbarriers per kernel: the 32nd is refused where it is made.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @too_many_mbarriers() {
    axe.kernel grid [1] threads [128] {
      %b0 = axe.mbarrier arrivals 1
      %b1 = axe.mbarrier arrivals 1
      %b2 = axe.mbarrier arrivals 1
      %b3 = axe.mbarrier arrivals 1
      %b4 = axe.mbarrier arrivals 1
      %b5 = axe.mbarrier arrivals 1
      %b6 = axe.mbarrier arrivals 1
      %b7 = axe.mbarrier arrivals 1
      %b8 = axe.mbarrier arrivals 1
      %b9 = axe.mbarrier arrivals 1
      %b10 = axe.mbarrier arrivals 1
      %b11 = axe.mbarrier arrivals 1
      %b12 = axe.mbarrier arrivals 1
      %b13 = axe.mbarrier arrivals 1
      %b14 = axe.mbarrier arrivals 1
      %b15 = axe.mbarrier arrivals 1
      %b16 = axe.mbarrier arrivals 1
      %b17 = axe.mbarrier arrivals 1
      %b18 = axe.mbarrier arrivals 1
      %b19 = axe.mbarrier arrivals 1
      %b20 = axe.mbarrier arrivals 1
      %b21 = axe.mbarrier arrivals 1
      %b22 = axe.mbarrier arrivals 1
      %b23 = axe.mbarrier arrivals 1
      %b24 = axe.mbarrier arrivals 1
      %b25 = axe.mbarrier arrivals 1
      %b26 = axe.mbarrier arrivals 1
      %b27 = axe.mbarrier arrivals 1
      %b28 = axe.mbarrier arrivals 1
      %b29 = axe.mbarrier arrivals 1
      %b30 = axe.mbarrier arrivals 1
      // expected-error @+1 {{more than 31 mbarriers in one kernel (axe.mbarrier ops, TMA copy sites without a barrier, axe.arrive ops) are not supported}}
      %b31 = axe.mbarrier arrivals 1
      axe.mbarrier_arrive %b0
      axe.mbarrier_arrive %b1
      axe.mbarrier_arrive %b2
      axe.mbarrier_arrive %b3
      axe.mbarrier_arrive %b4
      axe.mbarrier_arrive %b5
      axe.mbarrier_arrive %b6
      axe.mbarrier_arrive %b7
      axe.mbarrier_arrive %b8
      axe.mbarrier_arrive %b9
      axe.mbarrier_arrive %b10
      axe.mbarrier_arrive %b11
      axe.mbarrier_arrive %b12
      axe.mbarrier_arrive %b13
      axe.mbarrier_arrive %b14
      axe.mbarrier_arrive %b15
      axe.mbarrier_arrive %b16
      axe.mbarrier_arrive %b17
      axe.mbarrier_arrive %b18
      axe.mbarrier_arrive %b19
      axe.mbarrier_arrive %b20
      axe.mbarrier_arrive %b21
      axe.mbarrier_arrive %b22
      axe.mbarrier_arrive %b23
      axe.mbarrier_arrive %b24
      axe.mbarrier_arrive %b25
      axe.mbarrier_arrive %b26
      axe.mbarrier_arrive %b27
      axe.mbarrier_arrive %b28
      axe.mbarrier_arrive %b29
      axe.mbarrier_arrive %b30
      axe.mbarrier_arrive %b31
    }
    return
  }
}

// -----

// Each CTA computes its own row maxima over both warps, but the destination is split across
// the two CTAs (1@cta) while every CTA runs the reduction: half of the results would have no
// thread to hold them.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @reduce_into_a_cta_distributed_result() {
    axe.kernel grid [2] threads [64] {
      %t1 = axe.alloc : !axe.tensor<2x2x8xf32, register, #axe.layout<(2, 2, 8) : (1@reg, 1@warp, 1@lane)>>
      %t2 = axe.alloc : !axe.tensor<1x2x8xf32, register, #axe.layout<(1, 2, 2, 4) : (1@reg, 1@warp, 1@cta, 1@reg) + [(32) : (1@lane)]>>
      // expected-error @+1 {{is held by some ctas only, but the threads of this op follow layout (2, 2, 8) : (1@reg, 1@warp, 1@lane), which every cta of the executing unit runs (2): replicate the operand over all of them, or give the op's layout the operand's ctas}}
      axe.reduce max %t1, %t2 dims [0] : !axe.tensor<2x2x8xf32, register, #axe.layout<(2, 2, 8) : (1@reg, 1@warp, 1@lane)>>, !axe.tensor<1x2x8xf32, register, #axe.layout<(1, 2, 2, 4) : (1@reg, 1@warp, 1@cta, 1@reg) + [(32) : (1@lane)]>>
    }
    return
  }
}

// -----

// A TMA multicast writes into at most 16 CTAs: a group of 32 is refused. (A target would
// refuse the cluster of 32 first: sm_90a's clusters hold at most 8 CTAs.)
!a = !axe.tensor<1024x1024xf16, global, #axe.layout<(1024, 1024) : (1024, 1)>>
!g = !axe.tensor<64x64xf16, global, ?>
!s = !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
module {
  func.func @multicast_past_sixteen_ctas(%a: memref<1048576xf16> {axe.align = 16 : i64}, %p: i1) {
    %A = axe.view %a : memref<1048576xf16> to !a
    axe.kernel grid [32] threads [128] cluster [32] {
      %s = axe.alloc : !s
      %full = axe.mbarrier arrivals 1
      %cl = axe.unit_id cluster
      %c64 = arith.constant 64 : index
      %col = arith.muli %cl, %c64 : index
      %g = axe.slice %A [%col : +64, %col : +64] : !a to !g
      axe.scope warp [0 : 1] {
        // expected-error @+1 {{a TMA multicast reaches at most 16 CTAs, this group has 32}}
        axe.copy async %g, %s schedule tma barrier %full multicast [0] : !g, !s
      }
      axe.mbarrier_wait %full, %p
    }
    return
  }
}
