// axe-matmul-schedule: the schedule chosen for representative problems on sm_90a (the H100
// SXM's 132 SMs unless sm-count says otherwise), and a user's fields kept.
// RUN: axe-opt %s --axe-matmul-schedule --split-input-file | FileCheck %s
// RUN: axe-opt %s --axe-matmul-schedule=sm-count=114 --split-input-file | FileCheck %s --check-prefix=PCIE
// A serving batch of one row with Llama-3.1-8B's O projection: the weights' read dominates;
// 64-row tiles (no rows that do not exist) and 8 stages of loads in flight per SM.
// CHECK-LABEL: func.func @mm_1x4096x4096_f16
// CHECK: axe.matmul {{.*}}schedule = #axe.matmul_schedule<tile_m = 64, tile_n = 64, tile_k = 64, stages = 8, cluster = 1, group = 1, grid = 64, split_k = 1, persistent = true>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @mm_1x4096x4096_f16(%a: memref<4096xf16> {axe.align = 16 : i64}, %b: memref<16777216xf16> {axe.align = 16 : i64}, %c: memref<4096xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<4096xf16> to !axe.tensor<1x4096xf16, global, #axe.layout<(1, 4096) : (4096, 1)>>
    %B = axe.view %b : memref<16777216xf16> to !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    %C = axe.view %c : memref<4096xf16> to !axe.tensor<1x4096xf16, global, #axe.layout<(1, 4096) : (4096, 1)>>
    axe.matmul %A, %B, %C : !axe.tensor<1x4096xf16, global, #axe.layout<(1, 4096) : (4096, 1)>>, !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>>, !axe.tensor<1x4096xf16, global, #axe.layout<(1, 4096) : (4096, 1)>>
    return
  }
}


// -----

// M = 128, N = K = 8192: 128x256 tiles would be 32 CTAs on 132 SMs.
// CHECK-LABEL: func.func @mm_128x8192x8192_f16
// CHECK: axe.matmul {{.*}}schedule = #axe.matmul_schedule<tile_m = 128, tile_n = 64, tile_k = 64, stages = 8, cluster = 1, group = 1, grid = 128, split_k = 1, persistent = true>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @mm_128x8192x8192_f16(%a: memref<1048576xf16> {axe.align = 16 : i64}, %b: memref<67108864xf16> {axe.align = 16 : i64}, %c: memref<1048576xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<1048576xf16> to !axe.tensor<128x8192xf16, global, #axe.layout<(128, 8192) : (8192, 1)>>
    %B = axe.view %b : memref<67108864xf16> to !axe.tensor<8192x8192xf16, global, #axe.layout<(8192, 8192) : (8192, 1)>>
    %C = axe.view %c : memref<1048576xf16> to !axe.tensor<128x8192xf16, global, #axe.layout<(128, 8192) : (8192, 1)>>
    axe.matmul %A, %B, %C : !axe.tensor<128x8192xf16, global, #axe.layout<(128, 8192) : (8192, 1)>>, !axe.tensor<8192x8192xf16, global, #axe.layout<(8192, 8192) : (8192, 1)>>, !axe.tensor<128x8192xf16, global, #axe.layout<(128, 8192) : (8192, 1)>>
    return
  }
}


// -----

