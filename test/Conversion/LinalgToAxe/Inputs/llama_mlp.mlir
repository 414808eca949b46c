#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> ()>
#map3 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @llama_mlp(%arg0: tensor<64x256xf16>, %arg1: tensor<256xf16>, %arg2: tensor<256x768xf16>, %arg3: tensor<256x768xf16>, %arg4: tensor<768x256xf16>) -> tensor<64x256xf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f16
    %cst_1 = arith.constant dense<9.99999974E-6> : tensor<f32>
    %cst_2 = arith.constant 2.560000e+02 : f32
    %0 = tensor.empty() : tensor<64x256xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<64x256xf16>) outs(%0 : tensor<64x256xf32>) {
    ^bb0(%in: f16, %out: f32):
      %27 = arith.extf %in : f16 to f32
      linalg.yield %27 : f32
    } -> tensor<64x256xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %1 : tensor<64x256xf32>, tensor<64x256xf32>) outs(%0 : tensor<64x256xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %27 = arith.mulf %in, %in_3 : f32
      linalg.yield %27 : f32
    } -> tensor<64x256xf32>
    %3 = tensor.empty() : tensor<64x1xf32>
    %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<64x1xf32>) -> tensor<64x1xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%2 : tensor<64x256xf32>) outs(%4 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %27 = arith.addf %in, %out : f32
      linalg.yield %27 : f32
    } -> tensor<64x1xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<64x1xf32>) outs(%3 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %27 = arith.divf %in, %cst_2 : f32
      linalg.yield %27 : f32
    } -> tensor<64x1xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %cst_1 : tensor<64x1xf32>, tensor<f32>) outs(%3 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %27 = arith.addf %in, %in_3 : f32
      linalg.yield %27 : f32
    } -> tensor<64x1xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<64x1xf32>) outs(%3 : tensor<64x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %27 = math.sqrt %in : f32
      linalg.yield %27 : f32
    } -> tensor<64x1xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %8 : tensor<64x256xf32>, tensor<64x1xf32>) outs(%0 : tensor<64x256xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %27 = arith.divf %in, %in_3 : f32
      linalg.yield %27 : f32
    } -> tensor<64x256xf32>
    %10 = tensor.empty() : tensor<64x256xf16>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<64x256xf32>) outs(%10 : tensor<64x256xf16>) {
    ^bb0(%in: f32, %out: f16):
      %27 = arith.truncf %in : f32 to f16
      linalg.yield %27 : f16
    } -> tensor<64x256xf16>
    %12 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%11, %arg1 : tensor<64x256xf16>, tensor<256xf16>) outs(%10 : tensor<64x256xf16>) {
    ^bb0(%in: f16, %in_3: f16, %out: f16):
      %27 = arith.mulf %in, %in_3 : f16
      linalg.yield %27 : f16
    } -> tensor<64x256xf16>
    %13 = tensor.empty() : tensor<64x768xf32>
    %14 = linalg.fill ins(%cst : f32) outs(%13 : tensor<64x768xf32>) -> tensor<64x768xf32>
    %15 = linalg.matmul ins(%12, %arg2 : tensor<64x256xf16>, tensor<256x768xf16>) outs(%14 : tensor<64x768xf32>) -> tensor<64x768xf32>
    %16 = tensor.empty() : tensor<64x768xf16>
    %17 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%15 : tensor<64x768xf32>) outs(%16 : tensor<64x768xf16>) {
    ^bb0(%in: f32, %out: f16):
      %27 = arith.truncf %in : f32 to f16
      linalg.yield %27 : f16
    } -> tensor<64x768xf16>
    %18 = linalg.matmul ins(%12, %arg3 : tensor<64x256xf16>, tensor<256x768xf16>) outs(%14 : tensor<64x768xf32>) -> tensor<64x768xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%18 : tensor<64x768xf32>) outs(%16 : tensor<64x768xf16>) {
    ^bb0(%in: f32, %out: f16):
      %27 = arith.truncf %in : f32 to f16
      linalg.yield %27 : f16
    } -> tensor<64x768xf16>
    %20 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%17 : tensor<64x768xf16>) outs(%16 : tensor<64x768xf16>) {
    ^bb0(%in: f16, %out: f16):
      %27 = arith.negf %in : f16
      %28 = math.exp %27 : f16
      %29 = arith.addf %28, %cst_0 : f16
      %30 = arith.divf %cst_0, %29 : f16
      linalg.yield %30 : f16
    } -> tensor<64x768xf16>
    %21 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%17, %20 : tensor<64x768xf16>, tensor<64x768xf16>) outs(%16 : tensor<64x768xf16>) {
    ^bb0(%in: f16, %in_3: f16, %out: f16):
      %27 = arith.mulf %in, %in_3 : f16
      linalg.yield %27 : f16
    } -> tensor<64x768xf16>
    %22 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%21, %19 : tensor<64x768xf16>, tensor<64x768xf16>) outs(%16 : tensor<64x768xf16>) {
    ^bb0(%in: f16, %in_3: f16, %out: f16):
      %27 = arith.mulf %in, %in_3 : f16
      linalg.yield %27 : f16
    } -> tensor<64x768xf16>
    %23 = linalg.fill ins(%cst : f32) outs(%0 : tensor<64x256xf32>) -> tensor<64x256xf32>
    %24 = linalg.matmul ins(%22, %arg4 : tensor<64x768xf16>, tensor<768x256xf16>) outs(%23 : tensor<64x256xf32>) -> tensor<64x256xf32>
    %25 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%24 : tensor<64x256xf32>) outs(%10 : tensor<64x256xf16>) {
    ^bb0(%in: f32, %out: f16):
      %27 = arith.truncf %in : f32 to f16
      linalg.yield %27 : f16
    } -> tensor<64x256xf16>
    %26 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %25 : tensor<64x256xf16>, tensor<64x256xf16>) outs(%10 : tensor<64x256xf16>) {
    ^bb0(%in: f16, %in_3: f16, %out: f16):
      %27 = arith.addf %in, %in_3 : f16
      linalg.yield %27 : f16
    } -> tensor<64x256xf16>
    return %26 : tensor<64x256xf16>
  }
}

