// Every verifier error of the scoped tensor ops, each with its location.
// RUN: axe-opt %s --split-input-file --verify-diagnostics

// Scopes.

func.func @kernel_threads() {
  // expected-error @+1 {{'axe.kernel' op a CTA has at most 1024 threads, got 2048}}
  axe.kernel grid [1] threads [2048] {
  }
  return
}

// -----

func.func @kernel_grid() {
  // expected-error @+1 {{'axe.kernel' op grid sizes must be positive, got 0}}
  axe.kernel grid [0] threads [32] {
  }
  return
}

// -----

func.func @kernel_nest() {
  axe.kernel grid [1] threads [32] {
    // expected-error @+1 {{'axe.kernel' op kernels cannot nest}}
    axe.kernel grid [1] threads [32] {
    }
  }
  return
}

// -----

module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @cluster_sm80() {
    // expected-error @+1 {{'axe.kernel' op launch exceeds the limits of 'sm_80': 'sm_80' has no thread-block clusters}}
    axe.kernel grid [2] threads [32] cluster [2] {
    }
    return
  }
}

// -----

func.func @scope_outside_kernel() {
  // expected-error @+1 {{'axe.scope' op must be nested in an axe.kernel}}
  axe.scope warp {
  }
  return
}

// -----

func.func @scope_order() {
  axe.kernel grid [1] threads [128] {
    axe.scope warp {
      // expected-error @+1 {{'axe.scope' op a cta scope cannot be nested in a warp scope}}
      axe.scope cta {
      }
    }
  }
  return
}

// -----

func.func @scope_slice_bounds() {
  axe.kernel grid [1] threads [128] {
    // expected-error @+1 {{'axe.scope' op scope slice [2 : 8] exceeds the 4 warp(s) of the kernel}}
    axe.scope warp [2 : 8] {
    }
  }
  return
}

// -----

func.func @scope_slice_empty() {
  axe.kernel grid [1] threads [128] {
    // expected-error @+1 {{'axe.scope' op scope slice [3 : 3] must satisfy 0 <= lo < hi}}
    axe.scope warp [3 : 3] {
    }
  }
  return
}

// -----

func.func @mesh_size() {
  // expected-error @+1 {{'axe.mesh' op mesh sizes must be positive, got 0}}
  axe.mesh [0] {
  }
  return
}

// -----

// Memory scopes and targets.
func.func @shared_outside_kernel() {
  // expected-error @+1 {{'axe.alloc' op a shared tensor can only be allocated inside an axe.kernel}}
  %a = axe.alloc : !axe.tensor<16xf16, shared, ?>
  return
}

// -----

module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @sbuf_on_gpu() {
    // expected-error @+1 {{'axe.alloc' op target 'sm_90' has no sbuf memory}}
    %a = axe.alloc : !axe.tensor<128x4xf16, sbuf, ?>
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tmem_on_hopper() {
    axe.kernel grid [1] threads [128] {
      // expected-error @+1 {{'axe.alloc' op target 'sm_90' has no tmem memory}}
      %a = axe.alloc : !axe.tensor<128x4xf32, tmem, ?>
    }
    return
  }
}

// -----

// expected-error @+1 {{unknown Axe target 'sm_42' (known: sm_80, sm_90, sm_90a, sm_100, trn1)}}
module attributes {axe.target = #axe.target<"sm_42">} {
}

// -----

module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @axis_missing() {
    axe.kernel grid [1] threads [128] {
      // expected-error @+1 {{'axe.alloc' op result #0 has layout #axe.layout<(128, 4) : (1@P, 1@F)> that does not fit target 'sm_80': axis 'F' does not exist on sm_80}}
      %a = axe.alloc : !axe.tensor<128x4xf32, register, #axe.layout<(128, 4) : (1@P, 1@F)>>
    }
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @lane_bound() {
    axe.kernel grid [1] threads [128] {
      // expected-error @+1 {{axis 'lane' reaches coordinate 63, beyond its bound 32}}
      %a = axe.alloc : !axe.tensor<64xf32, register, #axe.layout<(64) : (1@lane)>>
    }
    return
  }
}

// -----

// The warp bound comes from the kernel: 128 threads are 4 warps; the tile reaches warp 10.
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @warp_bound() {
    axe.kernel grid [1] threads [128] {
      // expected-error @+1 {{axis 'warp' reaches coordinate 10, beyond its bound 4}}
      %t = axe.alloc : !axe.tensor<8x16xf16, register, #axe.layout<(8, 2, 4, 2) : (4@lane, 1@warp, 1@lane, 1@reg) + [(2) : (4@warp)] + 5@warp>>
    }
    return
  }
}

// -----

// The gpuid bound comes from the mesh.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @gpuid_bound() {
    axe.mesh [4] {
      // expected-error @+1 {{axis 'gpuid' reaches coordinate 7, beyond its bound 4}}
      %w = axe.alloc : !axe.tensor<8x16xf16, global, #axe.layout<(8, 16) : (1@gpuid, 1)>>
    }
    return
  }
}

// -----

// A distributed tensor is used only inside a device mesh.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @gpuid_outside_mesh() {
    // expected-error @+1 {{the layout distributes over devices (gpuid), but the tensor is used outside an axe.mesh}}
    %w = axe.alloc : !axe.tensor<8x16xf16, global, #axe.layout<(8, 16) : (1@gpuid, 1)>>
    return
  }
}

// -----

// A thread sees only its own registers: a lane-distributed tensor cannot be used at thread scope.
func.func @register_thread_scope() {
  axe.kernel grid [1] threads [32] {
    %z = arith.constant 0.0 : f32
    %r = axe.alloc : !axe.tensor<32x2xf32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>
    axe.scope thread {
      // expected-error @+1 {{'axe.fill' op cannot use register tensor (operand #0) with layout #axe.layout<(32, 2) : (1@lane, 1@reg)> at thread scope: its layout uses axis 'lane', but a thread unit only spans reg}}
      axe.fill %r, %z : !axe.tensor<32x2xf32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>, f32
    }
  }
  return
}

// -----

// A warpgroup spans 4 warps; the tensor spreads over 8.
func.func @register_warpgroup_scope() {
  axe.kernel grid [1] threads [256] {
    %z = arith.constant 0.0 : f32
    %r = axe.alloc : !axe.tensor<8x32xf32, register, #axe.layout<(8, 32) : (1@warp, 1@lane)>>
    axe.scope warpgroup {
      // expected-error @+1 {{axis 'warp' reaches 7, but a warpgroup unit spans 4}}
      axe.fill %r, %z : !axe.tensor<8x32xf32, register, #axe.layout<(8, 32) : (1@warp, 1@lane)>>, f32
    }
  }
  return
}

// -----

// Operators: shapes and element types.
func.func @copy_shape(%a: !axe.tensor<16xf16, global, ?>, %b: !axe.tensor<32xf16, global, ?>) {
  // expected-error @+1 {{'axe.copy' op source and destination shapes differ}}
  axe.copy %a, %b : !axe.tensor<16xf16, global, ?>, !axe.tensor<32xf16, global, ?>
  return
}

// -----

func.func @copy_dtype(%a: !axe.tensor<16xf16, global, ?>, %b: !axe.tensor<16xf32, global, ?>) {
  // expected-error @+1 {{'axe.copy' op copy cannot change the element type (from 'f16' to 'f32'); use axe.cast}}
  axe.copy %a, %b : !axe.tensor<16xf16, global, ?>, !axe.tensor<16xf32, global, ?>
  return
}

// -----

func.func @copy_cp_async(%a: !axe.tensor<16xf16, global, ?>, %b: !axe.tensor<16xf16, global, ?>) {
  // expected-error @+1 {{'axe.copy' op cp_async copies global to shared memory, not global to global}}
  axe.copy %a, %b schedule cp_async : !axe.tensor<16xf16, global, ?>, !axe.tensor<16xf16, global, ?>
  return
}

// -----

module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @copy_tma_sm80(%a: !axe.tensor<16xf16, global, ?>) {
    axe.kernel grid [1] threads [32] {
      %s = axe.alloc : !axe.tensor<16xf16, shared, ?>
      // expected-error @+1 {{'axe.copy' op tma needs sm_90 or newer, target is 'sm_80'}}
      axe.copy %a, %s schedule tma : !axe.tensor<16xf16, global, ?>, !axe.tensor<16xf16, shared, ?>
    }
    return
  }
}

