// RUN: axe-opt %s --axe-emulate-on-cpu-pipeline | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// Lane iters whose strides do not divide each other, (2, 2, 5) : (5@lane, 16@lane, 1@lane):
// row 2a + b, column c on lane 5a + 16b + c. Digits are peeled off from the largest stride
// down (lane 16 is row 1, column 0; taking 16 mod 5 as the column lost rows 1 and 3).
// CHECK: [0.5,  1.5,  2.5,  3.5,  4.5,  5.5,  6.5,  7.5,  8.5,  9.5,  10.5,  11.5,  12.5,  13.5,  14.5,  15.5,  16.5,  17.5,  18.5,  19.5]
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @k(%x: memref<20xf32>, %y: memref<20xf32>) {
    %X = axe.view %x : memref<20xf32> to !axe.tensor<4x5xf32, global, #axe.layout<(4, 5) : (5, 1)>>
    %Y = axe.view %y : memref<20xf32> to !axe.tensor<4x5xf32, global, #axe.layout<(4, 5) : (5, 1)>>
    axe.kernel grid [1] threads [32] {
      %r = axe.alloc : !axe.tensor<4x5xf32, register, #axe.layout<(2, 2, 5) : (5@lane, 16@lane, 1@lane)>>
      axe.copy %X, %r : !axe.tensor<4x5xf32, global, #axe.layout<(4, 5) : (5, 1)>>, !axe.tensor<4x5xf32, register, #axe.layout<(2, 2, 5) : (5@lane, 16@lane, 1@lane)>>
      axe.copy %r, %Y : !axe.tensor<4x5xf32, register, #axe.layout<(2, 2, 5) : (5@lane, 16@lane, 1@lane)>>, !axe.tensor<4x5xf32, global, #axe.layout<(4, 5) : (5, 1)>>
    }
    return
  }
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %nx = arith.constant 20 : index
    %ny = arith.constant 20 : index
    %half = arith.constant 0.5 : f32
    %sent = arith.constant -7.0 : f32
    %x = memref.alloc() {alignment = 64 : i64} : memref<20xf32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<20xf32>
    scf.for %i = %c0 to %nx step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %v = arith.addf %f, %half : f32
      memref.store %v, %x[%i] : memref<20xf32>
    }
    scf.for %i = %c0 to %ny step %c1 {
      memref.store %sent, %y[%i] : memref<20xf32>
    }
    call @k(%x, %y) : (memref<20xf32>, memref<20xf32>) -> ()
    %u = memref.cast %y : memref<20xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }
}
