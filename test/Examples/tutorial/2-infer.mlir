// Tutorial step 2 (docs/tutorial.md): layouts left to axe-infer-layout.
// RUN: axe-opt %s --axe-infer-layout | FileCheck %s --check-prefix=INFER
// RUN: axe-opt %s --axe-emulate-on-cpu-pipeline | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
//
// Step 1's kernel with the register layout left as `?`. axe-infer-layout chooses one that
// makes the copies coalesced and vectorized: 16 lanes each hold 4 consecutive elements (one
// 16-byte access), and the other 16 lanes hold a replica of the same elements
// (`+ [(2) : (16@lane)]`).
// INFER: axe.alloc : !axe.tensor<2x32xf32, register, #axe.layout<(16, 4) : (1@lane, 1@reg) + [(2) : (16@lane)]>>
// The output is step 1's.
// CHECK: [0.25,  2.25,  6.25,  12.25,
// CHECK-SAME: 4032.25]
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @square_inferred(%x: memref<64xf32>, %y: memref<64xf32>) {
    // Global tensors: a memref viewed with a row-major memory layout (stride 32 between rows).
    %X = axe.view %x : memref<64xf32> to !axe.tensor<2x32xf32, global, #axe.layout<(2, 32) : (32, 1)>>
    %Y = axe.view %y : memref<64xf32> to !axe.tensor<2x32xf32, global, #axe.layout<(2, 32) : (32, 1)>>
    axe.kernel grid [1] threads [32] {
      // A register tensor whose layout the compiler chooses.
      %a = axe.alloc : !axe.tensor<2x32xf32, register, ?>
      // Every thread loads the elements its layout gives it, and nothing else.
      axe.copy %X, %a : !axe.tensor<2x32xf32, global, #axe.layout<(2, 32) : (32, 1)>>, !axe.tensor<2x32xf32, register, ?>
      axe.binary mul %a, %a, %a : !axe.tensor<2x32xf32, register, ?>, !axe.tensor<2x32xf32, register, ?>, !axe.tensor<2x32xf32, register, ?>
      axe.copy %a, %Y : !axe.tensor<2x32xf32, register, ?>, !axe.tensor<2x32xf32, global, #axe.layout<(2, 32) : (32, 1)>>
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
    call @square_inferred(%x, %y) : (memref<64xf32>, memref<64xf32>) -> ()
    %u = memref.cast %y : memref<64xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }
}
