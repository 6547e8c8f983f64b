//===- lazy-interp.cpp - run graph-level lazy IR on the host --------------===//
//
// lazy-interp GRAPH.mlir [--entry=NAME] [--input=I=PATH.npy ...] [--seed=S]
//             [--output-dir=DIR] [--print]
//
// Evaluates one function of a graph-level module with the reference
// interpreter. Argument I reads PATH.npy; arguments without an --input are
// filled with seeded random values of their dtype (and written to
// DIR/in<I>.npy so a run can be reproduced). Result i is written to
// DIR/out<i>.npy and, with --print, printed as text. --rounding-noise=N
// evaluates with the rounding noise lazy-run --check weighs differing
// floats with (interpretWithRoundingNoise, seed N).
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/IR/LazyDialect.h"
#include "lazy/Driver/CompileForCpu.h"
#include "lazy/Driver/GraphPreparation.h"
#include "lazy/InitAll.h"
#include "lazy/Interpreter/Arguments.h"
#include "lazy/Interpreter/Interpreter.h"
#include "lazy/Interpreter/Npy.h"
#include "lazy/Tools/GraphInputOptions.h"
#include "lazy/Tools/LargeStack.h"
#include "lazy/Tools/ParseInput.h"
#include "lazy/Tools/StandardOutput.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace interp = ::lazy::interp;
namespace cl = llvm::cl;

static cl::OptionCategory toolOptions("lazy-interp options");

/// The file, function, inputs and output directory (GraphInputOptions.h).
static struct {
  std::string inputFile = "-", entry;
  std::vector<std::string> inputs;
  unsigned seed = 0;
  std::string outputDir;
} graph;
static mlir::lazy::GraphInputOptions graphOptions(toolOptions, graph);

static cl::opt<bool> printResults(cl::cat(toolOptions), "print",
                                  cl::desc("print results as text"));
static cl::opt<bool> scheduleCheck(
    cl::cat(toolOptions), "schedule-check",
    cl::desc("first schedule a copy of the function (lazy-schedule) and "
             "refuse a graph that cannot be scheduled, as tinygrad does "
             "(default true)"),
    cl::init(true));

static cl::opt<uint64_t> roundingNoise(
    cl::cat(toolOptions), "rounding-noise",
    cl::desc("N > 0: evaluate with rounding noise of seed N, as lazy-run "
             "--check does to weigh a differing float result (each float an "
             "op rounds may move to a neighbour); refused for graphs with "
             "bitcasts, buffer views or CUSTOM ops"),
    cl::init(0));

static cl::list<std::string>
    variables(cl::cat(toolOptions), "var",
              cl::desc("NAME=VALUE: evaluate a graph with symbolic shapes at "
                       "this value of its Variable NAME (default: the value "
                       "it is bound to)"));

static void printTensor(llvm::raw_ostream &os, unsigned index,
                        const interp::HostTensor &t) {
  os << "out" << index << ": " << interp::dtypeName(t.dtype) << " (";
  llvm::interleaveComma(t.shape, os);
  os << ") [";
  for (int64_t i = 0, e = t.numElements(); i < e; ++i) {
    if (i)
      os << ", ";
    const uint8_t *p = &t.data[size_t(i * interp::itemSize(t.dtype))];
    auto get = [&](auto v) {
      std::memcpy(&v, p, sizeof(v));
      return v;
    };
    switch (t.dtype) {
    case interp::DType::Bool:
      os << (*p ? "true" : "false");
      break;
    case interp::DType::Int8:
      os << int(get(int8_t()));
      break;
    case interp::DType::UInt8:
      os << unsigned(get(uint8_t()));
      break;
    case interp::DType::Int16:
      os << get(int16_t());
      break;
    case interp::DType::UInt16:
      os << get(uint16_t());
      break;
    case interp::DType::Int32:
      os << get(int32_t());
      break;
    case interp::DType::UInt32:
      os << get(uint32_t());
      break;
    case interp::DType::Int64:
      os << get(int64_t());
      break;
    case interp::DType::UInt64:
      os << get(uint64_t());
      break;
    case interp::DType::Float16:
      os << llvm::format("%g", interp::halfToFloat(get(uint16_t())));
      break;
    case interp::DType::BFloat16:
      os << llvm::format("%g", interp::bfloat16ToFloat(get(uint16_t())));
      break;
    case interp::DType::Float32:
      os << llvm::format("%.9g", get(float()));
      break;
    case interp::DType::Float64:
      os << llvm::format("%.17g", get(double()));
      break;
    }
  }
  os << "]\n";
}

