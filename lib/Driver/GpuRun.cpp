//===- GpuRun.cpp - the GPU lowerings, the runtime and the emulator -------===//
//
// The GPU stages of runGraph: the kernels compiled with lazy-to-nvvm (a
// cubin where ptxas is found on PATH, in $CUDA_HOME/bin or
// /usr/local/cuda/bin, PTX for the driver otherwise) or lazy-to-rocdl
// (HSACO), loaded through the runtime, and the host code issued op by op
// (HostProgram.h); or, for the emulator, convert-lazy-to-gpu's kernels run
// by one fiber per GPU thread (GpuEmulator.h). --lockstep runs both.
//
//===----------------------------------------------------------------------===//

#include "GraphRun.h"

#include "lazy/Dialect/Lazy/Analysis/TensorCores.h"
#include "lazy/Runtime/DevicePlan.h"
#include "lazy/Runtime/GpuEmulator.h"
#include "lazy/Runtime/HostProgram.h"
#include "lazy/Runtime/LockstepDevice.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::lazy;
using namespace mlir::lazy::driver;
namespace interp = ::lazy::interp;

/// The tensor-core instruction for `device`: --tensor-cores, else NVIDIA's
/// mma.sync for the emulator and for cuda (that of a --chip sm_XY given),
/// the chip's for hip (gfx942 when no chip is given).
std::string GraphRun::tensorCoresOf(StringRef device) {
  if (!options.tensorCores.empty())
    return options.tensorCores;
  StringRef given = options.chip;
  if (device == "hip")
    return mlir::lazy::tensorCoreKindName(mlir::lazy::tensorCoreKindOfChip(
                                              given.empty() ? "gfx942" : given))
        .str();
  if (device == "cuda" && given.starts_with("sm_"))
    return mlir::lazy::tensorCoreKindName(
               mlir::lazy::tensorCoreKindOfChip(given))
        .str();
  return "mma-sync";
}

/// The GPU lowering without code generation: convert-lazy-to-gpu (with
/// --kernel-options) on `module`, then its kernels as CPU functions run by
/// one fiber per GPU thread (GpuEmulator.h).
FailureOr<std::unique_ptr<::lazy::runtime::GpuDevice>>
GraphRun::lowerAndEmulate(ModuleOp module) {
  PassManager lower(module.getContext());
  // The emulator runs mma.sync, mfma and wmma as the GPUs do.
  if (failed(parsePassPipeline(
          "convert-lazy-to-gpu{tensor-cores=" + tensorCoresOf(options.device) +
              " " + options.kernelOptions + "}",
          lower)) ||
      failed(lower.run(module)))
    return failure();
  return mlir::lazy::createGpuEmulator(module);
}

/// Compiles the scheduled module's kernels for `gpu`, loads them and runs
/// the host code, inputs copied in and result buffers copied back.
LogicalResult
GraphRun::runOnGpu(ModuleOp module, const std::string &name,
                   ::lazy::runtime::GpuDevice &gpu, StringRef target,
                   std::vector<interp::HostTensor> &args,
                   std::vector<std::vector<uint8_t>> &resultBuffers,
                   ::lazy::runtime::PlanRecorder *recorder) {
  std::string pipeline;
  if (target == "emulate") {
    // Lowered already (convert-lazy-to-gpu); nothing to serialize or load.
  } else if (target == "cuda") {
    std::string sm = options.chip.empty() ? gpu.chip() : options.chip;
    if (sm.empty())
      sm = "sm_90";
    // The PTX ISA the chip needs: 8.0 covers sm_50 to sm_90, 8.6 sm_100,
    // 8.7 sm_120.
    int cc = 0;
    StringRef(sm).drop_front(3).take_while(llvm::isDigit).getAsInteger(10, cc);
    std::string features = cc >= 120   ? "+ptx87"
                           : cc >= 100 ? "+ptx86"
                                       : "+ptx80";
    // A cubin where ptxas exists, else PTX for the driver to compile.
    SmallVector<StringRef> paths;
    std::string cudaHome = std::getenv("CUDA_HOME")
                               ? std::string(std::getenv("CUDA_HOME")) + "/bin"
                               : "";
    if (!cudaHome.empty())
      paths.push_back(cudaHome);
    paths.push_back("/usr/local/cuda/bin");
    bool haveCompiler = bool(llvm::sys::findProgramByName("ptxas")) ||
                        bool(llvm::sys::findProgramByName("ptxas", paths));
    pipeline = "lazy-to-nvvm{chip=" + sm + " features=" + features +
               " format=" + (haveCompiler ? "bin" : "isa") + " " +
               options.kernelOptions + "}";
  } else {
    pipeline = "lazy-to-rocdl{chip=" +
               (options.chip.empty() ? std::string("gfx942") : options.chip) +
               " " + options.kernelOptions + "}";
  }
  // --lockstep: the same kernels on the emulator, from a copy of the module.
  // The emulator runs each launch with the GPU's geometry, so the copy's
  // lowering options need not be the vendor pipeline's: block size, unroll
  // and index width do not change what a kernel computes.
  std::unique_ptr<::lazy::runtime::GpuDevice> emulator;
  if (options.lockstep) { // (main allows it with --device=cuda|hip alone)
    OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone()));
    auto created = lowerAndEmulate(*copy);
    if (failed(created))
      return failure();
    emulator = std::move(*created);
  }
  if (!pipeline.empty()) {
    PassManager lower(module.getContext());
    if (failed(parsePassPipeline(pipeline, lower)) || failed(lower.run(module)))
      return failure();
    if (failed(mlir::lazy::loadKernels(module, gpu)))
      return failure();
  }
  if (!emulator)
    return runHostCode(module, name, gpu, args, resultBuffers, recorder);
  ::lazy::runtime::LockstepDevice checked(gpu, *emulator, stderr);
  LogicalResult ran =
      runHostCode(module, name, checked, args, resultBuffers, recorder);
  llvm::errs() << "lockstep: " << checked.launches() << " launches, "
               << checked.differing()
               << " with results unlike the emulator's\n";
  return ran;
}

