//===- CompileForCpu.cpp - a scheduled module compiled for this host ------===//
//
// CompileForCpu.h states the path.
//
//===----------------------------------------------------------------------===//

#include "lazy/Driver/CompileForCpu.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace mlir::lazy;

func::FuncOp mlir::lazy::findEntryFunction(ModuleOp module, StringRef entry) {
  for (auto func : module.getOps<func::FuncOp>())
    if (entry.empty() ? !func.isExternal() : func.getSymName() == entry)
      return func;
  return {};
}

LogicalResult mlir::lazy::lowerForCpu(ModuleOp module, StringRef entry,
                                      const CpuPipelineConfig &config) {
  func::FuncOp host = findEntryFunction(module, entry);
  if (!host)
    return entry.empty() ? module.emitError("the module has no function to "
                                            "compile")
                         : module.emitError()
                               << "no function @" << entry << " to compile";
  host->setAttr("llvm.emit_c_interface", UnitAttr::get(module.getContext()));
  PassManager lower(module.getContext(), ModuleOp::getOperationName());
  addCpuPipeline(lower, config);
  return lower.run(module);
}

FailureOr<std::unique_ptr<CpuProgram>>
mlir::lazy::compileForCpu(ModuleOp lowered, StringRef entry,
                          const CpuProgramOptions &options,
                          std::string &error) {
  auto program = CpuProgram::compile(lowered, entry.str(), options);
  if (!program) {
    error = llvm::toString(program.takeError());
    return failure();
  }
  return std::move(*program);
}

FailureOr<std::unique_ptr<CpuProgram>> mlir::lazy::buildForCpu(
    ModuleOp module, StringRef entry, const CpuPipelineConfig &config,
    const CpuProgramOptions &options, const ProgramCache *cache,
    std::string &error, CacheReport *report,
    llvm::function_ref<void()> lowered) {
  CacheReport local;
  CacheReport &r = report ? *report : local;
  r = {};
  // --dump-objects asks for the compiler's objects: compile.
  std::string key;
  if (cache && options.objectDir.empty()) {
    r.used = true;
    key = cpuProgramKey(module, entry, config, options);
    r.path = cache->pathOf(key);
    ProgramObjects objects;
    r.outcome = cache->load(key, objects, &r.rejected);
    if (r.outcome == ProgramCache::Outcome::Hit) {
      auto program = CpuProgram::load(objects, options);
      if (program)
        return std::move(*program);
      // Whole and checksummed, yet it does not link: compile again.
      r.outcome = ProgramCache::Outcome::Rejected;
      r.rejected = llvm::toString(program.takeError());
    }
  }
  if (failed(lowerForCpu(module, entry, config)))
    return failure();
  if (lowered)
    lowered();
  ProgramObjects captured;
  auto program = CpuProgram::compile(module, entry.str(), options,
                                     key.empty() ? nullptr : &captured);
  if (!program) {
    error = llvm::toString(program.takeError());
    return failure();
  }
  if (!key.empty())
    if (llvm::Error stored = cache->store(key, captured))
      r.storeError = llvm::toString(std::move(stored));
  return std::move(*program);
}
