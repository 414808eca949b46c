// The 4096^3 GEMM of gemm_4096.mlir, double-buffered: while the warps compute on one pair of
// shared tiles, cp.async fills the other (axe.wait outstanding 2 leaves the pair just issued in
// flight). The K loop handles two 32-wide steps per iteration; the last pair is peeled.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @gemm_4096_db(%a: memref<16777216xf16> {axe.align = 16 : i64}, %b: memref<16777216xf16> {axe.align = 16 : i64}, %c: memref<16777216xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<16777216xf16> to !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    %B = axe.view %b : memref<16777216xf16> to !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    %C = axe.view %c : memref<16777216xf32> to !axe.tensor<4096x4096xf32, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    axe.kernel grid [1024] threads [256] {
      %cta = axe.unit_id cta
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c0 = arith.constant 0 : index
      %c4032 = arith.constant 4032 : index
      %c4064 = arith.constant 4064 : index
      %bm = arith.divui %cta, %c32 : index
      %bn = arith.remui %cta, %c32 : index
      %om = arith.muli %bm, %c128 : index
      %on = arith.muli %bn, %c128 : index
      %sa0 = axe.alloc : !axe.tensor<128x32xf16, shared, ?>
      %sb0 = axe.alloc : !axe.tensor<32x128xf16, shared, ?>
      %sa1 = axe.alloc : !axe.tensor<128x32xf16, shared, ?>
      %sb1 = axe.alloc : !axe.tensor<32x128xf16, shared, ?>
      %acc = axe.alloc : !axe.tensor<128x128xf32, register, ?>
      %z = arith.constant 0.0 : f32
      axe.fill %acc, %z : !axe.tensor<128x128xf32, register, ?>, f32
      %arows = axe.slice %A [%om : +128, 0 : 4096] : !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>> to !axe.tensor<128x4096xf16, global, ?>
      %bcols = axe.slice %B [0 : 4096, %on : +128] : !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>> to !axe.tensor<4096x128xf16, global, ?>
      %atc0 = axe.slice %arows [0 : 128, %c0 : +32] : !axe.tensor<128x4096xf16, global, ?> to !axe.tensor<128x32xf16, global, ?>
      %btc0 = axe.slice %bcols [%c0 : +32, 0 : 128] : !axe.tensor<4096x128xf16, global, ?> to !axe.tensor<32x128xf16, global, ?>
      %tac0 = axe.copy async %atc0, %sa0 schedule cp_async : !axe.tensor<128x32xf16, global, ?>, !axe.tensor<128x32xf16, shared, ?> -> !axe.token
      %tbc0 = axe.copy async %btc0, %sb0 schedule cp_async : !axe.tensor<32x128xf16, global, ?>, !axe.tensor<32x128xf16, shared, ?> -> !axe.token
      scf.for %k = %c0 to %c4032 step %c64 {
        %k1 = arith.addi %k, %c32 : index
        %k2 = arith.addi %k, %c64 : index
        %atk1 = axe.slice %arows [0 : 128, %k1 : +32] : !axe.tensor<128x4096xf16, global, ?> to !axe.tensor<128x32xf16, global, ?>
        %btk1 = axe.slice %bcols [%k1 : +32, 0 : 128] : !axe.tensor<4096x128xf16, global, ?> to !axe.tensor<32x128xf16, global, ?>
        %tak1 = axe.copy async %atk1, %sa1 schedule cp_async : !axe.tensor<128x32xf16, global, ?>, !axe.tensor<128x32xf16, shared, ?> -> !axe.token
        %tbk1 = axe.copy async %btk1, %sb1 schedule cp_async : !axe.tensor<32x128xf16, global, ?>, !axe.tensor<32x128xf16, shared, ?> -> !axe.token
        axe.wait outstanding 2
        axe.barrier cta
        axe.gemm %sa0, %sb0, %acc : !axe.tensor<128x32xf16, shared, ?>, !axe.tensor<32x128xf16, shared, ?>, !axe.tensor<128x128xf32, register, ?>
        axe.barrier cta
        %atk2 = axe.slice %arows [0 : 128, %k2 : +32] : !axe.tensor<128x4096xf16, global, ?> to !axe.tensor<128x32xf16, global, ?>
        %btk2 = axe.slice %bcols [%k2 : +32, 0 : 128] : !axe.tensor<4096x128xf16, global, ?> to !axe.tensor<32x128xf16, global, ?>
        %tak2 = axe.copy async %atk2, %sa0 schedule cp_async : !axe.tensor<128x32xf16, global, ?>, !axe.tensor<128x32xf16, shared, ?> -> !axe.token
        %tbk2 = axe.copy async %btk2, %sb0 schedule cp_async : !axe.tensor<32x128xf16, global, ?>, !axe.tensor<32x128xf16, shared, ?> -> !axe.token
        axe.wait outstanding 2
        axe.barrier cta
        axe.gemm %sa1, %sb1, %acc : !axe.tensor<128x32xf16, shared, ?>, !axe.tensor<32x128xf16, shared, ?>, !axe.tensor<128x128xf32, register, ?>
        axe.barrier cta
      }
      %atc4064 = axe.slice %arows [0 : 128, %c4064 : +32] : !axe.tensor<128x4096xf16, global, ?> to !axe.tensor<128x32xf16, global, ?>
      %btc4064 = axe.slice %bcols [%c4064 : +32, 0 : 128] : !axe.tensor<4096x128xf16, global, ?> to !axe.tensor<32x128xf16, global, ?>
      %tac4064 = axe.copy async %atc4064, %sa1 schedule cp_async : !axe.tensor<128x32xf16, global, ?>, !axe.tensor<128x32xf16, shared, ?> -> !axe.token
      %tbc4064 = axe.copy async %btc4064, %sb1 schedule cp_async : !axe.tensor<32x128xf16, global, ?>, !axe.tensor<32x128xf16, shared, ?> -> !axe.token
      axe.wait outstanding 2
      axe.barrier cta
      axe.gemm %sa0, %sb0, %acc : !axe.tensor<128x32xf16, shared, ?>, !axe.tensor<32x128xf16, shared, ?>, !axe.tensor<128x128xf32, register, ?>
      axe.barrier cta
      axe.wait
      axe.barrier cta
      axe.gemm %sa1, %sb1, %acc : !axe.tensor<128x32xf16, shared, ?>, !axe.tensor<32x128xf16, shared, ?>, !axe.tensor<128x128xf32, register, ?>
      axe.barrier cta
      %ct = axe.slice %C [%om : +128, %on : +128] : !axe.tensor<4096x4096xf32, global, #axe.layout<(4096, 4096) : (4096, 1)>> to !axe.tensor<128x128xf32, global, ?>
      axe.copy %acc, %ct : !axe.tensor<128x128xf32, register, ?>, !axe.tensor<128x128xf32, global, ?>
    }
    return
  }
}
