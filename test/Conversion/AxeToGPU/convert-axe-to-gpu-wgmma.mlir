// axe.gemm on sm_90a with A and B in shared memory -> wgmma.mma_async m64nNk16: an async-proxy
// fence, the accumulator registers packed into one struct per instruction tile, wgmma.fence,
// the wgmma chain (K innermost), commit, wait 0, the structs stored back. Descriptors are read
// off the shared layouts and checked against them element by element at compile time.
// The layouts are those axe-infer-layout gives (the PTX run infers them again, unchanged).
// RUN: axe-opt %s --convert-axe-to-gpu --split-input-file --verify-diagnostics | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm-pipeline='chip=sm_90a features=+ptx80' --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=PTX

// One warpgroup, C 64x64, K 32, A [M, K] and B [N, K] K-major with the 64-byte swizzle: the
// accumulator gets the m64n64k16 D fragment; two wgmma (one per 16 of K). The descriptor of
// A's first tile is (start >> 4) + (LBO 16 B >> 4) << 16 + (SBO 512 B >> 4) << 32 + 2 << 62
// (64B swizzle); the buffers are realigned to the swizzle's 512-byte period. The start field
// keeps 14 bits of the shared address >> 4 (in a cluster launch, shared addresses have bits
// above the CTA's offset, which must not reach the offsets' fields).
// CHECK: memref.global "private" @{{.*}} : memref<2048xf16, 3> = uninitialized {alignment = 512 : i64}
// CHECK-LABEL: func.func @warpgroup_wgmma
// CHECK: %[[ACC:.*]] = memref.alloca() : memref<32xf32>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: arith.shrui %{{.*}}, %c4_i64
// CHECK-NEXT: arith.constant 16383 : i64
// CHECK-NEXT: arith.andi
// CHECK: memref.load %[[ACC]]
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[D0:.*]] = arith.constant -9223371899415756800 : i64
// CHECK: %[[DA:.*]] = arith.addi %{{.*}}, %[[D0]] : i64
// CHECK: %[[R0:.*]] = nvvm.wgmma.mma_async %[[DA]], %{{.*}}, %{{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>] : !llvm.struct<(f32, f32
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[R0]], <m = 64, n = 64, k = 16>
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// The wait is followed by a CTA-scope fence, which keeps ptxas from scheduling reads of the
// accumulator registers (the epilogue's conversions) above the wait (wgmma.rs,
// order_after_wait: seen on the H100 with CUDA 13's ptxas).
// CHECK-NEXT: llvm.fence syncscope("block") acq_rel
// CHECK-NEXT: llvm.extractvalue
// CHECK: memref.store %{{.*}}, %[[ACC]]
// PTX: .target sm_90a
// PTX: .shared .align 512
// PTX: fence.proxy.async.shared::cta
// PTX: wgmma.fence.sync.aligned
// PTX-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// PTX: wgmma.commit_group.sync.aligned
// PTX: wgmma.wait_group.sync.aligned \090;\0A\09fence.acq_rel.cta;
!acc = !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @warpgroup_wgmma(%a: memref<2048xf16> {axe.align = 16 : i64}, %b: memref<2048xf16> {axe.align = 16 : i64}, %c: memref<4096xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<2048xf16> to !axe.tensor<64x32xf16, global, #axe.layout<(64, 32) : (32, 1)>>
    %B = axe.view %b : memref<2048xf16> to !axe.tensor<64x32xf16, global, #axe.layout<(64, 32) : (32, 1)>>
    %C = axe.view %c : memref<4096xf32> to !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    axe.kernel grid [1] threads [128] {
      %sa = axe.alloc : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>
      %sb = axe.alloc : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>
      %acc = axe.alloc : !acc
      %z = arith.constant 0.0 : f32
      axe.fill %acc, %z : !acc, f32
      axe.copy %A, %sa : !axe.tensor<64x32xf16, global, #axe.layout<(64, 32) : (32, 1)>>, !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>
      axe.copy %B, %sb : !axe.tensor<64x32xf16, global, #axe.layout<(64, 32) : (32, 1)>>, !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>
      axe.barrier cta
      axe.scope warpgroup [0 : 1] {
        axe.gemm %sa, %sb, %acc {transpose_b} : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>, !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>, !acc
      }
      axe.copy %acc, %C : !acc, !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    }
    return
  }
}

