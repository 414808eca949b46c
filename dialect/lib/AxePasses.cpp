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
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::axe {
#define GEN_PASS_DEF_AXEMATMULSCHEDULE
#define GEN_PASS_DEF_AXEEXPANDMATMUL
#define GEN_PASS_DEF_AXEEXPANDATTENTION
#define GEN_PASS_DEF_AXECANONICALIZE
#define GEN_PASS_DEF_AXESLICE
#define GEN_PASS_DEF_AXEINFERLAYOUT
#define GEN_PASS_DEF_CONVERTAXETOGPU
#define GEN_PASS_DEF_CONVERTLINALGTOAXE
#include "Axe/AxePasses.h.inc"
} // namespace mlir::axe

using namespace mlir;
using namespace mlir::axe;

bool mlir::axe::runRustPass(Pass &pass, Operation *op) {
  llvm::StringRef argument = pass.getArgument();
  std::string options = optionText(pass);
  return rustHooks().runPass(argument.data(), argument.size(), wrap(op),
                             options.data(), options.size());
}

std::string mlir::axe::optionText(Pass &pass) {
  std::string text;
  llvm::raw_string_ostream os(text);
  pass.printAsTextualPipeline(os);
  size_t open = text.find('{');
  if (open == std::string::npos || text.back() != '}')
    return "";
  return text.substr(open + 1, text.size() - open - 2);
}

namespace {

/// Declares a pass shell whose body is the Rust function registered under the
/// pass's flag (passes/lib.rs dispatches on it), with the option values.
#define AXE_RUST_PASS(NAME)                                                    \
  struct NAME##Pass : public mlir::axe::impl::NAME##Base<NAME##Pass> {         \
    using NAME##Base::NAME##Base;                                              \
    void runOnOperation() override {                                           \
      if (!runRustPass(*this, getOperation()))                                 \
        signalPassFailure();                                                   \
    }                                                                          \
  };

AXE_RUST_PASS(AxeMatmulSchedule)
AXE_RUST_PASS(AxeExpandMatmul)
AXE_RUST_PASS(AxeExpandAttention)
AXE_RUST_PASS(AxeCanonicalize)
AXE_RUST_PASS(AxeSlice)
AXE_RUST_PASS(AxeInferLayout)
AXE_RUST_PASS(ConvertAxeToGPU)
AXE_RUST_PASS(ConvertLinalgToAxe)
} // namespace

namespace mlir::axe {
void registerAxePipelines();
} // namespace mlir::axe

extern "C" void axeRegisterPasses(void) {
  registerAxePasses();
  mlir::axe::registerAxePipelines();
}
