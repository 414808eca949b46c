// Windows with run-time ends (`axe.slice %t [%o : +size until %end, ...]`): the rows of one
// group of a grouped GEMM, at any origin, of which those at or past min(%end, rows) do not
// exist. The window's offset is origin * row stride (no tile division); loads of rows that do
// not exist give zero (scf.if yielding a zero vector), stores to them are skipped, cp.async
// reads only the bytes that exist and zero-fills the rest (its src-size operand), and TMA
// refuses a window that may end inside its tensor (its zero fill and store clipping stop only
// at the tensor's own bounds).
// RUN: axe-opt %s --split-input-file --convert-axe-to-gpu --verify-diagnostics | FileCheck %s
// The refused cases fail the pipeline too; the others' PTX is printed.
// RUN: not axe-opt %s --split-input-file --axe-to-nvvm-pipeline="chip=sm_90a features=+ptx80" 2>/dev/null | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: func.func @registers
// The bound: min(%end, 64) - %origin rows of the window exist.
// CHECK: %[[END:.*]] = arith.minsi %arg3, %c64{{.*}} : index
// CHECK: %[[ROWS:.*]] = arith.subi %[[END]], %arg2 : index
// The load: predicated on the row, a zero vector otherwise.
// CHECK: %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %[[ROWS]] : index
// CHECK: %[[V:.*]] = scf.if %[[IN]] -> (vector<4xf32>) {
// CHECK: %[[L:.*]] = vector.load %{{.*}} : memref<1024xf32>, vector<4xf32>
// CHECK-NEXT: scf.yield %[[L]] : vector<4xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK-NEXT: scf.yield %[[Z]] : vector<4xf32>
// The store: predicated alike.
// CHECK: scf.if %{{.*}} {
// CHECK: vector.store %{{.*}}, %{{.*}} : memref<1024xf32>, vector<4xf32>
// CHECK-NEXT: }
// PTX-LABEL: gpu.binary @registers_kernel
// PTX-SAME: min.s64 \09[[END:%rd[0-9]+]], %rd{{[0-9]+}}, 64;
// PTX-SAME: setp.ge.s64 \09[[OUT:%p[0-9]+]], %rd{{[0-9]+}}, %rd{{[0-9]+}};
// PTX-SAME: @[[OUT]] bra
// PTX-SAME: ld.global.v4.b32
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @registers(%x: memref<1024xf32> {axe.align = 16 : i64}, %y: memref<1024xf32> {axe.align = 16 : i64}, %o: index, %e: index) {
    %X = axe.view %x : memref<1024xf32> to !axe.tensor<64x16xf32, global, #axe.layout<(64, 16) : (16, 1)>>
    %Y = axe.view %y : memref<1024xf32> to !axe.tensor<64x16xf32, global, #axe.layout<(64, 16) : (16, 1)>>
    axe.kernel grid [1] threads [32] {
      %xs = axe.slice %X [%o : +8 until %e, 0 : 16] : !axe.tensor<64x16xf32, global, #axe.layout<(64, 16) : (16, 1)>> to !axe.tensor<8x16xf32, global, #axe.layout<(8, 16) : (16, 1)>>
      %ys = axe.slice %Y [%o : +8 until %e, 0 : 16] : !axe.tensor<64x16xf32, global, #axe.layout<(64, 16) : (16, 1)>> to !axe.tensor<8x16xf32, global, #axe.layout<(8, 16) : (16, 1)>>
      %v = axe.alloc : !axe.tensor<8x16xf32, register, #axe.layout<(8, 4, 4) : (4@lane, 1@lane, 1@reg)>>
      axe.copy %xs, %v : !axe.tensor<8x16xf32, global, #axe.layout<(8, 16) : (16, 1)>>, !axe.tensor<8x16xf32, register, #axe.layout<(8, 4, 4) : (4@lane, 1@lane, 1@reg)>>
      axe.copy %v, %ys : !axe.tensor<8x16xf32, register, #axe.layout<(8, 4, 4) : (4@lane, 1@lane, 1@reg)>>, !axe.tensor<8x16xf32, global, #axe.layout<(8, 16) : (16, 1)>>
    }
    return
  }
}

// -----

