// Multi-head attention without a causal mask (the paper's Trainium MHA workload, scaled to
// 2 heads, sequence 128, head dim 64, f32): O_h = softmax(Q_h K_h^T / sqrt(d)) V_h.
// The scale is an input [S, 1] (broadcast along the free axis); P is transposed on TensorE by a
// matmul with the identity (an input), the usual NKI idiom, because the second matmul needs
// the key dimension on the partitions while softmax reduces along the free axis.
// RUN: axe-translate --axe-to-nki %s | FileCheck %s
// RUN: axe-translate --axe-to-nki %s > %t.py && %python %S/check_nki_api.py %t.py | FileCheck %s --check-prefix=API
// RUN: env PYTHONPATH=%S/nki_numpy %python %S/run_nki.py %t.py attention 128 2 64 | FileCheck %s --check-prefix=EXEC

// CHECK-LABEL: def mha(arg0, arg1, arg2, arg3, arg4, arg5):
// CHECK: sb0[0:64, 128 * i0:128 * i0 + 128] = nl.load_transpose2d(arg0[0:128, 64 * i0:64 * i0 + 64])
// CHECK: # axe.gemm on TensorE: instruction M=128 N=128 K=64, 1 nc_matmul, loops []
// CHECK-NEXT: ps{{[0-9]+}}[0:128, 0:128] += nisa.nc_matmul(sb0[0:64, 0:128], sb1[0:64, 0:128])
// CHECK: = nl.multiply(sb{{[0-9]+}}[0:128, 0:128], sb4[0:128, 0:1])
// CHECK: = nl.max(sb{{[0-9]+}}[0:128, 0:128], axis=1, keepdims=True)
// CHECK: = nl.subtract(
// CHECK: = nl.exp(
// CHECK: = nl.sum(sb{{[0-9]+}}[0:128, 0:128], axis=1, keepdims=True)
// CHECK: = nl.multiply(sb{{[0-9]+}}[0:128, 0:128], nl.reciprocal(sb{{[0-9]+}}[0:128, 0:1]))
// CHECK: # axe.gemm on TensorE: instruction M=128 N=128 K=128, 1 nc_matmul, loops []
// CHECK: # axe.gemm on TensorE: instruction M=128 N=64 K=128, 1 nc_matmul, loops []
// Head 1 uses the second halves of the Q^T/K^T buffers and of V:
// CHECK: += nisa.nc_matmul(sb0[0:64, 128:256], sb1[0:64, 128:256])
// CHECK: += nisa.nc_matmul(sb{{[0-9]+}}[0:128, 0:128], sb2[0:128, 64:128])
// CHECK: nl.store(arg5[0:128, 0:128], value=sb5[0:128, 0:128])

// API: OK
// EXEC: PASS attention 128x2x64

