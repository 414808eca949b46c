// RUN: axe-opt %s --axe-emulate-on-cpu-pipeline | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// x + x where the right operand is laid out (4, 2) : (1@reg, 1@lane) + [(2) : (2@lane)]:
// lanes 2 and 3 hold their elements through the replica, at registers that depend on the
// lane. Y = 2 X.
// CHECK: [1,  3,  5,  7,  9,  11,  13,  15]
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @k(%x: memref<8xf32>, %y: memref<8xf32>) {
    %X = axe.view %x : memref<8xf32> to !axe.tensor<2x4xf32, global, #axe.layout<(2, 4) : (4, 1)>>
    %Y = axe.view %y : memref<8xf32> to !axe.tensor<2x4xf32, global, #axe.layout<(2, 4) : (4, 1)>>
    axe.kernel grid [1] threads [32] {
      %a = axe.alloc : !axe.tensor<2x4xf32, register, #axe.layout<(2, 4) : (1@reg, 1@lane)>>
      %b = axe.alloc : !axe.tensor<2x4xf32, register, #axe.layout<(4, 2) : (1@reg, 1@lane) + [(2) : (2@lane)]>>
      %c = axe.alloc : !axe.tensor<2x4xf32, register, #axe.layout<(2, 4) : (1@reg, 1@lane)>>
      axe.copy %X, %a : !axe.tensor<2x4xf32, global, #axe.layout<(2, 4) : (4, 1)>>, !axe.tensor<2x4xf32, register, #axe.layout<(2, 4) : (1@reg, 1@lane)>>
      axe.copy %X, %b : !axe.tensor<2x4xf32, global, #axe.layout<(2, 4) : (4, 1)>>, !axe.tensor<2x4xf32, register, #axe.layout<(4, 2) : (1@reg, 1@lane) + [(2) : (2@lane)]>>
      axe.binary add %a, %b, %c : !axe.tensor<2x4xf32, register, #axe.layout<(2, 4) : (1@reg, 1@lane)>>, !axe.tensor<2x4xf32, register, #axe.layout<(4, 2) : (1@reg, 1@lane) + [(2) : (2@lane)]>>, !axe.tensor<2x4xf32, register, #axe.layout<(2, 4) : (1@reg, 1@lane)>>
      axe.copy %c, %Y : !axe.tensor<2x4xf32, register, #axe.layout<(2, 4) : (1@reg, 1@lane)>>, !axe.tensor<2x4xf32, global, #axe.layout<(2, 4) : (4, 1)>>
    }
    return
  }
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %nx = arith.constant 8 : index
    %ny = arith.constant 8 : index
    %half = arith.constant 0.5 : f32
    %sent = arith.constant -7.0 : f32
    %x = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
    scf.for %i = %c0 to %nx step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %v = arith.addf %f, %half : f32
      memref.store %v, %x[%i] : memref<8xf32>
    }
    scf.for %i = %c0 to %ny step %c1 {
      memref.store %sent, %y[%i] : memref<8xf32>
    }
    call @k(%x, %y) : (memref<8xf32>, memref<8xf32>) -> ()
    %u = memref.cast %y : memref<8xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }
}
