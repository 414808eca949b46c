// RUN: axe-opt %s --axe-emulate-on-cpu-pipeline | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s

// Signed i32 max/min (elementwise, relu, reductions) are lowered as unsigned max/min of the
// operands with their sign bits flipped (a ptxas miscompilation of max.s32 chains: see
// fuzz/gpu/repros). The values below cross zero and reach INT_MIN / INT_MAX, where a flip
// or a signedness mistake would show.
// X = [[-20, 3, -7, 11], [0, -1, 2147483647, -2147483648]], N = -X (INT_MIN stays INT_MIN).
// Y[0:8]  = max(X, N)          Y[8:16]  = min(X, N)        Y[16:24] = relu(X)
// Y[24:26] = row maxima of N   Y[26:28] = row minima of N  Y[28:30] = row maxima of relu(N)
// CHECK: [20,  3,  7,  11,  0,  1,  2147483647,  -2147483648,
// CHECK-SAME: -20,  -3,  -7,  -11,  0,  -1,  -2147483647,  -2147483648,
// CHECK-SAME: 0,  3,  0,  11,  0,  0,  2147483647,  0,
// CHECK-SAME: 20,  1,  -11,  -2147483648,  20,  1,  -99,  -99]
!g = !axe.tensor<2x4xi32, global, #axe.layout<(2, 4) : (4, 1)>>
!r = !axe.tensor<2x4xi32, register, #axe.layout<(2, 4) : (4@reg, 1@reg)>>
!v = !axe.tensor<2xi32, register, #axe.layout<(2) : (1@reg)>>
!gv = !axe.tensor<2xi32, global, #axe.layout<(2) : (1)>>
!y = !axe.tensor<32xi32, global, #axe.layout<(32) : (1)>>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @k(%x: memref<8xi32>, %y: memref<32xi32>) {
    %X = axe.view %x : memref<8xi32> to !g
    %Ymax = axe.view %y : memref<32xi32> to !axe.tensor<2x4xi32, global, #axe.layout<(2, 4) : (4, 1)>>
    %Ymin = axe.view %y : memref<32xi32> to !axe.tensor<2x4xi32, global, #axe.layout<(2, 4) : (4, 1) + 8>>
    %Yrelu = axe.view %y : memref<32xi32> to !axe.tensor<2x4xi32, global, #axe.layout<(2, 4) : (4, 1) + 16>>
    %Yrmax = axe.view %y : memref<32xi32> to !axe.tensor<2xi32, global, #axe.layout<(2) : (1) + 24>>
    %Yrmin = axe.view %y : memref<32xi32> to !axe.tensor<2xi32, global, #axe.layout<(2) : (1) + 26>>
    %Yrrelu = axe.view %y : memref<32xi32> to !axe.tensor<2xi32, global, #axe.layout<(2) : (1) + 28>>
    axe.kernel grid [1] threads [1] {
      %a = axe.alloc : !r
      %n = axe.alloc : !r
      %t = axe.alloc : !r
      %m = axe.alloc : !v
      axe.copy %X, %a : !g, !r
      axe.unary neg %a, %n : !r, !r
      axe.binary max %a, %n, %t : !r, !r, !r
      axe.copy %t, %Ymax : !r, !axe.tensor<2x4xi32, global, #axe.layout<(2, 4) : (4, 1)>>
      axe.binary min %a, %n, %t : !r, !r, !r
      axe.copy %t, %Ymin : !r, !axe.tensor<2x4xi32, global, #axe.layout<(2, 4) : (4, 1) + 8>>
      axe.unary relu %a, %t : !r, !r
      axe.copy %t, %Yrelu : !r, !axe.tensor<2x4xi32, global, #axe.layout<(2, 4) : (4, 1) + 16>>
      axe.reduce max %n, %m dims [1] : !r, !v
      axe.copy %m, %Yrmax : !v, !axe.tensor<2xi32, global, #axe.layout<(2) : (1) + 24>>
      axe.reduce min %n, %m dims [1] : !r, !v
      axe.copy %m, %Yrmin : !v, !axe.tensor<2xi32, global, #axe.layout<(2) : (1) + 26>>
      axe.unary relu %n, %t : !r, !r
      axe.reduce max %t, %m dims [1] : !r, !v
      axe.copy %m, %Yrrelu : !v, !axe.tensor<2xi32, global, #axe.layout<(2) : (1) + 28>>
    }
    return
  }
  func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %sent = arith.constant -99 : i32
    %x = memref.alloc() {alignment = 64 : i64} : memref<8xi32>
    %y = memref.alloc() {alignment = 64 : i64} : memref<32xi32>
    %v0 = arith.constant -20 : i32
    %v1 = arith.constant 3 : i32
    %v2 = arith.constant -7 : i32
    %v3 = arith.constant 11 : i32
    %v4 = arith.constant 0 : i32
    %v5 = arith.constant -1 : i32
    %v6 = arith.constant 2147483647 : i32
    %v7 = arith.constant -2147483648 : i32
    %i0 = arith.constant 0 : index
    %i2 = arith.constant 2 : index
    %i3 = arith.constant 3 : index
    %i4 = arith.constant 4 : index
    %i5 = arith.constant 5 : index
    %i6 = arith.constant 6 : index
    %i7 = arith.constant 7 : index
    memref.store %v0, %x[%i0] : memref<8xi32>
    memref.store %v1, %x[%c1] : memref<8xi32>
    memref.store %v2, %x[%i2] : memref<8xi32>
    memref.store %v3, %x[%i3] : memref<8xi32>
    memref.store %v4, %x[%i4] : memref<8xi32>
    memref.store %v5, %x[%i5] : memref<8xi32>
    memref.store %v6, %x[%i6] : memref<8xi32>
    memref.store %v7, %x[%i7] : memref<8xi32>
    scf.for %i = %c0 to %c32 step %c1 {
      memref.store %sent, %y[%i] : memref<32xi32>
    }
    call @k(%x, %y) : (memref<8xi32>, memref<32xi32>) -> ()
    %u = memref.cast %y : memref<32xi32> to memref<*xi32>
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    return
  }
}
