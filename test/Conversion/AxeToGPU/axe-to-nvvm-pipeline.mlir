// axe-to-nvvm-pipeline: Axe kernels down to PTX (gpu.binary holding the assembly) with the
// host function launching them (gpu.launch_func).
// RUN: axe-opt %s --axe-to-nvvm-pipeline='chip=sm_90' --split-input-file | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm-pipeline='chip=sm_80 features=+ptx70' --split-input-file | FileCheck %s --check-prefix=SM80

// Figure 5's CTA-collective copy, there and back: 16-byte vector loads and stores, the
// registers stay registers (no local memory).
// CHECK-LABEL: llvm.func @cta_collective_copy(
// CHECK: gpu.launch_func @cta_collective_copy_kernel::@cta_collective_copy_kernel blocks in ({{.*}}) threads in ({{.*}})
// CHECK: gpu.binary @cta_collective_copy_kernel [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">
// CHECK-SAME: .version 8.0
// CHECK-SAME: .target sm_90
// CHECK-SAME: .visible .entry cta_collective_copy_kernel(
// CHECK-SAME: .maxntid 128, 1, 1
// CHECK-NOT: .local
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: st.global.v4.b32
// CHECK-SAME: st.global.v4.b32
// SM80: .target sm_80
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @cta_collective_copy(%buf: memref<4096xf32> {axe.align = 16 : i64}, %out: memref<4096xf32> {axe.align = 16 : i64}) {
    %C = axe.view %buf : memref<4096xf32> to !axe.tensor<32x128xf32, global, #axe.layout<(32, 128) : (128, 1)>>
    %O = axe.view %out : memref<4096xf32> to !axe.tensor<32x128xf32, global, #axe.layout<(32, 128) : (128, 1)>>
    axe.kernel grid [1] threads [128] {
      %region = axe.slice %C [16 : 32, 64 : 128] : !axe.tensor<32x128xf32, global, #axe.layout<(32, 128) : (128, 1)>> to !axe.tensor<16x64xf32, global, #axe.layout<(16, 64) : (128, 1) + 2112>>
      %local = axe.alloc : !axe.tensor<16x64xf32, register, #axe.layout<(4, 4, 8, 8) : (1@warp, 8@lane, 1@lane, 1@reg)>>
      axe.copy %region, %local schedule vectorized : !axe.tensor<16x64xf32, global, #axe.layout<(16, 64) : (128, 1) + 2112>>, !axe.tensor<16x64xf32, register, #axe.layout<(4, 4, 8, 8) : (1@warp, 8@lane, 1@lane, 1@reg)>>
      %oregion = axe.slice %O [16 : 32, 64 : 128] : !axe.tensor<32x128xf32, global, #axe.layout<(32, 128) : (128, 1)>> to !axe.tensor<16x64xf32, global, #axe.layout<(16, 64) : (128, 1) + 2112>>
      axe.copy %local, %oregion : !axe.tensor<16x64xf32, register, #axe.layout<(4, 4, 8, 8) : (1@warp, 8@lane, 1@lane, 1@reg)>>, !axe.tensor<16x64xf32, global, #axe.layout<(16, 64) : (128, 1) + 2112>>
    }
    return
  }
}

// -----