// -----

// `overwrite`: C = A B. The accumulator is not read (no loads of its registers before the
// chain), the first instruction of each tile starts from scale-d 0, the next accumulate.
// CHECK-LABEL: func.func @overwrite_wgmma
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NOT: memref.load
// CHECK: %[[R0:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <zero>]
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[R0]], <m = 64, n = 64, k = 16>, D[<f32>, <one>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// PTX-LABEL: gpu.binary @overwrite_wgmma_kernel
// PTX-SAME: setp.ne.b32 p, 0, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// PTX-SAME: setp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
!acc = !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @overwrite_wgmma(%a: memref<2048xf16> {axe.align = 16 : i64}, %b: memref<2048xf16> {axe.align = 16 : i64}, %c: memref<4096xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<2048xf16> to !axe.tensor<64x32xf16, global, #axe.layout<(64, 32) : (32, 1)>>
    %B = axe.view %b : memref<2048xf16> to !axe.tensor<64x32xf16, global, #axe.layout<(64, 32) : (32, 1)>>
    %C = axe.view %c : memref<4096xf32> to !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    axe.kernel grid [1] threads [128] {
      %sa = axe.alloc : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>
      %sb = axe.alloc : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>
      %acc = axe.alloc : !acc
      axe.copy %A, %sa : !axe.tensor<64x32xf16, global, #axe.layout<(64, 32) : (32, 1)>>, !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>
      axe.copy %B, %sb : !axe.tensor<64x32xf16, global, #axe.layout<(64, 32) : (32, 1)>>, !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>
      axe.barrier cta
      axe.scope warpgroup [0 : 1] {
        axe.gemm %sa, %sb, %acc {overwrite, transpose_b} : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>, !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>, !acc
      }
      axe.copy %acc, %C : !acc, !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    }
    return
  }
}

// -----

// Async gemms: the first gemm's group stays in flight while the second is issued;
// `axe.wait %g1 outstanding 1` lets at most one group run on (wgmma.wait_group 1: the first
// is done with its operands), `axe.wait %g1` then drains (wait_group 0) before the
// accumulator is stored. No wait between the two wgmma chains.
// CHECK-LABEL: func.func @async_wgmma
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.wait.group
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT: nvvm.cp.async.wait.group
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: llvm.fence syncscope("block") acq_rel
// CHECK: memref.load
// PTX-LABEL: .entry async_wgmma_kernel
// PTX: wgmma.commit_group.sync.aligned
// PTX: wgmma.mma_async
// PTX: wgmma.commit_group.sync.aligned
// PTX: wgmma.wait_group.sync.aligned \091;
// PTX-NOT: fence.acq_rel.cta
// PTX: wgmma.wait_group.sync.aligned \090;\0A\09fence.acq_rel.cta;
// PTX: st.global
!acc = !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @async_wgmma(%a: memref<2048xf16> {axe.align = 16 : i64}, %b: memref<2048xf16> {axe.align = 16 : i64}, %c: memref<4096xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<2048xf16> to !axe.tensor<64x32xf16, global, #axe.layout<(64, 32) : (32, 1)>>
    %B = axe.view %b : memref<2048xf16> to !axe.tensor<64x32xf16, global, #axe.layout<(64, 32) : (32, 1)>>
    %C = axe.view %c : memref<4096xf32> to !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    axe.kernel grid [1] threads [128] {
      %sa = axe.alloc : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>
      %sb = axe.alloc : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>
      %acc = axe.alloc : !acc
      %z = arith.constant 0.0 : f32
      axe.fill %acc, %z : !acc, f32
      axe.copy %A, %sa : !axe.tensor<64x32xf16, global, #axe.layout<(64, 32) : (32, 1)>>, !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>
      axe.copy %B, %sb : !axe.tensor<64x32xf16, global, #axe.layout<(64, 32) : (32, 1)>>, !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>
      axe.barrier cta
      %g0 = axe.gemm async %sa, %sb, %acc {transpose_b} : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>, !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>, !acc -> !axe.token
      %g1 = axe.gemm async %sa, %sb, %acc {transpose_b} : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>, !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<2, 3, 3>>, !acc -> !axe.token
      axe.wait %g1 outstanding 1
      axe.wait %g1
      axe.copy %acc, %C : !acc, !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    }
    return
  }
}

// -----

