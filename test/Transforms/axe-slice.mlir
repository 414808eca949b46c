// axe-slice: region slices get the layout L[R:S] (Axe paper, Algorithm 4).
// Expected layouts are derived by hand from the definition: element (i, j) of the region is
// element (lo0 + i, lo1 + j) of the source, so L[R:S](i, j) = L(lo0 + i, lo1 + j).
// RUN: axe-opt %s --axe-slice | FileCheck %s
// RUN: axe-opt %s --axe-slice 2>&1 >/dev/null | FileCheck %s --check-prefix=WARN
// Idempotent: a second run changes nothing.
// RUN: axe-opt %s --axe-slice | axe-opt --axe-slice | FileCheck %s
// WARN: warning: layout (8, 16) : (24, 1) + 8 of this slice is not filled in: its result is used by 'func.return', whose types would change

// Row-major 16x24, region [0:8, 8:24]: 24 i + (j + 8) = (8, 16) : (24, 1) + 8.
// CHECK-LABEL: func.func @row_major
// CHECK: %[[S:.*]] = axe.slice %{{.*}} [0 : 8, 8 : 24] : {{.*}} to !axe.tensor<8x16xf16, global, #axe.layout<(8, 16) : (24, 1) + 8>>
// CHECK: axe.fill %[[S]], %{{.*}} : !axe.tensor<8x16xf16, global, #axe.layout<(8, 16) : (24, 1) + 8>>, f16
func.func @row_major(%t: !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>>) {
  %s = axe.slice %t [0 : 8, 8 : 24] : !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>> to !axe.tensor<8x16xf16, global, ?>
  %z = arith.constant 0.0 : f16
  axe.fill %s, %z : !axe.tensor<8x16xf16, global, ?>, f16
  return
}

// A slice returned from the function keeps `?`: refining it would change the function's
// type, which the pass leaves to the user (a warning says so).
// CHECK-LABEL: func.func @escapes
// CHECK: to !axe.tensor<8x16xf16, global, ?>
func.func @escapes(%t: !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>>) -> !axe.tensor<8x16xf16, global, ?> {
  %s = axe.slice %t [0 : 8, 8 : 24] : !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>> to !axe.tensor<8x16xf16, global, ?>
  return %s : !axe.tensor<8x16xf16, global, ?>
}

// A 2x2 region in the middle: 24 (i + 3) + (j + 7) = (2, 2) : (24, 1) + 79.
// CHECK-LABEL: func.func @interior
// CHECK: axe.slice %{{.*}} [3 : 5, 7 : 9] : {{.*}} to !axe.tensor<2x2xf16, global, #axe.layout<(2, 2) : (24, 1) + 79>>
func.func @interior(%t: !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>>) {
  %s = axe.slice %t [3 : 5, 7 : 9] : !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>> to !axe.tensor<2x2xf16, global, ?>
  %z = arith.constant 0.0 : f16
  axe.fill %s, %z : !axe.tensor<2x2xf16, global, ?>, f16
  return
}

// The paper's tensor-core tile, right half of the columns: column digit 1 of the
// (2 : 1@warp) iter is fixed, so warp 5 + 1 = 6; replica and lanes stay.
// CHECK-LABEL: func.func @tile_half
// CHECK: axe.slice %{{.*}} [0 : 8, 8 : 16] : {{.*}} to !axe.tensor<8x8xf16, global, #axe.layout<(8, 4, 2) : (4@lane, 1@lane, 1@reg) + [(2) : (4@warp)] + 6@warp>>
func.func @tile_half(%t: !axe.tensor<8x16xf16, global, #axe.layout<(8, 2, 4, 2) : (4@lane, 1@warp, 1@lane, 1@reg) + [(2) : (4@warp)] + 5@warp>>) {
  %s = axe.slice %t [0 : 8, 8 : 16] : !axe.tensor<8x16xf16, global, #axe.layout<(8, 2, 4, 2) : (4@lane, 1@warp, 1@lane, 1@reg) + [(2) : (4@warp)] + 5@warp>> to !axe.tensor<8x8xf16, global, ?>
  %z = arith.constant 0.0 : f16
  axe.fill %s, %z : !axe.tensor<8x8xf16, global, ?>, f16
  return
}