// Through 16-byte aligned shared memory with a barrier, then a warp reduction by shuffles.
// CHECK-LABEL: llvm.func @row_sum(
// CHECK: gpu.launch_func @row_sum_kernel::@row_sum_kernel
// CHECK: gpu.binary @row_sum_kernel
// CHECK-SAME: .visible .entry row_sum_kernel(
// CHECK-SAME: .shared .align 16 .b8 __axe_shared_0[256]
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: st.shared.v4.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.shared.b32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: st.global.v2.b32
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @row_sum(%in: memref<64xf32> {axe.align = 16 : i64}, %out: memref<2xf32> {axe.align = 16 : i64}) {
    %X = axe.view %in : memref<64xf32> to !axe.tensor<2x32xf32, global, #axe.layout<(2, 32) : (32, 1)>>
    %Y = axe.view %out : memref<2xf32> to !axe.tensor<2x1xf32, global, #axe.layout<(2, 1) : (1, 1)>>
    axe.kernel grid [1] threads [32] {
      %s = axe.alloc : !axe.tensor<2x32xf32, shared, #axe.layout<(2, 32) : (32, 1)>>
      axe.copy %X, %s : !axe.tensor<2x32xf32, global, #axe.layout<(2, 32) : (32, 1)>>, !axe.tensor<2x32xf32, shared, #axe.layout<(2, 32) : (32, 1)>>
      axe.barrier cta
      %x = axe.alloc : !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@reg, 1@lane)>>
      %m = axe.alloc : !axe.tensor<2x1xf32, register, #axe.layout<(2) : (1@reg) + [(32) : (1@lane)]>>
      axe.copy %s, %x : !axe.tensor<2x32xf32, shared, #axe.layout<(2, 32) : (32, 1)>>, !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@reg, 1@lane)>>
      axe.reduce sum %x, %m dims [1] : !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@reg, 1@lane)>>, !axe.tensor<2x1xf32, register, #axe.layout<(2) : (1@reg) + [(32) : (1@lane)]>>
      axe.copy %m, %Y : !axe.tensor<2x1xf32, register, #axe.layout<(2) : (1@reg) + [(32) : (1@lane)]>>, !axe.tensor<2x1xf32, global, #axe.layout<(2, 1) : (1, 1)>>
    }
    return
  }
}

// -----

// Dynamic shared memory in the PTX of each kernel: an extern, 1024-aligned array at the start
// of the launch's dynamic region (not upstream's demoted `__dynamic_shmem__` variable).
// CHECK-LABEL: llvm.func @two_kernels(
// CHECK-DAG: .extern .shared .align 1024 .b8 __axe_dynamic_shared_0[];
// CHECK-DAG: .extern .shared .align 1024 .b8 __axe_dynamic_shared_1[];
// CHECK-NOT: __dynamic_shmem
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

// -----

// |x| on f32, f16 and i32 needs no libdevice (`__nv_fabsf`, `__nv_abs`: PTX that names them
// does not load; found by `axe-fuzz lowering-gpu`): the sign bit cleared, max(x, -x) (which
// NVPTX selects as abs.s32).
// CHECK-LABEL: llvm.func @abs_without_libdevice(
// CHECK: gpu.binary @abs_without_libdevice_kernel
// CHECK-NOT: __nv_
// CHECK-SAME: and.b32 {{.*}}, 2147483647;
// CHECK-SAME: and.b16 {{.*}}, 32767;
// CHECK-SAME: abs.s32
// CHECK-NOT: __nv_
// SM80-LABEL: llvm.func @abs_without_libdevice(
// SM80-NOT: __nv_
func.func @abs_without_libdevice(%a: memref<32xf32>, %h: memref<32xf16>, %i: memref<32xi32>) {
  %A = axe.view %a : memref<32xf32> to !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>
  %H = axe.view %h : memref<32xf16> to !axe.tensor<32xf16, global, #axe.layout<(32) : (1)>>
  %I = axe.view %i : memref<32xi32> to !axe.tensor<32xi32, global, #axe.layout<(32) : (1)>>
  axe.kernel grid [1] threads [32] {
    %ra = axe.alloc : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
    %rh = axe.alloc : !axe.tensor<32xf16, register, #axe.layout<(32) : (1@lane)>>
    %ri = axe.alloc : !axe.tensor<32xi32, register, #axe.layout<(32) : (1@lane)>>
    axe.copy %A, %ra : !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>, !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
    axe.copy %H, %rh : !axe.tensor<32xf16, global, #axe.layout<(32) : (1)>>, !axe.tensor<32xf16, register, #axe.layout<(32) : (1@lane)>>
    axe.copy %I, %ri : !axe.tensor<32xi32, global, #axe.layout<(32) : (1)>>, !axe.tensor<32xi32, register, #axe.layout<(32) : (1@lane)>>
    axe.unary abs %ra, %ra : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>, !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>
    axe.unary abs %rh, %rh : !axe.tensor<32xf16, register, #axe.layout<(32) : (1@lane)>>, !axe.tensor<32xf16, register, #axe.layout<(32) : (1@lane)>>
    axe.unary abs %ri, %ri : !axe.tensor<32xi32, register, #axe.layout<(32) : (1@lane)>>, !axe.tensor<32xi32, register, #axe.layout<(32) : (1@lane)>>
    axe.copy %ra, %A : !axe.tensor<32xf32, register, #axe.layout<(32) : (1@lane)>>, !axe.tensor<32xf32, global, #axe.layout<(32) : (1)>>
    axe.copy %rh, %H : !axe.tensor<32xf16, register, #axe.layout<(32) : (1@lane)>>, !axe.tensor<32xf16, global, #axe.layout<(32) : (1)>>
    axe.copy %ri, %I : !axe.tensor<32xi32, register, #axe.layout<(32) : (1@lane)>>, !axe.tensor<32xi32, global, #axe.layout<(32) : (1)>>
  }
  return
}