// -----

func.func @copy_tma_thread(%a: !axe.tensor<16xf16, global, ?>) {
  axe.kernel grid [1] threads [32] {
    %s = axe.alloc : !axe.tensor<16xf16, shared, ?>
    axe.scope thread {
      // expected-error @+1 {{'axe.copy' op a tma copy cannot execute at thread scope}}
      axe.copy %a, %s schedule tma : !axe.tensor<16xf16, global, ?>, !axe.tensor<16xf16, shared, ?>
    }
  }
  return
}

// -----

func.func @copy_ldmatrix(%a: !axe.tensor<16xf16, global, ?>) {
  axe.kernel grid [1] threads [32] {
    %r = axe.alloc : !axe.tensor<16xf16, register, ?>
    // expected-error @+1 {{'axe.copy' op ldmatrix copies shared memory to registers, not global to register}}
    axe.copy %a, %r schedule ldmatrix : !axe.tensor<16xf16, global, ?>, !axe.tensor<16xf16, register, ?>
  }
  return
}

// -----

func.func @copy_async_regs(%a: !axe.tensor<16xf16, global, ?>) {
  axe.kernel grid [1] threads [32] {
    %r = axe.alloc : !axe.tensor<16xf16, register, ?>
    // expected-error @+1 {{'axe.copy' op async copies move data between global and shared memory}}
    %t = axe.copy async %a, %r : !axe.tensor<16xf16, global, ?>, !axe.tensor<16xf16, register, ?> -> !axe.token
  }
  return
}

// -----

func.func @copy_async_token(%a: !axe.tensor<16xf16, global, ?>, %b: !axe.tensor<16xf16, global, ?>) {
  // expected-error @+1 {{'axe.copy' op an async copy returns exactly one token, and only an async copy does}}
  %t = "axe.copy"(%a, %b) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (!axe.tensor<16xf16, global, ?>, !axe.tensor<16xf16, global, ?>) -> !axe.token
  return
}

// -----

func.func @gemm_async_token(%a: !axe.tensor<16x16xf16, global, ?>, %b: !axe.tensor<16x8xf16, global, ?>, %c: !axe.tensor<16x8xf32, global, ?>) {
  // expected-error @+1 {{'axe.gemm' op an async gemm returns exactly one token, and only an async gemm does}}
  %t = "axe.gemm"(%a, %b, %c) : (!axe.tensor<16x16xf16, global, ?>, !axe.tensor<16x8xf16, global, ?>, !axe.tensor<16x8xf32, global, ?>) -> !axe.token
  return
}

// -----

func.func @copy_after_not_tma(%a: !axe.tensor<16xf16, global, ?>) {
  axe.kernel grid [1] threads [32] {
    %s = axe.alloc : !axe.tensor<16xf16, shared, ?>
    %r = axe.arrive
    // expected-error @+1 {{'axe.copy' op only a tma copy is ordered after an axe.arrive}}
    %t = axe.copy async %a, %s schedule cp_async after %r : !axe.tensor<16xf16, global, ?>, !axe.tensor<16xf16, shared, ?> -> !axe.token
  }
  return
}

// -----

func.func @copy_shared_outside(%a: !axe.tensor<16xf16, global, ?>, %s: !axe.tensor<16xf16, shared, ?>) {
  // expected-error @+1 {{'axe.copy' op copies shared or register memory and must be inside an axe.kernel}}
  axe.copy %a, %s : !axe.tensor<16xf16, global, ?>, !axe.tensor<16xf16, shared, ?>
  return
}

// -----

func.func @fill_type(%a: !axe.tensor<16xf16, global, ?>) {
  %z = arith.constant 0.0 : f32
  // expected-error @+1 {{'axe.fill' op fill value type 'f32' differs from the tensor's element type 'f16'}}
  axe.fill %a, %z : !axe.tensor<16xf16, global, ?>, f32
  return
}

// -----

func.func @gemm_k(%a: !axe.tensor<16x32xf16, global, ?>, %b: !axe.tensor<16x8xf16, global, ?>, %c: !axe.tensor<16x8xf32, global, ?>) {
  // expected-error @+1 {{'axe.gemm' op contraction sizes differ: A has K = 32, B has K = 16}}
  axe.gemm %a, %b, %c : !axe.tensor<16x32xf16, global, ?>, !axe.tensor<16x8xf16, global, ?>, !axe.tensor<16x8xf32, global, ?>
  return
}

// -----

func.func @gemm_transpose(%a: !axe.tensor<32x16xf16, global, ?>, %b: !axe.tensor<32x8xf16, global, ?>, %c: !axe.tensor<16x16xf32, global, ?>) {
  // expected-error @+1 {{'axe.gemm' op C must be 16x8, got 16x16}}
  axe.gemm %a, %b, %c {transpose_a} : !axe.tensor<32x16xf16, global, ?>, !axe.tensor<32x8xf16, global, ?>, !axe.tensor<16x16xf32, global, ?>
  return
}

// -----

func.func @gemm_rank(%a: !axe.tensor<16xf16, global, ?>, %b: !axe.tensor<16x8xf16, global, ?>, %c: !axe.tensor<16x8xf32, global, ?>) {
  // expected-error @+1 {{'axe.gemm' op operands must be 2-D}}
  axe.gemm %a, %b, %c : !axe.tensor<16xf16, global, ?>, !axe.tensor<16x8xf16, global, ?>, !axe.tensor<16x8xf32, global, ?>
  return
}

// -----

func.func @gemm_dtype(%a: !axe.tensor<16x16xf16, global, ?>, %b: !axe.tensor<16x8xbf16, global, ?>, %c: !axe.tensor<16x8xf32, global, ?>) {
  // expected-error @+1 {{'axe.gemm' op A and B element types differ: 'f16' vs 'bf16'}}
  axe.gemm %a, %b, %c : !axe.tensor<16x16xf16, global, ?>, !axe.tensor<16x8xbf16, global, ?>, !axe.tensor<16x8xf32, global, ?>
  return
}

// -----

func.func @gemm_acc(%a: !axe.tensor<16x16xf32, global, ?>, %b: !axe.tensor<16x8xf32, global, ?>, %c: !axe.tensor<16x8xf16, global, ?>) {
  // expected-error @+1 {{'axe.gemm' op the accumulator type 'f16' is narrower than the inputs' 'f32'}}
  axe.gemm %a, %b, %c : !axe.tensor<16x16xf32, global, ?>, !axe.tensor<16x8xf32, global, ?>, !axe.tensor<16x8xf16, global, ?>
  return
}

// -----

func.func @gemm_thread(%a: !axe.tensor<16x16xf16, global, ?>, %b: !axe.tensor<16x8xf16, global, ?>, %c: !axe.tensor<16x8xf32, global, ?>) {
  axe.kernel grid [1] threads [32] {
    axe.scope thread {
      // expected-error @+1 {{'axe.gemm' op a gemm needs at least a warp to execute; it cannot run at thread scope}}
      axe.gemm %a, %b, %c : !axe.tensor<16x16xf16, global, ?>, !axe.tensor<16x8xf16, global, ?>, !axe.tensor<16x8xf32, global, ?>
    }
  }
  return
}

// -----

func.func @binary_broadcast(%a: !axe.tensor<4x8xf32, global, ?>, %b: !axe.tensor<2x8xf32, global, ?>) {
  // expected-error @+1 {{'axe.binary' op rhs dimension 0 of size 2 does not broadcast to 4}}
  axe.binary add %a, %b, %a : !axe.tensor<4x8xf32, global, ?>, !axe.tensor<2x8xf32, global, ?>, !axe.tensor<4x8xf32, global, ?>
  return
}

// -----

