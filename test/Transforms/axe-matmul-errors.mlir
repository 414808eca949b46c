// axe-matmul-schedule's and axe-expand-matmul's refusals, located at the op, with what would be
// accepted.
// RUN: axe-opt %s --split-input-file --axe-matmul-schedule --axe-expand-matmul --verify-diagnostics

// A row stride of 1001 f16 elements (2002 bytes) is no multiple of TMA's 16 bytes: the
// error names B and what would be accepted.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @odd_stride(%a: memref<16384xf16> {axe.align = 16 : i64}, %b: memref<256256xf16> {axe.align = 16 : i64}, %c: memref<64064xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<16384xf16> to !axe.tensor<64x256xf16, global, #axe.layout<(64, 256) : (256, 1)>>
    %B = axe.view %b : memref<256256xf16> to !axe.tensor<256x1001xf16, global, #axe.layout<(256, 1001) : (1001, 1)>>
    %C = axe.view %c : memref<64064xf16> to !axe.tensor<64x1001xf16, global, #axe.layout<(64, 1001) : (1001, 1)>>
    // expected-error @+1 {{'axe.matmul' op B has layout !axe.tensor<256x1001xf16, global, #axe.layout<(256, 1001) : (1001, 1)>>, which TMA cannot load; expected a row-major layout (256, 1001) : (ld, 1) with ld >= 1001 and ld * 2 bytes a multiple of 16}}
    axe.matmul %A, %B, %C : !axe.tensor<64x256xf16, global, #axe.layout<(64, 256) : (256, 1)>>, !axe.tensor<256x1001xf16, global, #axe.layout<(256, 1001) : (1001, 1)>>, !axe.tensor<64x1001xf16, global, #axe.layout<(64, 1001) : (1001, 1)>>
    return
  }
}

// -----

// sm_90 has no wgmma: the GEMM expands to sm_90a's kernel only.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @no_wgmma(%a: memref<16384xf16> {axe.align = 16 : i64}, %b: memref<16384xf16> {axe.align = 16 : i64}, %c: memref<16384xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<16384xf16> to !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>
    %B = axe.view %b : memref<16384xf16> to !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>
    %C = axe.view %c : memref<16384xf16> to !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>
    // expected-error @+1 {{'axe.matmul' op 128x128x128: cannot schedule: target 'sm_90' has no wgmma}}
    axe.matmul %A, %B, %C : !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>, !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>, !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>
    return
  }
}

// -----

// An override wgmma cannot run: N = 320 is wider than its largest N.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @wide(%a: memref<16384xf16> {axe.align = 16 : i64}, %b: memref<81920xf16> {axe.align = 16 : i64}, %c: memref<81920xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<16384xf16> to !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>
    %B = axe.view %b : memref<81920xf16> to !axe.tensor<128x640xf16, global, #axe.layout<(128, 640) : (640, 1)>>
    %C = axe.view %c : memref<81920xf16> to !axe.tensor<128x640xf16, global, #axe.layout<(128, 640) : (640, 1)>>
    // expected-error @+1 {{cannot schedule: tile_n = 320 (expected a multiple of 64 from 64 to 256}}
    axe.matmul %A, %B, %C {schedule = #axe.matmul_schedule<tile_n = 320>} : !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>, !axe.tensor<128x640xf16, global, #axe.layout<(128, 640) : (640, 1)>>, !axe.tensor<128x640xf16, global, #axe.layout<(128, 640) : (640, 1)>>
    return
  }
}

// -----

