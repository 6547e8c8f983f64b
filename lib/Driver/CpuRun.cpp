//===- CpuRun.cpp - lazy-to-cpu, compile, call and time ------------------===//
//
// The CPU stages of runGraph: the scheduled module lowered with lazy-to-cpu
// and compiled by CpuProgram, its entry called through the C interface
// (one rank-1 memref descriptor per tensor's bytes), timed re-runs on
// copies of the arguments, and --profile's per-kernel times from the hooks
// convert-lazy-to-loops{profile-calls} puts around each kernel call.
//
//===----------------------------------------------------------------------===//

#include "DistributedRun.h"
#include "GraphRun.h"

#include "lazy/Driver/CompileForCpu.h"

#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Interpreter/HostFunctions.h"
#include "lazy/Interpreter/Interpreter.h"
#include "lazy/Runtime/HostProgram.h"
#include "lazy/Runtime/KernelCheck.h"
#include "lazy/Runtime/MpiWorld.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::lazy;
using namespace mlir::lazy::driver;
namespace interp = ::lazy::interp;

/// --profile on the CPU: the compiled program calls these around each
/// kernel call (convert-lazy-to-loops{profile-calls}), n being the call's
/// position in the host function.
namespace {
struct CpuCallProfile {
  std::vector<double> seconds;
  std::chrono::steady_clock::time_point start;
};
} // namespace
static CpuCallProfile cpuProfile;
static void lazyRunKernelBegin(int64_t) {
  cpuProfile.start = std::chrono::steady_clock::now();
}
static void lazyRunKernelEnd(int64_t n) {
  if (n < 0)
    return;
  if (size_t(n) >= cpuProfile.seconds.size())
    cpuProfile.seconds.resize(size_t(n) + 1, 0.0);
  cpuProfile.seconds[size_t(n)] +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                    cpuProfile.start)
          .count();
}

/// The kernel of each call in `graph`'s host code, in call order: the
/// profile hooks' call positions.
static std::vector<std::string> calledKernelsOf(func::FuncOp graph) {
  std::vector<std::string> kernels;
  graph.walk([&](mlir::lazy::LaunchOp launch) {
    kernels.push_back(launch.getKernel().str());
  });
  return kernels;
}

/// Each kernel's seconds and calls in the last profiled run (`kernels[n]`
/// is the kernel of call n).
static llvm::StringMap<std::pair<double, unsigned>>
profiledKernelTimes(ArrayRef<std::string> kernels) {
  llvm::StringMap<std::pair<double, unsigned>> byKernel;
  for (auto [n, seconds] : llvm::enumerate(cpuProfile.seconds)) {
    if (n >= kernels.size())
      break;
    auto &entry = byKernel[kernels[n]];
    entry.first += seconds;
    ++entry.second;
  }
  return byKernel;
}

/// Prints each kernel's time in the profiled run, the slowest first, with
/// its tinygrad metadata.
static void printCpuProfile(ArrayRef<std::string> kernels,
                            const llvm::StringMap<std::string> &metadata) {
  llvm::StringMap<std::pair<double, unsigned>> byKernel =
      profiledKernelTimes(kernels);
  double total = 0;
  for (auto &entry : byKernel)
    total += entry.second.first;
  std::vector<std::pair<double, StringRef>> rows;
  for (auto &entry : byKernel)
    rows.push_back({entry.second.first, entry.getKey()});
  llvm::sort(rows,
             [](const auto &a, const auto &b) { return a.first > b.first; });
  llvm::outs() << llvm::formatv("profile: {0} kernel calls, {1:f3} ms in "
                                "kernels\n",
                                kernels.size(), total * 1e3);
  for (auto &[seconds, name] : rows)
    llvm::outs() << llvm::formatv("profile: {0,9:f3} ms {1,5:f1}% x{2} {3} "
                                  "[{4}]\n",
                                  seconds * 1e3, 100 * seconds / total,
                                  byKernel[name].second, name,
                                  metadata.lookup(name));
}

