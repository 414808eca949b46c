// axe-expand-matmul with split-K: two CTAs share each 64x128 tile's K; the parts add up in
// turn through the workspace (f32 running sums, one flag per 64x64 block of C, reset by the last
// part), walked split-major by a cooperative grid.
// RUN: axe-opt %s --split-input-file --axe-matmul-schedule --axe-expand-matmul | FileCheck %s
// RUN: axe-opt %s --split-input-file --axe-matmul-schedule | FileCheck %s --check-prefix=CHOSEN

// 64 x 32 tiles x 2 parts = 64 work items on 64 CTAs; each part walks 4 rounds of 8 stages.
// CHECK-LABEL: func.func @split
// CHECK: axe.kernel grid [64] threads [256] cooperative {
// CHECK: scf.for %[[T:[^ ]*]] = %{{.*}} to %c64{{.*}} step %c64
// CHECK: %[[PART:.*]] = arith.divui %[[T]], %c32
// CHECK: arith.remui %[[T]], %c32
// The producer's first round of part p is p * 4.
// CHECK: arith.muli %[[PART]], %c4
// CHECK: axe.scope warpgroup [1 : 2] {
// CHECK: %[[FLAG:.*]] = axe.slice %{{.*}} [%{{.*}} : +1, %{{.*}} : +1] : !axe.tensor<1x64xi32
// CHECK: %[[SUMS:.*]] = axe.slice %{{.*}} [%{{.*}} : +64, %{{.*}} : +128] : !axe.tensor<64x4096xf32
// CHECK: scf.if
// CHECK-NEXT: axe.signal_wait %[[FLAG]], %{{.*}}
// CHECK: axe.copy %[[SUMS]], %[[PREV:.*]] : !axe.tensor<64x128xf32, global, ?>, !axe.tensor<64x128xf32, register, ?>
// CHECK-NEXT: axe.binary add %{{.*}}, %[[PREV]], %{{.*}}
// CHECK: scf.if
// CHECK-NEXT: axe.copy %{{.*}}, %[[SUMS]] : !axe.tensor<64x128xf32, register, ?>, !axe.tensor<64x128xf32, global, ?>
// CHECK: axe.signal %[[FLAG]]
// CHECK: scf.if
// CHECK: axe.copy %{{.*}}, %{{.*}} schedule tma
// CHECK: axe.signal %[[FLAG]], %c0_i32
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @split(%a: memref<262144xf16> {axe.align = 16 : i64}, %b: memref<16777216xf16> {axe.align = 16 : i64}, %c: memref<262144xf16> {axe.align = 16 : i64}, %p: memref<262144xf32> {axe.align = 16 : i64}, %f: memref<64xi32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<262144xf16> to !axe.tensor<64x4096xf16, global, #axe.layout<(64, 4096) : (4096, 1)>>
    %B = axe.view %b : memref<16777216xf16> to !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>>
    %C = axe.view %c : memref<262144xf16> to !axe.tensor<64x4096xf16, global, #axe.layout<(64, 4096) : (4096, 1)>>
    %P = axe.view %p : memref<262144xf32> to !axe.tensor<64x4096xf32, global, #axe.layout<(64, 4096) : (4096, 1)>>
    %F = axe.view %f : memref<64xi32> to !axe.tensor<1x64xi32, global, #axe.layout<(1, 64) : (64, 1)>>
    axe.matmul %A, %B, %C workspace(%P, %F : !axe.tensor<64x4096xf32, global, #axe.layout<(64, 4096) : (4096, 1)>>, !axe.tensor<1x64xi32, global, #axe.layout<(1, 64) : (64, 1)>>) {schedule = #axe.matmul_schedule<tile_m = 64, tile_n = 128, stages = 8, split_k = 2>} : !axe.tensor<64x4096xf16, global, #axe.layout<(64, 4096) : (4096, 1)>>, !axe.tensor<4096x4096xf16, global, #axe.layout<(4096, 4096) : (4096, 1)>>, !axe.tensor<64x4096xf16, global, #axe.layout<(64, 4096) : (4096, 1)>>
    return
  }
}

// -----

// With a workspace, a small batch's long K is split (Llama-3.1-8B's down projection at M = 64:
// 32 tiles of 64x128 would leave 100 SMs idle).
// CHOSEN-LABEL: func.func @chosen
// CHOSEN: split_k = 2
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @chosen(%a: memref<917504xf16> {axe.align = 16 : i64}, %b: memref<58720256xf16> {axe.align = 16 : i64}, %c: memref<262144xf16> {axe.align = 16 : i64}, %p: memref<262144xf32> {axe.align = 16 : i64}, %f: memref<64xi32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<917504xf16> to !axe.tensor<64x14336xf16, global, #axe.layout<(64, 14336) : (14336, 1)>>
    %B = axe.view %b : memref<58720256xf16> to !axe.tensor<14336x4096xf16, global, #axe.layout<(14336, 4096) : (4096, 1)>>
    %C = axe.view %c : memref<262144xf16> to !axe.tensor<64x4096xf16, global, #axe.layout<(64, 4096) : (4096, 1)>>
    %P = axe.view %p : memref<262144xf32> to !axe.tensor<64x4096xf32, global, #axe.layout<(64, 4096) : (4096, 1)>>
    %F = axe.view %f : memref<64xi32> to !axe.tensor<1x64xi32, global, #axe.layout<(1, 64) : (64, 1)>>
    axe.matmul %A, %B, %C workspace(%P, %F : !axe.tensor<64x4096xf32, global, #axe.layout<(64, 4096) : (4096, 1)>>, !axe.tensor<1x64xi32, global, #axe.layout<(1, 64) : (64, 1)>>) : !axe.tensor<64x14336xf16, global, #axe.layout<(64, 14336) : (14336, 1)>>, !axe.tensor<14336x4096xf16, global, #axe.layout<(14336, 4096) : (4096, 1)>>, !axe.tensor<64x4096xf16, global, #axe.layout<(64, 4096) : (4096, 1)>>
    return
  }
}