// Eight stages of 128x256x64 f16 need more shared memory than a CTA may have.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @deep(%a: memref<1048576xf16> {axe.align = 16 : i64}, %b: memref<1048576xf16> {axe.align = 16 : i64}, %c: memref<1048576xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<1048576xf16> to !axe.tensor<1024x1024xf16, global, #axe.layout<(1024, 1024) : (1024, 1)>>
    %B = axe.view %b : memref<1048576xf16> to !axe.tensor<1024x1024xf16, global, #axe.layout<(1024, 1024) : (1024, 1)>>
    %C = axe.view %c : memref<1048576xf16> to !axe.tensor<1024x1024xf16, global, #axe.layout<(1024, 1024) : (1024, 1)>>
    // expected-error @+1 {{8 stages of 128x256x64 need 427008 bytes of shared memory with the output staging, more than the 232448 a CTA of 'sm_90a' may have}}
    axe.matmul %A, %B, %C {schedule = #axe.matmul_schedule<tile_m = 128, tile_n = 256, stages = 8>} : !axe.tensor<1024x1024xf16, global, #axe.layout<(1024, 1024) : (1024, 1)>>, !axe.tensor<1024x1024xf16, global, #axe.layout<(1024, 1024) : (1024, 1)>>, !axe.tensor<1024x1024xf16, global, #axe.layout<(1024, 1024) : (1024, 1)>>
    return
  }
}

// -----

// A persistent = false schedule launches one CTA per tile; a grid that does not is refused.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @grid(%a: memref<65536xf16> {axe.align = 16 : i64}, %b: memref<65536xf16> {axe.align = 16 : i64}, %c: memref<65536xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<65536xf16> to !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>>
    %B = axe.view %b : memref<65536xf16> to !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>>
    %C = axe.view %c : memref<65536xf16> to !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>>
    // expected-error @+1 {{grid = 3 without persistence must launch one CTA per tile}}
    axe.matmul %A, %B, %C {schedule = #axe.matmul_schedule<persistent = false, grid = 3>} : !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>>, !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>>, !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>>
    return
  }
}

// -----

// Without an #axe.target there are no SMs, shared memory or tensor cores to schedule for.
func.func @no_target(%A: !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>, %B: !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>, %C: !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>) {
  // expected-error @+1 {{'axe.matmul' op needs the module's #axe.target}}
  axe.matmul %A, %B, %C : !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>, !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>, !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>
  return
}

// -----

// Split-K keeps running sums: without the op's workspace there is nowhere to keep them.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @no_workspace(%a: memref<262144xf16> {axe.align = 16 : i64}, %b: memref<16777216xf16> {axe.align = 16 : i64}, %c: memref<262144xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<262144xf16> to !axe.tensor<64x4096xf16, global, #axe.layout<(64, 4096) : (4096, 1)>>
    %B = axe.view %b : memref<16777216xf16> to !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    %C = axe.view %c : memref<262144xf16> to !axe.tensor<64x4096xf16, global, #axe.layout<(64, 4096) : (4096, 1)>>
    // expected-error @+1 {{split_k = 2 needs the op's workspace(%partials, %flags : ...) for the running sums}}
    axe.matmul %A, %B, %C {schedule = #axe.matmul_schedule<split_k = 2>} : !axe.tensor<64x4096xf16, global, #axe.layout<(64, 4096) : (4096, 1)>>, !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>>, !axe.tensor<64x4096xf16, global, #axe.layout<(64, 4096) : (4096, 1)>>
    return
  }
}

// -----

// K steps of one 128-byte swizzle row only: 16-bit inputs take 64 elements per stage.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @tile_k(%a: memref<65536xf16> {axe.align = 16 : i64}, %b: memref<131072xf16> {axe.align = 16 : i64}, %c: memref<32768xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<65536xf16> to !axe.tensor<128x512xf16, global, #axe.layout<(128, 512) : (512, 1)>>
    %B = axe.view %b : memref<131072xf16> to !axe.tensor<512x256xf16, global, #axe.layout<(512, 256) : (256, 1)>>
    %C = axe.view %c : memref<32768xf16> to !axe.tensor<128x256xf16, global, #axe.layout<(128, 256) : (256, 1)>>
    // expected-error @+1 {{tile_k = 128 (expected 64: one 128-byte swizzle row of 16-bit elements)}}
    axe.matmul %A, %B, %C {schedule = #axe.matmul_schedule<tile_k = 128>} : !axe.tensor<128x512xf16, global, #axe.layout<(128, 512) : (512, 1)>>, !axe.tensor<512x256xf16, global, #axe.layout<(512, 256) : (256, 1)>>, !axe.tensor<128x256xf16, global, #axe.layout<(128, 256) : (256, 1)>>
    return
  }
}

// -----

