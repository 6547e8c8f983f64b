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

/// One operand of a product reduce staged in a workgroup buffer, a chunk
/// of K at a time: the element at (free, kk), free < `extent` along the
/// operand's own output axis `freeAxis` from the block tile's start and kk
/// < the chunk, is at kk * stride + free, or with `kFastest` at free *
/// stride + kk.
struct StagedOperand {
  Value operand;
  size_t freeAxis;
  int64_t extent;
  Value buffer;
  bool kFastest;
  int64_t stride;
};

/// A new workgroup buffer of `func`: `elements` of `element`, aligned to
/// kGpuVectorBytes.
Value addWorkgroupBuffer(OpBuilder &b, Location loc, gpu::GPUFuncOp func,
                         Type element, int64_t elements);

/// Emits at `b` the block's staging of `staged`'s chunk [k0, k0 + chunk)
/// of K (axis `k`) at the block tile starting at `base`: the operand
/// expression evaluated (KernelEmitter) in runs of up to kGpuVectorBytes
/// along the axis some load of it reads contiguously (K or its free axis),
/// thread `tid` of `threads` taking runs tid, tid + threads, ..., so that
/// neighbouring threads read neighbouring runs.
LogicalResult stageOperand(OpBuilder &b, Location loc, KernelEmitter &emitter,
                           const StagedOperand &staged, ArrayRef<Value> base,
                           size_t k, Value k0, int64_t chunk, Value tid,
                           int64_t threads);

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
