//===- TensorCoreKernel.h - a tc plan's kernel body -------------*- C++ -*-===//
//
// convert-lazy-to-gpu's tensor-core mode (TensorCoreKernel.cpp states its
// rules).
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_LIB_CONVERSION_LAZYTOGPU_TENSORCOREKERNEL_H
#define LAZY_LIB_CONVERSION_LAZYTOGPU_TENSORCOREKERNEL_H

#include "lazy/Conversion/LazyToLoops/KernelEmitter.h"
#include "lazy/Dialect/Lazy/IR/TensorCores.h"

namespace mlir::lazy {

/// The instruction tiles of a tensor-core kernel: 16 x
/// tensorCoreTileColumns outputs of (M, N), one element of every other
/// output axis.
int64_t tensorCoreTileCount(const KernelSpace &space,
                            const TensorCoreShape &shape, TensorCoreKind kind);

/// Emits at `b` the loop of a tensor-core kernel: block `group` (of
/// `groups`, a grid-stride step) takes instruction tiles group, group +
/// groups, ...; `lane` is the thread's lane in it.
LogicalResult
emitTensorCoreTiles(OpBuilder &b, Location loc, KernelEmitter &emitter,
                    ArrayRef<StoreOp> stores, const KernelSpace &space,
                    const TensorCoreShape &shape, TensorCoreKind kind,
                    Value group, Value groups, Value lane);

} // namespace mlir::lazy

#endif // LAZY_LIB_CONVERSION_LAZYTOGPU_TENSORCOREKERNEL_H
