//===- AttentionTiles.h - attention's softmax_sum on tensor cores -*- C++
//-*-===//
//
// convert-lazy-to-gpu's attention mode: a store group whose value is a
// lazy.softmax_sum whose scores are one dot product of 16-bit float
// operands (q . k, around which the scores may scale, mask, bias or cap)
// and whose weights are 16-bit values (V) runs FlashAttention-2's loop on
// mma.sync, MFMA or WMMA (AttentionTiles.cpp states the rules).
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_CONVERSION_KERNELCODEGEN_GPU_ATTENTIONTILES_H
#define LAZY_CONVERSION_KERNELCODEGEN_GPU_ATTENTIONTILES_H

#include "lazy/Conversion/KernelCodegen/KernelEmitter.h"
#include "lazy/Dialect/Lazy/Analysis/TensorCores.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::lazy {

/// A softmax_sum that runs on tensor cores, in the axes of its store
/// group's shape (the softmax_sum's result; the key axis has one element
/// there).
struct AttentionTensorCores {
  SoftmaxSumOp op;
  /// mma.sync (a warp of 32), MFMA (a wave of 64) or WMMA (a wave of 32).
  TensorCoreKind kind;
  /// The queries (rows), the output's head dim (columns) and the keys.
  size_t queryAxis, headAxis, keyAxis;
  int64_t queries, headDim, keys;
  /// The scores' dot product, and for each axis of its input the axis of
  /// the group's shape its index is (-1: an axis of one element; the
  /// reduced axis `depthAxis` is the dot product's own).
  ReduceSumOp dot;
  SmallVector<int64_t> dotAxes;
  size_t depthAxis;
  int64_t depth;
  /// The dot product's 16-bit operands varying along the queries and
  /// along the keys (under their casts), and the weights, whose values are
  /// 16-bit ones (cast up, perhaps through views).
  Value query, key, values;
  /// f16 or bf16.
  Type element;
};

/// Whether `op`, the value of a store group of `shape`, runs on tensor
/// cores of `kind`; `why` says why not.
FailureOr<AttentionTensorCores>
matchAttentionTensorCores(SoftmaxSumOp op, ArrayRef<int64_t> shape,
                          TensorCoreKind kind, std::string &why);

/// Warps (waves) of a block: each takes 16 query rows of the block's tile.
int64_t attentionWarps(const AttentionTensorCores &attention);
/// A block's threads: attentionWarps warps (waves).
int64_t attentionBlockThreads(const AttentionTensorCores &attention);

/// Block tiles: attentionWarps x 16 query rows, one element of every other
/// output axis.
int64_t attentionTileCount(const AttentionTensorCores &attention,
                           ArrayRef<int64_t> shape);

/// The block `group` (thread `tid`) takes block tiles `group`, `group` +
/// `groups`, ... of the store group `stores` (of `shape`) and computes and
/// stores each; `func` gains the two workgroup buffers of its keys.
LogicalResult emitAttentionTensorCores(OpBuilder &b, Location loc,
                                       gpu::GPUFuncOp func,
                                       KernelEmitter &emitter,
                                       ArrayRef<StoreOp> stores,
                                       ArrayRef<int64_t> shape,
                                       const AttentionTensorCores &attention,
                                       Value group, Value groups, Value tid);

} // namespace mlir::lazy

#endif // LAZY_CONVERSION_KERNELCODEGEN_GPU_ATTENTIONTILES_H