// M = 1024 with Llama-3.1-8B's QKV weights.
// CHECK-LABEL: func.func @mm_1024x6144x4096_f16
// CHECK: axe.matmul {{.*}}schedule = #axe.matmul_schedule<tile_m = 128, tile_n = 192, tile_k = 64, stages = 4, cluster = 1, group = 8, grid = 132, split_k = 1, persistent = true>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @mm_1024x6144x4096_f16(%a: memref<4194304xf16> {axe.align = 16 : i64}, %b: memref<25165824xf16> {axe.align = 16 : i64}, %c: memref<6291456xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<4194304xf16> to !axe.tensor<1024x4096xf16, global, #axe.layout<(1024, 4096) : (4096, 1)>>
    %B = axe.view %b : memref<25165824xf16> to !axe.tensor<4096x6144xf16, global, #axe.layout<(4096, 6144) : (6144, 1)>>
    %C = axe.view %c : memref<6291456xf16> to !axe.tensor<1024x6144xf16, global, #axe.layout<(1024, 6144) : (6144, 1)>>
    axe.matmul %A, %B, %C : !axe.tensor<1024x4096xf16, global, #axe.layout<(1024, 4096) : (4096, 1)>>, !axe.tensor<4096x6144xf16, global, #axe.layout<(4096, 6144) : (6144, 1)>>, !axe.tensor<1024x6144xf16, global, #axe.layout<(1024, 6144) : (6144, 1)>>
    return
  }
}


// -----

// Llama-3.1-8B's up projection at M = 8192 (Figure 10): the configuration measured fastest,
// 128x256, 4 stages, persistent on 132 SMs, grouped raster of 8 (0.96e12 flops: no pairs).
// CHECK-LABEL: func.func @mm_8192x14336x4096_f16
// CHECK: axe.matmul {{.*}}schedule = #axe.matmul_schedule<tile_m = 128, tile_n = 256, tile_k = 64, stages = 4, cluster = 1, group = 8, grid = 132, split_k = 1, persistent = true>
// PCIE-LABEL: func.func @mm_8192x14336x4096_f16
// PCIE: axe.matmul {{.*}}schedule = #axe.matmul_schedule<tile_m = 128, tile_n = 256, tile_k = 64, stages = 4, cluster = 1, group = 8, grid = 114, split_k = 1, persistent = true>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @mm_8192x14336x4096_f16(%a: memref<33554432xf16> {axe.align = 16 : i64}, %b: memref<58720256xf16> {axe.align = 16 : i64}, %c: memref<117440512xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<33554432xf16> to !axe.tensor<8192x4096xf16, global, #axe.layout<(8192, 4096) : (4096, 1)>>
    %B = axe.view %b : memref<58720256xf16> to !axe.tensor<4096x14336xf16, global, #axe.layout<(4096, 14336) : (14336, 1)>>
    %C = axe.view %c : memref<117440512xf16> to !axe.tensor<8192x14336xf16, global, #axe.layout<(8192, 14336) : (14336, 1)>>
    axe.matmul %A, %B, %C : !axe.tensor<8192x4096xf16, global, #axe.layout<(8192, 4096) : (4096, 1)>>, !axe.tensor<4096x14336xf16, global, #axe.layout<(4096, 14336) : (14336, 1)>>, !axe.tensor<8192x14336xf16, global, #axe.layout<(8192, 14336) : (14336, 1)>>
    return
  }
}


// -----

// Llama-3.1-70B's up projection at M = 8192 (3.8e12 flops, 64 x 112 tiles): pairs of CTAs
// share B by TMA multicast.
// CHECK-LABEL: func.func @mm_8192x28672x8192_f16
// CHECK: axe.matmul {{.*}}schedule = #axe.matmul_schedule<tile_m = 128, tile_n = 256, tile_k = 64, stages = 4, cluster = 2, group = 8, grid = 132, split_k = 1, persistent = true>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @mm_8192x28672x8192_f16(%a: memref<67108864xf16> {axe.align = 16 : i64}, %b: memref<234881024xf16> {axe.align = 16 : i64}, %c: memref<234881024xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<67108864xf16> to !axe.tensor<8192x8192xf16, global, #axe.layout<(8192, 8192) : (8192, 1)>>
    %B = axe.view %b : memref<234881024xf16> to !axe.tensor<8192x28672xf16, global, #axe.layout<(8192, 28672) : (28672, 1)>>
    %C = axe.view %c : memref<234881024xf16> to !axe.tensor<8192x28672xf16, global, #axe.layout<(8192, 28672) : (28672, 1)>>
    axe.matmul %A, %B, %C : !axe.tensor<8192x8192xf16, global, #axe.layout<(8192, 8192) : (8192, 1)>>, !axe.tensor<8192x28672xf16, global, #axe.layout<(8192, 28672) : (28672, 1)>>, !axe.tensor<8192x28672xf16, global, #axe.layout<(8192, 28672) : (28672, 1)>>
    return
  }
}


