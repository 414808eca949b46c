// Further refusals of convert-axe-to-gpu, each with a located error: flags, elementwise casts
// and unary kinds, copies and reductions between distributed tensors of a mesh, bulk (reducing
// or peer) TMA stores, and TMA tensor maps and boxes.
// RUN: axe-opt %s --convert-axe-to-gpu --split-input-file --verify-diagnostics

// A flag is one address: a layout that replicates the flag over memory is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @flag_replicated(%f: memref<4xi32>, %epoch: i32) {
    %F = axe.view %f : memref<4xi32> to !axe.tensor<1xi32, global, #axe.layout<(1) : (1) + [(2) : (1)]>>
    axe.kernel grid [1] threads [32] {
      // expected-error @+1 {{a flag's layout gives each flag one address (no replicas)}}
      axe.signal %F, %epoch : !axe.tensor<1xi32, global, #axe.layout<(1) : (1) + [(2) : (1)]>>, i32
    }
    return
  }
}

// -----

// A cast between two different float types of one width (f16 and bf16) has no arith cast.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @cast_f16_bf16() {
    axe.kernel grid [1] threads [32] {
      %a = axe.alloc : !axe.tensor<32xf16, register, #axe.layout<(32) : (1@lane)>>
      %b = axe.alloc : !axe.tensor<32xbf16, register, #axe.layout<(32) : (1@lane)>>
      // expected-error @+1 {{'axe.cast' op cannot cast f16 to bf16}}
      axe.cast %a, %b : !axe.tensor<32xf16, register, #axe.layout<(32) : (1@lane)>>, !axe.tensor<32xbf16, register, #axe.layout<(32) : (1@lane)>>
    }
    return
  }
}

// -----

// exp is defined on floating-point elements only.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @exp_integer() {
    axe.kernel grid [1] threads [32] {
      %a = axe.alloc : !axe.tensor<32xi32, register, #axe.layout<(32) : (1@lane)>>
      %b = axe.alloc : !axe.tensor<32xi32, register, #axe.layout<(32) : (1@lane)>>
      // expected-error @+1 {{'axe.unary' op unary kind exp is not defined on i32}}
      axe.unary exp %a, %b : !axe.tensor<32xi32, register, #axe.layout<(32) : (1@lane)>>, !axe.tensor<32xi32, register, #axe.layout<(32) : (1@lane)>>
    }
    return
  }
}

// -----

// Every rank passes its own shard of a distributed tensor: a buffer allocated inside the mesh
// is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @mesh_local_buffer(%ybuf: memref<64xf32>) {
    axe.mesh [4] {
      %xbuf = memref.alloc() : memref<64xf32>
      %X = axe.view %xbuf : memref<64xf32> to !axe.tensor<4x16xf32, global, #axe.layout<(4, 16) : (1@gpuid, 1)>>
      %Y = axe.view %ybuf : memref<64xf32> to !axe.tensor<4x16xf32, global, #axe.layout<(4, 16) : (1@gpuid, 1)>>
      // expected-error @+1 {{a distributed tensor must view a function argument: every rank passes its own shard of that buffer}}
      axe.copy %X, %Y : !axe.tensor<4x16xf32, global, #axe.layout<(4, 16) : (1@gpuid, 1)>>, !axe.tensor<4x16xf32, global, #axe.layout<(4, 16) : (1@gpuid, 1)>>
    }
    return
  }
}

// -----

// In a mesh, distributed tensors live on gpuid and memory: a layout replicated over CTAs is
// refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @mesh_cta_axis(%xbuf: memref<64xf32>, %ybuf: memref<64xf32>) {
    axe.mesh [4] {
      %X = axe.view %xbuf : memref<64xf32> to !axe.tensor<4x16xf32, global, #axe.layout<(4, 16) : (1@gpuid, 1) + [(2) : (1@cta)]>>
      %Y = axe.view %ybuf : memref<64xf32> to !axe.tensor<4x16xf32, global, #axe.layout<(16, 4) : (1, 1@gpuid)>>
      // expected-error @+1 {{the distributed layout (4, 16) : (1@gpuid, 1) + [(2) : (1@cta)] uses axis 'cta'; in a mesh, tensors live on gpuid and m}}
      axe.copy %X, %Y : !axe.tensor<4x16xf32, global, #axe.layout<(4, 16) : (1@gpuid, 1) + [(2) : (1@cta)]>>, !axe.tensor<4x16xf32, global, #axe.layout<(16, 4) : (1, 1@gpuid)>>
    }
    return
  }
}

// -----

