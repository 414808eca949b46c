// More refusals of convert-axe-to-gpu, each with a located error, one case per error site of
// the lowering that no other test reaches: reductions, distributed operands of a mesh, thread
// plans, tensor resolution, partial cp.async tiles, shared buffer alignment, tensor maps,
// ldmatrix plans and function boundaries. (The CPU emulation's refusals are in
// convert-axe-to-gpu-errors-emulation.mlir.)
// RUN: axe-opt %s --convert-axe-to-gpu --split-input-file --verify-diagnostics

// A result that is every warp's own must be computed by every warp: warps 0 and 1 of 4 hold the source.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @reduce_some_warps() {
    axe.kernel grid [1] threads [128] {
      %x = axe.alloc : !axe.tensor<2xf32, register, #axe.layout<(2) : (1@warp)>>
      %s = axe.alloc : !axe.tensor<f32, register, #axe.layout<() : ()>>
      // expected-error @+1 {{the result (layout () : ()) is every warp's own, but only some warps of the executing unit compute it from the source (layout (2) : (1@warp))}}
      axe.reduce sum %x, %s dims [0] : !axe.tensor<2xf32, register, #axe.layout<(2) : (1@warp)>>, !axe.tensor<f32, register, #axe.layout<() : ()>>
    }
    return
  }
}

// -----

// A warp-shuffle reduction pairs lanes by xor: a group of 3 lanes (24 threads, every lane taking part) is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @reduce_lanes_not_power_of_two() {
    axe.kernel grid [1] threads [24] {
      %x = axe.alloc : !axe.tensor<3x8xf32, register, #axe.layout<(3, 8) : (1@lane, 3@lane)>>
      %s = axe.alloc : !axe.tensor<8xf32, register, #axe.layout<(8) : (3@lane) + [(3) : (1@lane)]>>
      // expected-error @+1 {{lane iters of layout (3, 8) : (1@lane, 3@lane) are not power-of-two groups; xor shuffles need them}}
      axe.reduce sum %x, %s dims [0] : !axe.tensor<3x8xf32, register, #axe.layout<(3, 8) : (1@lane, 3@lane)>>, !axe.tensor<8xf32, register, #axe.layout<(8) : (3@lane) + [(3) : (1@lane)]>>
    }
    return
  }
}

// -----

// A copy in a mesh is addressed through its operands' layouts: a '?' layout is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @mesh_unknown_layout(%xbuf: memref<64xf32>, %ybuf: memref<64xf32>) {
    axe.mesh [4] {
      %X = axe.view %xbuf : memref<64xf32> to !axe.tensor<4x16xf32, global, ?>
      %Y = axe.view %ybuf : memref<64xf32> to !axe.tensor<4x16xf32, global, #axe.layout<(16, 4) : (1, 1@gpuid)>>
      // expected-error @+1 {{a distributed operand has layout '?': run axe-infer-layout first}}
      axe.copy %X, %Y : !axe.tensor<4x16xf32, global, ?>, !axe.tensor<4x16xf32, global, #axe.layout<(16, 4) : (1, 1@gpuid)>>
    }
    return
  }
}

// -----

// Every operand of a copy in a mesh is a view of a symmetric buffer: a global allocation is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @mesh_operand_not_a_view(%ybuf: memref<64xf32>) {
    %X = axe.alloc : !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>
    axe.mesh [4] {
      %Y = axe.view %ybuf : memref<64xf32> to !axe.tensor<64xf32, global, #axe.layout<(4, 16) : (1@gpuid, 1)>>
      // expected-error @+1 {{a distributed operand must be an axe.view of a function argument (a symmetric buffer every rank passes)}}
      axe.copy %X, %Y : !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>, !axe.tensor<64xf32, global, #axe.layout<(4, 16) : (1@gpuid, 1)>>
    }
    return
  }
}

// -----

