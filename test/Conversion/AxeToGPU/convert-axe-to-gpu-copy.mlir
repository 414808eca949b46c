// Copy schedules: thread-bound register copies with layout-derived addresses and vector
// widths, memory-to-memory copies strided over the CTA, shared tensors as workgroup globals.
// RUN: axe-opt %s --convert-axe-to-gpu --split-input-file | FileCheck %s

// Paper Figure 5: thread (warp w, lane l) owns row 4w + l/8, columns 8(l%8) .. +7 of the
// region C[16:32, 64:128] (offset 2112): two 16-byte vector loads at base + 0 and base + 4.
// CHECK-LABEL: func.func @cta_collective_copy
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %{{.*}}, {{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in
// CHECK: %[[REGS:.*]] = memref.alloca() : memref<8xf32>
// CHECK: %[[LANE:.*]] = arith.remui %[[TX]], %{{.*}} : index
// CHECK: %[[WARP:.*]] = arith.divui %[[TX]], %{{.*}} : index
// CHECK: %[[COL8:.*]] = arith.remui %[[LANE]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.divui %[[LANE]], %{{.*}} : index
// CHECK: %[[C512:.*]] = arith.constant 512 : index
// CHECK: %[[W:.*]] = arith.muli %[[WARP]], %[[C512]] : index
// CHECK: %[[C128:.*]] = arith.constant 128 : index
// CHECK: %[[R:.*]] = arith.muli %[[ROW]], %[[C128]] : index
// CHECK: %[[WR:.*]] = arith.addi %[[W]], %[[R]] : index
// CHECK: %[[C:.*]] = arith.muli %[[COL8]], %{{.*}} : index
// CHECK: %[[BASE:.*]] = arith.addi %[[WR]], %[[C]] : index
// CHECK: %[[C2112:.*]] = arith.constant 2112 : index
// CHECK: %[[A0:.*]] = arith.addi %[[BASE]], %[[C2112]] : index
// CHECK: %[[V0:.*]] = vector.load %arg0[%[[A0]]] {alignment = 16 : i64} : memref<4096xf32>, vector<4xf32>
// Registers are written element by element (so that LLVM keeps them in registers).
// CHECK: %[[E0:.*]] = vector.extract %[[V0]][0] : f32 from vector<4xf32>
// CHECK: memref.store %[[E0]], %[[REGS]][%{{.*}}] : memref<8xf32>
// CHECK-COUNT-3: memref.store %{{.*}}, %[[REGS]][%{{.*}}] : memref<8xf32>
// CHECK: %[[C2116:.*]] = arith.constant 2116 : index
// CHECK: %[[A1:.*]] = arith.addi %[[BASE]], %[[C2116]] : index
// CHECK: vector.load %arg0[%[[A1]]] {alignment = 16 : i64} : memref<4096xf32>, vector<4xf32>
// CHECK: gpu.terminator
// CHECK-NOT: axe.{{(copy|alloc|view|slice|kernel)}}
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @cta_collective_copy(%buf: memref<4096xf32> {axe.align = 16 : i64}) {
    %C = axe.view %buf : memref<4096xf32> to !axe.tensor<32x128xf32, global, #axe.layout<(32, 128) : (128, 1)>>
    axe.kernel grid [1] threads [128] {
      %region = axe.slice %C [16 : 32, 64 : 128] : !axe.tensor<32x128xf32, global, #axe.layout<(32, 128) : (128, 1)>> to !axe.tensor<16x64xf32, global, #axe.layout<(16, 64) : (128, 1) + 2112>>
      %local = axe.alloc : !axe.tensor<16x64xf32, register, #axe.layout<(4, 4, 8, 8) : (1@warp, 8@lane, 1@lane, 1@reg)>>
      axe.copy %region, %local schedule vectorized : !axe.tensor<16x64xf32, global, #axe.layout<(16, 64) : (128, 1) + 2112>>, !axe.tensor<16x64xf32, register, #axe.layout<(4, 4, 8, 8) : (1@warp, 8@lane, 1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// Column-major global: the registers are not contiguous in memory, so scalar loads with
// stride 32 (register r of lane l reads element l + 32 r).
// CHECK-LABEL: func.func @column_major
// CHECK: %[[REGS:.*]] = memref.alloca() : memref<4xf16>
// CHECK: %[[LANE:.*]] = arith.remui
// CHECK: %[[X0:.*]] = memref.load %arg0[%[[LANE]]] : memref<128xf16>
// CHECK: memref.store %[[X0]], %[[REGS]][%{{.*}}] : memref<4xf16>
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[A1:.*]] = arith.addi %[[LANE]], %[[C32]] : index
// CHECK: memref.load %arg0[%[[A1]]] : memref<128xf16>
// CHECK-NOT: vector.load
// CHECK: gpu.terminator
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @column_major(%buf: memref<128xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<128xf16> to !axe.tensor<4x32xf16, global, #axe.layout<(4, 32) : (32, 1)>>
    axe.kernel grid [1] threads [32] {
      %r = axe.alloc : !axe.tensor<4x32xf16, register, #axe.layout<(4, 32) : (1@reg, 1@lane)>>
      axe.copy %G, %r : !axe.tensor<4x32xf16, global, #axe.layout<(4, 32) : (32, 1)>>, !axe.tensor<4x32xf16, register, #axe.layout<(4, 32) : (1@reg, 1@lane)>>
    }
    return
  }
}

// -----

// f16 rows of 8 per thread: one 16-byte vector<8xf16> store; a half-warp layout (16 lanes)
// is guarded so that lanes 16..31 own nothing.
// CHECK-LABEL: func.func @half_warp_store
// CHECK: %[[LANE:.*]] = arith.remui
// CHECK: %[[OWN:.*]] = arith.cmpi eq
// CHECK: scf.if %[[OWN]] {
// CHECK-COUNT-8: memref.load %{{.*}}[%{{.*}}] : memref<8xf16>
// CHECK: %[[V:.*]] = vector.from_elements {{.*}} : vector<8xf16>
// CHECK: vector.store %[[V]], %arg0[%{{.*}}] {alignment = 16 : i64} : memref<128xf16>, vector<8xf16>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @half_warp_store(%buf: memref<128xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<128xf16> to !axe.tensor<16x8xf16, global, #axe.layout<(16, 8) : (8, 1)>>
    axe.kernel grid [1] threads [32] {
      %r = axe.alloc : !axe.tensor<16x8xf16, register, #axe.layout<(16, 8) : (1@lane, 1@reg)>>
      axe.copy %r, %G : !axe.tensor<16x8xf16, register, #axe.layout<(16, 8) : (1@lane, 1@reg)>>, !axe.tensor<16x8xf16, global, #axe.layout<(16, 8) : (8, 1)>>
    }
    return
  }
}

