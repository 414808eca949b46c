// A rectangular GEMM (M=256, N=1024, K=384; the paper's square sizes scaled down and made
// rectangular) where every dimension needs more than one instruction: K = 3 x 128 on P
// (accumulated in PSUM), M = 2 x 128 (C's row blocks on F), and N = 1024 on F in one iter,
// which exceeds the moving free size (512) and is split into 2 x 512.
// RUN: axe-translate --axe-to-nki %s | FileCheck %s
// RUN: axe-translate --axe-to-nki %s > %t.py && %python %S/check_nki_api.py %t.py | FileCheck %s --check-prefix=API
// RUN: env PYTHONPATH=%S/nki_numpy %python %S/run_nki.py %t.py gemm 256 1024 384 | FileCheck %s --check-prefix=EXEC

// CHECK: # axe.gemm on TensorE: instruction M=128 N=512 K=128, 12 nc_matmul, loops [M:2, N:2, K:3]
// CHECK-NEXT: for [[M:i[0-9]+]] in nl.affine_range(2):  # M
// CHECK-NEXT: for [[N:i[0-9]+]] in nl.affine_range(2):  # N
// CHECK-NEXT: for [[K:i[0-9]+]] in nl.affine_range(3):  # K
// CHECK-NEXT: ps2[0:128, 1024 * [[M]] + 512 * [[N]]:1024 * [[M]] + 512 * [[N]] + 512] += nisa.nc_matmul(sb0[0:128, 128 * [[M]] + 256 * [[K]]:128 * [[M]] + 256 * [[K]] + 128], sb1[0:128, 512 * [[N]] + 1024 * [[K]]:512 * [[N]] + 1024 * [[K]] + 512])

// API: OK
// EXEC: PASS gemm 256x1024x384

module attributes {axe.target = #axe.target<"trn1">} {
  func.func @gemm_256x1024x384(%a: !axe.tensor<256x384xf16, global, #axe.layout<(256, 384) : (384, 1)>>, %b: !axe.tensor<384x1024xf16, global, #axe.layout<(384, 1024) : (1024, 1)>>, %c: !axe.tensor<256x1024xf32, global, #axe.layout<(256, 1024) : (1024, 1)>>) {
    %as = axe.alloc : !axe.tensor<256x384xf16, sbuf, #axe.layout<(256, 3, 128) : (1@F, 256@F, 1@P)>>
    %bs = axe.alloc : !axe.tensor<384x1024xf16, sbuf, #axe.layout<(3, 128, 1024) : (1024@F, 1@P, 1@F)>>
    %cp = axe.alloc : !axe.tensor<256x1024xf32, psum, #axe.layout<(2, 128, 1024) : (1024@F, 1@P, 1@F)>>
    %cs = axe.alloc : !axe.tensor<256x1024xf32, sbuf, #axe.layout<(2, 128, 1024) : (1024@F, 1@P, 1@F)>>
    %zero = arith.constant 0.0 : f32
    axe.copy %a, %as : !axe.tensor<256x384xf16, global, #axe.layout<(256, 384) : (384, 1)>>, !axe.tensor<256x384xf16, sbuf, #axe.layout<(256, 3, 128) : (1@F, 256@F, 1@P)>>
    axe.copy %b, %bs : !axe.tensor<384x1024xf16, global, #axe.layout<(384, 1024) : (1024, 1)>>, !axe.tensor<384x1024xf16, sbuf, #axe.layout<(3, 128, 1024) : (1024@F, 1@P, 1@F)>>
    axe.fill %cp, %zero : !axe.tensor<256x1024xf32, psum, #axe.layout<(2, 128, 1024) : (1024@F, 1@P, 1@F)>>, f32
    axe.gemm %as, %bs, %cp : !axe.tensor<256x384xf16, sbuf, #axe.layout<(256, 3, 128) : (1@F, 256@F, 1@P)>>, !axe.tensor<384x1024xf16, sbuf, #axe.layout<(3, 128, 1024) : (1024@F, 1@P, 1@F)>>, !axe.tensor<256x1024xf32, psum, #axe.layout<(2, 128, 1024) : (1024@F, 1@P, 1@F)>>
    axe.copy %cp, %cs : !axe.tensor<256x1024xf32, psum, #axe.layout<(2, 128, 1024) : (1024@F, 1@P, 1@F)>>, !axe.tensor<256x1024xf32, sbuf, #axe.layout<(2, 128, 1024) : (1024@F, 1@P, 1@F)>>
    axe.copy %cs, %c : !axe.tensor<256x1024xf32, sbuf, #axe.layout<(2, 128, 1024) : (1024@F, 1@P, 1@F)>>, !axe.tensor<256x1024xf32, global, #axe.layout<(256, 1024) : (1024, 1)>>
    return
  }
}