// cp.async of a window of 64 f16 rows x 64 columns (16-byte accesses along the rows): each
// access reads 16 bytes where its row exists and 0 where it does not (zero fill).
// CHECK-LABEL: func.func @cp_async
// CHECK: scf.for
// CHECK: %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : index
// CHECK: %[[N:.*]] = arith.select %[[IN]], %c16{{.*}}, %c0{{.*}} : index
// CHECK: %[[N32:.*]] = arith.index_cast %[[N]] : index to i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %[[N32]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
// PTX-LABEL: gpu.binary @cp_async_kernel
// PTX-SAME: selp.b32 \09[[N:%r[0-9]+]], 16, 0, %p{{[0-9]+}};
// PTX-SAME: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, [[N]];
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @cp_async(%a: memref<65536xf16> {axe.align = 16 : i64}, %o: index, %e: index) {
    %A = axe.view %a : memref<65536xf16> to !axe.tensor<1024x64xf16, global, #axe.layout<(1024, 64) : (64, 1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>>
      %w = axe.slice %A [%o : +64 until %e, 0 : 64] : !axe.tensor<1024x64xf16, global, #axe.layout<(1024, 64) : (64, 1)>> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
      axe.copy %w, %s schedule cp_async : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>>
    }
    return
  }
}

// -----

// Along the access (a window of columns, the contiguous dimension): the window may start at
// any column, so accesses are single f32 elements (4 bytes, the alignment its origin keeps),
// each reading clamp(bound - column, 0, 1) elements.
// CHECK-LABEL: func.func @cp_async_columns
// CHECK: scf.for
// CHECK: %[[LEFT:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK: %[[LO:.*]] = arith.minsi %[[LEFT]], %c1{{.*}} : index
// CHECK: %[[CNT:.*]] = arith.maxsi %[[LO]], %c0{{.*}} : index
// CHECK: %[[B:.*]] = arith.muli %[[CNT]], %c4{{.*}} : index
// CHECK: %[[B32:.*]] = arith.index_cast %[[B]] : index to i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 4, cache = ca, %[[B32]]
// PTX-LABEL: gpu.binary @cp_async_columns_kernel
// PTX-SAME: cp.async.ca.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 4, %r{{[0-9]+}};
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @cp_async_columns(%a: memref<65536xf32> {axe.align = 16 : i64}, %o: index, %e: index) {
    %A = axe.view %a : memref<65536xf32> to !axe.tensor<64x1024xf32, global, #axe.layout<(64, 1024) : (1024, 1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<64x64xf32, shared, #axe.layout<(64, 64) : (64, 1)>>
      %w = axe.slice %A [0 : 64, %o : +64 until %e] : !axe.tensor<64x1024xf32, global, #axe.layout<(64, 1024) : (1024, 1)>> to !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (1024, 1)>>
      axe.copy %w, %s schedule cp_async : !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (1024, 1)>>, !axe.tensor<64x64xf32, shared, #axe.layout<(64, 64) : (64, 1)>>
    }
    return
  }
}

// -----

// In f16 the same window allows only 2-byte accesses, which cp.async cannot make.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @cp_async_columns_f16(%a: memref<65536xf16> {axe.align = 16 : i64}, %o: index, %e: index) {
    %A = axe.view %a : memref<65536xf16> to !axe.tensor<64x1024xf16, global, #axe.layout<(64, 1024) : (1024, 1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>>
      %w = axe.slice %A [0 : 64, %o : +64 until %e] : !axe.tensor<64x1024xf16, global, #axe.layout<(64, 1024) : (1024, 1)>> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (1024, 1)>>
      // expected-error @+1 {{cp.async moves 4, 8 or 16 aligned bytes per access, but this source starts at a run-time origin that is only known to be a multiple of 2 bytes (a window at any origin, 'until', moves by its dimension's stride); copy it through registers, or window a dimension whose stride is a multiple of 16 bytes}}
      axe.copy %w, %s schedule cp_async : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (1024, 1)>>, !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>>
    }
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @tma(%a: memref<65536xf16> {axe.align = 16 : i64}, %o: index, %e: index) {
    %A = axe.view %a : memref<65536xf16> to !axe.tensor<1024x64xf16, global, #axe.layout<(1024, 64) : (64, 1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>>
      %w = axe.slice %A [%o : +64 until %e, 0 : 64] : !axe.tensor<1024x64xf16, global, #axe.layout<(1024, 64) : (64, 1)>> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
      // expected-error @+1 {{the source of this TMA copy ends at run time ('until'): TMA fills zeros and clips stores only at the tensor's own bounds; copy the window with schedule cp_async or through registers (predicated accesses)}}
      axe.copy %w, %s schedule tma : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>>
    }
    return
  }
}

// -----

