// RUN: axe-opt --axe-slice --convert-axe-to-gpu --split-input-file --verify-diagnostics %s | FileCheck %s

// A reducing TMA store into a peer's memory (`reduce sum`): the runs both layouts share, each
// a bulk reduction that the TMA unit performs at the destination's memory. The shared tile is
// 16 row-major rows of 128 f16, and so are the peer's rows of Y: one 4096-byte run. As for a
// peer copy, the issuing thread waits only until the group has read the shared tile; the
// writes complete at the unit's next signal and at the kernel's exit.
// CHECK-LABEL: func.func @reduce_block
// CHECK: gpu.launch
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: scf.if
// CHECK: %[[S:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK-NEXT: llvm.inline_asm has_side_effects "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16 [$0], [$1], 4096;", "l,r,~{memory}" %{{.*}}, %[[S]] : (i64, i32) -> ()
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvvm.cp.async.bulk.wait_group 0
// CHECK-NEXT: gpu.terminator
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @reduce_block(%y: memref<4096xf16> {axe.align = 16 : i64}) {
    axe.mesh [2] {
      %Y = axe.view %y : memref<4096xf16> to !axe.tensor<64x128xf16, global, #axe.layout<(2, 32, 128) : (1@gpuid, 128, 1)>>
      axe.kernel grid [1] threads [128] {
        %rank = axe.device_id
        %c1 = arith.constant 1 : index
        %c2 = arith.constant 2 : index
        %c32 = arith.constant 32 : index
        %r1 = arith.addi %rank, %c1 : index
        %next = arith.remui %r1, %c2 : index
        %row = arith.muli %next, %c32 : index
        %st = axe.alloc : !axe.tensor<16x128xf16, shared, #axe.layout<(16, 128) : (128, 1)>>
        %there = axe.slice %Y [%row : +16, 0 : 128] : !axe.tensor<64x128xf16, global, #axe.layout<(2, 32, 128) : (1@gpuid, 128, 1)>> to !axe.tensor<16x128xf16, global, ?>
        axe.copy %st, %there schedule tma reduce sum : !axe.tensor<16x128xf16, shared, #axe.layout<(16, 128) : (128, 1)>>, !axe.tensor<16x128xf16, global, ?>
      }
    }
    return
  }
}

// -----

// Into a wider peer row (Y rows of 256 elements) the tile's rows are 16 runs of 256 bytes, one
// bulk reduction each.
// CHECK-LABEL: func.func @reduce_rows
// CHECK-COUNT-16: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16 [$0], [$1], 256;
// CHECK-NOT: cp.reduce.async.bulk
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @reduce_rows(%y: memref<8192xf16> {axe.align = 16 : i64}) {
    axe.mesh [2] {
      %Y = axe.view %y : memref<8192xf16> to !axe.tensor<64x256xf16, global, #axe.layout<(2, 32, 256) : (1@gpuid, 256, 1)>>
      axe.kernel grid [1] threads [128] {
        %rank = axe.device_id
        %c32 = arith.constant 32 : index
        %c128 = arith.constant 128 : index
        %row = arith.muli %rank, %c32 : index
        %st = axe.alloc : !axe.tensor<16x128xf16, shared, #axe.layout<(16, 128) : (128, 1)>>
        %there = axe.slice %Y [%row : +16, %c128 : +128] : !axe.tensor<64x256xf16, global, #axe.layout<(2, 32, 256) : (1@gpuid, 256, 1)>> to !axe.tensor<16x128xf16, global, ?>
        axe.copy %st, %there schedule tma reduce sum : !axe.tensor<16x128xf16, shared, #axe.layout<(16, 128) : (128, 1)>>, !axe.tensor<16x128xf16, global, ?>
      }
    }
    return
  }
}

// -----

// Into a local buffer (no mesh): f32 adds, and the op waits until the reduction is complete
// (a local TMA store is complete when the op ends), not only read.
// CHECK-LABEL: func.func @reduce_local
// CHECK: llvm.inline_asm has_side_effects "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [$0], [$1], 2048;"
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0
// CHECK-NOT: {read}
// CHECK: gpu.terminator
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @reduce_local(%c: memref<1024xf32> {axe.align = 16 : i64}) {
    %C = axe.view %c : memref<1024xf32> to !axe.tensor<32x32xf32, global, #axe.layout<(32, 32) : (32, 1)>>
    axe.kernel grid [1] threads [128] {
      %st = axe.alloc : !axe.tensor<16x32xf32, shared, #axe.layout<(16, 32) : (32, 1)>>
      %t = axe.slice %C [16 : 32, 0 : 32] : !axe.tensor<32x32xf32, global, #axe.layout<(32, 32) : (32, 1)>> to !axe.tensor<16x32xf32, global, ?>
      axe.copy %st, %t schedule tma reduce sum : !axe.tensor<16x32xf32, shared, #axe.layout<(16, 32) : (32, 1)>>, !axe.tensor<16x32xf32, global, ?>
    }
    return
  }
}

// -----

// The TMA unit reduces with other operations too, but only `sum` is lowered: a located error.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @reduce_max(%c: memref<1024xf32> {axe.align = 16 : i64}) {
    %C = axe.view %c : memref<1024xf32> to !axe.tensor<32x32xf32, global, #axe.layout<(32, 32) : (32, 1)>>
    axe.kernel grid [1] threads [128] {
      %st = axe.alloc : !axe.tensor<32x32xf32, shared, #axe.layout<(32, 32) : (32, 1)>>
      // expected-error @+1 {{a reducing TMA store is lowered for 'sum' only, not 'max'}}
      axe.copy %st, %C schedule tma reduce max : !axe.tensor<32x32xf32, shared, #axe.layout<(32, 32) : (32, 1)>>, !axe.tensor<32x32xf32, global, #axe.layout<(32, 32) : (32, 1)>>
    }
    return
  }
}

// -----

// No bulk reduction adds bytes: a located error.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @reduce_i8(%c: memref<1024xi8> {axe.align = 16 : i64}) {
    %C = axe.view %c : memref<1024xi8> to !axe.tensor<32x32xi8, global, #axe.layout<(32, 32) : (32, 1)>>
    axe.kernel grid [1] threads [128] {
      %st = axe.alloc : !axe.tensor<32x32xi8, shared, #axe.layout<(32, 32) : (32, 1)>>
      // expected-error @+1 {{a reducing TMA store sums f16, bf16, f32, f64, i32 or i64 elements, not i8}}
      axe.copy %st, %C schedule tma reduce sum : !axe.tensor<32x32xi8, shared, #axe.layout<(32, 32) : (32, 1)>>, !axe.tensor<32x32xi8, global, #axe.layout<(32, 32) : (32, 1)>>
    }
    return
  }
}

// -----

// A reducing store into a buffer not declared 16-byte aligned: a located error.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @reduce_unaligned(%c: memref<1024xf32>) {
    %C = axe.view %c : memref<1024xf32> to !axe.tensor<32x32xf32, global, #axe.layout<(32, 32) : (32, 1)>>
    axe.kernel grid [1] threads [128] {
      %st = axe.alloc : !axe.tensor<32x32xf32, shared, #axe.layout<(32, 32) : (32, 1)>>
      // expected-error @+1 {{a reducing TMA store needs a 16-byte aligned buffer}}
      axe.copy %st, %C schedule tma reduce sum : !axe.tensor<32x32xf32, shared, #axe.layout<(32, 32) : (32, 1)>>, !axe.tensor<32x32xf32, global, #axe.layout<(32, 32) : (32, 1)>>
    }
    return
  }
}
