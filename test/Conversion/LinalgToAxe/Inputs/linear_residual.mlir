#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @linear_residual(%arg0: tensor<64x256xf16>, %arg1: tensor<256x512xf16>, %arg2: tensor<64x512xf16>) -> tensor<64x512xf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<64x512xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<64x512xf32>) -> tensor<64x512xf32>
    %2 = linalg.matmul ins(%arg0, %arg1 : tensor<64x256xf16>, tensor<256x512xf16>) outs(%1 : tensor<64x512xf32>) -> tensor<64x512xf32>
    %3 = tensor.empty() : tensor<64x512xf16>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<64x512xf32>) outs(%3 : tensor<64x512xf16>) {
    ^bb0(%in: f32, %out: f16):
      %6 = arith.truncf %in : f32 to f16
      linalg.yield %6 : f16
    } -> tensor<64x512xf16>
    %5 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%4, %arg2 : tensor<64x512xf16>, tensor<64x512xf16>) outs(%3 : tensor<64x512xf16>) {
    ^bb0(%in: f16, %in_0: f16, %out: f16):
      %6 = arith.addf %in, %in_0 : f16
      linalg.yield %6 : f16
    } -> tensor<64x512xf16>
    return %5 : tensor<64x512xf16>
  }
}