// -----

// global → shared: a loop over 4-element vectors strided by the CTA size; the shared tensor
// is a 16-byte aligned workgroup global (address space 3); the barrier is bar.sync.
// CHECK: memref.global "private" @__axe_shared_0 : memref<1024xf32, 3> = uninitialized {alignment = 16 : i64}
// CHECK-LABEL: func.func @to_shared
// CHECK: gpu.launch
// CHECK: %[[S:.*]] = memref.get_global @__axe_shared_0 : memref<1024xf32, 3>
// CHECK: scf.for %[[Q:.*]] = %[[TX:.*]] to %{{.*}} step %{{.*}} {
// CHECK: %[[V:.*]] = vector.load %arg0[%{{.*}}] {alignment = 16 : i64} : memref<1024xf32>, vector<4xf32>
// CHECK: vector.store %[[V]], %[[S]][%{{.*}}] {alignment = 16 : i64} : memref<1024xf32, 3>, vector<4xf32>
// CHECK: gpu.barrier
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @to_shared(%buf: memref<1024xf32> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<1024xf32> to !axe.tensor<32x32xf32, global, #axe.layout<(32, 32) : (32, 1)>>
    axe.kernel grid [4] threads [128] {
      %s = axe.alloc : !axe.tensor<32x32xf32, shared, #axe.layout<(4, 8, 4, 8) : (256, 8, 64, 1)>>
      axe.copy %G, %s : !axe.tensor<32x32xf32, global, #axe.layout<(32, 32) : (32, 1)>>, !axe.tensor<32x32xf32, shared, #axe.layout<(4, 8, 4, 8) : (256, 8, 64, 1)>>
      axe.barrier cta
    }
    return
  }
}

