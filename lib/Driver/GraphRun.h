//===- GraphRun.h - one run of runGraph, stage by stage ---------*- C++ -*-===//
//
// The state of one runGraph call and its stages, each in the file of its
// concern: RunGraph.cpp (the order of the stages, the check and the
// outputs), CpuRun.cpp (lazy-to-cpu, compile, call, time), PlanSearch.cpp
// (--search-plans), GpuRun.cpp (the GPU lowerings, the runtime and the
// emulator). Graph preparation before scheduling is GraphPreparation.h.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_LIB_DRIVER_GRAPHRUN_H
#define LAZY_LIB_DRIVER_GRAPHRUN_H

#include "lazy/Driver/CompileForCpu.h"
#include "lazy/Driver/RunGraph.h"
#include "lazy/Interpreter/HostTensor.h"
#include "lazy/Runtime/CpuProgram.h"
#include "lazy/Runtime/DevicePlan.h"
#include "lazy/Runtime/GpuDevice.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"

#include <chrono>
#include <memory>

namespace mlir::lazy::driver {

/// Prints "lazy-run: error: MESSAGE" to stderr (after the prefix set, a
/// distributed run's rank); returns exit code 1.
int fail(const llvm::Twine &message);
void setErrorPrefix(const std::string &prefix);

/// Prints the median and fastest of the timed runs.
void printTimes(std::vector<double> times);

/// --timing: the wall time since the last mark, printed under `phase`.
class PhaseTimer {
public:
  explicit PhaseTimer(bool enabled) : enabled(enabled) {}
  void mark(llvm::StringRef phase);

private:
  bool enabled;
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
};

class DistributedRun;

class GraphRun {
public:
  explicit GraphRun(const RunOptions &options)
      : options(options), phases(options.timing) {}

  /// runGraph's job (RunGraph.cpp).
  int run();

  /// --repeat: `run` --warmup times untimed, then --repeat times timed
  /// (`last` on the final run), and the times printed (printTimes).
  LogicalResult timeRuns(function_ref<LogicalResult(bool last)> run);

  // CpuRun.cpp
  /// Lowers the scheduled `module` in place with lazy-to-cpu, with its
  /// profile hooks and poisoned buffers as asked, and --fast-exp2.
  /// lazy-to-cpu's options for a run with these hooks.
  CpuPipelineConfig cpuConfig(bool profileCalls, bool poisonBuffers,
                              bool checkCalls) const;
  /// The CPU program options: compile threads, objects' folder, the
  /// profile and check hooks.
  mlir::lazy::CpuProgramOptions hostProgramOptions() const;
  /// The disk cache the options ask for (--no-cache, --cache-dir, else
  /// the environment's), or none.
  std::optional<mlir::lazy::ProgramCache> programCache() const;
  /// Creates --dump-objects' folder.
  LogicalResult makeObjectDir() const;
  /// --timing: what the cache did.
  void reportCache(const CacheReport &report) const;
  LogicalResult lowerToCpu(ModuleOp module, const std::string &name,
                           bool profileCalls, bool poisonBuffers,
                           bool checkCalls = false);
  /// Compiles a lazy-to-cpu module whose entry is @name for this host
  /// (CpuProgram: LLVM's -O3 and code generation, the kernels split over
  /// the compile threads), with the profile hooks and --dump-objects.
  FailureOr<std::unique_ptr<CpuProgram>>
  compileForHost(ModuleOp lowered, const std::string &name);
  /// Lowers a copy of the scheduled `module` with lazy-to-cpu, compiles it
  /// and runs @name once untimed and `runs` times on copies of `args`:
  /// each kernel's time, the least over the runs of its calls' sum.
  FailureOr<llvm::StringMap<double>>
  timeKernelsOnCpu(ModuleOp module, const std::string &name,
                   const std::vector<::lazy::interp::HostTensor> &args,
                   size_t numResults, unsigned runs);
  /// Lowers the scheduled module with lazy-to-cpu and runs @name compiled
  /// by CpuProgram; arguments are the inputs' bytes (assign targets are
  /// written in place).
  LogicalResult runOnCpu(ModuleOp module, const std::string &name,
                         std::vector<::lazy::interp::HostTensor> &args,
                         size_t numResults,
                         std::vector<std::vector<uint8_t>> &resultBuffers);

  // PlanSearch.cpp
  LogicalResult
  searchKernelPlans(ModuleOp module, const std::string &name,
                    const std::vector<::lazy::interp::HostTensor> &args,
                    size_t numResults);

  // GpuRun.cpp
  std::string tensorCoresOf(StringRef device);
  FailureOr<std::unique_ptr<::lazy::runtime::GpuDevice>>
  lowerAndEmulate(ModuleOp module);
  LogicalResult runOnGpu(ModuleOp module, const std::string &name,
                         ::lazy::runtime::GpuDevice &gpu, StringRef target,
                         std::vector<::lazy::interp::HostTensor> &args,
                         std::vector<std::vector<uint8_t>> &resultBuffers,
                         ::lazy::runtime::PlanRecorder *recorder = nullptr);
  LogicalResult runHostCode(ModuleOp module, const std::string &name,
                            ::lazy::runtime::GpuDevice &gpu,
                            std::vector<::lazy::interp::HostTensor> &args,
                            std::vector<std::vector<uint8_t>> &resultBuffers,
                            ::lazy::runtime::PlanRecorder *recorder);
  LogicalResult runEmulated(ModuleOp module, const std::string &name,
                            std::vector<::lazy::interp::HostTensor> &args,
                            std::vector<std::vector<uint8_t>> &resultBuffers);

  const RunOptions &options;
  PhaseTimer phases;
  /// --distributed: this rank's part of the job (null otherwise).
  DistributedRun *distributed = nullptr;
  /// Set by --check-kernels when a kernel call's outputs differ from the
  /// interpreter's.
  bool kernelsDiffer = false;
};

} // namespace mlir::lazy::driver

#endif // LAZY_LIB_DRIVER_GRAPHRUN_H
