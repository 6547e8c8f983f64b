//===- consumer.cpp - a downstream tool using an installed lazy-mlir ------===//
//
// Registers every dialect and pass through lazy/InitAll.h, parses the graph
// file it is given, runs the pass pipeline it is given (lazy-schedule by
// default), and prints how many kernels the module then holds, then the
// module.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    llvm::errs() << "usage: lazy-consumer GRAPH.mlir [PIPELINE]\n";
    return 2;
  }
  mlir::DialectRegistry registry;
  mlir::lazy::registerAllDialects(registry);
  mlir::lazy::registerAllPasses();
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1;
  mlir::PassManager pm(&context);
  if (mlir::failed(mlir::parsePassPipeline(
          argc == 3 ? argv[2] : "lazy-schedule", pm, llvm::errs())))
    return 1;
  if (mlir::failed(pm.run(*module)))
    return 1;
  unsigned kernels = 0;
  module->walk([&](mlir::lazy::KernelOp) { ++kernels; });
  llvm::outs() << "kernels: " << kernels << "\n";
  module->print(llvm::outs());
  llvm::outs() << "\n";
  return 0;
}