// A copy between the devices of a mesh moves whole-byte elements: i4 is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @mesh_copy_i4(%xbuf: memref<64xi4>, %ybuf: memref<64xi4>) {
    axe.mesh [4] {
      %X = axe.view %xbuf : memref<64xi4> to !axe.tensor<4x16xi4, global, #axe.layout<(4, 16) : (1@gpuid, 1)>>
      %Y = axe.view %ybuf : memref<64xi4> to !axe.tensor<4x16xi4, global, #axe.layout<(16, 4) : (1, 1@gpuid)>>
      // expected-error @+1 {{a copy in a mesh moves whole-byte elements}}
      axe.copy %X, %Y : !axe.tensor<4x16xi4, global, #axe.layout<(4, 16) : (1@gpuid, 1)>>, !axe.tensor<4x16xi4, global, #axe.layout<(16, 4) : (1, 1@gpuid)>>
    }
    return
  }
}

// -----

// A mesh reduction sums at most 64 entries of the reduced dimension: 128 are refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @mesh_reduce_extent(%xbuf: memref<8192xf32>, %ybuf: memref<64xf32>) {
    axe.mesh [2] {
      %X = axe.view %xbuf : memref<8192xf32> to !axe.tensor<2x128x32xf32, global, #axe.layout<(2, 128, 32) : (1@gpuid, 32, 1)>>
      %Y = axe.view %ybuf : memref<64xf32> to !axe.tensor<2x32xf32, global, #axe.layout<(2, 32) : (1@gpuid, 1)>>
      // expected-error @+1 {{the reduced dimension has 128 entries; a mesh reduction sums at most 64}}
      axe.reduce sum %X, %Y dims [1] : !axe.tensor<2x128x32xf32, global, #axe.layout<(2, 128, 32) : (1@gpuid, 32, 1)>>, !axe.tensor<2x32xf32, global, #axe.layout<(2, 32) : (1@gpuid, 1)>>
    }
    return
  }
}

// -----

// A mesh reduction places the devices' shards from gpuid 0: a layout offset on gpuid is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @mesh_gpuid_offset(%xbuf: memref<64xf32>, %ybuf: memref<16xf32>) {
    axe.mesh [4] {
      %X = axe.view %xbuf : memref<64xf32> to !axe.tensor<4x16xf32, global, #axe.layout<(4, 16) : (1@gpuid, 1)>>
      %Y = axe.view %ybuf : memref<16xf32> to !axe.tensor<16xf32, global, #axe.layout<(2, 8) : (1@gpuid, 1) + 1@gpuid>>
      // expected-error @+1 {{a gpuid offset in a mesh reduction is not lowered yet}}
      axe.reduce sum %X, %Y dims [0] : !axe.tensor<4x16xf32, global, #axe.layout<(4, 16) : (1@gpuid, 1)>>, !axe.tensor<16xf32, global, #axe.layout<(2, 8) : (1@gpuid, 1) + 1@gpuid>>
    }
    return
  }
}

// -----

// A mesh reduction's source is either sharded or replicated over gpuid, not both.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @mesh_sharded_and_replicated(%xbuf: memref<64xf32>, %ybuf: memref<16xf32>) {
    axe.mesh [4] {
      %X = axe.view %xbuf : memref<64xf32> to !axe.tensor<2x16xf32, global, #axe.layout<(2, 16) : (1@gpuid, 1) + [(2) : (2@gpuid)]>>
      %Y = axe.view %ybuf : memref<16xf32> to !axe.tensor<16xf32, global, #axe.layout<(16) : (1) + [(4) : (1@gpuid)]>>
      // expected-error @+1 {{the source layout (2, 16) : (1@gpuid, 1) + [(2) : (2@gpuid)] is both sharded and replicated over gpuid; not lowered yet}}
      axe.reduce sum %X, %Y dims [0] : !axe.tensor<2x16xf32, global, #axe.layout<(2, 16) : (1@gpuid, 1) + [(2) : (2@gpuid)]>>, !axe.tensor<16xf32, global, #axe.layout<(16) : (1) + [(4) : (1@gpuid)]>>
    }
    return
  }
}

// -----

// A reducing TMA store reads a shared tile at a constant offset: a run-time origin is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_reduce_dynamic_shared(%buf: memref<128xf32> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<128xf32> to !axe.tensor<128xf32, global, #axe.layout<(128) : (1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<256xf32, shared, #axe.layout<(256) : (1)>>
      %c = arith.constant 0 : index
      %w = axe.slice %s [%c : +128] : !axe.tensor<256xf32, shared, #axe.layout<(256) : (1)>> to !axe.tensor<128xf32, shared, #axe.layout<(128) : (1)>>
      // expected-error @+1 {{a TMA copy's shared tile with a run-time offset is not supported}}
      axe.copy %w, %G schedule tma reduce sum : !axe.tensor<128xf32, shared, #axe.layout<(128) : (1)>>, !axe.tensor<128xf32, global, #axe.layout<(128) : (1)>>
    }
    return
  }
}

// -----

