// Figure 3 of the Axe paper (§3, "Axe compiler overview"): a GEMM kernel in the Axe DSL,
// written here in Axe IR. C[128x128] = A[128x128] · B[128x128], f16 inputs, f32 accumulation,
// f16 output, one CTA of 128 threads (4 warps as a 2x2 grid, each owning a 64x64 part of C),
// K tiles of 32 through a three-stage cp.async pipeline (prologue, main loop, epilogue).
//
// How the paper's Python-like DSL maps to the ops:
//   kernel launch / `with cta:`            -> axe.kernel grid [1] threads [128] { ... } (CTA scope)
//   `with warp:` (inside gemm_warp)        -> axe.scope warp [0 : 1] { ... } in @mma_m16n8k16_atom
//   global buffers A, B, C                 -> func arguments (memrefs, 16-byte aligned as
//                                             cudaMalloc gives: {axe.align = 16}) + axe.view
//                                             with row-major layouts (128, 128) : (128, 1)
//   shared/register tensor allocations     -> axe.alloc (the paper omits these lines; they are
//                                             written out here, with their layouts)
//   pipeline stage `sA[stage]`             -> axe.slice of a 3-stage shared ring buffer, with the
//                                             slice layout L[R:S] written out (+ 4096 * stage on m)
//   `load(...)` macro / copy.async          -> axe.slice of the global tile + axe.copy async ...
//                                             schedule cp_async, returning an !axe.token
//   cp.async wait + __syncthreads()        -> axe.wait %tokens ; axe.barrier cta (omitted in the
//                                             figure for brevity, written out here)
//   `gemm_warp(...)` macro                  -> axe.gemm at CTA scope on a CTA-collective accumulator
//                                             whose layout's warp iters name each warp's 64x64 part
//                                             (a register tensor with a warp axis cannot be used at
//                                             warp scope: the verifier rejects it, so the per-warp
//                                             issue of gemm_warp is implied by the layout)
//   accumulator fragment (Fig. 3 right,    -> register layout = tile((2,2) warps, tile((4,8) atoms
//   "tile a register tile with lane")         over reg, m16n8k16 C fragment)); see @mma_m16n8k16_atom
//   `for k in range(K // 32)` main loop    -> unrolled (static K = 128: 4 tiles; 2 in the prologue,
//                                             2 main-loop iterations, 2 epilogue steps), because
//                                             axe.slice only takes static bounds
//   final store of C                        -> axe.cast (f32 -> f16) + axe.copy to the global view
//
// Layouts (all checked by `axe-layout`):
//   global A/B/C   (128, 128) : (128, 1)                      canonical (16384) : (1)
//   global A tile  A[0:128, 32k:32k+32] = (128, 32) : (128, 1) + 32k   (already canonical)
//   global B tile  B[32k:32k+32, 0:128] = (32, 128) : (128, 1) + 4096k canonical (4096) : (1) + 4096k
//   shared ring    (384, 32) : (32, 1), (96, 128) : (128, 1)  canonical (12288) : (1)
//   shared stage s (128, 32) : (32, 1) + 4096s etc.           canonical (4096) : (1) + 4096s
//   m16n8k16 C fragment (16x8):  (2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)
//     (c0..c3 of lane 4g+t hold (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1) -- PTX ISA)
//   warp view (64x64)  = tile((4, 8) : (8@reg, 1@reg), C fragment)
//                      = (4, 2, 8, 8, 4, 2) : (32@reg, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)
//   CTA accumulator    = tile((2, 2) : (2@warp, 1@warp), warp view)
//                      = (2, 4, 2, 8, 2, 8, 4, 2) : (2@warp, 32@reg, 2@reg, 4@lane, 1@warp, 4@reg, 1@lane, 1@reg)
//     (no adjacent pair of iters on one axis, so D0/D1 leave it unchanged; the lone C fragment
//      does canonicalize: 8:4@lane, 4:1@lane chain into 32:1@lane)

