// RUN: axe-opt --axe-slice --convert-axe-to-gpu --split-input-file --verify-diagnostics %s | FileCheck %s

// A TMA store into a peer's memory (the destination: a distributed tensor sliced to one
// device): one-dimensional bulk copies from the tile's runs, placed by the two layouts. Here
// the shared tile (two 16x64 f16 halves, unswizzled) and the peer's 16x128 block of P (the
// same order, contiguous) are one 4096-byte run. The warpgroup fences its writes to the async
// proxy and synchronizes; its first thread issues the copy into peers[next] + the tile's
// offset (the run-time row tile moves it by 2048 elements), commits it and waits only until
// the copy has read the shared tile; the warpgroup synchronizes again. The writes complete
// behind what follows: at an axe.signal every thread of the unit waits for its own bulk
// groups before the unit's barrier and the first thread's release fence, and every thread
// waits for its bulk groups at the kernel's end.
// CHECK-LABEL: func.func @push_block
// CHECK: gpu.launch
// CHECK: %[[TILE:.*]] = arith.muli %{{.*}}, %c2048 : index
// CHECK: %[[PEER:.*]] = memref.load %{{.*}} : memref<2xi64>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK: %[[IN_WG:.*]] = arith.remui %{{.*}}, %c128
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[IN_WG]], %{{.*}}
// CHECK: scf.if %[[FIRST]] {
// CHECK: %[[BYTES:.*]] = arith.muli %[[TILE]], %{{.*}} : index
// CHECK: %[[GA:.*]] = arith.addi %{{.*}}, %[[BYTES]] : index
// CHECK: %[[GA64:.*]] = arith.index_cast %[[GA]] : index to i64
// CHECK: %[[G:.*]] = llvm.inttoptr %[[GA64]] : i64 to !llvm.ptr<1>
// CHECK: %[[S:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK: nvvm.cp.async.bulk.global.shared.cta %[[G]], %[[S]], %c4096_i32 : <1>, <3>
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK: nvvm.cp.async.bulk.wait_group 0
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK: scf.if
// CHECK-NEXT: llvm.fence acq_rel
// CHECK-NEXT: llvm.store %{{.*}} atomic release
// CHECK: nvvm.cp.async.bulk.wait_group 0
// CHECK-NEXT: gpu.terminator
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @push_block(%p: memref<4096xf16> {axe.align = 16 : i64}, %flags: memref<4xi32>, %epoch: i32) {
    axe.mesh [2] {
      // P: 2 devices x 32 rows x 128 columns; a device's 16x128 blocks are contiguous, each
      // as two 16x64 row-major halves.
      %P = axe.view %p : memref<4096xf16> to !axe.tensor<64x128xf16, global, #axe.layout<(2, 2, 16, 2, 64) : (1@gpuid, 2048, 64, 1024, 1)>>
      %F = axe.view %flags : memref<4xi32> to !axe.tensor<2x4xi32, global, #axe.layout<(2, 4) : (1@gpuid, 1)>>
      axe.kernel grid [1] threads [256] {
        %rank = axe.device_id
        %c1 = arith.constant 1 : index
        %c2 = arith.constant 2 : index
        %c16 = arith.constant 16 : index
        %c32 = arith.constant 32 : index
        %r1 = arith.addi %rank, %c1 : index
        %next = arith.remui %r1, %c2 : index
        %base = arith.muli %next, %c32 : index
        %row = arith.addi %base, %c16 : index
        axe.scope warpgroup [1 : 2] {
          %st = axe.alloc : !axe.tensor<16x128xf16, shared, #axe.layout<(16, 2, 64) : (64, 1024, 1)>>
          %z = arith.constant 1.0 : f16
          axe.fill %st, %z : !axe.tensor<16x128xf16, shared, #axe.layout<(16, 2, 64) : (64, 1024, 1)>>, f16
          %there = axe.slice %P [%row : +16, 0 : 128] : !axe.tensor<64x128xf16, global, #axe.layout<(2, 2, 16, 2, 64) : (1@gpuid, 2048, 64, 1024, 1)>> to !axe.tensor<16x128xf16, global, ?>
          axe.copy %st, %there schedule tma : !axe.tensor<16x128xf16, shared, #axe.layout<(16, 2, 64) : (64, 1024, 1)>>, !axe.tensor<16x128xf16, global, ?>
          %c0 = arith.constant 0 : index
          %f = axe.slice %F [%next : +1, %c0 : +1] : !axe.tensor<2x4xi32, global, #axe.layout<(2, 4) : (1@gpuid, 1)>> to !axe.tensor<1x1xi32, global, ?>
          axe.signal %f, %epoch : !axe.tensor<1x1xi32, global, ?>, i32
        }
      }
    }
    return
  }
}

