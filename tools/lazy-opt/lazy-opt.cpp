//===- lazy-opt.cpp - mlir-opt for the lazy dialect -----------------------===//
//
// mlir-opt with the lazy dialect, its passes and the upstream dialects and
// passes lazy-mlir's pipelines use, so every mlir-opt flag works
// (--mlir-print-ir-after-all, --mlir-timing, crash reproducers, ...).
//
//===----------------------------------------------------------------------===//

#include "lazy/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::lazy::registerAllPasses();
  mlir::DialectRegistry registry;
  mlir::lazy::registerAllDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "lazy-mlir optimizer driver\n", registry));
}
