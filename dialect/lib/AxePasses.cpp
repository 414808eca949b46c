//===- AxePasses.cpp - pass shells calling the Rust pass bodies ------------===//
//
// ODS generates each pass's base class (flag, options, registration); the
// shell's runOnOperation only forwards to the Rust body through the hooks.
//
//===----------------------------------------------------------------------===//

#include "Axe/AxePasses.h"
#include "Axe/AxeDialect.h"
#include "RustHooks.h"

#include "mlir/CAPI/IR.h"

namespace mlir::axe {
#define GEN_PASS_DEF_AXECANONICALIZE
#include "Axe/AxePasses.h.inc"
} // namespace mlir::axe

using namespace mlir;
using namespace mlir::axe;

/// Runs the Rust body named `argument` on `op`; true on success.
static bool runRustPass(llvm::StringRef argument, Operation *op,
                        llvm::StringRef options) {
  return rustHooks().runPass(argument.data(), argument.size(), wrap(op),
                             options.data(), options.size());
}

namespace {
struct AxeCanonicalizePass
    : public mlir::axe::impl::AxeCanonicalizeBase<AxeCanonicalizePass> {
  void runOnOperation() override {
    if (!runRustPass(getArgument(), getOperation(), ""))
      signalPassFailure();
  }
};
} // namespace

extern "C" void axeRegisterPasses(void) { registerAxePasses(); }
