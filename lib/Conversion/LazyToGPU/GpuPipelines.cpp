//===- GpuPipelines.cpp - the lazy-to-nvvm and lazy-to-rocdl pipelines ----===//
//
// Both pipelines schedule the graph (lazy-schedule; a no-op on an already
// scheduled module), lower kernels to gpu.func and the schedule to host
// launches (convert-lazy-to-gpu), attach the vendor target, lower the
// kernels to NVVM or ROCDL with the bare-pointer calling convention, and
// serialize the gpu.module with gpu-module-to-binary. The host function
// stays in the gpu/memref dialects, for lazy-run's runtime or for a user's
// own `gpu-to-llvm`.
//
//   lazy-to-nvvm{chip=sm_90 features=+ptx80 format=bin toolkit=DIR}: `bin`
//     is cubin (through DIR/bin/ptxas), `isa` PTX text; DIR also gives
//     nvvm/libdevice, which math functions link against (the build finds
//     the CUDA toolkit);
//   lazy-to-rocdl{chip=gfx942 format=bin toolkit=DIR}: `bin` is HSACO
//     (through ld.lld), `isa` AMDGPU assembly. DIR holds
//     amdgcn/bitcode/*.bc (the ROCm device libraries the math functions
//     come from) and llvm/bin/ld.lld; the build prepares one.
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/Passes.h"
#include "lazy/Dialect/Lazy/Analysis/TensorCores.h"
#include "lazy/Support/PassOptionHints.h"

#include "lazy/Dialect/Lazy/Transforms/Passes.h"

#include "mlir/Conversion/AMDGPUToROCDL/AMDGPUToROCDL.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#ifndef LAZY_CUDA_TOOLKIT_DIR
#define LAZY_CUDA_TOOLKIT_DIR ""
#endif
#ifndef LAZY_ROCM_TOOLKIT_DIR
#define LAZY_ROCM_TOOLKIT_DIR ""
#endif

using namespace mlir;
using namespace mlir::lazy;

namespace {

/// The options both pipelines take: the chip and ISA features, the binary
/// format, the toolkit folder, and what convert-lazy-to-gpu is given.
template <typename Derived>
struct GpuPipelineOptions : PassPipelineOptions<Derived> {
  using Base = PassPipelineOptions<Derived>;
  typename Base::template Option<std::string> chip{
      *this, "chip", llvm::cl::desc("GPU to compile for")};
  typename Base::template Option<std::string> features{
      *this, "features", llvm::cl::desc("target features")};
  typename Base::template Option<std::string> format{
      *this, "format",
      llvm::cl::desc("isa (assembly text) or bin (cubin through ptxas, "
                     "HSACO through ld.lld)"),
      llvm::cl::init("bin")};
  typename Base::template Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("toolkit folder (CUDA: nvvm/libdevice and bin/ptxas; "
                     "ROCm: amdgcn/bitcode and llvm/bin/ld.lld)")};
  typename Base::template Option<unsigned> optLevel{
      *this, "opt-level", llvm::cl::desc("LLVM optimization level"),
      llvm::cl::init(3)};
  typename Base::template Option<int64_t> blockSize{
      *this, "block-size", llvm::cl::desc("threads per block"),
      llvm::cl::init(256)};
  typename Base::template Option<int64_t> blockReduceMin{
      *this, "block-reduce-min",
      llvm::cl::desc("plans: store groups with reduces at least this long "
                     "run in blocks (lazy-optimize-kernels "
                     "gpu-block-reduce-min)"),
      llvm::cl::init(64)};
  typename Base::template Option<int64_t> unroll{
      *this, "unroll",
      llvm::cl::desc("thread mode: elements a thread loads per trip"),
      llvm::cl::init(4)};
  typename Base::template Option<int64_t> reduceUnroll{
      *this, "reduce-unroll",
      llvm::cl::desc("block mode: reduced elements a thread loads per trip"),
      llvm::cl::init(8)};
  typename Base::template Option<int64_t> reducePerThread{
      *this, "reduce-per-thread",
      llvm::cl::desc("plans: reduced elements per thread of a block "
                     "(lazy-optimize-kernels gpu-reduce-per-thread)"),
      llvm::cl::init(16)};
  typename Base::template Option<int64_t> indexBits{
      *this, "index-bits",
      llvm::cl::desc("kernels' index width: 32, 64, or 0 for 32 where "
                     "every index fits")};
  typename Base::template Option<bool> plan{
      *this, "plan",
      llvm::cl::desc("give kernels lazy-optimize-kernels' GPU plans "
                     "(target=gpu: register tiles, 128-bit loads and "
                     "stores, a row per block for row kernels, blocks for "
                     "long reduces); a plan already on a kernel is kept; "
                     "false: no plans, so every kernel runs a thread per "
                     "element and a row kernel computes its row values "
                     "per element"),
      llvm::cl::init(true)};
  typename Base::template Option<bool> fma{
      *this, "fma",
      llvm::cl::desc("fuse a float sum's acc + a*b into a multiply-add (as "
                     "nvrtc's --fmad=true does for tinygrad's kernels; "
                     "false: every product and sum rounds)"),
      llvm::cl::init(true)};
  typename Base::template Option<bool> doubleBuffer{
      *this, "double-buffer",
      llvm::cl::desc("shared-memory plans: double-buffered staging "
                     "(convert-lazy-to-gpu double-buffer)"),
      llvm::cl::init(false)};

