//===- Lazy.cpp - lazy-mlir's C API ---------------------------------------===//
//
// The in-process entry point (include/lazy-c/Lazy.h): parse `lazy` IR from
// memory, run a pass pipeline, print the module or a schedule's text, or
// compile a schedule's kernels for the host's CPU (lazy-to-cpu and
// CpuProgram, as lazy-run does) and hand out their addresses. Each
// run happens on a thread with the tools' large stack, so that input the
// tools take (nested up to kMaxNesting) cannot overflow the caller's
// stack; deeper input gets the tools' located error.
//
//===----------------------------------------------------------------------===//

#include "lazy-c/Lazy.h"

#include "lazy/Dialect/Lazy/Transforms/ScheduleText.h"
#include "lazy/InitAll.h"
#include "lazy/Interpreter/HostFunctions.h"
#include "lazy/Runtime/CpuProgram.h"
#include "lazy/Tools/LargeStack.h"
#include "lazy/Tools/NestingLimit.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Config/llvm-config.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/thread.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>

using namespace mlir;

namespace {

struct Session {
  explicit Session(bool threads) {
    static std::once_flag passesRegistered;
    std::call_once(passesRegistered, [] {
      mlir::lazy::registerAllPasses();
      // lazyCompileCpu generates code for this host.
      llvm::InitializeNativeTarget();
      llvm::InitializeNativeTargetAsmPrinter();
    });
    DialectRegistry registry;
    mlir::lazy::registerAllDialects(registry);
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

/// One run: parse, pipeline, print. Diagnostics go to `diagnostics`.
bool runPipeline(MLIRContext &context, llvm::StringRef ir,
                 llvm::StringRef name, llvm::StringRef pipeline,
                 LazyOutput output, std::string &out,
                 std::string &diagnostics);

/// Parse and schedule (shared by lazyRun's callers and lazyCompileCpu).
OwningOpRef<ModuleOp> parseAndRun(MLIRContext &context,
                                  llvm::SourceMgr &sourceMgr,
                                  llvm::StringRef ir, llvm::StringRef pipeline,
                                  llvm::raw_ostream &diagOS) {
  if (std::optional<size_t> at =
          mlir::lazy::findExcessiveNesting(ir, mlir::lazy::kMaxNesting)) {
    const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(1);
    sourceMgr.PrintMessage(
        diagOS, llvm::SMLoc::getFromPointer(buffer->getBufferStart() + *at),
        llvm::SourceMgr::DK_Error,
        "input nests deeper than " + std::to_string(mlir::lazy::kMaxNesting) +
            " levels, more than lazy-mlir takes");
    return nullptr;
  }
  PassManager pm(&context, ModuleOp::getOperationName());
  if (failed(parsePassPipeline(pipeline, pm, diagOS)))
    return nullptr;
  ParserConfig config(&context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, config);
  if (!module || failed(pm.run(*module)))
    return nullptr;
  return module;
}

/// Lowers a scheduled module with lazy-to-cpu and compiles it.
std::unique_ptr<mlir::lazy::CpuProgram> compileForCpu(ModuleOp module,
                                                llvm::raw_ostream &diagOS) {
  func::FuncOp host;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal()) {
      host = func;
      break;
    }
  if (!host) {
    module.emitError("the module has no function to compile");
    return nullptr;
  }
  std::string entry = host.getSymName().str();
  host->setAttr("llvm.emit_c_interface", UnitAttr::get(module.getContext()));
  PassManager lower(module.getContext(), ModuleOp::getOperationName());
  if (failed(parsePassPipeline("lazy-to-cpu", lower, diagOS)) ||
      failed(lower.run(module)))
    return nullptr;
  // The kernels' parallel loops call libomp.
  std::string ompError;
  if (llvm::sys::DynamicLibrary::LoadLibraryPermanently(LAZY_LIBOMP_PATH,
                                                        &ompError)) {
    diagOS << "error: cannot load the OpenMP runtime " LAZY_LIBOMP_PATH ": "
           << ompError << "\n";
    return nullptr;
  }
  mlir::lazy::CpuProgramOptions options;
  options.symbols.push_back(
      {"lazy_rt_custom_random",
       reinterpret_cast<void *>(&lazy_rt_custom_random)});
  auto program = mlir::lazy::CpuProgram::compile(module, entry, options);
  if (!program) {
    diagOS << "error: cannot compile the kernels: "
           << llvm::toString(program.takeError()) << "\n";
    return nullptr;
  }
  return std::move(*program);
}

} // namespace

int lazyCompileCpu(LazySession session, const char *ir, size_t length,
                   const char *name, const char *schedulePipeline,
                   LazyCpuProgram *program, LazyText *schedule,
                   LazyText *diagnostics) {
  std::string scheduleText, diagText;
  std::unique_ptr<mlir::lazy::CpuProgram> compiled;
  auto *s = static_cast<Session *>(session.ptr);
  if (!s || !ir || !schedulePipeline || !program) {
    diagText = "error: lazyCompileCpu needs a session, IR, a pipeline and a "
               "program to set\n";
  } else {
    llvm::StringRef irRef(ir, length);
    llvm::StringRef nameRef(name ? name : "<input>");
    llvm::thread worker(
        std::optional<unsigned>(unsigned(mlir::lazy::kToolStackBytes)), [&] {
          llvm::raw_string_ostream diagOS(diagText);
          llvm::SourceMgr sourceMgr;
          sourceMgr.AddNewSourceBuffer(
              llvm::MemoryBuffer::getMemBufferCopy(irRef, nameRef),
              llvm::SMLoc());
          SourceMgrDiagnosticHandler handler(sourceMgr, &s->context, diagOS);
          OwningOpRef<ModuleOp> module = parseAndRun(
              s->context, sourceMgr, irRef, schedulePipeline, diagOS);
          if (!module)
            return;
          llvm::raw_string_ostream scheduleOS(scheduleText);
          if (failed(mlir::lazy::printSchedule(*module, scheduleOS,
                                         mlir::lazy::ScheduleTextFormat::Bridge)))
            return;
          compiled = compileForCpu(*module, diagOS);
        });
    worker.join();
  }
  if (schedule)
    *schedule = copyText(scheduleText);
  if (diagnostics)
    *diagnostics = copyText(diagText);
  if (!compiled)
    return 0;
  program->ptr = compiled.release();
  return 1;
}

void *lazyCpuProgramLookup(LazyCpuProgram program, const char *function) {
  auto *compiled = static_cast<mlir::lazy::CpuProgram *>(program.ptr);
  if (!compiled || !function)
    return nullptr;
  llvm::Expected<void *> address = compiled->lookup(function);
  if (!address) {
    llvm::consumeError(address.takeError());
    return nullptr;
  }
  return *address;
}

void lazyCpuProgramDestroy(LazyCpuProgram program) {
  delete static_cast<mlir::lazy::CpuProgram *>(program.ptr);
}


namespace {
bool runPipeline(MLIRContext &context, llvm::StringRef ir,
                 llvm::StringRef name, llvm::StringRef pipeline,
                 LazyOutput output, std::string &out,
                 std::string &diagnostics) {
  llvm::raw_string_ostream diagOS(diagnostics);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(ir, name), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, diagOS);
  OwningOpRef<ModuleOp> module =
      parseAndRun(context, sourceMgr, ir, pipeline, diagOS);
  if (!module)
    return false;
  llvm::raw_string_ostream outOS(out);
  switch (output) {
  case LazyOutputNone:
    return true;
  case LazyOutputModule:
    module->print(outOS);
    outOS << "\n";
    return true;
  case LazyOutputCanonicalSchedule:
    return succeeded(mlir::lazy::printSchedule(
        *module, outOS, mlir::lazy::ScheduleTextFormat::Canonical, true));
  case LazyOutputBridgeSchedule:
    return succeeded(mlir::lazy::printSchedule(*module, outOS,
                                         mlir::lazy::ScheduleTextFormat::Bridge));
  }
  diagOS << name << ": error: unknown output kind " << int(output) << "\n";
  return false;
}
} // namespace

