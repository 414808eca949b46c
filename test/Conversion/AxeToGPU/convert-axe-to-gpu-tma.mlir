// RUN: axe-opt %s --split-input-file --convert-axe-to-gpu | FileCheck %s
// The slices' layouts are those axe-slice and axe-infer-layout give.

// TMA: a 32x256 f16 tile of a row-major 256x256 tensor into a 128B-swizzled shared tile made of
// four 64-column blocks: the tensor map (built on the host, before the launch) has 32x64
// boxes; thread 0 arms the copy's mbarrier with the tile's 16384 bytes and issues one
// cp.async.bulk.tensor per block, coordinates innermost first (column, then row). Threads only
// read the shared tile (TMA alone writes it), so the issuing thread does not fence the proxies.

// CHECK-LABEL: func.func @copy
// CHECK: %[[RC:.*]] = memref.reinterpret_cast %arg0 to offset: [0], sizes: [256, 256], strides: [256, 1]
// CHECK: %[[U:.*]] = memref.cast %[[RC]] : memref<256x256xf16, strided<[256, 1]>> to memref<*xf16>
// CHECK: %[[D:.*]] = nvgpu.tma.create.descriptor %[[U]] box[%{{.*}}, %{{.*}}] : memref<*xf16> -> <tensor = memref<32x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
// CHECK: %[[MAP:.*]] = builtin.unrealized_conversion_cast %[[D]] : {{.*}} to !llvm.ptr
// CHECK: gpu.launch
// CHECK: memref.get_global @__axe_mbarriers_0 : memref<1xi64, 3>
// CHECK: %[[STATE:.*]] = memref.alloca() : memref<2xi32>
// CHECK: scf.if
// CHECK:   nvvm.mbarrier.init %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK:   nvvm.prefetch tensormap, %[[MAP]] : !llvm.ptr
// CHECK:   nvvm.fence.mbarrier.init
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK-NOT: nvvm.fence.proxy
// CHECK:   %[[TX:.*]] = arith.constant 16384 : i32
// CHECK:   nvvm.mbarrier.arrive.expect_tx %[[BAR:.*]], %[[TX]] : !llvm.ptr<3>, i32
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAP]], %[[BAR]], box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: }
// CHECK: memref.load %[[STATE]]
// CHECK: arith.ori
// CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32, i32
// CHECK: arith.xori
// CHECK-NOT: nvvm.cp.async.wait.group
// CHECK: gpu.terminator
!tile = !axe.tensor<32x256xf16, global, #axe.layout<(32, 256) : (256, 1)>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @copy(%x: memref<65536xf16> {axe.align = 16 : i64}, %y: memref<65536xf16> {axe.align = 16 : i64}) {
    %X = axe.view %x : memref<65536xf16> to !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>>
    %Y = axe.view %y : memref<65536xf16> to !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>>
    axe.kernel grid [8] threads [128] {
      %cta = axe.unit_id cta
      %c32 = arith.constant 32 : index
      %r = arith.muli %cta, %c32 : index
      %s = axe.alloc : !axe.tensor<32x256xf16, shared, #axe.layout<(32, 4, 64) : (64, 2048, 1)>, #axe.swizzle<3, 3, 3>>
      %xt = axe.slice %X [%r : +32, 0 : 256] : !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>> to !tile
      %t = axe.copy async %xt, %s schedule tma : !tile, !axe.tensor<32x256xf16, shared, #axe.layout<(32, 4, 64) : (64, 2048, 1)>, #axe.swizzle<3, 3, 3>> -> !axe.token
      axe.wait %t
      %yt = axe.slice %Y [%r : +32, 0 : 256] : !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>> to !tile
      axe.copy %s, %yt : !axe.tensor<32x256xf16, shared, #axe.layout<(32, 4, 64) : (64, 2048, 1)>, #axe.swizzle<3, 3, 3>>, !tile
    }
    return
  }
}

