// ldmatrix's register side and allocations the lowering cannot place, refused with what they
// hold wrong. Modules without a target skip the target's layout checks, so these reach the
// lowering's own.
// RUN: axe-opt %s --convert-axe-to-gpu="chip=sm_90" --split-input-file --verify-diagnostics

// Only 16 of the warp's 32 lanes would receive registers: ldmatrix writes every lane's.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @ldmatrix_half_the_lanes() {
    axe.kernel grid [1] threads [32] {
      %s = axe.alloc : !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>
      %r = axe.alloc : !axe.tensor<16x8xf16, register, #axe.layout<(16, 8) : (1@lane, 1@reg)>>
      // expected-error @+1 {{cannot copy with ldmatrix: the register layout (16, 8) : (1@lane, 1@reg) does not fill 8 registers of every lane of the 1 warp(s)}}
      axe.copy %s, %r schedule ldmatrix : !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>, !axe.tensor<16x8xf16, register, #axe.layout<(16, 8) : (1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// Two elements of a row on one register (the two register iters overlap): ldmatrix gives
// each register one element.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @ldmatrix_two_elements_one_register() {
    axe.kernel grid [1] threads [32] {
      %s = axe.alloc : !axe.tensor<32x8xf16, shared, #axe.layout<(32, 8) : (8, 1)>>
      %r = axe.alloc : !axe.tensor<32x8xf16, register, #axe.layout<(32, 2, 4) : (1@lane, 1@reg, 1@reg)>>
      // expected-error @+1 {{cannot copy with ldmatrix: two elements share a register}}
      axe.copy %s, %r schedule ldmatrix : !axe.tensor<32x8xf16, shared, #axe.layout<(32, 8) : (8, 1)>>, !axe.tensor<32x8xf16, register, #axe.layout<(32, 2, 4) : (1@lane, 1@reg, 1@reg)>>
    }
    return
  }
}

// -----

// Half the elements on a second warp of a one-warp kernel.
module {
  func.func @ldmatrix_past_the_warps() {
    axe.kernel grid [1] threads [32] {
      %s = axe.alloc : !axe.tensor<64x4xf16, shared, #axe.layout<(64, 4) : (4, 1)>>
      %r = axe.alloc : !axe.tensor<64x4xf16, register, #axe.layout<(2, 32, 4) : (1@warp, 1@lane, 1@reg)>>
      // expected-error @+1 {{cannot copy with ldmatrix: the register layout (2, 32, 4) : (1@warp, 1@lane, 1@reg) puts an element on warp 1, lane 0, register 0, outside the 1 warp(s) of 32 lanes that execute the copy}}
      axe.copy %s, %r schedule ldmatrix : !axe.tensor<64x4xf16, shared, #axe.layout<(64, 4) : (4, 1)>>, !axe.tensor<64x4xf16, register, #axe.layout<(2, 32, 4) : (1@warp, 1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// A shared allocation whose layout descends below its base: offsets start at zero.
module {
  func.func @shared_below_its_base() {
    axe.kernel grid [1] threads [32] {
      // expected-error @+1 {{layout (32) : (-1) reaches the negative m coordinate -31}}
      %s = axe.alloc : !axe.tensor<32xf32, shared, #axe.layout<(32) : (-1)>>
    }
    return
  }
}
