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

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"

#ifndef LAZY_CUDA_TOOLKIT_DIR
#define LAZY_CUDA_TOOLKIT_DIR ""
#endif
#ifndef LAZY_ROCM_TOOLKIT_DIR
#define LAZY_ROCM_TOOLKIT_DIR ""
#endif

using namespace mlir;

namespace {

struct GpuCommonOptions {
  template <typename Self>
  static std::string kernelPasses(const Self &o) {
    return llvm::formatv("lazy-schedule,convert-lazy-to-gpu{{block-size={0} "
                         "block-reduce-min={1}}",
                         o.blockSize.getValue(), o.blockReduceMin.getValue())
        .str();
  }
};

struct NvvmOptions : PassPipelineOptions<NvvmOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("NVIDIA GPU (sm_XX)"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{*this, "features",
                               llvm::cl::desc("PTX features"),
                               llvm::cl::init("+ptx80")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("isa (PTX text), bin (cubin, needs ptxas) or fatbin"),
      llvm::cl::init("bin")};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit folder (nvvm/libdevice, bin/ptxas)"),
      llvm::cl::init(LAZY_CUDA_TOOLKIT_DIR)};
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("LLVM optimization level"),
                            llvm::cl::init(3)};
  Option<int64_t> blockSize{*this, "block-size",
                            llvm::cl::desc("threads per block"),
                            llvm::cl::init(256)};
  Option<int64_t> blockReduceMin{
      *this, "block-reduce-min",
      llvm::cl::desc("reduces at least this long use a whole block"),
      llvm::cl::init(64)};
};

struct RocdlOptions : PassPipelineOptions<RocdlOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("AMD GPU (gfxXXX)"),
                           llvm::cl::init("gfx942")};
  Option<std::string> features{*this, "features",
                               llvm::cl::desc("target features"),
                               llvm::cl::init("")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("isa (assembly text) or bin (HSACO, needs ld.lld)"),
      llvm::cl::init("bin")};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("folder with amdgcn/bitcode and llvm/bin/ld.lld"),
      llvm::cl::init(LAZY_ROCM_TOOLKIT_DIR)};
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("LLVM optimization level"),
                            llvm::cl::init(3)};
  Option<int64_t> blockSize{*this, "block-size",
                            llvm::cl::desc("threads per block"),
                            llvm::cl::init(256)};
  Option<int64_t> blockReduceMin{
      *this, "block-reduce-min",
      llvm::cl::desc("reduces at least this long use a whole block"),
      llvm::cl::init(64)};
};

void addPipeline(OpPassManager &pm, const std::string &text) {
  if (failed(parsePassPipeline(text, pm)))
    llvm::report_fatal_error(llvm::Twine("bad GPU pipeline: ") + text);
}

} // namespace

void mlir::lazy::registerGpuPipelines() {
  PassPipelineRegistration<NvvmOptions>(
      "lazy-to-nvvm",
      "schedule, lower kernels to NVVM and serialize them (PTX or cubin)",
      [](OpPassManager &pm, const NvvmOptions &o) {
        addPipeline(
            pm, GpuCommonOptions::kernelPasses(o) +
                    llvm::formatv(
                        ",lazy-check-gpu-toolchain{{target=nvvm "
                        "format={3}{4}}"
                        ",nvvm-attach-target{{chip={0} features={1} O={2}}"
                        ",gpu.module(convert-scf-to-cf,"
                        "convert-gpu-to-nvvm{{use-bare-ptr-memref-call-conv=1}"
                        ",canonicalize,cse),reconcile-unrealized-casts,"
                        "gpu-module-to-binary{{format={3}{4}}",
                        o.chip.getValue(), o.features.getValue(),
                        o.optLevel.getValue(), o.format.getValue(),
                        o.toolkit.empty() ? std::string()
                                          : " toolkit=" + o.toolkit.getValue())
                        .str());
      });
  PassPipelineRegistration<RocdlOptions>(
      "lazy-to-rocdl",
      "schedule, lower kernels to ROCDL and serialize them (HSACO or "
      "assembly)",
      [](OpPassManager &pm, const RocdlOptions &o) {
        std::string features =
            o.features.empty() ? "" : " features=" + o.features.getValue();
        addPipeline(
            pm, GpuCommonOptions::kernelPasses(o) +
                    llvm::formatv(
                        ",lazy-check-gpu-toolchain{{target=rocdl chip={0} "
                        "format={3}{4}}"
                        ",rocdl-attach-target{{chip={0} O={1}{2}}"
                        ",gpu.module(convert-scf-to-cf,"
                        "convert-gpu-to-rocdl{{chipset={0} "
                        "use-bare-ptr-memref-call-conv=1},canonicalize,cse),"
                        "reconcile-unrealized-casts,"
                        "gpu-module-to-binary{{format={3}{4}}",
                        o.chip.getValue(), o.optLevel.getValue(), features,
                        o.format.getValue(),
                        o.toolkit.empty() ? std::string()
                                          : " toolkit=" + o.toolkit.getValue())
                        .str());
      });
}
