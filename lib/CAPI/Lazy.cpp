//===- Lazy.cpp - lazy-mlir's C API ---------------------------------------===//
//
// The in-process entry point (include/lazy-c/Lazy.h): parse `lazy` IR from
// memory or build it from the compact form (CompactGraph.cpp), run a pass
// pipeline, print the module or a schedule's text, or compile a schedule's
// kernels for the host's CPU (lazy-to-cpu and CpuProgram, as lazy-run does) and
// hand out their addresses. Each call runs on a thread with the tools' large
// stack, so that input the tools take (nested up to kMaxNesting) cannot
// overflow the caller's stack; deeper input gets the tools' located error.
//
//===----------------------------------------------------------------------===//

#include "lazy-c/Lazy.h"

#include "CompactGraph.h"

#include "lazy/Dialect/Lazy/Transforms/ScheduleText.h"
#include "lazy/Driver/CompileForCpu.h"
#include "lazy/Driver/RunGraph.h"
#include "lazy/InitAll.h"
#include "lazy/Runtime/CpuProgram.h"
#include "lazy/Runtime/HostProgram.h"
#include "lazy/Runtime/Tolerance.h"
#include "lazy/Tools/LargeStack.h"
#include "lazy/Tools/NestingLimit.h"
#include "lazy/Tools/Version.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/thread.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>

using namespace mlir;
namespace lz = mlir::lazy;

namespace {

struct Session {
  explicit Session(bool threads) {
    static std::once_flag registered;
    std::call_once(registered, [] {
      lz::registerAllPasses();
      // lazyCompileCpu generates code for this host.
      llvm::InitializeNativeTarget();
      llvm::InitializeNativeTargetAsmPrinter();
    });
    DialectRegistry registry;
    lz::registerAllDialects(registry);
    registerBuiltinDialectTranslation(registry);
    registerLLVMDialectTranslation(registry);
    context.appendDialectRegistry(registry);
    context.disableMultithreading(!threads);
  }
  MLIRContext context;
};

LazyText copyText(const std::string &text) {
  LazyText result{static_cast<char *>(std::malloc(text.size() + 1)),
                  text.size()};
  if (!result.data)
    return {nullptr, 0};
  std::memcpy(result.data, text.data(), text.size());
  result.data[text.size()] = '\0';
  return result;
}

/// Where a run's module comes from: text to parse, or the compact form.
struct GraphInput {
  llvm::StringRef text;
  llvm::ArrayRef<int64_t> words;
  llvm::StringRef strings;
  bool compact = false;
  /// False when the caller passed a null pointer for the graph.
  bool given = true;
};

/// The module of `input`, or null after its diagnostics.
OwningOpRef<ModuleOp> loadGraph(MLIRContext &context, const GraphInput &input,
                                llvm::StringRef name,
                                llvm::SourceMgr &sourceMgr,
                                llvm::raw_ostream &diagOS) {
  if (input.compact)
    return lz::buildCompactGraph(&context, input.words, input.strings, name);
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(input.text, name), llvm::SMLoc());
  if (std::optional<size_t> at =
          lz::findExcessiveNesting(input.text, lz::kMaxNesting)) {
    const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(1);
    sourceMgr.PrintMessage(
        diagOS, llvm::SMLoc::getFromPointer(buffer->getBufferStart() + *at),
        llvm::SourceMgr::DK_Error,
        "input nests deeper than " + std::to_string(lz::kMaxNesting) +
            " levels, more than lazy-mlir takes");
    return nullptr;
  }
  ParserConfig config(&context);
  return parseSourceFile<ModuleOp>(sourceMgr, config);
}

/// Loads `input` and runs `pipeline` on it, then calls `use` with the
/// module, all on a thread with the tools' stack; every diagnostic, `use`'s
/// included, is printed to `diagnostics` as the tools print them. Returns
/// whether all of it succeeded.
bool withScheduledModule(
    MLIRContext &context, const GraphInput &input, llvm::StringRef name,
    llvm::StringRef pipeline, std::string &diagnostics,
    llvm::function_ref<bool(ModuleOp, llvm::raw_ostream &)> use) {
  bool ok = false;
  llvm::thread worker(
      std::optional<unsigned>(unsigned(lz::kToolStackBytes)), [&] {
        llvm::raw_string_ostream diagOS(diagnostics);
        llvm::SourceMgr sourceMgr;
        SourceMgrDiagnosticHandler handler(sourceMgr, &context, diagOS);
        PassManager pm(&context, ModuleOp::getOperationName());
        if (failed(parsePassPipeline(pipeline, pm, diagOS)))
          return;
        OwningOpRef<ModuleOp> module =
            loadGraph(context, input, name, sourceMgr, diagOS);
        if (!module || failed(pm.run(*module)))
          return;
        ok = use(*module, diagOS);
      });
  worker.join();
  return ok;
}

