// Stock mlir-opt (LLVM 22, linking libMLIR.so) loads Axe as a dialect and pass plugin: the IR
// parses through the Rust layout grammar and the Rust axe-canonicalize body runs in its pipeline.
// RUN: %mlir_opt --load-dialect-plugin=%axe_plugin --load-pass-plugin=%axe_plugin %s --pass-pipeline='builtin.module(axe-canonicalize,canonicalize)' | FileCheck %s
// (Upstream mlir-opt parses per-pass flags before it loads pass plugins, so plugin passes are
// reached through --pass-pipeline, as in every pass-plugin test of MLIR itself.)
// The plugin's passes are listed by mlir-opt's --help.
// RUN: %mlir_opt --load-pass-plugin=%axe_plugin --help | FileCheck %s --check-prefix=HELP
// Diagnostics from the Rust grammar keep their exact location under mlir-opt.
// RUN: not %mlir_opt --load-dialect-plugin=%axe_plugin %S/Inputs/bad-layout.mlir 2>&1 | FileCheck %s --check-prefix=ERR
// And --verify-diagnostics works with them.
// RUN: %mlir_opt --load-dialect-plugin=%axe_plugin %S/Inputs/bad-layout.mlir --verify-diagnostics

// HELP: --axe-canonicalize
// HELP-SAME: Put every Axe layout into canonical form
// ERR: bad-layout.mlir:2:68: error: stride must be non-zero

// CHECK-LABEL: func.func @f
// CHECK: axe.view %{{.*}} : memref<32xf32> to !axe.tensor<8x4xf32, global, #axe.layout<(32) : (1)>>
func.func @f(%b: memref<32xf32>) -> !axe.tensor<8x4xf32, global, #axe.layout<(8, 1, 4) : (4, 9, 1)>> {
  %t = axe.view %b : memref<32xf32> to !axe.tensor<8x4xf32, global, #axe.layout<(8, 1, 4) : (4, 9, 1)>>
  return %t : !axe.tensor<8x4xf32, global, #axe.layout<(8, 1, 4) : (4, 9, 1)>>
}