func.func @binary_fastmath_on_integers(%a: !axe.tensor<4x8xi32, global, ?>) {
  // expected-error @+1 {{'axe.binary' op fastmath flags apply to float elements, not 'i32'}}
  axe.binary mul %a, %a, %a {fastmath = #arith.fastmath<contract>} : !axe.tensor<4x8xi32, global, ?>, !axe.tensor<4x8xi32, global, ?>, !axe.tensor<4x8xi32, global, ?>
  return
}

// -----

func.func @binary_fastmath_not_flags(%a: !axe.tensor<4x8xf32, global, ?>) {
  // expected-error @+1 {{'axe.binary' op attribute 'fastmath' failed to satisfy constraint: arith fastmath flags}}
  axe.binary mul %a, %a, %a {fastmath = 1 : i32} : !axe.tensor<4x8xf32, global, ?>, !axe.tensor<4x8xf32, global, ?>, !axe.tensor<4x8xf32, global, ?>
  return
}

// -----

func.func @binary_rank(%a: !axe.tensor<4x8xf32, global, ?>, %b: !axe.tensor<8xf32, global, ?>) {
  // expected-error @+1 {{'axe.binary' op rhs has rank 1 but the destination has rank 2}}
  axe.binary add %a, %b, %a : !axe.tensor<4x8xf32, global, ?>, !axe.tensor<8xf32, global, ?>, !axe.tensor<4x8xf32, global, ?>
  return
}

// -----

func.func @binary_dtype(%a: !axe.tensor<4xf32, global, ?>, %b: !axe.tensor<4xf16, global, ?>) {
  // expected-error @+1 {{'axe.binary' op operand element types must equal the destination's; use axe.cast}}
  axe.binary mul %a, %b, %a : !axe.tensor<4xf32, global, ?>, !axe.tensor<4xf16, global, ?>, !axe.tensor<4xf32, global, ?>
  return
}

// -----

func.func @unary_shape(%a: !axe.tensor<4xf32, global, ?>, %b: !axe.tensor<8xf32, global, ?>) {
  // expected-error @+1 {{'axe.unary' op source and destination shapes differ}}
  axe.unary exp %a, %b : !axe.tensor<4xf32, global, ?>, !axe.tensor<8xf32, global, ?>
  return
}

// -----

func.func @unary_dtype(%a: !axe.tensor<4xf32, global, ?>, %b: !axe.tensor<4xf16, global, ?>) {
  // expected-error @+1 {{'axe.unary' op element types differ; use axe.cast}}
  axe.unary exp %a, %b : !axe.tensor<4xf32, global, ?>, !axe.tensor<4xf16, global, ?>
  return
}

// -----

func.func @cast_shape(%a: !axe.tensor<4xf32, global, ?>, %b: !axe.tensor<8xf16, global, ?>) {
  // expected-error @+1 {{'axe.cast' op source and destination shapes differ}}
  axe.cast %a, %b : !axe.tensor<4xf32, global, ?>, !axe.tensor<8xf16, global, ?>
  return
}

// -----

func.func @reduce_dims(%a: !axe.tensor<4x8xf32, global, ?>, %b: !axe.tensor<4xf32, global, ?>) {
  // expected-error @+1 {{'axe.reduce' op dimension 2 is out of range for rank 2}}
  axe.reduce sum %a, %b dims [2] : !axe.tensor<4x8xf32, global, ?>, !axe.tensor<4xf32, global, ?>
  return
}

// -----

func.func @reduce_twice(%a: !axe.tensor<4x8xf32, global, ?>, %b: !axe.tensor<4xf32, global, ?>) {
  // expected-error @+1 {{'axe.reduce' op dimension 1 is listed twice}}
  axe.reduce sum %a, %b dims [1, 1] : !axe.tensor<4x8xf32, global, ?>, !axe.tensor<4xf32, global, ?>
  return
}

// -----

func.func @reduce_shape(%a: !axe.tensor<4x8xf32, global, ?>, %b: !axe.tensor<8xf32, global, ?>) {
  // expected-error @+1 {{'axe.reduce' op destination shape must be the source's with the reduced dimensions removed or kept as 1}}
  axe.reduce max %a, %b dims [1] : !axe.tensor<4x8xf32, global, ?>, !axe.tensor<8xf32, global, ?>
  return
}

// -----

func.func @reduce_none(%a: !axe.tensor<4x8xf32, global, ?>) {
  // expected-error @+1 {{'axe.reduce' op needs at least one dimension to reduce}}
  axe.reduce max %a, %a dims [] : !axe.tensor<4x8xf32, global, ?>, !axe.tensor<4x8xf32, global, ?>
  return
}

// -----

func.func @convert_scope(%a: !axe.tensor<4xf32, global, ?>) {
  axe.kernel grid [1] threads [32] {
    %s = axe.alloc : !axe.tensor<4xf32, shared, ?>
    // expected-error @+1 {{'axe.convert_layout' op only the layout may change (element type and memory scope must match)}}
    axe.convert_layout %a, %s : !axe.tensor<4xf32, global, ?>, !axe.tensor<4xf32, shared, ?>
  }
  return
}

// -----

// Slices.
func.func @slice_bounds(%a: !axe.tensor<64x64xf16, global, ?>) {
  // expected-error @+1 {{'axe.slice' op region [32 : 96] of dimension 1 is out of bounds for size 64}}
  %s = axe.slice %a [0 : 16, 32 : 96] : !axe.tensor<64x64xf16, global, ?> to !axe.tensor<16x64xf16, global, ?>
  return
}

// -----

func.func @slice_rank(%a: !axe.tensor<64x64xf16, global, ?>) {
  // expected-error @+1 {{'axe.slice' op region has 1 dimensions but the source has rank 2}}
  %s = axe.slice %a [0 : 16] : !axe.tensor<64x64xf16, global, ?> to !axe.tensor<16xf16, global, ?>
  return
}

// -----

func.func @slice_shape(%a: !axe.tensor<64x64xf16, global, ?>) {
  // expected-error @+1 {{'axe.slice' op result shape must be the region's shape}}
  %s = axe.slice %a [0 : 16, 0 : 16] : !axe.tensor<64x64xf16, global, ?> to !axe.tensor<16x32xf16, global, ?>
  return
}

// -----

func.func @slice_scope(%a: !axe.tensor<64x64xf16, global, ?>) {
  // expected-error @+1 {{'axe.slice' op result must keep the source's element type and memory scope}}
  %s = axe.slice %a [0 : 16, 0 : 16] : !axe.tensor<64x64xf16, global, ?> to !axe.tensor<16x16xf16, shared, ?>
  return
}

// -----

func.func @slice_swizzle() {
  axe.kernel grid [1] threads [32] {
    %s = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
    // expected-error @+1 {{'axe.slice' op result must keep the source's swizzle (it addresses the same shared storage)}}
    %t = axe.slice %s [0 : 8, 0 : 64] : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>> to !axe.tensor<8x64xf16, shared, ?>
  }
  return
}

// -----

func.func @origin_tile_size(%a: !axe.tensor<64x64xf16, global, ?>, %o: index) {
  // expected-error @+1 {{'axe.slice' op a run-time origin needs a tile size dividing the dimension: size 24 does not divide 64 (dimension 0; 'clip' allows a partial last tile of a global tensor)}}
  %s = axe.slice %a [%o : +24, 0 : 64] : !axe.tensor<64x64xf16, global, ?> to !axe.tensor<24x64xf16, global, ?>
  return
}

// -----

func.func @clip_without_run_time_origin(%a: !axe.tensor<64x64xf16, global, ?>) {
  // expected-error @+1 {{'axe.slice' op 'clip' applies to run-time-origin tiles; this slice has none}}
  %s = axe.slice %a [0 : 16, 0 : 64] {clip} : !axe.tensor<64x64xf16, global, ?> to !axe.tensor<16x64xf16, global, ?>
  return
}

// -----

func.func @clip_of_shared(%o: index) {
  axe.kernel grid [1] threads [32] {
    %s = axe.alloc : !axe.tensor<60x64xf16, shared, #axe.layout<(60, 64) : (64, 1)>>
    // expected-error @+1 {{'axe.slice' op 'clip' needs a global tensor (out-of-bounds elements are filled by TMA and skipped by predicated stores), not a shared one}}
    %t = axe.slice %s [%o : +16, 0 : 64] {clip} : !axe.tensor<60x64xf16, shared, #axe.layout<(60, 64) : (64, 1)>> to !axe.tensor<16x64xf16, shared, ?>
  }
  return
}

// -----

func.func @origin_partial(%a: !axe.tensor<64x64xf16, global, ?>, %o: index) {
  // expected-error @+1 {{'axe.slice' op with a run-time origin, every other dimension must be whole (0 : 64), not [0 : 32]}}
  %s = axe.slice %a [%o : +16, 0 : 32] : !axe.tensor<64x64xf16, global, ?> to !axe.tensor<16x32xf16, global, ?>
  return
}

// -----

func.func @origin_shape(%a: !axe.tensor<64x64xf16, global, ?>, %o: index) {
  // expected-error @+1 {{'axe.slice' op result shape must be the region's shape}}
  %s = axe.slice %a [%o : +16, 0 : 64] : !axe.tensor<64x64xf16, global, ?> to !axe.tensor<32x64xf16, global, ?>
  return
}

// -----

func.func @unit_outside() {
  // expected-error @+1 {{'axe.unit_id' op must be inside an axe.kernel}}
  %c = axe.unit_id cta
  return
}

// -----

// Counts of outstanding async groups are PTX immediates: non-negative and 32-bit.
func.func @wait_negative(%t: !axe.token) {
  // expected-error @+1 {{'axe.wait' op attribute 'outstanding' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative whose maximum value is 2147483647}}
  axe.wait %t outstanding -1
  return
}

// -----

func.func @wait_too_many(%t: !axe.token) {
  // expected-error @+1 {{'axe.wait' op attribute 'outstanding' failed to satisfy constraint}}
  axe.wait %t outstanding 4294967296
  return
}

// -----

// Launch limits of the target (CUDA's: 1024 x 1024 x 64 threads, grid y and z at most 65535).
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @grid_y() {
    // expected-error @+1 {{'axe.kernel' op launch exceeds the limits of 'sm_90': grid dimension 1 is 65536, beyond the limit of 65535}}
    axe.kernel grid [1, 65536] threads [32] {
    }
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @threads_z() {
    // expected-error @+1 {{'axe.kernel' op launch exceeds the limits of 'sm_80': threads dimension 2 is 128, beyond the limit of 64}}
    axe.kernel grid [1] threads [1, 1, 128] {
    }
    return
  }
}

// -----

// Thread counts whose product overflows 64 bits are refused, not wrapped.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @threads_overflow() {
    // expected-error @+1 {{'axe.kernel' op launch exceeds the limits of 'sm_90': threads dimension 0 is 4294967296, beyond the limit of 1024}}
    axe.kernel grid [1] threads [4294967296, 4294967296] {
    }
    return
  }
}

