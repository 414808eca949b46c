// The gemm_mma kernel with its operands staged into shared memory by asynchronous cp.async
// copies (16 bytes per thread and access, committed in groups, awaited by axe.wait).
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @gemm_cp_async(%a: memref<4096xf16> {axe.align = 16 : i64}, %b: memref<4096xf16> {axe.align = 16 : i64}, %c: memref<4096xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<4096xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
    %B = axe.view %b : memref<4096xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
    %C = axe.view %c : memref<4096xf32> to !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    axe.kernel grid [1] threads [128] {
      %sa = axe.alloc : !axe.tensor<64x64xf16, shared, ?>
      %sb = axe.alloc : !axe.tensor<64x64xf16, shared, ?>
      %acc = axe.alloc : !axe.tensor<64x64xf32, register, ?>
      %z = arith.constant 0.0 : f32
      axe.fill %acc, %z : !axe.tensor<64x64xf32, register, ?>, f32
      %ta = axe.copy async %A, %sa schedule cp_async : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, shared, ?> -> !axe.token
      %tb = axe.copy async %B, %sb schedule cp_async : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, shared, ?> -> !axe.token
      axe.wait %ta, %tb
      axe.barrier cta
      axe.gemm %sa, %sb, %acc : !axe.tensor<64x64xf16, shared, ?>, !axe.tensor<64x64xf16, shared, ?>, !axe.tensor<64x64xf32, register, ?>
      axe.copy %acc, %C : !axe.tensor<64x64xf32, register, ?>, !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    }
    return
  }
}
