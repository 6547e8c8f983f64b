//===- lazy-lsp-server.cpp - MLIR language server with the lazy dialect ---===//
//
// MLIR's language server (mlir-lsp-server) with every dialect lazy-opt
// registers, so an editor shows lazy ops' verifier errors, hovers and
// definitions in .mlir files. It speaks the Language Server Protocol on
// stdin and stdout (`--help` lists MLIR's server options).
//
//===----------------------------------------------------------------------===//

#include "lazy/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::lazy::registerAllDialects(registry);
  return mlir::failed(mlir::MlirLspServerMain(argc, argv, registry));
}
