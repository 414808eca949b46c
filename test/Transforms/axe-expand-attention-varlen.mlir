// axe-expand-attention on a packed batch of sequences of different lengths (`cu_seqlens`, the
// longest 300 tokens: not a multiple of the 128-row query tile), causal, grouped-query, with
// the log-sum-exp; and its lowering through the whole pipeline (TMA copies windows at any row
// that end at the tensor's end).
// RUN: axe-opt %s --axe-expand-attention | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm-pipeline='chip=sm_90a features=+ptx80' | FileCheck %s --check-prefix=PTX

// 3 sequences x 4 heads x ceil(300 / 128) = 3 query tiles: 36 work items, one CTA each
// (lengths vary: the hardware's dispatch balances uneven items). Each role reads its item's
// sequence bounds from the offsets; a tile that starts past its sequence's end does nothing
// (every role's work is under that condition).
// CHECK-LABEL: func.func @attn
// CHECK: axe.kernel grid [36] threads [384] {
// The producer: K and V (and Q after the first K) as windows at any row ending at the
// tensor's 600 rows.
// CHECK: axe.scope warp [0 : 1] {
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<4xi32>
// CHECK: %[[B1:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<4xi32>
// CHECK: %[[END:.*]] = arith.index_cast %[[B1]] : i32 to index
// CHECK: %[[LEN:.*]] = arith.subi %[[END]], %{{.*}} : index
// Causal: keys up to the tile's last query row or the sequence's end.
// CHECK: arith.minui %{{.*}}, %[[LEN]] : index
// CHECK: %[[LIVE:.*]] = arith.cmpi ult, %{{.*}}, %[[LEN]] : index
// CHECK-NEXT: scf.if %[[LIVE]] {
// CHECK: axe.slice %{{.*}} [%{{.*}} : +128 until %{{.*}}, %{{.*}} : +64] : !axe.tensor<600x128xf16
// CHECK-NEXT: axe.copy async {{.*}} schedule tma barrier
// CHECK: axe.slice %{{.*}} [%{{.*}} : +128 until %{{.*}}, %{{.*}} : +64] : !axe.tensor<600x256xf16
// CHECK-NEXT: axe.copy async {{.*}} schedule tma barrier
// A consumer: tiles that cross the diagonal or hold keys past the sequence's end are masked,
// the query position capped at the sequence's last.
// CHECK: axe.scope warpgroup [1 : 2] {
// CHECK-NEXT: axe.set_max_registers 240
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<4xi32>
// CHECK: %[[CB1:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<4xi32>
// CHECK: %[[END:.*]] = arith.index_cast %[[CB1]] : i32 to index
// CHECK: %[[LEN:.*]] = arith.subi %[[END]], %{{.*}} : index
// CHECK: %[[CLIVE:.*]] = arith.cmpi ult, %{{.*}}, %[[LEN]] : index
// CHECK-NEXT: scf.if %[[CLIVE]] {
// CHECK: %[[CROSS:.*]] = arith.cmpi ugt
// CHECK-NEXT: %[[PAST:.*]] = arith.cmpi uge, %{{.*}}, %[[LEN]] : index
// CHECK-NEXT: %[[M:.*]] = arith.ori %[[CROSS]], %[[PAST]] : i1
// CHECK-NEXT: scf.if %[[M]] {
// CHECK: axe.binary min
// CHECK: axe.binary sub
// CHECK: axe.binary min
// CHECK: axe.binary mul
// CHECK: axe.binary add
// The epilogue: 64 whole rows by TMA (a window ending at the tensor's end), else predicated
// stores from registers (a window ending at the sequence's end); the log-sum-exp likewise.
// CHECK: %[[WHOLE:.*]] = arith.cmpi ule, %{{.*}}, %[[END]] : index
// CHECK-NEXT: %[[PART:.*]] = arith.cmpi ugt, %{{.*}}, %[[END]] : index
// CHECK-NEXT: scf.if %[[WHOLE]] {
// CHECK: axe.copy %{{.*}} schedule tma : !axe.tensor<64x64xf16, shared
// CHECK: scf.if %[[PART]] {
// CHECK-NEXT: axe.slice %{{.*}} [%{{.*}} : +64 until %[[END]], %{{.*}} : +64]
// CHECK-NEXT: axe.copy %{{.*}}, %{{.*}} : !axe.tensor<64x64xf16, register, ?>, !axe.tensor<64x64xf16, global, ?>
// CHECK: axe.slice %{{.*}} [%{{.*}} : +64 until %[[END]], %{{.*}} : +1] : !axe.tensor<600x4xf32
// CHECK-NOT: axe.attention

// PTX: .target sm_90a
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global{{.*}}mbarrier::complete_tx::bytes
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX: cp.async.bulk.tensor.2d.global.shared::cta
!q = !axe.tensor<600x256xf16, global, #axe.layout<(600, 256) : (256, 1)>>
!kv = !axe.tensor<600x128xf16, global, #axe.layout<(600, 128) : (128, 1)>>
!l = !axe.tensor<600x4xf32, global, #axe.layout<(600, 4) : (1, 600)>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @attn(%q: memref<153600xf16> {axe.align = 16 : i64}, %k: memref<76800xf16> {axe.align = 16 : i64}, %v: memref<76800xf16> {axe.align = 16 : i64}, %o: memref<153600xf16> {axe.align = 16 : i64}, %l: memref<2400xf32> {axe.align = 16 : i64}, %cu: memref<4xi32>) {
    %Q = axe.view %q : memref<153600xf16> to !q
    %K = axe.view %k : memref<76800xf16> to !kv
    %V = axe.view %v : memref<76800xf16> to !kv
    %O = axe.view %o : memref<153600xf16> to !q
    %L = axe.view %l : memref<2400xf32> to !l
    axe.attention %Q, %K, %V, %O lse(%L : !l) cu_seqlens(%cu : memref<4xi32>) {heads = 4, kv_heads = 2, seq_len = 300, causal} : !q, !kv, !kv, !q
    return
  }
}
