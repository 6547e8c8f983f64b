//===- RunGraph.cpp - parse, schedule, compile, run and check -------------===//
//
// runGraph's stages, in order: parse the module and take its graph
// function; make the inputs; prepare the graph (GraphPreparation.h);
// schedule it (lazy-schedule, and lazy-optimize-kernels for GPU plans and
// forced ones); optionally search plans; evaluate the reference; run on the
// device asked for (CpuRun.cpp, GpuRun.cpp); read each result through its
// view, write it and judge it against the reference (ReferenceCheck.h).
//
//===----------------------------------------------------------------------===//

#include "DistributedRun.h"
#include "GraphRun.h"

#include "lazy/Conversion/Passes.h"
#include "lazy/Dialect/Lazy/IR/LazyAttrs.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Dialect/Lazy/Transforms/Passes.h"
#include "lazy/Driver/CompileForCpu.h"
#include "lazy/Driver/GraphPreparation.h"
#include "lazy/InitAll.h"
#include "lazy/Interpreter/Arguments.h"
#include "lazy/Interpreter/HostFunctions.h"
#include "lazy/Interpreter/Interpreter.h"
#include "lazy/Interpreter/Npy.h"
#include "lazy/Runtime/DevicePlan.h"
#include "lazy/Runtime/HostProgram.h"
#include "lazy/Runtime/ReferenceCheck.h"
#include "lazy/Runtime/Tolerance.h"
#include "lazy/Tools/ParseInput.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <cstring>
#include <map>

using namespace mlir;
using namespace mlir::lazy;
using namespace mlir::lazy::driver;
namespace interp = ::lazy::interp;

static std::string errorPrefix;

void mlir::lazy::driver::setErrorPrefix(const std::string &prefix) {
  errorPrefix = prefix;
}

int mlir::lazy::driver::fail(const llvm::Twine &message) {
  llvm::errs() << "lazy-run: " << errorPrefix << "error: " << message << "\n";
  return 1;
}

void mlir::lazy::driver::printTimes(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  llvm::outs() << llvm::formatv("time: median {0:f3} ms, min {1:f3} ms over "
                                "{2} runs\n",
                                times[times.size() / 2] * 1e3,
                                times.front() * 1e3, times.size());
}

LogicalResult GraphRun::timeRuns(function_ref<LogicalResult(bool last)> run) {
  std::vector<double> times;
  unsigned runs = options.warmup + options.repeat;
  for (unsigned r = 0; r < runs; ++r) {
    auto start = std::chrono::steady_clock::now();
    if (failed(run(r + 1 == runs)))
      return failure();
    if (r >= options.warmup)
      times.push_back(std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count());
  }
  printTimes(times);
  return success();
}

void PhaseTimer::mark(llvm::StringRef phase) {
  auto now = std::chrono::steady_clock::now();
  if (phase.empty()) { // restart, printing nothing
    last = now;
    return;
  }
  if (enabled)
    llvm::errs() << llvm::formatv(
        "lazy-run: time {0,-9} {1,10:f1} ms\n", phase,
        std::chrono::duration<double, std::milli>(now - last).count());
  last = now;
}

std::optional<std::string>
mlir::lazy::checkRunOptions(const RunOptions &options) {
  if (options.device != "cpu" && options.device != "cuda" &&
      options.device != "hip" && options.device != "emulate")
    return std::string("--device must be cpu, cuda, hip or emulate, not '" +
                       options.device + "'");
  if (!options.record.empty() && options.device != "cuda" &&
      options.device != "hip")
    return std::string("--record needs --device=cuda or --device=hip");
  if (options.lockstep && (options.device != "cuda" && options.device != "hip"))
    return std::string("--lockstep needs --device=cuda or --device=hip");
  if (options.lockstep && !options.record.empty())
    return std::string("--lockstep runs on a GPU; --record only writes a plan");
  if (!options.kernelOptions.empty() && options.device == "cpu")
    return std::string(
        "--kernel-options are for the GPU lowering, not --device=cpu");
  if (options.noCache && !options.cacheDir.empty())
    return std::string("--no-cache and --cache-dir contradict each other");
  if (!options.cacheDir.empty() && options.device != "cpu")
    return std::string("--cache-dir keeps CPU programs; --device=" +
                       options.device + " compiles no CPU program");
  if (options.warmup && !options.repeat)
    return std::string("--warmup needs --repeat");
  if (options.distributed &&
      (options.device != "cpu" || options.searchPlans || options.checkKernels ||
       !options.dumpObjects.empty()))
    return std::string("--distributed runs each rank's program on the CPU: "
                       "it takes no --device other than cpu, "
                       "--search-plans, --check-kernels or --dump-objects");
  if (options.distributed && !options.mpiTimeout)
    return std::string("--mpi-timeout must be at least 1 second");
  if (!options.record.empty() && options.repeat)
    return std::string("--record writes one run; time it with lazy-replay "
                       "--repeat instead of --repeat");
  return std::nullopt;
}

