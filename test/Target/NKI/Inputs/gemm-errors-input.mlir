// Input for errors.mlir (exit status and location of a dispatch refusal).
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @k() {
    %a = axe.alloc : !axe.tensor<128x128xf16, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    %b = axe.alloc : !axe.tensor<128x128xf16, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    %c = axe.alloc : !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>
    axe.gemm %a, %b, %c : !axe.tensor<128x128xf16, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x128xf16, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>
    return
  }
}