// A mesh copies synchronously: an async copy in the body of a mesh (here nested in a kernel) is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @mesh_async_copy(%buf: memref<256xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<256xf16> to !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
      axe.mesh [2] {
        // expected-error @+1 {{an async copy in a mesh is not lowered yet}}
        %t = axe.copy async %G, %s schedule tma : !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>, !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>> -> !axe.token
      }
    }
    return
  }
}

// -----

// A mesh does not lower reducing copies: a reducing TMA store in the body of a mesh (nested in a kernel) is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @mesh_reducing_copy(%buf: memref<256xf32> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<256xf32> to !axe.tensor<256xf32, global, #axe.layout<(256) : (1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<256xf32, shared, #axe.layout<(256) : (1)>>
      axe.mesh [2] {
        // expected-error @+1 {{a reducing copy between distributed tensors of a mesh is not lowered: reduce a shared tile into a peer's tile inside the kernel}}
        axe.copy %s, %G schedule tma reduce sum : !axe.tensor<256xf32, shared, #axe.layout<(256) : (1)>>, !axe.tensor<256xf32, global, #axe.layout<(256) : (1)>>
      }
    }
    return
  }
}

// -----

// A rank finds its destination elements from its gpuid digits: a negative gpuid stride is refused (no target, which would refuse the negative coordinates first).
module {
  func.func @mesh_negative_gpuid_stride(%xbuf: memref<64xf32>, %ybuf: memref<64xf32>) {
    axe.mesh [4] {
      %X = axe.view %xbuf : memref<64xf32> to !axe.tensor<4x16xf32, global, #axe.layout<(4, 16) : (1@gpuid, 1)>>
      %Y = axe.view %ybuf : memref<64xf32> to !axe.tensor<4x16xf32, global, #axe.layout<(4, 16) : (-1@gpuid, 1)>>
      // expected-error @+1 {{the destination layout (4, 16) : (-1@gpuid, 1) has a negative gpuid stride}}
      axe.copy %X, %Y : !axe.tensor<4x16xf32, global, #axe.layout<(4, 16) : (1@gpuid, 1)>>, !axe.tensor<4x16xf32, global, #axe.layout<(4, 16) : (-1@gpuid, 1)>>
    }
    return
  }
}

// -----

// A register slice of a lane-distributed tensor is held by lane 0: a thread scope, which spans no lanes, cannot address it.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @pinned_lane_at_thread_scope(%buf: memref<1xf32>) {
    %G = axe.view %buf : memref<1xf32> to !axe.tensor<1xf32, global, #axe.layout<(1) : (1)>>
    axe.kernel grid [1] threads [32] {
      %r = axe.alloc : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
      %s = axe.slice %r [0 : 1] : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>> to !axe.tensor<1xf32, register, #axe.layout<() : ()>>
      axe.scope thread {
        // expected-error @+1 {{layout () : () uses axis 'lane', which the executing scope does not span}}
        axe.copy %G, %s : !axe.tensor<1xf32, global, #axe.layout<(1) : (1)>>, !axe.tensor<1xf32, register, #axe.layout<() : ()>>
      }
    }
    return
  }
}

// -----

// A thread finds its elements by the digits of its lane: a negative lane stride is no digit system.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @negative_lane_stride(%buf: memref<4xf32>) {
    %G = axe.view %buf : memref<4xf32> to !axe.tensor<4xf32, global, #axe.layout<(4) : (1)>>
    axe.kernel grid [1] threads [32] {
      %r = axe.alloc : !axe.tensor<4xf32, register, #axe.layout<(4) : (-1@lane) + 3@lane>>
      // expected-error @+1 {{layout (4) : (-1@lane) + 3@lane: the iters on axis 'lane' overlap or have negative strides (not a digit system)}}
      axe.copy %G, %r : !axe.tensor<4xf32, global, #axe.layout<(4) : (1)>>, !axe.tensor<4xf32, register, #axe.layout<(4) : (-1@lane) + 3@lane>>
    }
    return
  }
}

// -----

