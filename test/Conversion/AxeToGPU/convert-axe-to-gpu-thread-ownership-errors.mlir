// Schedules that would leave a thread's registers wrong are refused: what each thread holds
// follows the layouts' definition (Def. 2.3), replicas and slices included.
// RUN: axe-opt %s --convert-axe-to-gpu --split-input-file --verify-diagnostics

// Row r is summed on lane r, but every lane holds the whole result: lanes would keep
// stale rows.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @reduce_into_rows_every_lane_holds() {
    axe.kernel grid [1] threads [4] {
      %r = axe.alloc : !axe.tensor<4x8xf32, register, #axe.layout<(4, 8) : (1@lane, 1@reg)>>
      %s = axe.alloc : !axe.tensor<4xf32, register, #axe.layout<(4) : (1@reg) + [(4) : (1@lane)]>>
      // expected-error@+1 {{do not include every thread that holds it}}
      axe.reduce sum %r, %s dims [1] : !axe.tensor<4x8xf32, register, #axe.layout<(4, 8) : (1@lane, 1@reg)>>, !axe.tensor<4xf32, register, #axe.layout<(4) : (1@reg) + [(4) : (1@lane)]>>
    }
    return
  }
}

// -----

// Row 0 of a lane-distributed tensor is lane 0's alone; a tensor with no lane iter is every
// lane's own, so copying the one into the other would have lanes 1-31 read their own rows.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @pinned_slice_into_every_lanes_tensor() {
    axe.kernel grid [1] threads [32] {
      %r = axe.alloc : !axe.tensor<4x2xf32, register, #axe.layout<(4, 2) : (1@lane, 1@reg)>>
      %t = axe.alloc : !axe.tensor<1x2xf32, register, #axe.layout<(2) : (1@reg)>>
      %rs = axe.slice %r [0 : 1, 0 : 2] : !axe.tensor<4x2xf32, register, #axe.layout<(4, 2) : (1@lane, 1@reg)>> to !axe.tensor<1x2xf32, register, #axe.layout<(2) : (1@reg)>>
      // expected-error@+1 {{is a register slice held only by lane 0 (it is sliced from a tensor distributed over lanes), but the threads of this op follow layout (2) : (1@reg), which every lane runs}}
      axe.copy %rs, %t : !axe.tensor<1x2xf32, register, #axe.layout<(2) : (1@reg)>>, !axe.tensor<1x2xf32, register, #axe.layout<(2) : (1@reg)>>
    }
    return
  }
}

// -----

// The same as an elementwise operand.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @pinned_slice_as_elementwise_operand() {
    axe.kernel grid [1] threads [32] {
      %r = axe.alloc : !axe.tensor<4x2xf32, register, #axe.layout<(4, 2) : (1@lane, 1@reg)>>
      %t = axe.alloc : !axe.tensor<1x2xf32, register, #axe.layout<(2) : (1@reg)>>
      %rs = axe.slice %r [0 : 1, 0 : 2] : !axe.tensor<4x2xf32, register, #axe.layout<(4, 2) : (1@lane, 1@reg)>> to !axe.tensor<1x2xf32, register, #axe.layout<(2) : (1@reg)>>
      // expected-error@+1 {{is a register slice held only by lane 0}}
      axe.unary exp %rs, %t : !axe.tensor<1x2xf32, register, #axe.layout<(2) : (1@reg)>>, !axe.tensor<1x2xf32, register, #axe.layout<(2) : (1@reg)>>
    }
    return
  }
}

// -----

// Lanes 4-7 hold the column sums too (the source's replica), but the result is a slice
// held by lanes 0-3 only: lanes 4-7's register 1 belongs to row 1, columns 4-7, of the
// tensor it is sliced from, and must not be written.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @reduce_into_a_slice_past_its_threads() {
    axe.kernel grid [1] threads [32] {
      %x = axe.alloc : !axe.tensor<8x4xf32, register, #axe.layout<(8, 4) : (1@reg, 1@lane) + [(2) : (4@lane)]>>
      %root = axe.alloc : !axe.tensor<2x8xf32, register, #axe.layout<(2, 8) : (1@reg, 1@lane)>>
      %row = axe.slice %root [1 : 2, 0 : 4] : !axe.tensor<2x8xf32, register, #axe.layout<(2, 8) : (1@reg, 1@lane)>> to !axe.tensor<1x4xf32, register, #axe.layout<(4) : (1@lane) + 1@reg>>
      // expected-error@+1 {{does not hold element}}
      axe.reduce sum %x, %row dims [0] : !axe.tensor<8x4xf32, register, #axe.layout<(8, 4) : (1@reg, 1@lane) + [(2) : (4@lane)]>>, !axe.tensor<1x4xf32, register, #axe.layout<(4) : (1@lane) + 1@reg>>
    }
    return
  }
}

// -----

// Only lane 4 holds the source; the result names no lane, so it is every lane's own, and the
// other lanes would keep a stale value.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @reduce_from_one_lane_into_every_lanes_result() {
    axe.kernel grid [1] threads [32] {
      %x = axe.alloc : !axe.tensor<1x1xf32, register, #axe.layout<() : () + 4@lane>>
      %s = axe.alloc : !axe.tensor<1x1xf32, register, #axe.layout<() : ()>>
      // expected-error@+1 {{the result (layout () : ()) is every lane's own, but only some lanes of the executing unit compute it}}
      axe.reduce min %x, %s dims [1] : !axe.tensor<1x1xf32, register, #axe.layout<() : () + 4@lane>>, !axe.tensor<1x1xf32, register, #axe.layout<() : ()>>
    }
    return
  }
}

// -----

// Rows held by CTA r (1@cta) converted into a layout every CTA holds whole: shared memory is
// per CTA, so the other CTAs' rows cannot arrive (each CTA read rows it never wrote; found by
// axe-fuzz lowering-gpu, seed 100 case 117).
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @across_ctas(%b: memref<64xf32>, %c: memref<64xf32>) {
    %B = axe.view %b : memref<64xf32> to !axe.tensor<2x32xf32, global, #axe.layout<(2, 32) : (1, 2)>>
    %C = axe.view %c : memref<64xf32> to !axe.tensor<2x32xf32, global, #axe.layout<(2, 32) : (32, 1)>>
    axe.kernel grid [4] threads [32] {
      %r = axe.alloc : !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@cta, 1@reg)>>
      axe.copy %B, %r : !axe.tensor<2x32xf32, global, #axe.layout<(2, 32) : (1, 2)>>, !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@cta, 1@reg)>>
      %l = axe.alloc : !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@lane, 1@reg)>>
      // expected-error @+1 {{this layout conversion would move element 0 between CTAs: layout (2, 32) : (1@cta, 1@reg) holds it only in CTA [0], layout (2, 32) : (1@lane, 1@reg) needs it in CTA 1}}
      axe.convert_layout %r, %l : !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@cta, 1@reg)>>, !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@lane, 1@reg)>>
      axe.copy %l, %C : !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@lane, 1@reg)>>, !axe.tensor<2x32xf32, global, #axe.layout<(2, 32) : (32, 1)>>
    }
    return
  }
}
