// More of what convert-axe-to-gpu refuses, each with a located error: rules of the gemm,
// reduction, ldmatrix and TMA lowerings, of kernel allocations and scopes, and of the views,
// slices and function boundaries the lowering accepts.
// RUN: axe-opt %s --convert-axe-to-gpu --split-input-file --verify-diagnostics

// wgmma takes f16/bf16 or FP8 A and B into an f32 accumulator: f32 A and B are refused.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @wgmma_f32_inputs() {
    axe.kernel grid [1] threads [128] {
      %a = axe.alloc : !axe.tensor<64x32xf32, shared, #axe.layout<(64, 32) : (32, 1)>>
      %b = axe.alloc : !axe.tensor<64x32xf32, shared, #axe.layout<(64, 32) : (32, 1)>>
      %c = axe.alloc : !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
      // expected-error @+1 {{wgmma lowers f16 or bf16 A and B of the same type, or FP8 (f8E4M3FN, f8E5M2) A and B, into an f32 accumulator (got f32, f32, f32)}}
      axe.gemm %a, %b, %c {transpose_b} : !axe.tensor<64x32xf32, shared, #axe.layout<(64, 32) : (32, 1)>>, !axe.tensor<64x32xf32, shared, #axe.layout<(64, 32) : (32, 1)>>, !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// A 16-bit wgmma consumes K in steps of 16: K = 8 is no multiple of the atom.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @wgmma_short_k() {
    axe.kernel grid [1] threads [128] {
      %a = axe.alloc : !axe.tensor<64x8xf16, shared, #axe.layout<(64, 8) : (8, 1)>>
      %b = axe.alloc : !axe.tensor<64x8xf16, shared, #axe.layout<(64, 8) : (8, 1)>>
      %c = axe.alloc : !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
      // expected-error @+1 {{a 64x64x8 gemm is not a multiple of the wgmma m64nNk16 atom}}
      axe.gemm %a, %b, %c {transpose_b} : !axe.tensor<64x8xf16, shared, #axe.layout<(64, 8) : (8, 1)>>, !axe.tensor<64x8xf16, shared, #axe.layout<(64, 8) : (8, 1)>>, !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// Without wgmma (sm_90), a gemm lowers to mma.sync, which takes f16/bf16 A and B only.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @mma_f32_inputs() {
    axe.kernel grid [1] threads [32] {
      %a = axe.alloc : !axe.tensor<16x16xf32, shared, #axe.layout<(16, 16) : (16, 1)>>
      %b = axe.alloc : !axe.tensor<16x8xf32, shared, #axe.layout<(16, 8) : (8, 1)>>
      %c = axe.alloc : !axe.tensor<16x8xf32, register, #axe.layout<(2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)>>
      // expected-error @+1 {{mma.sync m16n8k16 takes f16/bf16 A and B and a register f32 accumulator (got f32, f32 and a f32 Register accumulator)}}
      axe.gemm %a, %b, %c : !axe.tensor<16x16xf32, shared, #axe.layout<(16, 16) : (16, 1)>>, !axe.tensor<16x8xf32, shared, #axe.layout<(16, 8) : (8, 1)>>, !axe.tensor<16x8xf32, register, #axe.layout<(2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// axe.reduce is lowered for register tensors only: a shared source is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @reduce_shared_source() {
    axe.kernel grid [1] threads [32] {
      %x = axe.alloc : !axe.tensor<32xf32, shared, #axe.layout<(32) : (1)>>
      %s = axe.alloc : !axe.tensor<f32, register, #axe.layout<() : () + [(32) : (1@lane)]>>
      // expected-error @+1 {{is lowered for register tensors only: copy the source into registers first}}
      axe.reduce sum %x, %s dims [0] : !axe.tensor<32xf32, shared, #axe.layout<(32) : (1)>>, !axe.tensor<f32, register, #axe.layout<() : () + [(32) : (1@lane)]>>
    }
    return
  }
}

// -----

// A reduction across warps synchronizes the CTA: it is refused inside a warpgroup scope.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @reduce_warps_in_warpgroup() {
    axe.kernel grid [1] threads [256] {
      %x = axe.alloc : !axe.tensor<4x32xf32, register, #axe.layout<(4, 32) : (1@warp, 1@lane)>>
      %s = axe.alloc : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane) + [(4) : (1@warp)]>>
      axe.scope warpgroup [0 : 1] {
        // expected-error @+1 {{a reduction across warps must execute at CTA scope (it synchronizes the CTA)}}
        axe.reduce sum %x, %s dims [0] : !axe.tensor<4x32xf32, register, #axe.layout<(4, 32) : (1@warp, 1@lane)>>, !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane) + [(4) : (1@warp)]>>
      }
    }
    return
  }
}

// -----

