//===- MpiToLLVM.cpp - a rank's mpi ops to MPI calls ----------------------===//
//
// lazy-mpi-to-llvm: upstream MPIToLLVM (convert-to-llvm{filter-dialects=
// mpi}) run as a nested pipeline, on a module whose dlti.map names an MPI
// implementation (convert-lazy-to-loops sets it when it emits mpi ops);
// any other module is left alone, at the cost of one attribute lookup.
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/Passes.h"

#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYMPITOLLVM
#include "lazy/Conversion/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {
struct LazyMpiToLLVM
    : public mlir::lazy::impl::LazyMpiToLLVMBase<LazyMpiToLLVM> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto map = module->getAttrOfType<MapAttr>("dlti.map");
    if (!map || !llvm::any_of(map.getEntries(), [](DataLayoutEntryInterface e) {
          auto key = dyn_cast<StringAttr>(e.getKey());
          return key && key.getValue() == "MPI:Implementation";
        })) {
      // Unchanged: the pass manager then skips verifying the module again.
      markAllAnalysesPreserved();
      return;
    }
    OpPassManager pm(ModuleOp::getOperationName());
    ConvertToLLVMPassOptions options;
    options.filterDialects = {"mpi"};
    pm.addPass(createConvertToLLVMPass(options));
    if (failed(runPipeline(pm, module)))
      signalPassFailure();
  }
};
} // namespace
