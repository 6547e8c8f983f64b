//===- SharedTileKernel.h - a local plan's kernel body ----------*- C++ -*-===//
//
// convert-lazy-to-gpu's shared-memory mode (SharedTileKernel.cpp states its
// rules).
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_LIB_CONVERSION_LAZYTOGPU_SHAREDTILEKERNEL_H
#define LAZY_LIB_CONVERSION_LAZYTOGPU_SHAREDTILEKERNEL_H

#include "lazy/Conversion/LazyToLoops/KernelEmitter.h"
#include "lazy/Dialect/Lazy/IR/ProductReduce.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::lazy {

/// A GPU thread's widest memory access (128 bits), which every vector load
/// and store of the GPU lowering stays within.
constexpr int64_t kGpuVectorBytes = 16;

/// The block tiles of a shared-memory plan: local times upcast elements of
/// M and N, one element of every other output axis.
int64_t sharedTileCount(const KernelSpace &space, const OptPlan &plan);

/// Emits at `b` (in `func`, which gains the two workgroup buffers) the loop
/// of a shared-memory plan's kernel: block `group` (of `groups`, a
/// grid-stride step) takes block tiles group, group + groups, ...; `tid` is
/// the thread's index in the block. `contract`: a multiply-add may fuse.
LogicalResult emitSharedTiles(OpBuilder &b, Location loc, gpu::GPUFuncOp func,
                              KernelEmitter &emitter, ArrayRef<StoreOp> stores,
                              const KernelSpace &space, const OptPlan &plan,
                              const ProductReduce &product, Value group,
                              Value groups, Value tid, bool contract);

} // namespace mlir::lazy

#endif // LAZY_LIB_CONVERSION_LAZYTOGPU_SHAREDTILEKERNEL_H