// Slice of a slice: composed into one slice of the original ([4:12] then [2:6] = [6:10]),
// the inner slice disappears: 24 (i + 6) + (j + 8) = (4, 8) : (24, 1) + 152.
// CHECK-LABEL: func.func @chain
// CHECK-NOT: axe.slice %{{.*}} [4 : 12
// CHECK: axe.slice %{{.*}} [6 : 10, 8 : 16] : !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>> to !axe.tensor<4x8xf16, global, #axe.layout<(4, 8) : (24, 1) + 152>>
// CHECK-NOT: axe.slice
// CHECK: return
func.func @chain(%t: !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>>) {
  %a = axe.slice %t [4 : 12, 0 : 24] : !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>> to !axe.tensor<8x24xf16, global, ?>
  %b = axe.slice %a [2 : 6, 8 : 16] : !axe.tensor<8x24xf16, global, ?> to !axe.tensor<4x8xf16, global, ?>
  %z = arith.constant 0.0 : f16
  axe.fill %b, %z : !axe.tensor<4x8xf16, global, ?>, f16
  return
}

// A slice whose result layout is given and agrees (an equivalent, non-canonical spelling).
// CHECK-LABEL: func.func @given
// CHECK: to !axe.tensor<8x24xf16, global, #axe.layout<(8, 4, 6) : (24, 6, 1) + 96>>
func.func @given(%t: !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>>) {
  %s = axe.slice %t [4 : 12, 0 : 24] : !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>> to !axe.tensor<8x24xf16, global, #axe.layout<(8, 4, 6) : (24, 6, 1) + 96>>
  %z = arith.constant 0.0 : f16
  axe.fill %s, %z : !axe.tensor<8x24xf16, global, #axe.layout<(8, 4, 6) : (24, 6, 1) + 96>>, f16
  return
}

// A `?` source is left for axe-infer-layout.
// CHECK-LABEL: func.func @unknown_source
// CHECK: to !axe.tensor<4xf16, global, ?>
func.func @unknown_source(%t: !axe.tensor<16xf16, global, ?>) {
  %s = axe.slice %t [0 : 4] : !axe.tensor<16xf16, global, ?> to !axe.tensor<4xf16, global, ?>
  %z = arith.constant 0.0 : f16
  axe.fill %s, %z : !axe.tensor<4xf16, global, ?>, f16
  return
}

// A run-time tile origin: every 128x32 tile of a row-major 4096x4096 matrix has the layout
// (128, 32) : (4096, 1); the origin only moves its offset (added when lowered).
// CHECK-LABEL: func.func @run_time_origin
// CHECK: axe.slice %{{.*}} [%{{.*}} : +128, %{{.*}} : +32] : {{.*}} to !axe.tensor<128x32xf16, global, #axe.layout<(128, 32) : (4096, 1)>>
func.func @run_time_origin(%t: !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>>, %i: index, %k: index) {
  %s = axe.slice %t [%i : +128, %k : +32] : !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>> to !axe.tensor<128x32xf16, global, ?>
  %z = arith.constant 0.0 : f16
  axe.fill %s, %z : !axe.tensor<128x32xf16, global, ?>, f16
  return
}

// A window with a run-time end keeps the tile's layout at any origin: rows of a row-major
// matrix are one stride (2048), so the window is (64, 2048) : (2048, 1) wherever it starts.
// CHECK-LABEL: func.func @window
// CHECK: axe.slice %{{.*}} [%{{.*}} : +64 until %{{.*}}, 0 : 2048] : {{.*}} to !axe.tensor<64x2048xf16, global, #axe.layout<(64, 2048) : (2048, 1)>>
func.func @window(%t: !axe.tensor<1000x2048xf16, global, #axe.layout<(1000, 2048) : (2048, 1)>>, %o: index, %e: index) {
  %s = axe.slice %t [%o : +64 until %e, 0 : 2048] : !axe.tensor<1000x2048xf16, global, #axe.layout<(1000, 2048) : (2048, 1)>> to !axe.tensor<64x2048xf16, global, ?>
  axe.copy %s, %s : !axe.tensor<64x2048xf16, global, ?>, !axe.tensor<64x2048xf16, global, ?>
  return
}