module attributes {axe.target = #axe.target<"trn1">} {
  func.func @mha(%q: !axe.tensor<128x128xf32, global, #axe.layout<(128, 128) : (128, 1)>>, %k: !axe.tensor<128x128xf32, global, #axe.layout<(128, 128) : (128, 1)>>, %vg: !axe.tensor<128x128xf32, global, #axe.layout<(128, 128) : (128, 1)>>, %ident: !axe.tensor<128x128xf32, global, #axe.layout<(128, 128) : (128, 1)>>, %scale: !axe.tensor<128x1xf32, global, #axe.layout<(128, 1) : (1, 1)>>, %out: !axe.tensor<128x128xf32, global, #axe.layout<(128, 128) : (128, 1)>>) {
    %zero = arith.constant 0.0 : f32
    %qt = axe.alloc : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 2, 64) : (1@F, 128@F, 1@P)>>
    %kt = axe.alloc : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 2, 64) : (1@F, 128@F, 1@P)>>
    %v = axe.alloc : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    %id = axe.alloc : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    %sc = axe.alloc : !axe.tensor<128x1xf32, sbuf, #axe.layout<(128, 1) : (1@P, 1@F)>>
    %o = axe.alloc : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    axe.copy %q, %qt : !axe.tensor<128x128xf32, global, #axe.layout<(128, 128) : (128, 1)>>, !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 2, 64) : (1@F, 128@F, 1@P)>>
    axe.copy %k, %kt : !axe.tensor<128x128xf32, global, #axe.layout<(128, 128) : (128, 1)>>, !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 2, 64) : (1@F, 128@F, 1@P)>>
    axe.copy %vg, %v : !axe.tensor<128x128xf32, global, #axe.layout<(128, 128) : (128, 1)>>, !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    axe.copy %ident, %id : !axe.tensor<128x128xf32, global, #axe.layout<(128, 128) : (128, 1)>>, !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    axe.copy %scale, %sc : !axe.tensor<128x1xf32, global, #axe.layout<(128, 1) : (1, 1)>>, !axe.tensor<128x1xf32, sbuf, #axe.layout<(128, 1) : (1@P, 1@F)>>
    // head 0
    %q0 = axe.slice %qt [0 : 128, 0 : 64] : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 2, 64) : (1@F, 128@F, 1@P)>> to !axe.tensor<128x64xf32, sbuf, #axe.layout<(128, 64) : (1@F, 1@P)>>
    %k0 = axe.slice %kt [0 : 128, 0 : 64] : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 2, 64) : (1@F, 128@F, 1@P)>> to !axe.tensor<128x64xf32, sbuf, #axe.layout<(128, 64) : (1@F, 1@P)>>
    %v0 = axe.slice %v [0 : 128, 0 : 64] : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>> to !axe.tensor<128x64xf32, sbuf, #axe.layout<(128, 64) : (1@P, 1@F)>>
    %o0 = axe.slice %o [0 : 128, 0 : 64] : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>> to !axe.tensor<128x64xf32, sbuf, #axe.layout<(128, 64) : (1@P, 1@F)>>
    %sp0 = axe.alloc : !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>
    %s0 = axe.alloc : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    %x0 = axe.alloc : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    %mx0 = axe.alloc : !axe.tensor<128x1xf32, sbuf, #axe.layout<(128, 1) : (1@P, 1@F)>>
    %sm0 = axe.alloc : !axe.tensor<128x1xf32, sbuf, #axe.layout<(128, 1) : (1@P, 1@F)>>
    %pt0 = axe.alloc : !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>
    %ptsb0 = axe.alloc : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    %op0 = axe.alloc : !axe.tensor<128x64xf32, psum, #axe.layout<(128, 64) : (1@P, 1@F)>>
    axe.fill %sp0, %zero : !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>, f32
    // S = Q_h K_h^T: A = Q_h [M=Sq, K=d], B = K_h read as [N=Sk, K=d]
    axe.gemm %q0, %k0, %sp0 {transpose_b} : !axe.tensor<128x64xf32, sbuf, #axe.layout<(128, 64) : (1@F, 1@P)>>, !axe.tensor<128x64xf32, sbuf, #axe.layout<(128, 64) : (1@F, 1@P)>>, !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>
    axe.copy %sp0, %s0 : !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    axe.binary mul %s0, %sc, %x0 : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x1xf32, sbuf, #axe.layout<(128, 1) : (1@P, 1@F)>>, !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    axe.reduce max %x0, %mx0 dims [1] : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x1xf32, sbuf, #axe.layout<(128, 1) : (1@P, 1@F)>>
    axe.binary sub %x0, %mx0, %s0 : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x1xf32, sbuf, #axe.layout<(128, 1) : (1@P, 1@F)>>, !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    axe.unary exp %s0, %x0 : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    axe.reduce sum %x0, %sm0 dims [1] : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x1xf32, sbuf, #axe.layout<(128, 1) : (1@P, 1@F)>>
    axe.binary div %x0, %sm0, %s0 : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x1xf32, sbuf, #axe.layout<(128, 1) : (1@P, 1@F)>>, !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    // P^T on TensorE: P read as [K=Sq, M=Sk] times the identity [K=Sq, N=Sq]
    axe.fill %pt0, %zero : !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>, f32
    axe.gemm %s0, %id, %pt0 {transpose_a} : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>
    axe.copy %pt0, %ptsb0 : !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    // O_h = P V_h: A = P^T read as [K=Sk, M=Sq], B = V_h [K=Sk, N=d]
    axe.fill %op0, %zero : !axe.tensor<128x64xf32, psum, #axe.layout<(128, 64) : (1@P, 1@F)>>, f32
    axe.gemm %ptsb0, %v0, %op0 {transpose_a} : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x64xf32, sbuf, #axe.layout<(128, 64) : (1@P, 1@F)>>, !axe.tensor<128x64xf32, psum, #axe.layout<(128, 64) : (1@P, 1@F)>>
    axe.copy %op0, %o0 : !axe.tensor<128x64xf32, psum, #axe.layout<(128, 64) : (1@P, 1@F)>>, !axe.tensor<128x64xf32, sbuf, #axe.layout<(128, 64) : (1@P, 1@F)>>
    // head 1
    %q1 = axe.slice %qt [0 : 128, 64 : 128] : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 2, 64) : (1@F, 128@F, 1@P)>> to !axe.tensor<128x64xf32, sbuf, #axe.layout<(128, 64) : (1@F, 1@P) + 128@F>>
    %k1 = axe.slice %kt [0 : 128, 64 : 128] : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 2, 64) : (1@F, 128@F, 1@P)>> to !axe.tensor<128x64xf32, sbuf, #axe.layout<(128, 64) : (1@F, 1@P) + 128@F>>
    %v1 = axe.slice %v [0 : 128, 64 : 128] : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>> to !axe.tensor<128x64xf32, sbuf, #axe.layout<(128, 64) : (1@P, 1@F) + 64@F>>
    %o1 = axe.slice %o [0 : 128, 64 : 128] : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>> to !axe.tensor<128x64xf32, sbuf, #axe.layout<(128, 64) : (1@P, 1@F) + 64@F>>
    %sp1 = axe.alloc : !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>
    %s1 = axe.alloc : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    %x1 = axe.alloc : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    %mx1 = axe.alloc : !axe.tensor<128x1xf32, sbuf, #axe.layout<(128, 1) : (1@P, 1@F)>>
    %sm1 = axe.alloc : !axe.tensor<128x1xf32, sbuf, #axe.layout<(128, 1) : (1@P, 1@F)>>
    %pt1 = axe.alloc : !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>
    %ptsb1 = axe.alloc : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    %op1 = axe.alloc : !axe.tensor<128x64xf32, psum, #axe.layout<(128, 64) : (1@P, 1@F)>>
    axe.fill %sp1, %zero : !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>, f32
    // S = Q_h K_h^T: A = Q_h [M=Sq, K=d], B = K_h read as [N=Sk, K=d]
    axe.gemm %q1, %k1, %sp1 {transpose_b} : !axe.tensor<128x64xf32, sbuf, #axe.layout<(128, 64) : (1@F, 1@P) + 128@F>>, !axe.tensor<128x64xf32, sbuf, #axe.layout<(128, 64) : (1@F, 1@P) + 128@F>>, !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>
    axe.copy %sp1, %s1 : !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    axe.binary mul %s1, %sc, %x1 : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x1xf32, sbuf, #axe.layout<(128, 1) : (1@P, 1@F)>>, !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    axe.reduce max %x1, %mx1 dims [1] : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x1xf32, sbuf, #axe.layout<(128, 1) : (1@P, 1@F)>>
    axe.binary sub %x1, %mx1, %s1 : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x1xf32, sbuf, #axe.layout<(128, 1) : (1@P, 1@F)>>, !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    axe.unary exp %s1, %x1 : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    axe.reduce sum %x1, %sm1 dims [1] : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x1xf32, sbuf, #axe.layout<(128, 1) : (1@P, 1@F)>>
    axe.binary div %x1, %sm1, %s1 : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x1xf32, sbuf, #axe.layout<(128, 1) : (1@P, 1@F)>>, !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    // P^T on TensorE: P read as [K=Sq, M=Sk] times the identity [K=Sq, N=Sq]
    axe.fill %pt1, %zero : !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>, f32
    axe.gemm %s1, %id, %pt1 {transpose_a} : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>
    axe.copy %pt1, %ptsb1 : !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    // O_h = P V_h: A = P^T read as [K=Sk, M=Sq], B = V_h [K=Sk, N=d]
    axe.fill %op1, %zero : !axe.tensor<128x64xf32, psum, #axe.layout<(128, 64) : (1@P, 1@F)>>, f32
    axe.gemm %ptsb1, %v1, %op1 {transpose_a} : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x64xf32, sbuf, #axe.layout<(128, 64) : (1@P, 1@F) + 64@F>>, !axe.tensor<128x64xf32, psum, #axe.layout<(128, 64) : (1@P, 1@F)>>
    axe.copy %op1, %o1 : !axe.tensor<128x64xf32, psum, #axe.layout<(128, 64) : (1@P, 1@F)>>, !axe.tensor<128x64xf32, sbuf, #axe.layout<(128, 64) : (1@P, 1@F) + 64@F>>
    axe.copy %o, %out : !axe.tensor<128x128xf32, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x128xf32, global, #axe.layout<(128, 128) : (128, 1)>>
    return
  }
}
