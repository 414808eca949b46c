// axe-infer-layout on real kernels. Every expected layout below was derived by hand from
// its definition (noted per case), not copied from the pass's output.
// RUN: axe-opt %s --axe-infer-layout --split-input-file | FileCheck %s
// RUN: axe-opt %s --axe-infer-layout --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// Idempotent: inferring again changes nothing, and the result verifies.
// RUN: axe-opt %s --axe-infer-layout --split-input-file | axe-opt --axe-infer-layout --split-input-file | FileCheck %s

// GEMM main loop, 4 warps, C = 64x32 f32. Anchor: mma.sync m16n8k16 tiled over a 2x2 warp
// grid. From the PTX ISA C fragment (row 8h + g, col 2q + b, lane 4g + q, reg 2h + b) and
// atom rows ti = 2 rm + wm, atom cols tj = 2 rn + wn, warp = 2 wm + wn,
// reg = 4 (2 rm + rn) + 2h + b: i = (rm, wm, h, g), j = (rn, wn, q, b).
// Shared tiles: row-major like the global ones. For A (rows of 64 f16 = 8 vectors of 16 bytes)
// Swizzle<3, 3, 3> (chunk ^= row mod 8) removes the bank conflicts of the fragment reads as well
// as padding rows to 72 would, without wasting memory, so it wins the tie; B's rows hold only 4
// vectors, where a 2-bit swizzle does not help and a padding by one vector (40) does.
// CHECK-LABEL: func.func @gemm
// CHECK: %[[SA:.*]] = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
// CHECK: %[[SB:.*]] = axe.alloc : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (40, 1)>>
// CHECK: %[[ACC:.*]] = axe.alloc : !axe.tensor<64x32xf32, register, #axe.layout<(2, 2, 2, 8, 2, 2, 4, 2) : (8@reg, 2@warp, 2@reg, 4@lane, 4@reg, 1@warp, 1@lane, 1@reg)>>
// CHECK: axe.gemm %[[SA]], %[[SB]], %[[ACC]]
// REMARK: remark: shared layout (64, 64) : (64, 1) with Swizzle<3, 3, 3> chosen for operand of shape [64, 64]: 48 bank wavefronts
// REMARK: remark: shared layout (64, 32) : (40, 1) chosen for operand of shape [64, 32]: 32 bank wavefronts
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @gemm(%ga: memref<4096xf16>, %gb: memref<2048xf16>, %gc: memref<2048xf32>) {
    %A = axe.view %ga : memref<4096xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
    %B = axe.view %gb : memref<2048xf16> to !axe.tensor<64x32xf16, global, #axe.layout<(64, 32) : (32, 1)>>
    %C = axe.view %gc : memref<2048xf32> to !axe.tensor<64x32xf32, global, #axe.layout<(64, 32) : (32, 1)>>
    axe.kernel grid [1] threads [128] {
      %sa = axe.alloc : !axe.tensor<64x64xf16, shared, ?>
      %sb = axe.alloc : !axe.tensor<64x32xf16, shared, ?>
      %acc = axe.alloc : !axe.tensor<64x32xf32, register, ?>
      %z = arith.constant 0.0 : f32
      axe.fill %acc, %z : !axe.tensor<64x32xf32, register, ?>, f32
      axe.copy %A, %sa : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, shared, ?>
      axe.copy %B, %sb : !axe.tensor<64x32xf16, global, #axe.layout<(64, 32) : (32, 1)>>, !axe.tensor<64x32xf16, shared, ?>
      axe.barrier cta
      axe.gemm %sa, %sb, %acc : !axe.tensor<64x64xf16, shared, ?>, !axe.tensor<64x32xf16, shared, ?>, !axe.tensor<64x32xf32, register, ?>
      axe.copy %acc, %C : !axe.tensor<64x32xf32, register, ?>, !axe.tensor<64x32xf32, global, #axe.layout<(64, 32) : (32, 1)>>
    }
    return
  }
}

// -----

