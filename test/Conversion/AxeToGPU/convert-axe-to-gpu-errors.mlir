// What convert-axe-to-gpu refuses, each with a located error.
// RUN: axe-opt %s --convert-axe-to-gpu --split-input-file --verify-diagnostics

module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @unknown_layout(%buf: memref<64xf32> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<64xf32> to !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>
    axe.kernel grid [1] threads [32] {
      %r = axe.alloc : !axe.tensor<64xf32, register, ?>
      // expected-error@-1 {{has layout '?': run axe-infer-layout first}}
      axe.copy %G, %r : !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>, !axe.tensor<64xf32, register, ?>
    }
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @gemm() {
    axe.kernel grid [1] threads [32] {
      %a = axe.alloc : !axe.tensor<16x16xf16, shared, #axe.layout<(16, 16) : (16, 1)>>
      %b = axe.alloc : !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>
      %c = axe.alloc : !axe.tensor<16x8xf32, register, #axe.layout<(8, 2, 4, 2) : (4@lane, 2@reg, 1@lane, 1@reg)>>
      // Rows as 2 g + h instead of the PTX fragment's 8 h + g: not an mma.sync accumulator.
      // expected-error@+1 {{the accumulator layout (8, 2, 4, 2) : (4@lane, 2@reg, 1@lane, 1@reg) is not a tiling of the mma.sync m16n8k16 fragment over warps and registers ((8, 2, 4, 2) : (4@lane, 2@reg, 1@lane, 1@reg) is not a tile of (2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg): dim 0: the trailing part of A's block is (8, 2) : (4@lane, 2@reg) but B's block is (2, 8) : (2@reg, 4@lane)); the nearest tiling over the 1 warps of this scope is (2, 32, 2) : (2@reg, 1@lane, 1@reg)}}
      axe.gemm %a, %b, %c : !axe.tensor<16x16xf16, shared, #axe.layout<(16, 16) : (16, 1)>>, !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>, !axe.tensor<16x8xf32, register, #axe.layout<(8, 2, 4, 2) : (4@lane, 2@reg, 1@lane, 1@reg)>>
    }
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_swizzle_mode(%buf: memref<65536xf32> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<65536xf32> to !axe.tensor<256x256xf32, global, #axe.layout<(256, 256) : (256, 1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<64x64xf32, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      %g = axe.slice %G [0 : 64, 0 : 64] : !axe.tensor<256x256xf32, global, #axe.layout<(256, 256) : (256, 1)>> to !axe.tensor<64x64xf32, global, ?>
      // expected-error@+1 {{#axe.swizzle<3, 3, 3> is not a TMA swizzle mode: for 4-byte elements TMA swizzles are #axe.swizzle<1|2|3, 2, 3> (32, 64, 128 bytes)}}
      axe.copy %g, %s schedule tma : !axe.tensor<64x64xf32, global, ?>, !axe.tensor<64x64xf32, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
    }
    return
  }
}

// -----

// A row of 100 f16 is 200 bytes: not a multiple of 16, so no tensor map describes it.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_unaligned_rows(%buf: memref<10000xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<10000xf16> to !axe.tensor<100x100xf16, global, #axe.layout<(100, 100) : (100, 1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<10x100xf16, shared, #axe.layout<(10, 100) : (100, 1)>>
      %g = axe.slice %G [0 : 10, 0 : 100] : !axe.tensor<100x100xf16, global, #axe.layout<(100, 100) : (100, 1)>> to !axe.tensor<10x100xf16, global, ?>
      // expected-error@+1 {{the TMA source's layout (100, 100) : (100, 1) is not a tensor map: dimension 0's stride is 200 bytes, not a multiple of 16}}
      axe.copy %g, %s schedule tma : !axe.tensor<10x100xf16, global, ?>, !axe.tensor<10x100xf16, shared, #axe.layout<(10, 100) : (100, 1)>>
    }
    return
  }
}

// -----

