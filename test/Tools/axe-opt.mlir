// axe-opt behaves like mlir-opt because it is MlirOptMain with Axe registered.
//
// Reads stdin, writes -o, mixes Axe and upstream passes as flags and in --pass-pipeline.
// RUN: cat %s | axe-opt - --allow-unregistered-dialect --axe-canonicalize --cse -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: axe-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(func.func(cse),axe-canonicalize)' | FileCheck %s
// --mlir-print-ir-after-all names the Axe pass.
// RUN: axe-opt %s --allow-unregistered-dialect --axe-canonicalize --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=AFTER
// --help lists Axe's passes with their summaries next to upstream's.
// RUN: axe-opt --help | FileCheck %s --check-prefix=HELP
// Every malformed layout fails with file:line:col and exit code 1, one per split chunk.
// RUN: not axe-opt --allow-unregistered-dialect --split-input-file %S/Inputs/malformed-layouts.mlir 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: axe-opt --allow-unregistered-dialect %S/Inputs/malformed-layouts.mlir; test $? -eq 1

// AFTER: // -----// IR Dump After AxeCanonicalize (axe-canonicalize)
// HELP: --axe-canonicalize {{ *}}- Put every Axe layout into canonical form
// HELP: --canonicalize
// BAD: malformed-layouts.mlir:1:31: error: extent must be positive, got 0
// BAD: malformed-layouts.mlir:3:37: error: stride must be non-zero
// BAD: malformed-layouts.mlir:5:29: error: unbalanced '(' character in pretty dialect name
// BAD: malformed-layouts.mlir:7:40: error: unexpected '?' after layout
// BAD: malformed-layouts.mlir:9:31: error: integer 1180591620717411303424 does not fit in 64 bits

// CHECK-LABEL: func.func @f
// CHECK-NEXT: %[[V:.*]] = axe.view %{{.*}} : memref<32xf32> to !axe.tensor<8x4xf32, global, #axe.layout<(32) : (1)>>
// CHECK-NEXT: return %[[V]], %[[V]]
func.func @f(%b: memref<32xf32>) -> (!axe.tensor<8x4xf32, global, #axe.layout<(8, 4) : (4, 1)>>, !axe.tensor<8x4xf32, global, #axe.layout<(8, 4) : (4, 1)>>) {
  %t = axe.view %b : memref<32xf32> to !axe.tensor<8x4xf32, global, #axe.layout<(8, 4) : (4, 1)>>
  %u = axe.view %b : memref<32xf32> to !axe.tensor<8x4xf32, global, #axe.layout<(8, 4) : (4, 1)>>
  return %t, %u : !axe.tensor<8x4xf32, global, #axe.layout<(8, 4) : (4, 1)>>, !axe.tensor<8x4xf32, global, #axe.layout<(8, 4) : (4, 1)>>
}
