//===- CpuPipeline.cpp - the lazy-to-cpu pipeline -------------------------===//
//
// lazy-to-cpu: schedule (lazy-schedule; a no-op on an already scheduled
// module), lower kernels and the scheduled program to loops over memrefs
// (convert-lazy-to-loops), bfloat16 into software (kSoftBFloat16Passes),
// then upstream lowering to the LLVM dialect for the ExecutionEngine /
// mlir-runner. Parallel loops run sequentially.
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void mlir::lazy::registerCpuPipeline() {
  PassPipelineRegistration<>(
      "lazy-to-cpu",
      "schedule, lower kernels to loops and everything to the LLVM dialect",
      [](OpPassManager &pm) {
        if (failed(parsePassPipeline(
                std::string("lazy-schedule,lazy-optimize-kernels,convert-lazy-to-loops,") +
                    kSoftBFloat16Passes +
                    ",convert-scf-to-cf,convert-math-to-llvm,"
                    "expand-strided-metadata,finalize-memref-to-llvm,"
                    "convert-arith-to-llvm,convert-func-to-llvm,"
                    "convert-cf-to-llvm,reconcile-unrealized-casts",
                pm)))
          llvm::report_fatal_error("lazy-to-cpu: bad pipeline");
      });
}
