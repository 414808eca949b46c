// axe-expand-matmul: a gated product whose up weights are a tensor of their own (`up(...)`,
// a model's separate gate and up projections, as the front door finds them): each tile loads
// the same columns of B_gate and of B_up into the two halves of the B stage (three TMA copies
// per full barrier), and the epilogue multiplies act(gate half) by the up half.
// RUN: axe-opt %s --axe-matmul-schedule --axe-expand-matmul | FileCheck %s
// CHECK-LABEL: func.func @gated_up
// CHECK: %[[B:.*]] = axe.view %arg1
// CHECK: %[[BU:.*]] = axe.view %arg3
// CHECK: axe.mbarrier arrivals 3
// CHECK: %[[GP:.*]] = axe.slice %[[B]] [0 : 512, %[[ON:.*]] : +64] :
// CHECK-NEXT: %[[UP:.*]] = axe.slice %[[BU]] [0 : 512, %[[ON]] : +64] :
// CHECK: axe.slice %[[GP]] [%{{.*}} : +64, 0 : 64]
// CHECK: axe.slice %[[UP]] [%{{.*}} : +64, 0 : 64]
// CHECK: axe.unary silu
// CHECK-NEXT: axe.binary mul
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @gated_up(%a: memref<131072xf16> {axe.align = 16 : i64}, %b: memref<524288xf16> {axe.align = 16 : i64}, %c: memref<262144xf16> {axe.align = 16 : i64}, %bu: memref<524288xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<131072xf16> to !axe.tensor<256x512xf16, global, #axe.layout<(256, 512) : (512, 1)>>
    %B = axe.view %b : memref<524288xf16> to !axe.tensor<512x1024xf16, global, #axe.layout<(512, 1024) : (1024, 1)>>
    %C = axe.view %c : memref<262144xf16> to !axe.tensor<256x1024xf16, global, #axe.layout<(256, 1024) : (1024, 1)>>
    %BU = axe.view %bu : memref<524288xf16> to !axe.tensor<512x1024xf16, global, #axe.layout<(512, 1024) : (1024, 1)>>
    axe.matmul %A, %B, %C gate silu up(%BU : !axe.tensor<512x1024xf16, global, #axe.layout<(512, 1024) : (1024, 1)>>) : !axe.tensor<256x512xf16, global, #axe.layout<(256, 512) : (512, 1)>>, !axe.tensor<512x1024xf16, global, #axe.layout<(512, 1024) : (1024, 1)>>, !axe.tensor<256x1024xf16, global, #axe.layout<(256, 1024) : (1024, 1)>>
    return
  }
}
