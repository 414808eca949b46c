// axe-expand-matmul: the warp-specialized kernel of each family of schedule (one consumer
// warpgroup of 64 rows with {clip} tiles; two of 128 rows in clusters of two with FP8 scales),
// and a batch of one row through the whole lowering (TMA boxes of 64 rows over a 1-row A).
// RUN: axe-opt %s --axe-matmul-schedule --axe-expand-matmul --split-input-file | FileCheck %s
// RUN: axe-opt %s --split-input-file --axe-matmul-schedule --axe-expand-matmul --axe-slice --axe-infer-layout --axe-canonicalize --convert-axe-to-gpu | FileCheck %s --check-prefix=LOWER

// 100 x 200 x 296 in 64x64 tiles: 2 x 4 tiles, 2 stages of 64 K steps, 3 rounds (K = 384 with
// TMA's zeros past 296); 256 threads (the producer warpgroup and one consumer), no register
// split; every tile a two-dimensional {clip} slice per K step.
// CHECK-LABEL: func.func @ragged_64
// CHECK: axe.kernel grid [8] threads [256] {
// CHECK-COUNT-2: axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
// CHECK: axe.mbarrier arrivals 2
// CHECK-NEXT: axe.mbarrier arrivals 128
// CHECK-NOT: axe.set_max_registers
// CHECK: axe.scope warpgroup [0 : 1] {
// CHECK-NEXT: axe.scope warp [0 : 1] {
// CHECK: axe.mbarrier_wait
// CHECK: axe.slice %{{.*}} [%{{.*}} : +64, %{{.*}} : +64] {clip} : !axe.tensor<100x296xf16
// CHECK: axe.copy async %{{.*}}, %{{.*}} schedule tma barrier %{{.*}} : !axe.tensor<64x64xf16, global, ?>
// CHECK: axe.scope warpgroup [1 : 2] {
// CHECK: axe.fill
// CHECK: axe.mbarrier_wait
// CHECK-NEXT: %[[G:.*]] = axe.gemm async
// CHECK-NEXT: axe.wait %[[G]] outstanding 1
// CHECK: axe.wait{{ *$}}
// CHECK-NEXT: axe.mbarrier_arrive
// CHECK: axe.cast
// CHECK: axe.copy %{{.*}}, %{{.*}} : !axe.tensor<64x64xf16, register, ?>, !axe.tensor<64x64xf16, shared
// CHECK-NEXT: axe.copy %{{.*}}, %{{.*}} schedule tma : !axe.tensor<64x64xf16, shared
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @ragged_64(%a: memref<29600xf16> {axe.align = 16 : i64}, %b: memref<59200xf16> {axe.align = 16 : i64}, %c: memref<20000xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<29600xf16> to !axe.tensor<100x296xf16, global, #axe.layout<(100, 296) : (296, 1)>>
    %B = axe.view %b : memref<59200xf16> to !axe.tensor<296x200xf16, global, #axe.layout<(296, 200) : (200, 1)>>
    %C = axe.view %c : memref<20000xf16> to !axe.tensor<100x200xf16, global, #axe.layout<(100, 200) : (200, 1)>>
    axe.matmul %A, %B, %C {schedule = #axe.matmul_schedule<tile_m = 64, tile_n = 64, tile_k = 64, stages = 2, cluster = 1, group = 1, grid = 8, split_k = 1, persistent = true>} : !axe.tensor<100x296xf16, global, #axe.layout<(100, 296) : (296, 1)>>, !axe.tensor<296x200xf16, global, #axe.layout<(296, 200) : (200, 1)>>, !axe.tensor<100x200xf16, global, #axe.layout<(100, 200) : (200, 1)>>
    return
  }
}

// -----