// A cross-warp reduction needs every thread of the CTA: 2 warps of a 4-warp CTA hold the source.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @reduce_warps_partial_cta() {
    axe.kernel grid [1] threads [128] {
      %x = axe.alloc : !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@warp, 1@lane)>>
      %s = axe.alloc : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane) + [(2) : (1@warp)]>>
      // expected-error @+1 {{cross-warp reduction of layout (2, 32) : (1@warp, 1@lane) needs every thread of the CTA to take part}}
      axe.reduce sum %x, %s dims [0] : !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@warp, 1@lane)>>, !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane) + [(2) : (1@warp)]>>
    }
    return
  }
}

// -----

// A warp-shuffle reduction needs every lane of the warp: this layout covers lanes 0 to 29 only.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @reduce_lanes_partial_warp() {
    axe.kernel grid [1] threads [32] {
      %x = axe.alloc : !axe.tensor<3xf32, register, #axe.layout<(3) : (1@lane) + [(10) : (3@lane)]>>
      %s = axe.alloc : !axe.tensor<f32, register, #axe.layout<() : () + [(3, 10) : (1@lane, 3@lane)]>>
      // expected-error @+1 {{cross-lane reduction of layout (3) : (1@lane) + [(10) : (3@lane)] needs every lane of the warp to take part}}
      axe.reduce sum %x, %s dims [0] : !axe.tensor<3xf32, register, #axe.layout<(3) : (1@lane) + [(10) : (3@lane)]>>, !axe.tensor<f32, register, #axe.layout<() : () + [(3, 10) : (1@lane, 3@lane)]>>
    }
    return
  }
}

// -----

// Kernels allocate shared and register tensors only: a global allocation is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @alloc_global() {
    axe.kernel grid [1] threads [32] {
      // expected-error @+1 {{allocations in memory scope 'global' are not lowered to gpu}}
      %g = axe.alloc : !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>
      %r = axe.alloc : !axe.tensor<64xf32, register, #axe.layout<(2, 32) : (1@reg, 1@lane)>>
      axe.copy %g, %r : !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>, !axe.tensor<64xf32, register, #axe.layout<(2, 32) : (1@reg, 1@lane)>>
    }
    return
  }
}

// -----

// One CTA per launch block: a slice of the CTAs is not lowered.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @cta_slice() {
    axe.kernel grid [2] threads [32] {
      // expected-error @+1 {{a slice of cta scopes is not lowered (a kernel runs one CTA per launch block): slice threads, warps or warpgroups}}
      axe.scope cta [0 : 1] {
      }
    }
    return
  }
}

// -----

// TMA moves 8-, 16-, 32- or 64-bit elements: i4 is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_i4(%buf: memref<256xi4> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<256xi4> to !axe.tensor<256xi4, global, #axe.layout<(256) : (1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<256xi4, shared, #axe.layout<(256) : (1)>>
      // expected-error @+1 {{TMA copies 8-, 16-, 32- or 64-bit elements}}
      axe.copy %G, %s schedule tma : !axe.tensor<256xi4, global, #axe.layout<(256) : (1)>>, !axe.tensor<256xi4, shared, #axe.layout<(256) : (1)>>
    }
    return
  }
}

// -----

// A TMA destination at a run-time origin is refused: its alignment cannot be checked.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_dynamic_destination(%buf: memref<256xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<256xf16> to !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
      %c = arith.constant 0 : index
      %w = axe.slice %s [%c : +128] : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>> to !axe.tensor<128xf16, shared, #axe.layout<(128) : (1)>>
      %g = axe.slice %G [0 : 128] : !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>> to !axe.tensor<128xf16, global, #axe.layout<(128) : (1)>>
      // expected-error @+1 {{a TMA destination with a run-time origin is not supported (its alignment cannot be checked)}}
      axe.copy %g, %w schedule tma : !axe.tensor<128xf16, global, #axe.layout<(128) : (1)>>, !axe.tensor<128xf16, shared, #axe.layout<(128) : (1)>>
    }
    return
  }
}

// -----

// The host builds a TMA tensor map, so the source buffer cannot be allocated inside the kernel.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_source_inside_kernel() {
    axe.kernel grid [1] threads [128] {
      %buf = memref.alloc() {alignment = 16 : i64} : memref<256xf16>
      %G = axe.view %buf : memref<256xf16> to !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>
      %s = axe.alloc : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
      // expected-error @+1 {{the TMA source's memref is defined inside the kernel; the host builds the tensor map, so it must come from outside}}
      axe.copy %G, %s schedule tma : !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>, !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
    }
    return
  }
}

// -----