// RUN: axe-opt %s | FileCheck %s
// RUN: axe-opt %s | axe-opt | FileCheck %s
// RUN: axe-opt %s --mlir-print-op-generic | axe-opt | FileCheck %s
// RUN: axe-opt %s --axe-canonicalize | FileCheck %s --check-prefix=CANON
// It lowers to PTX; the mma.sync dispatch derives each warp's A and B fragments from the
// accumulator's layout (a 2x2 grid of 64x64 blocks, not the cyclic warp grid
// axe-infer-layout would pick). Per warp and gemm: 4 m-atoms x 8 n-atoms x 2 k-steps = 64
// mma.sync, 4 gemms; A fragments by ldmatrix.x4, B by ldmatrix.x4.trans (two n8 atoms each); the tiles by cp.async.
// RUN: rm -rf %t && mkdir -p %t
// RUN: axe-opt %s --axe-to-nvvm-pipeline=chip=sm_80 | axe-translate --axe-to-launch-manifest | %python %S/../Target/GPU/Inputs/manifest_summary.py %t | FileCheck %s --check-prefix=MANIFEST
// RUN: FileCheck %s --check-prefix=PTX < %t/gemm_kernel.ptx
// MANIFEST: "entry": "gemm_kernel"
// MANIFEST-SAME: "grid": [1, 1, 1]
// MANIFEST-SAME: "params": [{"align": 16, "arg": 0, "dtype": "f16", "extent": 16384, "kind": "buffer"}, {"align": 16, "arg": 1, "dtype": "f16", "extent": 16384, "kind": "buffer"}, {"align": 16, "arg": 2, "dtype": "f16", "extent": 16384, "kind": "buffer"}]
// PTX: .visible .entry gemm_kernel(
// PTX-COUNT-256: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-NOT: mma.sync
// PTX-NOT: .local

