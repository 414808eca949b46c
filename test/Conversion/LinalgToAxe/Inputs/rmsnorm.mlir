#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> ()>
#map3 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @rmsnorm(%arg0: tensor<64x128xf16>, %arg1: tensor<128xf16>) -> tensor<64x128xf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant dense<9.99999974E-6> : tensor<f32>
    %cst_1 = arith.constant 1.280000e+02 : f32
    %0 = tensor.empty() : tensor<64x128xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<64x128xf16>) outs(%0 : tensor<64x128xf32>) {
    ^bb0(%in: f16, %out: f32):
      %13 = arith.extf %in : f16 to f32
      linalg.yield %13 : f32
    } -> tensor<64x128xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %1 : tensor<64x128xf32>, tensor<64x128xf32>) outs(%0 : tensor<64x128xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %13 = arith.mulf %in, %in_2 : f32
      linalg.yield %13 : f32
    } -> tensor<64x128xf32>
    %3 = tensor.empty() : tensor<64x1xf32>
    %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<64x1xf32>) -> tensor<64x1xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%2 : tensor<64x128xf32>) outs(%4 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.addf %in, %out : f32
      linalg.yield %13 : f32
    } -> tensor<64x1xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<64x1xf32>) outs(%3 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.divf %in, %cst_1 : f32
      linalg.yield %13 : f32
    } -> tensor<64x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %cst_0 : tensor<64x1xf32>, tensor<f32>) outs(%3 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %13 = arith.addf %in, %in_2 : f32
      linalg.yield %13 : f32
    } -> tensor<64x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<64x1xf32>) outs(%3 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = math.sqrt %in : f32
      linalg.yield %13 : f32
    } -> tensor<64x1xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %8 : tensor<64x128xf32>, tensor<64x1xf32>) outs(%0 : tensor<64x128xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %13 = arith.divf %in, %in_2 : f32
      linalg.yield %13 : f32
    } -> tensor<64x128xf32>
    %10 = tensor.empty() : tensor<64x128xf16>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<64x128xf32>) outs(%10 : tensor<64x128xf16>) {
    ^bb0(%in: f32, %out: f16):
      %13 = arith.truncf %in : f32 to f16
      linalg.yield %13 : f16
    } -> tensor<64x128xf16>
    %12 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%11, %arg1 : tensor<64x128xf16>, tensor<128xf16>) outs(%10 : tensor<64x128xf16>) {
    ^bb0(%in: f16, %in_2: f16, %out: f16):
      %13 = arith.mulf %in, %in_2 : f16
      linalg.yield %13 : f16
    } -> tensor<64x128xf16>
    return %12 : tensor<64x128xf16>
  }
}

