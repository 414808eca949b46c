//===- Pipelines.cpp - axe-to-nvvm-pipeline, axe-emulate-on-cpu-pipeline --===//
//
// Axe kernels down to PTX: Axe's own passes, then upstream's GPU-to-NVVM
// pipeline (the one `gpu-lower-to-nvvm-pipeline` registers) with the PTX
// ("isa") binary format, so the output holds the kernel's PTX text in a
// gpu.binary and the host function launching it (gpu.launch_func).
//
// The same kernels on the host: Axe's passes with the threads emulated by
// loops, then upstream's lowering to the LLVM dialect, so that mlir-runner
// (or an ExecutionEngine) runs them — the integration tests' pipeline.
//
//===----------------------------------------------------------------------===//

#include "Axe/AxeDialect.h"
#include "Axe/AxePasses.h"
#include "RustHooks.h"

#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::axe {
#define GEN_PASS_DEF_AXELOWERTONVVM
#include "Axe/AxePasses.h.inc"
} // namespace mlir::axe

using namespace mlir;

namespace {
/// The chip a module is compiled for: `chip` when given, else the module's
/// #axe.target, else sm_90 (what a module that names no target gets).
static std::string chipOf(ModuleOp module, StringRef chip) {
  if (!chip.empty())
    return chip.str();
  if (auto *dialect = module->getContext()->getLoadedDialect<axe::AxeDialect>())
    if (auto target = dialect->getTargetAttrHelper().getAttr(module))
      return target.getName().str();
  return "sm_90";
}

/// upstream's GPU-to-NVVM pipeline for `chip`, emitting PTX ("isa").
static void buildUpstreamPipeline(OpPassManager &pm, StringRef chip,
                                  StringRef features, int optLevel,
                                  bool barePtr) {
  gpu::GPUToNVVMPipelineOptions gpuOptions;
  gpuOptions.cubinChip = chip.str();
  gpuOptions.cubinFeatures = features.str();
  gpuOptions.cubinFormat = "isa";
  gpuOptions.optLevel = optLevel;
  gpuOptions.kernelUseBarePtrCallConv = barePtr;
  gpuOptions.hostUseBarePtrCallConv = barePtr;
  gpu::buildLowerToNVVMPassPipeline(pm, gpuOptions);
}

/// axe-lower-to-nvvm: the upstream pipeline, built when the pass runs (a
/// dynamic pipeline), for the chip the module asks for.
struct AxeLowerToNVVMPass
    : public axe::impl::AxeLowerToNVVMBase<AxeLowerToNVVMPass> {
  using AxeLowerToNVVMBase::AxeLowerToNVVMBase;
  void getDependentDialects(DialectRegistry &registry) const override {
    // A dynamic pipeline's dialects must be loaded before it runs: those of
    // the upstream pipeline (the same for every chip).
    OpPassManager pm(ModuleOp::getOperationName());
    buildUpstreamPipeline(pm, "sm_90", "+ptx80", 2, true);
    pm.getDependentDialects(registry);
  }
  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string target = chipOf(module, chip);
    if (!axe::rustHooks().isGpuTarget(target.data(), target.size())) {
      module.emitError() << "axe-lower-to-nvvm: '" << target
                         << "' is not a GPU target (no PTX lowering; a GPU chip= "
                            "or #axe.target selects one)";
      return signalPassFailure();
    }
    // The upstream pipeline's first two steps (NVGPU to NVVM before outlining,
    // as it does), so that the Rust body can annotate the outlined kernels
    // before they become llvm.funcs; the upstream pipeline then finds nothing
    // left to outline and runs unchanged.
    OpPassManager outline(ModuleOp::getOperationName());
    outline.addPass(createConvertNVGPUToNVVMPass());
    outline.addPass(createGpuKernelOutliningPass());
    if (failed(runPipeline(outline, module)))
      return signalPassFailure();
    if (!axe::runRustPass(*this, module))
      return signalPassFailure();
    OpPassManager pm(ModuleOp::getOperationName());
    buildUpstreamPipeline(pm, target, features, optLevel, barePtr);
    if (failed(runPipeline(pm, module)))
      signalPassFailure();
  }
};

