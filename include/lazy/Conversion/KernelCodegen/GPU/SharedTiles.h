//===- SharedTiles.h - a local plan's kernel body ---------------*- C++ -*-===//
//
// convert-lazy-to-gpu's shared-memory mode (SharedTiles.cpp states its
// rules), and the operand staging that tensor-core block tiles share.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_CONVERSION_KERNELCODEGEN_GPU_SHAREDTILES_H
#define LAZY_CONVERSION_KERNELCODEGEN_GPU_SHAREDTILES_H

#include "lazy/Conversion/KernelCodegen/KernelEmitter.h"
#include "lazy/Dialect/Lazy/Analysis/ProductReduce.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::lazy {

/// A GPU thread's widest memory access (128 bits), which every vector load
/// and store of the GPU lowering stays within.
constexpr int64_t kGpuVectorBytes = 16;

/// Index arithmetic at `loc`: constants, sums, products by constants (by 1:
/// the value itself).
struct IndexMath {
  Location loc;
  Value cst(OpBuilder &b, int64_t v) const;
  Value add(OpBuilder &b, Value x, Value y) const;
  Value mul(OpBuilder &b, Value x, int64_t c) const;
};

/// A grid-stride loop over a kernel's block tiles, and each tile's first
/// element (reduce axes 0).
struct BlockTileLoop {
  scf::ForOp loop;
  SmallVector<Value> base;
};
/// The loop at `b` over the block tiles of `steps[d]` elements of each
/// output axis d (tiles in row-major order): block `group` of `groups`
/// takes tiles group, group + groups, ...; `base` is computed in its body.
BlockTileLoop emitBlockTileLoop(OpBuilder &b, Location loc,
                                const KernelSpace &space,
                                ArrayRef<int64_t> steps, Value group,
                                Value groups);

/// One operand of a product reduce staged in a workgroup buffer, a chunk
/// of the (flattened) reduce axes at a time. Its block tile spans
/// `extents[i]` elements of each of its own output axes `freeAxes[i]`
/// from the block tile's start, flattened row-major into `free`; the
/// element (free, kk), kk < the chunk, is at kk * stride + free, or with
/// `kFastest` at free * stride + kk.
struct StagedOperand {
  Value operand;
  SmallVector<size_t> freeAxes;
  SmallVector<int64_t> extents;
  Value buffer;
  bool kFastest;
  int64_t stride;
  /// The flattened block tile's elements.
  int64_t freeElements() const;
};

/// A new workgroup buffer of `func`: `elements` of `element`, aligned to
/// kGpuVectorBytes.
Value addWorkgroupBuffer(OpBuilder &b, Location loc, gpu::GPUFuncOp func,
                         Type element, int64_t elements);

/// Emits at `b` the block's staging of `staged`'s chunk [k0, k0 + chunk)
/// of the reduce axes `kAxes` (of sizes `kSizes`, flattened row-major) at
/// the block tile starting at `base`: the operand expression evaluated
/// (KernelEmitter) in runs of up to kGpuVectorBytes along the axis some
/// load of it reads contiguously (its innermost free axis, or K where it
/// is one axis), thread `tid` of `threads` taking runs tid, tid + threads,
/// ..., so that neighbouring threads read neighbouring runs.
/// With `offset`, the chunk goes that many elements into the buffer (the
/// half of a double buffer).
LogicalResult stageOperand(OpBuilder &b, Location loc, KernelEmitter &emitter,
                           const StagedOperand &staged, ArrayRef<Value> base,
                           ArrayRef<size_t> kAxes, ArrayRef<int64_t> kSizes,
                           Value k0, int64_t chunk, Value tid, int64_t threads,
                           Value offset = {});

/// Double buffering: a chunk's staging split into its loads, held in
/// registers across the multiply-adds of the chunk before, and its stores.
/// It holds where every thread takes the same few runs (canHoldStaged).
using StagedValues = SmallVector<std::pair<Value, Value>>;
bool canHoldStaged(Location loc, KernelEmitter &emitter,
                   const StagedOperand &staged, ArrayRef<size_t> kAxes,
                   ArrayRef<int64_t> kSizes, int64_t chunk, int64_t threads);
FailureOr<StagedValues> loadStaged(OpBuilder &b, Location loc,
                                   KernelEmitter &emitter,
                                   const StagedOperand &staged,
                                   ArrayRef<Value> base, ArrayRef<size_t> kAxes,
                                   ArrayRef<int64_t> kSizes, Value k0,
                                   int64_t chunk, Value tid, int64_t threads);
/// The loads' stores (the same kAxes, kSizes, chunk and threads).
void storeStaged(OpBuilder &b, Location loc, KernelEmitter &emitter,
                 const StagedOperand &staged, ArrayRef<size_t> kAxes,
                 ArrayRef<int64_t> kSizes, int64_t chunk, int64_t threads,
                 const StagedValues &values, Value offset);

/// The block tiles of `steps[d]` elements of each output axis d.
int64_t blockTileCount(const KernelSpace &space, ArrayRef<int64_t> steps);

/// A shared-memory plan's block tile per axis: local times upcast elements
/// (1 on the axes without either).
SmallVector<int64_t> sharedTileSteps(const OptPlan &plan);

/// The block tiles of a shared-memory plan.
int64_t sharedTileCount(const KernelSpace &space, const OptPlan &plan);

/// Emits at `b` (in `func`, which gains the two workgroup buffers) the loop
/// of a shared-memory plan's kernel: block `group` (of `groups`, a
/// grid-stride step) takes block tiles group, group + groups, ...; `tid` is
/// the thread's index in the block. `contract`: a multiply-add may fuse.
/// `doubleBuffer`: where each thread's staging is a few loads
/// (canHoldStaged), two halves per buffer: a chunk's loads go out before
/// the multiply-adds of the chunk before and are stored into the other
/// half after them, one barrier per chunk instead of two.
LogicalResult emitSharedTiles(OpBuilder &b, Location loc, gpu::GPUFuncOp func,
                              KernelEmitter &emitter, ArrayRef<StoreOp> stores,
                              const KernelSpace &space, const OptPlan &plan,
                              const ProductReduce &product, Value group,
                              Value groups, Value tid, bool contract,
                              bool doubleBuffer);

} // namespace mlir::lazy

#endif // LAZY_CONVERSION_KERNELCODEGEN_GPU_SHAREDTILES_H