namespace {
/// A rank-1 memref descriptor as the C interface passes it.
struct Descriptor {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t size;
  int64_t stride;
};

/// The packed arguments of one call of a compiled entry through its C
/// interface: the result descriptors' array, then a rank-1 memref
/// descriptor over each tensor's bytes. It points into itself: not
/// copyable.
struct PackedCall {
  PackedCall(std::vector<interp::HostTensor> &tensors, size_t numResults)
      : results(numResults) {
    for (interp::HostTensor &t : tensors)
      args.push_back(
          {t.data.data(), t.data.data(), 0, int64_t(t.data.size()), 1});
    for (Descriptor &d : args)
      argPtrs.push_back(&d);
    resultPtr = results.data();
    if (!results.empty())
      packed.push_back(&resultPtr);
    for (Descriptor *&p : argPtrs)
      packed.push_back(&p);
  }
  PackedCall(const PackedCall &) = delete;
  PackedCall &operator=(const PackedCall &) = delete;

  std::vector<Descriptor> args, results;
  std::vector<Descriptor *> argPtrs;
  Descriptor *resultPtr = nullptr;
  SmallVector<void *> packed;
};
} // namespace

/// Calls the compiled entry @name once.
static LogicalResult callEntry(mlir::lazy::CpuProgram &program,
                               const std::string &name, PackedCall &call) {
  if (llvm::Error err =
          program.invokePacked("_mlir_ciface_" + name, call.packed)) {
    fail("running @" + name + ": " + llvm::toString(std::move(err)));
    return failure();
  }
  return success();
}

CpuPipelineConfig GraphRun::cpuConfig(bool profileCalls, bool poisonBuffers,
                                      bool checkCalls) const {
  CpuPipelineConfig config;
  config.profileCalls = profileCalls;
  config.checkCalls = checkCalls;
  config.poisonBuffers = poisonBuffers;
  config.fastExp2 = options.fastExp2;
  return config;
}

LogicalResult GraphRun::lowerToCpu(ModuleOp module, const std::string &name,
                                   bool profileCalls, bool poisonBuffers,
                                   bool checkCalls) {
  return lowerForCpu(module, name,
                     cpuConfig(profileCalls, poisonBuffers, checkCalls));
}

std::optional<mlir::lazy::ProgramCache> GraphRun::programCache() const {
  if (options.noCache)
    return std::nullopt;
  if (!options.cacheDir.empty())
    return mlir::lazy::ProgramCache(options.cacheDir);
  return mlir::lazy::ProgramCache::fromEnvironment();
}

void GraphRun::reportCache(const CacheReport &report) const {
  if (!options.timing || !report.used)
    return;
  static constexpr const char *kOutcomes[] = {"hit", "miss", "rejected"};
  llvm::errs() << "lazy-run: cache " << kOutcomes[int(report.outcome)] << " "
               << report.path;
  if (!report.rejected.empty())
    llvm::errs() << " (" << report.rejected << ")";
  llvm::errs() << "\n";
  if (!report.storeError.empty())
    llvm::errs() << "lazy-run: cache not written: " << report.storeError
                 << "\n";
}

LogicalResult GraphRun::makeObjectDir() const {
  if (options.dumpObjects.empty())
    return success();
  if (std::error_code ec =
          llvm::sys::fs::create_directories(options.dumpObjects)) {
    fail(options.dumpObjects + ": " + ec.message());
    return failure();
  }
  return success();
}

