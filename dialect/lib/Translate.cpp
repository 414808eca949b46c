//===- Translate.cpp - axe-translate and Axe's translations ---------------===//
//
// Each translation is registered with upstream's TranslateFromMLIRRegistration
// and forwards to its Rust body (passes/lib.rs `translate`). axe-translate is
// upstream's mlirTranslateMain with Axe's translations next to upstream's.
//
//===----------------------------------------------------------------------===//

#include "Axe-c/Dialects.h"
#include "Axe/AxeDialect.h"
#include "RustHooks.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

static void appendToStream(const char *data, size_t length, void *userData) {
  static_cast<llvm::raw_ostream *>(userData)->write(data, length);
}

/// Registers a translation named `name` whose body is the Rust function of
/// the same name.
static void registerRustTranslation(llvm::StringRef name,
                                    llvm::StringRef description) {
  TranslateFromMLIRRegistration(
      name, description,
      [name](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        return success(axe::rustHooks().translate(
            name.data(), name.size(), wrap(op), appendToStream, &os));
      },
      [](DialectRegistry &registry) {
        registerAllDialects(registry);
        registry.insert<axe::AxeDialect>();
      });
}

extern "C" int axeTranslateMain(int argc, char **argv) {
  registerAllTranslations();
  registerRustTranslation("axe-to-nki",
                          "emit an NKI Python kernel for AWS Trainium");
  registerRustTranslation(
      "axe-to-launch-manifest",
      "the launch contract (JSON) of a module lowered by axe-to-nvvm-pipeline: "
      "per kernel the PTX, grid, block, dynamic shared memory and parameters");
  return failed(mlirTranslateMain(argc, argv, "Axe translation driver"));
}