// Rows of 128 f16 (256 bytes) with the 128-byte swizzle: a box row is one 64-element swizzle
// row, but consecutive box rows are 128 elements apart, so no box is one consecutive run.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_no_box(%buf: memref<65536xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<65536xf16> to !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<64x128xf16, shared, #axe.layout<(64, 128) : (128, 1)>, #axe.swizzle<3, 3, 3>>
      %g = axe.slice %G [0 : 64, 0 : 128] : !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>> to !axe.tensor<64x128xf16, global, ?>
      // expected-error@+1 {{the TMA destination layout (64, 128) : (128, 1) cannot be written by TMA boxes: the box [1, 64] at [0, 64] starts 128 bytes into the buffer, not a multiple of 1024}}
      axe.copy %g, %s schedule tma : !axe.tensor<64x128xf16, global, ?>, !axe.tensor<64x128xf16, shared, #axe.layout<(64, 128) : (128, 1)>, #axe.swizzle<3, 3, 3>>
    }
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_warp_scope(%buf: memref<256xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<256xf16> to !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>
    axe.kernel grid [1] threads [64] {
      %s = axe.alloc : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
      axe.scope warp {
        // expected-error@+1 {{a TMA copy is issued for the whole CTA (a TMA store also for a warpgroup); this one executes at warp scope: issue it at CTA scope, or give it an axe.mbarrier of its own}}
        axe.copy %G, %s schedule tma : !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>, !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
      }
    }
    return
  }
}

// -----

// The row value lives in lane 0 only, but every lane needs it for the broadcast.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @not_replicated() {
    axe.kernel grid [1] threads [32] {
      %x = axe.alloc : !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@reg, 1@lane)>>
      %m = axe.alloc : !axe.tensor<2x1xf32, register, #axe.layout<(2) : (1@reg)>>
      // expected-error@+1 {{operand layout (2) : (1@reg) does not hold element 0 at {"lane": 1}, where the thread that owns it in (2, 32) : (1@reg, 1@lane) needs it}}
      axe.binary sub %x, %m, %x : !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@reg, 1@lane)>>, !axe.tensor<2x1xf32, register, #axe.layout<(2) : (1@reg)>>, !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@reg, 1@lane)>>
    }
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @no_refinement(%buf: memref<12xf32> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<12xf32> to !axe.tensor<12xf32, global, #axe.layout<(4, 3) : (3, 1)>>
    axe.kernel grid [1] threads [32] {
      %r = axe.alloc : !axe.tensor<12xf32, register, #axe.layout<(3, 4) : (1@reg, 3@reg)>>
      // expected-error@+1 {{admit no common mixed-radix refinement}}
      axe.copy %G, %r : !axe.tensor<12xf32, global, #axe.layout<(4, 3) : (3, 1)>>, !axe.tensor<12xf32, register, #axe.layout<(3, 4) : (1@reg, 3@reg)>>
    }
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @cross_cta() {
    axe.kernel grid [2] threads [32] {
      %x = axe.alloc : !axe.tensor<64xf32, register, #axe.layout<(2, 32) : (1@cta, 1@lane)>>
      %s = axe.alloc : !axe.tensor<f32, register, #axe.layout<() : ()>>
      // expected-error@+1 {{reducing over the cta axis of layout (2, 32) : (1@cta, 1@lane) crosses CTAs, which a kernel cannot synchronize}}
      axe.reduce sum %x, %s dims [0] : !axe.tensor<64xf32, register, #axe.layout<(2, 32) : (1@cta, 1@lane)>>, !axe.tensor<f32, register, #axe.layout<() : ()>>
    }
    return
  }
}

// -----

// A row stride of 3 f16 leaves no 4-byte aligned run: refused (cp.async moves 4/8/16 bytes).
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @unaligned(%a: memref<96xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<96xf16> to !axe.tensor<32x3xf16, global, #axe.layout<(32, 3) : (3, 1)>>
    axe.kernel grid [1] threads [32] {
      %s = axe.alloc : !axe.tensor<32x3xf16, shared, #axe.layout<(32, 3) : (3, 1)>>
      // expected-error@+1 {{cp.async moves 4, 8 or 16 bytes per access, but source layout (32, 3) : (3, 1) and destination layout (32, 3) : (3, 1) allow 2-byte accesses (contiguous runs of 4, 8 or 16 bytes on both sides are needed)}}
      axe.copy %A, %s schedule cp_async : !axe.tensor<32x3xf16, global, #axe.layout<(32, 3) : (3, 1)>>, !axe.tensor<32x3xf16, shared, #axe.layout<(32, 3) : (3, 1)>>
    }
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_token_unused(%buf: memref<256xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<256xf16> to !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
      // expected-error@+1 {{the token of this async TMA copy is never waited for (axe.wait, or carried to one); its mbarrier's phases would fall out of step}}
      %t = axe.copy async %G, %s schedule tma : !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>, !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>> -> !axe.token
    }
    return
  }
}