// A CTA of 16 threads has 16 lanes: a layout over 32 lanes reaches lanes that do not exist.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @lanes_past_the_cta(%buf: memref<32xf32>) {
    %G = axe.view %buf : memref<32xf32> to !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>
    axe.kernel grid [1] threads [16] {
      %r = axe.alloc : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
      // expected-error @+1 {{layout (32) : (1@lane) reaches lane 31 but the executing scope spans 16}}
      axe.copy %G, %r : !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>, !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
    }
    return
  }
}

// -----

// arith has no cast between two different float types of one width: f8E4M3FN to f8E5M2 is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @cast_fp8_kinds() {
    axe.kernel grid [1] threads [32] {
      %a = axe.alloc : !axe.tensor<32xf8E4M3FN, register, #axe.layout<(32) : (1@lane)>>
      %b = axe.alloc : !axe.tensor<32xf8E5M2, register, #axe.layout<(32) : (1@lane)>>
      // expected-error @+1 {{cannot cast f8E4M3FN to f8E5M2}}
      axe.cast %a, %b : !axe.tensor<32xf8E4M3FN, register, #axe.layout<(32) : (1@lane)>>, !axe.tensor<32xf8E5M2, register, #axe.layout<(32) : (1@lane)>>
    }
    return
  }
}

// -----

// setmaxnreg is sm_90a's: a module without a target (no GPU named) cannot use it.
module {
  func.func @set_max_registers_no_target() {
    axe.kernel grid [1] threads [128] {
      axe.scope warpgroup {
        // expected-error @+1 {{needs setmaxnreg (sm_90a); the module targets no GPU}}
        axe.set_max_registers 40
      }
    }
    return
  }
}

// -----

// One CTA per launch block: a slice of the clusters is not lowered.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @cluster_slice() {
    axe.kernel grid [2] threads [32] cluster [2] {
      // expected-error @+1 {{a slice of cluster scopes is not lowered (a kernel runs one CTA per launch block)}}
      axe.scope cluster [0 : 1] {
      }
    }
    return
  }
}

// -----

// Only global, shared and register tensors are lowered to gpu: an sbuf tensor is refused (no target, which would refuse sbuf on a GPU first).
module {
  func.func @sbuf_operand() {
    %x = axe.alloc : !axe.tensor<32xf32, sbuf, #axe.layout<(32) : (1)>>
    axe.kernel grid [1] threads [32] {
      %r = axe.alloc : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
      // expected-error @+1 {{tensors in memory scope 'sbuf' are not lowered to gpu}}
      axe.copy %x, %r : !axe.tensor<32xf32, sbuf, #axe.layout<(32) : (1)>>, !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
    }
    return
  }
}

// -----

// A global tensor lives on memory (and gpuid) only: one replicated over CTAs is refused in a kernel.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @global_on_cta_axis(%buf: memref<32xf32>) {
    %G = axe.view %buf : memref<32xf32> to !axe.tensor<32xf32, global, #axe.layout<(32) : (1) + [(2) : (1@cta)]>>
    axe.kernel grid [2] threads [32] {
      %r = axe.alloc : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
      // expected-error @+1 {{layout (32) : (1) + [(2) : (1@cta)] of a global tensor uses axis 'cta'; convert-axe-to-gpu lowers global tensors on axes m, gpuid only}}
      axe.copy %G, %r : !axe.tensor<32xf32, global, #axe.layout<(32) : (1) + [(2) : (1@cta)]>>, !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
    }
    return
  }
}

// -----

// A tensor on gpuid is addressed through its buffer's peer table: a view replicated over the devices has none in a kernel.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @replicated_view_in_kernel(%buf: memref<32xf32>) {
    axe.mesh [2] {
      // expected-error @+1 {{layout (32) : (1) + [(2) : (1@gpuid)] distributes this tensor over devices (gpuid): view it inside an axe.mesh, of a function argument}}
      %G = axe.view %buf : memref<32xf32> to !axe.tensor<32xf32, global, #axe.layout<(32) : (1) + [(2) : (1@gpuid)]>>
      axe.kernel grid [1] threads [32] {
        %r = axe.alloc : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
        axe.copy %G, %r : !axe.tensor<32xf32, global, #axe.layout<(32) : (1) + [(2) : (1@gpuid)]>>, !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
      }
    }
    return
  }
}

