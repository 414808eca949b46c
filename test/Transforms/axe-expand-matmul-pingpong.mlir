// axe-expand-matmul with `pingpong = true` (a schedule override; axe-matmul-schedule never
// chooses it): two consumer warpgroups take alternate 64-row tiles of the CTA's walk (each its
// own loop of step 2 x grid, the second from the CTA's second tile), and run their mainloops in
// turn: each waits on its turn barrier (the first warpgroup's first wait passes a fresh
// barrier's parity 1) and, once its tile's MMAs are issued, arrives on the other's. Each stage
// use is released by the one warpgroup that read it (empty barriers of 128 arrivals).
// RUN: axe-opt %s --axe-matmul-schedule | FileCheck %s --check-prefix=SCHED
// RUN: axe-opt %s --axe-matmul-schedule --axe-expand-matmul | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm-pipeline="chip=sm_90a features=+ptx80" | FileCheck %s --check-prefix=PTX
// SCHED: #axe.matmul_schedule<tile_m = 64, tile_n = 64, tile_k = 64, stages = 8, cluster = 1, group = 4, grid = 64, split_k = 1, persistent = true, pingpong = true>
// CHECK: axe.kernel grid [64] threads [384] {
// CHECK-COUNT-8: axe.mbarrier arrivals 128
// CHECK-NEXT: %[[TURN0:.*]] = axe.mbarrier arrivals 128
// CHECK-NEXT: %[[TURN1:.*]] = axe.mbarrier arrivals 128
// CHECK: axe.scope warpgroup [1 : 2] {
// CHECK-NEXT: axe.set_max_registers 232
// CHECK: %[[STEP:.*]] = arith.muli %{{.*}}, %c2 : index
// CHECK-NEXT: scf.for %{{.*}} = %[[CTA:.*]] to %{{.*}} step %[[STEP]] {
// CHECK: %[[BIT:.*]] = arith.cmpi ne
// CHECK-NEXT: %[[PARITY:.*]] = arith.xori %[[BIT]], %true : i1
// CHECK-NEXT: axe.mbarrier_wait %[[TURN0]], %[[PARITY]]
// CHECK: axe.mbarrier_arrive %[[TURN1]]
// CHECK-NEXT: axe.wait{{ *$}}
// CHECK: axe.scope warpgroup [2 : 3] {
// CHECK: %[[SECOND:.*]] = arith.addi %[[CTA]], %{{.*}} : index
// CHECK: scf.for %{{.*}} = %[[SECOND]] to %{{.*}} step %{{.*}} {
// CHECK: axe.mbarrier_wait %[[TURN1]], %{{.*}}
// CHECK: axe.mbarrier_arrive %[[TURN0]]
// The whole kernel lowers: the producer gives registers up, both consumers take them.
// PTX-COUNT-2: setmaxnreg.inc.sync.aligned.u32
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @pingpong(%a: memref<102400xf16> {axe.align = 16 : i64}, %b: memref<512000xf16> {axe.align = 16 : i64}, %c: memref<200000xf16> {axe.align = 16 : i64}, %bias: memref<1000xf16>) {
    %A = axe.view %a : memref<102400xf16> to !axe.tensor<200x512xf16, global, #axe.layout<(200, 512) : (512, 1)>>
    %B = axe.view %b : memref<512000xf16> to !axe.tensor<512x1000xf16, global, #axe.layout<(512, 1000) : (1000, 1)>>
    %C = axe.view %c : memref<200000xf16> to !axe.tensor<200x1000xf16, global, #axe.layout<(200, 1000) : (1000, 1)>>
    %BIAS = axe.view %bias : memref<1000xf16> to !axe.tensor<1x1000xf16, global, #axe.layout<(1, 1000) : (1000, 1)>>
    axe.matmul %A, %B, %C bias(%BIAS : !axe.tensor<1x1000xf16, global, #axe.layout<(1, 1000) : (1000, 1)>>) activation gelu {schedule = #axe.matmul_schedule<pingpong = true>} : !axe.tensor<200x512xf16, global, #axe.layout<(200, 512) : (512, 1)>>, !axe.tensor<512x1000xf16, global, #axe.layout<(512, 1000) : (1000, 1)>>, !axe.tensor<200x1000xf16, global, #axe.layout<(200, 1000) : (1000, 1)>>
    return
  }
}
