#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @gemm_bias(%arg0: tensor<64x256xf16>, %arg1: tensor<512x256xf16>, %arg2: tensor<512xf16>) -> tensor<64x512xf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<256x512xf16>
    %transposed = linalg.transpose ins(%arg1 : tensor<512x256xf16>) outs(%0 : tensor<256x512xf16>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<64x512xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<64x512xf32>) -> tensor<64x512xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<64x256xf16>, tensor<256x512xf16>) outs(%2 : tensor<64x512xf32>) -> tensor<64x512xf32>
    %4 = tensor.empty() : tensor<64x512xf16>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<64x512xf32>) outs(%4 : tensor<64x512xf16>) {
    ^bb0(%in: f32, %out: f16):
      %7 = arith.truncf %in : f32 to f16
      linalg.yield %7 : f16
    } -> tensor<64x512xf16>
    %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %arg2 : tensor<64x512xf16>, tensor<512xf16>) outs(%4 : tensor<64x512xf16>) {
    ^bb0(%in: f16, %in_0: f16, %out: f16):
      %7 = arith.addf %in, %in_0 : f16
      linalg.yield %7 : f16
    } -> tensor<64x512xf16>
    return %6 : tensor<64x512xf16>
  }
}