  /// lazy-schedule, the plans, and convert-lazy-to-gpu with these options;
  /// `cores`: the chip's tensor-core instruction (none, mma-sync, mfma,
  /// wmma).
  void addKernelPasses(OpPassManager &pm, StringRef cores) const {
    addSchedulePasses(pm);
    if (plan) {
      LazyOptimizeKernelsOptions plans;
      plans.target = "gpu";
      plans.tensorCores = cores.str();
      plans.gpuBlockReduceMin = blockReduceMin;
      plans.gpuReducePerThread = reducePerThread;
      plans.gpuBlockSize = blockSize;
      pm.addPass(createLazyOptimizeKernels(plans));
    }
    ConvertLazyToGpuOptions gpu;
    gpu.blockSize = blockSize;
    gpu.unroll = unroll;
    gpu.indexBits = indexBits;
    gpu.reduceUnroll = reduceUnroll;
    gpu.fma = fma;
    gpu.tensorCores = cores.str();
    gpu.doubleBuffer = doubleBuffer;
    pm.addPass(createConvertLazyToGpu(gpu));
  }
  /// lazy-check-gpu-toolchain for `target` (nvvm or rocdl).
  void addToolchainCheck(OpPassManager &pm, StringRef target) const {
    CheckGpuToolchainOptions check;
    check.target = target.str();
    check.chip = chip;
    check.format = format;
    check.toolkit = toolkit;
    pm.addPass(createCheckGpuToolchain(check));
  }
  /// After the vendor lowering of the gpu.module (`kernels`, nested in
  /// `pm`): its clean-up, then gpu-module-to-binary in this format, with
  /// the toolkit.
  void addModuleToBinary(OpPassManager &pm, OpPassManager &kernels) const {
    kernels.addPass(createCanonicalizerPass());
    kernels.addPass(createCSEPass());
    pm.addPass(createReconcileUnrealizedCastsPass());
    GpuModuleToBinaryPassOptions binary;
    binary.compilationTarget = format;
    binary.toolkitPath = toolkit;
    pm.addPass(createGpuModuleToBinaryPass(binary));
  }
};

struct NvvmOptions : GpuPipelineOptions<NvvmOptions> {
  NvvmOptions() {
    chip.setInitialValue("sm_90");
    features.setInitialValue("+ptx80");
    indexBits.setInitialValue(0);
    toolkit.setInitialValue(LAZY_CUDA_TOOLKIT_DIR);
  }
};

struct RocdlOptions : GpuPipelineOptions<RocdlOptions> {
  RocdlOptions() {
    chip.setInitialValue("gfx942");
    // convert-gpu-to-rocdl leaves some indices 64 bits wide under a 32-bit
    // data layout, which LLVM rejects.
    indexBits.setInitialValue(64);
    reducePerThread.setInitialValue(kRocdlReducePerThread);
    toolkit.setInitialValue(LAZY_ROCM_TOOLKIT_DIR);
  }
};

} // namespace

/// lazy-to-nvvm: the kernels, the toolchain check, NVVM's target, the
/// gpu.module lowered to NVVM, the binary.
static void buildNvvmPipeline(OpPassManager &pm, const NvvmOptions &o) {
  o.addKernelPasses(pm, tensorCoreKindName(tensorCoreKindOfChip(o.chip)));
  o.addToolchainCheck(pm, "nvvm");
  GpuNVVMAttachTargetOptions target;
  target.chip = o.chip;
  target.features = o.features;
  target.optLevel = o.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createConvertNVGPUToNVVMPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  o.addModuleToBinary(pm, kernels);
}

/// lazy-to-rocdl: as lazy-to-nvvm, with ROCDL's target and the AMDGPU
/// dialect's lowering for the chip.
static void buildRocdlPipeline(OpPassManager &pm, const RocdlOptions &o) {
  o.addKernelPasses(pm, tensorCoreKindName(tensorCoreKindOfChip(o.chip)));
  o.addToolchainCheck(pm, "rocdl");
  GpuROCDLAttachTargetOptions target;
  target.chip = o.chip;
  target.optLevel = o.optLevel;
  if (!o.features.empty())
    target.features = o.features;
  pm.addPass(createGpuROCDLAttachTarget(target));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createSCFToControlFlowPass());
  ConvertAMDGPUToROCDLPassOptions amdgpu;
  amdgpu.chipset = o.chip;
  kernels.addPass(createConvertAMDGPUToROCDLPass(amdgpu));
  ConvertGpuOpsToROCDLOpsOptions rocdl;
  rocdl.chipset = o.chip;
  rocdl.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToROCDLOps(rocdl));
  o.addModuleToBinary(pm, kernels);
}

void mlir::lazy::registerGpuPipelines() {
  registerPipelineWithHints<NvvmOptions>(
      "lazy-to-nvvm",
      "schedule, lower kernels to NVVM and serialize them (PTX or cubin)",
      buildNvvmPipeline);
  registerPipelineWithHints<RocdlOptions>(
      "lazy-to-rocdl",
      "schedule, lower kernels to ROCDL and serialize them (HSACO or "
      "assembly)",
      buildRocdlPipeline);
}