// -----

// A column-major source: the tensor map's dimensions are ordered by stride (j outermost), so
// the box is 32 (j) x 64 (i) and the coordinates are (i, j): the tile origin's dimension 0
// first. One unswizzled box; a synchronous copy waits on its own barrier.

// CHECK-LABEL: func.func @colmajor
// CHECK: memref.reinterpret_cast %arg0 to offset: [0], sizes: [256, 256], strides: [256, 1]
// CHECK: nvgpu.tma.create.descriptor {{.*}} -> <tensor = memref<32x64xf32, 3>, swizzle = none,
// CHECK: gpu.launch
// CHECK: %[[OI:[^ ]+]] = arith.muli %{{.*}}, %c64
// CHECK: %[[OJ:[^ ]+]] = arith.muli %{{.*}}, %c32
// CHECK: scf.if
// CHECK: arith.constant 8192 : i32
// CHECK: %[[AI:[^ ]+]] = arith.addi %[[OI]], %{{.*}} : index
// CHECK: %[[I:[^ ]+]] = arith.index_cast %[[AI]] : index to i32
// CHECK: %[[AJ:[^ ]+]] = arith.addi %[[OJ]], %{{.*}} : index
// CHECK: %[[J:[^ ]+]] = arith.index_cast %[[AJ]] : index to i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} box[%[[I]], %[[J]]]
// CHECK: nvvm.mbarrier.try_wait.parity
!xt = !axe.tensor<64x32xf32, global, #axe.layout<(64, 32) : (1, 256)>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @colmajor(%x: memref<65536xf32> {axe.align = 16 : i64}) {
    %X = axe.view %x : memref<65536xf32> to !axe.tensor<256x256xf32, global, #axe.layout<(256, 256) : (1, 256)>>
    axe.kernel grid [32] threads [128] {
      %cta = axe.unit_id cta
      %c8 = arith.constant 8 : index
      %c64 = arith.constant 64 : index
      %c32 = arith.constant 32 : index
      %bi = arith.divui %cta, %c8 : index
      %bj = arith.remui %cta, %c8 : index
      %oi = arith.muli %bi, %c64 : index
      %oj = arith.muli %bj, %c32 : index
      %s = axe.alloc : !axe.tensor<64x32xf32, shared, #axe.layout<(64, 32) : (1, 64)>>
      %xt = axe.slice %X [%oi : +64, %oj : +32] : !axe.tensor<256x256xf32, global, #axe.layout<(256, 256) : (1, 256)>> to !xt
      axe.copy %xt, %s schedule tma : !xt, !axe.tensor<64x32xf32, shared, #axe.layout<(64, 32) : (1, 64)>>
    }
    return
  }
}

// -----

// Loop-carried tokens: the token entering the loop comes from the copy before it (barrier 0),
// the one carried around from the copy in the body (barrier 1); tokens become i32 barrier
// indices, and waiting on a run-time index is guarded by `index >= 0`. The plain wait after
// the loop waits for whatever is still pending.