// -----

// A ragged shape (no dimension a multiple of 64), bf16.
// CHECK-LABEL: func.func @mm_3000x5000x7000_bf16
// CHECK: axe.matmul {{.*}}schedule = #axe.matmul_schedule<tile_m = 128, tile_n = 256, tile_k = 64, stages = 3, cluster = 1, group = 8, grid = 132, split_k = 1, persistent = true>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @mm_3000x5000x7000_bf16(%a: memref<21000000xbf16> {axe.align = 16 : i64}, %b: memref<35000000xbf16> {axe.align = 16 : i64}, %c: memref<15000000xbf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<21000000xbf16> to !axe.tensor<3000x7000xbf16, global, #axe.layout<(3000, 7000) : (7000, 1)>>
    %B = axe.view %b : memref<35000000xbf16> to !axe.tensor<7000x5000xbf16, global, #axe.layout<(7000, 5000) : (5000, 1)>>
    %C = axe.view %c : memref<15000000xbf16> to !axe.tensor<3000x5000xbf16, global, #axe.layout<(3000, 5000) : (5000, 1)>>
    axe.matmul %A, %B, %C : !axe.tensor<3000x7000xbf16, global, #axe.layout<(3000, 7000) : (7000, 1)>>, !axe.tensor<7000x5000xbf16, global, #axe.layout<(7000, 5000) : (5000, 1)>>, !axe.tensor<3000x5000xbf16, global, #axe.layout<(3000, 5000) : (5000, 1)>>
    return
  }
}


// -----

// FP8 (e4m3, per-tensor scales, bf16 out): 128-element K steps (one 128-byte swizzle row).
// CHECK-LABEL: func.func @mm_4096x4096x4096_e4m3
// CHECK: axe.matmul {{.*}}schedule = #axe.matmul_schedule<tile_m = 128, tile_n = 256, tile_k = 128, stages = 4, cluster = 1, group = 8, grid = 132, split_k = 1, persistent = true>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @mm_4096x4096x4096_e4m3(%a: memref<16777216xf8E4M3FN> {axe.align = 16 : i64}, %b: memref<16777216xf8E4M3FN> {axe.align = 16 : i64}, %c: memref<16777216xbf16> {axe.align = 16 : i64}, %scale_a: memref<1xf32> {axe.align = 16 : i64}, %scale_b: memref<1xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<16777216xf8E4M3FN> to !axe.tensor<4096x4096xf8E4M3FN, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    %B = axe.view %b : memref<16777216xf8E4M3FN> to !axe.tensor<4096x4096xf8E4M3FN, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    %C = axe.view %c : memref<16777216xbf16> to !axe.tensor<4096x4096xbf16, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    %SA = axe.view %scale_a : memref<1xf32> to !axe.tensor<1x1xf32, global, #axe.layout<(1, 1) : (1, 1)>>
    %SB = axe.view %scale_b : memref<1xf32> to !axe.tensor<1x1xf32, global, #axe.layout<(1, 1) : (1, 1)>>
    axe.matmul %A, %B, %C scales(%SA, %SB : !axe.tensor<1x1xf32, global, #axe.layout<(1, 1) : (1, 1)>>, !axe.tensor<1x1xf32, global, #axe.layout<(1, 1) : (1, 1)>>) {transpose_b} : !axe.tensor<4096x4096xf8E4M3FN, global, #axe.layout<(4096, 4096) : (4096, 1)>>, !axe.tensor<4096x4096xf8E4M3FN, global, #axe.layout<(4096, 4096) : (4096, 1)>>, !axe.tensor<4096x4096xbf16, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    return
  }
}