static int toolMain(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // --help lists this tool's options, not every LLVM and MLIR one linked in.
  cl::HideUnrelatedOptions(toolOptions);
  cl::ParseCommandLineOptions(argc, argv, "lazy-mlir reference interpreter\n");
  auto fail = [](const llvm::Twine &message) {
    llvm::errs() << "lazy-interp: error: " << message << "\n";
    return 1;
  };

  mlir::lazy::registerAllPasses();
  DialectRegistry registry;
  mlir::lazy::registerAllDialects(registry);
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = mlir::lazy::parseInputModule(
      "lazy-interp", graph.inputFile, sourceMgr, &context);
  if (!module)
    return 1; // the parser reported the located error

  func::FuncOp func = mlir::lazy::findEntryFunction(*module, graph.entry);
  if (!func)
    return fail(graph.entry.empty()
                    ? "the module has no function"
                    : "no function named '" + graph.entry + "'");

  // A graph no schedule can run (assigns whose kernels wait on each other,
  // an assign through a non-contiguous view) has no tinygrad meaning:
  // refused with the scheduler's located errors.
  if (scheduleCheck) {
    OwningOpRef<ModuleOp> copy = module->clone();
    for (auto f : llvm::make_early_inc_range(copy->getOps<func::FuncOp>()))
      if (f.getSymName() != func.getSymName())
        f.erase();
    PassManager pm(&context);
    // The scheduler's IR is not the user's: its errors point at the graph.
    context.printOpOnDiagnostic(false);
    LogicalResult scheduled =
        success(succeeded(parsePassPipeline("lazy-schedule", pm)) &&
                succeeded(pm.run(*copy)));
    context.printOpOnDiagnostic(true);
    if (failed(scheduled))
      return fail("the graph cannot be scheduled, so tinygrad 0.9.2 cannot "
                  "run it either (--schedule-check=false evaluates it "
                  "anyway)");
  }

  // A graph with Variables is evaluated at one value of each: its integer
  // graph at those values (lazy-bind-variables), as tinygrad runs it.
  {
    std::vector<std::string> assignments(variables.begin(), variables.end());
    if (failed(mlir::lazy::bindVariables(*module, assignments)) ||
        failed(mlir::lazy::rejectSymbolicShapes(*module, "lazy-interp")))
      return 1;
  }

  std::string error;
  std::optional<mlir::lazy::PreparedArguments> prepared =
      mlir::lazy::prepareArguments(func, graph.inputs, graph.seed, error);
  if (!prepared)
    return fail(error);
  std::vector<interp::HostTensor> &args = prepared->values;

  if (!graph.outputDir.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(graph.outputDir))
      return fail(graph.outputDir + ": " + ec.message());
  // Generated inputs are saved so that a run can be reproduced.
  for (auto [i, t] : llvm::enumerate(args))
    if (!graph.outputDir.empty() && prepared->generated[i] &&
        !interp::writeNpy(graph.outputDir + "/in" + std::to_string(i) + ".npy",
                          t, error))
      return fail(error);

  FailureOr<std::vector<interp::HostTensor>> results =
      roundingNoise
          ? mlir::lazy::interpretWithRoundingNoise(func, args, roundingNoise)
          : mlir::lazy::interpretFunction(func, args);
  if (failed(results)) {
    if (roundingNoise)
      return fail("--rounding-noise: this graph has no evaluation with "
                  "rounding noise (bitcasts, buffer views or CUSTOM ops), or "
                  "it failed");
    return 1;
  }
  for (auto [i, t] : llvm::enumerate(*results)) {
    if (printResults)
      printTensor(llvm::outs(), unsigned(i), t);
    if (!graph.outputDir.empty() &&
        !interp::writeNpy(graph.outputDir + "/out" + std::to_string(i) + ".npy",
                          t, error))
      return fail(error);
  }
  return 0;
}

int main(int argc, char **argv) {
  return mlir::lazy::finishStandardOutput(
      "lazy-interp", mlir::lazy::runWithLargeStack(toolMain, argc, argv));
}
