//===- InitAll.h - register everything lazy-mlir tools need ------*- C++
//-*-===//
//
// One registration shared by lazy-opt, the mlir-opt plugin and the Python
// bindings, so that every entry point understands the same dialects and
// passes.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_INITALL_H
#define LAZY_INITALL_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::lazy {

/// The lazy dialect and the upstream dialects its pipelines produce (func,
/// arith, math, scf, cf, memref, tensor, gpu, nvvm, rocdl, llvm).
void registerAllDialects(DialectRegistry &registry);

/// lazy passes (registerLazyPasses() from Passes.h) plus the upstream passes
/// used by lazy-mlir's pipelines.
void registerAllPasses();

} // namespace mlir::lazy

#endif // LAZY_INITALL_H
