// RUN: axe-opt %s --axe-emulate-on-cpu-pipeline | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// A register slice at CTA 0 of a CTA-distributed tensor is written by CTA 0 only; CTA 1's
// row keeps the fill. X holds i + 0.5, Y starts at -7.
// CHECK: [0.5,  1.5,  3,  3]
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @k(%x: memref<4xf32>, %y: memref<4xf32>) {
    %X = axe.view %x : memref<4xf32> to !axe.tensor<2x2xf32, global, #axe.layout<(2, 2) : (2, 1)>>
    %Y = axe.view %y : memref<4xf32> to !axe.tensor<2x2xf32, global, #axe.layout<(2, 2) : (2, 1)>>
    axe.kernel grid [2] threads [32] {
      %r = axe.alloc : !axe.tensor<2x2xf32, register, #axe.layout<(2, 2) : (1@cta, 1@reg)>>
      %three = arith.constant 3.0 : f32
      axe.fill %r, %three : !axe.tensor<2x2xf32, register, #axe.layout<(2, 2) : (1@cta, 1@reg)>>, f32
      %xs = axe.slice %X [0 : 1, 0 : 2] : !axe.tensor<2x2xf32, global, #axe.layout<(2, 2) : (2, 1)>> to !axe.tensor<1x2xf32, global, ?>
      %rs = axe.slice %r [0 : 1, 0 : 2] : !axe.tensor<2x2xf32, register, #axe.layout<(2, 2) : (1@cta, 1@reg)>> to !axe.tensor<1x2xf32, register, ?>
      axe.copy %xs, %rs : !axe.tensor<1x2xf32, global, ?>, !axe.tensor<1x2xf32, register, ?>
      axe.copy %r, %Y : !axe.tensor<2x2xf32, register, #axe.layout<(2, 2) : (1@cta, 1@reg)>>, !axe.tensor<2x2xf32, global, #axe.layout<(2, 2) : (2, 1)>>
    }
    return
  }
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %nx = arith.constant 4 : index
    %ny = arith.constant 4 : index
    %half = arith.constant 0.5 : f32
    %sent = arith.constant -7.0 : f32
    %x = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
    scf.for %i = %c0 to %nx step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %v = arith.addf %f, %half : f32
      memref.store %v, %x[%i] : memref<4xf32>
    }
    scf.for %i = %c0 to %ny step %c1 {
      memref.store %sent, %y[%i] : memref<4xf32>
    }
    call @k(%x, %y) : (memref<4xf32>, memref<4xf32>) -> ()
    %u = memref.cast %y : memref<4xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }
}
