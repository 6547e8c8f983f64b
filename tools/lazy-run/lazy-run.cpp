//===- lazy-run.cpp - schedule, compile and run a graph -------------------===//
//
// lazy-run GRAPH.mlir [--entry=NAME] [--input=I=PATH.npy ...] [--seed=S]
//          [--output-dir=DIR] [--check] [--check-kernels]
//          [--device=cpu|cuda|hip] [--chip=C] [--var=NAME=VALUE ...]
//          [--plan=KERNEL:KIND:AXIS:AMOUNT,...] [--search-plans=N]
//          [--repeat=N [--warmup=N]] [--dump-objects=DIR]
//
// Schedules a graph-level function (lazy-schedule, with the module's flags)
// and runs it. On the CPU the kernels and the scheduled program are lowered
// to the LLVM dialect (lazy-to-cpu), compiled on every core (CpuProgram.h)
// and run. On
// a GPU the kernels are compiled with lazy-to-nvvm (a cubin where ptxas
// is found on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin, PTX for the
// driver to compile otherwise) or lazy-to-rocdl (HSACO), loaded through the
// runtime (runtime/, the vendor driver opened with dlopen), and the host
// code is issued op by op (HostProgram.h). Inputs come from
// .npy files or a seed (as lazy-interp makes them); results go to
// DIR/out<i>.npy. With --check the unscheduled graph is also evaluated by
// the reference interpreter on the same inputs; lazy-run prints the largest
// difference per output and exits 1 on any mismatch (integers and bools
// must be equal; floats within the rtol/atol of the narrowest float dtype
// they were computed in). A float element off the interpreter's still
// matches when it lies between the interpreter's and the graph evaluated
// in f64 (interpretInFloat64, made only then): an in-order f32 sum can be
// the less accurate of the two; or when it is within twice the spread that
// rounding noise gives the interpreter's value (interpretWithRoundingNoise,
// kNoisyRuns evaluations, made only then): a cancellation, such as a
// softmax's max gradient, is as far from any one rounding as that.
//
// --check-kernels (CPU) checks each kernel call on its own: after the
// call, its outputs are compared with the kernel evaluated by the
// interpreter on copies of the inputs the call was given (KernelCheck.h),
// one line per call and a summary; lazy-run exits 1 when one differs.
//
// A graph with Variables (symbolic shapes) is scheduled and compiled once;
// its kernels take the Variables as arguments, and the launches pass the
// values given with --var NAME=VALUE (default: the bound ones), which
// lazy-bind-variables checks first on a copy of the graph (the --check
// reference). Results are read at those values.
//
// --search-plans (CPU) times up to N candidate plans per kernel before the
// run (PlanCandidates.h; round i compiles the program with every kernel's
// i-th candidate and the profile hooks time each kernel, every run on the
// original inputs; a round after the heuristic's that fails to compile
// loses its candidates, with a note) and runs with each kernel's fastest,
// printing them as a --plan list.
//
// Values marked lazy.seen (an earlier schedule's) are scheduled here too,
// with a note: lazy-run runs one whole graph.
//
// Outputs are read as tinygrad's .numpy() reads them, through
// .contiguous(): an output that is a const (which has no buffer, so no
// schedule item computes it) becomes a kernel.
//
// custom_random items (Tensor.rand) get tinygrad's seeds: the k-th one the
// schedule runs without a seed of its own gets the module's lazy.rng_seed
// plus k. The seeds are written on the graph first, so that the reference
// interpreter draws the same numbers.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/IR/KernelSpace.h"
#include "lazy/Dialect/Lazy/IR/LazyAttrs.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Dialect/Lazy/IR/PlanCandidates.h"
#include "lazy/Dialect/Lazy/IR/RngSeeds.h"
#include "lazy/Dialect/Lazy/IR/TensorCores.h"
#include "lazy/InitAll.h"
#include "lazy/Interpreter/Arguments.h"
#include "lazy/Interpreter/HostFunctions.h"
#include "lazy/Interpreter/Interpreter.h"
#include "lazy/Interpreter/Npy.h"
#include "lazy/Runtime/CpuProgram.h"
#include "lazy/Runtime/DevicePlan.h"
#include "lazy/Runtime/GpuEmulator.h"
#include "lazy/Runtime/HostProgram.h"
#include "lazy/Runtime/KernelCheck.h"
#include "lazy/Runtime/LockstepDevice.h"
#include "lazy/Runtime/ReferenceCheck.h"
#include "lazy/Runtime/Tolerance.h"
#include "lazy/Tools/LargeStack.h"
#include "lazy/Tools/ParseInput.h"
#include "lazy/Tools/StandardOutput.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

using namespace mlir;
namespace interp = ::lazy::interp;
namespace cl = llvm::cl;

static cl::OptionCategory toolOptions("lazy-run options");

static cl::opt<std::string> inputFile(cl::cat(toolOptions), cl::Positional,
                                      cl::desc("<graph.mlir>"), cl::init("-"));
static cl::opt<std::string> entry(cl::cat(toolOptions), "entry",
                                  cl::desc("graph function to run"));
static cl::list<std::string> inputs(cl::cat(toolOptions), "input",
                                    cl::desc("argument input, I=PATH.npy"));
static cl::opt<unsigned> seed(cl::cat(toolOptions), "seed",
                              cl::desc("seed for generated inputs"),
                              cl::init(0));
static cl::opt<std::string> outputDir(cl::cat(toolOptions), "output-dir",
                                      cl::desc("where out<i>.npy are written"));
static cl::opt<bool> check(cl::cat(toolOptions), "check",
                           cl::desc("compare with the reference interpreter"));
static cl::opt<bool> checkKernels(
    cl::cat(toolOptions), "check-kernels",
    cl::desc("compare each kernel call with the reference interpreter on "
             "the inputs the call was given (CPU; KernelCheck.h)"));
static cl::opt<std::string> device(cl::cat(toolOptions), "device",
                                   cl::init("cpu"),
                                   cl::desc("cpu, cuda, hip, or emulate (the "
                                            "GPU kernels on CPU threads)"));
