// More refusals of convert-axe-to-gpu, each with a located error, one case per error site of
// the lowering that no other test reaches: bulk stores and TMA loads of replicated shared
// layouts, mma.sync tilings over some of the warps, shared memory sizes past 64 bits, meshes
// and cooperative kernels outside a function, pinned register slices of collective
// instructions, tensor operands the lowering cannot resolve and replicated wgmma operands.
// (convert-axe-to-gpu-errors-sites.mlir has the first such cases.)
// RUN: axe-opt %s --convert-axe-to-gpu --split-input-file --verify-diagnostics

// A bulk reduction stores runs of the shared tile's one address per element: a shared source stored twice (a memory replica) is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @bulk_store_replicated_source(%buf: memref<256xf32> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<256xf32> to !axe.tensor<256xf32, global, #axe.layout<(256) : (1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<256xf32, shared, #axe.layout<(256) : (1) + [(2) : (256)]>>
      // expected-error @+1 {{the shared source's layout (256) : (1) + [(2) : (256)]: it replicates elements or uses a non-memory axis}}
      axe.copy %s, %G schedule tma reduce sum : !axe.tensor<256xf32, shared, #axe.layout<(256) : (1) + [(2) : (256)]>>, !axe.tensor<256xf32, global, #axe.layout<(256) : (1)>>
    }
    return
  }
}

// -----

// TMA boxes land at one shared offset per element: a TMA load into a shared tile stored twice (a memory replica) is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_load_replicated_destination(%buf: memref<256xf32> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<256xf32> to !axe.tensor<256xf32, global, #axe.layout<(256) : (1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<256xf32, shared, #axe.layout<(256) : (1) + [(2) : (256)]>>
      // expected-error @+1 {{TMA destination layout (256) : (1) + [(2) : (256)]: it replicates elements or uses a non-memory axis}}
      axe.copy %G, %s schedule tma : !axe.tensor<256xf32, global, #axe.layout<(256) : (1)>>, !axe.tensor<256xf32, shared, #axe.layout<(256) : (1) + [(2) : (256)]>>
    }
    return
  }
}

// -----