// A reducing TMA store has no bound inside a tensor: a destination window that ends at run
// time ('until') is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_reduce_until(%buf: memref<1024xf32> {axe.align = 16 : i64}, %e: index) {
    %G = axe.view %buf : memref<1024xf32> to !axe.tensor<1024xf32, global, #axe.layout<(1024) : (1)>>
    axe.kernel grid [4] threads [128] {
      %o = axe.unit_id cta
      %s = axe.alloc : !axe.tensor<128xf32, shared, #axe.layout<(128) : (1)>>
      %w = axe.slice %G [%o : +128 until %e] : !axe.tensor<1024xf32, global, #axe.layout<(1024) : (1)>> to !axe.tensor<128xf32, global, #axe.layout<(128) : (1)>>
      // expected-error @+1 {{the destination of this TMA copy ends at run time ('until')}}
      axe.copy %s, %w schedule tma reduce sum : !axe.tensor<128xf32, shared, #axe.layout<(128) : (1)>>, !axe.tensor<128xf32, global, #axe.layout<(128) : (1)>>
    }
    return
  }
}

// -----

// A reducing TMA store writes whole runs: a {clip} destination tile is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_reduce_clip(%buf: memref<1000xf32> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<1000xf32> to !axe.tensor<1000xf32, global, #axe.layout<(1000) : (1)>>
    axe.kernel grid [8] threads [128] {
      %o = axe.unit_id cta
      %s = axe.alloc : !axe.tensor<128xf32, shared, #axe.layout<(128) : (1)>>
      %w = axe.slice %G [%o : +128] {clip} : !axe.tensor<1000xf32, global, #axe.layout<(1000) : (1)>> to !axe.tensor<128xf32, global, #axe.layout<(128) : (1)>>
      // expected-error @+1 {{a {clip} tile is not reduced into by TMA (the bulk copy writes whole runs)}}
      axe.copy %s, %w schedule tma reduce sum : !axe.tensor<128xf32, shared, #axe.layout<(128) : (1)>>, !axe.tensor<128xf32, global, #axe.layout<(128) : (1)>>
    }
    return
  }
}

// -----

// A TMA store into a peer's memory moves whole bytes: i4 elements are refused.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @peer_store_i4(%p: memref<256xi4> {axe.align = 16 : i64}) {
    axe.mesh [2] {
      %P = axe.view %p : memref<256xi4> to !axe.tensor<2x128xi4, global, #axe.layout<(2, 128) : (1@gpuid, 1)>>
      axe.kernel grid [1] threads [128] {
        %s = axe.alloc : !axe.tensor<1x128xi4, shared, #axe.layout<(1, 128) : (128, 1)>>
        %there = axe.slice %P [1 : 2, 0 : 128] : !axe.tensor<2x128xi4, global, #axe.layout<(2, 128) : (1@gpuid, 1)>> to !axe.tensor<1x128xi4, global, #axe.layout<(1, 128) : (1@gpuid, 1) + 1@gpuid>>
        // expected-error @+1 {{TMA stores whole bytes: the element type is narrower than a byte}}
        axe.copy %s, %there schedule tma : !axe.tensor<1x128xi4, shared, #axe.layout<(1, 128) : (128, 1)>>, !axe.tensor<1x128xi4, global, #axe.layout<(1, 128) : (1@gpuid, 1) + 1@gpuid>>
      }
    }
    return
  }
}

// -----

// A tensor map needs a contiguous innermost dimension: a source of stride 2 is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_no_contiguous_dim(%buf: memref<512xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<512xf16> to !axe.tensor<256xf16, global, #axe.layout<(256) : (2)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
      // expected-error @+1 {{the TMA source's layout (256) : (2) is not a tensor map: no dimension is contiguous (smallest stride 2)}}
      axe.copy %G, %s schedule tma : !axe.tensor<256xf16, global, #axe.layout<(256) : (2)>>, !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
    }
    return
  }
}

// -----

// A tensor map starts at the memref's base: a source layout with an offset is refused.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_source_offset(%buf: memref<512xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<512xf16> to !axe.tensor<256xf16, global, #axe.layout<(256) : (1) + 256>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
      // expected-error @+1 {{the TMA source's layout (256) : (1) + 256 is not a tensor map: it has an offset (the tensor map starts at the memref's base)}}
      axe.copy %G, %s schedule tma : !axe.tensor<256xf16, global, #axe.layout<(256) : (1) + 256>>, !axe.tensor<256xf16, shared, #axe.layout<(256) : (1)>>
    }
    return
  }
}

// -----

// With the 128-byte swizzle a box row is 64 f16: rows of 32 f16 are no multiple of it.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_short_swizzle_rows(%buf: memref<2048xf16> {axe.align = 16 : i64}) {
    %G = axe.view %buf : memref<2048xf16> to !axe.tensor<64x32xf16, global, #axe.layout<(64, 32) : (32, 1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<3, 3, 3>>
      // expected-error @+1 {{the TMA destination layout (64, 32) : (32, 1) cannot be written by TMA boxes: the contiguous dimension has 32 elements, not a multiple of the swizzle row (64 elements)}}
      axe.copy %G, %s schedule tma : !axe.tensor<64x32xf16, global, #axe.layout<(64, 32) : (32, 1)>>, !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<3, 3, 3>>
    }
    return
  }
}