LazySession lazySessionCreate(int threads) {
  return LazySession{new Session(threads != 0)};
}

void lazySessionDestroy(LazySession session) {
  delete static_cast<Session *>(session.ptr);
}

int lazyRun(LazySession session, const char *ir, size_t length,
            const char *name, const char *pipeline, LazyOutput output,
            LazyText *out, LazyText *diagnostics) {
  std::string outText, diagText;
  bool ok = false;
  auto *s = static_cast<Session *>(session.ptr);
  if (!s || !ir || !pipeline) {
    diagText = "error: lazyRun needs a session, IR and a pipeline\n";
  } else {
    llvm::StringRef irRef(ir, length);
    llvm::StringRef nameRef(name ? name : "<input>");
    // The tools' stack: MLIR's parser and verifier recurse on nesting.
    llvm::thread worker(
        std::optional<unsigned>(unsigned(mlir::lazy::kToolStackBytes)), [&] {
          ok = runPipeline(s->context, irRef, nameRef, pipeline, output,
                           outText, diagText);
        });
    worker.join();
  }
  if (out)
    *out = copyText(outText);
  if (diagnostics)
    *diagnostics = copyText(diagText);
  return ok ? 1 : 0;
}

void lazyTextFree(LazyText text) { std::free(text.data); }

const char *lazyVersion(void) {
  return "0.1.0 (LLVM " LLVM_VERSION_STRING ")";
}