bool printOutput(ModuleOp module, LazyOutput output, std::string &out,
                 llvm::raw_ostream &diagOS) {
  llvm::raw_string_ostream outOS(out);
  switch (output) {
  case LazyOutputNone:
    return true;
  case LazyOutputModule:
    module->print(outOS);
    outOS << "\n";
    return true;
  case LazyOutputCanonicalSchedule:
    return succeeded(lz::printSchedule(
        module, outOS, lz::ScheduleTextFormat::Canonical, true));
  case LazyOutputBridgeSchedule:
    return succeeded(
        lz::printSchedule(module, outOS, lz::ScheduleTextFormat::Bridge));
  }
  diagOS << "error: unknown output kind " << int(output) << "\n";
  return false;
}

/// Lowers a scheduled module with lazy-to-cpu and compiles it, through
/// the environment's program cache (the driver's CPU path,
/// CompileForCpu.h).
std::unique_ptr<lz::CpuProgram> compileForCpu(ModuleOp module,
                                              llvm::raw_ostream &diagOS) {
  func::FuncOp host = lz::findEntryFunction(module, "");
  if (!host) {
    module.emitError("the module has no function to compile");
    return nullptr;
  }
  std::string entry = host.getSymName().str();
  // Kernels are called one by one (their own symbols) or from a list
  // (lazyRunPacked, through their packed wrappers).
  lz::CpuProgramOptions options;
  options.kernelWrappers = true;
  std::optional<lz::ProgramCache> cache = lz::ProgramCache::fromEnvironment();
  std::string error;
  auto program = lz::buildForCpu(module, entry, lz::CpuPipelineConfig(),
                                 options, cache ? &*cache : nullptr, error);
  if (failed(program)) {
    if (!error.empty())
      diagOS << "error: cannot compile the kernels: " << error << "\n";
    return nullptr;
  }
  return std::move(*program);
}

} // namespace

LazySession lazySessionCreate(int threads) {
  return LazySession{new Session(threads != 0)};
}

void lazySessionDestroy(LazySession session) {
  delete static_cast<Session *>(session.ptr);
}

namespace {

int runGraph(LazySession session, const GraphInput &input, const char *name,
             const char *pipeline, LazyOutput output, LazyText *out,
             LazyText *diagnostics) {
  std::string outText, diagText;
  bool ok = false;
  auto *s = static_cast<Session *>(session.ptr);
  if (!s || !input.given || !pipeline)
    diagText = "error: a run needs a session, a graph and a pipeline\n";
  else
    ok = withScheduledModule(
        s->context, input, name ? name : "<input>", pipeline, diagText,
        [&](ModuleOp module, llvm::raw_ostream &diagOS) {
          return printOutput(module, output, outText, diagOS);
        });
  if (out)
    *out = copyText(outText);
  if (diagnostics)
    *diagnostics = copyText(diagText);
  return ok ? 1 : 0;
}

int compileGraph(LazySession session, const GraphInput &input, const char *name,
                 const char *schedulePipeline, LazyCpuProgram *program,
                 LazyText *schedule, LazyText *diagnostics) {
  std::string scheduleText, diagText;
  std::unique_ptr<lz::CpuProgram> compiled;
  auto *s = static_cast<Session *>(session.ptr);
  if (!s || !input.given || !schedulePipeline || !program)
    diagText = "error: compiling needs a session, a graph, a pipeline and a "
               "program to set\n";
  else
    withScheduledModule(s->context, input, name ? name : "<input>",
                        schedulePipeline, diagText,
                        [&](ModuleOp module, llvm::raw_ostream &diagOS) {
                          if (!printOutput(module, LazyOutputBridgeSchedule,
                                           scheduleText, diagOS))
                            return false;
                          compiled = compileForCpu(module, diagOS);
                          return compiled != nullptr;
                        });
  if (schedule)
    *schedule = copyText(scheduleText);
  if (diagnostics)
    *diagnostics = copyText(diagText);
  if (!compiled)
    return 0;
  program->ptr = compiled.release();
  return 1;
}

GraphInput textInput(const char *ir, size_t length) {
  GraphInput input;
  input.given = ir != nullptr;
  if (ir)
    input.text = llvm::StringRef(ir, length);
  return input;
}

GraphInput compactInput(LazyCompactGraph graph) {
  GraphInput input;
  input.compact = true;
  input.given = (graph.words || !graph.numWords) &&
                (graph.strings || !graph.stringsLength);
  if (input.given) {
    input.words = llvm::ArrayRef<int64_t>(graph.words, graph.numWords);
    input.strings = llvm::StringRef(graph.strings, graph.stringsLength);
  }
  return input;
}

} // namespace