// CHECK: module attributes {axe.target = #axe.target<"sm_80">}
// CHECK-LABEL: func.func @gemm
// CHECK-SAME: (%[[GA:.*]]: memref<16384xf16> {axe.align = 16 : i64}, %[[GB:.*]]: memref<16384xf16> {axe.align = 16 : i64}, %[[GC:.*]]: memref<16384xf16> {axe.align = 16 : i64})
// CHECK: %[[A:.*]] = axe.view %[[GA]] : memref<16384xf16> to !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>
// CHECK: %[[B:.*]] = axe.view %[[GB]] : memref<16384xf16> to !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>
// CHECK: %[[C:.*]] = axe.view %[[GC]] : memref<16384xf16> to !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>
// CHECK: axe.kernel grid [1] threads [128] {
// CHECK: %[[SA:.*]] = axe.alloc : !axe.tensor<384x32xf16, shared, #axe.layout<(384, 32) : (32, 1)>>
// CHECK: %[[SB:.*]] = axe.alloc : !axe.tensor<96x128xf16, shared, #axe.layout<(96, 128) : (128, 1)>>
// CHECK: %[[SA0:.*]] = axe.slice %[[SA]] [0 : 128, 0 : 32] : {{.*}} to !axe.tensor<128x32xf16, shared, #axe.layout<(128, 32) : (32, 1)>>
// CHECK: %[[SA1:.*]] = axe.slice %[[SA]] [128 : 256, 0 : 32] : {{.*}} to !axe.tensor<128x32xf16, shared, #axe.layout<(128, 32) : (32, 1) + 4096>>
// CHECK: %[[SA2:.*]] = axe.slice %[[SA]] [256 : 384, 0 : 32] : {{.*}} to !axe.tensor<128x32xf16, shared, #axe.layout<(128, 32) : (32, 1) + 8192>>
// CHECK: %[[SB0:.*]] = axe.slice %[[SB]] [0 : 32, 0 : 128] : {{.*}} to !axe.tensor<32x128xf16, shared, #axe.layout<(32, 128) : (128, 1)>>
// CHECK: %[[SB1:.*]] = axe.slice %[[SB]] [32 : 64, 0 : 128] : {{.*}} to !axe.tensor<32x128xf16, shared, #axe.layout<(32, 128) : (128, 1) + 4096>>
// CHECK: %[[SB2:.*]] = axe.slice %[[SB]] [64 : 96, 0 : 128] : {{.*}} to !axe.tensor<32x128xf16, shared, #axe.layout<(32, 128) : (128, 1) + 8192>>
// CHECK: %[[ACC:.*]] = axe.alloc : !axe.tensor<128x128xf32, register, #axe.layout<(2, 4, 2, 8, 2, 8, 4, 2) : (2@warp, 32@reg, 2@reg, 4@lane, 1@warp, 4@reg, 1@lane, 1@reg)>>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: axe.fill %[[ACC]], %[[ZERO]]
// Prologue.
// CHECK: %[[GA0:.*]] = axe.slice %[[A]] [0 : 128, 0 : 32] : {{.*}} to !axe.tensor<128x32xf16, global, #axe.layout<(128, 32) : (128, 1)>>
// CHECK: %[[GB0:.*]] = axe.slice %[[B]] [0 : 32, 0 : 128] : {{.*}} to !axe.tensor<32x128xf16, global, #axe.layout<(32, 128) : (128, 1)>>
// CHECK: %[[TA0:.*]] = axe.copy async %[[GA0]], %[[SA0]] schedule cp_async : {{.*}} -> !axe.token
// CHECK: %[[TB0:.*]] = axe.copy async %[[GB0]], %[[SB0]] schedule cp_async : {{.*}} -> !axe.token
// CHECK: %[[GA1:.*]] = axe.slice %[[A]] [0 : 128, 32 : 64] : {{.*}} to !axe.tensor<128x32xf16, global, #axe.layout<(128, 32) : (128, 1) + 32>>
// CHECK: %[[GB1:.*]] = axe.slice %[[B]] [32 : 64, 0 : 128] : {{.*}} to !axe.tensor<32x128xf16, global, #axe.layout<(32, 128) : (128, 1) + 4096>>
// CHECK: %[[TA1:.*]] = axe.copy async %[[GA1]], %[[SA1]] schedule cp_async
// CHECK: %[[TB1:.*]] = axe.copy async %[[GB1]], %[[SB1]] schedule cp_async
// Main loop, k = 0: wait, refill stage 2 with tile 2, compute on stage 0.
// CHECK: axe.wait %[[TA0]], %[[TB0]]
// CHECK-NEXT: axe.barrier cta
// CHECK: %[[GA2:.*]] = axe.slice %[[A]] [0 : 128, 64 : 96]
// CHECK: %[[GB2:.*]] = axe.slice %[[B]] [64 : 96, 0 : 128]
// CHECK: %[[TA2:.*]] = axe.copy async %[[GA2]], %[[SA2]] schedule cp_async
// CHECK: %[[TB2:.*]] = axe.copy async %[[GB2]], %[[SB2]] schedule cp_async
// CHECK: axe.gemm %[[SA0]], %[[SB0]], %[[ACC]] :
// Main loop, k = 1: wait, refill stage 0 with tile 3, compute on stage 1.
// CHECK: axe.wait %[[TA1]], %[[TB1]]
// CHECK-NEXT: axe.barrier cta
// CHECK: %[[GA3:.*]] = axe.slice %[[A]] [0 : 128, 96 : 128] : {{.*}} to !axe.tensor<128x32xf16, global, #axe.layout<(128, 32) : (128, 1) + 96>>
// CHECK: %[[GB3:.*]] = axe.slice %[[B]] [96 : 128, 0 : 128] : {{.*}} to !axe.tensor<32x128xf16, global, #axe.layout<(32, 128) : (128, 1) + 12288>>
// CHECK: %[[TA3:.*]] = axe.copy async %[[GA3]], %[[SA0]] schedule cp_async
// CHECK: %[[TB3:.*]] = axe.copy async %[[GB3]], %[[SB0]] schedule cp_async
// CHECK: axe.gemm %[[SA1]], %[[SB1]], %[[ACC]] :
// Epilogue.
// CHECK: axe.wait %[[TA2]], %[[TB2]]
// CHECK-NEXT: axe.barrier cta
// CHECK-NEXT: axe.gemm %[[SA2]], %[[SB2]], %[[ACC]] :
// CHECK: axe.wait %[[TA3]], %[[TB3]]
// CHECK-NEXT: axe.barrier cta
// CHECK-NEXT: axe.gemm %[[SA0]], %[[SB0]], %[[ACC]] :
// CHECK: %[[OUT:.*]] = axe.alloc : !axe.tensor<128x128xf16, register, #axe.layout<(2, 4, 2, 8, 2, 8, 4, 2) : (2@warp, 32@reg, 2@reg, 4@lane, 1@warp, 4@reg, 1@lane, 1@reg)>>
// CHECK-NEXT: axe.cast %[[ACC]], %[[OUT]] :
// CHECK-NEXT: axe.copy %[[OUT]], %[[C]] schedule vectorized :
// CHECK: return