// -----

// The same block into a row-major P (rows of 128 elements): the two halves of each shared row
// are 1024 elements apart, so the runs are the 64-element half rows (128 bytes, aligned):
// 32 bulk copies.
// CHECK-LABEL: func.func @push_rows
// CHECK-COUNT-32: nvvm.cp.async.bulk.global.shared.cta %{{.*}}, %{{.*}}, %c128_i32
// CHECK-NOT: nvvm.cp.async.bulk.global.shared.cta
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @push_rows(%p: memref<4096xf16> {axe.align = 16 : i64}) {
    axe.mesh [2] {
      %P = axe.view %p : memref<4096xf16> to !axe.tensor<64x128xf16, global, #axe.layout<(2, 32, 128) : (1@gpuid, 128, 1)>>
      axe.kernel grid [1] threads [128] {
        %rank = axe.device_id
        %c1 = arith.constant 1 : index
        %c2 = arith.constant 2 : index
        %c32 = arith.constant 32 : index
        %r1 = arith.addi %rank, %c1 : index
        %next = arith.remui %r1, %c2 : index
        %row = arith.muli %next, %c32 : index
        %st = axe.alloc : !axe.tensor<16x128xf16, shared, #axe.layout<(16, 2, 64) : (64, 1024, 1)>>
        %there = axe.slice %P [%row : +16, 0 : 128] : !axe.tensor<64x128xf16, global, #axe.layout<(2, 32, 128) : (1@gpuid, 128, 1)>> to !axe.tensor<16x128xf16, global, ?>
        axe.copy %st, %there schedule tma : !axe.tensor<16x128xf16, shared, #axe.layout<(16, 2, 64) : (64, 1024, 1)>>, !axe.tensor<16x128xf16, global, ?>
      }
    }
    return
  }
}

// -----

// A destination whose runs are single elements (a transposed block) cannot be moved by bulk
// copies: a located error that names the first run.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @push_transposed(%p: memref<4096xf16> {axe.align = 16 : i64}) {
    axe.mesh [2] {
      %P = axe.view %p : memref<4096xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(2, 32, 64) : (1@gpuid, 1, 32)>>
      axe.kernel grid [1] threads [128] {
        %rank = axe.device_id
        %st = axe.alloc : !axe.tensor<32x64xf16, shared, #axe.layout<(32, 64) : (64, 1)>>
        %c32 = arith.constant 32 : index
        %row = arith.muli %rank, %c32 : index
        %there = axe.slice %P [%row : +32, 0 : 64] : !axe.tensor<64x64xf16, global, #axe.layout<(2, 32, 64) : (1@gpuid, 1, 32)>> to !axe.tensor<32x64xf16, global, ?>
        // expected-error @+1 {{shared layout (32, 64) : (64, 1) into (32, 64) : (1, 32): a run of 1 elements consecutive on both sides (2 bytes at shared byte 0, global byte 0) is not a whole number of 16-byte units at 16-byte aligned offsets, which the bulk copy needs}}
        axe.copy %st, %there schedule tma : !axe.tensor<32x64xf16, shared, #axe.layout<(32, 64) : (64, 1)>>, !axe.tensor<32x64xf16, global, ?>
      }
    }
    return
  }
}

// -----