// -----

// A swizzled shared tile: every shared offset goes through o ^ (((o >> 6) & 7) << 3) (the
// Swizzle<3, 3, 3> of f16 offsets); vectors stay 8 wide (2^M elements are never split).
// CHECK-LABEL: func.func @swizzled_store
// CHECK: %[[HI:.*]] = arith.shrui %[[O:.*]], %{{.*}} : index
// CHECK: %[[B:.*]] = arith.andi %[[HI]], %{{.*}} : index
// CHECK: %[[M:.*]] = arith.shli %[[B]], %{{.*}} : index
// CHECK: %[[S:.*]] = arith.xori %[[O]], %[[M]] : index
// CHECK: vector.store %{{.*}}, %{{.*}}[%[[S]]] {alignment = 16 : i64} : memref<4096xf16, 3>, vector<8xf16>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @swizzled_store(%g: memref<4096xf16> {axe.align = 16 : i64}) {
    %G = axe.view %g : memref<4096xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      axe.copy %G, %s : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
    }
    return
  }
}

// -----

// A layout conversion whose elements change lanes: each lane stores what it holds into a
// fresh row-major shared scratch buffer, the warp synchronizes, each lane loads what it
// needs, and the warp synchronizes again (the buffer may be rewritten by a next iteration).
// CHECK: memref.global "private" @__axe_scratch_0 : memref<128xf32, 3>
// CHECK-LABEL: func.func @convert_across_lanes
// CHECK: %[[S:.*]] = memref.get_global @__axe_scratch_0 : memref<128xf32, 3>
// CHECK: vector.store %{{.*}}, %[[S]]
// CHECK: nvvm.bar.warp.sync
// CHECK: memref.load %[[S]]
// CHECK: nvvm.bar.warp.sync
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @convert_across_lanes() {
    axe.kernel grid [1] threads [32] {
      %a = axe.alloc : !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@lane, 1@reg)>>
      %b = axe.alloc : !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@reg, 8@lane)>>
      axe.scope warp {
        axe.convert_layout %a, %b : !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@lane, 1@reg)>>, !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@reg, 8@lane)>>
      }
    }
    return
  }
}

// -----