// Eight parts of a K that has four rounds of 2 stages leave parts with nothing to add.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @split_rounds(%a: memref<32768xf16> {axe.align = 16 : i64}, %b: memref<131072xf16> {axe.align = 16 : i64}, %c: memref<16384xf16> {axe.align = 16 : i64}, %p: memref<16384xf32> {axe.align = 16 : i64}, %f: memref<4xi32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<32768xf16> to !axe.tensor<64x512xf16, global, #axe.layout<(64, 512) : (512, 1)>>
    %B = axe.view %b : memref<131072xf16> to !axe.tensor<512x256xf16, global, #axe.layout<(512, 256) : (256, 1)>>
    %C = axe.view %c : memref<16384xf16> to !axe.tensor<64x256xf16, global, #axe.layout<(64, 256) : (256, 1)>>
    %P = axe.view %p : memref<16384xf32> to !axe.tensor<64x256xf32, global, #axe.layout<(64, 256) : (256, 1)>>
    %F = axe.view %f : memref<4xi32> to !axe.tensor<1x4xi32, global, #axe.layout<(1, 4) : (4, 1)>>
    // expected-error @+1 {{split_k = 8 exceeds the 4 rounds of 2 stages that K = 512 has}}
    axe.matmul %A, %B, %C workspace(%P, %F : !axe.tensor<64x256xf32, global, #axe.layout<(64, 256) : (256, 1)>>, !axe.tensor<1x4xi32, global, #axe.layout<(1, 4) : (4, 1)>>) {schedule = #axe.matmul_schedule<tile_m = 64, tile_n = 64, stages = 2, split_k = 8>} : !axe.tensor<64x512xf16, global, #axe.layout<(64, 512) : (512, 1)>>, !axe.tensor<512x256xf16, global, #axe.layout<(512, 256) : (256, 1)>>, !axe.tensor<64x256xf16, global, #axe.layout<(64, 256) : (256, 1)>>
    return
  }
}

// -----

// A split tile's parts wait for each other: pairs of CTAs (which wait for each other's stages) are not split.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @split_pairs(%a: memref<1048576xf16> {axe.align = 16 : i64}, %b: memref<1048576xf16> {axe.align = 16 : i64}, %c: memref<65536xf16> {axe.align = 16 : i64}, %p: memref<65536xf32> {axe.align = 16 : i64}, %f: memref<16xi32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<1048576xf16> to !axe.tensor<256x4096xf16, global, #axe.layout<(256, 4096) : (4096, 1)>>
    %B = axe.view %b : memref<1048576xf16> to !axe.tensor<4096x256xf16, global, #axe.layout<(4096, 256) : (256, 1)>>
    %C = axe.view %c : memref<65536xf16> to !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>>
    %P = axe.view %p : memref<65536xf32> to !axe.tensor<256x256xf32, global, #axe.layout<(256, 256) : (256, 1)>>
    %F = axe.view %f : memref<16xi32> to !axe.tensor<4x4xi32, global, #axe.layout<(4, 4) : (4, 1)>>
    // expected-error @+1 {{split_k = 2 needs cluster = 1 and a persistent grid}}
    axe.matmul %A, %B, %C workspace(%P, %F : !axe.tensor<256x256xf32, global, #axe.layout<(256, 256) : (256, 1)>>, !axe.tensor<4x4xi32, global, #axe.layout<(4, 4) : (4, 1)>>) {schedule = #axe.matmul_schedule<split_k = 2, cluster = 2>} : !axe.tensor<256x4096xf16, global, #axe.layout<(256, 4096) : (4096, 1)>>, !axe.tensor<4096x256xf16, global, #axe.layout<(4096, 256) : (256, 1)>>, !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>>
    return
  }
}

// -----

