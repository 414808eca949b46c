// axe-expand-attention's grid: persistent (at most one CTA per SM, each walking work items)
// where every item is the same work and D <= 128; one CTA per item with `persistent = false`,
// and at D = 256 (the walk's registers spilled there). The walk carries, as i1 parities, the
// items done, the ping-pong turns taken and each stage's uses: the barriers' phases.
// RUN: axe-opt %s --axe-expand-attention | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm-pipeline='chip=sm_90a features=+ptx80' | FileCheck %s --check-prefix=PTX

// 8 sequences of 1024 tokens, 4 heads, D = 128, not causal: 8 x 4 x 8 = 256 items over the
// target's 132 SMs. Each role walks items cta, cta + 132, ..; the producer loads a stage
// after the stage's empty barrier passes the parity of its uses so far (xor the round's).
// CHECK-LABEL: func.func @walk
// CHECK: axe.kernel grid [132] threads [384] {
// CHECK: %[[CTA:[a-z0-9_]+]] = axe.unit_id cta
// CHECK: axe.scope warp [0 : 1] {
// CHECK: %{{.*}}:4 = scf.for %[[IT:[a-z0-9_]+]] = %[[CTA]] to %c256 step %c132{{.*}} iter_args(%[[DONE:[a-z0-9_]+]] = %false, %{{.*}} = %false, %[[U0:[a-z0-9_]+]] = %false, %[[U1:[a-z0-9_]+]] = %false) -> (i1, i1, i1, i1) {
// CHECK: arith.divui %[[IT]], %c32
// CHECK: arith.xori %[[U0]], %{{.*}} : i1
// CHECK: axe.mbarrier_wait
// CHECK: axe.copy async {{.*}} schedule tma barrier
// The Q tile after the first K, once Q's empty barrier passes the items done's parity ^ 1.
// CHECK: arith.xori %[[DONE]], %true : i1
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : i1, i1, i1, i1
// The consumers walk the same items; the Q tile's full barrier waits for the parity of the
// items done.
// CHECK: axe.scope warpgroup [1 : 2] {
// CHECK: scf.for %{{.*}} = %[[CTA]] to %c256 step %c132{{.*}} iter_args(%[[CDONE:[a-z0-9_]+]] = %false, {{.*}}) -> (i1, i1, i1, i1) {
// CHECK: axe.mbarrier_wait %{{.*}}, %[[CDONE]]{{ *$}}
// CHECK: axe.gemm async
// CHECK: scf.yield

// The same with `persistent = false`: one CTA per item, no walk.
// CHECK-LABEL: func.func @one_cta_per_item
// CHECK: axe.kernel grid [256] threads [384] {
// CHECK-NOT: iter_args
// CHECK: return

// D = 256 (2 heads of 256 columns, 16 sequences of 1024): 8 x 2 x 16 = 256 items, one CTA each.
// CHECK-LABEL: func.func @head_dim_256
// CHECK: axe.kernel grid [256] threads [384] {
// CHECK-NOT: iter_args
// CHECK: return

// Causal, D = 64, 16 sequences of 512 (4 query tiles), 8 heads: pairs of tiles with the same
// K/V tiles together (3 with 0, 2 with 1), 2 x 8 x 16 = 256 pairs over 132 CTAs. The loop runs
// k = 0 .. 2 x (the CTA's pairs): member k % 2 of pair cta + (k / 2) x 132, the long tile
// (3 - x) first.
// CHECK-LABEL: func.func @causal_pairs
// CHECK: axe.kernel grid [132] threads [384] {
// CHECK: %[[PCTA:[0-9]+]] = axe.unit_id cta
// CHECK: axe.scope warp [0 : 1] {
// CHECK: arith.subi %c256{{.*}}, %[[PCTA]] : index
// CHECK: scf.for %[[K:[a-z0-9_]+]] = %c0{{.*}} to %{{.*}} step %c1{{.*}} iter_args({{.*}}) -> (i1, i1, i1, i1, i1) {
// CHECK: arith.divui %[[K]], %c2
// CHECK: %[[M:[0-9]+]] = arith.remui %[[K]], %c2
// CHECK: %[[FIRST:[0-9]+]] = arith.cmpi eq, %[[M]], %c0
// CHECK: %[[LONG:[0-9]+]] = arith.subi %c3{{.*}}, %[[X:[0-9]+]] : index
// CHECK: arith.select %[[FIRST]], %[[LONG]], %[[X]] : index

// PTX: .entry walk_kernel
// PTX: .maxntid 384, 1, 1
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
!q = !axe.tensor<8192x512xf16, global, #axe.layout<(8192, 512) : (512, 1)>>
!q3 = !axe.tensor<8192x512xf16, global, #axe.layout<(8192, 512) : (512, 1)>>
!q2 = !axe.tensor<16384x512xf16, global, #axe.layout<(16384, 512) : (512, 1)>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @walk(%q: memref<4194304xf16> {axe.align = 16 : i64}, %k: memref<4194304xf16> {axe.align = 16 : i64}, %v: memref<4194304xf16> {axe.align = 16 : i64}, %o: memref<4194304xf16> {axe.align = 16 : i64}) {
    %Q = axe.view %q : memref<4194304xf16> to !q
    %K = axe.view %k : memref<4194304xf16> to !q
    %V = axe.view %v : memref<4194304xf16> to !q
    %O = axe.view %o : memref<4194304xf16> to !q
    axe.attention %Q, %K, %V, %O {heads = 4, seq_len = 1024} : !q, !q, !q, !q
    return
  }
  func.func @one_cta_per_item(%q: memref<4194304xf16> {axe.align = 16 : i64}, %k: memref<4194304xf16> {axe.align = 16 : i64}, %v: memref<4194304xf16> {axe.align = 16 : i64}, %o: memref<4194304xf16> {axe.align = 16 : i64}) {
    %Q = axe.view %q : memref<4194304xf16> to !q
    %K = axe.view %k : memref<4194304xf16> to !q
    %V = axe.view %v : memref<4194304xf16> to !q
    %O = axe.view %o : memref<4194304xf16> to !q
    axe.attention %Q, %K, %V, %O {heads = 4, seq_len = 1024, persistent = false} : !q, !q, !q, !q
    return
  }
  func.func @head_dim_256(%q: memref<8388608xf16> {axe.align = 16 : i64}, %k: memref<8388608xf16> {axe.align = 16 : i64}, %v: memref<8388608xf16> {axe.align = 16 : i64}, %o: memref<8388608xf16> {axe.align = 16 : i64}) {
    %Q = axe.view %q : memref<8388608xf16> to !q2
    %K = axe.view %k : memref<8388608xf16> to !q2
    %V = axe.view %v : memref<8388608xf16> to !q2
    %O = axe.view %o : memref<8388608xf16> to !q2
    axe.attention %Q, %K, %V, %O {heads = 2, seq_len = 1024} : !q2, !q2, !q2, !q2
    return
  }
  func.func @causal_pairs(%q: memref<4194304xf16> {axe.align = 16 : i64}, %k: memref<4194304xf16> {axe.align = 16 : i64}, %v: memref<4194304xf16> {axe.align = 16 : i64}, %o: memref<4194304xf16> {axe.align = 16 : i64}) {
    %Q = axe.view %q : memref<4194304xf16> to !q3
    %K = axe.view %k : memref<4194304xf16> to !q3
    %V = axe.view %v : memref<4194304xf16> to !q3
    %O = axe.view %o : memref<4194304xf16> to !q3
    axe.attention %Q, %K, %V, %O {heads = 8, seq_len = 512, causal} : !q3, !q3, !q3, !q3
    return
  }
}