// -----

// Moving register elements between the threads of a warpgroup needs a warpgroup barrier.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @convert_warpgroup() {
    axe.kernel grid [1] threads [256] {
      %a = axe.alloc : !axe.tensor<128xf32, register, #axe.layout<(4, 32) : (1@warp, 1@lane)>>
      %b = axe.alloc : !axe.tensor<128xf32, register, #axe.layout<(32, 4) : (1@lane, 1@warp)>>
      axe.scope warpgroup [0 : 1] {
        // expected-error@+1 {{moving register elements between threads at warpgroup scope needs a barrier of that scope (named barriers are not lowered); convert at warp or cta scope}}
        axe.convert_layout %a, %b : !axe.tensor<128xf32, register, #axe.layout<(4, 32) : (1@warp, 1@lane)>>, !axe.tensor<128xf32, register, #axe.layout<(32, 4) : (1@lane, 1@warp)>>
      }
    }
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @arrive_waited() {
    axe.kernel grid [1] threads [128] {
      %r = axe.arrive
      // expected-error@+1 {{an axe.arrive token orders TMA copies ('after'); it is not waited on or carried}}
      axe.wait %r
    }
    return
  }
}

// -----

// Two shared tensors that each fit, but not together (sm_90: 232448 bytes per CTA).
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @shared_total() {
    // expected-error @+1 {{the kernel's shared tensors do not fit in one CTA: it needs 262144 bytes of shared memory, more than the 232448 bytes a CTA can use on sm_90}}
    axe.kernel grid [1] threads [32] {
      %s0 = axe.alloc : !axe.tensor<32768xf32, shared, #axe.layout<(32768) : (1)>>
      %s1 = axe.alloc : !axe.tensor<32768xf32, shared, #axe.layout<(32768) : (1)>>
    }
    return
  }
}

// -----

// TMA needs a 16-byte aligned global address; the argument must declare it.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @tma_undeclared_alignment(%x: memref<4096xf16>) {
    %X = axe.view %x : memref<4096xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>>
      // expected-error @+1 {{a TMA copy needs a 16-byte aligned global buffer: declare it on the kernel argument ({axe.align = 16 : i64})}}
      axe.copy %X, %s schedule tma : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>>
    }
    return
  }
}

// -----

// Diagnostics say what to change: cp.async on an argument that declares no alignment names
// the declaration that would allow it ...
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @cp_async_undeclared(%a: memref<64xf16>) {
    %A = axe.view %a : memref<64xf16> to !axe.tensor<64xf16, global, #axe.layout<(64) : (1)>>
    axe.kernel grid [1] threads [32] {
      %s = axe.alloc : !axe.tensor<64xf16, shared, #axe.layout<(64) : (1)>>
      // expected-error @+1 {{cp.async moves 4, 8 or 16 bytes per access, but source layout (64) : (1) and destination layout (64) : (1) allow 2-byte accesses; the layouts allow 16-byte accesses, but the source buffer is only known to be 2-byte aligned: declare its alignment on the function argument ({axe.align = 16 : i64})}}
      axe.copy %A, %s schedule cp_async : !axe.tensor<64xf16, global, #axe.layout<(64) : (1)>>, !axe.tensor<64xf16, shared, #axe.layout<(64) : (1)>>
    }
    return
  }
}

// -----

