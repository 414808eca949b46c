// Without `chip`, axe-to-nvvm-pipeline compiles for the module's #axe.target (an sm_90a module
// gets sm_90a PTX and wgmma, not an error or sm_90's mma.sync), and for sm_90 when the module
// names no target; a module for a target that is no GPU is refused at the module.
// RUN: axe-opt %s --axe-to-nvvm-pipeline --split-input-file --verify-diagnostics | FileCheck %s

// CHECK: gpu.binary @wgmma_kernel [#gpu.object<#nvvm.target<chip = "sm_90a", features = "+ptx80">
// CHECK-SAME: .target sm_90a
// CHECK-SAME: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
!s = !axe.tensor<64x16xf16, shared, #axe.layout<(64, 16) : (16, 1)>, #axe.swizzle<1, 3, 3>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @wgmma(%c: memref<4096xf32> {axe.align = 16 : i64}) {
    %C = axe.view %c : memref<4096xf32> to !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    axe.kernel grid [1] threads [128] {
      %a = axe.alloc : !s
      %b = axe.alloc : !s
      %acc = axe.alloc : !axe.tensor<64x64xf32, register, ?>
      %z = arith.constant 0.0 : f32
      axe.fill %acc, %z : !axe.tensor<64x64xf32, register, ?>, f32
      axe.gemm %a, %b, %acc {transpose_b} : !s, !s, !axe.tensor<64x64xf32, register, ?>
      axe.copy %acc, %C : !axe.tensor<64x64xf32, register, ?>, !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (64, 1)>>
    }
    return
  }
}

// -----

// CHECK: gpu.binary @plain_kernel [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">
// CHECK-SAME: .target sm_90
module {
  func.func @plain(%x: memref<128xf32>) {
    %X = axe.view %x : memref<128xf32> to !axe.tensor<128xf32, global, #axe.layout<(128) : (1)>>
    axe.kernel grid [1] threads [128] {
      %r = axe.alloc : !axe.tensor<128xf32, register, ?>
      axe.copy %X, %r : !axe.tensor<128xf32, global, #axe.layout<(128) : (1)>>, !axe.tensor<128xf32, register, ?>
      axe.copy %r, %X : !axe.tensor<128xf32, register, ?>, !axe.tensor<128xf32, global, #axe.layout<(128) : (1)>>
    }
    return
  }
}

// -----

// expected-error @+1 {{axe-lower-to-nvvm: 'trn1' is not a GPU target (no PTX lowering; a GPU chip= or #axe.target selects one)}}
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @nki_module() {
    return
  }
}
