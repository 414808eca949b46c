// axe-expand-attention: the FlashAttention-style kernel of one axe.attention (causal,
// grouped-query, head dim 64, with the log-sum-exp), and its lowering through the whole
// pipeline: P, the 16-bit copy of the Q Kᵀ accumulator, gets that accumulator's layout, which
// is the wgmma A fragment, so the P V gemm reads A from registers with no conversion.
// RUN: axe-opt %s --axe-expand-attention | FileCheck %s
// RUN: axe-opt %s --axe-expand-attention --axe-slice --axe-infer-layout | FileCheck %s --check-prefix=INFER
// RUN: axe-opt %s --axe-to-nvvm-pipeline='chip=sm_90a features=+ptx80' | FileCheck %s --check-prefix=PTX

// 2 sequences of 256 tokens, 4 query heads over 2 key/value heads, D = 64: 2 x 4 x 2 = 16
// work items (query tiles); causal with short sequences at D = 64, so a persistent grid of
// 384-thread CTAs walking pairs of tiles of equal work (here each CTA one pair: 8 CTAs). Shared memory: the Q tile, a tile O is staged in for its TMA store,
// Q's full and empty barriers, then the compiler's schedule at D = 64, 3 stages of 128 keys:
// per stage a full barrier for K and one for V (one TMA copy each) and an empty barrier for
// each (the 256 consumer threads); then the two consumer warpgroups' turns (ping-pong).
// CHECK-LABEL: func.func @attn
// CHECK: axe.kernel grid [8] threads [384] {
// CHECK: axe.alloc : !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
// CHECK-NEXT: axe.unit_id cta
// CHECK-NEXT: axe.alloc : !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
// CHECK-NEXT: axe.mbarrier arrivals 1
// CHECK-NEXT: axe.mbarrier arrivals 256
// CHECK-COUNT-3: axe.alloc : !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
// CHECK-NEXT: axe.alloc : !axe.tensor<128x64xf16, shared
// CHECK-NEXT: axe.mbarrier arrivals 1
// CHECK-NEXT: axe.mbarrier arrivals 1
// CHECK-NEXT: axe.mbarrier arrivals 256
// CHECK-NEXT: axe.mbarrier arrivals 256
// CHECK: axe.mbarrier arrivals 128
// CHECK-NEXT: axe.mbarrier arrivals 128
// CHECK: axe.scope warpgroup [0 : 1] {
// CHECK-NEXT: axe.set_max_registers 24
// CHECK-NEXT: axe.scope warp [0 : 1] {
// K and V of a tile, each after its own empty barrier; in stage 0, the first K is followed
// by the Q tile, once Q's empty barrier passes (the consumers are done with the previous
// item's).
// CHECK: scf.for
// CHECK: axe.mbarrier_wait
// CHECK-NEXT: axe.slice
// CHECK-NEXT: axe.copy async {{.*}} schedule tma barrier
// CHECK: scf.if
// CHECK: axe.mbarrier_wait %[[QEMPTY:[0-9]+]],
// CHECK: axe.copy async %{{.*}}, %{{.*}} schedule tma barrier %{{.*}} : !axe.tensor<128x64xf16, global, ?>
// CHECK: axe.mbarrier_wait
// CHECK-NEXT: axe.slice
// CHECK-NEXT: axe.copy async {{.*}} schedule tma barrier
// CHECK: axe.scope warpgroup [1 : 2] {
// CHECK-NEXT: axe.set_max_registers 240
// CHECK: %[[S:.*]] = axe.alloc : !axe.tensor<64x128xf32, register, ?>
// CHECK-NEXT: %[[P:.*]] = axe.alloc : !axe.tensor<64x128xf16, register, ?>
// CHECK-NEXT: %[[O:.*]] = axe.alloc : !axe.tensor<64x64xf32, register, ?>
// Tile 0: Q K₀ᵀ in this warpgroup's turn, its K released once it is done; S = Q Kᵀ
// overwrites S (no zero fill).
// CHECK: axe.mbarrier_wait
// CHECK-NOT: axe.fill %[[S]]
// CHECK: %[[G:.*]] = axe.gemm async %{{.*}}, %{{.*}}, %[[S]] {overwrite, transpose_b}
// CHECK-NEXT: axe.mbarrier_arrive
// CHECK-NEXT: axe.wait %[[G]]{{ *$}}
// CHECK-NEXT: axe.mbarrier_arrive
// Only tiles that cross the diagonal are masked, 32 columns at a time (register slices of S).
// CHECK: scf.if
// CHECK-COUNT-4: axe.slice %[[S]] [0 : 64, {{[0-9]+}} : {{[0-9]+}}] : !axe.tensor<64x128xf32, register, ?> to !axe.tensor<64x32xf32, register, ?>
// CHECK: axe.binary min
// CHECK: axe.reduce max %[[S]]
// CHECK: axe.unary exp2 %[[S]], %[[S]]
// CHECK-NEXT: axe.reduce sum %[[S]]
// Tile j > 0: P cast right before the burst Q Kⱼᵀ, Pⱼ₋₁ Vⱼ₋₁ (A from registers); the wait for
// the first lets the softmax overlap the second.
// CHECK: scf.for
// CHECK: axe.cast %[[S]], %[[P]]
// CHECK-NOT: axe.fill %[[S]]
// CHECK: axe.mbarrier_wait
// CHECK: %[[G1:.*]] = axe.gemm async %{{.*}}, %{{.*}}, %[[S]] {overwrite, transpose_b}
// CHECK-NEXT: axe.gemm async %[[P]], %{{.*}}, %[[O]] : !axe.tensor<64x128xf16, register, ?>
// CHECK-NEXT: axe.mbarrier_arrive
// CHECK-NEXT: axe.wait %[[G1]] outstanding 1
// CHECK: axe.reduce max %[[S]]
// CHECK: axe.wait{{ *$}}
// CHECK-NEXT: axe.mbarrier_arrive
// CHECK-NEXT: axe.binary mul %[[O]]
// The last tile's P V (its V released), Q released for the next item's load (O is staged in
// a tile of its own), then O times 1 / sum stored by TMA, and the log-sum-exp.
// CHECK: axe.gemm async %[[P]], %{{.*}}, %[[O]]
// CHECK: axe.wait{{ *$}}
// CHECK-NEXT: axe.mbarrier_arrive
// CHECK: axe.mbarrier_arrive %[[QEMPTY]]{{ *$}}
// CHECK: axe.binary div %{{[0-9]+}}, %{{[0-9]+}}, %[[INV:[0-9]+]] {{.*}} : !axe.tensor<1x1xf32, register, ?>, !axe.tensor<64x1xf32, register, ?>
// CHECK-NEXT: axe.binary mul %[[O]], %[[INV]], %[[O]]
// CHECK: axe.copy %{{.*}} schedule tma : !axe.tensor<64x64xf16, shared
// CHECK: axe.unary log
// CHECK: axe.copy %{{.*}}, %{{.*}} : !axe.tensor<64x1xf32, register, ?>, !axe.tensor<64x1xf32, global, ?>
// CHECK: axe.scope warpgroup [2 : 3] {
// CHECK-NOT: axe.attention

