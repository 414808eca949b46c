// RUN: axe-opt %s --axe-emulate-on-cpu-pipeline | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// A TMA copy of a window at any row that ends at its tensor's end (`until` the row count):
// rows 5 .. 12 of a 10 x 4 tensor X[i, j] = 4 i + j, through shared memory and back to a
// window at row 1 of Y (12 x 4, filled with -1). Rows 10 and 11 do not exist: they are read as
// zero (TMA's fill past the tensor) and stored as such; Y's rows 0 and 9 .. 11 keep -1.
// CHECK: [-1,   -1,   -1,   -1],
// CHECK-NEXT: [20,   21,   22,   23],
// CHECK-NEXT: [24,   25,   26,   27],
// CHECK-NEXT: [28,   29,   30,   31],
// CHECK-NEXT: [32,   33,   34,   35],
// CHECK-NEXT: [36,   37,   38,   39],
// CHECK-NEXT: [0,   0,   0,   0],
// CHECK-NEXT: [0,   0,   0,   0],
// CHECK-NEXT: [-1,   -1,   -1,   -1],
// CHECK-NEXT: [-1,   -1,   -1,   -1],
// CHECK-NEXT: [-1,   -1,   -1,   -1],
// CHECK-NEXT: [-1,   -1,   -1,   -1]]
!x = !axe.tensor<10x4xf32, global, #axe.layout<(10, 4) : (4, 1)>>
!y = !axe.tensor<12x4xf32, global, #axe.layout<(12, 4) : (4, 1)>>
!w = !axe.tensor<7x4xf32, global, ?>
!s = !axe.tensor<7x4xf32, shared, #axe.layout<(7, 4) : (4, 1)>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @k(%x: memref<40xf32> {axe.align = 16 : i64}, %y: memref<48xf32> {axe.align = 16 : i64}) {
    %X = axe.view %x : memref<40xf32> to !x
    %Y = axe.view %y : memref<48xf32> to !y
    axe.kernel grid [1] threads [1] {
      %c1 = arith.constant 1 : index
      %c5 = arith.constant 5 : index
      %c10 = arith.constant 10 : index
      %c12 = arith.constant 12 : index
      %s = axe.alloc : !s
      %in = axe.slice %X [%c5 : +7 until %c10, 0 : 4] : !x to !w
      axe.copy %in, %s schedule tma : !w, !s
      %out = axe.slice %Y [%c1 : +7 until %c12, 0 : 4] : !y to !w
      axe.copy %s, %out schedule tma : !s, !w
    }
    return
  }
  func.func private @printMemrefF32(memref<*xf32>)
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c40 = arith.constant 40 : index
    %c48 = arith.constant 48 : index
    %m1 = arith.constant -1.0 : f32
    %x = memref.alloc() {alignment = 64 : i64} : memref<40xf32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<48xf32>
    scf.for %i = %c0 to %c40 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      memref.store %f, %x[%i] : memref<40xf32>
    }
    scf.for %i = %c0 to %c48 step %c1 {
      memref.store %m1, %y[%i] : memref<48xf32>
    }
    call @k(%x, %y) : (memref<40xf32>, memref<48xf32>) -> ()
    %v = memref.expand_shape %y [[0, 1]] output_shape [12, 4] : memref<48xf32> into memref<12x4xf32>
    %u = memref.cast %v : memref<12x4xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }
}
