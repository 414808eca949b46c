// Fill, unary, binary with broadcasting and cast on register tensors: straight-line code
// over the registers each thread owns, constant register indices.
// RUN: axe-opt %s --convert-axe-to-gpu | FileCheck %s

// CHECK-LABEL: func.func @pointwise
// CHECK: gpu.launch
// CHECK-DAG: %[[X:.*]] = memref.alloca() : memref<2xf32>
// CHECK-DAG: %[[M:.*]] = memref.alloca() : memref<1xf32>
// CHECK-DAG: %[[H:.*]] = memref.alloca() : memref<2xf16>
// Fill: both registers of every thread.
// CHECK: memref.store %[[ZERO:.*]], %[[X]][%[[R0:.*]]] : memref<2xf32>
// CHECK: memref.store %[[ZERO]], %[[X]][%[[R1:.*]]] : memref<2xf32>
// sub with the row value broadcast along the registers: both read register 0 of %m. The op's
// fastmath flags reach the arith op (contract: LLVM may fuse it with a multiply into fma, as
// CUDA compilers do by default; without it NVPTX writes mul.rn / sub.rn, which ptxas never
// fuses). An op without flags (the mul at the end) rounds each result, as arith does.
// CHECK: %[[A:.*]] = memref.load %[[X]][%{{.*}}] : memref<2xf32>
// CHECK: %[[B:.*]] = memref.load %[[M]][%[[MR:.*]]] : memref<1xf32>
// CHECK: %[[D:.*]] = arith.subf %[[A]], %[[B]] fastmath<contract> : f32
// CHECK: memref.store %[[D]], %[[X]]
// CHECK: memref.load %[[M]][%[[MR2:.*]]] : memref<1xf32>
// CHECK: arith.subf
// exp on f32 is 2^(x log2 e) through the NVVM intrinsic (the PTX ex2.approx.ftz.f32), not a
// libdevice call.
// CHECK: %[[L2E:.*]] = arith.constant 1.44269502 : f32
// CHECK: %[[XS:.*]] = arith.mulf %{{.*}}, %[[L2E]] : f32
// CHECK: %[[E:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[XS]]) : (f32) -> f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK-NOT: math.exp
// CHECK: %[[T:.*]] = arith.truncf %{{.*}} : f32 to f16
// CHECK: memref.store %[[T]], %[[H]]
// CHECK: arith.truncf
// CHECK: arith.maximumf
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: fastmath
// CHECK: gpu.terminator
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @pointwise() {
    axe.kernel grid [1] threads [32] {
      %zero = arith.constant 0.0 : f32
      %x = axe.alloc : !axe.tensor<32x2xf32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>
      %m = axe.alloc : !axe.tensor<32x1xf32, register, #axe.layout<(32) : (1@lane)>>
      %h = axe.alloc : !axe.tensor<32x2xf16, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>
      axe.fill %x, %zero : !axe.tensor<32x2xf32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>, f32
      axe.fill %m, %zero : !axe.tensor<32x1xf32, register, #axe.layout<(32) : (1@lane)>>, f32
      axe.binary sub %x, %m, %x {fastmath = #arith.fastmath<contract>} : !axe.tensor<32x2xf32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>, !axe.tensor<32x1xf32, register, #axe.layout<(32) : (1@lane)>>, !axe.tensor<32x2xf32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>
      axe.unary exp %x, %x : !axe.tensor<32x2xf32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>, !axe.tensor<32x2xf32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>
      axe.cast %x, %h : !axe.tensor<32x2xf32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>, !axe.tensor<32x2xf16, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>
      axe.unary relu %x, %x : !axe.tensor<32x2xf32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>, !axe.tensor<32x2xf32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>
      axe.binary mul %x, %x, %x : !axe.tensor<32x2xf32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>, !axe.tensor<32x2xf32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>, !axe.tensor<32x2xf32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>
    }
    return
  }
}