// Two warpgroups of a CTA, C 128x128, K 64; B [K, N] N-major (128B swizzle, 64-column blocks
// 8 KiB apart: LBO 8192 B, SBO 1024 B, transposed). Warpgroup g takes rows 64 g ..: A's
// descriptor is selected by the warpgroup index; four m64n128k16 per warpgroup.
// CHECK: memref.global "private" @{{.*}} {alignment = 1024 : i64}
// CHECK-LABEL: func.func @gemm_wgmma
// CHECK: memref.alloca() : memref<64xf32>
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: arith.select
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// PTX: .shared .align 1024
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
!acc = !axe.tensor<128x128xf32, register, #axe.layout<(8, 2, 8, 16, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @gemm_wgmma(%a: memref<8192xf16> {axe.align = 16 : i64}, %b: memref<8192xf16> {axe.align = 16 : i64}, %c: memref<16384xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<8192xf16> to !axe.tensor<128x64xf16, global, #axe.layout<(128, 64) : (64, 1)>>
    %B = axe.view %b : memref<8192xf16> to !axe.tensor<64x128xf16, global, #axe.layout<(64, 128) : (128, 1)>>
    %C = axe.view %c : memref<16384xf32> to !axe.tensor<128x128xf32, global, #axe.layout<(128, 128) : (128, 1)>>
    axe.kernel grid [1] threads [256] {
      %sa = axe.alloc : !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      %sb = axe.alloc : !axe.tensor<64x128xf16, shared, #axe.layout<(64, 2, 64) : (64, 4096, 1)>, #axe.swizzle<3, 3, 3>>
      %acc = axe.alloc : !acc
      %z = arith.constant 0.0 : f32
      axe.fill %acc, %z : !acc, f32
      axe.copy %A, %sa : !axe.tensor<128x64xf16, global, #axe.layout<(128, 64) : (64, 1)>>, !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
      axe.copy %B, %sb : !axe.tensor<64x128xf16, global, #axe.layout<(64, 128) : (128, 1)>>, !axe.tensor<64x128xf16, shared, #axe.layout<(64, 2, 64) : (64, 4096, 1)>, #axe.swizzle<3, 3, 3>>
      axe.barrier cta
      axe.gemm %sa, %sb, %acc : !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>, !axe.tensor<64x128xf16, shared, #axe.layout<(64, 2, 64) : (64, 4096, 1)>, #axe.swizzle<3, 3, 3>>, !acc
      axe.copy %acc, %C : !acc, !axe.tensor<128x128xf32, global, #axe.layout<(128, 128) : (128, 1)>>
    }
    return
  }
}

// -----

// Refused: a padded shared tile is no wgmma canonical layout (rows of 64 B with a 16-byte gap).
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @padded() {
    axe.kernel grid [1] threads [128] {
      %a = axe.alloc : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (40, 1)>>
      %b = axe.alloc : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (40, 1)>>
      %c = axe.alloc : !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
      // expected-error@+1 {{A ((64, 32) : (40, 1), no swizzle) is not a wgmma canonical layout: the K-major descriptor (leading offset 16 B, stride offset 640 B) reads element (1, 0) at byte 16, the layout stores it at byte 80}}
      axe.gemm %a, %b, %c {transpose_b} : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (40, 1)>>, !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (40, 1)>>, !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// Refused: a swizzle that is no descriptor mode.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @swizzle_mismatch() {
    axe.kernel grid [1] threads [128] {
      %a = axe.alloc : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<3, 4, 3>>
      %b = axe.alloc : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<3, 4, 3>>
      %c = axe.alloc : !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
      // expected-error@+1 {{A has #axe.swizzle<3, 4, 3>, which no wgmma descriptor swizzle mode matches for 16-bit elements (none, #axe.swizzle<1|2|3, 3, 3>)}}
      axe.gemm %a, %b, %c {transpose_b} : !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<3, 4, 3>>, !axe.tensor<64x32xf16, shared, #axe.layout<(64, 32) : (32, 1)>, #axe.swizzle<3, 4, 3>>, !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
    }
    return
  }
}

// -----