// ... and a layout whose runs are too short names both layouts.
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @cp_async_strided(%a: memref<128xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<128xf16> to !axe.tensor<64xf16, global, #axe.layout<(64) : (2)>>
    axe.kernel grid [1] threads [32] {
      %s = axe.alloc : !axe.tensor<64xf16, shared, #axe.layout<(64) : (1)>>
      // expected-error @+1 {{cp.async moves 4, 8 or 16 bytes per access, but source layout (64) : (2) and destination layout (64) : (1) allow 2-byte accesses (contiguous runs of 4, 8 or 16 bytes on both sides are needed)}}
      axe.copy %A, %s schedule cp_async : !axe.tensor<64xf16, global, #axe.layout<(64) : (2)>>, !axe.tensor<64xf16, shared, #axe.layout<(64) : (1)>>
    }
    return
  }
}

// -----

// A {clip} tile is used by copies only.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @clipped_fill(%y: memref<120xf32>) {
    %Y = axe.view %y : memref<120xf32> to !axe.tensor<10x12xf32, global, #axe.layout<(10, 12) : (12, 1)>>
    axe.kernel grid [4] threads [32] {
      %c = axe.unit_id cta
      %c8 = arith.constant 8 : index
      %o = arith.muli %c, %c8 : index
      %d = axe.slice %Y [%o : +8, 0 : 12] {clip} : !axe.tensor<10x12xf32, global, #axe.layout<(10, 12) : (12, 1)>> to !axe.tensor<8x12xf32, global, #axe.layout<(8, 12) : (12, 1)>>
      %z = arith.constant 0.0 : f32
      // expected-error@+1 {{a {clip} slice (a tile that may reach past its tensor) is lowered as an axe.copy operand only (its partial accesses are predicated), not of 'axe.fill'}}
      axe.fill %d, %z : !axe.tensor<8x12xf32, global, #axe.layout<(8, 12) : (12, 1)>>, f32
    }
    return
  }
}

// -----

// A token that can come from a TMA store or from another kind of copy (here through scf.if)
// would need the store's bulk-group wait and the copy's own mechanism on one run-time value:
// a located error that asks for separate waits.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_store_token_mixed(%buf: memref<256xf16> {axe.align = 16 : i64}, %src: memref<256xf16> {axe.align = 16 : i64}, %c: i1) {
    %G = axe.view %buf : memref<256xf16> to !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>
    %S = axe.view %src : memref<256xf16> to !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
      %t = scf.if %c -> !axe.token {
        %a = axe.copy async %s, %G schedule tma : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>, !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>> -> !axe.token
        scf.yield %a : !axe.token
      } else {
        %b = axe.copy async %S, %s schedule cp_async : !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>, !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>> -> !axe.token
        scf.yield %b : !axe.token
      }
      // expected-error@+1 {{this wait's token can come from a TMA store or from a copy that is not a TMA copy: wait for the store's token apart}}
      axe.wait %t
    }
    return
  }
}

// -----

// A TMA store's token is waited for by the unit that issued it (a CTA or a warpgroup): a
// wait at warp scope is a located error.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_store_async_warp(%buf: memref<256xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<256xf16> to !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
      %t = axe.copy async %s, %G schedule tma : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>, !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>> -> !axe.token
      axe.scope warp [0 : 1] {
        // expected-error@+1 {{a TMA store's token is waited for by the CTA or warpgroup that issued the store; this wait executes at warp scope}}
        axe.wait %t
      }
    }
    return
  }
}

// -----

// A slice's stated layout is how the lowering addresses it: one that is not L[R:S] of the
// source's (here the region's origin, offset 1, is missing) is refused rather than lowered to
// the wrong address.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @wrong_slice_layout(%f: memref<4xi32>, %epoch: i32) {
    %F = axe.view %f : memref<4xi32> to !axe.tensor<4xi32, global, #axe.layout<(4) : (1)>>
    axe.kernel grid [1] threads [32] {
      // expected-error@+1 {{the slice's layout (1) : (1) is not L[R:S] = (1) : (1) + 1}}
      %f1 = axe.slice %F [1 : 2] : !axe.tensor<4xi32, global, #axe.layout<(4) : (1)>> to !axe.tensor<1xi32, global, #axe.layout<(1) : (1)>>
      axe.signal %f1, %epoch : !axe.tensor<1xi32, global, #axe.layout<(1) : (1)>>, i32
    }
    return
  }
}

