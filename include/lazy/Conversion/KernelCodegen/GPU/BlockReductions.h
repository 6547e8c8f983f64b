//===- BlockReductions.h - GPU block mode and row mode ----------*- C++ -*-===//
//
// The GPU's cooperative code shapes over KernelEmitter (BlockReductions.cpp
// states the rules): a reduce split across a block's threads, row kernels
// a block per row, and the unrolled grid-stride loops both use.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_CONVERSION_KERNELCODEGEN_GPU_BLOCKREDUCTIONS_H
#define LAZY_CONVERSION_KERNELCODEGEN_GPU_BLOCKREDUCTIONS_H

#include "lazy/Conversion/KernelCodegen/KernelEmitter.h"

namespace mlir::lazy {

/// Emits the work of given in-bounds indices at the builder's point and
/// returns the new loop-carried values.
using UnrolledBody = llvm::function_ref<FailureOr<SmallVector<Value>>(
    OpBuilder &, ArrayRef<Value> indices, ValueRange carried)>;

/// `for (i = start; i < end; i += step)` taking `factor` indices per trip:
/// a main loop over i, i + step, ..., i + (factor - 1) * step while the
/// last is in bounds, then the rest one per trip. The indices are visited
/// in the same order as by the plain loop (a sum adds in the same order),
/// but a trip's loads do not wait for each other: each thread keeps
/// `factor` memory requests in flight instead of one.
FailureOr<SmallVector<Value>>
emitUnrolledLoop(OpBuilder &b, Location loc, Value start, Value end, Value step,
                 int64_t factor, ValueRange inits, UnrolledBody body);

/// KernelEmitter whose outermost reduces, in block mode, are split across
/// the threads of a block and combined with gpu.all_reduce.
class GpuKernelEmitter : public KernelEmitter {
public:
  GpuKernelEmitter(IRMapping buffers, Value threadId, Value blockDim,
                   int64_t reduceUnroll)
      : KernelEmitter(std::move(buffers)), threadId(threadId),
        blockDim(blockDim), reduceUnroll(reduceUnroll) {}

  bool blockMode = false;

protected:
  FailureOr<Value> emitReduce(OpBuilder &b, Operation *op,
                              ValueRange idx) override;

private:
  /// Block mode's lanes for `reduce`: consecutive elements of its
  /// innermost axis, as many as 128 bits of the widest element loaded
  /// (4 of 32-bit, 8 of 16-bit types; halved until they divide the axis,
  /// at least 2), where every load of its input reads that axis
  /// contiguously or not at all, some contiguously (and nothing else is
  /// read: no nested reduce, no computed view, no bool or bfloat16, which
  /// are bytes and software floats); else none.
  std::optional<LaneAxis> blockLanes(Operation *reduce) const;

  Value threadId, blockDim;
  int64_t reduceUnroll;
};

/// Row mode: block b takes rows b, b + gridDim, ...; each row's computed
/// views come first, then its elements, thread t taking elements t,
/// t + blockDim, ... of the row. With `blockReduces` the views' outermost
/// reduces are block reductions (which every thread of the block reaches
/// together); without, each thread computes them alone in index order.
LogicalResult lowerRows(OpBuilder &b, GpuKernelEmitter &emitter,
                        StoreGroup &group, const RowSplit &split,
                        ArrayRef<int64_t> rowShape,
                        ArrayRef<int64_t> innerShape, bool blockReduces,
                        Value tid, Value bid, Value bdim, Value gdim);

} // namespace mlir::lazy

#endif // LAZY_CONVERSION_KERNELCODEGEN_GPU_BLOCKREDUCTIONS_H