// A run-time tile origin that moves the destination by 8 bytes (row tiles of one row of four
// f16) would leave the copies unaligned: refused.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @push_misaligned_origin(%p: memref<256xf16> {axe.align = 16 : i64}) {
    axe.mesh [2] {
      %P = axe.view %p : memref<256xf16> to !axe.tensor<64x4xf16, global, #axe.layout<(2, 32, 4) : (1@gpuid, 4, 1)>>
      axe.kernel grid [1] threads [128] {
        %rank = axe.device_id
        %st = axe.alloc : !axe.tensor<1x4xf16, shared, #axe.layout<(1, 4) : (4, 1)>>
        %c32 = arith.constant 32 : index
        %row = arith.muli %rank, %c32 : index
        %there = axe.slice %P [%row : +1, 0 : 4] : !axe.tensor<64x4xf16, global, #axe.layout<(2, 32, 4) : (1@gpuid, 4, 1)>> to !axe.tensor<1x4xf16, global, ?>
        // expected-error @+1 {{the destination tile's run-time origin moves it by multiples of 8 bytes}}
        axe.copy %st, %there schedule tma : !axe.tensor<1x4xf16, shared, #axe.layout<(1, 4) : (4, 1)>>, !axe.tensor<1x4xf16, global, ?>
      }
    }
    return
  }
}

// -----

// The peer's buffer must be declared 16-byte aligned (every rank's symmetric buffer is
// allocated alike): without the declaration, refused.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @push_undeclared_alignment(%p: memref<4096xf16>) {
    axe.mesh [2] {
      %P = axe.view %p : memref<4096xf16> to !axe.tensor<64x128xf16, global, #axe.layout<(2, 2, 16, 2, 64) : (1@gpuid, 2048, 64, 1024, 1)>>
      axe.kernel grid [1] threads [128] {
        %rank = axe.device_id
        %c32 = arith.constant 32 : index
        %row = arith.muli %rank, %c32 : index
        %st = axe.alloc : !axe.tensor<16x128xf16, shared, #axe.layout<(16, 2, 64) : (64, 1024, 1)>>
        %there = axe.slice %P [%row : +16, 0 : 128] : !axe.tensor<64x128xf16, global, #axe.layout<(2, 2, 16, 2, 64) : (1@gpuid, 2048, 64, 1024, 1)>> to !axe.tensor<16x128xf16, global, ?>
        // expected-error @+1 {{a TMA store into a peer's memory needs a 16-byte aligned buffer: declare it on the function argument ({axe.align = 16 : i64})}}
        axe.copy %st, %there schedule tma : !axe.tensor<16x128xf16, shared, #axe.layout<(16, 2, 64) : (64, 1024, 1)>>, !axe.tensor<16x128xf16, global, ?>
      }
    }
    return
  }
}

// -----

// A warp does not issue TMA stores (the CTA or a warpgroup does): refused.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @push_from_a_warp(%p: memref<4096xf16> {axe.align = 16 : i64}) {
    axe.mesh [2] {
      %P = axe.view %p : memref<4096xf16> to !axe.tensor<64x128xf16, global, #axe.layout<(2, 2, 16, 2, 64) : (1@gpuid, 2048, 64, 1024, 1)>>
      axe.kernel grid [1] threads [128] {
        %rank = axe.device_id
        %c32 = arith.constant 32 : index
        %row = arith.muli %rank, %c32 : index
        %st = axe.alloc : !axe.tensor<16x128xf16, shared, #axe.layout<(16, 2, 64) : (64, 1024, 1)>>
        axe.scope warp [0 : 1] {
          %there = axe.slice %P [%row : +16, 0 : 128] : !axe.tensor<64x128xf16, global, #axe.layout<(2, 2, 16, 2, 64) : (1@gpuid, 2048, 64, 1024, 1)>> to !axe.tensor<16x128xf16, global, ?>
          // expected-error @+1 {{a TMA store is issued by a CTA or a warpgroup; this one executes at warp scope}}
          axe.copy %st, %there schedule tma : !axe.tensor<16x128xf16, shared, #axe.layout<(16, 2, 64) : (64, 1024, 1)>>, !axe.tensor<16x128xf16, global, ?>
        }
      }
    }
    return
  }
}

