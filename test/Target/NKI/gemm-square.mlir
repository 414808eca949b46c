// The paper's square FP16 GEMM (M = N = K) at 512: A is loaded transposed so K sits on the
// partitions, B and C are [128-row blocks on F] x [1@P] x [columns on F].
// RUN: axe-translate --axe-to-nki %s | FileCheck %s
// RUN: axe-translate --axe-to-nki %s > %t.py && %python %S/check_nki_api.py %t.py | FileCheck %s --check-prefix=API
// RUN: env PYTHONPATH=%S/nki_numpy %python %S/run_nki.py %t.py gemm 512 512 512 | FileCheck %s --check-prefix=RUN-CHECK

// CHECK: @nki.jit
// CHECK-NEXT: def gemm_512(arg0, arg1, arg2):
// CHECK: sb0 = nl.ndarray((128, 2048), dtype=nl.float16, buffer=nl.sbuf)
// CHECK: ps2 = nl.ndarray((128, 2048), dtype=nl.float32, buffer=nl.psum)
// CHECK: for i0 in nl.affine_range(4):
// CHECK-NEXT: sb0[0:128, 512 * i0:512 * i0 + 512] = nl.load_transpose2d(arg0[0:512, 128 * i0:128 * i0 + 128])
// CHECK: sb1[0:128, 512 * i1:512 * i1 + 512] = nl.load(arg1[128 * i1:128 * i1 + 128, 0:512])
// CHECK: ps2[0:128, 512 * i2:512 * i2 + 512] = nl.full((128, 512), 0.0, dtype=nl.float32, buffer=nl.psum)
// CHECK: # axe.gemm on TensorE: instruction M=128 N=512 K=128, 16 nc_matmul, loops [M:4, K:4]
// CHECK-NEXT: for i3 in nl.affine_range(4):  # M
// CHECK-NEXT: for i4 in nl.affine_range(4):  # K
// CHECK-NEXT: ps2[0:128, 512 * i3:512 * i3 + 512] += nisa.nc_matmul(sb0[0:128, 128 * i3 + 512 * i4:128 * i3 + 512 * i4 + 128], sb1[0:128, 512 * i4:512 * i4 + 512])
// CHECK: sb3[0:128, 512 * i5:512 * i5 + 512] = nl.copy(ps2[0:128, 512 * i5:512 * i5 + 512])
// CHECK: nl.store(arg2[128 * i6:128 * i6 + 128, 0:512], value=sb3[0:128, 512 * i6:512 * i6 + 512])

// API: OK
// RUN-CHECK: PASS gemm 512x512x512

module attributes {axe.target = #axe.target<"trn1">} {
  func.func @gemm_512(%a: !axe.tensor<512x512xf16, global, #axe.layout<(512, 512) : (512, 1)>>, %b: !axe.tensor<512x512xf16, global, #axe.layout<(512, 512) : (512, 1)>>, %c: !axe.tensor<512x512xf32, global, #axe.layout<(512, 512) : (512, 1)>>) {
    %as = axe.alloc : !axe.tensor<512x512xf16, sbuf, #axe.layout<(512, 4, 128) : (1@F, 512@F, 1@P)>>
    %bs = axe.alloc : !axe.tensor<512x512xf16, sbuf, #axe.layout<(4, 128, 512) : (512@F, 1@P, 1@F)>>
    %cp = axe.alloc : !axe.tensor<512x512xf32, psum, #axe.layout<(4, 128, 512) : (512@F, 1@P, 1@F)>>
    %cs = axe.alloc : !axe.tensor<512x512xf32, sbuf, #axe.layout<(4, 128, 512) : (512@F, 1@P, 1@F)>>
    %zero = arith.constant 0.0 : f32
    axe.copy %a, %as : !axe.tensor<512x512xf16, global, #axe.layout<(512, 512) : (512, 1)>>, !axe.tensor<512x512xf16, sbuf, #axe.layout<(512, 4, 128) : (1@F, 512@F, 1@P)>>
    axe.copy %b, %bs : !axe.tensor<512x512xf16, global, #axe.layout<(512, 512) : (512, 1)>>, !axe.tensor<512x512xf16, sbuf, #axe.layout<(4, 128, 512) : (512@F, 1@P, 1@F)>>
    axe.fill %cp, %zero : !axe.tensor<512x512xf32, psum, #axe.layout<(4, 128, 512) : (512@F, 1@P, 1@F)>>, f32
    axe.gemm %as, %bs, %cp : !axe.tensor<512x512xf16, sbuf, #axe.layout<(512, 4, 128) : (1@F, 512@F, 1@P)>>, !axe.tensor<512x512xf16, sbuf, #axe.layout<(4, 128, 512) : (512@F, 1@P, 1@F)>>, !axe.tensor<512x512xf32, psum, #axe.layout<(4, 128, 512) : (512@F, 1@P, 1@F)>>
    axe.copy %cp, %cs : !axe.tensor<512x512xf32, psum, #axe.layout<(4, 128, 512) : (512@F, 1@P, 1@F)>>, !axe.tensor<512x512xf32, sbuf, #axe.layout<(4, 128, 512) : (512@F, 1@P, 1@F)>>
    axe.copy %cs, %c : !axe.tensor<512x512xf32, sbuf, #axe.layout<(4, 128, 512) : (512@F, 1@P, 1@F)>>, !axe.tensor<512x512xf32, global, #axe.layout<(512, 512) : (512, 1)>>
    return
  }
}