int mlir::lazy::runGraph(const RunOptions &options) {
  if (std::optional<std::string> problem = checkRunOptions(options))
    return fail(*problem);
  return GraphRun(options).run();
}

int GraphRun::run() {
  // A rank joins its job first: every later failure is agreed on with the
  // other ranks (DistributedRun's destructor).
  std::unique_ptr<DistributedRun> rankRun;
  if (options.distributed) {
    rankRun = DistributedRun::join(options.mpiTimeout);
    if (!rankRun)
      return 1;
    distributed = rankRun.get();
  }
  // A GPU is opened first: without one there is nothing to compile for.
  std::unique_ptr<::lazy::runtime::GpuDevice> gpu;
  if ((options.device == "cuda" || options.device == "hip") &&
      options.record.empty()) {
    std::string why;
    gpu = ::lazy::runtime::GpuDevice::open(
        options.device == "cuda" ? ::lazy::runtime::GpuDevice::Vendor::Cuda
                                 : ::lazy::runtime::GpuDevice::Vendor::Hip,
        why);
    if (!gpu)
      return fail("--device=" + options.device + ": no GPU available (" + why +
                  ")");
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
  OwningOpRef<ModuleOp> module = mlir::lazy::parseInputModule(
      "lazy-run", options.inputFile, sourceMgr, &context);
  if (!module)
    return 1;
  // The --var values, by name.
  std::map<std::string, int64_t> given;
  for (const std::string &assignment : options.variables) {
    StringRef name = StringRef(assignment).split('=').first;
    int64_t value = 0;
    if (name.empty() || name.size() == assignment.size() ||
        StringRef(assignment)
            .drop_front(name.size() + 1)
            .getAsInteger(10, value))
      return fail("--var takes NAME=VALUE (an integer), not '" + assignment +
                  "'");
    given[name.str()] = value;
  }
  phases.mark("parse");

  func::FuncOp graph = findEntryFunction(*module, options.entry);
  if (!graph)
    return fail(options.entry.empty()
                    ? "the module has no function"
                    : "no function named '" + options.entry + "'");
  // Only the entry is compiled: other functions could use what the CPU
  // path cannot lower.
  for (auto f : llvm::make_early_inc_range(module->getOps<func::FuncOp>()))
    if (f != graph)
      f.erase();
  std::string name = graph.getSymName().str();
  const std::string graphName = name;
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
      mlir::lazy::prepareArguments(graph, options.inputs, options.seed, error);
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
  if (options.check || symbolic || !options.variables.empty())
    unscheduled = module->clone();
  if (symbolic || !options.variables.empty()) {
    FailureOr<std::map<std::string, int64_t>> chosen =
        variableValuesForRun(graph, *unscheduled, given, options.variables);
    if (failed(chosen))
      return 1;
    values = std::move(*chosen);
    // The results' shapes at these values.
    auto bound = unscheduled->lookupSymbol<func::FuncOp>(graphName);
    resultTypes.assign(bound.getResultTypes().begin(),
                       bound.getResultTypes().end());
  }

  // Schedule, keeping the views results are read through.
  PassManager pm(&context);
  // GPU kernels get the GPU plans here (the CPU's come with lazy-to-cpu);
  // forced plans replace the heuristic's for their kernels.
  // A distributed run plans each rank's memory once it is split
  // (lazy-distribute moves all-reduces, which planned buffers forbid).
  std::string schedule =
      distributed ? "lazy-schedule{plan-memory=false}" : "lazy-schedule";
  bool gpuDevice = options.device != "cpu";
  if (!options.plans.empty() || gpuDevice)
    schedule +=
        std::string(",lazy-optimize-kernels{") +
        (gpuDevice
             ? "target=gpu tensor-cores=" + tensorCoresOf(options.device) +
                   // The plans lazy-to-rocdl would make.
                   (options.device == "hip"
                        ? " gpu-reduce-per-thread=" +
                              std::to_string(kRocdlReducePerThread)
                        : "") +
                   " " + options.planOptions + " "
             : "") +
        (options.plans.empty() ? ""
                               : "force=" + llvm::join(options.plans, ",")) +
        "}";
  if (failed(parsePassPipeline(schedule, pm)) || failed(pm.run(*module)))
    return 1;
  phases.mark("schedule");
  graph = module->lookupSymbol<func::FuncOp>(name);
  if (failed(seeds.finish(graph)))
    return 1;
  if (symbolic)
    setLaunchValues(graph, values);
  // --distributed: this rank's function (lazy-distribute), its arguments
  // and outputs by their positions in the graph's.
  std::vector<int64_t> outputIndex;
  std::vector<interp::HostTensor> rankArgs;
  std::vector<interp::HostTensor> *runArgs = &args;
  if (distributed) {
    FailureOr<std::vector<std::string>> devices =
        mlir::lazy::rankDevicesOf(graph);
    if (failed(devices))
      return 1;
    int ranks = distributed->world().size();
    if (int64_t(devices->size()) != ranks)
      return fail(llvm::formatv(
          "the schedule has {0} device(s) ({1}), one rank each: run it with "
          "mpirun -n {0}, not {2}",
          devices->size(), llvm::join(*devices, ", "), ranks));
    PassManager distribute(&context);
    std::string rank = std::to_string(distributed->rank());
    if (failed(parsePassPipeline("lazy-distribute{rank=" + rank +
                                     "},func.func(lazy-plan-memory)",
                                 distribute)) ||
        failed(distribute.run(*module)))
      return 1;
    name += "_rank" + rank;
    graph = module->lookupSymbol<func::FuncOp>(name);
    for (unsigned i = 0; i < graph.getNumArguments(); ++i)
      rankArgs.push_back(
          args[size_t(graph
                          .getArgAttrOfType<IntegerAttr>(
                              i, mlir::lazy::LazyDialect::kArgumentAttrName)
                          .getInt())]);
    for (unsigned i = 0; i < graph.getNumResults(); ++i)
      outputIndex.push_back(graph
                                .getResultAttrOfType<IntegerAttr>(
                                    i, mlir::lazy::LazyDialect::kOutputAttrName)
                                .getInt());
    runArgs = &rankArgs;
  } else {
    for (unsigned i = 0; i < resultTypes.size(); ++i)
      outputIndex.push_back(i);
  }
  if (options.device == "cpu" || options.device == "emulate") {
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

  if (options.checkKernels && options.device != "cpu")
    return fail("--check-kernels checks the CPU program's kernel calls: it "
                "needs --device=cpu (--device=cuda --lockstep checks GPU "
                "kernels)");
  if (options.searchPlans) {
    if (options.device != "cpu")
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
  if (options.check) {
    auto copyGraph = unscheduled->lookupSymbol<func::FuncOp>(graphName);
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
  if (options.device == "emulate") {
    if (failed(runEmulated(*module, name, args, resultBuffers)))
      return 1;
  } else if (!options.record.empty()) {
    // The results the GPU lowering gives, from the emulator (on a copy),
    // then the same schedule compiled for the GPU and recorded.
    OwningOpRef<ModuleOp> emulated = module->clone();
    if (failed(runEmulated(*emulated, name, args, resultBuffers)))
      return 1;
    if (std::error_code ec = llvm::sys::fs::create_directories(options.record))
      return fail(options.record + ": " + ec.message());
    std::string target =
        options.chip.empty()
            ? std::string(options.device == "cuda" ? "sm_90" : "gfx942")
            : options.chip;
    ::lazy::runtime::PlanRecorder recorder(options.record, options.device,
                                           target, options.recordInputs);
    if (!recorder.ok())
      return fail("cannot write " + options.record + "/plan.txt");
    std::vector<std::vector<uint8_t>> unused;
    if (failed(runOnGpu(*module, name, recorder, options.device, args, unused,
                        &recorder)))
      return 1;
    if (options.recordInputs)
      for (auto [i, t] : llvm::enumerate(resultTypes)) {
        interp::DType dtype =
            *mlir::lazy::dtypeOf(cast<RankedTensorType>(t).getElementType());
        if (!recorder.expect(i, interp::dtypeName(dtype),
                             resultBuffers[i].data(), resultBuffers[i].size()))
          return fail(recorder.error());
      }
  } else if (gpu) {
    if (failed(
            runOnGpu(*module, name, *gpu, options.device, args, resultBuffers)))
      return 1;
  } else if (failed(runOnCpu(*module, name, *runArgs, graph.getNumResults(),
                             resultBuffers))) {
    return 1;
  }

  if (!options.outputDir.empty())
    if (std::error_code ec =
            llvm::sys::fs::create_directories(options.outputDir))
      return fail(options.outputDir + ": " + ec.message());
  bool allMatch = true;
  // --distributed: the check lines go to rank 0, by output.
  std::map<int64_t, std::string> checkLines;
  for (auto [i, output] : llvm::enumerate(outputIndex)) {
    auto tensor = cast<RankedTensorType>(resultTypes[size_t(output)]);
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
    if (!options.outputDir.empty() &&
        !interp::writeNpy(options.outputDir + "/out" + std::to_string(output) +
                              ".npy",
                          out, error))
      return fail(error);
    if (options.check) {
      mlir::lazy::Verdict verdict = reference->judge(size_t(output), out);
      std::string line = "out" + std::to_string(output) + ": " +
                         verdict.describe(out.numElements());
      if (distributed)
        checkLines[output] = line;
      else
        llvm::outs() << line << "\n";
      allMatch &= verdict.ok;
    }
  }
  if (options.check && reference->noSecondOpinion())
    llvm::errs() << "lazy-run: note: no f64 evaluation of this graph to "
                    "compare the differing floats with (it has bitcasts, "
                    "buffer views or CUSTOM ops, or the evaluation failed)\n";
  if (distributed)
    return distributed->agreeResults(/*ran=*/true, allMatch, checkLines,
                                     options.check)
               ? 0
               : 1;
  if (options.check)
    llvm::outs() << (allMatch ? "all outputs match" : "outputs differ") << "\n";
  return allMatch && !kernelsDiffer ? 0 : 1;
}