// -----

// Block-scaled FP8 (DeepSeek-V3's scales: A's [M, K/128] column-major, B's [N/128, K/128]):
// a tile's columns lie in one 128-column block of B's scales (tile_n 128 here, not FP8's 256
// above), and 2 stages (a second accumulator holds each block's product: ptxas spilled from 4
// stages up).
// CHECK-LABEL: func.func @mm_4096x4096x4096_e4m3_blocks
// CHECK: axe.matmul {{.*}}schedule = #axe.matmul_schedule<tile_m = 128, tile_n = 128, tile_k = 128, stages = 2, cluster = 1, group = 8, grid = 132, split_k = 1, persistent = true>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @mm_4096x4096x4096_e4m3_blocks(%a: memref<16777216xf8E4M3FN> {axe.align = 16 : i64}, %b: memref<16777216xf8E4M3FN> {axe.align = 16 : i64}, %c: memref<16777216xbf16> {axe.align = 16 : i64}, %scale_a: memref<131072xf32> {axe.align = 16 : i64}, %scale_b: memref<1024xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<16777216xf8E4M3FN> to !axe.tensor<4096x4096xf8E4M3FN, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    %B = axe.view %b : memref<16777216xf8E4M3FN> to !axe.tensor<4096x4096xf8E4M3FN, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    %C = axe.view %c : memref<16777216xbf16> to !axe.tensor<4096x4096xbf16, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    %SA = axe.view %scale_a : memref<131072xf32> to !axe.tensor<4096x32xf32, global, #axe.layout<(4096, 32) : (1, 4096)>>
    %SB = axe.view %scale_b : memref<1024xf32> to !axe.tensor<32x32xf32, global, #axe.layout<(32, 32) : (32, 1)>>
    axe.matmul %A, %B, %C scales(%SA, %SB : !axe.tensor<4096x32xf32, global, #axe.layout<(4096, 32) : (1, 4096)>>, !axe.tensor<32x32xf32, global, #axe.layout<(32, 32) : (32, 1)>>) {transpose_b} : !axe.tensor<4096x4096xf8E4M3FN, global, #axe.layout<(4096, 4096) : (4096, 1)>>, !axe.tensor<4096x4096xf8E4M3FN, global, #axe.layout<(4096, 4096) : (4096, 1)>>, !axe.tensor<4096x4096xbf16, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    return
  }
}


// -----

// A serving batch, block-scaled: 64-row tiles, 64 columns.
// CHECK-LABEL: func.func @mm_16x4096x7168_e4m3_blocks
// CHECK: axe.matmul {{.*}}schedule = #axe.matmul_schedule<tile_m = 64, tile_n = 64, tile_k = 128, stages = 2, cluster = 1, group = 1, grid = 64, split_k = 1, persistent = true>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @mm_16x4096x7168_e4m3_blocks(%a: memref<114688xf8E4M3FN> {axe.align = 16 : i64}, %b: memref<29360128xf8E4M3FN> {axe.align = 16 : i64}, %c: memref<65536xbf16> {axe.align = 16 : i64}, %scale_a: memref<896xf32> {axe.align = 16 : i64}, %scale_b: memref<1792xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<114688xf8E4M3FN> to !axe.tensor<16x7168xf8E4M3FN, global, #axe.layout<(16, 7168) : (7168, 1)>>
    %B = axe.view %b : memref<29360128xf8E4M3FN> to !axe.tensor<4096x7168xf8E4M3FN, global, #axe.layout<(4096, 7168) : (7168, 1)>>
    %C = axe.view %c : memref<65536xbf16> to !axe.tensor<16x4096xbf16, global, #axe.layout<(16, 4096) : (4096, 1)>>
    %SA = axe.view %scale_a : memref<896xf32> to !axe.tensor<16x56xf32, global, #axe.layout<(16, 56) : (1, 16)>>
    %SB = axe.view %scale_b : memref<1792xf32> to !axe.tensor<32x56xf32, global, #axe.layout<(32, 56) : (56, 1)>>
    axe.matmul %A, %B, %C scales(%SA, %SB : !axe.tensor<16x56xf32, global, #axe.layout<(16, 56) : (1, 16)>>, !axe.tensor<32x56xf32, global, #axe.layout<(32, 56) : (56, 1)>>) {transpose_b} : !axe.tensor<16x7168xf8E4M3FN, global, #axe.layout<(16, 7168) : (7168, 1)>>, !axe.tensor<4096x7168xf8E4M3FN, global, #axe.layout<(4096, 7168) : (7168, 1)>>, !axe.tensor<16x4096xbf16, global, #axe.layout<(16, 4096) : (4096, 1)>>
    return
  }
}


