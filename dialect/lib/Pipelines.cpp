//===- Pipelines.cpp - axe-to-nvvm-pipeline --------------------------------===//
//
// Axe kernels down to PTX: Axe's own passes, then upstream's GPU-to-NVVM
// pipeline (the one `gpu-lower-to-nvvm-pipeline` registers) with the PTX
// ("isa") binary format, so the output holds the kernel's PTX text in a
// gpu.binary and the host function launching it (gpu.launch_func).
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace {
struct AxeToNVVMPipelineOptions
    : public PassPipelineOptions<AxeToNVVMPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("Target SM (nvvm-attach-target chip)"),
      llvm::cl::init("sm_90")};
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
  // axe-slice, axe-infer-layout, axe-canonicalize, convert-axe-to-gpu, canonicalize,
  // gpu-launch-sink-index-computations, then upstream:
  // convert-nvgpu-to-nvvm, gpu-kernel-outlining, convert-vector-to-scf,
  // convert-scf-to-cf, convert-nvvm-to-llvm, convert-func-to-llvm,
  // expand-strided-metadata, nvvm-attach-target{chip,features}, lower-affine,
  // convert-arith-to-llvm, convert-index-to-llvm, canonicalize, cse; in each
  // gpu.module convert-gpu-to-nvvm, canonicalize, cse,
  // reconcile-unrealized-casts; then gpu-to-llvm, gpu-module-to-binary{isa},
  // convert-math-to-llvm, canonicalize, cse, reconcile-unrealized-casts.
  // convert-axe-to-gpu checks that the module's #axe.target runs on the chip (NVPTX would
  // otherwise abort on an instruction the chip lacks, e.g. TMA on sm_80).
  if (failed(parsePassPipeline(
          "axe-slice,axe-infer-layout,axe-canonicalize,convert-axe-to-gpu{chip=" +
              options.chip.getValue() + "}",
          pm)))
    llvm::report_fatal_error("axe-to-nvvm-pipeline: Axe passes not registered");
  pm.addPass(createCanonicalizerPass());
  // canonicalize hoists constants out of gpu.launch; sink them back so that register
  // indices stay constant in the outlined kernel (and registers stay in registers).
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  gpu::GPUToNVVMPipelineOptions gpuOptions;
  gpuOptions.cubinChip = options.chip;
  gpuOptions.cubinFeatures = options.features;
  gpuOptions.cubinFormat = "isa";
  gpuOptions.optLevel = options.optLevel;
  gpuOptions.kernelUseBarePtrCallConv = options.barePtr;
  gpuOptions.hostUseBarePtrCallConv = options.barePtr;
  gpu::buildLowerToNVVMPassPipeline(pm, gpuOptions);
}
} // namespace

namespace mlir::axe {
void registerAxePipelines() {
  PassPipelineRegistration<AxeToNVVMPipelineOptions>(
      "axe-to-nvvm-pipeline",
      "Lower Axe kernels to NVVM and PTX: axe-slice, axe-infer-layout, axe-canonicalize, "
      "convert-axe-to-gpu, canonicalize, then upstream's GPU-to-NVVM lowering "
      "(outlining, nvvm-attach-target{chip,features}, convert-gpu-to-nvvm, "
      "gpu-to-llvm, gpu-module-to-binary{format=isa})",
      buildAxeToNVVMPipeline);
}
} // namespace mlir::axe
