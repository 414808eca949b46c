// Refusals of convert-axe-to-gpu, each with a located error: tensor maps and TMA boxes, the
// fragments of mma.sync and the descriptors of wgmma, and tensors at function boundaries.
// RUN: axe-opt %s --convert-axe-to-gpu --split-input-file --verify-diagnostics

// A TMA box along a dimension is a suffix product of its iters: a tile of 48 elements does not
// divide the dimension's iter of 64.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_tile_part_iter(%buf: memref<512xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<512xf16> to !axe.tensor<256xf16, global, #axe.layout<(4, 64) : (128, 1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<48xf16, shared, #axe.layout<(48) : (1)>>
      %g = axe.slice %G [0 : 48] : !axe.tensor<256xf16, global, #axe.layout<(4, 64) : (128, 1)>> to !axe.tensor<48xf16, global, #axe.layout<(48) : (1)>>
      // expected-error @+1 {{'axe.copy' op the TMA source tile [48] of layout (4, 64) : (128, 1): 48 elements along dimension 0 do not divide its iter of 64}}
      axe.copy %g, %s schedule tma : !axe.tensor<48xf16, global, #axe.layout<(48) : (1)>>, !axe.tensor<48xf16, shared, #axe.layout<(48) : (1)>>
    }
    return
  }
}

// -----

// With the 128-byte swizzle a box row is 64 consecutive f16 of the shared tile: a
// column-major shared tile has none along the source's contiguous dimension.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_swizzle_row_strided(%buf: memref<4096xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<4096xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (1, 64)>, #axe.swizzle<3, 3, 3>>
      // expected-error @+1 {{'axe.copy' op the TMA destination layout (64, 64) : (1, 64) cannot be written by TMA boxes: its first 64 elements along the contiguous dimension are not consecutive}}
      axe.copy %G, %s schedule tma : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (1, 64)>, #axe.swizzle<3, 3, 3>>
    }
    return
  }
}

// -----

// Without a swizzle a box row is a consecutive run of a multiple of 16 bytes: a column-major
// shared tile has no such run along the source's contiguous dimension.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_no_run(%buf: memref<4096xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<4096xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (1, 64)>>
      // expected-error @+1 {{'axe.copy' op the TMA destination layout (64, 64) : (1, 64) cannot be written by TMA boxes: no run of a multiple of 16 bytes along the contiguous dimension is consecutive}}
      axe.copy %G, %s schedule tma : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (1, 64)>>
    }
    return
  }
}

// -----

// Every box of the tile is one consecutive shared run: boxes of 8 f16 (16 bytes) over shared
// rows of 12 elements leave the box at 8 straddling two rows.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_box_straddles(%buf: memref<48xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<48xf16> to !axe.tensor<48xf16, global, #axe.layout<(48) : (1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<48xf16, shared, #axe.layout<(4, 12) : (100, 1)>>
      // expected-error @+1 {{'axe.copy' op the TMA destination layout (4, 12) : (100, 1) cannot be written by TMA boxes: the box [8] at [8] is not one consecutive run}}
      axe.copy %G, %s schedule tma : !axe.tensor<48xf16, global, #axe.layout<(48) : (1)>>, !axe.tensor<48xf16, shared, #axe.layout<(4, 12) : (100, 1)>>
    }
    return
  }
}

// -----

// A tensor map addresses each element once: a source layout with replicas is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_source_replicas(%buf: memref<512xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<512xf16> to !axe.tensor<256xf16, global, #axe.layout<(256) : (1) + [(2) : (256)]>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
      // expected-error @+1 {{'axe.copy' op the TMA source's layout (256) : (1) + [(2) : (256)] is not a tensor map: it has replicas}}
      axe.copy %G, %s schedule tma : !axe.tensor<256xf16, global, #axe.layout<(256) : (1) + [(2) : (256)]>>, !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
    }
    return
  }
}

// -----

// Every iter of a tensor map is a positive stride of memory: a source iter on the cta axis is
// refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_source_cta_iter(%buf: memref<128xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<128xf16> to !axe.tensor<2x128xf16, global, #axe.layout<(2, 128) : (1@cta, 1)>>
    axe.kernel grid [2] threads [128] {
      %s = axe.alloc : !axe.tensor<2x128xf16, shared, #axe.layout<(2, 128) : (128, 1)>>
      // expected-error @+1 {{'axe.copy' op the TMA source's layout (2, 128) : (1@cta, 1) is not a tensor map: dimension 0 has iter 2:1@cta}}
      axe.copy %G, %s schedule tma : !axe.tensor<2x128xf16, global, #axe.layout<(2, 128) : (1@cta, 1)>>, !axe.tensor<2x128xf16, shared, #axe.layout<(2, 128) : (128, 1)>>
    }
    return
  }
}

// -----

// A tensor map has 1 to 5 dimensions, one per iter: a source layout of 6 iters is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_six_dims(%buf: memref<8192xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<8192xf16> to !axe.tensor<256xf16, global, #axe.layout<(2, 2, 2, 2, 2, 8) : (4096, 1024, 256, 64, 16, 1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
      // expected-error @+1 {{'axe.copy' op the TMA source's layout (2, 2, 2, 2, 2, 8) : (4096, 1024, 256, 64, 16, 1) is not a tensor map: 6 iters (a tensor map has 1 to 5 dimensions)}}
      axe.copy %G, %s schedule tma : !axe.tensor<256xf16, global, #axe.layout<(2, 2, 2, 2, 2, 8) : (4096, 1024, 256, 64, 16, 1)>>, !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
    }
    return
  }
}

