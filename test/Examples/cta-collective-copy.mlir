// Figure 5 of the Axe paper (§3.1, "Triton: CTA collective semantics"), in Axe IR: a CTA of
// 128 threads loads the region C[16:32, 64:128] of a 32x128 f32 global tensor C into a
// CTA-collective register tensor C_local; thread i gets the 1x8 row piece starting at
// [16 + i / 8, 64 + (i % 8) * 8]. The paper writes it as
//   C_local : (16, 8, 8) : (8@tx, 1@tx, 1@reg)  =  C[16:32, 64:128]
//
// How the paper's Python-like DSL maps to the ops:
//   global tensor C (32, 128), row-major    -> func argument memref<4096xf32> + axe.view with
//                                              layout (32, 128) : (128, 1)
//   the thread block (`with cta:`)          -> axe.kernel grid [1] threads [128] { ... } (ops
//                                              directly in the kernel execute at CTA scope)
//   C[16:32, 64:128]                        -> axe.slice %C [16 : 32, 64 : 128]; its layout is the
//                                              paper's L[R:S] = (16, 64) : (128, 1) + 2112
//                                              (2112 = 16 * 128 + 64, the offset of Figure 4)
//   C_local with its Axe layout             -> axe.alloc of a register tensor
//   `C_local = C[...]` (CTA-wide copy)      -> axe.copy %slice, %local (source first, then
//                                              destination), schedule vectorized (8 consecutive
//                                              f32 per thread: two 16-byte loads)
//
// The `tx` axis (threadIdx.x) does not exist on the targets (sm_80 offers m, reg, lane, warp,
// cta, gpuid), so tx is written as lane + 32 * warp: rows 16 = 4 x 4 with
//   tx = 8 * row + col8 = 32 * (row / 4) + 8 * (row % 4) + col8
// giving (4, 4, 8, 8) : (1@warp, 8@lane, 1@lane, 1@reg), which has the same induced map as the
// paper's layout under tx = 32 * warp + lane. Canonicalization merges the chained lane iters
// (8 = 8 * 1, D1): (4, 32, 8) : (1@warp, 1@lane, 1@reg) -- warp w holds rows 4w..4w+3, lane l
// row 4w + l / 8 and columns 8 * (l % 8) .. + 7, register r the column offset r.

// RUN: axe-opt %s | FileCheck %s
// RUN: axe-opt %s | axe-opt | FileCheck %s
// RUN: axe-opt %s --mlir-print-op-generic | axe-opt | FileCheck %s
// RUN: axe-opt %s --axe-canonicalize | FileCheck %s --check-prefix=CANON
// The example lowers: the buffer declares 16-byte alignment (as cudaMalloc gives), so each
// thread's 8-float row piece is two 16-byte loads, as the paper says. Nothing reads C_local,
// so the full pipeline may drop the kernel; it must still succeed.
// RUN: axe-opt %s --convert-axe-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: axe-opt %s --axe-to-nvvm-pipeline=chip=sm_80 -o /dev/null
// GPU: gpu.launch
// GPU-COUNT-2: vector.load %{{.*}} {alignment = 16 : i64} : memref<4096xf32>, vector<4xf32>
// GPU-NOT: vector.load

// CHECK: module attributes {axe.target = #axe.target<"sm_80">}
// CHECK-LABEL: func.func @cta_collective_copy
// CHECK-SAME: (%[[BUF:.*]]: memref<4096xf32> {axe.align = 16 : i64})
// CHECK: %[[C:.*]] = axe.view %[[BUF]] : memref<4096xf32> to !axe.tensor<32x128xf32, global, #axe.layout<(32, 128) : (128, 1)>>
// CHECK: axe.kernel grid [1] threads [128] {
// CHECK-NEXT: %[[REGION:.*]] = axe.slice %[[C]] [16 : 32, 64 : 128] : !axe.tensor<32x128xf32, global, #axe.layout<(32, 128) : (128, 1)>> to !axe.tensor<16x64xf32, global, #axe.layout<(16, 64) : (128, 1) + 2112>>
// CHECK-NEXT: %[[LOCAL:.*]] = axe.alloc : !axe.tensor<16x64xf32, register, #axe.layout<(4, 4, 8, 8) : (1@warp, 8@lane, 1@lane, 1@reg)>>
// CHECK-NEXT: axe.copy %[[REGION]], %[[LOCAL]] schedule vectorized : !axe.tensor<16x64xf32, global, #axe.layout<(16, 64) : (128, 1) + 2112>>, !axe.tensor<16x64xf32, register, #axe.layout<(4, 4, 8, 8) : (1@warp, 8@lane, 1@lane, 1@reg)>>
// CHECK-NEXT: }
// CHECK-NEXT: return

// The slice layout (row stride 128 != 64 * 1) is already canonical; the view and C_local
// collapse by D1.
// CANON-LABEL: func.func @cta_collective_copy
// CANON: %[[C:.*]] = axe.view %{{.*}} : memref<4096xf32> to !axe.tensor<32x128xf32, global, #axe.layout<(4096) : (1)>>
// CANON: %[[REGION:.*]] = axe.slice %[[C]] [16 : 32, 64 : 128] : !axe.tensor<32x128xf32, global, #axe.layout<(4096) : (1)>> to !axe.tensor<16x64xf32, global, #axe.layout<(16, 64) : (128, 1) + 2112>>
// CANON: %[[LOCAL:.*]] = axe.alloc : !axe.tensor<16x64xf32, register, #axe.layout<(4, 32, 8) : (1@warp, 1@lane, 1@reg)>>
// CANON: axe.copy %[[REGION]], %[[LOCAL]] schedule vectorized

module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @cta_collective_copy(%buf: memref<4096xf32> {axe.align = 16 : i64}) {
    %C = axe.view %buf : memref<4096xf32> to !axe.tensor<32x128xf32, global, #axe.layout<(32, 128) : (128, 1)>>
    axe.kernel grid [1] threads [128] {
      %region = axe.slice %C [16 : 32, 64 : 128] : !axe.tensor<32x128xf32, global, #axe.layout<(32, 128) : (128, 1)>> to !axe.tensor<16x64xf32, global, #axe.layout<(16, 64) : (128, 1) + 2112>>
      %local = axe.alloc : !axe.tensor<16x64xf32, register, #axe.layout<(4, 4, 8, 8) : (1@warp, 8@lane, 1@lane, 1@reg)>>
      axe.copy %region, %local schedule vectorized : !axe.tensor<16x64xf32, global, #axe.layout<(16, 64) : (128, 1) + 2112>>, !axe.tensor<16x64xf32, register, #axe.layout<(4, 4, 8, 8) : (1@warp, 8@lane, 1@lane, 1@reg)>>
    }
    return
  }
}