// -----

func.func @threads_overflow_no_target() {
  // expected-error @+1 {{'axe.kernel' op a CTA has at most 1024 threads, got 9223372036854775807}}
  axe.kernel grid [1] threads [4294967296, 4294967296] {
  }
  return
}

// -----

// Shared memory per CTA: 227 KiB on sm_90 (a 2^31-byte span would print a negative size).
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @shared_capacity() {
    axe.kernel grid [1] threads [32] {
      // expected-error @+1 {{'axe.alloc' op the shared tensor does not fit target 'sm_90': it needs 2147483664 bytes of shared memory, more than the 232448 bytes a CTA can use on sm_90}}
      %s = axe.alloc : !axe.tensor<2x2xf16, shared, #axe.layout<(2, 2) : (1, 1073741824)>>
    }
    return
  }
}

// -----

// 163 KiB on sm_80: 128 KiB + 64 KiB of f32 is too much, counted with a swizzle's whole blocks.
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @shared_capacity_sm80() {
    axe.kernel grid [1] threads [32] {
      // expected-error @+1 {{it needs 196608 bytes of shared memory, more than the 166912 bytes a CTA can use on sm_80}}
      %s = axe.alloc : !axe.tensor<49152xf32, shared, #axe.layout<(49152) : (1)>>
    }
    return
  }
}

// -----

// A span whose byte size overflows i64.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @shared_overflow() {
    axe.kernel grid [1] threads [32] {
      // expected-error @+1 {{'axe.alloc' op the shared tensor does not fit target 'sm_90': its size in bytes does not fit a 64-bit integer}}
      %s = axe.alloc : !axe.tensor<2x2xf32, shared, #axe.layout<(2, 2) : (1, 1152921504606846976)>>
    }
    return
  }
}

// -----

// `axe.align` on a function argument: a power of two, as an i64.
// expected-error @+1 {{'axe.align' on argument #0 must be a power of two in [1, 2^20], got 24}}
func.func @align_not_pow2(%a: memref<64xf32> {axe.align = 24 : i64}) {
  return
}

// -----

// expected-error @+1 {{'axe.align' on argument #1 must be an i64 integer}}
func.func @align_not_int(%a: memref<64xf32>, %b: memref<64xf32> {axe.align = "16"}) {
  return
}

// -----

// expected-error @+1 {{unknown Axe argument attribute 'axe.alignment'}}
func.func @align_misspelled(%a: memref<64xf32> {axe.alignment = 16 : i64}) {
  return
}

// -----

// axe.device_id is the rank in a mesh: outside one it means nothing.
func.func @device_id_outside_mesh() {
  axe.kernel grid [1] threads [32] {
    // expected-error @+1 {{'axe.device_id' op must be inside an axe.mesh (it is the rank of the device in the mesh)}}
    %r = axe.device_id
  }
  return
}

// -----

// A flag is one i32 element in global memory, inside a kernel.
func.func @signal_two_elements(%f: !axe.tensor<2xi32, global, #axe.layout<(2) : (1)>>, %v: i32) {
  axe.kernel grid [1] threads [32] {
    // expected-error @+1 {{'axe.signal' op flag must be one element, not '!axe.tensor<2xi32, global, #axe.layout<(2) : (1)>>' (slice the flag array)}}
    axe.signal %f, %v : !axe.tensor<2xi32, global, #axe.layout<(2) : (1)>>, i32
  }
  return
}

// -----

func.func @signal_wait_f32(%f: !axe.tensor<1xf32, global, #axe.layout<(1) : (1)>>, %v: i32) {
  axe.kernel grid [1] threads [32] {
    // expected-error @+1 {{'axe.signal_wait' op flag must hold i32 elements, not 'f32'}}
    axe.signal_wait %f, %v : !axe.tensor<1xf32, global, #axe.layout<(1) : (1)>>, i32
  }
  return
}

// -----

func.func @signal_shared(%v: i32) {
  axe.kernel grid [1] threads [32] {
    %f = axe.alloc : !axe.tensor<1xi32, shared, #axe.layout<(1) : (1)>>
    // expected-error @+1 {{'axe.signal' op flag must live in global memory (other CTAs and devices read it), not shared}}
    axe.signal %f, %v : !axe.tensor<1xi32, shared, #axe.layout<(1) : (1)>>, i32
  }
  return
}

// -----

func.func @signal_outside_kernel(%f: !axe.tensor<1xi32, global, #axe.layout<(1) : (1)>>, %v: i32) {
  // expected-error @+1 {{'axe.signal_wait' op must be inside an axe.kernel}}
  axe.signal_wait %f, %v : !axe.tensor<1xi32, global, #axe.layout<(1) : (1)>>, i32
  return
}

// -----

func.func @mbarrier_in_scope() {
  axe.kernel grid [1] threads [128] {
    axe.scope warp [0 : 1] {
      // expected-error @+1 {{'axe.mbarrier' op must be an op of an axe.kernel's body (not nested in a scope or a loop): every thread of the CTA shares the barrier}}
      %b = axe.mbarrier arrivals 1
    }
  }
  return
}

// -----

func.func @mbarrier_zero_arrivals() {
  axe.kernel grid [1] threads [128] {
    // expected-error @+1 {{'axe.mbarrier' op attribute 'arrivals' failed to satisfy constraint}}
    %b = axe.mbarrier arrivals 0
  }
  return
}

// -----

func.func @mbarrier_wait_block_argument(%b: !axe.mbarrier, %p: i1) {
  axe.kernel grid [1] threads [128] {
    // expected-error @+1 {{'axe.mbarrier_wait' op takes a barrier defined by axe.mbarrier (not a block argument or another op's result)}}
    axe.mbarrier_wait %b, %p
  }
  return
}

// -----

