// Tutorial step 1 (docs/tutorial.md): a first kernel, run on the CPU.
// RUN: axe-opt %s --axe-emulate-on-cpu-pipeline | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
//
// Y = X * X for a 2 x 32 tensor, on one warp: lane l holds column l (both rows, in two
// registers). X holds i + 0.5 (row-major i); Y is printed.
// CHECK: [0.25,  2.25,  6.25,  12.25,
// CHECK-SAME: 4032.25]
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @square(%x: memref<64xf32>, %y: memref<64xf32>) {
    // Global tensors: a memref viewed with a row-major memory layout (stride 32 between rows).
    %X = axe.view %x : memref<64xf32> to !axe.tensor<2x32xf32, global, #axe.layout<(2, 32) : (32, 1)>>
    %Y = axe.view %y : memref<64xf32> to !axe.tensor<2x32xf32, global, #axe.layout<(2, 32) : (32, 1)>>
    axe.kernel grid [1] threads [32] {
      // A register tensor: rows on the register axis, columns on the lane axis.
      %a = axe.alloc : !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@reg, 1@lane)>>
      // Every thread loads the elements its layout gives it, and nothing else.
      axe.copy %X, %a : !axe.tensor<2x32xf32, global, #axe.layout<(2, 32) : (32, 1)>>, !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@reg, 1@lane)>>
      axe.binary mul %a, %a, %a : !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@reg, 1@lane)>>, !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@reg, 1@lane)>>, !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@reg, 1@lane)>>
      axe.copy %a, %Y : !axe.tensor<2x32xf32, register, #axe.layout<(2, 32) : (1@reg, 1@lane)>>, !axe.tensor<2x32xf32, global, #axe.layout<(2, 32) : (32, 1)>>
    }
    return
  }
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 64 : index
    %half = arith.constant 0.5 : f32
    %x = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
    scf.for %i = %c0 to %n step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %v = arith.addf %f, %half : f32
      memref.store %v, %x[%i] : memref<64xf32>
    }
    call @square(%x, %y) : (memref<64xf32>, memref<64xf32>) -> ()
    %u = memref.cast %y : memref<64xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }
}