// FP8: e4m3 A [M, K] and B [N, K], both K-major with the 64-byte swizzle on bytes
// (#axe.swizzle<2, 4, 3>: 64-element rows), one warpgroup, K 64: the accumulator gets the same
// D fragment as for 16-bit inputs; two m64n64k32 wgmma (32 of K, 32 bytes, per instruction).
// CHECK-LABEL: func.func @fp8_wgmma
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[F0:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 64, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[F0]], <m = 64, n = 64, k = 32>
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// PTX: .entry fp8_wgmma_kernel
// PTX-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
!acc = !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @fp8_wgmma(%a: memref<4096xf8E4M3FN> {axe.align = 16 : i64}, %b: memref<4096xf8E4M3FN> {axe.align = 16 : i64}, %c: memref<4096xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<4096xf8E4M3FN> to !axe.tensor<64x64xf8E4M3FN, global, #axe.layout<(64, 64) : (64, 1)>>
    %B = axe.view %b : memref<4096xf8E4M3FN> to !axe.tensor<64x64xf8E4M3FN, global, #axe.layout<(64, 64) : (64, 1)>>
    %C = axe.view %c : memref<4096xf32> to !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    axe.kernel grid [1] threads [128] {
      %sa = axe.alloc : !axe.tensor<64x64xf8E4M3FN, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<2, 4, 3>>
      %sb = axe.alloc : !axe.tensor<64x64xf8E4M3FN, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<2, 4, 3>>
      %acc = axe.alloc : !acc
      %z = arith.constant 0.0 : f32
      axe.fill %acc, %z : !acc, f32
      axe.copy %A, %sa : !axe.tensor<64x64xf8E4M3FN, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf8E4M3FN, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<2, 4, 3>>
      axe.copy %B, %sb : !axe.tensor<64x64xf8E4M3FN, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf8E4M3FN, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<2, 4, 3>>
      axe.barrier cta
      axe.gemm %sa, %sb, %acc {transpose_b} : !axe.tensor<64x64xf8E4M3FN, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<2, 4, 3>>, !axe.tensor<64x64xf8E4M3FN, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<2, 4, 3>>, !acc
      axe.copy %acc, %C : !acc, !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    }
    return
  }
}

// -----

// FP8 e5m2, unswizzled K-major tiles (8x16-byte core matrices: the leading offset steps 16
// bytes of K, the stride offset 8 rows).
// CHECK-LABEL: func.func @fp8_e5m2
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 32>, D[<f32>, <one>], A[<e5m2>, <one>, <row>], B[<e5m2>, <one>, <col>]
// PTX: .entry fp8_e5m2_kernel
// PTX: wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e5m2
!acc = !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @fp8_e5m2(%c: memref<4096xf32> {axe.align = 16 : i64}) {
    %C = axe.view %c : memref<4096xf32> to !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    axe.kernel grid [1] threads [128] {
      %sa = axe.alloc : !axe.tensor<64x32xf8E5M2, shared, #axe.layout<(8, 8, 2, 16) : (128, 16, 1024, 1)>>
      %sb = axe.alloc : !axe.tensor<64x32xf8E5M2, shared, #axe.layout<(8, 8, 2, 16) : (128, 16, 1024, 1)>>
      %acc = axe.alloc : !acc
      %z = arith.constant 0.0 : f32
      axe.fill %acc, %z : !acc, f32
      axe.gemm %sa, %sb, %acc {transpose_b} : !axe.tensor<64x32xf8E5M2, shared, #axe.layout<(8, 8, 2, 16) : (128, 16, 1024, 1)>>, !axe.tensor<64x32xf8E5M2, shared, #axe.layout<(8, 8, 2, 16) : (128, 16, 1024, 1)>>, !acc
      axe.copy %acc, %C : !acc, !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    }
    return
  }
}

// -----

// Refused: an FP8 B contiguous along N (wgmma transposes only 16-bit operands).
!c = !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @fp8_mn_major() {
    axe.kernel grid [1] threads [128] {
      %a = axe.alloc : !axe.tensor<64x64xf8E4M3FN, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<2, 4, 3>>
      %b = axe.alloc : !axe.tensor<64x64xf8E4M3FN, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<2, 4, 3>>
      %c = axe.alloc : !c
      // expected-error@+1 {{is contiguous along M/N; wgmma reads 8-bit operands only K-major (contiguous along K)}}
      axe.gemm %a, %b, %c : !axe.tensor<64x64xf8E4M3FN, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<2, 4, 3>>, !axe.tensor<64x64xf8E4M3FN, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<2, 4, 3>>, !c
    }
    return
  }
}