func.func @copy_on_barrier_with_token(%g: !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>) {
  axe.kernel grid [1] threads [128] {
    %s = axe.alloc : !axe.tensor<64x64xf16, shared, ?>
    %b = axe.mbarrier arrivals 1
    // expected-error @+1 {{'axe.copy' op a copy on a barrier is an async tma copy with no token and no 'after' (it completes on the barrier)}}
    %t = axe.copy async %g, %s schedule tma barrier %b : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, shared, ?> -> !axe.token
  }
  return
}

// -----

func.func @copy_on_barrier_not_tma(%g: !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>) {
  axe.kernel grid [1] threads [128] {
    %s = axe.alloc : !axe.tensor<64x64xf16, shared, ?>
    %b = axe.mbarrier arrivals 1
    // expected-error @+1 {{'axe.copy' op a copy on a barrier is an async tma copy with no token and no 'after' (it completes on the barrier)}}
    axe.copy async %g, %s schedule cp_async barrier %b : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, shared, ?>
  }
  return
}

// -----

func.func @tma_store_on_barrier(%g: !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>) {
  axe.kernel grid [1] threads [128] {
    %s = axe.alloc : !axe.tensor<64x64xf16, shared, ?>
    %b = axe.mbarrier arrivals 1
    // expected-error @+1 {{'axe.copy' op only a tma load (global to shared) completes on a barrier}}
    axe.copy async %s, %g schedule tma barrier %b : !axe.tensor<64x64xf16, shared, ?>, !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
  }
  return
}

// -----

func.func @max_registers_not_multiple_of_8() {
  axe.kernel grid [1] threads [256] {
    axe.scope warpgroup [1 : 2] {
      // expected-error @+1 {{'axe.set_max_registers' op register count must be a multiple of 8, not 230}}
      axe.set_max_registers 230
    }
  }
  return
}

// -----

func.func @max_registers_in_a_warp() {
  axe.kernel grid [1] threads [256] {
    axe.scope warp [0 : 1] {
      // expected-error @+1 {{'axe.set_max_registers' op must be an op of an axe.scope warpgroup body (whole warpgroups change their registers)}}
      axe.set_max_registers 40
    }
  }
  return
}

// -----

// A slice counts units within the enclosing scope's unit: a warpgroup has 4 warps.
func.func @nested_slice_past_the_warpgroup() {
  axe.kernel grid [1] threads [512] {
    axe.scope warpgroup [1 : 2] {
      // expected-error @+1 {{'axe.scope' op scope slice [2 : 5] exceeds the 4 warp(s) of each unit of the enclosing scope}}
      axe.scope warp [2 : 5] {
      }
    }
  }
  return
}

// -----

module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @mbarrier_on_sm_80() {
    axe.kernel grid [1] threads [128] {
      // expected-error @+1 {{'axe.mbarrier' op mbarriers need sm_90 or newer, target is 'sm_80'}}
      %b = axe.mbarrier arrivals 128
    }
    return
  }
}

// -----

func.func @mbarrier_arrive_block_argument(%b: !axe.mbarrier) {
  axe.kernel grid [1] threads [128] {
    // expected-error @+1 {{'axe.mbarrier_arrive' op takes a barrier defined by axe.mbarrier (not a block argument or another op's result)}}
    axe.mbarrier_arrive %b
  }
  return
}

// -----

module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @cluster_too_large() {
    // expected-error @+1 {{'axe.kernel' op launch exceeds the limits of 'sm_90a': a cluster has at most 8 CTAs, got 16}}
    axe.kernel grid [16] threads [32] cluster [16] {
    }
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @grid_not_whole_clusters() {
    // expected-error @+1 {{'axe.kernel' op launch exceeds the limits of 'sm_90a': grid dimension 0 (3) is not a whole number of clusters of 2}}
    axe.kernel grid [3] threads [32] cluster [2] {
    }
    return
  }
}

// -----

func.func @in_cluster_without_cluster() {
  axe.kernel grid [2] threads [32] {
    // expected-error @+1 {{'axe.unit_id' op a CTA's rank in its cluster ('in_cluster') needs a kernel launched in clusters (axe.kernel ... cluster [...])}}
    %r = axe.unit_id cta in_cluster
  }
  return
}

// -----

func.func @in_cluster_of_a_warp() {
  axe.kernel grid [2] threads [32] cluster [2] {
    // expected-error @+1 {{'axe.unit_id' op 'in_cluster' numbers the CTAs of a cluster; use it with 'cta', not 'warp'}}
    %r = axe.unit_id warp in_cluster
  }
  return
}

// -----

func.func @remote_arrive_without_cluster(%r: index) {
  axe.kernel grid [2] threads [32] {
    %b = axe.mbarrier arrivals 1
    // expected-error @+1 {{'axe.mbarrier_arrive' op an arrival on a peer CTA's barrier ('cta') needs a kernel launched in clusters}}
    axe.mbarrier_arrive %b cta %r
  }
  return
}

// -----

!g = !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
!s = !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>>
func.func @multicast_without_barrier(%g: !g) {
  axe.kernel grid [2] threads [32] cluster [2] {
    %s = axe.alloc : !s
    // expected-error @+1 {{'axe.copy' op a multicast copy is a tma load on a barrier ('barrier %b'): each CTA of the group counts its bytes there}}
    %t = axe.copy async %g, %s schedule tma multicast [0] : !g, !s -> !axe.token
    axe.wait %t
  }
  return
}

// -----

!g = !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
!s = !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>>
func.func @multicast_without_cluster(%g: !g) {
  axe.kernel grid [2] threads [32] {
    %s = axe.alloc : !s
    %b = axe.mbarrier arrivals 1
    // expected-error @+1 {{'axe.copy' op a multicast copy needs a kernel launched in clusters}}
    axe.copy async %g, %s schedule tma barrier %b multicast [0] : !g, !s
  }
  return
}

// -----

!g = !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
!s = !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>>
func.func @multicast_dimension_out_of_range(%g: !g) {
  axe.kernel grid [2] threads [32] cluster [2] {
    %s = axe.alloc : !s
    %b = axe.mbarrier arrivals 1
    // expected-error @+1 {{'axe.copy' op multicast dimension 1 is not a dimension of the kernel's 1-d cluster}}
    axe.copy async %g, %s schedule tma barrier %b multicast [1] : !g, !s
  }
  return
}

// -----

!g = !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
!s = !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>>
func.func @multicast_dimension_repeated(%g: !g) {
  axe.kernel grid [4, 2] threads [32] cluster [2, 2] {
    %s = axe.alloc : !s
    %b = axe.mbarrier arrivals 1
    // expected-error @+1 {{'axe.copy' op multicast dimension 0 is repeated}}
    axe.copy async %g, %s schedule tma barrier %b multicast [0, 0] : !g, !s
  }
  return
}

// -----

// A reducing copy is a TMA store: the TMA unit combines the shared tile into global memory.
!g = !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
!s = !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>>
func.func @reduce_not_a_tma_store(%g: !g) {
  axe.kernel grid [1] threads [128] {
    %s = axe.alloc : !s
    // expected-error @+1 {{'axe.copy' op a reducing copy is a tma store (shared to global memory, 'schedule tma'), which the TMA unit combines into the destination}}
    axe.copy %s, %g reduce sum : !s, !g
  }
  return
}

// -----

!g = !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
!s = !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>>
func.func @reduce_into_shared(%g: !g) {
  axe.kernel grid [1] threads [128] {
    %s = axe.alloc : !s
    // expected-error @+1 {{'axe.copy' op a reducing copy is a tma store (shared to global memory, 'schedule tma'), which the TMA unit combines into the destination}}
    %t = axe.copy async %g, %s schedule tma reduce sum : !g, !s -> !axe.token
    axe.wait %t
  }
  return
}

// -----

!g = !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
!s = !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>>
func.func @reduce_async(%g: !g) {
  axe.kernel grid [1] threads [128] {
    %s = axe.alloc : !s
    // expected-error @+1 {{'axe.copy' op a reducing copy is synchronous: no 'async' token and no 'after' (its unit synchronizes before it issues)}}
    %t = axe.copy async %s, %g schedule tma reduce sum : !s, !g -> !axe.token
    axe.wait %t
  }
  return
}

// -----