static cl::opt<unsigned>
    repeat(cl::cat(toolOptions), "repeat", cl::init(0),
           cl::desc("run the compiled program N more times and print the "
                    "median time (benchmarks)"));
static cl::opt<unsigned>
    warmup(cl::cat(toolOptions), "warmup", cl::init(0),
           cl::desc("with --repeat: first run the program N times untimed "
                    "(memory reads reach their steady speed only after a few "
                    "runs over the same buffers)"));
static cl::opt<std::string> dumpObjects(
    cl::cat(toolOptions), "dump-objects",
    cl::desc("CPU: write the compiled object files to this directory "
             "(whole.o, or part<N>.o and host.o), to read the generated "
             "code with objdump"));
static cl::opt<bool> lockstep(
    cl::cat(toolOptions), "lockstep",
    cl::desc("with --device=cuda|hip: also run every kernel on the GPU "
             "emulator, on the same inputs, and print each kernel whose "
             "results differ"));
static cl::opt<std::string>
    kernelOptions(cl::cat(toolOptions), "kernel-options",
                  cl::desc("GPU: options of convert-lazy-to-gpu, as in "
                           "'block-size=512 block-reduce-min=128'"));
static cl::list<std::string> plans(
    cl::cat(toolOptions), "plan", cl::CommaSeparated,
    cl::desc("force kernels' plans, one step per item: "
             "KERNEL:KIND:AXIS:AMOUNT or KERNEL:none (lazy-optimize-kernels' "
             "force option; other kernels get the heuristic's plan)"));
static cl::opt<unsigned> searchPlans(
    cl::cat(toolOptions), "search-plans", cl::init(0),
    cl::desc("CPU: time up to N candidate plans per kernel (the "
             "heuristic's, none, and one step changed at a time: "
             "PlanCandidates.h), every kernel's i-th candidate in one "
             "compiled program per round, and run with each kernel's "
             "fastest; prints the plans found as a --plan list"));
static cl::opt<std::string> planOptions(
    cl::cat(toolOptions), "plan-options",
    cl::desc("GPU: options of lazy-optimize-kernels' GPU plans, as in "
             "'gpu-min-tiles=1' (every reduce kernel that fits gets a "
             "register tile)"));
static cl::opt<std::string> tensorCores(
    cl::cat(toolOptions), "tensor-cores",
    cl::desc("GPU: the tensor-core instruction the kernels' tc plans use "
             "(none, mma-sync, mfma, wmma; default: mma-sync for cuda and "
             "emulate, the chip's for hip)"));
static cl::opt<bool>
    profile(cl::cat(toolOptions), "profile",
            cl::desc("GPU: time every kernel launch (alone, with the "
                     "driver's events) and print its bytes and GB/s; CPU: "
                     "time every kernel call of the last run and print "
                     "each kernel's total, the slowest first"));
static cl::opt<std::string>
    chip(cl::cat(toolOptions), "chip",
         cl::desc("GPU to compile for (default: the device's own, "
                  "or gfx942 for hip)"));
static cl::opt<std::string> record(
    cl::cat(toolOptions), "record",
    cl::desc("with --device=cuda|hip: no GPU needed; write what would run on "
             "it (a device plan: code object, allocations, launches, inputs) "
             "to this directory, with the results the GPU emulator gives, "
             "for lazy-replay on a GPU machine"));
static cl::opt<bool> fastExp2(
    cl::cat(toolOptions), "fast-exp2",
    cl::desc("CPU: f32 exp2 within 1 ulp instead of correctly rounded, "
             "about half the vector ops (lazy-to-cpu's fast-exp2); "
             "outputs that amplify rounding follow it"));
static cl::opt<bool> warmCompile(
    cl::cat(toolOptions), "warm-compile",
    cl::desc("CPU: lower and compile a copy of the program first, untimed, "
             "so that --timing's lower and compile phases are those of a "
             "process that has compiled before (libraries bound and "
             "initialized), as in a long-running caller; nothing is cached "
             "between the two"));
static cl::opt<bool> timing(
    cl::cat(toolOptions), "timing",
    cl::desc("print the wall time of each phase (parse, schedule, lower, "
             "compile, first run) to stderr, one 'lazy-run: time' line "
             "each"));
static cl::opt<unsigned> compileThreads(
    cl::cat(toolOptions), "compile-threads", cl::init(0),
    cl::desc("CPU: threads that compile the kernels (0: one per hardware "
             "thread)"));
static cl::list<std::string> variables(
    cl::cat(toolOptions), "var",
    cl::desc("a Variable's value for this run, NAME=VALUE (repeatable; "
             "default: the value the graph binds it to). The schedule and "
             "its kernels are the same for every value; the launches pass "
             "the values"));
static cl::opt<bool> recordInputs(
    cl::cat(toolOptions), "record-inputs", cl::init(true),
    cl::desc("with --record: store the inputs' bytes and the expected "
             "results (false: zero-filled inputs, timing only)"));

