// convert-linalg-to-axe: bufferized linalg matrix products become axe.matmul.
// RUN: axe-opt %s --split-input-file --convert-linalg-to-axe --verify-diagnostics | FileCheck %s
// The converted module lowers to PTX: the GEMM's schedule and kernel come from the compiler.
// RUN: axe-opt %s --split-input-file --convert-linalg-to-axe --verify-diagnostics --axe-matmul-schedule | FileCheck %s --check-prefix=SCHED

// torch-mlir's form of an f16 linear layer: a zero fill of an f32 accumulator, the matmul, and
// an elementwise truncf into the f16 output. One axe.matmul writes the f16 output directly; the
// accumulator's buffer goes, and the arguments promise TMA's 16-byte alignment.
// CHECK-LABEL: func.func @linear(
// CHECK-SAME: %[[A:[^:]*]]: memref<256x1024xf16> {axe.align = 16 : i64}, %[[B:[^:]*]]: memref<1024x512xf16> {axe.align = 16 : i64}, %[[C:[^:]*]]: memref<256x512xf16> {axe.align = 16 : i64}
// CHECK: %[[VA:.*]] = axe.view %[[A]] : memref<256x1024xf16> to !axe.tensor<256x1024xf16, global, #axe.layout<(256, 1024) : (1024, 1)>>
// CHECK-NEXT: %[[VB:.*]] = axe.view %[[B]] : memref<1024x512xf16> to !axe.tensor<1024x512xf16, global, #axe.layout<(1024, 512) : (512, 1)>>
// CHECK-NEXT: %[[VC:.*]] = axe.view %[[C]] : memref<256x512xf16> to !axe.tensor<256x512xf16, global, #axe.layout<(256, 512) : (512, 1)>>
// CHECK-NEXT: axe.matmul %[[VA]], %[[VB]], %[[VC]] :
// CHECK-NOT: linalg
// CHECK-NOT: memref.alloc
// CHECK: return
// SCHED-LABEL: func.func @linear(
// SCHED: axe.matmul {{.*}} {schedule = #axe.matmul_schedule<tile_m = {{[0-9]+}}
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @linear(%a: memref<256x1024xf16>, %b: memref<1024x512xf16>, %c: memref<256x512xf16>) {
    %cst = arith.constant 0.000000e+00 : f32
    %acc = memref.alloc() : memref<256x512xf32>
    linalg.fill ins(%cst : f32) outs(%acc : memref<256x512xf32>)
    linalg.matmul ins(%a, %b : memref<256x1024xf16>, memref<1024x512xf16>) outs(%acc : memref<256x512xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc : memref<256x512xf32>) outs(%c : memref<256x512xf16>) {
    ^bb0(%in: f32, %out: f16):
      %t = arith.truncf %in : f32 to f16
      linalg.yield %t : f16
    }
    memref.dealloc %acc : memref<256x512xf32>
    return
  }
}

// -----

// An f32 output that is an argument: the matmul overwrites it (the fill goes), no narrowing.
// CHECK-LABEL: func.func @f32_out(
// CHECK: axe.matmul {{.*}} !axe.tensor<64x128xf32, global, #axe.layout<(64, 128) : (128, 1)>>
// CHECK-NOT: linalg
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @f32_out(%a: memref<64x256xbf16>, %b: memref<256x128xbf16>, %c: memref<64x128xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    linalg.fill ins(%cst : f32) outs(%c : memref<64x128xf32>)
    linalg.matmul ins(%a, %b : memref<64x256xbf16>, memref<256x128xbf16>) outs(%c : memref<64x128xf32>)
    return
  }
}

// -----

// What is not converted stays, with a remark saying why.
// CHECK-LABEL: func.func @refused(
// CHECK-COUNT-5: linalg.matmul
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @refused(%a: memref<64x256xf16>, %b: memref<256x128xf16>, %at: memref<256x64xf16>, %c: memref<64x128xf32>, %t: tensor<64x256xf16>, %tb: tensor<256x128xf16>, %tc: tensor<64x128xf32>) -> tensor<64x128xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    // expected-remark @+1 {{linalg.matmul not converted to axe.matmul: it accumulates into its output (no zero linalg.fill of it, or copy of zeros, before it), which axe.matmul overwrites}}
    linalg.matmul ins(%a, %b : memref<64x256xf16>, memref<256x128xf16>) outs(%c : memref<64x128xf32>)
    linalg.fill ins(%cst : f32) outs(%c : memref<64x128xf32>)
    // expected-remark @+1 {{linalg.matmul not converted to axe.matmul: its indexing_maps transpose A or broadcast an operand}}
    linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%at, %b : memref<256x64xf16>, memref<256x128xf16>) outs(%c : memref<64x128xf32>)
    %local = memref.alloc() : memref<64x128xf32>
    linalg.fill ins(%cst : f32) outs(%local : memref<64x128xf32>)
    // expected-remark @+1 {{linalg.matmul not converted to axe.matmul: its output is a buffer nothing reads}}
    linalg.matmul ins(%a, %b : memref<64x256xf16>, memref<256x128xf16>) outs(%local : memref<64x128xf32>)
    %copied = memref.alloc() : memref<64x128xf32>
    linalg.fill ins(%cst : f32) outs(%copied : memref<64x128xf32>)
    // expected-remark @+1 {{linalg.matmul not converted to axe.matmul: its output is a temporary buffer read by other than one elementwise linalg.generic}}
    linalg.matmul ins(%a, %b : memref<64x256xf16>, memref<256x128xf16>) outs(%copied : memref<64x128xf32>)
    memref.copy %copied, %c : memref<64x128xf32> to memref<64x128xf32>
    // expected-remark @+1 {{linalg.matmul not converted to axe.matmul: its operands are tensors: bufferize first (one-shot-bufferize)}}
    %r = linalg.matmul ins(%t, %tb : tensor<64x256xf16>, tensor<256x128xf16>) outs(%tc : tensor<64x128xf32>) -> tensor<64x128xf32>
    return %r : tensor<64x128xf32>
  }
}