// -----

// Refused: the 16-bit element swizzle on FP8 tiles (the 128-byte mode on bytes is <3, 4, 3>).
!c = !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @fp8_swizzle_mismatch() {
    axe.kernel grid [1] threads [128] {
      %a = axe.alloc : !axe.tensor<64x128xf8E4M3FN, shared, #axe.layout<(64, 128) : (128, 1)>, #axe.swizzle<3, 3, 3>>
      %b = axe.alloc : !axe.tensor<64x128xf8E4M3FN, shared, #axe.layout<(64, 128) : (128, 1)>, #axe.swizzle<3, 3, 3>>
      %c = axe.alloc : !c
      // expected-error@+1 {{A has #axe.swizzle<3, 3, 3>, which no wgmma descriptor swizzle mode matches for 8-bit elements (none, #axe.swizzle<1|2|3, 4, 3>)}}
      axe.gemm %a, %b, %c {transpose_b} : !axe.tensor<64x128xf8E4M3FN, shared, #axe.layout<(64, 128) : (128, 1)>, #axe.swizzle<3, 3, 3>>, !axe.tensor<64x128xf8E4M3FN, shared, #axe.layout<(64, 128) : (128, 1)>, #axe.swizzle<3, 3, 3>>, !c
    }
    return
  }
}

// -----

// The swapped orientation of the small-batch MoE kernels (axe_gen.moe_ws): A is a
// weight tile stored [K, M] (M-major, two 64-column chunks with the 128-byte swizzle: the
// layout TMA writes a [64, 128] box in), B a 16-row token tile stored [N, K] (K-major), so
// C = A^T-stored x B^T-stored is [128 weight columns, 16 tokens]. One warpgroup takes both
// 64-row blocks: 2 x 4 wgmma m64n16k16, A read M-major (<col>), B K-major (<col>).
// CHECK-LABEL: func.func @swapped_wgmma
// CHECK-COUNT-8: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 16, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <col>], B[<f16>, <one>, <col>]
// CHECK-NOT: nvvm.wgmma.mma_async
// PTX-LABEL: .entry swapped_wgmma
// PTX-COUNT-8: wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16
!sacc = !axe.tensor<128x16xf32, register, #axe.layout<(2, 4, 2, 8, 2, 4, 2) : (8@reg, 1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
!sw = !axe.tensor<64x128xf16, shared, #axe.layout<(64, 2, 64) : (64, 4096, 1)>, #axe.swizzle<3, 3, 3>>
!st = !axe.tensor<16x64xf16, shared, #axe.layout<(16, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @swapped_wgmma(%c: memref<2048xf32> {axe.align = 16 : i64}) {
    %C = axe.view %c : memref<2048xf32> to !axe.tensor<128x16xf32, global, #axe.layout<(128, 16) : (16, 1)>>
    axe.kernel grid [1] threads [128] {
      %w = axe.alloc : !sw
      %t = axe.alloc : !st
      %acc = axe.alloc : !sacc
      %z = arith.constant 0.0 : f32
      axe.fill %acc, %z : !sacc, f32
      axe.scope warpgroup [0 : 1] {
        axe.gemm %w, %t, %acc {transpose_a, transpose_b} : !sw, !st, !sacc
      }
      axe.copy %acc, %C : !sacc, !axe.tensor<128x16xf32, global, #axe.layout<(128, 16) : (16, 1)>>
    }
    return
  }
}

// -----

