// axe-slice refuses regions that admit no slice layout, at the slice, with the reason.
// RUN: axe-opt %s --axe-slice --split-input-file --verify-diagnostics

// The one-wrap step of region 2:6 of (2, 4) : (1@warp, 1) goes from m = 3 back to m = 0 on
// warp 1: it spans two axes, so no single iter can express it (an erratum of the Axe paper:
// Lemma E.2's one-wrap stride can span two axes, and the slice must then be refused).
func.func @two_axes(%t: !axe.tensor<8xf16, global, #axe.layout<(2, 4) : (1@warp, 1)>>) {
  // expected-error @+1 {{region [2:6] of layout (2, 4) : (1@warp, 1) admits no slice layout: no slice layout: the one-wrap step}}
  %s = axe.slice %t [2 : 6] : !axe.tensor<8xf16, global, #axe.layout<(2, 4) : (1@warp, 1)>> to !axe.tensor<4xf16, global, ?>
  return
}

// -----

// (3, 4) : (2, 1), region 2:6 visits m = 2, 3, 2, 3: the wrap step is zero (errata).
func.func @zero_step(%t: !axe.tensor<12xf16, global, #axe.layout<(3, 4) : (2, 1)>>) {
  // expected-error @+1 {{admits no slice layout}}
  %s = axe.slice %t [2 : 6] : !axe.tensor<12xf16, global, #axe.layout<(3, 4) : (2, 1)>> to !axe.tensor<4xf16, global, ?>
  return
}

// -----

// The errata's capacity counterexample: region 6:10 of (2, 2, 4) : (1@warp, 8, 1) over 16.
func.func @capacity(%t: !axe.tensor<16xf16, global, #axe.layout<(2, 2, 4) : (1@warp, 8, 1)>>) {
  // expected-error @+1 {{admits no slice layout}}
  %s = axe.slice %t [6 : 10] : !axe.tensor<16xf16, global, #axe.layout<(2, 2, 4) : (1@warp, 8, 1)>> to !axe.tensor<4xf16, global, ?>
  return
}

// -----

// A given result layout that contradicts L[R:S] = (8, 16) : (24, 1) + 8.
func.func @disagree(%t: !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>>) {
  // expected-error @+1 {{slice layout (8, 16) : (24, 1) disagrees with L[R:S] = (8, 16) : (24, 1) + 8 of region [0:8, 8:24]}}
  %s = axe.slice %t [0 : 8, 8 : 24] : !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>> to !axe.tensor<8x16xf16, global, #axe.layout<(8, 16) : (24, 1)>>
  return
}

// -----

// A window at a run-time origin needs a dimension that is one stride of memory: here row i
// lies at (i / 2) * 256 + (i % 2) * 64 (two iters that do not continue each other).
func.func @window_of_two_strides(%t: !axe.tensor<16x64xf16, global, #axe.layout<(8, 2, 64) : (256, 64, 1)>>, %o: index, %e: index) {
  // expected-error @+1 {{region [?:+4 until ?, 0:64] of layout (8, 2, 64) : (256, 64, 1) admits no slice layout: dimension 0 of (8, 2, 64) : (256, 64, 1) is not one stride: its iters (8, 256@m) and (2, 64@m) do not continue each other}}
  %s = axe.slice %t [%o : +4 until %e, 0 : 64] : !axe.tensor<16x64xf16, global, #axe.layout<(8, 2, 64) : (256, 64, 1)>> to !axe.tensor<4x64xf16, global, ?>
  return
}
