// Reductions: in-thread over the registers of the reduced dimension, then a butterfly of
// xor shuffles over its lane bits (offsets 1, 2, 4, 8, 16 for 32 lanes of stride 1; 4, 8 for
// a 4-lane group of stride 4).
// RUN: axe-opt %s --convert-axe-to-gpu --split-input-file | FileCheck %s
// RUN: axe-opt %s --convert-axe-to-gpu --split-input-file | FileCheck %s --check-prefix=XWARP

// CHECK-LABEL: func.func @row_max
// CHECK: %[[X:.*]] = memref.alloca() : memref<2xf32>
// CHECK: %[[M:.*]] = memref.alloca() : memref<2xf32>
// Row 0 lives in register 0 of every lane: no in-thread step, five shuffles.
// CHECK: %[[V:.*]] = memref.load %[[X]][%{{.*}}] : memref<2xf32>
// CHECK: %[[O1:.*]] = arith.constant 1 : i32
// CHECK: %[[W:.*]] = arith.constant 32 : i32
// CHECK: %[[S1:.*]], %{{.*}} = gpu.shuffle xor %[[V]], %[[O1]], %[[W]] : f32
// CHECK: %[[A1:.*]] = arith.maximumf %[[V]], %[[S1]] : f32
// CHECK: arith.constant 2 : i32
// CHECK: gpu.shuffle xor %[[A1]]
// CHECK: arith.constant 4 : i32
// CHECK: gpu.shuffle xor
// CHECK: arith.constant 8 : i32
// CHECK: gpu.shuffle xor
// CHECK: arith.constant 16 : i32
// CHECK: %[[S5:.*]], %{{.*}} = gpu.shuffle xor
// CHECK: %[[R:.*]] = arith.maximumf %{{.*}}, %[[S5]] : f32
// CHECK: memref.store %[[R]], %[[M]][%{{.*}}] : memref<2xf32>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @row_max() {
    axe.kernel grid [1] threads [32] {
      axe.scope warp {
        %x = axe.alloc : !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@reg, 1@lane)>>
        %m = axe.alloc : !axe.tensor<2x1xf32, register, #axe.layout<(2) : (1@reg) + [(32) : (1@lane)]>>
        axe.reduce max %x, %m dims [1] : !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@reg, 1@lane)>>, !axe.tensor<2x1xf32, register, #axe.layout<(2) : (1@reg) + [(32) : (1@lane)]>>
      }
    }
    return
  }
}

// -----

// An mma-style fragment (8 rows over lanes 4l.., 4 lane groups x 2 registers per row):
// sum the 2 registers in-thread, then shuffle xor 1 and 2 (the quad).
// CHECK-LABEL: func.func @quad_sum
// CHECK: %[[X:.*]] = memref.alloca() : memref<2xf32>
// CHECK: %[[A:.*]] = memref.load %[[X]]
// CHECK: %[[B:.*]] = memref.load %[[X]]
// CHECK: %[[AB:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK: arith.constant 1 : i32
// CHECK: gpu.shuffle xor %[[AB]]
// CHECK: arith.constant 2 : i32
// CHECK: gpu.shuffle xor
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.terminator
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @quad_sum() {
    axe.kernel grid [1] threads [32] {
      %x = axe.alloc : !axe.tensor<8x8xf32, register, #axe.layout<(8, 4, 2) : (4@lane, 1@lane, 1@reg)>>
      %s = axe.alloc : !axe.tensor<8xf32, register, #axe.layout<(8) : (4@lane) + [(4) : (1@lane)]>>
      axe.reduce sum %x, %s dims [1] : !axe.tensor<8x8xf32, register, #axe.layout<(8, 4, 2) : (4@lane, 1@lane, 1@reg)>>, !axe.tensor<8xf32, register, #axe.layout<(8) : (4@lane) + [(4) : (1@lane)]>>
    }
    return
  }
}

// -----