// One mma.sync sequence serves every warp: an accumulator held by warp 0 alone (the bare C fragment) in a CTA of 2 warps is refused.
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @mma_on_some_warps() {
    axe.kernel grid [1] threads [64] {
      %sa = axe.alloc : !axe.tensor<16x16xf16, shared, #axe.layout<(16, 16) : (16, 1)>>
      %sb = axe.alloc : !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>
      %acc = axe.alloc : !axe.tensor<16x8xf32, register, #axe.layout<(2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)>>
      // expected-error @+1 {{the mma tiling is not the same on every warp}}
      axe.gemm %sa, %sb, %acc : !axe.tensor<16x16xf16, shared, #axe.layout<(16, 16) : (16, 1)>>, !axe.tensor<16x8xf16, shared, #axe.layout<(16, 8) : (8, 1)>>, !axe.tensor<16x8xf32, register, #axe.layout<(2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// A shared tensor's size in bytes must fit 64 bits: an offset of 2^62 f32 elements is refused (no target, whose size check in the verifier would refuse it first).
module {
  func.func @shared_tensor_too_big() {
    axe.kernel grid [1] threads [32] {
      // expected-error @+1 {{cannot lay out this shared tensor: its size in bytes does not fit a 64-bit integer}}
      %s = axe.alloc : !axe.tensor<2xf32, shared, #axe.layout<(2) : (4611686018427387904)>>
    }
    return
  }
}

// -----

// The kernel's shared tensors add up to its shared memory size: 8 tensors of 2^60 bytes each overflow 64 bits (no target, which would refuse each one's size first).
module {
  func.func @shared_total_overflows() {
    // expected-error @+1 {{the kernel's shared memory size overflows a 64-bit integer}}
    axe.kernel grid [1] threads [32] {
      %s0 = axe.alloc : !axe.tensor<2xi8, shared, #axe.layout<(2) : (1152921504606846974)>>
      %s1 = axe.alloc : !axe.tensor<2xi8, shared, #axe.layout<(2) : (1152921504606846974)>>
      %s2 = axe.alloc : !axe.tensor<2xi8, shared, #axe.layout<(2) : (1152921504606846974)>>
      %s3 = axe.alloc : !axe.tensor<2xi8, shared, #axe.layout<(2) : (1152921504606846974)>>
      %s4 = axe.alloc : !axe.tensor<2xi8, shared, #axe.layout<(2) : (1152921504606846974)>>
      %s5 = axe.alloc : !axe.tensor<2xi8, shared, #axe.layout<(2) : (1152921504606846974)>>
      %s6 = axe.alloc : !axe.tensor<2xi8, shared, #axe.layout<(2) : (1152921504606846974)>>
      %s7 = axe.alloc : !axe.tensor<2xi8, shared, #axe.layout<(2) : (1152921504606846974)>>
    }
    return
  }
}

// -----

// A cooperative launch is recorded on the function around the kernel: a cooperative kernel directly in the module has none.
module attributes {axe.target = #axe.target<"sm_90">} {
  // expected-error @+1 {{a cooperative kernel outside any function}}
  axe.kernel grid [1] threads [32] cooperative {
  }
}

// -----

// A mesh's rank and peer tables become arguments of its function: a mesh directly in the module has none.
module attributes {axe.target = #axe.target<"sm_90">} {
  // expected-error @+1 {{an axe.mesh outside a function}}
  axe.mesh [2] {
  }
}

// -----

// ldmatrix fills the registers of every lane of the warp: a destination sliced to lane 0's row of a lane-distributed tensor is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @ldmatrix_pinned_destination() {
    axe.kernel grid [1] threads [32] {
      %s = axe.alloc : !axe.tensor<1x8xf16, shared, #axe.layout<(8) : (1)>>
      %r = axe.alloc : !axe.tensor<4x8xf16, register, #axe.layout<(4, 8) : (1@lane, 1@reg)>>
      %rs = axe.slice %r [0 : 1, 0 : 8] : !axe.tensor<4x8xf16, register, #axe.layout<(4, 8) : (1@lane, 1@reg)>> to !axe.tensor<1x8xf16, register, #axe.layout<(8) : (1@reg)>>
      // expected-error @+1 {{the destination operand (layout (8) : (1@reg)) is a register slice held only by lane 0 of the tensor it is sliced from, but this instruction runs on every lane of the scope with its own registers}}
      axe.copy %s, %rs schedule ldmatrix : !axe.tensor<1x8xf16, shared, #axe.layout<(8) : (1)>>, !axe.tensor<1x8xf16, register, #axe.layout<(8) : (1@reg)>>
    }
    return
  }
}

// -----

// A kernel's allocations are its own: a global axe.alloc of the function, outside the kernel, has no storage there.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @global_alloc_outside_kernel() {
    // expected-error @+1 {{allocation outside the kernel being lowered}}
    %X = axe.alloc : !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>
    axe.kernel grid [1] threads [32] {
      %r = axe.alloc : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
      axe.copy %X, %r : !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>, !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
    }
    return
  }
}

// -----

// An operand's storage is found through the view, allocation or slice that makes it: a tensor carried through a loop (an scf.for block argument) is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @loop_carried_tensor(%buf: memref<32xf32>) {
    %X = axe.view %buf : memref<32xf32> to !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>
    axe.kernel grid [1] threads [32] {
      %r = axe.alloc : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %y = scf.for %i = %c0 to %c2 step %c1 iter_args(%t = %X) -> (!axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>) {
        // expected-error @+1 {{tensor operand is not an axe.view, axe.alloc or axe.slice result}}
        axe.copy %t, %r : !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>, !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
        scf.yield %t : !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>
      }
    }
    return
  }
}

// -----

// A wgmma descriptor addresses each element of A once: a shared A stored twice (a memory replica) is refused.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @wgmma_replicated_a() {
    axe.kernel grid [1] threads [128] {
      %a = axe.alloc : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1) + [(2) : (2048)]>>
      %b = axe.alloc : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>
      %c = axe.alloc : !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
      // expected-error @+1 {{A element (0, 0) is not stored exactly once}}
      axe.gemm %a, %b, %c {transpose_b} : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1) + [(2) : (2048)]>>, !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>, !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
    }
    return
  }
}
