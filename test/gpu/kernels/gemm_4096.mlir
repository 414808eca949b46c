// C = A B for 4096x4096x4096 f16 -> f32: one 128x128 tile of C per CTA (32x32 CTAs, 8 warps),
// a K loop of 32-wide steps staging A and B tiles into shared memory with cp.async, then
// ldmatrix + mma.sync m16n8k16 on the fragments axe-infer-layout picks. Tile origins come from
// axe.unit_id and the loop variable (slices with run-time origins).
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @gemm_4096(%a: memref<16777216xf16> {axe.align = 16 : i64}, %b: memref<16777216xf16> {axe.align = 16 : i64}, %c: memref<16777216xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<16777216xf16> to !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    %B = axe.view %b : memref<16777216xf16> to !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    %C = axe.view %c : memref<16777216xf32> to !axe.tensor<4096x4096xf32, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    axe.kernel grid [1024] threads [256] {
      %cta = axe.unit_id cta
      %c32 = arith.constant 32 : index
      %c128 = arith.constant 128 : index
      %c0 = arith.constant 0 : index
      %c4096 = arith.constant 4096 : index
      %bm = arith.divui %cta, %c32 : index
      %bn = arith.remui %cta, %c32 : index
      %om = arith.muli %bm, %c128 : index
      %on = arith.muli %bn, %c128 : index
      %sa = axe.alloc : !axe.tensor<128x32xf16, shared, ?>
      %sb = axe.alloc : !axe.tensor<32x128xf16, shared, ?>
      %acc = axe.alloc : !axe.tensor<128x128xf32, register, ?>
      %z = arith.constant 0.0 : f32
      axe.fill %acc, %z : !axe.tensor<128x128xf32, register, ?>, f32
      %arows = axe.slice %A [%om : +128, 0 : 4096] : !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>> to !axe.tensor<128x4096xf16, global, ?>
      %bcols = axe.slice %B [0 : 4096, %on : +128] : !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>> to !axe.tensor<4096x128xf16, global, ?>
      scf.for %k = %c0 to %c4096 step %c32 {
        %at = axe.slice %arows [0 : 128, %k : +32] : !axe.tensor<128x4096xf16, global, ?> to !axe.tensor<128x32xf16, global, ?>
        %bt = axe.slice %bcols [%k : +32, 0 : 128] : !axe.tensor<4096x128xf16, global, ?> to !axe.tensor<32x128xf16, global, ?>
        %ta = axe.copy async %at, %sa schedule cp_async : !axe.tensor<128x32xf16, global, ?>, !axe.tensor<128x32xf16, shared, ?> -> !axe.token
        %tb = axe.copy async %bt, %sb schedule cp_async : !axe.tensor<32x128xf16, global, ?>, !axe.tensor<32x128xf16, shared, ?> -> !axe.token
        axe.wait %ta, %tb
        axe.barrier cta
        axe.gemm %sa, %sb, %acc : !axe.tensor<128x32xf16, shared, ?>, !axe.tensor<32x128xf16, shared, ?>, !axe.tensor<128x128xf32, register, ?>
        axe.barrier cta
      }
      %ct = axe.slice %C [%om : +128, %on : +128] : !axe.tensor<4096x4096xf32, global, #axe.layout<(4096, 4096) : (4096, 1)>> to !axe.tensor<128x128xf32, global, ?>
      axe.copy %acc, %ct : !axe.tensor<128x128xf32, register, ?>, !axe.tensor<128x128xf32, global, ?>
    }
    return
  }
}