// -----

// A swizzled shared tile shares short runs with an unswizzled block (the swizzle permutes the
// 16-byte chunks of each 128-byte row, leaving every eighth row in place): this 32x128 f16 tile
// would take 344 bulk copies (counted by enumerating both layouts); past 256 the store is
// refused, naming the runs.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @push_swizzled(%p: memref<4096xf16> {axe.align = 16 : i64}) {
    axe.mesh [2] {
      %P = axe.view %p : memref<4096xf16> to !axe.tensor<64x128xf16, global, #axe.layout<(2, 32, 2, 64) : (1@gpuid, 64, 2048, 1)>>
      axe.kernel grid [1] threads [128] {
        %rank = axe.device_id
        %c32 = arith.constant 32 : index
        %row = arith.muli %rank, %c32 : index
        %st = axe.alloc : !axe.tensor<32x128xf16, shared, #axe.layout<(32, 2, 64) : (64, 2048, 1)>, #axe.swizzle<3, 3, 3>>
        %there = axe.slice %P [%row : +32, 0 : 128] : !axe.tensor<64x128xf16, global, #axe.layout<(2, 32, 2, 64) : (1@gpuid, 64, 2048, 1)>> to !axe.tensor<32x128xf16, global, ?>
        // expected-error @+1 {{shares runs of 128 bytes at most: 344 bulk operations (more than 256); lay one of the two out in the other's order, or copy it without `schedule tma`}}
        axe.copy %st, %there schedule tma : !axe.tensor<32x128xf16, shared, #axe.layout<(32, 2, 64) : (64, 2048, 1)>, #axe.swizzle<3, 3, 3>>, !axe.tensor<32x128xf16, global, ?>
      }
    }
    return
  }
}

// -----

// A destination replicated over the devices is each device's own copy, not a peer's (here the
// same buffer is also pushed to a peer, so it has a peer table): a TMA store into it is
// refused, naming its layout.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @push_replicated(%p: memref<2048xf16> {axe.align = 16 : i64}) {
    axe.mesh [2] {
      %P = axe.view %p : memref<2048xf16> to !axe.tensor<32x128xf16, global, #axe.layout<(2, 16, 128) : (1@gpuid, 128, 1)>>
      %Y = axe.view %p : memref<2048xf16> to !axe.tensor<16x128xf16, global, #axe.layout<(16, 128) : (128, 1) + [(2) : (1@gpuid)]>>
      axe.kernel grid [1] threads [128] {
        %rank = axe.device_id
        %c16 = arith.constant 16 : index
        %row = arith.muli %rank, %c16 : index
        %st = axe.alloc : !axe.tensor<16x128xf16, shared, #axe.layout<(16, 128) : (128, 1)>>
        %there = axe.slice %P [%row : +16, 0 : 128] : !axe.tensor<32x128xf16, global, #axe.layout<(2, 16, 128) : (1@gpuid, 128, 1)>> to !axe.tensor<16x128xf16, global, ?>
        axe.copy %st, %there schedule tma : !axe.tensor<16x128xf16, shared, #axe.layout<(16, 128) : (128, 1)>>, !axe.tensor<16x128xf16, global, ?>
        // expected-error @+1 {{a TMA store into a distributed tensor replicated over the devices (layout (16, 128) : (128, 1) + [(2) : (1@gpuid)]) is not lowered}}
        axe.copy %st, %Y schedule tma : !axe.tensor<16x128xf16, shared, #axe.layout<(16, 128) : (128, 1)>>, !axe.tensor<16x128xf16, global, #axe.layout<(16, 128) : (128, 1) + [(2) : (1@gpuid)]>>
      }
    }
    return
  }
}

// -----

