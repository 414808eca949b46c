// What convert-axe-to-gpu refuses, each with a located error.
// RUN: axe-opt %s --convert-axe-to-gpu --split-input-file --verify-diagnostics

module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @unknown_layout(%buf: memref<64xf32>) {
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
      // expected-error@+1 {{the accumulator layout (8, 2, 4, 2) : (4@lane, 2@reg, 1@lane, 1@reg) is not the mma.sync m16n8k16 fragment tiled over the 1 warps of this scope (run axe-infer-layout)}}
      axe.gemm %a, %b, %c : !axe.tensor<16x16xf16, shared, #axe.layout<(16, 16) : (16, 1)>>, !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>, !axe.tensor<16x8xf32, register, #axe.layout<(8, 2, 4, 2) : (4@lane, 2@reg, 1@lane, 1@reg)>>
    }
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma(%buf: memref<256xf16>) {
    %G = axe.view %buf : memref<256xf16> to !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>
    axe.kernel grid [1] threads [32] {
      %s = axe.alloc : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
      // expected-error@+1 {{copy schedule 'tma' is not implemented by convert-axe-to-gpu yet (auto, vectorized and cp_async are)}}
      %t = axe.copy async %G, %s schedule tma : !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>, !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>> -> !axe.token
      axe.wait %t
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
  func.func @no_refinement(%buf: memref<12xf32>) {
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
  func.func @unaligned(%a: memref<96xf16>) {
    %A = axe.view %a : memref<96xf16> to !axe.tensor<32x3xf16, global, #axe.layout<(32, 3) : (3, 1)>>
    axe.kernel grid [1] threads [32] {
      %s = axe.alloc : !axe.tensor<32x3xf16, shared, #axe.layout<(32, 3) : (3, 1)>>
      // expected-error@+1 {{cp.async moves 4, 8 or 16 bytes per access, but these layouts allow 2-byte accesses}}
      axe.copy %A, %s schedule cp_async : !axe.tensor<32x3xf16, global, #axe.layout<(32, 3) : (3, 1)>>, !axe.tensor<32x3xf16, shared, #axe.layout<(32, 3) : (3, 1)>>
    }
    return
  }
}