// A row spread over 2 warps: in-warp shuffles, then each warp's partial goes to a shared
// scratch buffer (result x warp: after the shuffles every lane holds the same partial), the
// CTA synchronizes, every thread adds the partials of the warps in its group, in warp order,
// and the CTA synchronizes again before anything may rewrite the buffer.
// XWARP: memref.global "private" @__axe_scratch_0 : memref<2xf32, 3>
// XWARP-LABEL: func.func @cross_warp
// XWARP: gpu.launch
// XWARP-COUNT-5: gpu.shuffle xor
// XWARP: memref.store %{{.*}}, %[[SCR:.*]][%{{.*}}] : memref<2xf32, 3>
// XWARP-NEXT: gpu.barrier
// XWARP: %[[P0:.*]] = memref.load %[[SCR]][%{{.*}}] : memref<2xf32, 3>
// XWARP: %[[P1:.*]] = memref.load %[[SCR]][%{{.*}}] : memref<2xf32, 3>
// XWARP: arith.addf %[[P0]], %[[P1]] : f32
// XWARP-NEXT: gpu.barrier
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @cross_warp(%g: memref<64xf32> {axe.align = 16 : i64}, %o: memref<1xf32> {axe.align = 16 : i64}) {
    %G = axe.view %g : memref<64xf32> to !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>
    axe.kernel grid [1] threads [64] {
      %x = axe.alloc : !axe.tensor<64xf32, register, #axe.layout<(2, 32) : (1@warp, 1@lane)>>
      %s = axe.alloc : !axe.tensor<f32, register, #axe.layout<() : () + [(2, 32) : (1@warp, 1@lane)]>>
      axe.copy %G, %x : !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>, !axe.tensor<64xf32, register, #axe.layout<(2, 32) : (1@warp, 1@lane)>>
      axe.reduce sum %x, %s dims [0] : !axe.tensor<64xf32, register, #axe.layout<(2, 32) : (1@warp, 1@lane)>>, !axe.tensor<f32, register, #axe.layout<() : () + [(2, 32) : (1@warp, 1@lane)]>>
    }
    return
  }
}

// -----

// Columns over 4 warps, rows over lanes: the lanes of a warp hold partials of different rows,
// so the scratch has a slot per warp and lane (4 x 32), each lane reading its own lane's slots
// of the other warps (one slot per warp had every lane write the same one: every row got one
// lane's sum; found by axe-fuzz lowering-gpu, seed 100 case 3542).
// XWARP: memref.global "private" @__axe_scratch_0 : memref<128xf32, 3>
// XWARP-LABEL: func.func @rows_on_lanes
// XWARP: memref.store %{{.*}}, %[[SCR:.*]][%{{.*}}] : memref<128xf32, 3>
// XWARP-NEXT: gpu.barrier
// XWARP-COUNT-4: memref.load %[[SCR]][%{{.*}}] : memref<128xf32, 3>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @rows_on_lanes(%g: memref<128xf32> {axe.align = 16 : i64}) {
    %G = axe.view %g : memref<128xf32> to !axe.tensor<32x4xf32, global, #axe.layout<(32, 4) : (4, 1)>>
    axe.kernel grid [1] threads [128] {
      %x = axe.alloc : !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@lane, 1@warp)>>
      %s = axe.alloc : !axe.tensor<32x1xf32, register, #axe.layout<(32, 1) : (1@lane, 1@reg) + [(4) : (1@warp)]>>
      axe.copy %G, %x : !axe.tensor<32x4xf32, global, #axe.layout<(32, 4) : (4, 1)>>, !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@lane, 1@warp)>>
      axe.reduce sum %x, %s dims [1] : !axe.tensor<32x4xf32, register, #axe.layout<(32, 4) : (1@lane, 1@warp)>>, !axe.tensor<32x1xf32, register, #axe.layout<(32, 1) : (1@lane, 1@reg) + [(4) : (1@warp)]>>
    }
    return
  }
}