namespace {

/// --timing: the wall time since the last mark, printed under `phase`.
class PhaseTimer {
public:
  void mark(llvm::StringRef phase) {
    auto now = std::chrono::steady_clock::now();
    if (phase.empty()) { // restart, printing nothing
      last = now;
      return;
    }
    if (timing)
      llvm::errs() << llvm::formatv(
          "lazy-run: time {0,-9} {1,10:f1} ms\n", phase,
          std::chrono::duration<double, std::milli>(now - last).count());
    last = now;
  }

private:
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
};
PhaseTimer phases;

/// --profile on the CPU: the compiled program calls these around each
/// kernel call (convert-lazy-to-loops{profile-calls}), n being the call's
/// position in the host function.
struct CpuCallProfile {
  std::vector<double> seconds;
  std::chrono::steady_clock::time_point start;
} cpuProfile;
extern "C" void lazyRunKernelBegin(int64_t) {
  cpuProfile.start = std::chrono::steady_clock::now();
}
extern "C" void lazyRunKernelEnd(int64_t n) {
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
std::vector<std::string> calledKernelsOf(func::FuncOp graph) {
  std::vector<std::string> kernels;
  graph.walk([&](mlir::lazy::LaunchOp launch) {
    kernels.push_back(launch.getKernel().str());
  });
  return kernels;
}

/// Each kernel's seconds and calls in the last profiled run (`kernels[n]`
/// is the kernel of call n).
llvm::StringMap<std::pair<double, unsigned>>
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
void printCpuProfile(ArrayRef<std::string> kernels,
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

/// A rank-1 memref descriptor as the C interface passes it.
struct Descriptor {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t size;
  int64_t stride;
};

int fail(const llvm::Twine &message) {
  llvm::errs() << "lazy-run: error: " << message << "\n";
  return 1;
}

/// Prints the median and fastest of the timed runs.
void printTimes(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  llvm::outs() << llvm::formatv("time: median {0:f3} ms, min {1:f3} ms over "
                                "{2} runs\n",
                                times[times.size() / 2] * 1e3,
                                times.front() * 1e3, times.size());
}

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

/// Set by --check-kernels when a kernel call's outputs differ from the
/// interpreter's.
bool kernelsDiffer = false;

/// Lowers the scheduled `module` in place with lazy-to-cpu, with its
/// profile hooks and poisoned buffers as asked, and --fast-exp2.
LogicalResult lowerToCpu(ModuleOp module, bool profileCalls, bool poisonBuffers,
                         bool checkCalls = false) {
  std::string pipeline = "lazy-to-cpu{";
  if (profileCalls)
    pipeline += " profile-calls=true";
  if (checkCalls)
    pipeline += " check-calls=true";
  if (poisonBuffers)
    pipeline += " poison-buffers=true";
  if (fastExp2)
    pipeline += " fast-exp2=true";
  pipeline += "}";
  PassManager lower(module.getContext());
  return failure(failed(parsePassPipeline(pipeline, lower)) ||
                 failed(lower.run(module)));
}

/// Compiles a lazy-to-cpu module whose entry is @name for this host
/// (CpuProgram: LLVM's -O3 and code generation, the kernels split over
/// the compile threads), with the profile hooks and --dump-objects.
FailureOr<std::unique_ptr<mlir::lazy::CpuProgram>>
compileForHost(ModuleOp lowered, const std::string &name) {
  mlir::lazy::CpuProgramOptions programOptions;
  programOptions.threads = compileThreads;
  programOptions.objectDir = dumpObjects;
  if (!dumpObjects.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(dumpObjects)) {
      fail(dumpObjects + ": " + ec.message());
      return failure();
    }
  programOptions.symbols.push_back(
      {"lazy_rt_kernel_begin", reinterpret_cast<void *>(&lazyRunKernelBegin)});
  programOptions.symbols.push_back(
      {"lazy_rt_kernel_end", reinterpret_cast<void *>(&lazyRunKernelEnd)});
  for (auto &hook : mlir::lazy::KernelCheck::hookSymbols())
    programOptions.symbols.push_back(hook);
  auto engine = mlir::lazy::CpuProgram::compile(lowered, name, programOptions);
  if (!engine) {
    fail("cannot compile the module: " + llvm::toString(engine.takeError()));
    return failure();
  }
  return std::move(*engine);
}

/// Calls the compiled entry @name once.
LogicalResult callEntry(mlir::lazy::CpuProgram &program,
                        const std::string &name, PackedCall &call) {
  if (llvm::Error err =
          program.invokePacked("_mlir_ciface_" + name, call.packed)) {
    fail("running @" + name + ": " + llvm::toString(std::move(err)));
    return failure();
  }
  return success();
}

/// Lowers a copy of the scheduled `module` with lazy-to-cpu, compiles it
/// and runs @name once untimed and `runs` times on copies of `args`:
/// each kernel's time, the least over the runs of its calls' sum.
FailureOr<llvm::StringMap<double>>
timeKernelsOnCpu(ModuleOp module, const std::string &name,
                 const std::vector<interp::HostTensor> &args, size_t numResults,
                 unsigned runs) {
  OwningOpRef<ModuleOp> copy = module.clone();
  auto graph = copy->lookupSymbol<func::FuncOp>(name);
  std::vector<std::string> calledKernels = calledKernelsOf(graph);
  graph->setAttr("llvm.emit_c_interface", UnitAttr::get(copy->getContext()));
  if (failed(lowerToCpu(*copy, /*profileCalls=*/true,
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

/// --search-plans: gives each kernel of the scheduled `module` the fastest
/// of its candidate plans (PlanCandidates.h), timed on the CPU. Round i
/// compiles the program with every kernel's i-th candidate (the kernels'
/// times are independent enough that one program times them all), so N
/// candidates cost N compiles whatever the number of kernels.
LogicalResult searchKernelPlans(ModuleOp module, const std::string &name,
                                const std::vector<interp::HostTensor> &args,
                                size_t numResults) {
  MLIRContext *ctx = module.getContext();
  // The heuristic's plans, from a copy (forced ones are set already).
  OwningOpRef<ModuleOp> planned = module.clone();
  PassManager pm(ctx);
  if (failed(parsePassPipeline("lazy-optimize-kernels", pm)) ||
      failed(pm.run(*planned)))
    return failure();
  struct Searched {
    mlir::lazy::KernelOp kernel;
    SmallVector<ArrayAttr> candidates;
    std::vector<double> seconds;
  };
  std::vector<Searched> kernels;
  size_t rounds = 0;
  // Kernels whose plan --plan forces are not searched.
  llvm::StringSet<> forced;
  for (const std::string &step : plans)
    forced.insert(StringRef(step).split(':').first);
  for (auto kernel : module.getOps<mlir::lazy::KernelOp>()) {
    auto heuristic =
        planned->lookupSymbol<mlir::lazy::KernelOp>(kernel.getSymName());
    std::string why;
    FailureOr<mlir::lazy::KernelSpace> space =
        mlir::lazy::kernelSpace(kernel, why);
    if (failed(space) || forced.contains(kernel.getSymName()))
      continue;
    SmallVector<Attribute> plan;
    if (ArrayAttr opts = heuristic.getOptsAttr())
      plan.assign(opts.begin(), opts.end());
    SmallVector<ArrayAttr> candidates =
        mlir::lazy::planCandidates(ctx, plan, *space, searchPlans);
    if (candidates.size() < 2)
      continue;
    rounds = std::max(rounds, candidates.size());
    kernels.push_back({kernel, std::move(candidates), {}});
  }
  if (kernels.empty()) {
    llvm::errs() << "lazy-run: search: no kernel has plans to compare\n";
    return success();
  }
  for (size_t round = 0; round < rounds; ++round) {
    // Kernels with fewer candidates repeat their heuristic plan.
    for (Searched &k : kernels)
      k.kernel.setOptsAttr(
          k.candidates[round < k.candidates.size() ? round : 0]);
    FailureOr<llvm::StringMap<double>> times =
        timeKernelsOnCpu(module, name, args, numResults, /*runs=*/3);
    // The heuristic's round must run; a later round that does not (a
    // candidate the lowering refuses) only loses its candidates.
    if (failed(times) && round == 0)
      return failure();
    if (failed(times))
      llvm::errs() << "lazy-run: search: round " << round
                   << " did not compile and run; its candidates are "
                      "skipped\n";
    for (Searched &k : kernels)
      if (round < k.candidates.size())
        k.seconds.push_back(succeeded(times)
                                ? times->lookup(k.kernel.getSymName())
                                : std::numeric_limits<double>::infinity());
  }
  std::vector<std::string> found;
  for (Searched &k : kernels) {
    size_t best = size_t(std::min_element(k.seconds.begin(), k.seconds.end()) -
                         k.seconds.begin());
    ArrayAttr plan = k.candidates[best];
    k.kernel.setOptsAttr(plan);
    if (plan.empty())
      found.push_back(k.kernel.getSymName().str() + ":none");
    for (Attribute a : plan) {
      auto opt = cast<mlir::lazy::OptAttr>(a);
      found.push_back(llvm::formatv("{0}:{1}:{2}:{3}", k.kernel.getSymName(),
                                    mlir::lazy::stringifyOptKind(opt.getKind()),
                                    opt.getAxis(), opt.getAmount())
                          .str());
    }
    llvm::errs() << llvm::formatv(
        "lazy-run: search {0}: {1} candidates, heuristic {2:f2} us, best "
        "{3:f2} us ({4})\n",
        k.kernel.getSymName(), k.candidates.size(), k.seconds[0] * 1e6,
        k.seconds[best] * 1e6, plan);
  }
  llvm::errs() << "lazy-run: search found --plan=" << llvm::join(found, ",")
               << "\n";
  return success();
}

/// Lowers the scheduled module with lazy-to-cpu and runs @name compiled by
/// CpuProgram; arguments are the inputs' bytes (assign targets are
/// written in place).
LogicalResult runOnCpu(ModuleOp module, const std::string &name,
                       std::vector<interp::HostTensor> &args, size_t numResults,
                       std::vector<std::vector<uint8_t>> &resultBuffers) {
  auto graph = module.lookupSymbol<func::FuncOp>(name);
  // Item sizes of the returned buffers (the function becomes an llvm.func).
  std::vector<int64_t> itemBytes;
  for (Type t : graph.getResultTypes())
    itemBytes.push_back(
        mlir::lazy::itemSize(cast<mlir::lazy::BufferType>(t).getElementType()));
  graph->setAttr("llvm.emit_c_interface", UnitAttr::get(module.getContext()));
  // --profile: the kernel of each call, and the kernels' metadata (the
  // kernels are lowered away).
  std::vector<std::string> calledKernels;
  llvm::StringMap<std::string> kernelMetadata;
  if (profile) {
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
  if (warmCompile) {
    OwningOpRef<ModuleOp> copy = module.clone();
    if (failed(lowerToCpu(*copy, profile, check)) ||
        failed(compileForHost(*copy, name)))
      return failure();
    phases.mark("");
  }
  // --check-kernels reads the kernels and launches as scheduled.
  OwningOpRef<ModuleOp> scheduled;
  std::optional<mlir::lazy::KernelCheck> kernelCheck;
  if (checkKernels) {
    scheduled = module.clone();
    kernelCheck.emplace(*scheduled, name);
  }
  if (failed(lowerToCpu(module, profile, check || checkKernels, checkKernels)))
    return failure();
  phases.mark("lower");
  auto program = compileForHost(module, name);
  if (failed(program))
    return failure();
  phases.mark("compile");
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
  if (repeat) {
    // Timed re-runs work on copies of the arguments (assign targets are
    // written in place): the first run's results are the ones reported.
    std::vector<interp::HostTensor> copies = args;
    PackedCall rerun(copies, numResults);
    std::vector<double> times;
    for (unsigned r = 0; r < warmup + repeat; ++r) {
      // The last run is the one profiled.
      cpuProfile.seconds.clear();
      auto start = std::chrono::steady_clock::now();
      if (failed(callEntry(**program, name, rerun)))
        return failure();
      if (r >= warmup)
        times.push_back(std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - start)
                            .count());
    }
    printTimes(times);
  }
  if (profile)
    printCpuProfile(calledKernels, kernelMetadata);
  return success();
}

LogicalResult runHostCode(ModuleOp module, const std::string &name,
                          ::lazy::runtime::GpuDevice &gpu,
                          std::vector<interp::HostTensor> &args,
                          std::vector<std::vector<uint8_t>> &resultBuffers,
                          ::lazy::runtime::PlanRecorder *recorder);

/// The tensor-core instruction for `device`: --tensor-cores, else NVIDIA's
/// mma.sync for the emulator and for cuda (that of a --chip sm_XY given),
/// the chip's for hip (gfx942 when no chip is given).
std::string tensorCoresOf(StringRef device) {
  if (!tensorCores.empty())
    return tensorCores;
  StringRef given = chip;
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
lowerAndEmulate(ModuleOp module) {
  PassManager lower(module.getContext());
  // The emulator runs mma.sync, mfma and wmma as the GPUs do.
  if (failed(parsePassPipeline(
          "convert-lazy-to-gpu{tensor-cores=" + tensorCoresOf(device) + " " +
              kernelOptions + "}",
          lower)) ||
      failed(lower.run(module)))
    return failure();
  return mlir::lazy::createGpuEmulator(module);
}

/// Compiles the scheduled module's kernels for `gpu`, loads them and runs
/// the host code, inputs copied in and result buffers copied back.
LogicalResult runOnGpu(ModuleOp module, const std::string &name,
                       ::lazy::runtime::GpuDevice &gpu, StringRef target,
                       std::vector<interp::HostTensor> &args,
                       std::vector<std::vector<uint8_t>> &resultBuffers,
                       ::lazy::runtime::PlanRecorder *recorder = nullptr) {
  std::string pipeline;
  if (target == "emulate") {
    // Lowered already (convert-lazy-to-gpu); nothing to serialize or load.
  } else if (target == "cuda") {
    std::string sm = chip.empty() ? gpu.chip() : chip.getValue();
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
               kernelOptions + "}";
  } else {
    pipeline = "lazy-to-rocdl{chip=" +
               (chip.empty() ? std::string("gfx942") : chip.getValue()) + " " +
               kernelOptions + "}";
  }
  // --lockstep: the same kernels on the emulator, from a copy of the module.
  // The emulator runs each launch with the GPU's geometry, so the copy's
  // lowering options need not be the vendor pipeline's: block size, unroll
  // and index width do not change what a kernel computes.
  std::unique_ptr<::lazy::runtime::GpuDevice> emulator;
  if (lockstep) { // (main allows it with --device=cuda|hip alone)
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
LogicalResult runHostCode(ModuleOp module, const std::string &name,
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
  else if (profile)
    profiler = [](StringRef kernel, double seconds, size_t bytes) {
      llvm::outs() << llvm::formatv(
          "kernel {0}: {1:f1} us, {2} bytes, {3:f1} GB/s\n", kernel,
          seconds * 1e6, bytes, double(bytes) / seconds / 1e9);
    };
  FailureOr<std::vector<mlir::lazy::DeviceBuffer>> results =
      mlir::lazy::runHostProgram(host, gpu, inputs, allocations,
                                 repeat ? nullptr : profiler,
                                 /*poison=*/check);
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
  if (repeat) {
    std::vector<double> times;
    for (unsigned r = 0; r < warmup + repeat; ++r) {
      std::vector<::lazy::runtime::DevicePtr> scratch;
      llvm::scope_exit freeScratch([&] {
        for (::lazy::runtime::DevicePtr p : scratch)
          gpu.free(p);
      });
      auto start = std::chrono::steady_clock::now();
      // Kernels are profiled in the last (warm) run.
      if (failed(mlir::lazy::runHostProgram(
              host, gpu, inputs, scratch,
              r + 1 == warmup + repeat ? profiler : nullptr)))
        return failure();
      if (r >= warmup)
        times.push_back(std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - start)
                            .count());
    }
    printTimes(times);
  }
  return success();
}

/// The schedule run on the GPU emulator (lowerAndEmulate).
LogicalResult runEmulated(ModuleOp module, const std::string &name,
                          std::vector<interp::HostTensor> &args,
                          std::vector<std::vector<uint8_t>> &resultBuffers) {
  auto emulator = lowerAndEmulate(module);
  if (failed(emulator))
    return failure();
  return runOnGpu(module, name, **emulator, "emulate", args, resultBuffers);
}

/// Drops the `lazy.seen` marks: an earlier schedule would have produced
/// those values, and lazy-run runs only this one, so it schedules them too
/// (as the interpreter computes them). Says so on stderr.
void scheduleSeenValues(func::FuncOp graph) {
  unsigned count = 0;
  for (Operation &op : graph.getBody().front())
    if (op.removeAttr(mlir::lazy::LazyDialect::kSeenAttrName))
      ++count;
  if (count)
    llvm::errs() << "lazy-run: note: " << count
                 << " value(s) marked lazy.seen (produced by an earlier "
                    "schedule) are scheduled here too\n";
}

/// Reads each const output through lazy.contiguous, as tinygrad's .numpy()
/// does: a const has no buffer for the schedule to return. Views are
/// folded first (lazy-fold-views, as the schedule folds them), so that an
/// output whose view reads nothing (all padding, or a size-0 source),
/// which tinygrad's _view makes const(0), is one too.
LogicalResult materializeConstOutputs(ModuleOp module, func::FuncOp graph) {
  PassManager fold(module.getContext());
  if (failed(parsePassPipeline("func.func(lazy-fold-views)", fold)) ||
      failed(fold.run(module)))
    return failure();
  Operation *ret = graph.getBody().front().getTerminator();
  OpBuilder b(ret);
  for (OpOperand &operand : ret->getOpOperands()) {
    Value base = operand.get();
    while (Operation *def = base.getDefiningOp()) {
      if (!isa<mlir::lazy::ViewOp, mlir::lazy::ReshapeOp, mlir::lazy::PermuteOp,
               mlir::lazy::ExpandOp, mlir::lazy::PadOp, mlir::lazy::ShrinkOp,
               mlir::lazy::StrideOp>(def))
        break;
      base = def->getOperand(0);
    }
    if (base.getDefiningOp<mlir::lazy::ConstOp>())
      operand.set(mlir::lazy::ContiguousOp::create(
          b, operand.get().getLoc(), operand.get().getType(), operand.get()));
  }
  return success();
}

/// tinygrad's seeds for the custom_random draws without a seed of their
/// own: the k-th the schedule runs gets lazy.rng_seed + k. Before
/// scheduling, each such draw gets a provisional seed that no explicit seed
/// uses, which names it through scheduling; the scheduled order then gives
/// the real seeds, written on the scheduled items and on any copy of the
/// graph taken before. Draws the schedule does not run (nothing uses them)
/// continue the count, so that the interpreter can evaluate them too.
class RandomSeeds {
public:
  /// Stamps provisional seeds on `graph`'s seedless draws.
  void stamp(ModuleOp module, func::FuncOp graph) {
    llvm::DenseSet<int64_t> taken;
    SmallVector<mlir::lazy::CustomOp> seedless;
    module.walk([&](Operation *op) {
      if (auto custom = dyn_cast<mlir::lazy::CustomOp>(op)) {
        if (custom.getSeed())
          taken.insert(int64_t(*custom.getSeed()));
        else if (custom.getCallee() == interp::kCustomRandom &&
                 custom->getParentOp() == graph)
          seedless.push_back(custom);
      } else if (auto ext = dyn_cast<mlir::lazy::ExtOp>(op)) {
        if (ext.getSeed())
          taken.insert(int64_t(*ext.getSeed()));
      }
    });
    int64_t candidate = 0;
    for (mlir::lazy::CustomOp op : seedless) {
      while (taken.contains(candidate))
        ++candidate;
      provisional.push_back(candidate);
      op.setSeed(candidate++);
    }
    seeds.emplace(module);
  }

  /// Gives the real seeds in the order of the scheduled `graph`'s items,
  /// and writes them there.
  LogicalResult finish(func::FuncOp graph) {
    llvm::DenseSet<int64_t> pending(provisional.begin(), provisional.end());
    auto next = [&](int64_t draw, Operation *at) -> FailureOr<int64_t> {
      FailureOr<int64_t> seed = seeds->next(at);
      if (failed(seed))
        return failure();
      pending.erase(draw);
      return real[draw] = *seed;
    };
    WalkResult walked = graph.walk([&](mlir::lazy::ExtOp item) {
      if (item.getKind() != "custom" || !item.getSeed() ||
          !pending.contains(int64_t(*item.getSeed())))
        return WalkResult::advance();
      FailureOr<int64_t> seed = next(int64_t(*item.getSeed()), item);
      if (failed(seed))
        return WalkResult::interrupt();
      item.setSeed(*seed);
      return WalkResult::advance();
    });
    if (walked.wasInterrupted())
      return failure();
    for (int64_t draw : provisional)
      if (pending.contains(draw) && failed(next(draw, graph)))
        return failure();
    return success();
  }

  /// Writes the real seeds on a copy of the graph taken after stamp().
  void apply(func::FuncOp copy) const {
    copy.walk([&](mlir::lazy::CustomOp op) {
      if (op.getSeed())
        if (auto it = real.find(int64_t(*op.getSeed())); it != real.end())
          op.setSeed(it->second);
    });
  }

private:
  SmallVector<int64_t> provisional;      // per seedless draw, in graph order
  llvm::DenseMap<int64_t, int64_t> real; // provisional -> real seed
  std::optional<mlir::lazy::RngSeedCounter> seeds; // set by stamp()
};

/// Symbolic shapes: each Variable's value for this run, by name (`given`,
/// the --var values, else the value the graph binds it to), checked by
/// lazy-bind-variables on `bound`, a copy of the graph that becomes its
/// integer graph at those values (the reference --check evaluates).
FailureOr<std::map<std::string, int64_t>>
bindVariables(func::FuncOp graph, ModuleOp bound,
              const std::map<std::string, int64_t> &given) {
  std::string pipeline = "lazy-bind-variables";
  if (!variables.empty())
    pipeline += "{values=" + llvm::join(variables, ",") + "}";
  PassManager pm(bound.getContext());
  if (failed(parsePassPipeline(pipeline, pm)) || failed(pm.run(bound)))
    return failure();
  std::map<std::string, int64_t> values;
  graph.walk([&](Operation *op) {
    std::map<std::string, ::lazy::st::sym::NodeP> held;
    mlir::lazy::collectVariables(op, held);
    for (auto &[key, node] : held)
      if (node->bound)
        values.emplace(node->name, *node->bound);
  });
  for (auto &[name, value] : given)
    values[name] = value;
  return values;
}

/// Sets every launch's lazy.var_vals to `values` (by Variable name): the
/// kernels were scheduled at the bound values and serve every value.
void setLaunchValues(func::FuncOp graph,
                     const std::map<std::string, int64_t> &values) {
  graph.walk([&](mlir::lazy::LaunchOp launch) {
    auto given = launch->getAttrOfType<DictionaryAttr>(
        mlir::lazy::LazyDialect::kVarValuesAttrName);
    if (!given)
      return;
    Builder b(launch.getContext());
    SmallVector<NamedAttribute> entries;
    for (NamedAttribute entry : given) {
      StringRef key = entry.getName().getValue();
      auto it =
          values.find(key.take_until([](char c) { return c == '['; }).str());
      entries.push_back(
          it == values.end()
              ? entry
              : b.getNamedAttr(key, b.getI64IntegerAttr(it->second)));
    }
    launch->setAttr(mlir::lazy::LazyDialect::kVarValuesAttrName,
                    b.getDictionaryAttr(entries));
  });
}

/// A result's view at the Variables' values (by name).
FailureOr<::lazy::st::ShapeTracker>
viewAt(mlir::lazy::ShapeTrackerAttr view,
       const std::map<std::string, int64_t> &values, Location loc) {
  if (!view.isSymbolic())
    return view.getTracker();
  std::optional<::lazy::st::ShapeTracker> ints =
      ::lazy::st::trackerAt(view.getSymTracker(), values);
  if (!ints)
    return emitError(loc, "a result's view has no integer form at these "
                          "values"),
           failure();
  return *ints;
}

} // namespace

static int toolMain(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // --help lists this tool's options, not every LLVM and MLIR one linked in.
  cl::HideUnrelatedOptions(toolOptions);
  cl::ParseCommandLineOptions(argc, argv,
                              "lazy-mlir runner: schedules a lazy graph, "
                              "compiles it for the CPU or a GPU\n"
                              "(or the GPU emulator) and runs it\n");
  if (device != "cpu" && device != "cuda" && device != "hip" &&
      device != "emulate")
    return fail("--device must be cpu, cuda, hip or emulate, not '" + device +
                "'");
  // A GPU is opened first: without one there is nothing to compile for.
  if (!record.empty() && device != "cuda" && device != "hip")
    return fail("--record needs --device=cuda or --device=hip");
  if (lockstep && (device != "cuda" && device != "hip"))
    return fail("--lockstep needs --device=cuda or --device=hip");
  if (lockstep && !record.empty())
    return fail("--lockstep runs on a GPU; --record only writes a plan");
  if (!kernelOptions.empty() && device == "cpu")
    return fail("--kernel-options are for the GPU lowering, not --device=cpu");
  if (warmup && !repeat)
    return fail("--warmup needs --repeat");
  if (!record.empty() && repeat)
    return fail("--record writes one run; time it with lazy-replay "
                "--repeat instead of --repeat");
  std::unique_ptr<::lazy::runtime::GpuDevice> gpu;
  if ((device == "cuda" || device == "hip") && record.empty()) {
    std::string why;
    gpu = ::lazy::runtime::GpuDevice::open(
        device == "cuda" ? ::lazy::runtime::GpuDevice::Vendor::Cuda
                         : ::lazy::runtime::GpuDevice::Vendor::Hip,
        why);
    if (!gpu)
      return fail("--device=" + device + ": no GPU available (" + why + ")");
  }
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  DialectRegistry registry;
  mlir::lazy::registerAllDialects(registry);
  mlir::lazy::registerAllPasses();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);
  // Errors name their location; the IR of a whole module is no help.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      mlir::lazy::parseInputModule("lazy-run", inputFile, sourceMgr, &context);
  if (!module)
    return 1;
  // The --var values, by name.
  std::map<std::string, int64_t> given;
  for (const std::string &entry : variables) {
    StringRef name = StringRef(entry).split('=').first;
    int64_t value = 0;
    if (name.empty() || name.size() == entry.size() ||
        StringRef(entry).drop_front(name.size() + 1).getAsInteger(10, value))
      return fail("--var takes NAME=VALUE (an integer), not '" + entry + "'");
    given[name.str()] = value;
  }
  phases.mark("parse");

  func::FuncOp graph;
  for (auto f : module->getOps<func::FuncOp>())
    if ((entry.empty() && !graph && !f.isExternal()) || f.getSymName() == entry)
      graph = f;
  if (!graph)
    return fail(entry.empty() ? "the module has no function"
                              : "no function named '" + entry + "'");
  // Only the entry is compiled: other functions could use what the CPU
  // path cannot lower.
  for (auto f : llvm::make_early_inc_range(module->getOps<func::FuncOp>()))
    if (f != graph)
      f.erase();
  std::string name = graph.getSymName().str();
  SmallVector<Type> argTypes(graph.getArgumentTypes());
  SmallVector<Type> resultTypes(graph.getResultTypes());
  for (Type t : llvm::concat<Type>(argTypes, resultTypes)) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !mlir::lazy::dtypeOf(tensor.getElementType()))
      return fail("@" + name +
                  " is not a graph-level function (tensors of "
                  "tinygrad dtypes in and out)");
  }

  std::string error;
  std::optional<mlir::lazy::PreparedArguments> prepared =
      mlir::lazy::prepareArguments(graph, inputs, seed, error);
  if (!prepared)
    return fail(error);
  std::vector<interp::HostTensor> &args = prepared->values;
  phases.mark("inputs");
  scheduleSeenValues(graph);
  if (failed(materializeConstOutputs(*module, graph)))
    return 1;
  RandomSeeds seeds;
  seeds.stamp(*module, graph);
  // The reference runs on a copy of the unscheduled graph; with Variables,
  // on its integer graph at this run's values.
  OwningOpRef<ModuleOp> unscheduled;
  bool symbolic = mlir::lazy::holdsVariables(graph);
  std::map<std::string, int64_t> values;
  if (check || symbolic || !variables.empty())
    unscheduled = module->clone();
  if (symbolic || !variables.empty()) {
    FailureOr<std::map<std::string, int64_t>> chosen =
        bindVariables(graph, *unscheduled, given);
    if (failed(chosen))
      return 1;
    values = std::move(*chosen);
    // The results' shapes at these values.
    auto bound = unscheduled->lookupSymbol<func::FuncOp>(name);
    resultTypes.assign(bound.getResultTypes().begin(),
                       bound.getResultTypes().end());
  }

  // Schedule, keeping the views results are read through.
  PassManager pm(&context);
  // GPU kernels get the GPU plans here (the CPU's come with lazy-to-cpu);
  // forced plans replace the heuristic's for their kernels.
  std::string schedule = "lazy-schedule";
  bool gpuDevice = device != "cpu";
  if (!plans.empty() || gpuDevice)
    schedule +=
        std::string(",lazy-optimize-kernels{") +
        (gpuDevice ? "target=gpu tensor-cores=" + tensorCoresOf(device) + " " +
                         planOptions + " "
                   : "") +
        (plans.empty() ? "" : "force=" + llvm::join(plans, ",")) + "}";
  if (failed(parsePassPipeline(schedule, pm)) || failed(pm.run(*module)))
    return 1;
  phases.mark("schedule");
  graph = module->lookupSymbol<func::FuncOp>(name);
  if (failed(seeds.finish(graph)))
    return 1;
  if (symbolic)
    setLaunchValues(graph, values);
  if (device == "cpu" || device == "emulate") {
    // The compiled program allocates its buffers without a way to report a
    // failure: refuse buffers the host cannot hold.
    uint64_t bufferBytes = 0, budget = mlir::lazy::hostMemoryBudget();
    bool tooLarge = false;
    graph.walk([&](mlir::lazy::AllocOp alloc) {
      tooLarge |= __builtin_add_overflow(
          bufferBytes, uint64_t(alloc.getType().getSizeInBytes()),
          &bufferBytes);
    });
    if (tooLarge || bufferBytes > budget)
      return fail("the schedule's buffers need more than " +
                  std::to_string(budget) + " bytes (" +
                  mlir::lazy::describeMemoryBudget() + ")");
  }

  if (checkKernels && device != "cpu")
    return fail("--check-kernels checks the CPU program's kernel calls: it "
                "needs --device=cpu (--device=cuda --lockstep checks GPU "
                "kernels)");
  if (searchPlans) {
    if (device != "cpu")
      return fail("--search-plans times CPU kernels: it needs --device=cpu");
    if (failed(searchKernelPlans(*module, name, args, resultTypes.size())))
      return 1;
    phases.mark("search");
  }

  // The reference: the unscheduled graph evaluated by the interpreter. A
  // run with assigns writes its inputs: the second opinions, made only if a
  // float result differs, then read this copy.
  std::vector<interp::HostTensor> checkInputs;
  std::optional<mlir::lazy::ReferenceCheck> reference;
  if (check) {
    auto copyGraph = unscheduled->lookupSymbol<func::FuncOp>(name);
    seeds.apply(copyGraph);
    bool assigns = false;
    copyGraph.walk([&](mlir::lazy::AssignOp) { assigns = true; });
    if (assigns)
      checkInputs = args;
    FailureOr<mlir::lazy::ReferenceCheck> evaluated =
        mlir::lazy::ReferenceCheck::evaluate(copyGraph,
                                             assigns ? checkInputs : args);
    if (failed(evaluated))
      return 1;
    reference = std::move(*evaluated);
  }
  std::vector<std::optional<::lazy::st::ShapeTracker>> resultViews;
  for (unsigned i = 0; i < graph.getNumResults(); ++i) {
    auto view = graph.getResultAttrOfType<mlir::lazy::ShapeTrackerAttr>(
        i, mlir::lazy::LazyDialect::kResultViewAttrName);
    if (!view) {
      resultViews.push_back(std::nullopt);
      continue;
    }
    FailureOr<::lazy::st::ShapeTracker> at =
        viewAt(view, values, graph.getLoc());
    if (failed(at))
      return 1;
    resultViews.push_back(*at);
  }
  // Each result's buffer, as bytes.
  std::vector<std::vector<uint8_t>> resultBuffers;
  if (device == "emulate") {
    if (failed(runEmulated(*module, name, args, resultBuffers)))
      return 1;
  } else if (!record.empty()) {
    // The results the GPU lowering gives, from the emulator (on a copy),
    // then the same schedule compiled for the GPU and recorded.
    OwningOpRef<ModuleOp> emulated = module->clone();
    if (failed(runEmulated(*emulated, name, args, resultBuffers)))
      return 1;
    if (std::error_code ec = llvm::sys::fs::create_directories(record))
      return fail(record + ": " + ec.message());
    std::string target =
        chip.empty() ? std::string(device == "cuda" ? "sm_90" : "gfx942")
                     : chip.getValue();
    ::lazy::runtime::PlanRecorder recorder(record, device, target,
                                           recordInputs);
    if (!recorder.ok())
      return fail("cannot write " + record + "/plan.txt");
    std::vector<std::vector<uint8_t>> unused;
    if (failed(
            runOnGpu(*module, name, recorder, device, args, unused, &recorder)))
      return 1;
    if (recordInputs)
      for (auto [i, t] : llvm::enumerate(resultTypes)) {
        interp::DType dtype =
            *mlir::lazy::dtypeOf(cast<RankedTensorType>(t).getElementType());
        if (!recorder.expect(i, interp::dtypeName(dtype),
                             resultBuffers[i].data(), resultBuffers[i].size()))
          return fail(recorder.error());
      }
  } else if (gpu) {
    if (failed(runOnGpu(*module, name, *gpu, device, args, resultBuffers)))
      return 1;
  } else if (failed(runOnCpu(*module, name, args, resultTypes.size(),
                             resultBuffers))) {
    return 1;
  }

  if (!outputDir.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
      return fail(outputDir + ": " + ec.message());
  bool allMatch = true;
  for (auto [i, t] : llvm::enumerate(resultTypes)) {
    auto tensor = cast<RankedTensorType>(t);
    interp::DType dtype = *mlir::lazy::dtypeOf(tensor.getElementType());
    std::vector<int64_t> shape(tensor.getShape().begin(),
                               tensor.getShape().end());
    int64_t bytes = interp::itemSize(dtype);
    const std::vector<uint8_t> &buffer = resultBuffers[i];
    int64_t size = int64_t(buffer.size()) / bytes;
    interp::HostTensor out;
    if (resultViews[i]) {
      // Read the buffer through the result's view.
      out = mlir::lazy::readThroughView(buffer.data(), size, dtype,
                                        *resultViews[i]);
    } else {
      out = interp::HostTensor::zeros(dtype, shape);
      // Not for empty tensors: their data() may be null.
      if (size_t n = std::min(out.data.size(), buffer.size()))
        std::memcpy(out.data.data(), buffer.data(), n);
    }
    if (!outputDir.empty() &&
        !interp::writeNpy(outputDir + "/out" + std::to_string(i) + ".npy", out,
                          error))
      return fail(error);
    if (check) {
      mlir::lazy::Verdict verdict = reference->judge(i, out);
      llvm::outs() << "out" << i << ": " << verdict.describe(out.numElements())
                   << "\n";
      allMatch &= verdict.ok;
    }
  }
  if (check && reference->noSecondOpinion())
    llvm::errs() << "lazy-run: note: no f64 evaluation of this graph to "
                    "compare the differing floats with (it has bitcasts, "
                    "buffer views or CUSTOM ops, or the evaluation failed)\n";
  if (check)
    llvm::outs() << (allMatch ? "all outputs match" : "outputs differ") << "\n";
  return allMatch && !kernelsDiffer ? 0 : 1;
}

int main(int argc, char **argv) {
  return mlir::lazy::finishStandardOutput(
      "lazy-run", mlir::lazy::runWithLargeStack(toolMain, argc, argv));
}
