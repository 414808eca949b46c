#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @linear_gelu(%arg0: tensor<64x256xf16>, %arg1: tensor<256x512xf16>, %arg2: tensor<512xf16>) -> tensor<64x512xf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f16
    %cst_1 = arith.constant 2.000000e+00 : f16
    %cst_2 = arith.constant 5.000000e-01 : f16
    %0 = tensor.empty() : tensor<64x512xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<64x512xf32>) -> tensor<64x512xf32>
    %2 = linalg.matmul ins(%arg0, %arg1 : tensor<64x256xf16>, tensor<256x512xf16>) outs(%1 : tensor<64x512xf32>) -> tensor<64x512xf32>
    %3 = tensor.empty() : tensor<64x512xf16>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<64x512xf32>) outs(%3 : tensor<64x512xf16>) {
    ^bb0(%in: f32, %out: f16):
      %7 = arith.truncf %in : f32 to f16
      linalg.yield %7 : f16
    } -> tensor<64x512xf16>
    %5 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%4, %arg2 : tensor<64x512xf16>, tensor<512xf16>) outs(%3 : tensor<64x512xf16>) {
    ^bb0(%in: f16, %in_3: f16, %out: f16):
      %7 = arith.addf %in, %in_3 : f16
      linalg.yield %7 : f16
    } -> tensor<64x512xf16>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<64x512xf16>) outs(%3 : tensor<64x512xf16>) {
    ^bb0(%in: f16, %out: f16):
      %7 = math.sqrt %cst_1 : f16
      %8 = arith.divf %in, %7 : f16
      %9 = math.erf %8 : f16
      %10 = arith.addf %9, %cst_0 : f16
      %11 = arith.mulf %10, %cst_2 : f16
      %12 = arith.mulf %in, %11 : f16
      linalg.yield %12 : f16
    } -> tensor<64x512xf16>
    return %6 : tensor<64x512xf16>
  }
}