// A {clip} destination tile (10 x 12 tensor, 8 x 8 tiles): the rows and columns that exist are
// the extents minus the tile origin, and every store is predicated on its coordinates.
// CHECK-LABEL: func.func @ragged
// CHECK-DAG: %[[RROWS:.*]] = arith.subi %c10{{.*}}, %{{.*}} : index
// CHECK-DAG: %[[RCOLS:.*]] = arith.subi %c12{{.*}}, %{{.*}} : index
// CHECK: %[[IN_R:.*]] = arith.cmpi slt, %{{.*}}, %[[RROWS]] : index
// CHECK: %[[IN_C:.*]] = arith.cmpi slt, %{{.*}}, %[[RCOLS]] : index
// CHECK: %[[IN:.*]] = arith.andi %[[IN_R]], %[[IN_C]] : i1
// CHECK: scf.if %[[IN]] {
// CHECK: memref.store %{{.*}}, %{{.*}} : memref<120xf32>
// CHECK-NEXT: }
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @ragged(%x: memref<256xf32>, %y: memref<120xf32>) {
    %X = axe.view %x : memref<256xf32> to !axe.tensor<16x16xf32, global, #axe.layout<(16, 16) : (16, 1)>>
    %Y = axe.view %y : memref<120xf32> to !axe.tensor<10x12xf32, global, #axe.layout<(10, 12) : (12, 1)>>
    axe.kernel grid [4] threads [32] {
      %c = axe.unit_id cta
      %c2 = arith.constant 2 : index
      %c8 = arith.constant 8 : index
      %tm = arith.divui %c, %c2 : index
      %tn = arith.remui %c, %c2 : index
      %om = arith.muli %tm, %c8 : index
      %on = arith.muli %tn, %c8 : index
      %s = axe.slice %X [%om : +8, %on : +8] : !axe.tensor<16x16xf32, global, #axe.layout<(16, 16) : (16, 1)>> to !axe.tensor<8x8xf32, global, #axe.layout<(8, 8) : (16, 1)>>
      %d = axe.slice %Y [%om : +8, %on : +8] {clip} : !axe.tensor<10x12xf32, global, #axe.layout<(10, 12) : (12, 1)>> to !axe.tensor<8x8xf32, global, #axe.layout<(8, 8) : (12, 1)>>
      %v = axe.alloc : !axe.tensor<8x8xf32, register, #axe.layout<(8, 4, 2) : (4@lane, 1@lane, 1@reg)>>
      axe.copy %s, %v : !axe.tensor<8x8xf32, global, #axe.layout<(8, 8) : (16, 1)>>, !axe.tensor<8x8xf32, register, #axe.layout<(8, 4, 2) : (4@lane, 1@lane, 1@reg)>>
      axe.copy %v, %d : !axe.tensor<8x8xf32, register, #axe.layout<(8, 4, 2) : (4@lane, 1@lane, 1@reg)>>, !axe.tensor<8x8xf32, global, #axe.layout<(8, 8) : (12, 1)>>
    }
    return
  }
}

// -----

// Shared tiles beyond 48 KiB live in dynamic shared memory: each kernel declares it as a public,
// 1024-aligned memref.global of no storage (PTX: `.extern .shared .align 1024 .b8 x[]`, placed at
// the launch's dynamic region) and views its buffers at static offsets of it. Two kernels, two
// declarations.
// CHECK-DAG: memref.global @__axe_dynamic_shared_0 : memref<0xi8, 3> {alignment = 1024 : i64}
// CHECK-DAG: memref.global @__axe_dynamic_shared_1 : memref<0xi8, 3> {alignment = 1024 : i64}
// CHECK-LABEL: func.func @two_kernels
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size %c65536_i32
// CHECK: %[[G0:.*]] = memref.get_global @__axe_dynamic_shared_0 : memref<0xi8, 3>
// CHECK: %[[C0:.*]] = memref.cast %[[G0]] : memref<0xi8, 3> to memref<?xi8, 3>
// CHECK: memref.view %[[C0]][%{{.*}}][] : memref<?xi8, 3> to memref<32768xf16, 3>
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size
// CHECK: %[[G1:.*]] = memref.get_global @__axe_dynamic_shared_1 : memref<0xi8, 3>
// CHECK: %[[C1:.*]] = memref.cast %[[G1]] : memref<0xi8, 3> to memref<?xi8, 3>
// CHECK: memref.view %[[C1]][%{{.*}}][] : memref<?xi8, 3> to memref<32768xf16, 3>
!g = !axe.tensor<256x128xf16, global, #axe.layout<(256, 128) : (128, 1)>>
!s = !axe.tensor<256x128xf16, shared, #axe.layout<(256, 128) : (128, 1)>>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @two_kernels(%a: memref<32768xf16> {axe.align = 16 : i64}, %b: memref<32768xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<32768xf16> to !g
    %B = axe.view %b : memref<32768xf16> to !g
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !s
      axe.copy %A, %s : !g, !s
      axe.barrier cta
      axe.copy %s, %B : !s, !g
    }
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !s
      axe.copy %B, %s : !g, !s
      axe.barrier cta
      axe.copy %s, %A : !s, !g
    }
    return
  }
}