// Under axe-canonicalize, the row-major global and shared layouts collapse by D1; the global A
// tiles (row stride 128 != 32 * 1) and the accumulator fragment layout are already canonical.
// CANON-LABEL: func.func @gemm
// CANON: axe.view %{{.*}} : memref<16384xf16> to !axe.tensor<128x128xf16, global, #axe.layout<(16384) : (1)>>
// CANON: axe.alloc : !axe.tensor<384x32xf16, shared, #axe.layout<(12288) : (1)>>
// CANON: axe.alloc : !axe.tensor<96x128xf16, shared, #axe.layout<(12288) : (1)>>
// CANON: axe.slice %{{.*}} [128 : 256, 0 : 32] : {{.*}} to !axe.tensor<128x32xf16, shared, #axe.layout<(4096) : (1) + 4096>>
// CANON: axe.slice %{{.*}} [256 : 384, 0 : 32] : {{.*}} to !axe.tensor<128x32xf16, shared, #axe.layout<(4096) : (1) + 8192>>
// CANON: %[[ACC:.*]] = axe.alloc : !axe.tensor<128x128xf32, register, #axe.layout<(2, 4, 2, 8, 2, 8, 4, 2) : (2@warp, 32@reg, 2@reg, 4@lane, 1@warp, 4@reg, 1@lane, 1@reg)>>
// CANON: axe.slice %{{.*}} [0 : 128, 32 : 64] : {{.*}} to !axe.tensor<128x32xf16, global, #axe.layout<(128, 32) : (128, 1) + 32>>
// CANON: axe.slice %{{.*}} [32 : 64, 0 : 128] : {{.*}} to !axe.tensor<32x128xf16, global, #axe.layout<(4096) : (1) + 4096>>
// CANON: axe.copy async {{.*}} schedule cp_async
// CANON: axe.gemm %{{.*}}, %{{.*}}, %[[ACC]] : !axe.tensor<128x32xf16, shared, #axe.layout<(4096) : (1)>>, !axe.tensor<32x128xf16, shared, #axe.layout<(4096) : (1)>>, !axe.tensor<128x128xf32, register, #axe.layout<(2, 4, 2, 8, 2, 8, 4, 2) : (2@warp, 32@reg, 2@reg, 4@lane, 1@warp, 4@reg, 1@lane, 1@reg)>>

