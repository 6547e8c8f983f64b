//===- CompactGraph.h - a `lazy` module from the compact form ---*- C++ -*-===//
//
// The compact graph form (include/lazy-c/Lazy.h, "The compact graph") built
// into a module: what lazyRunCompact and lazyCompileCpuCompact read.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_CAPI_COMPACTGRAPH_H
#define LAZY_CAPI_COMPACTGRAPH_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::lazy {

/// The module the compact form `words` + `strings` describes, verified, or
/// null after an error diagnostic (located at the offending word, or at
/// the op the verifier rejects). `name` names the graph in locations: op k
/// is at `name:k:0`, inside its metadata's NameLoc when it has one.
OwningOpRef<ModuleOp> buildCompactGraph(MLIRContext *context,
                                        llvm::ArrayRef<int64_t> words,
                                        llvm::StringRef strings,
                                        llvm::StringRef name);

} // namespace mlir::lazy

#endif // LAZY_CAPI_COMPACTGRAPH_H
