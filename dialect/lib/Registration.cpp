//===- Registration.cpp - axe-opt, axe-translate and the plugin entry ------===//
//
// The tools are upstream's own drivers (MlirOptMain, mlirTranslateMain) with
// Axe registered next to every upstream dialect, extension and pass.
//
//===----------------------------------------------------------------------===//

#include "Axe-c/Dialects.h"
#include "Axe/AxeDialect.h"
#include "Axe/AxePasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

using namespace mlir;

static void registerEverything(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  // As mlir-opt: gpu-module-to-binary translates gpu.modules to LLVM IR.
  registerAllGPUToLLVMIRTranslations(registry);
  registry.insert<axe::AxeDialect>();
}

extern "C" int axeOptMain(int argc, char **argv) {
  DialectRegistry registry;
  registerEverything(registry);
  registerAllPasses();
  axeRegisterPasses();
  return asMainReturnCode(
      MlirOptMain(argc, argv, "Axe optimizer driver\n", registry));
}

extern "C" void axeRegisterDialectPlugin(void *registry) {
  // Stock mlir-opt already registers every upstream dialect; add Axe only.
  static_cast<DialectRegistry *>(registry)->insert<axe::AxeDialect>();
}