// S, P and O: the wgmma m64n128 D fragment (P as 16 bits); no axe.convert_layout anywhere.
// INFER-LABEL: func.func @attn
// INFER: axe.alloc : !axe.tensor<64x128xf32, register, #axe.layout<(4, 2, 8, 16, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
// INFER-NEXT: axe.alloc : !axe.tensor<64x128xf16, register, #axe.layout<(4, 2, 8, 16, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
// INFER-NOT: axe.convert_layout

// PTX: .target sm_90a
// PTX: .maxntid 384, 1, 1
// PTX: setmaxnreg.dec.sync.aligned.u32 \0924;
// PTX: setmaxnreg.inc.sync.aligned.u32 \09240;
// S = Q Kᵀ: its first instruction with scale-d 0 (D = A B, `overwrite`), the next ones
// accumulating.
// PTX-SAME: setp.ne.b32 p, 0, 0;\0Awgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX-SAME: setp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// P V: A from registers ({four .b32}), B's descriptor, scale-d 1, B transposed (V is MN-major).
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
!q = !axe.tensor<512x256xf16, global, #axe.layout<(512, 256) : (256, 1)>>
!kv = !axe.tensor<512x128xf16, global, #axe.layout<(512, 128) : (128, 1)>>
!l = !axe.tensor<512x4xf32, global, #axe.layout<(512, 4) : (1, 512)>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @attn(%q: memref<131072xf16> {axe.align = 16 : i64}, %k: memref<65536xf16> {axe.align = 16 : i64}, %v: memref<65536xf16> {axe.align = 16 : i64}, %o: memref<131072xf16> {axe.align = 16 : i64}, %l: memref<2048xf32> {axe.align = 16 : i64}) {
    %Q = axe.view %q : memref<131072xf16> to !q
    %K = axe.view %k : memref<65536xf16> to !kv
    %V = axe.view %v : memref<65536xf16> to !kv
    %O = axe.view %o : memref<131072xf16> to !q
    %L = axe.view %l : memref<2048xf32> to !l
    axe.attention %Q, %K, %V, %O lse(%L : !l) {heads = 4, kv_heads = 2, seq_len = 256, causal} : !q, !kv, !kv, !q
    return
  }
}