// CHECK-LABEL: func.func @mma_m16n8k16_atom
// CHECK: axe.kernel grid [1] threads [32] {
// CHECK: %[[SA:.*]] = axe.alloc : !axe.tensor<16x16xf16, shared, #axe.layout<(16, 16) : (16, 1)>>
// CHECK: %[[SB:.*]] = axe.alloc : !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>
// CHECK: %[[SC:.*]] = axe.alloc : !axe.tensor<16x8xf32, shared, #axe.layout<(16, 8) : (8, 1)>>
// CHECK: axe.scope warp [0 : 1] {
// CHECK: %[[RA:.*]] = axe.alloc : !axe.tensor<16x16xf16, register, #axe.layout<(2, 8, 2, 4, 2) : (2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
// CHECK: %[[RB:.*]] = axe.alloc : !axe.tensor<16x8xf16, register, #axe.layout<(2, 4, 2, 8) : (2@reg, 1@lane, 1@reg, 4@lane)>>
// CHECK: %[[RC:.*]] = axe.alloc : !axe.tensor<16x8xf32, register, #axe.layout<(2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)>>
// CHECK: axe.fill %[[RC]], %{{.*}}
// CHECK: axe.copy %[[SA]], %[[RA]] schedule ldmatrix :
// CHECK: axe.copy %[[SB]], %[[RB]] schedule ldmatrix :
// CHECK: axe.gemm %[[RA]], %[[RB]], %[[RC]] : !axe.tensor<16x16xf16, register, #axe.layout<(2, 8, 2, 4, 2) : (2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>, !axe.tensor<16x8xf16, register, #axe.layout<(2, 4, 2, 8) : (2@reg, 1@lane, 1@reg, 4@lane)>>, !axe.tensor<16x8xf32, register, #axe.layout<(2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)>>
// CHECK: axe.copy %[[RC]], %[[SC]] :
// Under axe-canonicalize, the C fragment's lane iters 8:4@lane, 4:1@lane form a chain (4 = 4 * 1)
// and merge by D1 into 32:1@lane (lane = 4 * groupID + threadID_in_group); the A and B fragments
// interleave lane and reg iters and stay as written; the row-major shared tiles collapse.
// CANON-LABEL: func.func @mma_m16n8k16_atom
// CANON: axe.alloc : !axe.tensor<16x16xf16, shared, #axe.layout<(256) : (1)>>
// CANON: axe.alloc : !axe.tensor<16x8xf16, shared, #axe.layout<(128) : (1)>>
// CANON: axe.gemm {{.*}} : !axe.tensor<16x16xf16, register, #axe.layout<(2, 8, 2, 4, 2) : (2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>, !axe.tensor<16x8xf16, register, #axe.layout<(2, 4, 2, 8) : (2@reg, 1@lane, 1@reg, 4@lane)>>, !axe.tensor<16x8xf32, register, #axe.layout<(2, 32, 2) : (2@reg, 1@lane, 1@reg)>>

