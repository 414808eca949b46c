// RUN: axe-opt %s --axe-emulate-on-cpu-pipeline | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// Lane iters that are not a mixed radix, (3, 2) : (1@lane, 4@lane): element (r, c) on
// lane r + 4c. Every element is loaded and stored (before the fix column 1 never was).
// X holds i + 0.5; Y starts as -7 (a sentinel); Y is printed.
// CHECK: [0.5,  1.5,  2.5,  3.5,  4.5,  5.5]
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @k(%x: memref<6xf32>, %y: memref<6xf32>) {
    %X = axe.view %x : memref<6xf32> to !axe.tensor<3x2xf32, global, #axe.layout<(3, 2) : (2, 1)>>
    %Y = axe.view %y : memref<6xf32> to !axe.tensor<3x2xf32, global, #axe.layout<(3, 2) : (2, 1)>>
    axe.kernel grid [1] threads [32] {
      %a = axe.alloc : !axe.tensor<3x2xf32, register, #axe.layout<(3, 2) : (1@lane, 4@lane)>>
      %b = axe.alloc : !axe.tensor<3x2xf32, register, #axe.layout<(3, 2) : (1@lane, 4@lane)>>
      axe.copy %X, %a : !axe.tensor<3x2xf32, global, #axe.layout<(3, 2) : (2, 1)>>, !axe.tensor<3x2xf32, register, #axe.layout<(3, 2) : (1@lane, 4@lane)>>
      axe.copy %a, %Y : !axe.tensor<3x2xf32, register, #axe.layout<(3, 2) : (1@lane, 4@lane)>>, !axe.tensor<3x2xf32, global, #axe.layout<(3, 2) : (2, 1)>>
    }
    return
  }
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 6 : index
    %half = arith.constant 0.5 : f32
    %sent = arith.constant -7.0 : f32
    %x = memref.alloc() {alignment = 64 : i64} : memref<6xf32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<6xf32>
    scf.for %i = %c0 to %n step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %v = arith.addf %f, %half : f32
      memref.store %v, %x[%i] : memref<6xf32>
      memref.store %sent, %y[%i] : memref<6xf32>
    }
    call @k(%x, %y) : (memref<6xf32>, memref<6xf32>) -> ()
    %u = memref.cast %y : memref<6xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }
}