// -----

// f32 output: the epilogue stages 64-column parts (256 bytes a row).
// CHECK-LABEL: func.func @mm_256x1024x512_f16
// CHECK: axe.matmul {{.*}}schedule = #axe.matmul_schedule<tile_m = 64, tile_n = 64, tile_k = 64, stages = 8, cluster = 1, group = 4, grid = 64, split_k = 1, persistent = true>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @mm_256x1024x512_f16(%a: memref<131072xf16> {axe.align = 16 : i64}, %b: memref<524288xf16> {axe.align = 16 : i64}, %c: memref<262144xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<131072xf16> to !axe.tensor<256x512xf16, global, #axe.layout<(256, 512) : (512, 1)>>
    %B = axe.view %b : memref<524288xf16> to !axe.tensor<512x1024xf16, global, #axe.layout<(512, 1024) : (1024, 1)>>
    %C = axe.view %c : memref<262144xf32> to !axe.tensor<256x1024xf32, global, #axe.layout<(256, 1024) : (1024, 1)>>
    axe.matmul %A, %B, %C : !axe.tensor<256x512xf16, global, #axe.layout<(256, 512) : (512, 1)>>, !axe.tensor<512x1024xf16, global, #axe.layout<(512, 1024) : (1024, 1)>>, !axe.tensor<256x1024xf32, global, #axe.layout<(256, 1024) : (1024, 1)>>
    return
  }
}


// -----

// The user's fields win: tile_n = 128 and no persistence given, the rest chosen around them.
// CHECK-LABEL: func.func @mm_8192x14336x4096_f16
// CHECK: axe.matmul {{.*}}schedule = #axe.matmul_schedule<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, cluster = 1, group = 8, grid = 7168, split_k = 1, persistent = false>
// PCIE-LABEL: func.func @mm_8192x14336x4096_f16
// PCIE: axe.matmul {{.*}}schedule = #axe.matmul_schedule<tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, cluster = 1, group = 8, grid = 7168, split_k = 1, persistent = false>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @mm_8192x14336x4096_f16(%a: memref<33554432xf16> {axe.align = 16 : i64}, %b: memref<58720256xf16> {axe.align = 16 : i64}, %c: memref<117440512xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<33554432xf16> to !axe.tensor<8192x4096xf16, global, #axe.layout<(8192, 4096) : (4096, 1)>>
    %B = axe.view %b : memref<58720256xf16> to !axe.tensor<4096x14336xf16, global, #axe.layout<(4096, 14336) : (14336, 1)>>
    %C = axe.view %c : memref<117440512xf16> to !axe.tensor<8192x14336xf16, global, #axe.layout<(8192, 14336) : (14336, 1)>>
    axe.matmul %A, %B, %C {schedule = #axe.matmul_schedule<tile_n = 128, persistent = false>} : !axe.tensor<8192x4096xf16, global, #axe.layout<(8192, 4096) : (4096, 1)>>, !axe.tensor<4096x14336xf16, global, #axe.layout<(4096, 14336) : (14336, 1)>>, !axe.tensor<8192x14336xf16, global, #axe.layout<(8192, 14336) : (14336, 1)>>
    return
  }
}
