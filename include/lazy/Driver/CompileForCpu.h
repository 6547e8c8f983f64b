//===- CompileForCpu.h - a scheduled module compiled for this host -*- C++
//-*-===//
//
// The CPU compile path every user of lazy-mlir shares (lazy-run through
// runGraph, the C API, the Python package): lazy-to-cpu on a scheduled or
// graph-level module, then CpuProgram's LLVM -O3 and code generation.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DRIVER_COMPILEFORCPU_H
#define LAZY_DRIVER_COMPILEFORCPU_H

#include "lazy/Conversion/Passes.h"
#include "lazy/Runtime/CpuProgram.h"

#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <string>

namespace mlir::lazy {

/// The module's function @entry, or its first defined function when
/// `entry` is empty; null when there is none.
func::FuncOp findEntryFunction(ModuleOp module, StringRef entry);

/// Lowers `module` in place with lazy-to-cpu (addCpuPipeline, `config`),
/// @entry keeping a C interface to call it by. Errors go to the context's
/// diagnostic handler.
LogicalResult lowerForCpu(ModuleOp module, StringRef entry,
                          const CpuPipelineConfig &config = {});

/// Compiles a module lowerForCpu lowered, with entry @entry, for this host;
/// on failure `error` says why.
FailureOr<std::unique_ptr<CpuProgram>>
compileForCpu(ModuleOp lowered, StringRef entry,
              const CpuProgramOptions &options, std::string &error);

} // namespace mlir::lazy

#endif // LAZY_DRIVER_COMPILEFORCPU_H
