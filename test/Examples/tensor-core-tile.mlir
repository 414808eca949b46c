// A shipped example: layouts from the Axe paper (§2.2) on tensors, canonicalized.
// RUN: axe-opt %s --axe-canonicalize | FileCheck %s
// Every shipped example lowers: to gpu (the tile is filled by warps 5..10; a global tensor
// returned from a function crosses the boundary as its buffer) and on to PTX.
// RUN: axe-opt %s --convert-axe-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: axe-opt %s --axe-to-nvvm-pipeline=chip=sm_80 | FileCheck %s --check-prefix=PTX
// RUN: axe-opt %s --axe-to-nvvm-pipeline=chip=sm_90a | FileCheck %s --check-prefix=PTX
// GPU-LABEL: func.func @tensor_core_tile
// GPU: gpu.launch
// GPU: arith.cmpi
// GPU-LABEL: func.func @global_tile(%{{.*}}: memref<384xf16>) -> memref<384xf16>
// GPU-NEXT: return %{{.*}} : memref<384xf16>
// Nothing reads the filled registers: the kernel is dead and upstream canonicalization
// removes the launch.
// PTX: llvm.func @tensor_core_tile()
// PTX-NEXT: llvm.return
// PTX: llvm.func @global_tile(

module attributes {axe.target = #axe.target<"sm_80">} {

// The 8x16 tensor-core tile of a register tensor: rows over lanes and warps, columns over
// lanes and registers, replicated on warps 0/4 and offset to warp 5.
// The tile uses warps 5..10, so the kernel has 12 warps (384 threads).
// CHECK-LABEL: func.func @tensor_core_tile
// CHECK: axe.kernel grid [1] threads [384]
// CHECK: %[[T:.*]] = axe.alloc : !axe.tensor<8x16xf16, register, #axe.layout<(8, 2, 4, 2) : (4@lane, 1@warp, 1@lane, 1@reg) + [(2) : (4@warp)] + 5@warp>>
// CHECK: axe.fill %[[T]]
func.func @tensor_core_tile() {
  axe.kernel grid [1] threads [384] {
    %t = axe.alloc : !axe.tensor<8x16xf16, register, #axe.layout<(8, 2, 4, 2) : (4@lane, 1@warp, 1@lane, 1@reg) + [(2) : (4@warp)] + 5@warp>>
    %one = arith.constant 1.0 : f16
    axe.fill %t, %one : !axe.tensor<8x16xf16, register, #axe.layout<(8, 2, 4, 2) : (4@lane, 1@warp, 1@lane, 1@reg) + [(2) : (4@warp)] + 5@warp>>, f16
  }
  return
}

// A row-major 16x24 tile of a global buffer: canonicalization merges it into one iter.
// CHECK-LABEL: func.func @global_tile
// CHECK: axe.view %{{.*}} : memref<384xf16> to !axe.tensor<16x24xf16, global, #axe.layout<(384) : (1)>>
func.func @global_tile(%buf: memref<384xf16>) -> !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>> {
  %t = axe.view %buf : memref<384xf16> to !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>>
  return %t : !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>>
}
}
