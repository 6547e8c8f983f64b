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
#include "lazy/Dialect/Lazy/IR/TensorCores.h"
#include "lazy/Support/PassOptionHints.h"

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
      llvm::cl::desc("reduces at least this long use a whole block"),
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
      llvm::cl::desc("block mode: reduced elements per thread"),
      llvm::cl::init(16)};
  typename Base::template Option<int64_t> indexBits{
      *this, "index-bits",
      llvm::cl::desc("kernels' index width: 32, 64, or 0 for 32 where "
                     "every index fits")};
  typename Base::template Option<bool> plan{
      *this, "plan",
      llvm::cl::desc("give kernels lazy-optimize-kernels' GPU plans "
                     "(target=gpu: register tiles, 128-bit loads and "
                     "stores); a plan already on a kernel is kept"),
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
  std::string kernelPasses(StringRef cores) const {
    std::string plans =
        plan.getValue()
            ? "lazy-optimize-kernels{target=gpu tensor-cores=" + cores.str() +
                  "},"
            : "";
    return llvm::formatv("lazy-schedule,{7}convert-lazy-to-gpu{{block-size={0} "
                         "block-reduce-min={1} unroll={2} index-bits={3} "
                         "reduce-per-thread={4} reduce-unroll={5} fma={6} "
                         "tensor-cores={8} double-buffer={9}}",
                         blockSize.getValue(), blockReduceMin.getValue(),
                         unroll.getValue(), indexBits.getValue(),
                         reducePerThread.getValue(), reduceUnroll.getValue(),
                         fma.getValue() ? "true" : "false", plans, cores,
                         doubleBuffer.getValue() ? "true" : "false")
        .str();
  }
  /// ` toolkit=DIR`, or nothing when no folder is known.
  std::string toolkitOption() const {
    return toolkit.empty() ? std::string() : " toolkit=" + toolkit.getValue();
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
    // The block-mode defaults were measured on an NVIDIA H200; on AMD
    // (64-lane waves) the block stays the reduce's size up to block-size.
    reducePerThread.setInitialValue(1);
    toolkit.setInitialValue(LAZY_ROCM_TOOLKIT_DIR);
  }
};

void addPipeline(OpPassManager &pm, const std::string &text) {
  if (failed(parsePassPipeline(text, pm)))
    llvm::report_fatal_error(llvm::Twine("bad GPU pipeline: ") + text);
}

} // namespace

void mlir::lazy::registerGpuPipelines() {
  registerPipelineWithHints<NvvmOptions>(
      "lazy-to-nvvm",
      "schedule, lower kernels to NVVM and serialize them (PTX or cubin)",
      [](OpPassManager &pm, const NvvmOptions &o) {
        addPipeline(
            pm,
            o.kernelPasses(tensorCoreKindName(tensorCoreKindOfChip(o.chip))) +
                llvm::formatv(
                    ",lazy-check-gpu-toolchain{{target=nvvm chip={0} "
                    "format={3}{4}}"
                    ",nvvm-attach-target{{chip={0} features={1} O={2}}"
                    ",gpu.module(convert-scf-to-cf,convert-nvgpu-to-nvvm,"
                    "convert-gpu-to-nvvm{{use-bare-ptr-memref-call-conv=1}"
                    ",canonicalize,cse),reconcile-unrealized-casts,"
                    "gpu-module-to-binary{{format={3}{4}}",
                    o.chip.getValue(), o.features.getValue(),
                    o.optLevel.getValue(), o.format.getValue(),
                    o.toolkitOption())
                    .str());
      });
  registerPipelineWithHints<RocdlOptions>(
      "lazy-to-rocdl",
      "schedule, lower kernels to ROCDL and serialize them (HSACO or "
      "assembly)",
      [](OpPassManager &pm, const RocdlOptions &o) {
        std::string features =
            o.features.empty() ? "" : " features=" + o.features.getValue();
        addPipeline(
            pm,
            o.kernelPasses(tensorCoreKindName(tensorCoreKindOfChip(o.chip))) +
                llvm::formatv(
                    ",lazy-check-gpu-toolchain{{target=rocdl chip={0} "
                    "format={3}{4}}"
                    ",rocdl-attach-target{{chip={0} O={1}{2}}"
                    ",gpu.module(convert-scf-to-cf,"
                    "convert-amdgpu-to-rocdl{{chipset={0}},"
                    "convert-gpu-to-rocdl{{chipset={0} "
                    "use-bare-ptr-memref-call-conv=1},canonicalize,cse),"
                    "reconcile-unrealized-casts,"
                    "gpu-module-to-binary{{format={3}{4}}",
                    o.chip.getValue(), o.optLevel.getValue(), features,
                    o.format.getValue(), o.toolkitOption())
                    .str());
      });
}