// A cluster's CTAs launch together: the grid is whole clusters.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @odd_grid(%a: memref<262144xf16> {axe.align = 16 : i64}, %b: memref<262144xf16> {axe.align = 16 : i64}, %c: memref<262144xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<262144xf16> to !axe.tensor<512x512xf16, global, #axe.layout<(512, 512) : (512, 1)>>
    %B = axe.view %b : memref<262144xf16> to !axe.tensor<512x512xf16, global, #axe.layout<(512, 512) : (512, 1)>>
    %C = axe.view %c : memref<262144xf16> to !axe.tensor<512x512xf16, global, #axe.layout<(512, 512) : (512, 1)>>
    // expected-error @+1 {{grid = 3 (expected a positive multiple of the cluster size 2)}}
    axe.matmul %A, %B, %C {schedule = #axe.matmul_schedule<tile_m = 128, tile_n = 128, cluster = 2, grid = 3>} : !axe.tensor<512x512xf16, global, #axe.layout<(512, 512) : (512, 1)>>, !axe.tensor<512x512xf16, global, #axe.layout<(512, 512) : (512, 1)>>, !axe.tensor<512x512xf16, global, #axe.layout<(512, 512) : (512, 1)>>
    return
  }
}

// -----

// A tensor map needs a layout: `?` on a global operand is refused at the op.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @no_layout(%A: !axe.tensor<128x128xf16, global, ?>, %B: !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>, %C: !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>) {
    // expected-error @+1 {{'axe.matmul' op A has no layout; TMA needs a row-major layout (128, 128) : (ld, 1) with ld >= 128 and ld * 2 bytes a multiple of 16}}
    axe.matmul %A, %B, %C : !axe.tensor<128x128xf16, global, ?>, !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>, !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>
    return
  }
}


// -----

// A user's tile_m = 128 would straddle two devices' 64-row shards of the gathered A.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @row_tile_straddles(%a: memref<32768xf16> {axe.align = 16 : i64}, %b: memref<131072xf16> {axe.align = 16 : i64}, %c: memref<32768xf16> {axe.align = 16 : i64}, %g: memref<131072xf16> {axe.align = 16 : i64}, %gf: memref<20xi32> {axe.align = 16 : i64}, %epoch: i32) {
    axe.mesh [4] {
      %A = axe.view %a : memref<32768xf16> to !axe.tensor<256x512xf16, global, #axe.layout<(4, 64, 512) : (1@gpuid, 512, 1)>>
      %B = axe.view %b : memref<131072xf16> to !axe.tensor<512x256xf16, global, #axe.layout<(512, 256) : (256, 1)>>
      %C = axe.view %c : memref<32768xf16> to !axe.tensor<256x128xf16, global, #axe.layout<(256, 128) : (128, 1)>>
      %G = axe.view %g : memref<131072xf16> to !axe.tensor<4x256x512xf16, global, #axe.layout<(4, 256, 512) : (1@gpuid, 512, 1)>>
      %GF = axe.view %gf : memref<20xi32> to !axe.tensor<4x5x4xi32, global, #axe.layout<(4, 5, 4) : (1@gpuid, 4, 1)>>
      // expected-error @+1 {{'axe.matmul' op 256x256x512: cannot schedule: tile_m = 128 does not divide a device's 64 rows of the gathered A (a row tile waits for one device's rows)}}
      axe.matmul %A, %B, %C gate silu gather(%G, %GF, %epoch : !axe.tensor<4x256x512xf16, global, #axe.layout<(4, 256, 512) : (1@gpuid, 512, 1)>>, !axe.tensor<4x5x4xi32, global, #axe.layout<(4, 5, 4) : (1@gpuid, 4, 1)>>) {schedule = #axe.matmul_schedule<tile_m = 128>} : !axe.tensor<256x512xf16, global, #axe.layout<(4, 64, 512) : (1@gpuid, 512, 1)>>, !axe.tensor<512x256xf16, global, #axe.layout<(512, 256) : (256, 1)>>, !axe.tensor<256x128xf16, global, #axe.layout<(256, 128) : (128, 1)>>
    }
    return
  }
}

// -----