// Trainium has no shared memory (its on-chip memories are SBUF and PSUM).
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @shared_on_trainium() {
    axe.kernel grid [1] threads [1] {
      // expected-error @+1 {{'axe.alloc' op target 'trn1' has no shared memory}}
      %a = axe.alloc : !axe.tensor<16xf16, shared, ?>
    }
    return
  }
}

// -----

func.func @until_of_shared(%o: index, %e: index) {
  axe.kernel grid [1] threads [32] {
    %s = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>>
    // expected-error @+1 {{'axe.slice' op a run-time end ('until') needs a global tensor (elements past it are read as zero and not written, by predicated accesses), not a shared one}}
    %t = axe.slice %s [%o : +16 until %e, 0 : 64] : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>> to !axe.tensor<16x64xf16, shared, ?>
  }
  return
}

// -----

func.func @until_ends_mismatch(%a: !axe.tensor<64x64xf16, global, ?>, %o: index, %e: index) {
  // expected-error @+1 {{'axe.slice' op has 1 run-time ends for 0 bounded dimensions}}
  %s = "axe.slice"(%a, %o, %e) <{lower = array<i64: -9223372036854775808, 0>, upper = array<i64: 16, 64>, operandSegmentSizes = array<i32: 1, 1, 1>}> : (!axe.tensor<64x64xf16, global, ?>, index, index) -> !axe.tensor<16x64xf16, global, ?>
  return
}

// -----

func.func @until_static_dimension(%a: !axe.tensor<64x64xf16, global, ?>, %o: index, %e: index) {
  // expected-error @+1 {{'axe.slice' op bounded dimension 1 has no run-time origin ('until' follows `%origin : +size`)}}
  %s = "axe.slice"(%a, %o, %e) <{lower = array<i64: -9223372036854775808, 0>, upper = array<i64: 16, 64>, bounded = array<i64: 1>, operandSegmentSizes = array<i32: 1, 1, 1>}> : (!axe.tensor<64x64xf16, global, ?>, index, index) -> !axe.tensor<16x64xf16, global, ?>
  return
}

// -----

func.func @until_keyword_needs_operand(%a: !axe.tensor<64x64xf16, global, ?>, %o: index) {
  // expected-error @+1 {{expected SSA operand}}
  %s = axe.slice %a [%o : +16 until 5, 0 : 64] : !axe.tensor<64x64xf16, global, ?> to !axe.tensor<16x64xf16, global, ?>
  return
}

// -----

// axe.matmul: the contraction sizes must agree.
func.func @matmul_k(%A: !axe.tensor<64x128xf16, global, #axe.layout<(64, 128) : (128, 1)>>, %B: !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, %C: !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>) {
  // expected-error @+1 {{'axe.matmul' op contraction sizes differ: A has K = 128, B has K = 64}}
  axe.matmul %A, %B, %C : !axe.tensor<64x128xf16, global, #axe.layout<(64, 128) : (128, 1)>>, !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
  return
}

// -----

// axe.matmul: FP8 B must be K-major ([N, K], `transpose_b`), and FP8 needs its scales.
func.func @matmul_fp8(%A: !axe.tensor<64x64xf8E4M3FN, global, ?>, %B: !axe.tensor<64x64xf8E4M3FN, global, ?>, %C: !axe.tensor<64x64xbf16, global, ?>) {
  // expected-error @+1 {{'axe.matmul' op FP8 B must be given as [N, K] (`transpose_b`)}}
  axe.matmul %A, %B, %C : !axe.tensor<64x64xf8E4M3FN, global, ?>, !axe.tensor<64x64xf8E4M3FN, global, ?>, !axe.tensor<64x64xbf16, global, ?>
  return
}

// -----

func.func @matmul_fp8_scales(%A: !axe.tensor<64x64xf8E4M3FN, global, ?>, %B: !axe.tensor<64x64xf8E4M3FN, global, ?>, %C: !axe.tensor<64x64xbf16, global, ?>) {
  // expected-error @+1 {{'axe.matmul' op FP8 operands need scales (`scales(%sa, %sb : ...)`, per tensor or per block)}}
  axe.matmul %A, %B, %C {transpose_b} : !axe.tensor<64x64xf8E4M3FN, global, ?>, !axe.tensor<64x64xf8E4M3FN, global, ?>, !axe.tensor<64x64xbf16, global, ?>
  return
}

// -----

// Scales are per tensor (1x1 and 1x1) or per block (A's [M, ceil(K/128)], B's
// [ceil(N/128), ceil(K/128)]): B's here are per 64 columns.
func.func @matmul_fp8_block_shapes(%A: !axe.tensor<256x512xf8E4M3FN, global, ?>, %B: !axe.tensor<256x512xf8E4M3FN, global, ?>, %C: !axe.tensor<256x256xbf16, global, ?>, %SA: !axe.tensor<256x4xf32, global, ?>, %SB: !axe.tensor<4x4xf32, global, ?>) {
  // expected-error @+1 {{'axe.matmul' op the scales must be per tensor (1x1 and 1x1) or per block (A's 256x4: a row by 128 of K; B's 2x4: 128 of N by 128 of K), got '!axe.tensor<256x4xf32, global, ?>' and '!axe.tensor<4x4xf32, global, ?>'}}
  axe.matmul %A, %B, %C scales(%SA, %SB : !axe.tensor<256x4xf32, global, ?>, !axe.tensor<4x4xf32, global, ?>) {transpose_b} : !axe.tensor<256x512xf8E4M3FN, global, ?>, !axe.tensor<256x512xf8E4M3FN, global, ?>, !axe.tensor<256x256xbf16, global, ?>
  return
}

// -----

func.func @matmul_fp8_scale_type(%A: !axe.tensor<256x512xf8E4M3FN, global, ?>, %B: !axe.tensor<256x512xf8E4M3FN, global, ?>, %C: !axe.tensor<256x256xbf16, global, ?>, %SA: !axe.tensor<256x4xf16, global, ?>, %SB: !axe.tensor<2x4xf32, global, ?>) {
  // expected-error @+1 {{'axe.matmul' op a scale must be an f32 global tensor, got '!axe.tensor<256x4xf16, global, ?>'}}
  axe.matmul %A, %B, %C scales(%SA, %SB : !axe.tensor<256x4xf16, global, ?>, !axe.tensor<2x4xf32, global, ?>) {transpose_b} : !axe.tensor<256x512xf8E4M3FN, global, ?>, !axe.tensor<256x512xf8E4M3FN, global, ?>, !axe.tensor<256x256xbf16, global, ?>
  return
}

// -----

// Block scales are not built with a gated product.
func.func @matmul_fp8_block_gate(%A: !axe.tensor<256x512xf8E4M3FN, global, ?>, %B: !axe.tensor<512x512xf8E4M3FN, global, ?>, %C: !axe.tensor<256x256xbf16, global, ?>, %SA: !axe.tensor<256x4xf32, global, ?>, %SB: !axe.tensor<2x4xf32, global, ?>) {
  // expected-error @+1 {{'axe.matmul' op block scales are not built with a gated product}}
  axe.matmul %A, %B, %C gate silu scales(%SA, %SB : !axe.tensor<256x4xf32, global, ?>, !axe.tensor<2x4xf32, global, ?>) {transpose_b} : !axe.tensor<256x512xf8E4M3FN, global, ?>, !axe.tensor<512x512xf8E4M3FN, global, ?>, !axe.tensor<256x256xbf16, global, ?>
  return
}

// -----

// axe.matmul works on global tensors only.
func.func @matmul_shared(%A: !axe.tensor<64x64xf16, shared, ?>, %B: !axe.tensor<64x64xf16, global, ?>, %C: !axe.tensor<64x64xf16, global, ?>) {
  // expected-error @+1 {{'axe.matmul' op A must be a global tensor, got shared}}
  axe.matmul %A, %B, %C : !axe.tensor<64x64xf16, shared, ?>, !axe.tensor<64x64xf16, global, ?>, !axe.tensor<64x64xf16, global, ?>
  return
}

// -----