module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @gemm(%ga: memref<16384xf16> {axe.align = 16 : i64}, %gb: memref<16384xf16> {axe.align = 16 : i64}, %gc: memref<16384xf16> {axe.align = 16 : i64}) {
    %A = axe.view %ga : memref<16384xf16> to !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>
    %B = axe.view %gb : memref<16384xf16> to !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>
    %C = axe.view %gc : memref<16384xf16> to !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>
    axe.kernel grid [1] threads [128] {
      // Shared memory: 3-stage ring buffers for the A (128x32) and B (32x128) tiles, row-major.
      %sA = axe.alloc : !axe.tensor<384x32xf16, shared, #axe.layout<(384, 32) : (32, 1)>>
      %sB = axe.alloc : !axe.tensor<96x128xf16, shared, #axe.layout<(96, 128) : (128, 1)>>
      %sA0 = axe.slice %sA [0 : 128, 0 : 32] : !axe.tensor<384x32xf16, shared, #axe.layout<(384, 32) : (32, 1)>> to !axe.tensor<128x32xf16, shared, #axe.layout<(128, 32) : (32, 1)>>
      %sA1 = axe.slice %sA [128 : 256, 0 : 32] : !axe.tensor<384x32xf16, shared, #axe.layout<(384, 32) : (32, 1)>> to !axe.tensor<128x32xf16, shared, #axe.layout<(128, 32) : (32, 1) + 4096>>
      %sA2 = axe.slice %sA [256 : 384, 0 : 32] : !axe.tensor<384x32xf16, shared, #axe.layout<(384, 32) : (32, 1)>> to !axe.tensor<128x32xf16, shared, #axe.layout<(128, 32) : (32, 1) + 8192>>
      %sB0 = axe.slice %sB [0 : 32, 0 : 128] : !axe.tensor<96x128xf16, shared, #axe.layout<(96, 128) : (128, 1)>> to !axe.tensor<32x128xf16, shared, #axe.layout<(32, 128) : (128, 1)>>
      %sB1 = axe.slice %sB [32 : 64, 0 : 128] : !axe.tensor<96x128xf16, shared, #axe.layout<(96, 128) : (128, 1)>> to !axe.tensor<32x128xf16, shared, #axe.layout<(32, 128) : (128, 1) + 4096>>
      %sB2 = axe.slice %sB [64 : 96, 0 : 128] : !axe.tensor<96x128xf16, shared, #axe.layout<(96, 128) : (128, 1)>> to !axe.tensor<32x128xf16, shared, #axe.layout<(32, 128) : (128, 1) + 8192>>
      // The accumulator, a CTA-collective register tensor: the m16n8k16 accumulator fragment
      // tiled 4x8 over registers (a warp's 64x64 view) and 2x2 over warps.
      %acc = axe.alloc : !axe.tensor<128x128xf32, register, #axe.layout<(2, 4, 2, 8, 2, 8, 4, 2) : (2@warp, 32@reg, 2@reg, 4@lane, 1@warp, 4@reg, 1@lane, 1@reg)>>
      %zero = arith.constant 0.0 : f32
      axe.fill %acc, %zero : !axe.tensor<128x128xf32, register, #axe.layout<(2, 4, 2, 8, 2, 8, 4, 2) : (2@warp, 32@reg, 2@reg, 4@lane, 1@warp, 4@reg, 1@lane, 1@reg)>>, f32

      // Prologue: fill stages 0 and 1.
      // load(k = 0) into stage 0: A[0:128, 0:32] and B[0:32, 0:128].
      %gA0 = axe.slice %A [0 : 128, 0 : 32] : !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>> to !axe.tensor<128x32xf16, global, #axe.layout<(128, 32) : (128, 1)>>
      %gB0 = axe.slice %B [0 : 32, 0 : 128] : !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>> to !axe.tensor<32x128xf16, global, #axe.layout<(32, 128) : (128, 1)>>
      %tA0 = axe.copy async %gA0, %sA0 schedule cp_async : !axe.tensor<128x32xf16, global, #axe.layout<(128, 32) : (128, 1)>>, !axe.tensor<128x32xf16, shared, #axe.layout<(128, 32) : (32, 1)>> -> !axe.token
      %tB0 = axe.copy async %gB0, %sB0 schedule cp_async : !axe.tensor<32x128xf16, global, #axe.layout<(32, 128) : (128, 1)>>, !axe.tensor<32x128xf16, shared, #axe.layout<(32, 128) : (128, 1)>> -> !axe.token
      // load(k = 1) into stage 1: A[0:128, 32:64] and B[32:64, 0:128].
      %gA1 = axe.slice %A [0 : 128, 32 : 64] : !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>> to !axe.tensor<128x32xf16, global, #axe.layout<(128, 32) : (128, 1) + 32>>
      %gB1 = axe.slice %B [32 : 64, 0 : 128] : !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>> to !axe.tensor<32x128xf16, global, #axe.layout<(32, 128) : (128, 1) + 4096>>
      %tA1 = axe.copy async %gA1, %sA1 schedule cp_async : !axe.tensor<128x32xf16, global, #axe.layout<(128, 32) : (128, 1) + 32>>, !axe.tensor<128x32xf16, shared, #axe.layout<(128, 32) : (32, 1) + 4096>> -> !axe.token
      %tB1 = axe.copy async %gB1, %sB1 schedule cp_async : !axe.tensor<32x128xf16, global, #axe.layout<(32, 128) : (128, 1) + 4096>>, !axe.tensor<32x128xf16, shared, #axe.layout<(32, 128) : (128, 1) + 4096>> -> !axe.token

      // Main loop (K / 32 - 2 = 2 iterations, unrolled): wait for stage k % 3, refill the stage
      // freed by iteration k - 1 with tile k + 2, compute on stage k % 3.
      axe.wait %tA0, %tB0
      axe.barrier cta
      // load(k = 2) into stage 2: A[0:128, 64:96] and B[64:96, 0:128].
      %gA2 = axe.slice %A [0 : 128, 64 : 96] : !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>> to !axe.tensor<128x32xf16, global, #axe.layout<(128, 32) : (128, 1) + 64>>
      %gB2 = axe.slice %B [64 : 96, 0 : 128] : !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>> to !axe.tensor<32x128xf16, global, #axe.layout<(32, 128) : (128, 1) + 8192>>
      %tA2 = axe.copy async %gA2, %sA2 schedule cp_async : !axe.tensor<128x32xf16, global, #axe.layout<(128, 32) : (128, 1) + 64>>, !axe.tensor<128x32xf16, shared, #axe.layout<(128, 32) : (32, 1) + 8192>> -> !axe.token
      %tB2 = axe.copy async %gB2, %sB2 schedule cp_async : !axe.tensor<32x128xf16, global, #axe.layout<(32, 128) : (128, 1) + 8192>>, !axe.tensor<32x128xf16, shared, #axe.layout<(32, 128) : (128, 1) + 8192>> -> !axe.token
      axe.gemm %sA0, %sB0, %acc : !axe.tensor<128x32xf16, shared, #axe.layout<(128, 32) : (32, 1)>>, !axe.tensor<32x128xf16, shared, #axe.layout<(32, 128) : (128, 1)>>, !axe.tensor<128x128xf32, register, #axe.layout<(2, 4, 2, 8, 2, 8, 4, 2) : (2@warp, 32@reg, 2@reg, 4@lane, 1@warp, 4@reg, 1@lane, 1@reg)>>
      axe.wait %tA1, %tB1
      axe.barrier cta
      // load(k = 3) into stage 0: A[0:128, 96:128] and B[96:128, 0:128].
      %gA3 = axe.slice %A [0 : 128, 96 : 128] : !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>> to !axe.tensor<128x32xf16, global, #axe.layout<(128, 32) : (128, 1) + 96>>
      %gB3 = axe.slice %B [96 : 128, 0 : 128] : !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>> to !axe.tensor<32x128xf16, global, #axe.layout<(32, 128) : (128, 1) + 12288>>
      %tA3 = axe.copy async %gA3, %sA0 schedule cp_async : !axe.tensor<128x32xf16, global, #axe.layout<(128, 32) : (128, 1) + 96>>, !axe.tensor<128x32xf16, shared, #axe.layout<(128, 32) : (32, 1)>> -> !axe.token
      %tB3 = axe.copy async %gB3, %sB0 schedule cp_async : !axe.tensor<32x128xf16, global, #axe.layout<(32, 128) : (128, 1) + 12288>>, !axe.tensor<32x128xf16, shared, #axe.layout<(32, 128) : (128, 1)>> -> !axe.token
      axe.gemm %sA1, %sB1, %acc : !axe.tensor<128x32xf16, shared, #axe.layout<(128, 32) : (32, 1) + 4096>>, !axe.tensor<32x128xf16, shared, #axe.layout<(32, 128) : (128, 1) + 4096>>, !axe.tensor<128x128xf32, register, #axe.layout<(2, 4, 2, 8, 2, 8, 4, 2) : (2@warp, 32@reg, 2@reg, 4@lane, 1@warp, 4@reg, 1@lane, 1@reg)>>

      // Epilogue: drain stages 2 and 0 (tiles k = 2, 3), then store C.
      axe.wait %tA2, %tB2
      axe.barrier cta
      axe.gemm %sA2, %sB2, %acc : !axe.tensor<128x32xf16, shared, #axe.layout<(128, 32) : (32, 1) + 8192>>, !axe.tensor<32x128xf16, shared, #axe.layout<(32, 128) : (128, 1) + 8192>>, !axe.tensor<128x128xf32, register, #axe.layout<(2, 4, 2, 8, 2, 8, 4, 2) : (2@warp, 32@reg, 2@reg, 4@lane, 1@warp, 4@reg, 1@lane, 1@reg)>>
      axe.wait %tA3, %tB3
      axe.barrier cta
      axe.gemm %sA0, %sB0, %acc : !axe.tensor<128x32xf16, shared, #axe.layout<(128, 32) : (32, 1)>>, !axe.tensor<32x128xf16, shared, #axe.layout<(32, 128) : (128, 1)>>, !axe.tensor<128x128xf32, register, #axe.layout<(2, 4, 2, 8, 2, 8, 4, 2) : (2@warp, 32@reg, 2@reg, 4@lane, 1@warp, 4@reg, 1@lane, 1@reg)>>
      %out = axe.alloc : !axe.tensor<128x128xf16, register, #axe.layout<(2, 4, 2, 8, 2, 8, 4, 2) : (2@warp, 32@reg, 2@reg, 4@lane, 1@warp, 4@reg, 1@lane, 1@reg)>>
      axe.cast %acc, %out : !axe.tensor<128x128xf32, register, #axe.layout<(2, 4, 2, 8, 2, 8, 4, 2) : (2@warp, 32@reg, 2@reg, 4@lane, 1@warp, 4@reg, 1@lane, 1@reg)>>, !axe.tensor<128x128xf16, register, #axe.layout<(2, 4, 2, 8, 2, 8, 4, 2) : (2@warp, 32@reg, 2@reg, 4@lane, 1@warp, 4@reg, 1@lane, 1@reg)>>
      axe.copy %out, %C schedule vectorized : !axe.tensor<128x128xf16, register, #axe.layout<(2, 4, 2, 8, 2, 8, 4, 2) : (2@warp, 32@reg, 2@reg, 4@lane, 1@warp, 4@reg, 1@lane, 1@reg)>>, !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>
    }
    return
  }

  // The m16n8k16 tensor-core atom that gemm_warp expands into (Figure 3, right): one warp
  // loads its A (16x16, row) and B (16x8, col) fragments with ldmatrix and issues one mma into
  // the C fragment. Fragment layouts (PTX ISA, lane = 4 * groupID + threadID_in_group):
  //   A: a0..a7 hold (g, 2t..2t+1), (g+8, 2t..), (g, 2t+8..), (g+8, 2t+8..)
  //      = (2, 8, 2, 4, 2) : (2@reg, 4@lane, 4@reg, 1@lane, 1@reg)
  //   B: b0..b3 hold (k = 2t..2t+1, n = g), (k = 2t+8..2t+9, n = g)
  //      = (2, 4, 2, 8) : (2@reg, 1@lane, 1@reg, 4@lane)
  //   C: c0..c3 hold (g, 2t..2t+1), (g+8, 2t..2t+1)
  //      = (2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)
  func.func @mma_m16n8k16_atom() {
    %zero = arith.constant 0.0 : f32
    axe.kernel grid [1] threads [32] {
      %sA = axe.alloc : !axe.tensor<16x16xf16, shared, #axe.layout<(16, 16) : (16, 1)>>
      %sB = axe.alloc : !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>
      %sC = axe.alloc : !axe.tensor<16x8xf32, shared, #axe.layout<(16, 8) : (8, 1)>>
      axe.scope warp [0 : 1] {
        %rA = axe.alloc : !axe.tensor<16x16xf16, register, #axe.layout<(2, 8, 2, 4, 2) : (2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
        %rB = axe.alloc : !axe.tensor<16x8xf16, register, #axe.layout<(2, 4, 2, 8) : (2@reg, 1@lane, 1@reg, 4@lane)>>
        %rC = axe.alloc : !axe.tensor<16x8xf32, register, #axe.layout<(2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)>>
        axe.fill %rC, %zero : !axe.tensor<16x8xf32, register, #axe.layout<(2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)>>, f32
        axe.copy %sA, %rA schedule ldmatrix : !axe.tensor<16x16xf16, shared, #axe.layout<(16, 16) : (16, 1)>>, !axe.tensor<16x16xf16, register, #axe.layout<(2, 8, 2, 4, 2) : (2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
        axe.copy %sB, %rB schedule ldmatrix : !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>, !axe.tensor<16x8xf16, register, #axe.layout<(2, 4, 2, 8) : (2@reg, 1@lane, 1@reg, 4@lane)>>
        axe.gemm %rA, %rB, %rC : !axe.tensor<16x16xf16, register, #axe.layout<(2, 8, 2, 4, 2) : (2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>, !axe.tensor<16x8xf16, register, #axe.layout<(2, 4, 2, 8) : (2@reg, 1@lane, 1@reg, 4@lane)>>, !axe.tensor<16x8xf32, register, #axe.layout<(2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)>>
        axe.copy %rC, %sC : !axe.tensor<16x8xf32, register, #axe.layout<(2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)>>, !axe.tensor<16x8xf32, shared, #axe.layout<(16, 8) : (8, 1)>>
      }
    }
    return
  }
}
