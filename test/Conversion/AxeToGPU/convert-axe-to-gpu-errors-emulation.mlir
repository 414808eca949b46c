// Refusals of convert-axe-to-gpu's CPU emulation (emulate-threads-on-cpu=1: the threads of a
// CTA run one after another, as loops), each with a located error: what needs threads to run
// together (shared-memory exchanges, warp-collective instructions, split barriers), and values
// carried across a CTA barrier that the emulation cannot recompute.
// RUN: axe-opt %s --convert-axe-to-gpu=emulate-threads-on-cpu=1 --split-input-file --verify-diagnostics

// A cross-warp reduction exchanges partial results through shared memory between barriers: not emulated.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @cross_warp_reduction() {
    axe.kernel grid [1] threads [64] {
      %x = axe.alloc : !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@warp, 1@lane)>>
      %s = axe.alloc : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane) + [(2) : (1@warp)]>>
      // expected-error @+1 {{emulate-threads-on-cpu cannot model the shared-memory exchange of a cross-warp reduction}}
      axe.reduce sum %x, %s dims [0] : !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@warp, 1@lane)>>, !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane) + [(2) : (1@warp)]>>
    }
    return
  }
}

// -----

// mma.sync is warp-collective (each lane computes with the others' fragments): not emulated.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @mma_sync() {
    axe.kernel grid [1] threads [32] {
      %a = axe.alloc : !axe.tensor<16x16xf16, shared, #axe.layout<(16, 16) : (16, 1)>>
      %b = axe.alloc : !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>
      %c = axe.alloc : !axe.tensor<16x8xf32, register, #axe.layout<(2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)>>
      // expected-error @+1 {{emulate-threads-on-cpu cannot run mma.sync (a warp-collective instruction)}}
      axe.gemm %a, %b, %c : !axe.tensor<16x16xf16, shared, #axe.layout<(16, 16) : (16, 1)>>, !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>, !axe.tensor<16x8xf32, register, #axe.layout<(2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// A split CTA barrier lets threads run on until others arrive, which sequential threads cannot: axe.arrive is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @split_barrier() {
    axe.kernel grid [1] threads [32] {
      // expected-error @+1 {{emulate-threads-on-cpu runs threads one after another; axe.arrive (a split CTA barrier) cannot be emulated}}
      %r = axe.arrive
    }
    return
  }
}

// -----

// Broadcasting lane-distributed values to every lane goes through shared memory with barriers: not emulated.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @conversion_between_threads() {
    axe.kernel grid [1] threads [32] {
      %x = axe.alloc : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
      %y = axe.alloc : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@reg) + [(32) : (1@lane)]>>
      // expected-error @+1 {{this layout conversion moves elements between threads (through shared memory, with barriers), which emulate-threads-on-cpu cannot run}}
      axe.convert_layout %x, %y : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>, !axe.tensor<32xf32, register, #axe.layout<(32) : (1@reg) + [(32) : (1@lane)]>>
    }
    return
  }
}

// -----

// Each phase between CTA barriers is its own loop over the threads: a memref.load before the barrier is not recomputed after it.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @load_across_barrier(%m: memref<4xindex>, %buf: memref<64xf32>) {
    %G = axe.view %buf : memref<64xf32> to !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>
    axe.kernel grid [1] threads [32] {
      %c0 = arith.constant 0 : index
      %o = memref.load %m[%c0] : memref<4xindex>
      %s = axe.alloc : !axe.tensor<32xf32, shared, #axe.layout<(32) : (1)>>
      axe.barrier cta
      // expected-error @+1 {{this op uses a value computed by 'memref.load' before a CTA barrier}}
      %t = axe.slice %G [%o : +32] : !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>> to !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>
      axe.copy %s, %t : !axe.tensor<32xf32, shared, #axe.layout<(32) : (1)>>, !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>
    }
    return
  }
}

// -----

// The emulation keeps every thread's registers in one host buffer: 1024 threads of 131072 registers each pass its bound.
module {
  func.func @emulated_registers_too_many() {
    axe.kernel grid [1] threads [1024] {
      // expected-error @+1 {{'axe.alloc' op emulating 1024 threads' registers of this tensor needs more than 67108864 elements: emulate a kernel of fewer threads, or give each thread fewer registers}}
      %r = axe.alloc : !axe.tensor<131072xf32, register, #axe.layout<(131072) : (1@reg)>>
    }
    return
  }
}
