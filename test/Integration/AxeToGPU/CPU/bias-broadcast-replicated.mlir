// RUN: axe-opt %s --axe-emulate-on-cpu-pipeline | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// A bias row replicated over every lane, added to a lane-distributed tensor (the
// conversion axe-infer-layout inserts reads the replica's registers; before the fix every
// lane added bias[0]).
// X holds i + 0.5; Y starts as -7 (a sentinel); Y is printed.
// CHECK: [0.5,  101.5,  202.5,  303.5,  4.5,  105.5,  206.5,  307.5]
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @k(%x: memref<8xf32>, %bias: memref<4xf32>, %y: memref<8xf32>) {
    %X = axe.view %x : memref<8xf32> to !axe.tensor<2x4xf32, global, #axe.layout<(2, 4) : (4, 1)>>
    %B = axe.view %bias : memref<4xf32> to !axe.tensor<1x4xf32, global, #axe.layout<(1, 4) : (4, 1)>>
    %Y = axe.view %y : memref<8xf32> to !axe.tensor<2x4xf32, global, #axe.layout<(2, 4) : (4, 1)>>
    axe.kernel grid [1] threads [32] {
      %a = axe.alloc : !axe.tensor<2x4xf32, register, #axe.layout<(2, 4) : (1@reg, 1@lane)>>
      %b = axe.alloc : !axe.tensor<1x4xf32, register, #axe.layout<(4) : (1@reg) + [(32) : (1@lane)]>>
      %d = axe.alloc : !axe.tensor<2x4xf32, register, #axe.layout<(2, 4) : (1@reg, 1@lane)>>
      axe.copy %X, %a : !axe.tensor<2x4xf32, global, #axe.layout<(2, 4) : (4, 1)>>, !axe.tensor<2x4xf32, register, #axe.layout<(2, 4) : (1@reg, 1@lane)>>
      axe.copy %B, %b : !axe.tensor<1x4xf32, global, #axe.layout<(1, 4) : (4, 1)>>, !axe.tensor<1x4xf32, register, #axe.layout<(4) : (1@reg) + [(32) : (1@lane)]>>
      axe.binary add %a, %b, %d : !axe.tensor<2x4xf32, register, #axe.layout<(2, 4) : (1@reg, 1@lane)>>, !axe.tensor<1x4xf32, register, #axe.layout<(4) : (1@reg) + [(32) : (1@lane)]>>, !axe.tensor<2x4xf32, register, #axe.layout<(2, 4) : (1@reg, 1@lane)>>
      axe.copy %d, %Y : !axe.tensor<2x4xf32, register, #axe.layout<(2, 4) : (1@reg, 1@lane)>>, !axe.tensor<2x4xf32, global, #axe.layout<(2, 4) : (4, 1)>>
    }
    return
  }
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 8 : index
    %nc = arith.constant 4 : index
    %half = arith.constant 0.5 : f32
    %hundred = arith.constant 100.0 : f32
    %sent = arith.constant -7.0 : f32
    %x = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
    %bias = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
    scf.for %i = %c0 to %n step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %v = arith.addf %f, %half : f32
      memref.store %v, %x[%i] : memref<8xf32>
      memref.store %sent, %y[%i] : memref<8xf32>
    }
    scf.for %i = %c0 to %nc step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %v = arith.mulf %f, %hundred : f32
      memref.store %v, %bias[%i] : memref<4xf32>
    }
    call @k(%x, %bias, %y) : (memref<8xf32>, memref<4xf32>, memref<8xf32>) -> ()
    %u = memref.cast %y : memref<8xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }
}