// Softmax row reduce, 4 warps, 64x128 f32 row-major: no gemm, so the copy anchors.
// 16-byte accesses = 4 f32 (reg), 128 / 4 = 32 vectors per row = 32 lanes across a row,
// 4 warps down the rows, 16 rows repeated in registers: (16, 4, 32, 4) : (4@reg, 1@warp,
// 1@lane, 1@reg). The row statistics project the columns away: the lanes that held a row
// all hold its result (replica over 32 lanes), the column registers disappear.
// CHECK-LABEL: func.func @softmax
// CHECK: %[[X:.*]] = axe.alloc : !axe.tensor<64x128xf32, register, #axe.layout<(16, 4, 32, 4) : (4@reg, 1@warp, 1@lane, 1@reg)>>
// CHECK: %[[M:.*]] = axe.alloc : !axe.tensor<64x1xf32, register, #axe.layout<(16, 4) : (4@reg, 1@warp) + [(32) : (1@lane)]>>
// CHECK: %[[S:.*]] = axe.alloc : !axe.tensor<64x1xf32, register, #axe.layout<(16, 4) : (4@reg, 1@warp) + [(32) : (1@lane)]>>
// CHECK: axe.reduce max %[[X]], %[[M]] dims [1]
// CHECK: axe.binary sub %[[X]], %[[M]], %[[X]]
// CHECK-NOT: axe.convert_layout
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @softmax(%gx: memref<8192xf32>, %gy: memref<8192xf32>) {
    %X = axe.view %gx : memref<8192xf32> to !axe.tensor<64x128xf32, global, #axe.layout<(64, 128) : (128, 1)>>
    %Y = axe.view %gy : memref<8192xf32> to !axe.tensor<64x128xf32, global, #axe.layout<(64, 128) : (128, 1)>>
    axe.kernel grid [1] threads [128] {
      %x = axe.alloc : !axe.tensor<64x128xf32, register, ?>
      %m = axe.alloc : !axe.tensor<64x1xf32, register, ?>
      %s = axe.alloc : !axe.tensor<64x1xf32, register, ?>
      axe.copy %X, %x : !axe.tensor<64x128xf32, global, #axe.layout<(64, 128) : (128, 1)>>, !axe.tensor<64x128xf32, register, ?>
      axe.reduce max %x, %m dims [1] : !axe.tensor<64x128xf32, register, ?>, !axe.tensor<64x1xf32, register, ?>
      axe.binary sub %x, %m, %x : !axe.tensor<64x128xf32, register, ?>, !axe.tensor<64x1xf32, register, ?>, !axe.tensor<64x128xf32, register, ?>
      axe.unary exp %x, %x : !axe.tensor<64x128xf32, register, ?>, !axe.tensor<64x128xf32, register, ?>
      axe.reduce sum %x, %s dims [1] : !axe.tensor<64x128xf32, register, ?>, !axe.tensor<64x1xf32, register, ?>
      axe.binary div %x, %s, %x : !axe.tensor<64x128xf32, register, ?>, !axe.tensor<64x1xf32, register, ?>, !axe.tensor<64x128xf32, register, ?>
      axe.copy %x, %Y : !axe.tensor<64x128xf32, register, ?>, !axe.tensor<64x128xf32, global, #axe.layout<(64, 128) : (128, 1)>>
    }
    return
  }
}

// -----

// FlashAttention, one warp per 16 query rows: S = Q K^T (16x64), row max, P = exp(S - m),
// O += P V. S is the C fragment over 8 atom columns: reg = 4 rn + 2h + b, col = 8 rn + 2q + b.
// P (f16, by the cast) is then the A operand of P V; the A fragment over 4 k-atoms has
// reg = 8 rk + 4j + 2h + b, col = 16 rk + 8j + 2q + b — with rn = 2 rk + j the same map, so
// FlashAttention-2's register reuse needs no conversion.
// CHECK-LABEL: func.func @flash_attention
// CHECK: %[[S:.*]] = axe.alloc : !axe.tensor<16x64xf32, register, #axe.layout<(2, 8, 8, 4, 2) : (2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
// CHECK: %[[P:.*]] = axe.alloc : !axe.tensor<16x64xf16, register, #axe.layout<(2, 8, 8, 4, 2) : (2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
// CHECK: %[[O:.*]] = axe.alloc : !axe.tensor<16x64xf32, register, #axe.layout<(2, 8, 8, 4, 2) : (2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
// CHECK: %[[MX:.*]] = axe.alloc : !axe.tensor<16x1xf32, register, #axe.layout<(2, 8) : (2@reg, 4@lane) + [(4) : (1@lane)]>>
// CHECK-NOT: axe.convert_layout
// CHECK: axe.gemm %{{.*}}, %{{.*}}, %[[S]] {transpose_b}
// CHECK: axe.cast %[[S]], %[[P]]
// CHECK: axe.gemm %[[P]], %{{.*}}, %[[O]]
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @flash_attention() {
    axe.kernel grid [1] threads [128] {
      %q = axe.alloc : !axe.tensor<16x64xf16, shared, #axe.layout<(16, 64) : (72, 1)>>
      %k = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (72, 1)>>
      %v = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (72, 1)>>
      axe.scope warp [0 : 1] {
        %s = axe.alloc : !axe.tensor<16x64xf32, register, ?>
        %p = axe.alloc : !axe.tensor<16x64xf16, register, ?>
        %o = axe.alloc : !axe.tensor<16x64xf32, register, ?>
        %mx = axe.alloc : !axe.tensor<16x1xf32, register, ?>
        %z = arith.constant 0.0 : f32
        axe.fill %s, %z : !axe.tensor<16x64xf32, register, ?>, f32
        axe.fill %o, %z : !axe.tensor<16x64xf32, register, ?>, f32
        axe.gemm %q, %k, %s {transpose_b} : !axe.tensor<16x64xf16, shared, #axe.layout<(16, 64) : (72, 1)>>, !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (72, 1)>>, !axe.tensor<16x64xf32, register, ?>
        axe.reduce max %s, %mx dims [1] : !axe.tensor<16x64xf32, register, ?>, !axe.tensor<16x1xf32, register, ?>
        axe.binary sub %s, %mx, %s : !axe.tensor<16x64xf32, register, ?>, !axe.tensor<16x1xf32, register, ?>, !axe.tensor<16x64xf32, register, ?>
        axe.unary exp %s, %s : !axe.tensor<16x64xf32, register, ?>, !axe.tensor<16x64xf32, register, ?>
        axe.cast %s, %p : !axe.tensor<16x64xf32, register, ?>, !axe.tensor<16x64xf16, register, ?>
        axe.gemm %p, %v, %o : !axe.tensor<16x64xf16, register, ?>, !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (72, 1)>>, !axe.tensor<16x64xf32, register, ?>
      }
    }
    return
  }
}