mlir::lazy::CpuProgramOptions GraphRun::hostProgramOptions() const {
  mlir::lazy::CpuProgramOptions programOptions;
  programOptions.threads = options.compileThreads;
  programOptions.objectDir = options.dumpObjects;
  programOptions.symbols.push_back(
      {"lazy_rt_kernel_begin", reinterpret_cast<void *>(&lazyRunKernelBegin)});
  programOptions.symbols.push_back(
      {"lazy_rt_kernel_end", reinterpret_cast<void *>(&lazyRunKernelEnd)});
  for (auto &hook : mlir::lazy::KernelCheck::hookSymbols())
    programOptions.symbols.push_back(hook);
  // A rank's program calls MPI (lazy-distribute's sends, receives and
  // all-reduces).
  if (distributed)
    for (auto &symbol : distributed->world().programSymbols(options.profile))
      programOptions.symbols.push_back(symbol);
  return programOptions;
}

FailureOr<std::unique_ptr<mlir::lazy::CpuProgram>>
GraphRun::compileForHost(ModuleOp lowered, const std::string &name) {
  mlir::lazy::CpuProgramOptions programOptions = hostProgramOptions();
  if (failed(makeObjectDir()))
    return failure();
  std::string error;
  auto program = compileForCpu(lowered, name, programOptions, error);
  if (failed(program))
    fail("cannot compile the module: " + error);
  return program;
}

FailureOr<llvm::StringMap<double>>
GraphRun::timeKernelsOnCpu(ModuleOp module, const std::string &name,
                           const std::vector<interp::HostTensor> &args,
                           size_t numResults, unsigned runs) {
  OwningOpRef<ModuleOp> copy = module.clone();
  auto graph = copy->lookupSymbol<func::FuncOp>(name);
  std::vector<std::string> calledKernels = calledKernelsOf(graph);
  if (failed(lowerToCpu(*copy, name, /*profileCalls=*/true,
                        /*poisonBuffers=*/false)))
    return failure();
  auto program = compileForHost(*copy, name);
  if (failed(program))
    return failure();
  std::vector<interp::HostTensor> copies = args;
  PackedCall call(copies, numResults);
  llvm::StringMap<double> best;
  for (unsigned r = 0; r <= runs; ++r) {
    // Every run starts from the same inputs: an assign target would
    // otherwise accumulate (its values, NaNs or subnormals, can change a
    // kernel's time). Same sizes: the call's pointers stay valid.
    for (auto [copy, arg] : llvm::zip(copies, args))
      std::copy(arg.data.begin(), arg.data.end(), copy.data.begin());
    cpuProfile.seconds.clear();
    if (failed(callEntry(**program, name, call)))
      return failure();
    if (r == 0)
      continue; // warm-up
    for (auto &entry : profiledKernelTimes(calledKernels)) {
      double seconds = entry.second.first;
      auto [it, inserted] = best.try_emplace(entry.getKey(), seconds);
      if (!inserted)
        it->second = std::min(it->second, seconds);
    }
  }
  return best;
}