// The same warpgroup gemm on sm_90a with its accumulator declared as a tiling of the mma.sync
// m16n8k16 atom (the 4 warps side by side, each 64 x 16) lowers to ldmatrix + mma.sync, not
// wgmma: the instruction follows the accumulator's layout (what axe_gen.gemm_ws's sm_90a-mma
// kernels use to keep mma.sync beside setmaxnreg). Per warp: 4 atom rows x 2 atom columns x
// 4 k16 steps = 32 mma.sync.
// CHECK-LABEL: func.func @warpgroup_mma_sync
// CHECK-NOT: nvvm.wgmma
// CHECK: nvgpu.ldmatrix
// CHECK-NOT: nvvm.wgmma
// CHECK-COUNT-32: nvgpu.mma.sync
// CHECK-NOT: nvvm.wgmma
// CHECK: return
// PTX-LABEL: .entry warpgroup_mma_sync
// PTX-NOT: wgmma
// PTX-COUNT-32: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-NOT: wgmma
// PTX: ret;
!mma_acc = !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 2, 4, 4, 2) : (8@reg, 2@reg, 4@lane, 4@reg, 1@warp, 1@lane, 1@reg)>>
!tile = !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @warpgroup_mma_sync(%a: memref<4096xf16> {axe.align = 16 : i64}, %b: memref<4096xf16> {axe.align = 16 : i64}, %c: memref<4096xf32> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<4096xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
    %B = axe.view %b : memref<4096xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
    %C = axe.view %c : memref<4096xf32> to !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    axe.kernel grid [1] threads [128] {
      %sa = axe.alloc : !tile
      %sb = axe.alloc : !tile
      %acc = axe.alloc : !mma_acc
      %z = arith.constant 0.0 : f32
      axe.fill %acc, %z : !mma_acc, f32
      axe.copy %A, %sa : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !tile
      axe.copy %B, %sb : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !tile
      axe.barrier cta
      axe.scope warpgroup [0 : 1] {
        axe.gemm %sa, %sb, %acc : !tile, !tile, !mma_acc
      }
      axe.copy %acc, %C : !mma_acc, !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    }
    return
  }
}

// -----

// A from registers (attention's P V): a 16-bit A whose layout is the m64k16 A fragment (the
// accumulator layout, as a cast of one gives it) becomes wgmma's register operand: four .b32
// registers per instruction, each two elements packed, in inline PTX (the NVVM op takes A
// only as a descriptor); B's descriptor MN-major (transposed), the accumulators tied.
// CHECK-LABEL: func.func @register_a
// CHECK: vector.from_elements %{{.*}}, %{{.*}} : vector<2xf16>
// CHECK-NEXT: llvm.bitcast %{{.*}} : vector<2xf16> to i32
// CHECK: llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, {{.*}}, $31}, {$32, $33, $34, $35}, $36, p, 1, 1, 1;\0A}", "=f,{{.*}},r,r,r,r,l,0,1,
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
!frag16 = !axe.tensor<64x64xf16, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
!acc2 = !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
!sv = !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @register_a() {
    axe.kernel grid [1] threads [128] {
      %sv = axe.alloc : !sv
      axe.scope warpgroup [0 : 1] {
        %p = axe.alloc : !frag16
        %o = axe.alloc : !acc2
        %z = arith.constant 0.0 : f32
        %h = arith.constant 1.0 : f16
        axe.fill %p, %h : !frag16, f16
        axe.fill %o, %z : !acc2, f32
        axe.gemm %p, %sv, %o : !frag16, !sv, !acc2
      }
    }
    return
  }
}

// -----

// `axe.wait %g1 outstanding 1` after a second async gemm: g1's group is complete (groups
// complete in order, one is left running), so its accumulator is fenced after the wait — its
// reads cannot move above it — while the second's is not (attention's softmax reads S while
// P V runs on).
// CHECK-LABEL: func.func @wait_for_the_older
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-COUNT-32: llvm.inline_asm has_side_effects "", "=f,0"
// CHECK-NOT: llvm.inline_asm has_side_effects "", "=f,0"
// CHECK: arith.addf
!accw = !axe.tensor<64x64xf32, register, #axe.layout<(4, 2, 8, 8, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>>
!sw = !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>, #axe.swizzle<3, 3, 3>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @wait_for_the_older() {
    axe.kernel grid [1] threads [128] {
      %sa = axe.alloc : !sw
      %sb = axe.alloc : !sw
      axe.scope warpgroup [0 : 1] {
        %c1 = axe.alloc : !accw
        %c2 = axe.alloc : !accw
        %z = arith.constant 0.0 : f32
        axe.fill %c1, %z : !accw, f32
        axe.fill %c2, %z : !accw, f32
        %g1 = axe.gemm async %sa, %sb, %c1 {transpose_b} : !sw, !sw, !accw -> !axe.token
        %g2 = axe.gemm async %sa, %sb, %c2 {transpose_b} : !sw, !sw, !accw -> !axe.token
        axe.wait %g1 outstanding 1
        axe.binary add %c1, %c1, %c1 : !accw, !accw, !accw
        axe.wait %g2
      }
    }
    return
  }
}