// A window that ends at its tensor's end (a constant at or past the rows) is TMA's own bound:
// TMA copies it from any row, the row itself its coordinate (a sequence's rows of a packed
// batch, whose rows past the sequence the kernel masks).
// CHECK-LABEL: func.func @tma_to_tensor_end
// CHECK: %[[ROW:.*]] = arith.addi %arg1, %{{.*}} : index
// CHECK-NEXT: %[[R32:.*]] = arith.index_cast %[[ROW]] : index to i32
// CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %[[R32]]]
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @tma_to_tensor_end(%a: memref<65536xf16> {axe.align = 16 : i64}, %o: index) {
    %A = axe.view %a : memref<65536xf16> to !axe.tensor<1024x64xf16, global, #axe.layout<(1024, 64) : (64, 1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>>
      %end = arith.constant 1024 : index
      %w = axe.slice %A [%o : +64 until %end, 0 : 64] : !axe.tensor<1024x64xf16, global, #axe.layout<(1024, 64) : (64, 1)>> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
      axe.copy %w, %s schedule tma : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>>
    }
    return
  }
}

// -----

// A constant end inside the tensor is still a bound TMA does not have.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @tma_end_inside(%a: memref<65536xf16> {axe.align = 16 : i64}, %o: index) {
    %A = axe.view %a : memref<65536xf16> to !axe.tensor<1024x64xf16, global, #axe.layout<(1024, 64) : (64, 1)>>
    axe.kernel grid [1] threads [128] {
      %s = axe.alloc : !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>>
      %end = arith.constant 1000 : index
      %w = axe.slice %A [%o : +64 until %end, 0 : 64] : !axe.tensor<1024x64xf16, global, #axe.layout<(1024, 64) : (64, 1)>> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>
      // expected-error @+1 {{the source of this TMA copy ends at run time ('until')}}
      axe.copy %w, %s schedule tma : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1)>>, !axe.tensor<64x64xf16, shared, #axe.layout<(64, 64) : (64, 1)>>
    }
    return
  }
}

// -----

// A window is an axe.copy operand only.
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @not_a_copy(%x: memref<1024xf32>, %o: index, %e: index) {
    %X = axe.view %x : memref<1024xf32> to !axe.tensor<64x16xf32, global, #axe.layout<(64, 16) : (16, 1)>>
    axe.kernel grid [1] threads [32] {
      %xs = axe.slice %X [%o : +8 until %e, 0 : 16] : !axe.tensor<64x16xf32, global, #axe.layout<(64, 16) : (16, 1)>> to !axe.tensor<8x16xf32, global, #axe.layout<(8, 16) : (16, 1)>>
      %c = arith.constant 1.0 : f32
      // expected-error @+1 {{a slice with a run-time end ('until', a window whose last elements may not exist) is lowered as an axe.copy operand only (its partial accesses are predicated), not of 'axe.fill'}}
      axe.fill %xs, %c : !axe.tensor<8x16xf32, global, #axe.layout<(8, 16) : (16, 1)>>, f32
    }
    return
  }
}

// -----

// A {clip} source tile (the last row tile of a 10 x 12 tensor in 8-row tiles) is read by
// predicated loads too: 10 - origin rows exist, the others read as zero.
// CHECK-LABEL: func.func @clipped_source
// CHECK: %[[ROWS:.*]] = arith.subi %c10{{.*}}, %{{.*}} : index
// CHECK: %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %[[ROWS]] : index
// CHECK: scf.if %[[IN]] -> (f32) {
// CHECK: memref.load %{{.*}} : memref<120xf32>
// CHECK: } else {
// CHECK-NEXT: arith.constant 0.000000e+00 : f32
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @clipped_source(%y: memref<120xf32>) {
    %Y = axe.view %y : memref<120xf32> to !axe.tensor<10x12xf32, global, #axe.layout<(10, 12) : (12, 1)>>
    axe.kernel grid [2] threads [32] {
      %c = axe.unit_id cta
      %c8 = arith.constant 8 : index
      %o = arith.muli %c, %c8 : index
      %d = axe.slice %Y [%o : +8, 0 : 12] {clip} : !axe.tensor<10x12xf32, global, #axe.layout<(10, 12) : (12, 1)>> to !axe.tensor<8x12xf32, global, #axe.layout<(8, 12) : (12, 1)>>
      %v = axe.alloc : !axe.tensor<8x12xf32, register, #axe.layout<(8, 4, 3) : (4@lane, 1@lane, 1@reg)>>
      axe.copy %d, %v : !axe.tensor<8x12xf32, global, #axe.layout<(8, 12) : (12, 1)>>, !axe.tensor<8x12xf32, register, #axe.layout<(8, 4, 3) : (4@lane, 1@lane, 1@reg)>>
    }
    return
  }
}
