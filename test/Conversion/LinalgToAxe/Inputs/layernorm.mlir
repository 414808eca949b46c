#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d0)>
#map3 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @layernorm(%arg0: tensor<64x128xf16>, %arg1: tensor<128xf16>, %arg2: tensor<128xf16>) -> tensor<64x128xf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.280000e+02 : f32
    %cst_1 = arith.constant 9.99999974E-6 : f32
    %0 = tensor.empty() : tensor<64x128xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<64x128xf16>) outs(%0 : tensor<64x128xf32>) {
    ^bb0(%in: f16, %out: f32):
      %19 = arith.extf %in : f16 to f32
      linalg.yield %19 : f32
    } -> tensor<64x128xf32>
    %2 = tensor.empty() : tensor<64x1xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<64x1xf32>) -> tensor<64x1xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<64x128xf32>) outs(%3 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %19 = arith.addf %in, %out : f32
      linalg.yield %19 : f32
    } -> tensor<64x1xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<64x1xf32>) outs(%2 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %19 = arith.divf %in, %cst_0 : f32
      linalg.yield %19 : f32
    } -> tensor<64x1xf32>
    %collapsed = tensor.collapse_shape %5 [[0, 1]] : tensor<64x1xf32> into tensor<64xf32>
    %6 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<64xf32>) outs(%0 : tensor<64x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<64x128xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %6 : tensor<64x128xf32>, tensor<64x128xf32>) outs(%0 : tensor<64x128xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %19 = arith.subf %in, %in_3 : f32
      linalg.yield %19 : f32
    } -> tensor<64x128xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %7 : tensor<64x128xf32>, tensor<64x128xf32>) outs(%0 : tensor<64x128xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %19 = arith.mulf %in, %in_3 : f32
      linalg.yield %19 : f32
    } -> tensor<64x128xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%8 : tensor<64x128xf32>) outs(%3 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %19 = arith.addf %in, %out : f32
      linalg.yield %19 : f32
    } -> tensor<64x1xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<64x1xf32>) outs(%2 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %19 = arith.divf %in, %cst_0 : f32
      linalg.yield %19 : f32
    } -> tensor<64x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<64x1xf32>) outs(%2 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %19 = arith.addf %in, %cst_1 : f32
      linalg.yield %19 : f32
    } -> tensor<64x1xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%11 : tensor<64x1xf32>) outs(%2 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %19 = math.rsqrt %in : f32
      linalg.yield %19 : f32
    } -> tensor<64x1xf32>
    %collapsed_2 = tensor.collapse_shape %12 [[0, 1]] : tensor<64x1xf32> into tensor<64xf32>
    %13 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed_2 : tensor<64xf32>) outs(%0 : tensor<64x128xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<64x128xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %13 : tensor<64x128xf32>, tensor<64x128xf32>) outs(%0 : tensor<64x128xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %19 = arith.mulf %in, %in_3 : f32
      linalg.yield %19 : f32
    } -> tensor<64x128xf32>
    %15 = tensor.empty() : tensor<64x128xf16>
    %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%14 : tensor<64x128xf32>) outs(%15 : tensor<64x128xf16>) {
    ^bb0(%in: f32, %out: f16):
      %19 = arith.truncf %in : f32 to f16
      linalg.yield %19 : f16
    } -> tensor<64x128xf16>
    %17 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%16, %arg1 : tensor<64x128xf16>, tensor<128xf16>) outs(%15 : tensor<64x128xf16>) {
    ^bb0(%in: f16, %in_3: f16, %out: f16):
      %19 = arith.mulf %in, %in_3 : f16
      linalg.yield %19 : f16
    } -> tensor<64x128xf16>
    %18 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%17, %arg2 : tensor<64x128xf16>, tensor<128xf16>) outs(%15 : tensor<64x128xf16>) {
    ^bb0(%in: f16, %in_3: f16, %out: f16):
      %19 = arith.addf %in, %in_3 : f16
      linalg.yield %19 : f16
    } -> tensor<64x128xf16>
    return %18 : tensor<64x128xf16>
  }
}