struct AxeToNVVMPipelineOptions
    : public PassPipelineOptions<AxeToNVVMPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("Target SM (nvvm-attach-target chip); empty: the module's "
                     "#axe.target, else sm_90"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features (nvvm-attach-target features)"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<bool> barePtr{
      *this, "bare-ptr-call-conv",
      llvm::cl::desc("Pass each memref to the kernel as one bare pointer (what a "
                     "runtime such as CuPy's RawModule launches with)"),
      llvm::cl::init(true)};
  PassOptions::Option<int> optLevel{
      *this, "opt-level", llvm::cl::desc("LLVM optimization level for the kernel"),
      llvm::cl::init(2)};
};

void buildAxeToNVVMPipeline(OpPassManager &pm,
                            const AxeToNVVMPipelineOptions &options) {
  // axe-matmul-schedule, axe-expand-matmul, axe-expand-attention, axe-slice, axe-infer-layout,
  // axe-canonicalize, convert-axe-to-gpu, canonicalize,
  // gpu-launch-sink-index-computations, then upstream:
  // convert-nvgpu-to-nvvm, gpu-kernel-outlining, convert-vector-to-scf,
  // convert-scf-to-cf, convert-nvvm-to-llvm, convert-func-to-llvm,
  // expand-strided-metadata, nvvm-attach-target{chip,features}, lower-affine,
  // convert-arith-to-llvm, convert-index-to-llvm, canonicalize, cse; in each
  // gpu.module convert-gpu-to-nvvm, canonicalize, cse,
  // reconcile-unrealized-casts; then gpu-to-llvm, gpu-module-to-binary{isa},
  // convert-math-to-llvm, canonicalize, cse, reconcile-unrealized-casts.
  // convert-axe-to-gpu checks that the module's #axe.target runs on the chip (NVPTX would
  // otherwise abort on an instruction the chip lacks, e.g. TMA on sm_80); without a chip
  // option both it and axe-lower-to-nvvm take the module's target.
  // The Axe passes through the constructors and options structs ODS generates from
  // AxePasses.td, so that a renamed pass or option is a compile error here.
  std::string chip = options.chip.getValue();
  pm.addPass(axe::createAxeMatmulSchedule());
  pm.addPass(axe::createAxeExpandMatmul());
  pm.addPass(axe::createAxeExpandAttention());
  pm.addPass(axe::createAxeSlice());
  pm.addPass(axe::createAxeInferLayout());
  pm.addPass(axe::createAxeCanonicalize());
  axe::ConvertAxeToGPUOptions convert;
  convert.chip = chip;
  pm.addPass(axe::createConvertAxeToGPU(convert));
  pm.addPass(createCanonicalizerPass());
  // canonicalize hoists constants out of gpu.launch; sink them back so that register
  // indices stay constant in the outlined kernel (and registers stay in registers).
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  axe::AxeLowerToNVVMOptions lower;
  lower.chip = chip;
  lower.features = options.features;
  lower.optLevel = options.optLevel;
  lower.barePtr = options.barePtr;
  pm.addPass(axe::createAxeLowerToNVVM(lower));
}