int lazyRun(LazySession session, const char *ir, size_t length,
            const char *name, const char *pipeline, LazyOutput output,
            LazyText *out, LazyText *diagnostics) {
  return runGraph(session, textInput(ir, length), name, pipeline, output, out,
                  diagnostics);
}

int lazyRunCompact(LazySession session, LazyCompactGraph graph,
                   const char *name, const char *pipeline, LazyOutput output,
                   LazyText *out, LazyText *diagnostics) {
  return runGraph(session, compactInput(graph), name, pipeline, output, out,
                  diagnostics);
}

void lazyTextFree(LazyText text) { std::free(text.data); }

int lazyCompileCpu(LazySession session, const char *ir, size_t length,
                   const char *name, const char *schedulePipeline,
                   LazyCpuProgram *program, LazyText *schedule,
                   LazyText *diagnostics) {
  return compileGraph(session, textInput(ir, length), name, schedulePipeline,
                      program, schedule, diagnostics);
}

int lazyCompileCpuCompact(LazySession session, LazyCompactGraph graph,
                          const char *name, const char *schedulePipeline,
                          LazyCpuProgram *program, LazyText *schedule,
                          LazyText *diagnostics) {
  return compileGraph(session, compactInput(graph), name, schedulePipeline,
                      program, schedule, diagnostics);
}

void *lazyCpuProgramLookup(LazyCpuProgram program, const char *function) {
  auto *compiled = static_cast<lz::CpuProgram *>(program.ptr);
  if (!compiled || !function)
    return nullptr;
  llvm::Expected<void *> address = compiled->lookup(function);
  if (!address) {
    llvm::consumeError(address.takeError());
    return nullptr;
  }
  return *address;
}

void lazyRunPacked(size_t count, LazyPackedFunction const *functions,
                   void **const *arguments) {
  for (size_t i = 0; i < count; ++i)
    functions[i](arguments[i]);
}

int lazyCpuProgramFromCache(LazyCpuProgram program) {
  auto *compiled = static_cast<lz::CpuProgram *>(program.ptr);
  return compiled && compiled->wasLoaded() ? 1 : 0;
}

void lazyCpuProgramDestroy(LazyCpuProgram program) {
  delete static_cast<lz::CpuProgram *>(program.ptr);
}

const char *lazyScheduleFlags(void) {
  static const std::string lines = [] {
    std::string text;
#define LAZY_BOOL_FLAG(field, key, option, def, tinygrad, description)         \
  text += std::string(key) + " " + tinygrad + " " + (def ? "1" : "0") + "\n";
#define LAZY_POLICY_FLAG(field, key, option, description)                      \
  text += std::string(key) + " - tinygrad\n";
#include "lazy/Dialect/Lazy/IR/ScheduleFlags.def"
    return text;
  }();
  return lines.c_str();
}

int lazyFloatTolerance(const char *elementType, double *rtol, double *atol) {
  const ::lazy::runtime::FloatTolerance *tolerance =
      elementType ? ::lazy::runtime::floatTolerance(elementType) : nullptr;
  if (!tolerance)
    return 0;
  *rtol = tolerance->rtol;
  *atol = tolerance->atol;
  return 1;
}