// -----

// Dynamic, strided and non-zero-filled outputs stay too, and so do f32 inputs.
// CHECK-LABEL: func.func @refused_buffers(
// CHECK-COUNT-4: linalg.matmul
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @refused_buffers(%a: memref<64x256xf16>, %b: memref<256x128xf16>, %d: memref<?x?xf32>, %s: memref<64x128xf32, strided<[256, 1]>>, %c: memref<64x128xf32>, %c4: memref<128x128xf32>) {
    %zero = arith.constant 0.000000e+00 : f32
    %one = arith.constant 1.000000e+00 : f32
    linalg.fill ins(%zero : f32) outs(%d : memref<?x?xf32>)
    // expected-remark @+1 {{linalg.matmul not converted to axe.matmul: the output is memref<?x?xf32>, not a static row-major contiguous memref}}
    linalg.matmul ins(%a, %b : memref<64x256xf16>, memref<256x128xf16>) outs(%d : memref<?x?xf32>)
    linalg.fill ins(%zero : f32) outs(%s : memref<64x128xf32, strided<[256, 1]>>)
    // expected-remark @+1 {{linalg.matmul not converted to axe.matmul: the output is memref<64x128xf32, strided<[256, 1]>>, not a static row-major contiguous memref}}
    linalg.matmul ins(%a, %b : memref<64x256xf16>, memref<256x128xf16>) outs(%s : memref<64x128xf32, strided<[256, 1]>>)
    linalg.fill ins(%one : f32) outs(%c : memref<64x128xf32>)
    // expected-remark @+1 {{linalg.matmul not converted to axe.matmul: it accumulates into its output}}
    linalg.matmul ins(%a, %b : memref<64x256xf16>, memref<256x128xf16>) outs(%c : memref<64x128xf32>)
    linalg.fill ins(%zero : f32) outs(%c : memref<64x128xf32>)
    // expected-remark @+1 {{linalg.matmul not converted to axe.matmul: A and B are f32 and f32 (axe.matmul takes f16 or bf16 here)}}
    linalg.matmul ins(%c, %c4 : memref<64x128xf32>, memref<128x128xf32>) outs(%c : memref<64x128xf32>)
    return
  }
}

// -----

// A matmul whose maps read B transposed (B given as [N, K]) becomes axe.matmul {transpose_b}.
// CHECK-LABEL: func.func @transposed_b(
// CHECK: %[[VB:.*]] = axe.view %{{.*}} : memref<128x256xf16> to !axe.tensor<128x256xf16, global, #axe.layout<(128, 256) : (256, 1)>>
// CHECK: axe.matmul %{{.*}}, %[[VB]], %{{.*}} {transpose_b} :
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @transposed_b(%a: memref<64x256xf16>, %bt: memref<128x256xf16>, %c: memref<64x128xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    linalg.fill ins(%cst : f32) outs(%c : memref<64x128xf32>)
    linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %bt : memref<64x256xf16>, memref<128x256xf16>) outs(%c : memref<64x128xf32>)
    return
  }
}

// -----

// Where M == K, one-shot-bufferize transposes the weights into the output buffer itself (its
// shape is B's transposed): B is still the weights, read K-major, and the transpose goes (its
// only reader was the matmul; the epilogue's write overwrites the buffer).
// CHECK-LABEL: func.func @transposed_into_output(
// CHECK-SAME: %{{[^:]*}}: memref<64x64xf16> {axe.align = 16 : i64}, %[[W:[^:]*]]: memref<128x64xf16> {axe.align = 16 : i64}
// CHECK-NOT: linalg.
// CHECK: %[[VW:.*]] = axe.view %[[W]] : memref<128x64xf16>
// CHECK: axe.matmul %{{.*}}, %[[VW]], %{{.*}} {transpose_b} :
// CHECK-NOT: linalg.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @transposed_into_output(%x: memref<64x64xf16>, %w: memref<128x64xf16>, %y: memref<64x128xf16>) {
    %zero = arith.constant 0.000000e+00 : f32
    linalg.transpose ins(%w : memref<128x64xf16>) outs(%y : memref<64x128xf16>) permutation = [1, 0]
    %acc = memref.alloc() : memref<64x128xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<64x128xf32>)
    linalg.matmul ins(%x, %y : memref<64x64xf16>, memref<64x128xf16>) outs(%acc : memref<64x128xf32>)
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%acc : memref<64x128xf32>) outs(%y : memref<64x128xf16>) {
    ^bb0(%a: f32, %o: f16):
      %t = arith.truncf %a : f32 to f16
      linalg.yield %t : f16
    }
    return
  }
}