// An async TMA store into a peer's memory: the warpgroup fences and synchronizes, its first
// thread issues and commits the group and nothing waits; the unit goes on (a second tile can
// be filled while the first travels). `axe.wait %t0 outstanding 1` is the first thread's
// `cp.async.bulk.wait_group.read 1` (at most the newest group still reading its source) and
// the warpgroup's barrier; the plain `axe.wait` in the warpgroup waits for every group to be
// read. The writes complete at the kernel's end (every thread waits for its groups).
// CHECK-LABEL: func.func @push_async
// CHECK: nvvm.cp.async.bulk.global.shared.cta
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: }
// CHECK-NOT: nvvm.cp.async.bulk.wait_group
// CHECK: nvvm.cp.async.bulk.global.shared.cta
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: }
// CHECK: scf.if
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK-NEXT: }
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK: scf.if
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT: }
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK: nvvm.cp.async.bulk.wait_group 0
// CHECK-NEXT: gpu.terminator
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @push_async(%p: memref<4096xf16> {axe.align = 16 : i64}) {
    axe.mesh [2] {
      %P = axe.view %p : memref<4096xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(2, 32, 64) : (1@gpuid, 64, 1)>>
      axe.kernel grid [1] threads [256] {
        %rank = axe.device_id
        %c16 = arith.constant 16 : index
        %c32 = arith.constant 32 : index
        %row = arith.muli %rank, %c32 : index
        %row2 = arith.addi %row, %c16 : index
        axe.scope warpgroup [1 : 2] {
          %s0 = axe.alloc : !axe.tensor<16x64xf16, shared, #axe.layout<(16, 64) : (64, 1)>>
          %s1 = axe.alloc : !axe.tensor<16x64xf16, shared, #axe.layout<(16, 64) : (64, 1)>>
          %there0 = axe.slice %P [%row : +16, 0 : 64] : !axe.tensor<64x64xf16, global, #axe.layout<(2, 32, 64) : (1@gpuid, 64, 1)>> to !axe.tensor<16x64xf16, global, ?>
          %there1 = axe.slice %P [%row2 : +16, 0 : 64] : !axe.tensor<64x64xf16, global, #axe.layout<(2, 32, 64) : (1@gpuid, 64, 1)>> to !axe.tensor<16x64xf16, global, ?>
          %t0 = axe.copy async %s0, %there0 schedule tma : !axe.tensor<16x64xf16, shared, #axe.layout<(16, 64) : (64, 1)>>, !axe.tensor<16x64xf16, global, ?> -> !axe.token
          %t1 = axe.copy async %s1, %there1 schedule tma : !axe.tensor<16x64xf16, shared, #axe.layout<(16, 64) : (64, 1)>>, !axe.tensor<16x64xf16, global, ?> -> !axe.token
          axe.wait %t0 outstanding 1
          axe.wait
        }
      }
    }
    return
  }
}

// -----

// An async TMA store's bulk group belongs to the first thread of the unit that issued it: a
// wait in another unit is a located error.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @push_async_elsewhere(%p: memref<4096xf16> {axe.align = 16 : i64}) {
    axe.mesh [2] {
      %P = axe.view %p : memref<4096xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(2, 32, 64) : (1@gpuid, 64, 1)>>
      axe.kernel grid [1] threads [256] {
        %rank = axe.device_id
        %c32 = arith.constant 32 : index
        %row = arith.muli %rank, %c32 : index
        %st = axe.alloc : !axe.tensor<32x64xf16, shared, #axe.layout<(32, 64) : (64, 1)>>
        %there = axe.slice %P [%row : +32, 0 : 64] : !axe.tensor<64x64xf16, global, #axe.layout<(2, 32, 64) : (1@gpuid, 64, 1)>> to !axe.tensor<32x64xf16, global, ?>
        %t = axe.copy async %st, %there schedule tma : !axe.tensor<32x64xf16, shared, #axe.layout<(32, 64) : (64, 1)>>, !axe.tensor<32x64xf16, global, ?> -> !axe.token
        axe.scope warpgroup [1 : 2] {
          // expected-error @+1 {{this wait executes at warpgroup scope, but the TMA store it waits for was issued by a cta (whose first thread holds the store's bulk group)}}
          axe.wait %t
        }
      }
    }
    return
  }
}