// -----

// Signed integer min/max reach PTX as unsigned min/max of the operands with their sign bits
// flipped: ptxas (CUDA 13.0) fuses two max.s32/min.s32 into VIMNMX3 and loses the negation
// of the middle operand (`max(-a, -b, -c)` came out as `max(-a, b, -c)`; found by
// `axe-fuzz lowering-gpu`, fuzz/gpu/repros). Elementwise max/min, relu and reductions.
// CHECK-LABEL: llvm.func @signed_min_max(
// CHECK: gpu.binary @signed_min_max_kernel
// CHECK-NOT: {{(max|min)\.s32}}
// CHECK-SAME: xor.b32 {{[^;]*}}, -2147483648;
// CHECK-NOT: {{(max|min)\.s32}}
// CHECK-SAME: {{(max|min)\.u32}}
// CHECK-NOT: {{(max|min)\.s32}}
// CHECK-NOT: {{(max|min)\.s}}
func.func @signed_min_max(%i: memref<64xi32>, %o: memref<2xi32>) {
  %I = axe.view %i : memref<64xi32> to !axe.tensor<32x2xi32, global, #axe.layout<(32, 2) : (2, 1)>>
  %O = axe.view %o : memref<2xi32> to !axe.tensor<2xi32, global, #axe.layout<(2) : (1)>>
  axe.kernel grid [1] threads [32] {
    %r = axe.alloc : !axe.tensor<32x2xi32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>
    %n = axe.alloc : !axe.tensor<32x2xi32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>
    %m = axe.alloc : !axe.tensor<2xi32, register, #axe.layout<(2) : (1@reg) + [(32) : (1@lane)]>>
    axe.copy %I, %r : !axe.tensor<32x2xi32, global, #axe.layout<(32, 2) : (2, 1)>>, !axe.tensor<32x2xi32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>
    axe.unary neg %r, %n : !axe.tensor<32x2xi32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>, !axe.tensor<32x2xi32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>
    axe.binary max %r, %n, %n : !axe.tensor<32x2xi32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>, !axe.tensor<32x2xi32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>, !axe.tensor<32x2xi32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>
    axe.binary min %r, %n, %n : !axe.tensor<32x2xi32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>, !axe.tensor<32x2xi32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>, !axe.tensor<32x2xi32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>
    axe.unary relu %n, %n : !axe.tensor<32x2xi32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>, !axe.tensor<32x2xi32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>
    axe.reduce max %n, %m dims [0] : !axe.tensor<32x2xi32, register, #axe.layout<(32, 2) : (1@lane, 1@reg)>>, !axe.tensor<2xi32, register, #axe.layout<(2) : (1@reg) + [(32) : (1@lane)]>>
    axe.copy %m, %O : !axe.tensor<2xi32, register, #axe.layout<(2) : (1@reg) + [(32) : (1@lane)]>>, !axe.tensor<2xi32, global, #axe.layout<(2) : (1)>>
  }
  return
}