// -----

// A run-time origin moves through memory: a register tensor tiled on registers cannot be sliced at one.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @register_slice_run_time_origin(%i: index) {
    axe.kernel grid [1] threads [32] {
      %r = axe.alloc : !axe.tensor<4x32xf32, register, #axe.layout<(4, 32) : (1@reg, 1@lane)>>
      // expected-error @+1 {{run-time origins address memory, but layout (4, 32) : (1@reg, 1@lane) tiles dimension 0 on axis 'reg'}}
      %s = axe.slice %r [%i : +1, 0 : 32] : !axe.tensor<4x32xf32, register, #axe.layout<(4, 32) : (1@reg, 1@lane)>> to !axe.tensor<1x32xf32, register, #axe.layout<(32) : (1@lane)>>
      %d = axe.alloc : !axe.tensor<1x32xf32, register, #axe.layout<(32) : (1@lane)>>
      axe.copy %s, %d : !axe.tensor<1x32xf32, register, #axe.layout<(32) : (1@lane)>>, !axe.tensor<1x32xf32, register, #axe.layout<(32) : (1@lane)>>
    }
    return
  }
}

// -----

// cp.async zero-fills the tail of one access: a 16-byte access across rows (2 f32 each) of a clipped tile would cut a row bound.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @cp_async_straddles_bound(%x: memref<18xf32> {axe.align = 16 : i64}) {
    %X = axe.view %x : memref<18xf32> to !axe.tensor<9x2xf32, global, #axe.layout<(9, 2) : (2, 1)>>
    axe.kernel grid [3] threads [32] {
      %c = axe.unit_id cta
      %c4 = arith.constant 4 : index
      %o = arith.muli %c, %c4 : index
      %t = axe.slice %X [%o : +4, 0 : 2] {clip} : !axe.tensor<9x2xf32, global, #axe.layout<(9, 2) : (2, 1)>> to !axe.tensor<4x2xf32, global, #axe.layout<(8) : (1)>>
      %s = axe.alloc : !axe.tensor<4x2xf32, shared, #axe.layout<(8) : (1)>>
      // expected-error @+1 {{cp.async accesses of 16 bytes would straddle the bound of dimension 0 of the partial source tile (shape [4, 2]); copy through registers}}
      axe.copy %t, %s schedule cp_async : !axe.tensor<4x2xf32, global, #axe.layout<(8) : (1)>>, !axe.tensor<4x2xf32, shared, #axe.layout<(8) : (1)>>
    }
    return
  }
}

// -----

// A wgmma descriptor's swizzle needs an aligned buffer: a shared view of a function argument has no known alignment.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @wgmma_shared_argument(%abuf: memref<2048xf16, 3>) {
    %a = axe.view %abuf : memref<2048xf16, 3> to !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>
    axe.kernel grid [1] threads [128] {
      %b = axe.alloc : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>
      %c = axe.alloc : !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
      // expected-error @+1 {{the operand's shared buffer is a block argument; its alignment is unknown}}
      axe.gemm %a, %b, %c {transpose_b} : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>, !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>, !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// Above 48 KiB shared tensors live in dynamic shared memory: a TMA destination 16 bytes into it is not 128-byte aligned.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_dynamic_shared_offset(%buf: memref<256xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<256xf16> to !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>
    axe.kernel grid [1] threads [128] {
      %pad = axe.alloc : !axe.tensor<8xf16, shared, #axe.layout<(8) : (1)>>
      %s = axe.alloc : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
      %big = axe.alloc : !axe.tensor<24576xf16, shared, #axe.layout<(24576) : (1)>>
      // expected-error @+1 {{an operand in dynamic shared memory that the hardware swizzles or bulk-copies must start at a constant multiple of}}
      axe.copy %G, %s schedule tma : !axe.tensor<256xf16, global, #axe.layout<(256) : (1)>>, !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
    }
    return
  }
}

