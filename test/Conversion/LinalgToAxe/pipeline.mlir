// The front door end to end: linalg-on-tensors (the form torch-mlir's linalg backend emits for
// an f16 linear layer) through axe-from-linalg-pipeline to one axe.matmul, then to PTX and a
// launch manifest whose three buffers are the function's (the result became an out-param).
// RUN: axe-opt %s --axe-from-linalg-pipeline | FileCheck %s
// RUN: axe-opt %s --axe-from-linalg-pipeline --axe-to-nvvm-pipeline=chip=sm_90a | axe-translate --axe-to-launch-manifest | FileCheck %s --check-prefix=MANIFEST
// CHECK-LABEL: func.func @linear(
// CHECK-SAME: memref<256x1024xf16> {axe.align = 16 : i64}, %{{.*}}: memref<1024x512xf16> {axe.align = 16 : i64}, %{{.*}}: memref<256x512xf16> {axe.align = 16 : i64})
// CHECK: axe.matmul
// CHECK-NOT: linalg.
// CHECK-NOT: memref.alloc
// CHECK: return
// MANIFEST: "entry": "linear_kernel"
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @linear(%a: tensor<256x1024xf16>, %b: tensor<1024x512xf16>) -> tensor<256x512xf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %e = tensor.empty() : tensor<256x512xf32>
    %f = linalg.fill ins(%cst : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
    %m = linalg.matmul ins(%a, %b : tensor<256x1024xf16>, tensor<1024x512xf16>) outs(%f : tensor<256x512xf32>) -> tensor<256x512xf32>
    %e2 = tensor.empty() : tensor<256x512xf16>
    %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<256x512xf32>) outs(%e2 : tensor<256x512xf16>) {
    ^bb0(%in: f32, %out: f16):
      %x = arith.truncf %in : f32 to f16
      linalg.yield %x : f16
    } -> tensor<256x512xf16>
    return %t : tensor<256x512xf16>
  }
}
