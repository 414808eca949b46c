// The 4096^3 double-buffered GEMM of axe_gen.gemm_mma (4096 4096 4096 64: 128x128 CTA
// tiles, 64-wide K steps, two cp.async stages in 64 KiB of dynamic shared memory, 256 threads)
// for sm_90a: axe.gemm lowers to wgmma m64n128k16 (one 64-row half of the tile per
// warpgroup). The shared tiles have wgmma's canonical 128-byte-swizzled layouts: A K-major
// (64-element rows), B N-major (two 64-column blocks of the 64 K rows).
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @gemm_4096_wgmma(%a: memref<16777216xf16> {axe.align = 16 : i64}, %b: memref<16777216xf16> {axe.align = 16 : i64}, %c: memref<16777216xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<16777216xf16> to !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    %B = axe.view %b : memref<16777216xf16> to !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    %C = axe.view %c : memref<16777216xf32> to !axe.tensor<4096x4096xf32, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    axe.kernel grid [1024] threads [256] {
      %cta = axe.unit_id cta
      %c32 = arith.constant 64 : index
      %c64 = arith.constant 128 : index
      %c128 = arith.constant 128 : index
      %c0 = arith.constant 0 : index
      %ctn = arith.constant 32 : index
      %klast = arith.constant 3968 : index
      %klast1 = arith.constant 4032 : index
      %bm = arith.divui %cta, %ctn : index
      %bn = arith.remui %cta, %ctn : index
      %om = arith.muli %bm, %c128 : index
      %on = arith.muli %bn, %c128 : index
      %sa0 = axe.alloc : !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      %sb0 = axe.alloc : !axe.tensor<64x128xf16, shared, #axe.layout<(64, 2, 64) : (64, 4096, 1)>, #axe.swizzle<3, 3, 3>>
      %sa1 = axe.alloc : !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      %sb1 = axe.alloc : !axe.tensor<64x128xf16, shared, #axe.layout<(64, 2, 64) : (64, 4096, 1)>, #axe.swizzle<3, 3, 3>>
      %acc = axe.alloc : !axe.tensor<128x128xf32, register, ?>
      %z = arith.constant 0.0 : f32
      axe.fill %acc, %z : !axe.tensor<128x128xf32, register, ?>, f32
      %arows = axe.slice %A [%om : +128, 0 : 4096] : !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>> to !axe.tensor<128x4096xf16, global, ?>
      %bcols = axe.slice %B [0 : 4096, %on : +128] : !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>> to !axe.tensor<4096x128xf16, global, ?>
      %atc0 = axe.slice %arows [0 : 128, %c0 : +64] : !axe.tensor<128x4096xf16, global, ?> to !axe.tensor<128x64xf16, global, ?>
      %btc0 = axe.slice %bcols [%c0 : +64, 0 : 128] : !axe.tensor<4096x128xf16, global, ?> to !axe.tensor<64x128xf16, global, ?>
      %tac0 = axe.copy async %atc0, %sa0 schedule cp_async : !axe.tensor<128x64xf16, global, ?>, !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>> -> !axe.token
      %tbc0 = axe.copy async %btc0, %sb0 schedule cp_async : !axe.tensor<64x128xf16, global, ?>, !axe.tensor<64x128xf16, shared, #axe.layout<(64, 2, 64) : (64, 4096, 1)>, #axe.swizzle<3, 3, 3>> -> !axe.token
      scf.for %k = %c0 to %klast step %c64 {
        %k1 = arith.addi %k, %c32 : index
        %k2 = arith.addi %k, %c64 : index
        %atk1 = axe.slice %arows [0 : 128, %k1 : +64] : !axe.tensor<128x4096xf16, global, ?> to !axe.tensor<128x64xf16, global, ?>
        %btk1 = axe.slice %bcols [%k1 : +64, 0 : 128] : !axe.tensor<4096x128xf16, global, ?> to !axe.tensor<64x128xf16, global, ?>
        %tak1 = axe.copy async %atk1, %sa1 schedule cp_async : !axe.tensor<128x64xf16, global, ?>, !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>> -> !axe.token
        %tbk1 = axe.copy async %btk1, %sb1 schedule cp_async : !axe.tensor<64x128xf16, global, ?>, !axe.tensor<64x128xf16, shared, #axe.layout<(64, 2, 64) : (64, 4096, 1)>, #axe.swizzle<3, 3, 3>> -> !axe.token
        axe.wait outstanding 2
        axe.barrier cta
        axe.gemm %sa0, %sb0, %acc : !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>, !axe.tensor<64x128xf16, shared, #axe.layout<(64, 2, 64) : (64, 4096, 1)>, #axe.swizzle<3, 3, 3>>, !axe.tensor<128x128xf32, register, ?>
        axe.barrier cta
        %atk2 = axe.slice %arows [0 : 128, %k2 : +64] : !axe.tensor<128x4096xf16, global, ?> to !axe.tensor<128x64xf16, global, ?>
        %btk2 = axe.slice %bcols [%k2 : +64, 0 : 128] : !axe.tensor<4096x128xf16, global, ?> to !axe.tensor<64x128xf16, global, ?>
        %tak2 = axe.copy async %atk2, %sa0 schedule cp_async : !axe.tensor<128x64xf16, global, ?>, !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>> -> !axe.token
        %tbk2 = axe.copy async %btk2, %sb0 schedule cp_async : !axe.tensor<64x128xf16, global, ?>, !axe.tensor<64x128xf16, shared, #axe.layout<(64, 2, 64) : (64, 4096, 1)>, #axe.swizzle<3, 3, 3>> -> !axe.token
        axe.wait outstanding 2
        axe.barrier cta
        axe.gemm %sa1, %sb1, %acc : !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>, !axe.tensor<64x128xf16, shared, #axe.layout<(64, 2, 64) : (64, 4096, 1)>, #axe.swizzle<3, 3, 3>>, !axe.tensor<128x128xf32, register, ?>
        axe.barrier cta
      }
      %atklast1 = axe.slice %arows [0 : 128, %klast1 : +64] : !axe.tensor<128x4096xf16, global, ?> to !axe.tensor<128x64xf16, global, ?>
      %btklast1 = axe.slice %bcols [%klast1 : +64, 0 : 128] : !axe.tensor<4096x128xf16, global, ?> to !axe.tensor<64x128xf16, global, ?>
      %taklast1 = axe.copy async %atklast1, %sa1 schedule cp_async : !axe.tensor<128x64xf16, global, ?>, !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>> -> !axe.token
      %tbklast1 = axe.copy async %btklast1, %sb1 schedule cp_async : !axe.tensor<64x128xf16, global, ?>, !axe.tensor<64x128xf16, shared, #axe.layout<(64, 2, 64) : (64, 4096, 1)>, #axe.swizzle<3, 3, 3>> -> !axe.token
      axe.wait outstanding 2
      axe.barrier cta
      axe.gemm %sa0, %sb0, %acc : !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>, !axe.tensor<64x128xf16, shared, #axe.layout<(64, 2, 64) : (64, 4096, 1)>, #axe.swizzle<3, 3, 3>>, !axe.tensor<128x128xf32, register, ?>
      axe.barrier cta
      axe.wait
      axe.barrier cta
      axe.gemm %sa1, %sb1, %acc : !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>, !axe.tensor<64x128xf16, shared, #axe.layout<(64, 2, 64) : (64, 4096, 1)>, #axe.swizzle<3, 3, 3>>, !axe.tensor<128x128xf32, register, ?>
      axe.barrier cta
      %ct = axe.slice %C [%om : +128, %on : +128] : !axe.tensor<4096x4096xf32, global, #axe.layout<(4096, 4096) : (4096, 1)>> to !axe.tensor<128x128xf32, global, ?>
      axe.copy %acc, %ct : !axe.tensor<128x128xf32, register, ?>, !axe.tensor<128x128xf32, global, ?>
    }
    return
  }
}