// -----

// Layernorm over 32x256 f32 rows with 8 warps. x: 4-f32 vectors, 32 lanes and 2 warps across
// a row (64 vectors), 4 warps down the rows, 8 rows in registers:
// (8, 4, 2, 32, 4) : (4@reg, 2@warp, 1@warp, 1@lane, 1@reg), whose warp iters chain into
// (8 : 1@warp) in canonical form. gamma (1x256) is consumed by
// `x * gamma`, an exact constraint, so it takes the projection of x's layout over the rows
// (the 4 row-warps become replicas) instead of a layout of its own copy — no conversion.
// CHECK-LABEL: func.func @layernorm
// CHECK: %[[X:.*]] = axe.alloc : !axe.tensor<32x256xf32, register, #axe.layout<(8, 8, 32, 4) : (4@reg, 1@warp, 1@lane, 1@reg)>>
// CHECK: %[[G:.*]] = axe.alloc : !axe.tensor<1x256xf32, register, #axe.layout<(2, 32, 4) : (1@warp, 1@lane, 1@reg) + [(4) : (2@warp)]>>
// CHECK: %[[MU:.*]] = axe.alloc : !axe.tensor<32x1xf32, register, #axe.layout<(8, 4) : (4@reg, 2@warp) + [(32, 2) : (1@lane, 1@warp)]>>
// CHECK-NOT: axe.convert_layout
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @layernorm(%gx: memref<8192xf32>, %gg: memref<256xf32>, %gy: memref<8192xf32>) {
    %X = axe.view %gx : memref<8192xf32> to !axe.tensor<32x256xf32, global, #axe.layout<(32, 256) : (256, 1)>>
    %Gm = axe.view %gg : memref<256xf32> to !axe.tensor<1x256xf32, global, #axe.layout<(1, 256) : (256, 1)>>
    %Y = axe.view %gy : memref<8192xf32> to !axe.tensor<32x256xf32, global, #axe.layout<(32, 256) : (256, 1)>>
    axe.kernel grid [1] threads [256] {
      %x = axe.alloc : !axe.tensor<32x256xf32, register, ?>
      %g = axe.alloc : !axe.tensor<1x256xf32, register, ?>
      %mu = axe.alloc : !axe.tensor<32x1xf32, register, ?>
      %var = axe.alloc : !axe.tensor<32x1xf32, register, ?>
      %sq = axe.alloc : !axe.tensor<32x256xf32, register, ?>
      axe.copy %X, %x : !axe.tensor<32x256xf32, global, #axe.layout<(32, 256) : (256, 1)>>, !axe.tensor<32x256xf32, register, ?>
      axe.copy %Gm, %g : !axe.tensor<1x256xf32, global, #axe.layout<(1, 256) : (256, 1)>>, !axe.tensor<1x256xf32, register, ?>
      axe.reduce sum %x, %mu dims [1] : !axe.tensor<32x256xf32, register, ?>, !axe.tensor<32x1xf32, register, ?>
      axe.binary sub %x, %mu, %x : !axe.tensor<32x256xf32, register, ?>, !axe.tensor<32x1xf32, register, ?>, !axe.tensor<32x256xf32, register, ?>
      axe.binary mul %x, %x, %sq : !axe.tensor<32x256xf32, register, ?>, !axe.tensor<32x256xf32, register, ?>, !axe.tensor<32x256xf32, register, ?>
      axe.reduce sum %sq, %var dims [1] : !axe.tensor<32x256xf32, register, ?>, !axe.tensor<32x1xf32, register, ?>
      axe.unary rsqrt %var, %var : !axe.tensor<32x1xf32, register, ?>, !axe.tensor<32x1xf32, register, ?>
      axe.binary mul %x, %var, %x : !axe.tensor<32x256xf32, register, ?>, !axe.tensor<32x1xf32, register, ?>, !axe.tensor<32x256xf32, register, ?>
      axe.binary mul %x, %g, %x : !axe.tensor<32x256xf32, register, ?>, !axe.tensor<1x256xf32, register, ?>, !axe.tensor<32x256xf32, register, ?>
      axe.copy %x, %Y : !axe.tensor<32x256xf32, register, ?>, !axe.tensor<32x256xf32, global, #axe.layout<(32, 256) : (256, 1)>>
    }
    return
  }
}

