// RUN: axe-opt %s --axe-emulate-on-cpu-pipeline | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// Slices of a `?` shared tensor get L[R:S] of the layout axe-infer-layout chooses for it
// (before the fix each slice got a layout of its own, which the lowering refused).
// X holds i + 0.5; Y starts as -7 (a sentinel); Y is printed.
// CHECK: [0.5,  1.5,  2.5,  3.5,  4.5,  5.5,  6.5,  7.5]
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @k(%x: memref<8xf32>, %y: memref<8xf32>) {
    %X = axe.view %x : memref<8xf32> to !axe.tensor<2x4xf32, global, #axe.layout<(2, 4) : (4, 1)>>
    %Y = axe.view %y : memref<8xf32> to !axe.tensor<2x4xf32, global, #axe.layout<(2, 4) : (4, 1)>>
    axe.kernel grid [1] threads [32] {
      %s = axe.alloc : !axe.tensor<2x4xf32, shared, ?>
      %x0 = axe.slice %X [0 : 2, 0 : 2] : !axe.tensor<2x4xf32, global, #axe.layout<(2, 4) : (4, 1)>> to !axe.tensor<2x2xf32, global, ?>
      %s0 = axe.slice %s [0 : 2, 0 : 2] : !axe.tensor<2x4xf32, shared, ?> to !axe.tensor<2x2xf32, shared, ?>
      axe.copy %x0, %s0 : !axe.tensor<2x2xf32, global, ?>, !axe.tensor<2x2xf32, shared, ?>
      %x1 = axe.slice %X [0 : 2, 2 : 4] : !axe.tensor<2x4xf32, global, #axe.layout<(2, 4) : (4, 1)>> to !axe.tensor<2x2xf32, global, ?>
      %s1 = axe.slice %s [0 : 2, 2 : 4] : !axe.tensor<2x4xf32, shared, ?> to !axe.tensor<2x2xf32, shared, ?>
      axe.copy %x1, %s1 : !axe.tensor<2x2xf32, global, ?>, !axe.tensor<2x2xf32, shared, ?>
      axe.barrier cta
      axe.copy %s, %Y : !axe.tensor<2x4xf32, shared, ?>, !axe.tensor<2x4xf32, global, #axe.layout<(2, 4) : (4, 1)>>
    }
    return
  }
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %half = arith.constant 0.5 : f32
    %sent = arith.constant -7.0 : f32
    %x = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %v = arith.addf %f, %half : f32
      memref.store %v, %x[%i] : memref<8xf32>
      memref.store %sent, %y[%i] : memref<8xf32>
    }
    call @k(%x, %y) : (memref<8xf32>, memref<8xf32>) -> ()
    %u = memref.cast %y : memref<8xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }
}