// A gated tile's halves must be whole 64-column blocks.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @gated_192(%a: memref<131072xf16> {axe.align = 16 : i64}, %b: memref<393216xf16> {axe.align = 16 : i64}, %c: memref<98304xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<131072xf16> to !axe.tensor<256x512xf16, global, #axe.layout<(256, 512) : (512, 1)>>
    %B = axe.view %b : memref<393216xf16> to !axe.tensor<512x768xf16, global, #axe.layout<(512, 768) : (768, 1)>>
    %C = axe.view %c : memref<98304xf16> to !axe.tensor<256x384xf16, global, #axe.layout<(256, 384) : (384, 1)>>
    // expected-error @+1 {{'axe.matmul' op 256x768x512: cannot schedule: tile_n = 192 in a gated product (expected 128 or 256: each half, gate and up, whole 64-column blocks)}}
    axe.matmul %A, %B, %C gate silu {schedule = #axe.matmul_schedule<tile_n = 192>} : !axe.tensor<256x512xf16, global, #axe.layout<(256, 512) : (512, 1)>>, !axe.tensor<512x768xf16, global, #axe.layout<(512, 768) : (768, 1)>>, !axe.tensor<256x384xf16, global, #axe.layout<(256, 384) : (384, 1)>>
    return
  }
}

// -----

// The gathered A must be distributed by rows over the mesh.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @a_not_distributed(%a: memref<65536xf16> {axe.align = 16 : i64}, %b: memref<131072xf16> {axe.align = 16 : i64}, %c: memref<32768xf16> {axe.align = 16 : i64}, %g: memref<131072xf16> {axe.align = 16 : i64}, %gf: memref<6xi32> {axe.align = 16 : i64}, %epoch: i32) {
    axe.mesh [2] {
      %A = axe.view %a : memref<65536xf16> to !axe.tensor<256x512xf16, global, #axe.layout<(256, 512) : (512, 1)>>
      %B = axe.view %b : memref<131072xf16> to !axe.tensor<512x256xf16, global, #axe.layout<(512, 256) : (256, 1)>>
      %C = axe.view %c : memref<32768xf16> to !axe.tensor<256x128xf16, global, #axe.layout<(256, 128) : (128, 1)>>
      %G = axe.view %g : memref<131072xf16> to !axe.tensor<2x256x512xf16, global, #axe.layout<(2, 256, 512) : (1@gpuid, 512, 1)>>
      %GF = axe.view %gf : memref<6xi32> to !axe.tensor<2x3x2xi32, global, #axe.layout<(2, 3, 2) : (1@gpuid, 2, 1)>>
      // expected-error @+1 {{'axe.matmul' op the gathered product's A (rows distributed over the mesh) has type}}
      axe.matmul %A, %B, %C gate silu gather(%G, %GF, %epoch : !axe.tensor<2x256x512xf16, global, #axe.layout<(2, 256, 512) : (1@gpuid, 512, 1)>>, !axe.tensor<2x3x2xi32, global, #axe.layout<(2, 3, 2) : (1@gpuid, 2, 1)>>) : !axe.tensor<256x512xf16, global, #axe.layout<(256, 512) : (512, 1)>>, !axe.tensor<512x256xf16, global, #axe.layout<(512, 256) : (256, 1)>>, !axe.tensor<256x128xf16, global, #axe.layout<(256, 128) : (128, 1)>>
    }
    return
  }
}

// -----

// A gathered A is pushed by one to three spare warps of the producer warpgroup.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @too_many_pushers(%a: memref<65536xf16> {axe.align = 16 : i64}, %b: memref<131072xf16> {axe.align = 16 : i64}, %c: memref<32768xf16> {axe.align = 16 : i64}, %g: memref<131072xf16> {axe.align = 16 : i64}, %gf: memref<6xi32> {axe.align = 16 : i64}, %epoch: i32) {
    axe.mesh [2] {
      %A = axe.view %a : memref<65536xf16> to !axe.tensor<256x512xf16, global, #axe.layout<(2, 128, 512) : (1@gpuid, 512, 1)>>
      %B = axe.view %b : memref<131072xf16> to !axe.tensor<512x256xf16, global, #axe.layout<(512, 256) : (256, 1)>>
      %C = axe.view %c : memref<32768xf16> to !axe.tensor<256x128xf16, global, #axe.layout<(256, 128) : (128, 1)>>
      %G = axe.view %g : memref<131072xf16> to !axe.tensor<2x256x512xf16, global, #axe.layout<(2, 256, 512) : (1@gpuid, 512, 1)>>
      %GF = axe.view %gf : memref<6xi32> to !axe.tensor<2x3x2xi32, global, #axe.layout<(2, 3, 2) : (1@gpuid, 2, 1)>>
      // expected-error @+1 {{'axe.matmul' op 256x256x512: cannot schedule: pushers = 4 (expected 1 to 3: the producer warpgroup's spare warps)}}
      axe.matmul %A, %B, %C gate silu gather(%G, %GF, %epoch : !axe.tensor<2x256x512xf16, global, #axe.layout<(2, 256, 512) : (1@gpuid, 512, 1)>>, !axe.tensor<2x3x2xi32, global, #axe.layout<(2, 3, 2) : (1@gpuid, 2, 1)>>) {schedule = #axe.matmul_schedule<pushers = 4>} : !axe.tensor<256x512xf16, global, #axe.layout<(2, 128, 512) : (1@gpuid, 512, 1)>>, !axe.tensor<512x256xf16, global, #axe.layout<(512, 256) : (256, 1)>>, !axe.tensor<256x128xf16, global, #axe.layout<(256, 128) : (128, 1)>>
    }
    return
  }
}