// -----

// Conflict: the second operand of a pointwise op arrives with a different distribution
// (given by the user); a conversion into the destination's layout is inserted.
// CHECK-LABEL: func.func @conflict
// CHECK: %[[A:.*]] = axe.alloc : !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@lane, 1@reg)>>
// CHECK: %[[B:.*]] = axe.alloc : !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@reg, 1@lane)>>
// CHECK: %[[FRESH:.*]] = axe.alloc : !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@lane, 1@reg)>>
// CHECK: axe.convert_layout %[[B]], %[[FRESH]]
// CHECK: axe.binary add %[[A]], %[[FRESH]], %[[A]]
// REMARK: remark: layout conflict on operand #1: (32, 4) : (1@reg, 1@lane) vs (32, 4) : (1@lane, 1@reg) (the destination's distribution); inserted axe.convert_layout
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @conflict() {
    axe.kernel grid [1] threads [32] {
      %a = axe.alloc : !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@lane, 1@reg)>>
      %b = axe.alloc : !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@reg, 1@lane)>>
      axe.binary add %a, %b, %a : !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@lane, 1@reg)>>, !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@reg, 1@lane)>>, !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// sm_90a, A and B in shared memory: a gemm whose accumulator is left to inference becomes a
// wgmma (the m64nNk16 D fragment, warp = row block of 16); one whose accumulator is declared
// as a tiling of the mma.sync m16n8k16 atom keeps it, and the gemm stays on mma.sync (the
// instruction follows the layout, paper §3.4). The declared tiling puts the warpgroup's 4
// warps side by side, each 64 x 16: row 16 i + 8 h + g, col 16 w + 8 j + 2 q + b, lane 4 g + q,
// reg 4 (2 i + j) + 2 h + b, so i = (4 : 8@reg), h = (2 : 2@reg), g = (8 : 4@lane),
// j = (2 : 4@reg), w = (4 : 1@warp), q = (4 : 1@lane), b = (2 : 1@reg).
// CHECK-LABEL: func.func @sm90a_dispatch
// CHECK: %[[W:.*]] = axe.alloc : !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
// CHECK: %[[M:.*]] = axe.alloc : !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 2, 4, 4, 2) : (8@reg, 2@reg, 4@lane, 4@reg, 1@warp, 1@lane, 1@reg)>>
// CHECK: axe.gemm %{{.*}}, %{{.*}}, %[[W]]
// CHECK: axe.gemm %{{.*}}, %{{.*}}, %[[M]]
!mma_acc = !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 2, 4, 4, 2) : (8@reg, 2@reg, 4@lane, 4@reg, 1@warp, 1@lane, 1@reg)>>
!tile = !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @sm90a_dispatch() {
    axe.kernel grid [1] threads [128] {
      %sa = axe.alloc : !tile
      %sb = axe.alloc : !tile
      %w = axe.alloc : !axe.tensor<64x64xf32, register, ?>
      %m = axe.alloc : !mma_acc
      axe.gemm %sa, %sb, %w : !tile, !tile, !axe.tensor<64x64xf32, register, ?>
      axe.gemm %sa, %sb, %m : !tile, !tile, !mma_acc
    }
    return
  }
}
