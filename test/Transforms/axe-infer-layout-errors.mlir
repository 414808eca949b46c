// axe-infer-layout diagnoses what it cannot infer, at the right operation.
// RUN: axe-opt %s --axe-infer-layout --split-input-file --verify-diagnostics

// Nothing constrains %t: it is only filled.
func.func @unconstrained() {
  axe.kernel grid [1] threads [32] {
    // expected-error @+1 {{cannot infer a layout: no operation constrains this tensor's layout}}
    %t = axe.alloc : !axe.tensor<32xf32, register, ?>
    %z = arith.constant 0.0 : f32
    axe.fill %t, %z : !axe.tensor<32xf32, register, ?>, f32
  }
  return
}

// -----

// Global layouts are the user's (they describe memory the kernel receives).
func.func @global_unknown(%g: !axe.tensor<32xf32, global, ?>) {
  axe.kernel grid [1] threads [32] {
    %r = axe.alloc : !axe.tensor<32xf32, register, ?>
    // expected-error @+1 {{cannot infer a layout: a global tensor's layout is never inferred; give it one (e.g. with axe.view)}}
    axe.copy %g, %r : !axe.tensor<32xf32, global, ?>, !axe.tensor<32xf32, register, ?>
  }
  return
}

// -----

// f32 x f32 has no mma.sync m16n8k16 atom.
func.func @no_atom(%a: !axe.tensor<16x16xf32, shared, #axe.layout<(16, 16) : (16, 1)>>, %b: !axe.tensor<16x8xf32, shared, #axe.layout<(16, 8) : (8, 1)>>) {
  axe.kernel grid [1] threads [32] {
    %c = axe.alloc : !axe.tensor<16x8xf32, register, ?>
    // expected-error @+1 {{no tensor-core atom for f32 inputs with a f32 accumulator (mma.sync m16n8k16 takes f16/bf16 into f32; wgmma also takes FP8 into f32, on an sm_90a target with A and B in shared memory)}}
    axe.gemm %a, %b, %c : !axe.tensor<16x16xf32, shared, #axe.layout<(16, 16) : (16, 1)>>, !axe.tensor<16x8xf32, shared, #axe.layout<(16, 8) : (8, 1)>>, !axe.tensor<16x8xf32, register, ?>
  }
  return
}

// -----

// 24 is not a multiple of the atom's 16 rows.
func.func @untileable(%a: !axe.tensor<24x16xf16, shared, #axe.layout<(24, 16) : (16, 1)>>, %b: !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>) {
  axe.kernel grid [1] threads [32] {
    %c = axe.alloc : !axe.tensor<24x8xf32, register, ?>
    // expected-error @+1 {{a 24x8x16 gemm cannot be tiled by the mma.sync m16n8k16 atom}}
    axe.gemm %a, %b, %c : !axe.tensor<24x16xf16, shared, #axe.layout<(24, 16) : (16, 1)>>, !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>, !axe.tensor<24x8xf32, register, ?>
  }
  return
}

// -----

// 4 warps cannot share a single 16x8 atom.
func.func @too_many_warps(%a: !axe.tensor<16x16xf16, shared, #axe.layout<(16, 16) : (16, 1)>>, %b: !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>) {
  axe.kernel grid [1] threads [128] {
    %c = axe.alloc : !axe.tensor<16x8xf32, register, ?>
    // expected-error @+1 {{4 warps cannot be arranged over the 1x1 atom grid of a 16x8 accumulator}}
    axe.gemm %a, %b, %c : !axe.tensor<16x16xf16, shared, #axe.layout<(16, 16) : (16, 1)>>, !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>, !axe.tensor<16x8xf32, register, ?>
  }
  return
}

// -----

// A user-given accumulator layout that is not the atom's. (The atom's C fragment
// (2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg) prints canonically: its lane iters chain.)
func.func @accumulator_conflict(%a: !axe.tensor<16x16xf16, shared, #axe.layout<(16, 16) : (16, 1)>>, %b: !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>) {
  axe.kernel grid [1] threads [32] {
    %c = axe.alloc : !axe.tensor<16x8xf32, register, #axe.layout<(16, 8) : (1@reg, 1@lane)>>
    // expected-error @+1 {{the accumulator's layout (16, 8) : (1@reg, 1@lane) is not the mma.sync m16n8k16 layout (2, 32, 2) : (2@reg, 1@lane, 1@reg) this gemm needs}}
    axe.gemm %a, %b, %c : !axe.tensor<16x16xf16, shared, #axe.layout<(16, 16) : (16, 1)>>, !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>, !axe.tensor<16x8xf32, register, #axe.layout<(16, 8) : (1@reg, 1@lane)>>
  }
  return
}

// -----

// An inferred layout cannot be written into a tensor that escapes to func.return.
func.func @escapes(%g: !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>) -> !axe.tensor<32xf32, global, ?> {
  // expected-error @+1 {{inferred layout (32) : (1) cannot be written: the tensor is used by 'func.return', whose types would change}}
  %s = axe.slice %g [0 : 32] : !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>> to !axe.tensor<32xf32, global, ?>
  return %s : !axe.tensor<32xf32, global, ?>
}

// -----

// Refused: FP8 on a target without wgmma (sm_90: no mma.sync atom takes FP8 here).
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @fp8_without_wgmma() {
    axe.kernel grid [1] threads [128] {
      %a = axe.alloc : !axe.tensor<64x64xf8E4M3FN, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<2, 4, 3>>
      %b = axe.alloc : !axe.tensor<64x64xf8E4M3FN, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<2, 4, 3>>
      %c = axe.alloc : !axe.tensor<64x64xf32, register, ?>
      // expected-error@+1 {{no tensor-core atom for f8E4M3FN inputs with a f32 accumulator (mma.sync m16n8k16 takes f16/bf16 into f32; wgmma also takes FP8 into f32, on an sm_90a target with A and B in shared memory)}}
      axe.gemm %a, %b, %c {transpose_b} : !axe.tensor<64x64xf8E4M3FN, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<2, 4, 3>>, !axe.tensor<64x64xf8E4M3FN, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<2, 4, 3>>, !axe.tensor<64x64xf32, register, ?>
    }
    return
  }
}