// -----

// Without a gathered A there is nothing to push.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @pushers_without_gather(%a: memref<131072xf16> {axe.align = 16 : i64}, %b: memref<65536xf16> {axe.align = 16 : i64}, %c: memref<32768xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<131072xf16> to !axe.tensor<256x512xf16, global, #axe.layout<(256, 512) : (512, 1)>>
    %B = axe.view %b : memref<65536xf16> to !axe.tensor<512x128xf16, global, #axe.layout<(512, 128) : (128, 1)>>
    %C = axe.view %c : memref<32768xf16> to !axe.tensor<256x128xf16, global, #axe.layout<(256, 128) : (128, 1)>>
    // expected-error @+1 {{'axe.matmul' op 256x128x512: cannot schedule: pushers = 2 without a gathered A (`gather(...)`): there is nothing to push}}
    axe.matmul %A, %B, %C {schedule = #axe.matmul_schedule<pushers = 2>} : !axe.tensor<256x512xf16, global, #axe.layout<(256, 512) : (512, 1)>>, !axe.tensor<512x128xf16, global, #axe.layout<(512, 128) : (128, 1)>>, !axe.tensor<256x128xf16, global, #axe.layout<(256, 128) : (128, 1)>>
    return
  }
}

// -----

// The pushers copy 256 columns at a time: a gathered A's K must be a multiple of 256.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @gather_k(%a: memref<40960xf16> {axe.align = 16 : i64}, %b: memref<81920xf16> {axe.align = 16 : i64}, %c: memref<32768xf16> {axe.align = 16 : i64}, %g: memref<81920xf16> {axe.align = 16 : i64}, %gf: memref<6xi32> {axe.align = 16 : i64}, %epoch: i32) {
    axe.mesh [2] {
      %A = axe.view %a : memref<40960xf16> to !axe.tensor<256x320xf16, global, #axe.layout<(2, 128, 320) : (1@gpuid, 320, 1)>>
      %B = axe.view %b : memref<81920xf16> to !axe.tensor<320x256xf16, global, #axe.layout<(320, 256) : (256, 1)>>
      %C = axe.view %c : memref<32768xf16> to !axe.tensor<256x128xf16, global, #axe.layout<(256, 128) : (128, 1)>>
      %G = axe.view %g : memref<81920xf16> to !axe.tensor<2x256x320xf16, global, #axe.layout<(2, 256, 320) : (1@gpuid, 320, 1)>>
      %GF = axe.view %gf : memref<6xi32> to !axe.tensor<2x3x2xi32, global, #axe.layout<(2, 3, 2) : (1@gpuid, 2, 1)>>
      // expected-error @+1 {{'axe.matmul' op a gathered A needs K a multiple of 256 and whole 64-row blocks per device (K = 320, 128 rows per device)}}
      axe.matmul %A, %B, %C gate silu gather(%G, %GF, %epoch : !axe.tensor<2x256x320xf16, global, #axe.layout<(2, 256, 320) : (1@gpuid, 320, 1)>>, !axe.tensor<2x3x2xi32, global, #axe.layout<(2, 3, 2) : (1@gpuid, 2, 1)>>) : !axe.tensor<256x320xf16, global, #axe.layout<(2, 128, 320) : (1@gpuid, 320, 1)>>, !axe.tensor<320x256xf16, global, #axe.layout<(320, 256) : (256, 1)>>, !axe.tensor<256x128xf16, global, #axe.layout<(256, 128) : (128, 1)>>
    }
    return
  }
}