// -----

// A register operand of mma.sync is used as it is: it must have the fragment layout that the
// accumulator's tiling gives it.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @mma_register_a_layout() {
    axe.kernel grid [1] threads [32] {
      %a = axe.alloc : !axe.tensor<16x16xf16, register, #axe.layout<(8, 2, 4, 4) : (4@lane, 8@reg, 1@lane, 1@reg)>>
      %b = axe.alloc : !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>
      %c = axe.alloc : !axe.tensor<16x8xf32, register, #axe.layout<(2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)>>
      // expected-error @+1 {{'axe.gemm' op register operand A has layout (8, 2, 4, 4) : (4@lane, 8@reg, 1@lane, 1@reg), not the mma.sync fragment layout (2, 8, 2, 4, 2) : (2@reg, 4@lane, 4@reg, 1@lane, 1@reg)}}
      axe.gemm %a, %b, %c : !axe.tensor<16x16xf16, register, #axe.layout<(8, 2, 4, 4) : (4@lane, 8@reg, 1@lane, 1@reg)>>, !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>, !axe.tensor<16x8xf32, register, #axe.layout<(2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// A global tensor at a function boundary is passed as the memref its layout reaches: a layout
// that reaches a negative offset is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  // expected-error @+1 {{'func.func' op the layout of !axe.tensor<32xf32, global, #axe.layout<(32) : (-1)>> reaches the negative offset -31}}
  func.func private @callee_neg(!axe.tensor<32xf32, global, #axe.layout<(32) : (-1)>>)
}

// -----

// A tensor passed to a call is a view of a whole buffer: a slice of a view is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @boundary_slice(%buf: memref<64xf32>) {
    %G = axe.view %buf : memref<64xf32> to !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>
    %S = axe.slice %G [0 : 32] : !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>> to !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>
    // expected-error @+1 {{'func.call' op a tensor that crosses a function boundary must be an axe.view of a buffer (or the function's own tensor argument)}}
    call @callee_s(%S) : (!axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>) -> ()
    return
  }
  func.func private @callee_s(!axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>)
}

// -----

// wgmma descriptors are built at compile time: an A sliced at a run-time origin is refused.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @wgmma_dynamic_a(%i: index) {
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<128x32xf16, shared, #axe.layout<(128, 32) : (32, 1)>>
      %a = axe.slice %s [%i : +64, 0 : 32] : !axe.tensor<128x32xf16, shared, #axe.layout<(128, 32) : (32, 1)>> to !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>>
      %b = axe.alloc : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>>
      %c = axe.alloc : !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
      // expected-error @+1 {{'axe.gemm' op A is a slice at a run-time origin; wgmma descriptors need static shared tiles}}
      axe.gemm %a, %b, %c {transpose_b} : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>>, !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>>, !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// wgmma reads shared operands contiguous along K or along M/N: an A of strides 64 and 2 is
// neither.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @wgmma_strided_a() {
    axe.kernel grid [1] threads [128] {
      %a = axe.alloc : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (64, 2)>>
      %b = axe.alloc : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>>
      %c = axe.alloc : !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
      // expected-error @+1 {{'axe.gemm' op A ((64, 32) : (64, 2)) is contiguous neither along K nor along M/N, as wgmma needs}}
      axe.gemm %a, %b, %c {transpose_b} : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (64, 2)>>, !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>>, !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// A descriptor's byte offsets are multiples of 16: 8-row groups of A 260 f16 apart give a
// stride offset of 520 bytes.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @wgmma_odd_sbo() {
    axe.kernel grid [1] threads [128] {
      %a = axe.alloc : !axe.tensor<64x32xf16, shared, #axe.layout<(8, 8, 32) : (260, 32, 1)>>
      %b = axe.alloc : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>>
      %c = axe.alloc : !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
      // expected-error @+1 {{'axe.gemm' op A ((8, 8, 32) : (260, 32, 1)) needs a descriptor byte offset of 520, not a multiple of 16 in [0, 2^18)}}
      axe.gemm %a, %b, %c {transpose_b} : !axe.tensor<64x32xf16, shared, #axe.layout<(8, 8, 32) : (260, 32, 1)>>, !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>>, !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// A descriptor's start address is 16-byte aligned: an A sliced 4 f16 (8 bytes) into its buffer
// is refused.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @wgmma_misaligned_tile() {
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<64x40xf16, shared, #axe.layout<(64, 40) : (40, 1)>>
      %a = axe.slice %s [0 : 64, 4 : 36] : !axe.tensor<64x40xf16, shared, #axe.layout<(64, 40) : (40, 1)>> to !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (40, 1) + 4>>
      %b = axe.alloc : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>>
      %c = axe.alloc : !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
      // expected-error @+1 {{'axe.gemm' op A tile at (0, 0) starts at byte 8, not 16-byte aligned}}
      axe.gemm %a, %b, %c {transpose_b} : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (40, 1) + 4>>, !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>>, !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
    }
    return
  }
}