// -----

// A wgmma descriptor's swizzle needs an aligned buffer: a shared view of a memref.alloca has no known alignment.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @wgmma_shared_alloca() {
    axe.kernel grid [1] threads [128] {
      %abuf = memref.alloca() : memref<2048xf16, 3>
      %a = axe.view %abuf : memref<2048xf16, 3> to !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>
      %b = axe.alloc : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>
      %c = axe.alloc : !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
      // expected-error @+1 {{the operand's shared buffer comes from 'memref.alloca'; its alignment is unknown}}
      axe.gemm %a, %b, %c {transpose_b} : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>, !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>, !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// A tensor map dimension holds at most 2^32 elements: a source viewing 2^33 bytes is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_dimension_too_long(%buf: memref<8589934592xi8> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<8589934592xi8> to !axe.tensor<8589934592xi8, global, #axe.layout<(8589934592) : (1)>>
    axe.kernel grid [1] threads [128] {
      %g = axe.slice %G [0 : 256] : !axe.tensor<8589934592xi8, global, #axe.layout<(8589934592) : (1)>> to !axe.tensor<256xi8, global, #axe.layout<(256) : (1)>>
      %s = axe.alloc : !axe.tensor<256xi8, shared, #axe.layout<(256) : (1)>>
      // expected-error @+1 {{is not a tensor map: dimension 0 has 8589934592 elements (at most 2^32)}}
      axe.copy %g, %s schedule tma : !axe.tensor<256xi8, global, #axe.layout<(256) : (1)>>, !axe.tensor<256xi8, shared, #axe.layout<(256) : (1)>>
    }
    return
  }
}

// -----

// ldmatrix fills a lane's registers two at a time: one register per lane is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @ldmatrix_odd_registers() {
    axe.kernel grid [1] threads [32] {
      %s = axe.alloc : !axe.tensor<32xf16, shared, #axe.layout<(32) : (1)>>
      %r = axe.alloc : !axe.tensor<32xf16, register, #axe.layout<(32) : (1@lane)>>
      // expected-error @+1 {{each thread holds 1 registers; ldmatrix fills them in pairs}}
      axe.copy %s, %r schedule ldmatrix : !axe.tensor<32xf16, shared, #axe.layout<(32) : (1)>>, !axe.tensor<32xf16, register, #axe.layout<(32) : (1@lane)>>
    }
    return
  }
}

// -----

// ldmatrix rows are addressed by lane bits: rows stored 3-by-8 transposed (row i at 8 (i % 3) + i / 3) are no affine function of them.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @ldmatrix_rows_not_affine() {
    axe.kernel grid [1] threads [32] {
      %s = axe.alloc : !axe.tensor<24x8xf16, shared, #axe.layout<(8, 3, 8) : (8, 64, 1)>>
      %r = axe.alloc : !axe.tensor<24x8xf16, register, #axe.layout<(3, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)>>
      // expected-error @+1 {{the row lane 1 of warp 0 must address is not an affine function of the lane's and warp's bits}}
      axe.copy %s, %r schedule ldmatrix : !axe.tensor<24x8xf16, shared, #axe.layout<(8, 3, 8) : (8, 64, 1)>>, !axe.tensor<24x8xf16, register, #axe.layout<(3, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// A returned tensor is viewed again after the call: a call at the end of a mesh's body (no terminator) has no place for that view.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func private @make() -> !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>
  func.func @call_at_end_of_block() {
    axe.mesh [2] {
      // expected-error @+1 {{a func.call at the end of its block (no terminator after it)}}
      %t = func.call @make() : () -> !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>
    }
    return
  }
}