// -----

// The flags are row-major per device (a row per source, then the start flags).
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @gather_flags_layout(%a: memref<65536xf16> {axe.align = 16 : i64}, %b: memref<131072xf16> {axe.align = 16 : i64}, %c: memref<32768xf16> {axe.align = 16 : i64}, %g: memref<131072xf16> {axe.align = 16 : i64}, %gf: memref<6xi32> {axe.align = 16 : i64}, %epoch: i32) {
    axe.mesh [2] {
      %A = axe.view %a : memref<65536xf16> to !axe.tensor<256x512xf16, global, #axe.layout<(2, 128, 512) : (1@gpuid, 512, 1)>>
      %B = axe.view %b : memref<131072xf16> to !axe.tensor<512x256xf16, global, #axe.layout<(512, 256) : (256, 1)>>
      %C = axe.view %c : memref<32768xf16> to !axe.tensor<256x128xf16, global, #axe.layout<(256, 128) : (128, 1)>>
      %G = axe.view %g : memref<131072xf16> to !axe.tensor<2x256x512xf16, global, #axe.layout<(2, 256, 512) : (1@gpuid, 512, 1)>>
      %GF = axe.view %gf : memref<6xi32> to !axe.tensor<2x3x2xi32, global, #axe.layout<(2, 3, 2) : (1@gpuid, 1, 3)>>
      // expected-error @+1 {{'axe.matmul' op the gathered product's gather flags has type}}
      axe.matmul %A, %B, %C gate silu gather(%G, %GF, %epoch : !axe.tensor<2x256x512xf16, global, #axe.layout<(2, 256, 512) : (1@gpuid, 512, 1)>>, !axe.tensor<2x3x2xi32, global, #axe.layout<(2, 3, 2) : (1@gpuid, 1, 3)>>) : !axe.tensor<256x512xf16, global, #axe.layout<(2, 128, 512) : (1@gpuid, 512, 1)>>, !axe.tensor<512x256xf16, global, #axe.layout<(512, 256) : (256, 1)>>, !axe.tensor<256x128xf16, global, #axe.layout<(256, 128) : (128, 1)>>
    }
    return
  }
}

// -----

// A ping-pong schedule takes no clusters.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @pingpong_cluster(%A: !axe.tensor<256x512xf16, global, #axe.layout<(256, 512) : (512, 1)>>, %B: !axe.tensor<512x1024xf16, global, #axe.layout<(512, 1024) : (1024, 1)>>, %C: !axe.tensor<256x1024xf16, global, #axe.layout<(256, 1024) : (1024, 1)>>) {
    // expected-error @+1 {{'axe.matmul' op 256x1024x512: cannot schedule: pingpong = true with cluster > 1 (the ping-pong consumers do not share B across CTAs)}}
    axe.matmul %A, %B, %C {schedule = #axe.matmul_schedule<pingpong = true, cluster = 2>} : !axe.tensor<256x512xf16, global, #axe.layout<(256, 512) : (512, 1)>>, !axe.tensor<512x1024xf16, global, #axe.layout<(512, 1024) : (1024, 1)>>, !axe.tensor<256x1024xf16, global, #axe.layout<(256, 1024) : (1024, 1)>>
    return
  }
}

// -----

