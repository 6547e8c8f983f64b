//===- lazy-run.cpp - schedule, compile and run a graph on the CPU --------===//
//
// lazy-run GRAPH.mlir [--entry=NAME] [--input=I=PATH.npy ...] [--seed=S]
//          [--output-dir=DIR] [--print] [--check] [--device=cpu]
//
// Schedules a graph-level function (lazy-schedule, with the module's flags),
// lowers the kernels and the scheduled program to the LLVM dialect
// (lazy-to-cpu) and runs it with MLIR's ExecutionEngine. Inputs come from
// .npy files or a seed (as lazy-interp makes them); results go to
// DIR/out<i>.npy. With --check the unscheduled graph is also evaluated by
// the reference interpreter on the same inputs; lazy-run prints the largest
// difference per output and exits 1 on any mismatch (integers and bools
// must be equal; floats within rtol/atol per dtype).
//
//===----------------------------------------------------------------------===//

#include "lazy/InitAll.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Interpreter/Arguments.h"
#include "lazy/Interpreter/Interpreter.h"
#include "lazy/Interpreter/Npy.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace mlir;
namespace interp = ::lazy::interp;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<graph.mlir>"),
                                      cl::init("-"));
static cl::opt<std::string> entry("entry", cl::desc("graph function to run"));
static cl::list<std::string> inputs("input",
                                    cl::desc("argument input, I=PATH.npy"));
static cl::opt<unsigned> seed("seed", cl::desc("seed for generated inputs"),
                              cl::init(0));
static cl::opt<std::string> outputDir("output-dir",
                                      cl::desc("where out<i>.npy are written"));
static cl::opt<bool> check("check",
                           cl::desc("compare with the reference interpreter"));
static cl::opt<std::string> device("device", cl::init("cpu"),
                                   cl::desc("cpu (cuda and hip: not yet)"));