// -----

// A token carried through an scf.while, which the token analysis does not follow: the wait
// cannot tell which completion mechanisms it needs.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @token_through_while(%buf: memref<256xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<256xf16> to !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
      %t0 = axe.copy async %G, %s schedule tma : !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>, !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>> -> !axe.token
      %false = arith.constant false
      %t1 = scf.while (%t = %t0) : (!axe.token) -> !axe.token {
        scf.condition(%false) %t : !axe.token
      } do {
      ^bb0(%u: !axe.token):
        scf.yield %u : !axe.token
      }
      // expected-error@+1 {{cannot tell what this wait's token 0 comes from (a result of 'scf.while'): tokens flow from axe.copy, axe.gemm and axe.arrive through scf.for (iter_args, results) and scf.if results}}
      axe.wait %t1
    }
    return
  }
}

// -----

// Inside the loop: the token is an argument of the scf.while's region.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @token_while_argument(%buf: memref<256xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<256xf16> to !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
      %t0 = axe.copy async %G, %s schedule tma : !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>, !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>> -> !axe.token
      %false = arith.constant false
      scf.while (%t = %t0) : (!axe.token) -> () {
        // expected-error@+1 {{cannot tell what this wait's token 0 comes from (block argument 0 of 'scf.while')}}
        axe.wait %t
        scf.condition(%false)
      } do {
        scf.yield %t0 : !axe.token
      }
    }
    return
  }
}

// -----

// Kernels take their buffers as bare pointers: a dynamically sized memref has no extent to
// state in the launch manifest (it failed later, as an illegal gpu.func, before).
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @dynamic_memref(%y: memref<?xf16>) {
    // expected-error @+1 {{convert-axe-to-gpu lowers views of statically sized memrefs only (got memref<?xf16>): a kernel takes its buffers as bare pointers, and the launch manifest states each one's extent}}
    %Y = axe.view %y : memref<?xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
    axe.kernel grid [1] threads [32] {
      %v = axe.alloc : !axe.tensor<64x64xf16, register, #axe.layout<(64, 2, 32) : (2@reg, 1@reg, 1@lane)>>
      axe.copy %Y, %v : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, register, #axe.layout<(64, 2, 32) : (2@reg, 1@reg, 1@lane)>>
    }
    return
  }
}

// -----

// A register A whose layout is not the fragment (each thread holds half a row) would need a
// conversion: refused at the gemm, naming the first element out of place.
!rows = !axe.tensor<64x64xf16, register, #axe.layout<(4, 16, 2, 32) : (1@warp, 2@lane, 1@lane, 1@reg)>>
!acc3 = !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
!sv3 = !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @register_a_not_fragment() {
    axe.kernel grid [1] threads [128] {
      %sv = axe.alloc : !sv3
      axe.scope warpgroup [0 : 1] {
        %p = axe.alloc : !rows
        %o = axe.alloc : !acc3
        // expected-error @+1 {{'axe.gemm' op A's layout (4, 16, 2, 32) : (1@warp, 2@lane, 1@lane, 1@reg) is not the wgmma m64nNk16 fragment layout ((0, 2) is not on warp 0 lane 1); give it the fragment's layout}}
        axe.gemm %p, %sv, %o : !rows, !sv3, !acc3
      }
    }
    return
  }
}

// -----

// A register A is read as [M, K] only: wgmma's register fragment has no transposed form.
!frag = !axe.tensor<64x64xf16, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
!accT = !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
!svT = !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @register_a_transposed() {
    axe.kernel grid [1] threads [128] {
      %sv = axe.alloc : !svT
      axe.scope warpgroup [0 : 1] {
        %p = axe.alloc : !frag
        %o = axe.alloc : !accT
        // expected-error @+1 {{'axe.gemm' op wgmma reads a register A only as [M, K] (transpose_a needs A in shared memory)}}
        axe.gemm %p, %sv, %o {transpose_a} : !frag, !svT, !accT
      }
    }
    return
  }
}