// FP8 in pairs: B [N, K] multicast to the pair, the consumers' lane r releasing the stage of
// the pair's CTA r (one lane of each of the 8 consumer warps of both CTAs: 16 arrivals),
// setmaxnreg 40 / 232, the scales' product multiplying the accumulator.
// CHECK-LABEL: func.func @fp8_pairs
// CHECK: axe.kernel grid [4] threads [384] cluster [2] {
// CHECK: axe.unit_id cluster
// CHECK-NEXT: axe.unit_id cta in_cluster
// CHECK: axe.mbarrier arrivals 16
// CHECK: axe.set_max_registers 40
// CHECK: schedule tma barrier %{{.*}} multicast [0] : !axe.tensor<256x128xf8E4M3FN, global, ?>
// CHECK: axe.set_max_registers 232
// CHECK: axe.binary mul
// CHECK: axe.gemm async %{{.*}}, %{{.*}}, %{{.*}} {transpose_b}
// CHECK: axe.mbarrier_arrive %{{.*}} cta %{{.*}}
// CHECK: axe.binary mul
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @fp8_pairs(%a: memref<524288xf8E4M3FN> {axe.align = 16 : i64}, %b: memref<524288xf8E4M3FN> {axe.align = 16 : i64}, %c: memref<262144xbf16> {axe.align = 16 : i64}, %scale_a: memref<1xf32> {axe.align = 16 : i64}, %scale_b: memref<1xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<524288xf8E4M3FN> to !axe.tensor<512x1024xf8E4M3FN, global, #axe.layout<(512, 1024) : (1024, 1)>>
    %B = axe.view %b : memref<524288xf8E4M3FN> to !axe.tensor<512x1024xf8E4M3FN, global, #axe.layout<(512, 1024) : (1024, 1)>>
    %C = axe.view %c : memref<262144xbf16> to !axe.tensor<512x512xbf16, global, #axe.layout<(512, 512) : (512, 1)>>
    %SA = axe.view %scale_a : memref<1xf32> to !axe.tensor<1x1xf32, global, #axe.layout<(1, 1) : (1, 1)>>
    %SB = axe.view %scale_b : memref<1xf32> to !axe.tensor<1x1xf32, global, #axe.layout<(1, 1) : (1, 1)>>
    axe.matmul %A, %B, %C scales(%SA, %SB : !axe.tensor<1x1xf32, global, #axe.layout<(1, 1) : (1, 1)>>, !axe.tensor<1x1xf32, global, #axe.layout<(1, 1) : (1, 1)>>) {transpose_b, schedule = #axe.matmul_schedule<tile_m = 128, tile_n = 256, tile_k = 128, stages = 4, cluster = 2, group = 2, grid = 4, split_k = 1, persistent = true>} : !axe.tensor<512x1024xf8E4M3FN, global, #axe.layout<(512, 1024) : (1024, 1)>>, !axe.tensor<512x1024xf8E4M3FN, global, #axe.layout<(512, 1024) : (1024, 1)>>, !axe.tensor<512x512xbf16, global, #axe.layout<(512, 512) : (512, 1)>>
    return
  }
}

// -----

// LOWER-LABEL: func.func @one_row
// LOWER-COUNT-3: nvgpu.tma.create.descriptor
// LOWER: gpu.launch
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @one_row(%a: memref<4096xf16> {axe.align = 16 : i64}, %b: memref<16777216xf16> {axe.align = 16 : i64}, %c: memref<4096xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<4096xf16> to !axe.tensor<1x4096xf16, global, #axe.layout<(1, 4096) : (4096, 1)>>
    %B = axe.view %b : memref<16777216xf16> to !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    %C = axe.view %c : memref<4096xf16> to !axe.tensor<1x4096xf16, global, #axe.layout<(1, 4096) : (4096, 1)>>
    axe.matmul %A, %B, %C : !axe.tensor<1x4096xf16, global, #axe.layout<(1, 4096) : (4096, 1)>>, !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>>, !axe.tensor<1x4096xf16, global, #axe.layout<(1, 4096) : (4096, 1)>>
    return
  }
}

// -----