namespace {

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

/// Largest difference and whether `got` matches `want` (exact for integers
/// and bools; rtol/atol per float dtype, NaN equal to NaN).
std::pair<double, bool> compare(const interp::HostTensor &want,
                                const interp::HostTensor &got) {
  if (!interp::isFloat(want.dtype))
    return {want.data == got.data ? 0.0 : INFINITY, want.data == got.data};
  double rtol = 1e-4, atol = 1e-5;
  if (want.dtype == interp::DType::Float64)
    rtol = 1e-9, atol = 1e-12;
  if (want.dtype == interp::DType::Float16)
    rtol = 1e-2, atol = 1e-3;
  if (want.dtype == interp::DType::BFloat16)
    rtol = 3e-2, atol = 1e-2;
  auto value = [](const interp::HostTensor &t, int64_t i) -> double {
    const uint8_t *p = &t.data[size_t(i * interp::itemSize(t.dtype))];
    switch (t.dtype) {
    case interp::DType::Float16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return interp::halfToFloat(h);
    }
    case interp::DType::BFloat16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return interp::bfloat16ToFloat(h);
    }
    case interp::DType::Float32: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    default: {
      double d;
      std::memcpy(&d, p, 8);
      return d;
    }
    }
  };
  double maxAbs = 0, worst = 0;
  for (int64_t i = 0, e = want.numElements(); i < e; ++i)
    maxAbs = std::max(maxAbs, std::fabs(value(want, i)));
  bool ok = true;
  for (int64_t i = 0, e = want.numElements(); i < e; ++i) {
    double w = value(want, i), g = value(got, i);
    if (std::isnan(w) || std::isnan(g)) {
      ok &= std::isnan(w) && std::isnan(g);
      continue;
    }
    if (std::isinf(w) || std::isinf(g)) {
      ok &= w == g;
      continue;
    }
    double d = std::fabs(w - g);
    worst = std::max(worst, d);
    ok &= d <= atol * std::max(1.0, maxAbs) + rtol * std::fabs(w);
  }
  return {worst, ok};
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "lazy-mlir CPU runner\n");
  if (device != "cpu")
    return fail("--device=" + device +
                " is not available yet (only cpu runs kernels today)");
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  DialectRegistry registry;
  mlir::lazy::registerAllDialects(registry);
  mlir::lazy::registerAllPasses();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  std::string error;
  auto file = openInputFile(inputFile, &error);
  if (!file)
    return fail(error);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

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
      return fail("@" + name + " is not a graph-level function (tensors of "
                  "tinygrad dtypes in and out)");
  }

  std::optional<mlir::lazy::PreparedArguments> prepared =
      mlir::lazy::prepareArguments(graph, inputs, seed, error);
  if (!prepared)
    return fail(error);
  std::vector<interp::HostTensor> &args = prepared->values;

  // The reference, on a copy of the unscheduled graph.
  std::vector<interp::HostTensor> reference;
  if (check) {
    OwningOpRef<ModuleOp> copy = module->clone();
    auto copyGraph = copy->lookupSymbol<func::FuncOp>(name);
    FailureOr<std::vector<interp::HostTensor>> ref =
        mlir::lazy::interpretFunction(copyGraph, args);
    if (failed(ref))
      return 1;
    reference = std::move(*ref);
  }

  // Schedule, keeping the views results are read through.
  PassManager pm(&context);
  if (failed(parsePassPipeline("lazy-schedule", pm)) ||
      failed(pm.run(*module)))
    return 1;
  graph = module->lookupSymbol<func::FuncOp>(name);
  std::vector<std::optional<::lazy::st::ShapeTracker>> resultViews;
  for (unsigned i = 0; i < graph.getNumResults(); ++i) {
    auto view = graph.getResultAttrOfType<mlir::lazy::ShapeTrackerAttr>(
        i, mlir::lazy::LazyDialect::kResultViewAttrName);
    resultViews.push_back(view ? std::optional(view.getTracker())
                               : std::nullopt);
  }
  graph->setAttr("llvm.emit_c_interface", UnitAttr::get(&context));
  PassManager lower(&context);
  if (failed(parsePassPipeline("lazy-to-cpu", lower)) ||
      failed(lower.run(*module)))
    return 1;

  auto engine = ExecutionEngine::create(*module, ExecutionEngineOptions());
  if (!engine)
    return fail("cannot compile the module: " +
                llvm::toString(engine.takeError()));

  // Argument descriptors over the inputs' bytes (the program may write
  // assign targets in place) and room for the result descriptors.
  std::vector<Descriptor> argDescs;
  for (interp::HostTensor &t : args)
    argDescs.push_back({t.data.data(), t.data.data(), 0, t.numElements(), 1});
  std::vector<Descriptor> results(resultTypes.size());
  std::vector<Descriptor *> argPtrs;
  for (Descriptor &d : argDescs)
    argPtrs.push_back(&d);
  Descriptor *resultPtr = results.data();
  SmallVector<void *> packed;
  if (!results.empty())
    packed.push_back(&resultPtr);
  for (Descriptor *&p : argPtrs)
    packed.push_back(&p);
  if (llvm::Error err =
          (*engine)->invokePacked("_mlir_ciface_" + name, packed))
    return fail("running @" + name + ": " + llvm::toString(std::move(err)));

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
    const Descriptor &d = results[i];
    interp::HostTensor buffer = interp::HostTensor::zeros(dtype, {d.size});
    std::memcpy(buffer.data.data(),
                static_cast<uint8_t *>(d.aligned) + d.offset * bytes,
                size_t(d.size * bytes));
    interp::HostTensor out = interp::HostTensor::zeros(dtype, shape);
    if (resultViews[i]) {
      // Read the buffer through the result's view.
      const ::lazy::st::ShapeTracker &view = *resultViews[i];
      std::vector<int64_t> idx(shape.size(), 0);
      for (int64_t e = 0, n = out.numElements(); e < n; ++e) {
        auto [index, valid] = view.indexAndValid(idx);
        if (valid && index >= 0 && index < d.size)
          std::memcpy(&out.data[size_t(e * bytes)],
                      &buffer.data[size_t(index * bytes)], size_t(bytes));
        for (size_t k = shape.size(); k-- > 0;) {
          if (++idx[k] < shape[k])
            break;
          idx[k] = 0;
        }
      }
    } else {
      std::memcpy(out.data.data(), buffer.data.data(), out.data.size());
    }
    if (!outputDir.empty() &&
        !interp::writeNpy(outputDir + "/out" + std::to_string(i) + ".npy",
                          out, error))
      return fail(error);
    if (check) {
      auto [worst, ok] = compare(reference[i], out);
      llvm::outs() << "out" << i << ": " << (ok ? "match" : "MISMATCH")
                   << ", max abs error " << worst << "\n";
      allMatch &= ok;
    }
  }
  if (check)
    llvm::outs() << (allMatch ? "all outputs match" : "outputs differ")
                 << "\n";
  return allMatch ? 0 : 1;
}
