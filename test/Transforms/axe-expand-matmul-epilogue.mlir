// axe-expand-matmul: the epilogue act(A B + bias) + residual, applied to each part of a
// consumer's accumulator in f32 before C's rounding: the bias row and the residual read from
// global memory into registers (clipped like the store), the activation in place. The whole
// kernel lowers (through axe-infer-layout, which gives the bias row the accumulator's layout
// projected onto its columns).
// RUN: axe-opt %s --axe-matmul-schedule --axe-expand-matmul | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm-pipeline="chip=sm_90a features=+ptx80" | FileCheck %s --check-prefix=PTX

// 200 x 1000 x 512 in 64x64 tiles ({clip}: no dimension a tile multiple).
// CHECK-LABEL: func.func @epilogue
// CHECK: axe.scope warpgroup [1 : 2] {
// CHECK: axe.wait{{ *$}}
// CHECK: %[[BROW:.*]] = axe.slice %{{.*}} [%{{.*}} : +1, %[[ON:.*]] : +64] {clip} : !axe.tensor<1x1000xf16, {{.*}} to !axe.tensor<1x64xf16, global, ?>
// CHECK: %[[BW:.*]] = axe.alloc : !axe.tensor<1x64xf32, register, ?>
// CHECK: %[[BN:.*]] = axe.alloc : !axe.tensor<1x64xf16, register, ?>
// CHECK-NEXT: axe.copy %[[BROW]], %[[BN]] : !axe.tensor<1x64xf16, global, ?>, !axe.tensor<1x64xf16, register, ?>
// CHECK-NEXT: axe.cast %[[BN]], %[[BW]]
// CHECK-NEXT: axe.binary add %[[ACC:.*]], %[[BW]], %[[ACC]] {fastmath = #arith.fastmath<contract>} : !axe.tensor<64x64xf32, register, ?>, !axe.tensor<1x64xf32, register, ?>, !axe.tensor<64x64xf32, register, ?>
// CHECK-NEXT: axe.unary gelu %[[ACC]], %[[ACC]] : !axe.tensor<64x64xf32, register, ?>
// CHECK-NEXT: %[[RT:.*]] = axe.slice %{{.*}} [%{{.*}} : +64, %[[ON]] : +64] {clip} : !axe.tensor<200x1000xf16, {{.*}} to !axe.tensor<64x64xf16, global, ?>
// CHECK: axe.copy %[[RT]], %[[RN:.*]] : !axe.tensor<64x64xf16, global, ?>, !axe.tensor<64x64xf16, register, ?>
// CHECK-NEXT: axe.cast %[[RN]], %[[RW:.*]] :
// CHECK-NEXT: axe.binary add %[[ACC]], %[[RW]], %[[ACC]] {fastmath = #arith.fastmath<contract>} : !axe.tensor<64x64xf32, register, ?>, !axe.tensor<64x64xf32, register, ?>, !axe.tensor<64x64xf32, register, ?>
// CHECK: axe.cast %[[ACC]], %{{.*}} : !axe.tensor<64x64xf32, register, ?>, !axe.tensor<64x64xf16, register, ?>
// CHECK: schedule tma

// The activation's divisions are div.approx (no IEEE slow path per element); erf's exp2 too.
// PTX: div.approx.f32
// PTX: ex2.approx.ftz.f32
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @epilogue(%a: memref<102400xf16> {axe.align = 16 : i64}, %b: memref<512000xf16> {axe.align = 16 : i64}, %c: memref<200000xf16> {axe.align = 16 : i64}, %bias: memref<1000xf16>, %r: memref<200000xf16>) {
    %A = axe.view %a : memref<102400xf16> to !axe.tensor<200x512xf16, global, #axe.layout<(200, 512) : (512, 1)>>
    %B = axe.view %b : memref<512000xf16> to !axe.tensor<512x1000xf16, global, #axe.layout<(512, 1000) : (1000, 1)>>
    %C = axe.view %c : memref<200000xf16> to !axe.tensor<200x1000xf16, global, #axe.layout<(200, 1000) : (1000, 1)>>
    %BIAS = axe.view %bias : memref<1000xf16> to !axe.tensor<1x1000xf16, global, #axe.layout<(1, 1000) : (1000, 1)>>
    %R = axe.view %r : memref<200000xf16> to !axe.tensor<200x1000xf16, global, #axe.layout<(200, 1000) : (1000, 1)>>
    axe.matmul %A, %B, %C bias(%BIAS : !axe.tensor<1x1000xf16, global, #axe.layout<(1, 1000) : (1000, 1)>>) activation gelu residual(%R : !axe.tensor<200x1000xf16, global, #axe.layout<(200, 1000) : (1000, 1)>>) : !axe.tensor<200x512xf16, global, #axe.layout<(200, 512) : (512, 1)>>, !axe.tensor<512x1000xf16, global, #axe.layout<(512, 1000) : (1000, 1)>>, !axe.tensor<200x1000xf16, global, #axe.layout<(200, 1000) : (1000, 1)>>
    return
  }
}
