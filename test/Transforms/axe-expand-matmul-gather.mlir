// axe-expand-matmul for a gated product (`gate silu`: SwiGLU in the epilogue) and for the
// all-gather of A's rows fused in (`gather(%G, %F, %epoch)` in an axe.mesh).
// RUN: axe-opt %s --split-input-file --axe-matmul-schedule --axe-expand-matmul | FileCheck %s
// RUN: axe-opt %s --split-input-file --axe-matmul-schedule | FileCheck %s --check-prefix=CHOSEN

// The gated product: each K step loads B's gate columns and the matching up columns (N/2 to
// the right) into the two halves of the stage: three copies complete on a stage's barrier.
// The epilogue stores silu(gate) * up, 128 columns of C per 256-column tile.
// CHOSEN-LABEL: func.func @gated
// CHOSEN: tile_m = 128, tile_n = 256, tile_k = 64, stages = 4
// CHECK-LABEL: func.func @gated
// CHECK: axe.kernel grid [4] threads [384] {
// CHECK: axe.mbarrier arrivals 3
// CHECK: axe.scope warp [0 : 1] {
// CHECK: %[[UPCOL:.*]] = arith.addi %[[ON:[^ ]*]], %c256
// CHECK: axe.slice %{{.*}} [0 : 512, %[[ON]] : +128]
// CHECK: axe.slice %{{.*}} [0 : 512, %[[UPCOL]] : +128]
// CHECK: axe.slice %[[STAGE:[^ ]*]] [0 : 64, 0 : 128] : !axe.tensor<64x256xf16, shared
// CHECK: axe.slice %[[STAGE]] [0 : 64, 128 : 256] : !axe.tensor<64x256xf16, shared
// CHECK: axe.scope warpgroup [1 : 2] {
// CHECK: %[[G:.*]] = axe.slice %{{.*}} [0 : 64, 0 : 128] : !axe.tensor<64x256xf32, register
// CHECK: %[[U:.*]] = axe.slice %{{.*}} [0 : 64, 128 : 256] : !axe.tensor<64x256xf32, register
// CHECK-NEXT: axe.unary silu %[[G]], %[[G]]
// CHECK-NEXT: axe.binary mul %[[G]], %[[U]], %[[G]]
// CHECK: axe.slice %{{.*}} [%{{.*}} : +64, %{{.*}} : +128] : !axe.tensor<256x256xf16, global
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @gated(%a: memref<131072xf16> {axe.align = 16 : i64}, %b: memref<262144xf16> {axe.align = 16 : i64}, %c: memref<65536xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<131072xf16> to !axe.tensor<256x512xf16, global, #axe.layout<(256, 512) : (512, 1)>>
    %B = axe.view %b : memref<262144xf16> to !axe.tensor<512x512xf16, global, #axe.layout<(512, 512) : (512, 1)>>
    %C = axe.view %c : memref<65536xf16> to !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>>
    axe.matmul %A, %B, %C gate silu {schedule = #axe.matmul_schedule<tile_m = 128, tile_n = 256, stages = 4>} : !axe.tensor<256x512xf16, global, #axe.layout<(256, 512) : (512, 1)>>, !axe.tensor<512x512xf16, global, #axe.layout<(512, 512) : (512, 1)>>, !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>>
    return
  }
}

// -----