// A ping-pong schedule computes 64-row tiles per warpgroup, and its tiles are not split.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @pingpong_rows(%A: !axe.tensor<256x512xf16, global, #axe.layout<(256, 512) : (512, 1)>>, %B: !axe.tensor<512x1024xf16, global, #axe.layout<(512, 1024) : (1024, 1)>>, %C: !axe.tensor<256x1024xf16, global, #axe.layout<(256, 1024) : (1024, 1)>>) {
    // expected-error @+1 {{'axe.matmul' op 256x1024x512: cannot schedule: pingpong = true with tile_m = 128 (a ping-pong warpgroup computes 64-row tiles)}}
    axe.matmul %A, %B, %C {schedule = #axe.matmul_schedule<pingpong = true, tile_m = 128>} : !axe.tensor<256x512xf16, global, #axe.layout<(256, 512) : (512, 1)>>, !axe.tensor<512x1024xf16, global, #axe.layout<(512, 1024) : (1024, 1)>>, !axe.tensor<256x1024xf16, global, #axe.layout<(256, 1024) : (1024, 1)>>
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @pingpong_split(%A: !axe.tensor<64x4096xf16, global, #axe.layout<(64, 4096) : (4096, 1)>>, %B: !axe.tensor<4096x256xf16, global, #axe.layout<(4096, 256) : (256, 1)>>, %C: !axe.tensor<64x256xf16, global, #axe.layout<(64, 256) : (256, 1)>>, %P: !axe.tensor<64x256xf32, global, #axe.layout<(64, 256) : (256, 1)>>, %F: !axe.tensor<1x4xi32, global, #axe.layout<(1, 4) : (4, 1)>>) {
    // expected-error @+1 {{'axe.matmul' op 64x256x4096: cannot schedule: pingpong = true with split_k > 1 (split tiles' fix-ups are not ordered between ping-pong warpgroups)}}
    axe.matmul %A, %B, %C workspace(%P, %F : !axe.tensor<64x256xf32, global, #axe.layout<(64, 256) : (256, 1)>>, !axe.tensor<1x4xi32, global, #axe.layout<(1, 4) : (4, 1)>>) {schedule = #axe.matmul_schedule<pingpong = true, split_k = 2>} : !axe.tensor<64x4096xf16, global, #axe.layout<(64, 4096) : (4096, 1)>>, !axe.tensor<4096x256xf16, global, #axe.layout<(4096, 256) : (256, 1)>>, !axe.tensor<64x256xf16, global, #axe.layout<(64, 256) : (256, 1)>>
    return
  }
}

// -----

// Block-scaled FP8 with a tile wider than a block of B's scales.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @block_scales_wide_tile(%a: memref<131072xf8E4M3FN> {axe.align = 16 : i64}, %b: memref<131072xf8E4M3FN> {axe.align = 16 : i64}, %c: memref<65536xbf16> {axe.align = 16 : i64}, %scale_a: memref<1024xf32> {axe.align = 16 : i64}, %scale_b: memref<8xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<131072xf8E4M3FN> to !axe.tensor<256x512xf8E4M3FN, global, #axe.layout<(256, 512) : (512, 1)>>
    %B = axe.view %b : memref<131072xf8E4M3FN> to !axe.tensor<256x512xf8E4M3FN, global, #axe.layout<(256, 512) : (512, 1)>>
    %C = axe.view %c : memref<65536xbf16> to !axe.tensor<256x256xbf16, global, #axe.layout<(256, 256) : (256, 1)>>
    %SA = axe.view %scale_a : memref<1024xf32> to !axe.tensor<256x4xf32, global, #axe.layout<(256, 4) : (1, 256)>>
    %SB = axe.view %scale_b : memref<8xf32> to !axe.tensor<2x4xf32, global, #axe.layout<(2, 4) : (4, 1)>>
    // expected-error @+1 {{'axe.matmul' op 256x256x512: cannot schedule: tile_n = 256 (block-scaled FP8 takes 64 or 128: a tile's columns lie in one 128-column block of B's scales)}}
    axe.matmul %A, %B, %C scales(%SA, %SB : !axe.tensor<256x4xf32, global, #axe.layout<(256, 4) : (1, 256)>>, !axe.tensor<2x4xf32, global, #axe.layout<(2, 4) : (4, 1)>>) {transpose_b, schedule = #axe.matmul_schedule<tile_n = 256>} : !axe.tensor<256x512xf8E4M3FN, global, #axe.layout<(256, 512) : (512, 1)>>, !axe.tensor<256x512xf8E4M3FN, global, #axe.layout<(256, 512) : (512, 1)>>, !axe.tensor<256x256xbf16, global, #axe.layout<(256, 256) : (256, 1)>>
    return
  }
}