// axe.matmul is a whole GEMM: inside a kernel, the tile-level op is axe.gemm.
func.func @matmul_in_kernel(%A: !axe.tensor<64x64xf16, global, ?>, %B: !axe.tensor<64x64xf16, global, ?>, %C: !axe.tensor<64x64xf16, global, ?>) {
  axe.kernel grid [1] threads [128] {
    // expected-error @+1 {{'axe.matmul' op is a whole GEMM that expands into its own kernel; inside an axe.kernel use axe.gemm}}
    axe.matmul %A, %B, %C : !axe.tensor<64x64xf16, global, ?>, !axe.tensor<64x64xf16, global, ?>, !axe.tensor<64x64xf16, global, ?>
  }
  return
}

// -----

// axe.matmul: the split-K workspace's flags are one per 64x64 block of C.
func.func @matmul_workspace(%A: !axe.tensor<64x64xf16, global, ?>, %B: !axe.tensor<64x256xf16, global, ?>, %C: !axe.tensor<64x256xf16, global, ?>, %P: !axe.tensor<64x256xf32, global, ?>, %F: !axe.tensor<1x1xi32, global, ?>) {
  // expected-error @+1 {{'axe.matmul' op the workspace's flags must be a 1x4 i32 global tensor (one per 64x64 block of C)}}
  axe.matmul %A, %B, %C workspace(%P, %F : !axe.tensor<64x256xf32, global, ?>, !axe.tensor<1x1xi32, global, ?>) : !axe.tensor<64x64xf16, global, ?>, !axe.tensor<64x256xf16, global, ?>, !axe.tensor<64x256xf16, global, ?>
  return
}

// -----

// axe.matmul gate: B holds both halves (gate and up) of C's columns.
func.func @matmul_gate_width(%A: !axe.tensor<64x64xf16, global, ?>, %B: !axe.tensor<64x64xf16, global, ?>, %C: !axe.tensor<64x64xf16, global, ?>) {
  // expected-error @+1 {{'axe.matmul' op a gated product (`gate silu`) needs B = [B_gate | B_up] with twice C's 64 columns, got 64}}
  axe.matmul %A, %B, %C gate silu : !axe.tensor<64x64xf16, global, ?>, !axe.tensor<64x64xf16, global, ?>, !axe.tensor<64x64xf16, global, ?>
  return
}

// -----

// axe.matmul gather: A is distributed over a mesh, so the op must be in one.
func.func @matmul_gather_no_mesh(%A: !axe.tensor<128x64xf16, global, ?>, %B: !axe.tensor<64x128xf16, global, ?>, %C: !axe.tensor<128x64xf16, global, ?>, %G: !axe.tensor<2x128x64xf16, global, ?>, %F: !axe.tensor<2x3x2xi32, global, ?>, %e: i32) {
  // expected-error @+1 {{'axe.matmul' op a gathered A (`gather(...)`) is distributed over a mesh: the op must be inside an axe.mesh}}
  axe.matmul %A, %B, %C gate silu gather(%G, %F, %e : !axe.tensor<2x128x64xf16, global, ?>, !axe.tensor<2x3x2xi32, global, ?>) : !axe.tensor<128x64xf16, global, ?>, !axe.tensor<64x128xf16, global, ?>, !axe.tensor<128x64xf16, global, ?>
  return
}

// -----

// axe.matmul gather: the gather buffer holds every device's copy of A.
func.func @matmul_gather_buffer(%A: !axe.tensor<128x64xf16, global, ?>, %B: !axe.tensor<64x64xf16, global, ?>, %C: !axe.tensor<128x64xf16, global, ?>, %G: !axe.tensor<2x64x64xf16, global, ?>, %F: !axe.tensor<2x3x2xi32, global, ?>, %e: i32) {
  axe.mesh [2] {
    // expected-error @+1 {{'axe.matmul' op the gather buffer must be a global 2x128x64 tensor of A's element type 'f16' (every device's copy of A)}}
    axe.matmul %A, %B, %C gather(%G, %F, %e : !axe.tensor<2x64x64xf16, global, ?>, !axe.tensor<2x3x2xi32, global, ?>) : !axe.tensor<128x64xf16, global, ?>, !axe.tensor<64x64xf16, global, ?>, !axe.tensor<128x64xf16, global, ?>
  }
  return
}

// -----

// axe.matmul gather: per device a row of flags per source (one per 64 x 512 piece: 1 here, so
// rows of 2 slots to hold the 2 start flags) and a row of start flags.
func.func @matmul_gather_flags(%A: !axe.tensor<128x64xf16, global, ?>, %B: !axe.tensor<64x64xf16, global, ?>, %C: !axe.tensor<128x64xf16, global, ?>, %G: !axe.tensor<2x128x64xf16, global, ?>, %F: !axe.tensor<2x2x2xi32, global, ?>, %e: i32) {
  axe.mesh [2] {
    // expected-error @+1 {{'axe.matmul' op the gather flags must be an 2x3x2xi32 global tensor}}
    axe.matmul %A, %B, %C gather(%G, %F, %e : !axe.tensor<2x128x64xf16, global, ?>, !axe.tensor<2x2x2xi32, global, ?>) : !axe.tensor<128x64xf16, global, ?>, !axe.tensor<64x64xf16, global, ?>, !axe.tensor<128x64xf16, global, ?>
  }
  return
}

// -----

// axe.matmul gather: A's rows split evenly over the mesh.
func.func @matmul_gather_rows(%A: !axe.tensor<100x64xf16, global, ?>, %B: !axe.tensor<64x64xf16, global, ?>, %C: !axe.tensor<100x64xf16, global, ?>, %G: !axe.tensor<3x100x64xf16, global, ?>, %F: !axe.tensor<3x4x3xi32, global, ?>, %e: i32) {
  axe.mesh [3] {
    // expected-error @+1 {{'axe.matmul' op A's 100 rows do not split evenly over the 3 devices of the mesh}}
    axe.matmul %A, %B, %C gather(%G, %F, %e : !axe.tensor<3x100x64xf16, global, ?>, !axe.tensor<3x4x3xi32, global, ?>) : !axe.tensor<100x64xf16, global, ?>, !axe.tensor<64x64xf16, global, ?>, !axe.tensor<100x64xf16, global, ?>
  }
  return
}

// -----

// axe.matmul gate: split-K's running sums are not gated (no workspace with `gate`).
func.func @matmul_gate_workspace(%A: !axe.tensor<64x64xf16, global, ?>, %B: !axe.tensor<64x128xf16, global, ?>, %C: !axe.tensor<64x64xf16, global, ?>, %P: !axe.tensor<64x64xf32, global, ?>, %F: !axe.tensor<1x1xi32, global, ?>) {
  // expected-error @+1 {{'axe.matmul' op a gated product takes no split-K workspace}}
  axe.matmul %A, %B, %C gate silu workspace(%P, %F : !axe.tensor<64x64xf32, global, ?>, !axe.tensor<1x1xi32, global, ?>) : !axe.tensor<64x64xf16, global, ?>, !axe.tensor<64x128xf16, global, ?>, !axe.tensor<64x64xf16, global, ?>
  return
}

// -----

// axe.matmul gather: a gathered A's tiles are whole (no split-K workspace).
func.func @matmul_gather_workspace(%A: !axe.tensor<128x64xf16, global, ?>, %B: !axe.tensor<64x64xf16, global, ?>, %C: !axe.tensor<128x64xf16, global, ?>, %G: !axe.tensor<2x128x64xf16, global, ?>, %F: !axe.tensor<2x3x2xi32, global, ?>, %e: i32, %P: !axe.tensor<128x64xf32, global, ?>, %W: !axe.tensor<2x1xi32, global, ?>) {
  axe.mesh [2] {
    // expected-error @+1 {{'axe.matmul' op a gathered A takes no split-K workspace}}
    axe.matmul %A, %B, %C gather(%G, %F, %e : !axe.tensor<2x128x64xf16, global, ?>, !axe.tensor<2x3x2xi32, global, ?>) workspace(%P, %W : !axe.tensor<128x64xf32, global, ?>, !axe.tensor<2x1xi32, global, ?>) : !axe.tensor<128x64xf16, global, ?>, !axe.tensor<64x64xf16, global, ?>, !axe.tensor<128x64xf16, global, ?>
  }
  return
}

// -----