// ldmatrix reads whole 16-byte rows: a swizzle with base < 3 moves parts of a row.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @ldmatrix_small_swizzle() {
    axe.kernel grid [1] threads [32] {
      %s = axe.alloc : !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>, #axe.swizzle<1, 2, 3>>
      %r = axe.alloc : !axe.tensor<16x8xf16, register, #axe.layout<(2, 4, 2, 8) : (2@reg, 1@lane, 1@reg, 4@lane)>>
      // expected-error @+1 {{cannot copy with ldmatrix: the swizzle #axe.swizzle<1, 2, 3> moves parts of 16-byte rows}}
      axe.copy %s, %r schedule ldmatrix : !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>, #axe.swizzle<1, 2, 3>>, !axe.tensor<16x8xf16, register, #axe.layout<(2, 4, 2, 8) : (2@reg, 1@lane, 1@reg, 4@lane)>>
    }
    return
  }
}

// -----

// ldmatrix is warp-collective: a CTA of 48 threads has a partial warp.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @ldmatrix_partial_warp() {
    axe.kernel grid [1] threads [48] {
      %s = axe.alloc : !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>
      %r = axe.alloc : !axe.tensor<16x8xf16, register, #axe.layout<(2, 4, 2, 8) : (2@reg, 1@lane, 1@reg, 4@lane)>>
      // expected-error @+1 {{cannot copy with ldmatrix: ldmatrix is a warp-collective instruction; it needs whole warps}}
      axe.copy %s, %r schedule ldmatrix : !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>, !axe.tensor<16x8xf16, register, #axe.layout<(2, 4, 2, 8) : (2@reg, 1@lane, 1@reg, 4@lane)>>
    }
    return
  }
}

// -----

// Layouts address a buffer linearly: a view of a strided (non-identity) 2-d memref is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @strided_memref(%buf: memref<8x8xf32, strided<[16, 1]>>) {
    // expected-error @+1 {{convert-axe-to-gpu lowers views of rank-1 memrefs, or of memrefs with the identity layout (row-major, contiguous), only (got memref<8x8xf32, strided<[16, 1]>>)}}
    %G = axe.view %buf : memref<8x8xf32, strided<[16, 1]>> to !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>
    axe.kernel grid [1] threads [32] {
      %r = axe.alloc : !axe.tensor<64xf32, register, #axe.layout<(2, 32) : (1@reg, 1@lane)>>
      axe.copy %G, %r : !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>, !axe.tensor<64xf32, register, #axe.layout<(2, 32) : (1@reg, 1@lane)>>
    }
    return
  }
}

// -----

// A {clip} tile is not sliced further: slice the tensor itself.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @slice_of_clipped_tile(%y: memref<120xf32>) {
    %Y = axe.view %y : memref<120xf32> to !axe.tensor<10x12xf32, global, #axe.layout<(10, 12) : (12, 1)>>
    axe.kernel grid [2] threads [32] {
      %c = axe.unit_id cta
      %c8 = arith.constant 8 : index
      %o = arith.muli %c, %c8 : index
      %d = axe.slice %Y [%o : +8, 0 : 12] {clip} : !axe.tensor<10x12xf32, global, #axe.layout<(10, 12) : (12, 1)>> to !axe.tensor<8x12xf32, global, #axe.layout<(8, 12) : (12, 1)>>
      // expected-error @+1 {{a slice of a partial tile ({clip} or 'until') is not lowered: slice the tensor itself}}
      %e = axe.slice %d [0 : 4, 0 : 12] : !axe.tensor<8x12xf32, global, #axe.layout<(8, 12) : (12, 1)>> to !axe.tensor<4x12xf32, global, #axe.layout<(4, 12) : (12, 1)>>
      %r = axe.alloc : !axe.tensor<4x12xf32, register, #axe.layout<(4, 12) : (1@reg, 1@lane)>>
      axe.copy %e, %r : !axe.tensor<4x12xf32, global, #axe.layout<(4, 12) : (12, 1)>>, !axe.tensor<4x12xf32, register, #axe.layout<(4, 12) : (1@reg, 1@lane)>>
    }
    return
  }
}

// -----

// A global tensor crosses a function boundary on the memory axis only: one replicated over
// CTAs is refused at the function that declares it.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @boundary_cta_axis(%buf: memref<64xf32>) {
    %G = axe.view %buf : memref<64xf32> to !axe.tensor<64xf32, global, #axe.layout<(2, 32) : (32, 1) + [(2) : (1@cta)]>>
    call @callee(%G) : (!axe.tensor<64xf32, global, #axe.layout<(2, 32) : (32, 1) + [(2) : (1@cta)]>>) -> ()
    return
  }
  // expected-error @+1 {{uses axis 'cta'; at a function boundary it must live on the memory axis (and gpuid, across a mesh) only}}
  func.func private @callee(!axe.tensor<64xf32, global, #axe.layout<(2, 32) : (32, 1) + [(2) : (1@cta)]>>)
}