// Block-scaled FP8 (A's scales per row and 128 of K, column-major; B's per 128x128 block):
// each stage is one 128-deep block of K, multiplied into a zeroed slab and waited for; the
// round's scales (one column per stage) are loaded at its start from one address, A's and B's
// combined under the first block's MMAs, and each slab is scaled by its column and summed
// into the accumulator (one fma per element: fastmath contract).
// CHECK-LABEL: func.func @block_scaled
// CHECK: axe.scope warpgroup [1 : 2] {
// CHECK: %[[ACC:.*]] = axe.alloc : !axe.tensor<64x64xf32, register, ?>
// CHECK: %[[SLAB:.*]] = axe.alloc : !axe.tensor<64x64xf32, register, ?>
// CHECK: %[[ROWS:.*]] = axe.alloc : !axe.tensor<64x2xf32, register, #axe.layout<(4, 2, 8, 2) : (1@warp, 2@reg, 4@lane, 1@reg) + [(4) : (1@lane)]>>
// CHECK: %[[BLOCK:.*]] = axe.alloc : !axe.tensor<1x2xf32, register, #axe.layout<(2) : (1@reg) + [(32, 4) : (1@lane, 1@warp)]>>
// CHECK: scf.for
// CHECK: %[[SA:.*]] = axe.slice %{{.*}} [%{{.*}} : +64, %[[KB:.*]] : +2] {clip} : !axe.tensor<256x4xf32, global, #axe.layout<(256, 4) : (1, 256)>> to !axe.tensor<64x2xf32, global, ?>
// CHECK: axe.copy %[[SA]], %[[ROWS]]
// CHECK: %[[SB:.*]] = axe.slice %{{.*}} [%{{.*}} : +1, %[[KB]] : +2] {clip} : !axe.tensor<2x4xf32, global, #axe.layout<(2, 4) : (4, 1)>> to !axe.tensor<1x2xf32, global, ?>
// CHECK: axe.copy %[[SB]], %[[BLOCK]]
// CHECK: axe.fill %[[SLAB]]
// CHECK: %[[G0:.*]] = axe.gemm async %{{.*}}, %{{.*}}, %[[SLAB]] {transpose_b}
// CHECK: axe.binary mul %[[ROWS]], %[[BLOCK]], %[[ROWS]] {fastmath = #arith.fastmath<contract>}
// CHECK: axe.wait %[[G0]]{{$}}
// CHECK: axe.mbarrier_arrive
// CHECK: %[[R0:.*]] = axe.slice %[[ROWS]] [0 : 64, 0 : 1]
// CHECK: axe.binary mul %[[SLAB]], %[[R0]], %[[SLAB]] {fastmath = #arith.fastmath<contract>}
// CHECK: axe.binary add %[[ACC]], %[[SLAB]], %[[ACC]] {fastmath = #arith.fastmath<contract>}
// CHECK: axe.gemm async %{{.*}}, %{{.*}}, %[[SLAB]] {transpose_b}
// CHECK: %[[R1:.*]] = axe.slice %[[ROWS]] [0 : 64, 1 : 2]
// CHECK: axe.binary mul %[[SLAB]], %[[R1]], %[[SLAB]]
// LOWER-LABEL: func.func @block_scaled
// LOWER: gpu.launch
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @block_scaled(%a: memref<131072xf8E4M3FN> {axe.align = 16 : i64}, %b: memref<131072xf8E4M3FN> {axe.align = 16 : i64}, %c: memref<65536xbf16> {axe.align = 16 : i64}, %scale_a: memref<1024xf32> {axe.align = 16 : i64}, %scale_b: memref<8xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<131072xf8E4M3FN> to !axe.tensor<256x512xf8E4M3FN, global, #axe.layout<(256, 512) : (512, 1)>>
    %B = axe.view %b : memref<131072xf8E4M3FN> to !axe.tensor<256x512xf8E4M3FN, global, #axe.layout<(256, 512) : (512, 1)>>
    %C = axe.view %c : memref<65536xbf16> to !axe.tensor<256x256xbf16, global, #axe.layout<(256, 256) : (256, 1)>>
    %SA = axe.view %scale_a : memref<1024xf32> to !axe.tensor<256x4xf32, global, #axe.layout<(256, 4) : (1, 256)>>
    %SB = axe.view %scale_b : memref<8xf32> to !axe.tensor<2x4xf32, global, #axe.layout<(2, 4) : (4, 1)>>
    axe.matmul %A, %B, %C scales(%SA, %SB : !axe.tensor<256x4xf32, global, #axe.layout<(256, 4) : (1, 256)>>, !axe.tensor<2x4xf32, global, #axe.layout<(2, 4) : (4, 1)>>) {transpose_b} : !axe.tensor<256x512xf8E4M3FN, global, #axe.layout<(256, 512) : (512, 1)>>, !axe.tensor<256x512xf8E4M3FN, global, #axe.layout<(256, 512) : (512, 1)>>, !axe.tensor<256x256xbf16, global, #axe.layout<(256, 256) : (256, 1)>>
    return
  }
}