// axe.matmul's epilogue: the bias is one row of C's width, the residual C's shape.
func.func @matmul_bias_shape(%A: !axe.tensor<64x64xf16, global, ?>, %B: !axe.tensor<64x128xf16, global, ?>, %C: !axe.tensor<64x128xf16, global, ?>, %b: !axe.tensor<1x64xf16, global, ?>) {
  // expected-error @+1 {{'axe.matmul' op the bias must be a 1x128 global tensor of f16, bf16 or f32, got '!axe.tensor<1x64xf16, global, ?>'}}
  axe.matmul %A, %B, %C bias(%b : !axe.tensor<1x64xf16, global, ?>) : !axe.tensor<64x64xf16, global, ?>, !axe.tensor<64x128xf16, global, ?>, !axe.tensor<64x128xf16, global, ?>
  return
}

// -----

func.func @matmul_residual_type(%A: !axe.tensor<64x64xf16, global, ?>, %B: !axe.tensor<64x128xf16, global, ?>, %C: !axe.tensor<64x128xf16, global, ?>, %r: !axe.tensor<64x128xi32, global, ?>) {
  // expected-error @+1 {{'axe.matmul' op the residual must be a 64x128 global tensor of f16, bf16 or f32, got '!axe.tensor<64x128xi32, global, ?>'}}
  axe.matmul %A, %B, %C residual(%r : !axe.tensor<64x128xi32, global, ?>) : !axe.tensor<64x64xf16, global, ?>, !axe.tensor<64x128xf16, global, ?>, !axe.tensor<64x128xf16, global, ?>
  return
}

// -----

func.func @matmul_gate_and_activation(%A: !axe.tensor<64x64xf16, global, ?>, %B: !axe.tensor<64x128xf16, global, ?>, %C: !axe.tensor<64x64xf16, global, ?>) {
  // expected-error @+1 {{'axe.matmul' op a gated product takes no bias or activation (its gate `silu` is the activation); a residual it may take}}
  axe.matmul %A, %B, %C gate silu activation gelu : !axe.tensor<64x64xf16, global, ?>, !axe.tensor<64x128xf16, global, ?>, !axe.tensor<64x64xf16, global, ?>
  return
}

// -----

// axe.matmul up(...): the up half of a gated product, B's shape and type.
func.func @matmul_up_without_gate(%A: !axe.tensor<64x64xf16, global, ?>, %B: !axe.tensor<64x128xf16, global, ?>, %C: !axe.tensor<64x128xf16, global, ?>) {
  // expected-error @+1 {{'axe.matmul' op `up(...)` is the up half of a gated product: it needs `gate`}}
  axe.matmul %A, %B, %C up(%B : !axe.tensor<64x128xf16, global, ?>) : !axe.tensor<64x64xf16, global, ?>, !axe.tensor<64x128xf16, global, ?>, !axe.tensor<64x128xf16, global, ?>
  return
}

// -----

func.func @matmul_up_shape(%A: !axe.tensor<64x64xf16, global, ?>, %B: !axe.tensor<64x128xf16, global, ?>, %U: !axe.tensor<64x64xf16, global, ?>, %C: !axe.tensor<64x128xf16, global, ?>) {
  // expected-error @+1 {{'axe.matmul' op the up weights must be a global tensor of B's shape and type '!axe.tensor<64x128xf16, global, ?>', got '!axe.tensor<64x64xf16, global, ?>'}}
  axe.matmul %A, %B, %C gate silu up(%U : !axe.tensor<64x64xf16, global, ?>) : !axe.tensor<64x64xf16, global, ?>, !axe.tensor<64x128xf16, global, ?>, !axe.tensor<64x128xf16, global, ?>
  return
}

// -----

// axe.iota writes a register tensor, along one of its dimensions.
func.func @iota_shared() {
  axe.kernel grid [1] threads [32] {
    %t = axe.alloc : !axe.tensor<8x8xf32, shared, #axe.layout<(8, 8) : (8, 1)>>
    // expected-error @+1 {{'axe.iota' op writes a register tensor (got a shared tensor)}}
    axe.iota %t dim 0 : !axe.tensor<8x8xf32, shared, #axe.layout<(8, 8) : (8, 1)>>
  }
  return
}

// -----

func.func @iota_dim() {
  axe.kernel grid [1] threads [32] {
    %t = axe.alloc : !axe.tensor<8x8xf32, register, ?>
    // expected-error @+1 {{'axe.iota' op dim 2 is not a dimension of a rank-2 tensor}}
    axe.iota %t dim 2 : !axe.tensor<8x8xf32, register, ?>
  }
  return
}

// -----

// axe.attention: K and V have the key/value heads' columns.
!q = !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>>
!kv = !axe.tensor<256x64xf16, global, #axe.layout<(256, 64) : (64, 1)>>
func.func @attention_kv(%q: memref<65536xf16>, %k: memref<16384xf16>) {
  %Q = axe.view %q : memref<65536xf16> to !q
  %K = axe.view %k : memref<16384xf16> to !kv
  // expected-error @+1 {{'axe.attention' op K must be [256, 128] (tokens, kv_heads * head_dim)}}
  axe.attention %Q, %K, %K, %Q {heads = 4, kv_heads = 2, seq_len = 256} : !q, !kv, !kv, !q
  return
}

// -----

!q = !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>>
func.func @attention_groups(%q: memref<65536xf16>) {
  %Q = axe.view %q : memref<65536xf16> to !q
  // expected-error @+1 {{'axe.attention' op heads (4) must be a positive multiple of kv_heads (3)}}
  axe.attention %Q, %Q, %Q, %Q {heads = 4, kv_heads = 3, seq_len = 256} : !q, !q, !q, !q
  return
}

// -----

!q = !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>>
func.func @attention_seq(%q: memref<65536xf16>) {
  %Q = axe.view %q : memref<65536xf16> to !q
  // expected-error @+1 {{'axe.attention' op seq_len 100 does not divide the 256 tokens into whole sequences}}
  axe.attention %Q, %Q, %Q, %Q {heads = 4, seq_len = 100} : !q, !q, !q, !q
  return
}

// -----

// axe.attention: cumulative sequence offsets are i32, one more than the sequences.
!q = !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>>
func.func @attention_cu_type(%q: memref<65536xf16>, %cu: memref<3xi64>) {
  %Q = axe.view %q : memref<65536xf16> to !q
  // expected-error @+1 {{'axe.attention' op cu_seqlens must be a static 1-D memref of i32 with one more entry than there are sequences (at least 2), got 'memref<3xi64>'}}
  axe.attention %Q, %Q, %Q, %Q cu_seqlens(%cu : memref<3xi64>) {heads = 4, seq_len = 200} : !q, !q, !q, !q
  return
}

// -----

// axe.attention: with cu_seqlens, seq_len is the longest sequence's length.
!q = !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>>
func.func @attention_cu_longest(%q: memref<65536xf16>, %cu: memref<3xi32>) {
  %Q = axe.view %q : memref<65536xf16> to !q
  // expected-error @+1 {{'axe.attention' op seq_len 300 (the longest sequence's length, with cu_seqlens) must be between 1 and the 256 tokens}}
  axe.attention %Q, %Q, %Q, %Q cu_seqlens(%cu : memref<3xi32>) {heads = 4, seq_len = 300} : !q, !q, !q, !q
  return
}

// -----

!q = !axe.tensor<256x256xf32, global, #axe.layout<(256, 256) : (256, 1)>>
func.func @attention_f32(%q: memref<65536xf32>) {
  %Q = axe.view %q : memref<65536xf32> to !q
  // expected-error @+1 {{'axe.attention' op Q, K, V and O must be f16 or bf16, got 'f32'}}
  axe.attention %Q, %Q, %Q, %Q {heads = 4, seq_len = 256} : !q, !q, !q, !q
  return
}

// -----

!q = !axe.tensor<256x256xf16, global, #axe.layout<(256, 256) : (256, 1)>>
!l = !axe.tensor<256x4xf16, global, #axe.layout<(256, 4) : (4, 1)>>
func.func @attention_lse(%q: memref<65536xf16>, %l: memref<1024xf16>) {
  %Q = axe.view %q : memref<65536xf16> to !q
  %L = axe.view %l : memref<1024xf16> to !l
  // expected-error @+1 {{'axe.attention' op lse must be an f32 global tensor [256, 4]}}
  axe.attention %Q, %Q, %Q, %Q lse(%L : !l) {heads = 4, seq_len = 256} : !q, !q, !q, !q
  return
}