/// axe-emulate-on-cpu-pipeline: the Axe passes as axe-to-nvvm-pipeline runs
/// them, convert-axe-to-gpu emulating the threads (`emulate-threads-on-cpu`),
/// then upstream's passes to the LLVM dialect. Spelled as a textual pipeline:
/// every pass is upstream's, by its registered name.
void buildAxeEmulateOnCPUPipeline(OpPassManager &pm) {
  static constexpr const char *kPipeline =
      "axe-slice,axe-infer-layout,axe-canonicalize,"
      "convert-axe-to-gpu{emulate-threads-on-cpu=1},canonicalize,"
      "convert-vector-to-scf,convert-scf-to-cf,convert-vector-to-llvm,"
      "expand-strided-metadata,finalize-memref-to-llvm,convert-math-to-llvm,"
      "convert-arith-to-llvm,convert-index-to-llvm,convert-cf-to-llvm,"
      "convert-func-to-llvm,reconcile-unrealized-casts";
  // The passes are registered before any pipeline is built (registerAxePasses,
  // registerAllPasses), so the text parses.
  if (failed(parsePassPipeline(kPipeline, pm, llvm::errs())))
    llvm::report_fatal_error("axe-emulate-on-cpu-pipeline: a pass is not registered");
}
/// axe-from-linalg-pipeline: linalg-on-tensors (torch-mlir's, IREE's or StableHLO's output)
/// into Axe IR: upstream's elementwise fusion (a matmul's consumers become one generic, the
/// epilogue convert-linalg-to-axe folds in), one-shot-bufferize over function boundaries with
/// identity layouts,
/// buffer-results-to-out-params (returned buffers become arguments: destination-passing
/// style, the buffers a launch passes), canonicalize, then convert-linalg-to-axe. Textual,
/// as the pipeline above: every pass is registered by name.
struct AxeFromLinalgPipelineOptions
    : public PassPipelineOptions<AxeFromLinalgPipelineOptions> {
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc("The #axe.target a module without one gets (convert-linalg-to-axe "
                     "target)"),
      llvm::cl::init("sm_90a")};
  PassOptions::Option<int> threadsPerRow{
      *this, "threads-per-row",
      llvm::cl::desc("Threads of a row kernel per row (convert-linalg-to-axe "
                     "threads-per-row): 0 chooses, 1 keeps a row in one thread"),
      llvm::cl::init(0)};
};

void buildAxeFromLinalgPipeline(OpPassManager &pm,
                                const AxeFromLinalgPipelineOptions &options) {
  // Upstream's passes by their registered names; the conversion through its generated
  // constructor and options (the target is a value, never spliced into pipeline text).
  static constexpr const char *kUpstream =
      "linalg-fuse-elementwise-ops,canonicalize,"
      "one-shot-bufferize{bufferize-function-boundaries=1 "
      "function-boundary-type-conversion=identity-layout-map},"
      "buffer-results-to-out-params{modify-public-functions=1 hoist-static-allocs=1},"
      "canonicalize";
  if (failed(parsePassPipeline(kUpstream, pm, llvm::errs())))
    llvm::report_fatal_error("axe-from-linalg-pipeline: a pass is not registered");
  axe::ConvertLinalgToAxeOptions convert;
  convert.target = options.target;
  convert.threadsPerRow = options.threadsPerRow;
  pm.addPass(axe::createConvertLinalgToAxe(convert));
}
} // namespace

namespace mlir::axe {
void registerAxePipelines() {
  PassPipelineRegistration<AxeFromLinalgPipelineOptions>(
      "axe-from-linalg-pipeline",
      "Bring linalg-on-tensors into Axe: linalg-fuse-elementwise-ops, canonicalize, "
      "one-shot-bufferize (function boundaries, identity "
      "layouts), buffer-results-to-out-params, canonicalize, convert-linalg-to-axe{target}; then "
      "axe-to-nvvm-pipeline lowers what it converted",
      buildAxeFromLinalgPipeline);
  PassPipelineRegistration<>(
      "axe-emulate-on-cpu-pipeline",
      "Run Axe kernels on the host: axe-slice, axe-infer-layout, axe-canonicalize, "
      "convert-axe-to-gpu{emulate-threads-on-cpu=1} (threads and CTAs as loops), then "
      "upstream's lowering to the LLVM dialect (vector, scf, memref, math, arith, index, "
      "cf, func); the result runs with mlir-runner",
      buildAxeEmulateOnCPUPipeline);
  PassPipelineRegistration<AxeToNVVMPipelineOptions>(
      "axe-to-nvvm-pipeline",
      "Lower Axe kernels to NVVM and PTX: axe-slice, axe-infer-layout, axe-canonicalize, "
      "convert-axe-to-gpu, canonicalize, then upstream's GPU-to-NVVM lowering "
      "(axe-lower-to-nvvm: outlining, nvvm-attach-target{chip,features}, "
      "convert-gpu-to-nvvm, gpu-to-llvm, gpu-module-to-binary{format=isa}) for "
      "`chip`, by default the module's #axe.target",
      buildAxeToNVVMPipeline);
}
} // namespace mlir::axe
