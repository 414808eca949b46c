// Refusals of convert-axe-to-gpu at sites the other tests do not reach, each a located error
// naming the op and what would be accepted.
// RUN: axe-opt %s --convert-axe-to-gpu --split-input-file --verify-diagnostics

// An elementwise op reads register tensors: a shared operand must be copied in first.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @shared_operand(%x: memref<32xf32>) {
    axe.kernel grid [1] threads [32] {
      %s = axe.alloc : !axe.tensor<32xf32, shared, #axe.layout<(32) : (1)>>
      %r = axe.alloc : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
      // expected-error @+1 {{elementwise operands must be register tensors (got a shared tensor): copy it into registers first}}
      axe.binary add %s, %r, %r : !axe.tensor<32xf32, shared, #axe.layout<(32) : (1)>>, !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>, !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
    }
    return
  }
}

// -----

// An elementwise op writes a register tensor.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @shared_dest() {
    axe.kernel grid [1] threads [32] {
      %r = axe.alloc : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
      %s = axe.alloc : !axe.tensor<32xf32, shared, #axe.layout<(32) : (1)>>
      // expected-error @+1 {{the destination of an elementwise op must be a register tensor}}
      axe.binary add %r, %r, %s : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>, !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>, !axe.tensor<32xf32, shared, #axe.layout<(32) : (1)>>
    }
    return
  }
}

// -----

// Shuffle reductions move 32-bit values: an f16 reduction across lanes is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @f16_shuffle(%x: memref<32xf16>) {
    axe.kernel grid [1] threads [32] {
      %r = axe.alloc : !axe.tensor<1x32xf16, register, #axe.layout<(32) : (1@lane)>>
      %s = axe.alloc : !axe.tensor<1x1xf16, register, #axe.layout<(1) : (1@reg) + [(32) : (1@lane)]>>
      // expected-error @+1 {{warp-shuffle reductions are lowered for 32-bit element types only}}
      axe.reduce sum %r, %s dims [1] : !axe.tensor<1x32xf16, register, #axe.layout<(32) : (1@lane)>>, !axe.tensor<1x1xf16, register, #axe.layout<(1) : (1@reg) + [(32) : (1@lane)]>>
    }
    return
  }
}

// -----

// mma.sync's m16n8k16 atom must tile the product: K = 24 does not.
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @mma_shape() {
    axe.kernel grid [1] threads [32] {
      %a = axe.alloc : !axe.tensor<16x24xf16, shared, #axe.layout<(16, 24) : (24, 1)>>
      %b = axe.alloc : !axe.tensor<24x8xf16, shared, #axe.layout<(24, 8) : (8, 1)>>
      %c = axe.alloc : !axe.tensor<16x8xf32, register, #axe.layout<(2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)>>
      // expected-error @+1 {{a 16x8x24 gemm is not a multiple of the m16n8k16 atom}}
      axe.gemm %a, %b, %c : !axe.tensor<16x24xf16, shared, #axe.layout<(16, 24) : (24, 1)>>, !axe.tensor<24x8xf16, shared, #axe.layout<(24, 8) : (8, 1)>>, !axe.tensor<16x8xf32, register, #axe.layout<(2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// A reduction over a mesh sums floating-point tensors.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @int_reduce(%xbuf: memref<4096xi32>, %ybuf: memref<1024xi32>) {
    axe.mesh [4] {
      %X = axe.view %xbuf : memref<4096xi32> to !axe.tensor<4x64x64xi32, global, #axe.layout<(4, 64, 64) : (1@gpuid, 64, 1)>>
      %Y = axe.view %ybuf : memref<1024xi32> to !axe.tensor<64x64xi32, global, #axe.layout<(4, 16, 64) : (1@gpuid, 64, 1)>>
      // expected-error @+1 {{a mesh reduction sums floating-point tensors of one element type}}
      axe.reduce sum %X, %Y dims [0] : !axe.tensor<4x64x64xi32, global, #axe.layout<(4, 64, 64) : (1@gpuid, 64, 1)>>, !axe.tensor<64x64xi32, global, #axe.layout<(4, 16, 64) : (1@gpuid, 64, 1)>>
    }
    return
  }
}

// -----

// A reduction over a mesh reduces one dimension, the distributed one.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @two_dims(%xbuf: memref<4096xf32>, %ybuf: memref<64xf32>) {
    axe.mesh [4] {
      %X = axe.view %xbuf : memref<4096xf32> to !axe.tensor<4x16x64xf32, global, #axe.layout<(4, 16, 64) : (1@gpuid, 64, 1)>>
      %Y = axe.view %ybuf : memref<64xf32> to !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>
      // expected-error @+1 {{a mesh reduction over several dimensions is not lowered yet}}
      axe.reduce sum %X, %Y dims [0, 1] : !axe.tensor<4x16x64xf32, global, #axe.layout<(4, 16, 64) : (1@gpuid, 64, 1)>>, !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>
    }
    return
  }
}

// -----

// A function that launches kernels runs its kernels only (the launch manifest): host-side
// computation left in it (a linalg op the front door did not convert) would never run.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @linalg_left(%x: memref<32xf32>, %y: memref<32xf32>) {
    %zero = arith.constant 0.000000e+00 : f32
    // expected-error @+1 {{'linalg.fill' op is left in a function that launches Axe kernels; a launch manifest runs kernels only, so it would never run (convert it, or compute it outside this function)}}
    linalg.fill ins(%zero : f32) outs(%y : memref<32xf32>)
    %X = axe.view %x : memref<32xf32> to !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>
    axe.kernel grid [1] threads [32] {
      %r = axe.alloc : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
      axe.copy %X, %r : !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>, !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
    }
    return
  }
}
