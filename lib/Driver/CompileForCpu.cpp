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