// The gathered A on 2 devices, 256 rows each: a cooperative grid; the producer's own row tiles
// (rotated first) load this device's A, the others wait for their pieces' flags and load G;
// pusher warp 1 (the schedule's one pusher) signals this device's start to its peer
// (CTA 0's warp 1), then pushes 64 x 512
// pieces (whole rows of a piece, two at a time) into the peer's G and publish each.
// The raster group divides a device's 2 row tiles (its own rows are walked before a peer's).
// CHOSEN-LABEL: func.func @gather
// CHOSEN: tile_m = 128, tile_n = 128, tile_k = 64, stages = 4, cluster = 1, group = 2, grid = 16, split_k = 1, persistent = true, pushers = 1>
// CHECK-LABEL: func.func @gather
// CHECK-DAG: %[[AL:.*]] = axe.view %arg0 : memref<262144xf16> to !axe.tensor<256x1024xf16, global, #axe.layout<(256, 1024) : (1024, 1)>>
// CHECK-DAG: %[[AR:.*]] = axe.view %arg0 : memref<262144xf16> to !axe.tensor<1x256x1024xf16
// CHECK-DAG: %[[GL:.*]] = axe.view %arg3 : memref<524288xf16> to !axe.tensor<512x1024xf16, global, #axe.layout<(512, 1024) : (1024, 1)>>
// CHECK: axe.kernel grid [{{[0-9]+}}] threads [384] cooperative {
// CHECK: %[[DEV:.*]] = axe.device_id
// CHECK: axe.scope warp [0 : 1] {
// CHECK: %[[SRC:.*]] = arith.divui %[[OM:[^ ]*]], %c256
// CHECK: %[[OWN:.*]] = arith.cmpi eq, %[[SRC]], %[[DEV]]
// CHECK: %[[OTHER:.*]] = arith.xori %[[OWN]]
// CHECK: scf.if %[[OTHER]] {
// CHECK: axe.signal_wait %{{.*}}, %arg5 : !axe.tensor<1x1x4xi32, global, ?>, i32
// CHECK: axe.slice %[[AL]] [%{{.*}} : +128, 0 : 1024]
// CHECK: axe.slice %[[GL]] [%[[OM]] : +128, 0 : 1024]
// CHECK: scf.if %[[OWN]] {
// CHECK-NEXT: axe.slice
// CHECK-NEXT: axe.copy async %{{.*}} schedule tma
// CHECK: scf.if %[[OTHER]] {
// CHECK-NEXT: axe.slice
// CHECK-NEXT: axe.copy async %{{.*}} schedule tma
// CHECK: axe.scope warp [1 : 2] {
// CHECK: scf.if
// CHECK: axe.signal %{{.*}}, %arg5 : !axe.tensor<1x1x1xi32, global, ?>, i32
// CHECK: %[[REG:.*]] = axe.alloc : !axe.tensor<1x2x512xf16, register, #axe.layout<(2, 2, 32, 8) : (16@reg, 8@reg, 1@lane, 1@reg)>>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c8{{.*}} step %c16
// CHECK: axe.signal_wait %{{.*}}, %arg5 : !axe.tensor<1x1x1xi32, global, ?>, i32
// CHECK: scf.for
// CHECK: %[[FROM:.*]] = axe.slice %[[AR]]
// CHECK: %[[TO:.*]] = axe.slice %{{.*}} [%{{.*}} : +1, %{{.*}} : +2, %{{.*}} : +512] : !axe.tensor<2x512x1024xf16, global, #axe.layout<(2, 512, 1024) : (1@gpuid, 1024, 1)>>
// CHECK: axe.copy %[[FROM]], %[[REG]]
// CHECK-NEXT: axe.copy %[[REG]], %[[TO]]
// CHECK: axe.signal %{{.*}}, %arg5 : !axe.tensor<1x1x1xi32, global, ?>, i32
// CHECK-NOT: axe.scope warp [2 : 3] {
// CHECK: axe.scope warpgroup [1 : 2] {
// CHECK: axe.unary silu
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @gather(%a: memref<262144xf16> {axe.align = 16 : i64}, %b: memref<524288xf16> {axe.align = 16 : i64}, %c: memref<131072xf16> {axe.align = 16 : i64}, %g: memref<524288xf16> {axe.align = 16 : i64}, %gf: memref<24xi32> {axe.align = 16 : i64}, %epoch: i32) {
    axe.mesh [2] {
      %A = axe.view %a : memref<262144xf16> to !axe.tensor<512x1024xf16, global, #axe.layout<(2, 256, 1024) : (1@gpuid, 1024, 1)>>
      %B = axe.view %b : memref<524288xf16> to !axe.tensor<1024x512xf16, global, #axe.layout<(1024, 512) : (512, 1)>>
      %C = axe.view %c : memref<131072xf16> to !axe.tensor<512x256xf16, global, #axe.layout<(512, 256) : (256, 1)>>
      %G = axe.view %g : memref<524288xf16> to !axe.tensor<2x512x1024xf16, global, #axe.layout<(2, 512, 1024) : (1@gpuid, 1024, 1)>>
      %GF = axe.view %gf : memref<24xi32> to !axe.tensor<2x3x8xi32, global, #axe.layout<(2, 3, 8) : (1@gpuid, 8, 1)>>
      axe.matmul %A, %B, %C gate silu gather(%G, %GF, %epoch : !axe.tensor<2x512x1024xf16, global, #axe.layout<(2, 512, 1024) : (1@gpuid, 1024, 1)>>, !axe.tensor<2x3x8xi32, global, #axe.layout<(2, 3, 8) : (1@gpuid, 8, 1)>>) {schedule = #axe.matmul_schedule<tile_m = 128, stages = 4>} : !axe.tensor<512x1024xf16, global, #axe.layout<(2, 256, 1024) : (1@gpuid, 1024, 1)>>, !axe.tensor<1024x512xf16, global, #axe.layout<(1024, 512) : (512, 1)>>, !axe.tensor<512x256xf16, global, #axe.layout<(512, 256) : (256, 1)>>
    }
    return
  }
}

