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
#include "lazy/Runtime/ProgramCache.h"

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

/// The disk cache's key for the program `module` (scheduled, not yet
/// lowered) compiles to with `config` and `options` (CpuProgramKey.cpp
/// states what it covers).
std::string cpuProgramKey(ModuleOp module, StringRef entry,
                          const CpuPipelineConfig &config,
                          const CpuProgramOptions &options);

/// What the disk cache did for one build.
struct CacheReport {
  /// False when no cache was asked for (or --dump-objects wants the
  /// compile).
  bool used = false;
  ProgramCache::Outcome outcome = ProgramCache::Outcome::Miss;
  /// The entry's file; why an entry was rejected; why a store failed.
  std::string path, rejected, storeError;
};

/// lowerForCpu then compileForCpu, through `cache` when given: an entry
/// for the module's key is linked instead (nothing is lowered: `module`
/// stays as it was); a miss, or an entry that is rejected or does not
/// link, compiles and stores the result (`lowered` is called between
/// lowering and compiling). Lowering errors go to the context's
/// diagnostic handler, compile errors to `error`.
FailureOr<std::unique_ptr<CpuProgram>>
buildForCpu(ModuleOp module, StringRef entry, const CpuPipelineConfig &config,
            const CpuProgramOptions &options, const ProgramCache *cache,
            std::string &error, CacheReport *report = nullptr,
            llvm::function_ref<void()> lowered = {});

} // namespace mlir::lazy

#endif // LAZY_DRIVER_COMPILEFORCPU_H
