// convert-linalg-to-axe's errors and remarks that the other tests do not reach.
// RUN: axe-opt %s --split-input-file --convert-linalg-to-axe=target=sm_90a --verify-diagnostics
// RUN: not axe-opt %s --split-input-file --convert-linalg-to-axe=target=sm_99 2>&1 | FileCheck %s --check-prefix=TARGET

// TARGET: error: 'builtin.module' op convert-linalg-to-axe: unknown target 'sm_99' (known: sm_80, sm_90, sm_90a, sm_100, trn1)

// A row of 1000 elements is not a multiple of 32: the row run stays linalg.
#id = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @ragged_row(%x: memref<8x1000xf32>, %y: memref<8x1000xf32>) {
    // expected-remark @+1 {{linalg.generic not converted: rows of 1000 elements are not a multiple of 32 or exceed 16384 per row}}
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<8x1000xf32>) outs(%y : memref<8x1000xf32>) {
    ^bb0(%a: f32, %o: f32):
      %e = math.exp %a : f32
      linalg.yield %e : f32
    }
    return
  }
}

// -----

// A reduction across rows is not a row operation.
module {
  func.func @column_sum(%x: memref<8x64xf32>, %y: memref<64xf32>) {
    // expected-remark @+1 {{linalg.generic not converted: it reduces across rows}}
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : memref<8x64xf32>) outs(%y : memref<64xf32>) {
    ^bb0(%a: f32, %o: f32):
      %s = arith.addf %a, %o : f32
      linalg.yield %s : f32
    }
    return
  }
}