namespace {
int compileGpu(LazySession session, const GraphInput &input, const char *name,
               const char *schedulePipeline, const char *lowerPipeline,
               LazyText *binary, LazyText *launches, LazyText *schedule,
               LazyText *diagnostics) {
  std::string binaryText, launchText, scheduleText, diagText;
  bool ok = false;
  auto *s = static_cast<Session *>(session.ptr);
  if (!s || !input.given || !schedulePipeline || !lowerPipeline)
    diagText = "error: compiling for a GPU needs a session, a graph and two "
               "pipelines\n";
  else
    ok = withScheduledModule(
        s->context, input, name ? name : "<input>", schedulePipeline, diagText,
        [&](ModuleOp module, llvm::raw_ostream &diagOS) {
          if (!printOutput(module, LazyOutputBridgeSchedule, scheduleText,
                           diagOS))
            return false;
          PassManager lower(module.getContext());
          if (failed(parsePassPipeline(lowerPipeline, lower, diagOS)) ||
              failed(lower.run(module)))
            return false;
          func::FuncOp host = lz::findEntryFunction(module, "");
          if (!host) {
            module.emitError("the module has no host function");
            return false;
          }
          FailureOr<std::vector<lz::LaunchSpec>> specs =
              lz::describeLaunches(host);
          if (failed(specs))
            return false;
          llvm::raw_string_ostream os(launchText);
          if (auto code = module.lookupSymbol<gpu::BinaryOp>("lazy_kernels")) {
            auto object = cast<gpu::ObjectAttr>(code.getObjects()[0]);
            binaryText = object.getObject().str();
            os << "format "
               << (object.getFormat() == gpu::CompilationTarget::Assembly
                       ? "isa"
                       : "bin")
               << "\n";
          }
          for (const lz::LaunchSpec &spec : *specs) {
            os << "launch " << spec.kernel;
            for (unsigned d : spec.grid)
              os << " " << d;
            for (unsigned d : spec.block)
              os << " " << d;
            os << " " << spec.operands.size();
            for (const lz::LaunchSpec::Operand &operand : spec.operands) {
              if (operand.kind == lz::LaunchSpec::Operand::Value)
                os << " v" << operand.index;
              else
                os << " "
                   << (operand.kind == lz::LaunchSpec::Operand::Argument ? "a"
                                                                         : "t")
                   << operand.index << "+" << operand.offset;
            }
            os << "\n";
          }
          return true;
        });
  if (binary)
    *binary = copyText(binaryText);
  if (launches)
    *launches = copyText(launchText);
  if (schedule)
    *schedule = copyText(scheduleText);
  if (diagnostics)
    *diagnostics = copyText(diagText);
  return ok ? 1 : 0;
}
} // namespace

int lazyCompileGpu(LazySession session, const char *ir, size_t length,
                   const char *name, const char *schedulePipeline,
                   const char *lowerPipeline, LazyText *binary,
                   LazyText *launches, LazyText *schedule,
                   LazyText *diagnostics) {
  return compileGpu(session, textInput(ir, length), name, schedulePipeline,
                    lowerPipeline, binary, launches, schedule, diagnostics);
}

int lazyCompileGpuCompact(LazySession session, LazyCompactGraph graph,
                          const char *name, const char *schedulePipeline,
                          const char *lowerPipeline, LazyText *binary,
                          LazyText *launches, LazyText *schedule,
                          LazyText *diagnostics) {
  return compileGpu(session, compactInput(graph), name, schedulePipeline,
                    lowerPipeline, binary, launches, schedule, diagnostics);
}

int lazyRunGraph(const LazyRunGraphOptions *given) {
  if (!given || !given->inputFile) {
    llvm::errs() << "lazy-run: error: lazyRunGraph needs an input file\n";
    return 1;
  }
  mlir::lazy::RunOptions options;
  options.inputFile = given->inputFile;
  if (given->entry)
    options.entry = given->entry;
  if (given->outputDir)
    options.outputDir = given->outputDir;
  options.seed = given->seed;
  options.check = given->check != 0;
  options.distributed = given->distributed != 0;
  if (given->mpiTimeout)
    options.mpiTimeout = given->mpiTimeout;
  options.repeat = given->repeat;
  options.warmup = given->warmup;
  int code = 1;
  // On a thread with the tools' stack, as lazy-run runs it.
  llvm::thread worker(std::optional<unsigned>(unsigned(lz::kToolStackBytes)),
                      [&] { code = mlir::lazy::runGraph(options); });
  worker.join();
  llvm::outs().flush();
  return code;
}

const char *lazyVersion(void) {
  return LAZY_MLIR_VERSION " (LLVM " LLVM_VERSION_STRING ")";
}
