// What the manifest translation refuses, each with a located error: a launch that
// convert-axe-to-gpu did not produce (nothing recorded what its arguments must be).
// RUN: %mlir_opt %s --gpu-lower-to-nvvm-pipeline="cubin-format=isa" | not axe-translate --axe-to-launch-manifest 2>&1 | FileCheck %s

// CHECK: <stdin>:{{[0-9]+}}:{{[0-9]+}}: error: 'gpu.launch_func' op the launching function has no 'axe.arguments': only kernels lowered by convert-axe-to-gpu have a manifest
func.func @plain(%a: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%o = %c1, %p = %c1, %q = %c1) {
    %v = memref.load %a[%tx] : memref<16xf32>
    memref.store %v, %a[%tx] : memref<16xf32>
    gpu.terminator
  }
  return
}
