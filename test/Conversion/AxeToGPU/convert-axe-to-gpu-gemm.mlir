// axe.gemm -> nvgpu.mma.sync m16n8k16: fragments of shared operands are loaded into registers
// by their layouts, then one mma.sync per (m atom, n atom, k atom) a warp owns.
// RUN: axe-opt %s --axe-infer-layout --convert-axe-to-gpu 2>/dev/null | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm-pipeline='chip=sm_80' 2>/dev/null | FileCheck %s --check-prefix=PTX

// One warp, C 16x16 (2 n atoms), K 32 (2 k atoms): 4 mma.sync; A fragments 16 f16 registers,
// B 16, C 8 f32.
// CHECK-LABEL: func.func @warp_gemm
// CHECK: gpu.launch
// CHECK-DAG: %[[ACC:.*]] = memref.alloca() : memref<8xf32>
// CHECK-DAG: %[[AF:.*]] = memref.alloca() : memref<16xf16>
// CHECK-DAG: %[[BF:.*]] = memref.alloca() : memref<16xf16>
// CHECK-COUNT-4: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK-NOT: nvgpu.mma.sync
// CHECK: gpu.terminator
// PTX-COUNT-4: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @warp_gemm(%a: memref<512xf16>, %b: memref<512xf16>, %c: memref<256xf32>) {
    %A = axe.view %a : memref<512xf16> to !axe.tensor<16x32xf16, global, #axe.layout<(16, 32) : (32, 1)>>
    %B = axe.view %b : memref<512xf16> to !axe.tensor<32x16xf16, global, #axe.layout<(32, 16) : (16, 1)>>
    %C = axe.view %c : memref<256xf32> to !axe.tensor<16x16xf32, global, #axe.layout<(16, 16) : (16, 1)>>
    axe.kernel grid [1] threads [32] {
      %sa = axe.alloc : !axe.tensor<16x32xf16, shared, ?>
      %sb = axe.alloc : !axe.tensor<32x16xf16, shared, ?>
      %acc = axe.alloc : !axe.tensor<16x16xf32, register, ?>
      %z = arith.constant 0.0 : f32
      axe.fill %acc, %z : !axe.tensor<16x16xf32, register, ?>, f32
      axe.copy %A, %sa : !axe.tensor<16x32xf16, global, #axe.layout<(16, 32) : (32, 1)>>, !axe.tensor<16x32xf16, shared, ?>
      axe.copy %B, %sb : !axe.tensor<32x16xf16, global, #axe.layout<(32, 16) : (16, 1)>>, !axe.tensor<32x16xf16, shared, ?>
      axe.barrier cta
      axe.gemm %sa, %sb, %acc : !axe.tensor<16x32xf16, shared, ?>, !axe.tensor<32x16xf16, shared, ?>, !axe.tensor<16x16xf32, register, ?>
      axe.copy %acc, %C : !axe.tensor<16x16xf32, register, ?>, !axe.tensor<16x16xf32, global, #axe.layout<(16, 16) : (16, 1)>>
    }
    return
  }
}