// CHECK-LABEL: func.func @pipeline
// CHECK: memref.get_global @__axe_mbarriers_{{.*}} : memref<2xi64, 3>
// CHECK: %{{.*}} = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[T:[^ ]+]] = %c0_i32{{.*}}) -> (i32) {
// CHECK:   %[[GE:.*]] = arith.cmpi sge, %[[T]], %{{.*}} : i32
// CHECK:   scf.if %[[GE]] {
// CHECK:     nvvm.mbarrier.try_wait.parity
// CHECK:   %[[NEXT:.*]] = arith.constant 1 : i32
// CHECK:   scf.yield %[[NEXT]] : i32
// CHECK: arith.constant 1 : i32
// CHECK: arith.andi
// CHECK: scf.if
// CHECK:   nvvm.mbarrier.try_wait.parity
// CHECK: arith.constant 2 : i32
// CHECK: arith.andi
// CHECK: scf.if
// CHECK:   nvvm.mbarrier.try_wait.parity
!tile = !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @pipeline(%x: memref<16384xf16> {axe.align = 16 : i64}) {
    %X = axe.view %x : memref<16384xf16> to !axe.tensor<256x64xf16, global, #axe.layout<(256, 64) : (64, 1)>>
    axe.kernel grid [1] threads [128] {
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %c192 = arith.constant 192 : index
      %s = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      %x0 = axe.slice %X [%c0 : +64, 0 : 64] : !axe.tensor<256x64xf16, global, #axe.layout<(256, 64) : (64, 1)>> to !tile
      %t0 = axe.copy async %x0, %s schedule tma : !tile, !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>> -> !axe.token
      %last = scf.for %r = %c0 to %c192 step %c64 iter_args(%t = %t0) -> (!axe.token) {
        axe.wait %t
        axe.barrier cta
        %r1 = arith.addi %r, %c64 : index
        %xn = axe.slice %X [%r1 : +64, 0 : 64] : !axe.tensor<256x64xf16, global, #axe.layout<(256, 64) : (64, 1)>> to !tile
        %tn = axe.copy async %xn, %s schedule tma : !tile, !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>> -> !axe.token
        scf.yield %tn : !axe.token
      }
      axe.wait
    }
    return
  }
}

// -----

// A refill ordered after `axe.arrive` instead of a CTA barrier: the arrive's mbarrier expects
// one arrival per thread (128); every thread arrives without waiting; thread 0 waits for the
// phase before its first TMA copy after the token, and not again for the second. The threads'
// reads of %s before the refill are ordered by that wait (no proxy fence: only TMA writes %s).

// CHECK-LABEL: func.func @release
// CHECK: scf.if
// CHECK:   nvvm.mbarrier.init %{{.*}}, %c1_i32{{.*}} : !llvm.ptr<3>, i32
// CHECK:   nvvm.mbarrier.init %{{.*}}, %c128_i32 : !llvm.ptr<3>, i32
// CHECK:   nvvm.mbarrier.init %{{.*}}, %c1_i32{{.*}} : !llvm.ptr<3>, i32
// CHECK:   nvvm.mbarrier.init %{{.*}}, %c1_i32{{.*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK: scf.if
// CHECK:   nvvm.mbarrier.try_wait.parity
// CHECK-NOT: nvvm.fence.proxy
// CHECK:   nvvm.mbarrier.arrive.expect_tx
// CHECK:   nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: scf.if
// CHECK-NOT: nvvm.mbarrier.try_wait.parity
// CHECK:   nvvm.mbarrier.arrive.expect_tx
!x0 = !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
!x1 = !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1) + 4096>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @release(%x: memref<16384xf16> {axe.align = 16 : i64}) {
    %X = axe.view %x : memref<16384xf16> to !axe.tensor<256x64xf16, global, #axe.layout<(256, 64) : (64, 1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      %s2 = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      %x0 = axe.slice %X [0 : 64, 0 : 64] : !axe.tensor<256x64xf16, global, #axe.layout<(256, 64) : (64, 1)>> to !x0
      %x1 = axe.slice %X [64 : 128, 0 : 64] : !axe.tensor<256x64xf16, global, #axe.layout<(256, 64) : (64, 1)>> to !x1
      %t0 = axe.copy async %x0, %s schedule tma : !x0, !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>> -> !axe.token
      axe.wait %t0
      %r = axe.arrive
      %t1 = axe.copy async %x1, %s schedule tma after %r : !x1, !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>> -> !axe.token
      %t2 = axe.copy async %x0, %s2 schedule tma after %r : !x0, !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>> -> !axe.token
      axe.wait %t1, %t2
    }
    return
  }
}

// -----