// -----

// The schedule's `pushers = 3` (an override): warps 1-3 push, each piece `cta * 3 + w - 1`,
// stepping by the grid's 48 warps.
// CHOSEN-LABEL: func.func @gather3
// CHOSEN: pushers = 3>
// CHECK-LABEL: func.func @gather3
// CHECK: axe.scope warp [1 : 2] {
// CHECK: scf.for %{{.*}} = %{{.*}} to %c8{{.*}} step %c48
// CHECK: axe.scope warp [2 : 3] {
// CHECK: axe.scope warp [3 : 4] {
// CHECK: axe.scope warpgroup [1 : 2] {
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @gather3(%a: memref<262144xf16> {axe.align = 16 : i64}, %b: memref<524288xf16> {axe.align = 16 : i64}, %c: memref<131072xf16> {axe.align = 16 : i64}, %g: memref<524288xf16> {axe.align = 16 : i64}, %gf: memref<24xi32> {axe.align = 16 : i64}, %epoch: i32) {
    axe.mesh [2] {
      %A = axe.view %a : memref<262144xf16> to !axe.tensor<512x1024xf16, global, #axe.layout<(2, 256, 1024) : (1@gpuid, 1024, 1)>>
      %B = axe.view %b : memref<524288xf16> to !axe.tensor<1024x512xf16, global, #axe.layout<(1024, 512) : (512, 1)>>
      %C = axe.view %c : memref<131072xf16> to !axe.tensor<512x256xf16, global, #axe.layout<(512, 256) : (256, 1)>>
      %G = axe.view %g : memref<524288xf16> to !axe.tensor<2x512x1024xf16, global, #axe.layout<(2, 512, 1024) : (1@gpuid, 1024, 1)>>
      %GF = axe.view %gf : memref<24xi32> to !axe.tensor<2x3x8xi32, global, #axe.layout<(2, 3, 8) : (1@gpuid, 8, 1)>>
      axe.matmul %A, %B, %C gate silu gather(%G, %GF, %epoch : !axe.tensor<2x512x1024xf16, global, #axe.layout<(2, 512, 1024) : (1@gpuid, 1024, 1)>>, !axe.tensor<2x3x8xi32, global, #axe.layout<(2, 3, 8) : (1@gpuid, 8, 1)>>) {schedule = #axe.matmul_schedule<tile_m = 128, stages = 4, pushers = 3>} : !axe.tensor<512x1024xf16, global, #axe.layout<(2, 256, 1024) : (1@gpuid, 1024, 1)>>, !axe.tensor<1024x512xf16, global, #axe.layout<(1024, 512) : (512, 1)>>, !axe.tensor<512x256xf16, global, #axe.layout<(512, 256) : (256, 1)>>
    }
    return
  }
}
