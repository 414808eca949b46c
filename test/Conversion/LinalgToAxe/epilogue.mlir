// convert-linalg-to-axe: a matmul's elementwise consumer (after linalg-fuse-elementwise-ops,
// one linalg.generic) folded into the axe.matmul epilogue, act(acc + bias) + residual; the
// activation is recognized by its values, whatever form the body writes it in.
// RUN: axe-opt %s --split-input-file --convert-linalg-to-axe --verify-diagnostics | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// torch-mlir's ONNX Gelu (erf form, in f16 after the narrowing) over acc + bias, then a
// residual: everything in one axe.matmul; the accumulator and the generic go.
// CHECK-LABEL: func.func @bias_gelu_residual(
// CHECK-SAME: %[[A:.*]]: memref<128x256xf16> {axe.align = 16 : i64}, %[[B:.*]]: memref<256x512xf16> {axe.align = 16 : i64}, %[[BIAS:.*]]: memref<512xf16>, %[[R:.*]]: memref<128x512xf16>, %[[OUT:.*]]: memref<128x512xf16> {axe.align = 16 : i64})
// CHECK-DAG: %[[VB:.*]] = axe.view %[[BIAS]] : memref<512xf16> to !axe.tensor<1x512xf16, global, #axe.layout<(1, 512) : (512, 1)>>
// CHECK-DAG: %[[VR:.*]] = axe.view %[[R]] : memref<128x512xf16> to !axe.tensor<128x512xf16, global
// CHECK: axe.matmul %{{.*}}, %{{.*}}, %{{.*}} bias(%[[VB]] : {{.*}}) activation gelu residual(%[[VR]] : {{.*}}) :
// CHECK-NOT: linalg.
// CHECK-NOT: memref.alloc
// CHECK: return
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @bias_gelu_residual(%a: memref<128x256xf16>, %b: memref<256x512xf16>, %bias: memref<512xf16>, %r: memref<128x512xf16>, %out: memref<128x512xf16>) {
    %zero = arith.constant 0.000000e+00 : f32
    %one = arith.constant 1.000000e+00 : f16
    %two = arith.constant 2.000000e+00 : f16
    %half = arith.constant 5.000000e-01 : f16
    %acc = memref.alloc() : memref<128x512xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<128x512xf32>)
    linalg.matmul ins(%a, %b : memref<128x256xf16>, memref<256x512xf16>) outs(%acc : memref<128x512xf32>)
    linalg.generic {indexing_maps = [#id, #row, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%acc, %bias, %r : memref<128x512xf32>, memref<512xf16>, memref<128x512xf16>) outs(%out : memref<128x512xf16>) {
    ^bb0(%x: f32, %bv: f16, %rv: f16, %o: f16):
      %t = arith.truncf %x : f32 to f16
      %y = arith.addf %t, %bv : f16
      %s = math.sqrt %two : f16
      %d = arith.divf %y, %s : f16
      %e = math.erf %d : f16
      %p = arith.addf %e, %one : f16
      %h = arith.mulf %p, %half : f16
      %g = arith.mulf %y, %h : f16
      %z = arith.addf %g, %rv : f16
      linalg.yield %z : f16
    }
    memref.dealloc %acc : memref<128x512xf32>
    return
  }
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// SiLU written as x / (1 + e^-x) over the bias added on the other side, bf16, f32 output kept.
// CHECK-LABEL: func.func @bias_silu_f32(
// CHECK: axe.matmul %{{.*}}, %{{.*}}, %{{.*}} bias(%{{.*}} : !axe.tensor<1x512xbf16{{.*}}) activation silu :
// CHECK-SAME: !axe.tensor<128x512xf32
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @bias_silu_f32(%a: memref<128x256xbf16>, %b: memref<256x512xbf16>, %bias: memref<512xbf16>, %out: memref<128x512xf32>) {
    %zero = arith.constant 0.000000e+00 : f32
    %one = arith.constant 1.000000e+00 : f32
    %acc = memref.alloc() : memref<128x512xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<128x512xf32>)
    linalg.matmul ins(%a, %b : memref<128x256xbf16>, memref<256x512xbf16>) outs(%acc : memref<128x512xf32>)
    linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%acc, %bias : memref<128x512xf32>, memref<512xbf16>) outs(%out : memref<128x512xf32>) {
    ^bb0(%x: f32, %bv: bf16, %o: f32):
      %w = arith.extf %bv : bf16 to f32
      %y = arith.addf %w, %x : f32
      %n = arith.negf %y : f32
      %e = math.exp %n : f32
      %den = arith.addf %one, %e : f32
      %z = arith.divf %y, %den : f32
      linalg.yield %z : f32
    }
    return
  }
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// ReLU as torch-mlir writes it (cmpf ugt + select, in f16 after the narrowing), no bias; the
// residual added on the left.
// CHECK-LABEL: func.func @relu_residual(
// CHECK: axe.matmul %{{.*}}, %{{.*}}, %{{.*}} activation relu residual(
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @relu_residual(%a: memref<128x256xf16>, %b: memref<256x512xf16>, %r: memref<128x512xf16>, %out: memref<128x512xf16>) {
    %zero = arith.constant 0.000000e+00 : f32
    %acc = memref.alloc() : memref<128x512xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<128x512xf32>)
    linalg.matmul ins(%a, %b : memref<128x256xf16>, memref<256x512xf16>) outs(%acc : memref<128x512xf32>)
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%r, %acc : memref<128x512xf16>, memref<128x512xf32>) outs(%out : memref<128x512xf16>) {
    ^bb0(%rv: f16, %x: f32, %o: f16):
      %t = arith.truncf %x : f32 to f16
      %zh = arith.constant 0.000000e+00 : f16
      %c = arith.cmpf ugt, %t, %zh : f16
      %m = arith.select %c, %t, %zh : f16
      %z = arith.addf %rv, %m : f16
      linalg.yield %z : f16
    }
    return
  }
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// A small batch over a long K: the schedule the compiler would choose splits K, so the
// function gains split-K's workspace, arguments the launcher allocates (zeroed, once).
// CHECK-LABEL: func.func @small_batch(
// CHECK-SAME: %[[P:[^:]*]]: memref<65536xf32> {axe.align = 16 : i64, axe.workspace}, %[[F:[^:]*]]: memref<64xi32> {axe.align = 16 : i64, axe.workspace})
// CHECK: axe.matmul {{.*}} workspace(
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @small_batch(%a: memref<16x14336xf16>, %b: memref<14336x4096xf16>, %out: memref<16x4096xf16>) {
    %zero = arith.constant 0.000000e+00 : f32
    %acc = memref.alloc() : memref<16x4096xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<16x4096xf32>)
    linalg.matmul ins(%a, %b : memref<16x14336xf16>, memref<14336x4096xf16>) outs(%acc : memref<16x4096xf32>)
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%acc : memref<16x4096xf32>) outs(%out : memref<16x4096xf16>) {
    ^bb0(%x: f32, %o: f16):
      %t = arith.truncf %x : f32 to f16
      linalg.yield %t : f16
    }
    return
  }
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// Consumers that are not such an epilogue: the matmul stays, with the reason.
// CHECK-LABEL: func.func @refused(
// CHECK-COUNT-5: linalg.matmul
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @refused(%a: memref<128x256xf16>, %b: memref<256x512xf16>, %bias: memref<512xf16>, %bias2: memref<512xf16>, %r: memref<128x512xf16>, %col: memref<128xf16>, %out: memref<128x512xf16>) {
    %zero = arith.constant 0.000000e+00 : f32
    %acc1 = memref.alloc() : memref<128x512xf32>
    linalg.fill ins(%zero : f32) outs(%acc1 : memref<128x512xf32>)
    // expected-remark @+1 {{linalg.matmul not converted to axe.matmul: its result feeds a linalg.generic that is not an epilogue axe.matmul computes: its activation is none of axe.unary's functions}}
    linalg.matmul ins(%a, %b : memref<128x256xf16>, memref<256x512xf16>) outs(%acc1 : memref<128x512xf32>)
    // expected-remark @+1 {{linalg.generic not converted: it reads a temporary written outside the run (by an op not converted to Axe)}}
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%acc1 : memref<128x512xf32>) outs(%out : memref<128x512xf16>) {
    ^bb0(%x: f32, %o: f16):
      %sq = arith.mulf %x, %x : f32
      %t = arith.truncf %sq : f32 to f16
      linalg.yield %t : f16
    }
    %acc2 = memref.alloc() : memref<128x512xf32>
    linalg.fill ins(%zero : f32) outs(%acc2 : memref<128x512xf32>)
    // expected-remark @+1 {{linalg.matmul not converted to axe.matmul: its result feeds a linalg.generic that is not an epilogue axe.matmul computes: it adds more than one row-broadcast operand}}
    linalg.matmul ins(%a, %b : memref<128x256xf16>, memref<256x512xf16>) outs(%acc2 : memref<128x512xf32>)
    // expected-remark @+1 {{linalg.generic not converted: it reads a temporary written outside the run (by an op not converted to Axe)}}
    linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%acc2, %bias, %bias2 : memref<128x512xf32>, memref<512xf16>, memref<512xf16>) outs(%out : memref<128x512xf16>) {
    ^bb0(%x: f32, %u: f16, %v: f16, %o: f16):
      %t = arith.truncf %x : f32 to f16
      %y = arith.addf %t, %u : f16
      %z = arith.addf %y, %v : f16
      linalg.yield %z : f16
    }
    %acc3 = memref.alloc() : memref<128x512xf32>
    linalg.fill ins(%zero : f32) outs(%acc3 : memref<128x512xf32>)
    // expected-remark @+1 {{linalg.matmul not converted to axe.matmul: its result feeds a linalg.generic that is not an epilogue axe.matmul computes: it is not act(acc) + residual: an operand is used other than in a final residual addition}}
    linalg.matmul ins(%a, %b : memref<128x256xf16>, memref<256x512xf16>) outs(%acc3 : memref<128x512xf32>)
    // expected-remark @+1 {{linalg.generic not converted: it reads a temporary written outside the run (by an op not converted to Axe)}}
    linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%acc3, %r : memref<128x512xf32>, memref<128x512xf16>) outs(%out : memref<128x512xf16>) {
    ^bb0(%x: f32, %rv: f16, %o: f16):
      %t = arith.truncf %x : f32 to f16
      %y = arith.mulf %t, %rv : f16
      linalg.yield %y : f16
    }
    %acc4 = memref.alloc() : memref<128x512xf32>
    linalg.fill ins(%zero : f32) outs(%acc4 : memref<128x512xf32>)
    // expected-remark @+1 {{linalg.matmul not converted to axe.matmul: its result feeds a linalg.generic that is not an epilogue axe.matmul computes: operand 1's indexing map is neither the output's (d0, d1) nor a row broadcast (d1)}}
    linalg.matmul ins(%a, %b : memref<128x256xf16>, memref<256x512xf16>) outs(%acc4 : memref<128x512xf32>)
    // expected-remark @+1 {{linalg.generic not converted: it reads a temporary written outside the run (by an op not converted to Axe)}}
    linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0)>, #id], iterator_types = ["parallel", "parallel"]} ins(%acc4, %col : memref<128x512xf32>, memref<128xf16>) outs(%out : memref<128x512xf16>) {
    ^bb0(%x: f32, %c: f16, %o: f16):
      %t = arith.truncf %x : f32 to f16
      %y = arith.addf %t, %c : f16
      linalg.yield %y : f16
    }
    %acc5 = memref.alloc() : memref<128x512xf32>
    linalg.fill ins(%zero : f32) outs(%acc5 : memref<128x512xf32>)
    // expected-remark @+1 {{linalg.matmul not converted to axe.matmul: its result feeds a linalg.generic that is not an epilogue axe.matmul computes: its body uses 'math.cos', which the epilogue does not compute}}
    linalg.matmul ins(%a, %b : memref<128x256xf16>, memref<256x512xf16>) outs(%acc5 : memref<128x512xf32>)
    // expected-remark @+1 {{linalg.generic not converted: it reads a temporary written outside the run (by an op not converted to Axe)}}
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%acc5 : memref<128x512xf32>) outs(%out : memref<128x512xf16>) {
    ^bb0(%x: f32, %o: f16):
      %s = math.cos %x : f32
      %t = arith.truncf %s : f32 to f16
      linalg.yield %t : f16
    }
    return
  }
}
