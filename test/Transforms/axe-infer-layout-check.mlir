// axe-infer-layout{check-only}: verify layouts without rewriting. Everything the inference
// produces passes the check; each inconsistency below is reported at its op.
// RUN: axe-opt %S/axe-infer-layout.mlir --split-input-file --axe-infer-layout | axe-opt --split-input-file --axe-infer-layout='check-only=true'
// RUN: axe-opt %s --split-input-file --axe-infer-layout='check-only=true' --verify-diagnostics
// An ill-typed option value is refused before the pass runs, with a non-zero exit (the Rust body
// reads `check-only` strictly too: passes/lib.rs, PassOptions::parse).
// RUN: not axe-opt %s --split-input-file --axe-infer-layout='check-only=yes' 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: for the --check-only option: 'yes' is invalid value for boolean argument

func.func @pointwise_mismatch() {
  axe.kernel grid [1] threads [32] {
    %a = axe.alloc : !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@lane, 1@reg)>>
    %b = axe.alloc : !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@reg, 1@lane)>>
    // expected-error @+1 {{operand #1 has layout (32, 4) : (1@reg, 1@lane), but the destination's distribution needs (32, 4) : (1@lane, 1@reg)}}
    axe.binary add %a, %b, %a : !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@lane, 1@reg)>>, !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@reg, 1@lane)>>, !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@lane, 1@reg)>>
  }
  return
}

// -----

// The row max of lanes x regs must be replicated over the 32 lanes that held the row.
func.func @reduce_not_projected() {
  axe.kernel grid [1] threads [32] {
    %x = axe.alloc : !axe.tensor<4x32xf32, register, #axe.layout<(4, 32) : (1@reg, 1@lane)>>
    %m = axe.alloc : !axe.tensor<4x1xf32, register, #axe.layout<(4) : (1@reg)>>
    // expected-error @+1 {{the result's layout (4) : (1@reg) is not the projection (4) : (1@reg) + [(32) : (1@lane)] of the source's layout}}
    axe.reduce max %x, %m dims [1] : !axe.tensor<4x32xf32, register, #axe.layout<(4, 32) : (1@reg, 1@lane)>>, !axe.tensor<4x1xf32, register, #axe.layout<(4) : (1@reg)>>
  }
  return
}

// -----

func.func @slice_wrong(%t: !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>>) {
  // expected-error @+1 {{the slice's layout (8, 16) : (24, 1) is not L[R:S] = (8, 16) : (24, 1) + 8}}
  %s = axe.slice %t [0 : 8, 8 : 24] : !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>> to !axe.tensor<8x16xf16, global, #axe.layout<(8, 16) : (24, 1)>>
  return
}

// -----

func.func @gemm_not_atom(%a: !axe.tensor<16x16xf16, shared, #axe.layout<(16, 16) : (16, 1)>>, %b: !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>) {
  axe.kernel grid [1] threads [32] {
    %c = axe.alloc : !axe.tensor<16x8xf32, register, #axe.layout<(16, 8) : (1@reg, 1@lane)>>
    // expected-error @+1 {{the accumulator's layout (16, 8) : (1@reg, 1@lane) is not the mma.sync m16n8k16 fragment tiled over the 1 warps of this scope}}
    axe.gemm %a, %b, %c : !axe.tensor<16x16xf16, shared, #axe.layout<(16, 16) : (16, 1)>>, !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>, !axe.tensor<16x8xf32, register, #axe.layout<(16, 8) : (1@reg, 1@lane)>>
  }
  return
}

// -----

func.func @still_unknown() {
  axe.kernel grid [1] threads [32] {
    %t = axe.alloc : !axe.tensor<32xf32, register, ?>
    %z = arith.constant 0.0 : f32
    // expected-error @+1 {{operand #0 still has layout '?' (run axe-infer-layout)}}
    axe.fill %t, %z : !axe.tensor<32xf32, register, ?>, f32
  }
  return
}
