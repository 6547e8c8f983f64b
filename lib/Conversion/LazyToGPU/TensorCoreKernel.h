//===- TensorCoreKernel.h - a tc plan's kernel body on NVIDIA ---*- C++ -*-===//
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

/// The warp tiles of a tensor-core kernel: 16x8 outputs of (M, N), one
/// element of every other output axis.
int64_t tensorCoreTileCount(const KernelSpace &space,
                            const TensorCoreShape &shape);

/// Emits at `b` the loop of a tensor-core kernel: warp `warp` (of `warps`
/// a grid-stride step) takes warp tiles warp, warp + warps, ...; `lane` is
/// the thread's lane (0-31) in its warp.
LogicalResult emitTensorCoreTiles(OpBuilder &b, Location loc,
                                  KernelEmitter &emitter,
                                  ArrayRef<StoreOp> stores,
                                  const KernelSpace &space,
                                  const TensorCoreShape &shape, Value warp,
                                  Value warps, Value lane);

} // namespace mlir::lazy

#endif // LAZY_LIB_CONVERSION_LAZYTOGPU_TENSORCOREKERNEL_H