LogicalResult
GraphRun::runOnCpu(ModuleOp module, const std::string &name,
                   std::vector<interp::HostTensor> &args, size_t numResults,
                   std::vector<std::vector<uint8_t>> &resultBuffers) {
  auto graph = module.lookupSymbol<func::FuncOp>(name);
  // Item sizes of the returned buffers (the function becomes an llvm.func).
  std::vector<int64_t> itemBytes;
  for (Type t : graph.getResultTypes())
    itemBytes.push_back(
        mlir::lazy::itemSize(cast<mlir::lazy::BufferType>(t).getElementType()));
  // --profile: the kernel of each call, and the kernels' metadata (the
  // kernels are lowered away).
  std::vector<std::string> calledKernels;
  llvm::StringMap<std::string> kernelMetadata;
  if (options.profile) {
    calledKernels = calledKernelsOf(graph);
    for (auto kernel : module.getOps<mlir::lazy::KernelOp>())
      if (ArrayAttr metadata = kernel.getMetadataAttr()) {
        std::string &what = kernelMetadata[kernel.getSymName()];
        for (Attribute m : metadata)
          if (auto s = dyn_cast<StringAttr>(m))
            what += (what.empty() ? "" : ", ") + s.getValue().str();
      }
  }
  // With --check, fresh buffers hold a poison pattern (0xFF bytes, a NaN
  // in every float dtype): an output no kernel writes cannot match.
  if (options.warmCompile) {
    OwningOpRef<ModuleOp> copy = module.clone();
    if (failed(lowerToCpu(*copy, name, options.profile, options.check)) ||
        failed(compileForHost(*copy, name)))
      return failure();
    phases.mark("");
  }
  // --check-kernels reads the kernels and launches as scheduled.
  OwningOpRef<ModuleOp> scheduled;
  std::optional<mlir::lazy::KernelCheck> kernelCheck;
  if (options.checkKernels) {
    scheduled = module.clone();
    kernelCheck.emplace(*scheduled, name);
  }
  // Through the disk cache: a hit links the stored objects (one "load"
  // phase) instead of lowering and compiling.
  if (failed(makeObjectDir()))
    return failure();
  std::optional<mlir::lazy::ProgramCache> cache = programCache();
  CacheReport report;
  std::string error;
  auto program = buildForCpu(module, name,
                             cpuConfig(options.profile,
                                       options.check || options.checkKernels,
                                       options.checkKernels),
                             hostProgramOptions(), cache ? &*cache : nullptr,
                             error, &report, [&] { phases.mark("lower"); });
  reportCache(report);
  if (failed(program) && !error.empty())
    fail("cannot compile the module: " + error);
  if (failed(program))
    return failure();
  phases.mark(report.outcome == mlir::lazy::ProgramCache::Outcome::Hit
                  ? "load"
                  : "compile");
  // A rank runs only once every rank has its program: a send to a rank
  // that failed would wait for ever.
  if (distributed && !distributed->agreeReady(true))
    return failure();
  PackedCall call(args, numResults);
  {
    std::optional<mlir::lazy::KernelCheck::Active> active;
    if (kernelCheck)
      active.emplace(*kernelCheck);
    if (failed(callEntry(**program, name, call)))
      return failure();
  }
  phases.mark("run");
  if (kernelCheck)
    kernelsDiffer = !kernelCheck->report(llvm::outs());
  // lazy-to-cpu's buffers are static (convert-lazy-to-loops
  // {static-buffers}): results live in the program's globals or in the
  // arguments, nothing is freed, and a later run overwrites them, so they
  // are copied out first. The scheduled function returns buffers: memrefs
  // of the buffer's dtype.
  for (auto [d, bytes] : llvm::zip(call.results, itemBytes)) {
    const uint8_t *begin =
        static_cast<const uint8_t *>(d.aligned) + d.offset * bytes;
    resultBuffers.emplace_back(begin, begin + d.size * bytes);
  }
  if (options.repeat) {
    // Timed re-runs work on copies of the arguments (assign targets are
    // written in place): the first run's results are the ones reported.
    std::vector<interp::HostTensor> copies = args;
    PackedCall rerun(copies, numResults);
    if (failed(timeRuns([&](bool) {
          // The last run is the one profiled.
          cpuProfile.seconds.clear();
          ::lazy::runtime::MpiWorld::callTimes() = {};
          return callEntry(**program, name, rerun);
        })))
      return failure();
  }
  if (options.profile)
    printCpuProfile(calledKernels, kernelMetadata);
  if (options.profile && distributed) {
    // The time this rank waited in MPI: for data, or for the other ranks.
    const auto &mpi = ::lazy::runtime::MpiWorld::callTimes();
    llvm::outs() << llvm::formatv(
        "profile: {0} MPI calls, {1:f3} ms in MPI (all-reduce {2:f3}, send "
        "{3:f3}, receive {4:f3})\n",
        mpi.calls, (mpi.allReduce + mpi.send + mpi.receive) * 1e3,
        mpi.allReduce * 1e3, mpi.send * 1e3, mpi.receive * 1e3);
  }
  return success();
}