/// Runs the host function @name of a module whose kernels `gpu` has
/// loaded: inputs copied in, result buffers copied back.
LogicalResult
GraphRun::runHostCode(ModuleOp module, const std::string &name,
                      ::lazy::runtime::GpuDevice &gpu,
                      std::vector<interp::HostTensor> &args,
                      std::vector<std::vector<uint8_t>> &resultBuffers,
                      ::lazy::runtime::PlanRecorder *recorder) {
  auto host = module.lookupSymbol<func::FuncOp>(name);
  std::vector<::lazy::runtime::DevicePtr> allocations;
  llvm::scope_exit release([&] {
    for (::lazy::runtime::DevicePtr p : allocations)
      gpu.free(p);
  });
  std::vector<mlir::lazy::DeviceBuffer> inputs;
  for (interp::HostTensor &t : args) {
    mlir::lazy::DeviceBuffer buffer{0, t.data.size()};
    if (!gpu.alloc(buffer.bytes, buffer.ptr)) {
      fail("allocating the inputs on the device: " + gpu.error());
      return failure();
    }
    allocations.push_back(buffer.ptr);
    if (!gpu.copyToDevice(buffer.ptr, t.data.data(), buffer.bytes)) {
      fail("copying the inputs to the device: " + gpu.error());
      return failure();
    }
    inputs.push_back(buffer);
  }
  mlir::lazy::LaunchProfiler profiler;
  if (recorder)
    profiler = [recorder](StringRef, double, size_t bytes) {
      recorder->setLastLaunchBytes(bytes);
    };
  else if (options.profile)
    profiler = [](StringRef kernel, double seconds, size_t bytes) {
      llvm::outs() << llvm::formatv(
          "kernel {0}: {1:f1} us, {2} bytes, {3:f1} GB/s\n", kernel,
          seconds * 1e6, bytes, double(bytes) / seconds / 1e9);
    };
  FailureOr<std::vector<mlir::lazy::DeviceBuffer>> results =
      mlir::lazy::runHostProgram(host, gpu, inputs, allocations,
                                 options.repeat ? nullptr : profiler,
                                 /*poison=*/options.check);
  if (failed(results))
    return failure();
  for (const mlir::lazy::DeviceBuffer &r : *results) {
    std::vector<uint8_t> bytes(r.bytes);
    if (!gpu.copyToHost(bytes.data(), r.ptr, r.bytes)) {
      fail("copying a result to the host: " + gpu.error());
      return failure();
    }
    resultBuffers.push_back(std::move(bytes));
  }
  // Timed re-runs come after the results are copied back (assign targets
  // are written in place).
  if (options.repeat && failed(timeRuns([&](bool last) -> LogicalResult {
        std::vector<::lazy::runtime::DevicePtr> scratch;
        llvm::scope_exit freeScratch([&] {
          for (::lazy::runtime::DevicePtr p : scratch)
            gpu.free(p);
        });
        // Kernels are profiled in the last (warm) run.
        return failure(failed(mlir::lazy::runHostProgram(
            host, gpu, inputs, scratch, last ? profiler : nullptr)));
      })))
    return failure();
  return success();
}

/// The schedule run on the GPU emulator (lowerAndEmulate).
LogicalResult
GraphRun::runEmulated(ModuleOp module, const std::string &name,
                      std::vector<interp::HostTensor> &args,
                      std::vector<std::vector<uint8_t>> &resultBuffers) {
  auto emulator = lowerAndEmulate(module);
  if (failed(emulator))
    return failure();
  return runOnGpu(module, name, **emulator, "emulate", args, resultBuffers);
}