// Shared tiles that threads also write, then a CTA barrier: a TMA load into such a tile is
// ordered behind those generic-proxy writes with `fence.proxy.async.shared::cta`, before its
// barrier is armed. %s is written by a copy, %u through a slice of it, %v by axe.fill (an op
// the analysis does not know as a read counts as a write); %t only by TMA: no fence there.

// CHECK-LABEL: func.func @generic_then_tma
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK:   nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: arith.constant 8192 : i32
// CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx
// CHECK: scf.if
// CHECK-NOT: nvvm.fence.proxy
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: scf.if
// CHECK:   nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: arith.constant 8192 : i32
// CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx
// CHECK: scf.if
// CHECK:   nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: arith.constant 8192 : i32
// CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx
!x0 = !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
!x1 = !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1) + 4096>>
!xh = !axe.tensor<32x64xf16, global, #axe.layout<(32, 64) : (64, 1)>>
!st = !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
!sh = !axe.tensor<32x64xf16, shared, #axe.layout<(32, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @generic_then_tma(%x: memref<16384xf16> {axe.align = 16 : i64}) {
    %X = axe.view %x : memref<16384xf16> to !axe.tensor<256x64xf16, global, #axe.layout<(256, 64) : (64, 1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !st
      %t = axe.alloc : !st
      %u = axe.alloc : !st
      %v = axe.alloc : !st
      %x0 = axe.slice %X [0 : 64, 0 : 64] : !axe.tensor<256x64xf16, global, #axe.layout<(256, 64) : (64, 1)>> to !x0
      %x1 = axe.slice %X [64 : 128, 0 : 64] : !axe.tensor<256x64xf16, global, #axe.layout<(256, 64) : (64, 1)>> to !x1
      %xh = axe.slice %X [0 : 32, 0 : 64] : !axe.tensor<256x64xf16, global, #axe.layout<(256, 64) : (64, 1)>> to !xh
      %uh = axe.slice %u [0 : 32, 0 : 64] : !st to !sh
      %z = arith.constant 0.0 : f16
      axe.copy %x0, %s : !x0, !st
      axe.copy %xh, %uh : !xh, !sh
      axe.fill %v, %z : !st, f16
      axe.barrier cta
      axe.copy %x1, %s schedule tma : !x1, !st
      axe.copy %x1, %t schedule tma : !x1, !st
      axe.copy %x1, %u schedule tma : !x1, !st
      axe.copy %x1, %v schedule tma : !x1, !st
    }
    return
  }
}

// -----

// A TMA store: the shared tile is made visible to the async proxy, the CTA synchronizes, thread 0
// stores the tile through the tensor map of the global destination, commits the bulk group and
// waits for it, and the CTA synchronizes again.
// CHECK-LABEL: func.func @tma_store
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%{{.*}}]
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0
// CHECK: gpu.barrier
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_store(%buf: memref<256xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<256xf16> to !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
      %z = arith.constant 1.0 : f16
      axe.fill %s, %z : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>, f16
      axe.copy %s, %G schedule tma : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>, !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>
    }
    return
  }
}

// -----

// An async TMA store: the same issue, but thread 0 only commits the bulk group and the CTA
// does not synchronize again; the token's wait is thread 0's `cp.async.bulk.wait_group.read 0`
// (the TMA unit has read the shared tile, which may then be written again) and a CTA barrier.
// The store's writes are complete at the kernel's end, where every thread waits for its bulk
// groups.
// CHECK-LABEL: func.func @tma_store_async
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%{{.*}}]
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: }
// CHECK-NOT: gpu.barrier
// CHECK: arith.cmpi eq
// CHECK-NEXT: scf.if
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0
// CHECK-NEXT: gpu.terminator
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_store_async(%buf: memref<256xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<256xf16> to !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
      %z = arith.constant 1.0 : f16
      axe.fill %s, %z : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>, f16
      %t = axe.copy async %s, %G schedule tma : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>, !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>> -> !axe.token
      axe.wait %t
    }
    return
  }
}
