// A converted small batch over a long K gets split-K's workspace as function arguments
// marked {axe.workspace}: the launch manifest lists them as kind "workspace", which
// axe_runtime allocates itself (zeroed, once per device) when the caller leaves them out.
// RUN: axe-opt %s --axe-from-linalg-pipeline --axe-to-nvvm-pipeline | axe-translate --axe-to-launch-manifest | FileCheck %s
// CHECK: "arguments": [
// CHECK-COUNT-3: "kind": "buffer"
// CHECK: "extent": 65536,
// CHECK-NEXT: "kind": "workspace",
// CHECK: "dtype": "i32",
// CHECK-NEXT: "extent": 64,
// CHECK-NEXT: "kind": "workspace",
// CHECK: "cooperative": true
func.func @small_batch(%a: tensor<16x14336xf16>, %b: tensor<14336x4096xf16>) -> tensor<16x4096xf16> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<16x4096xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<16x4096xf32>) -> tensor<16x4096xf32>
  %p = linalg.matmul ins(%a, %b : tensor<16x14336xf16>, tensor<14336x4096xf16>) outs(%acc : tensor<16x4096xf32>) -> tensor<16x4096xf32>
  %o = tensor.empty() : tensor<16x4096xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p : tensor<16x4096xf32>) outs(%o : tensor<16x4096xf16>) {
  ^bb0(%x: f32, %y: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  } -> tensor<16x4096xf16>
  return %r : tensor<16x4096xf16>
}
