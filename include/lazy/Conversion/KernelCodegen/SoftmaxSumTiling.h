//===- SoftmaxSumTiling.h - how a softmax_sum's elements are tiled -*- C++
//-*-===//
//
// One decision for the CPU and the GPU lowerings: which elements of a store
// group whose value is a lazy.softmax_sum (attention's output) one tile
// computes together, so that each score is computed once per tile.
//   - Lanes: the innermost output axis when the scores are constant along
//     it (attention's head dim) and vectors of the target's width divide
//     it; a tile takes up to `maxVectors` vectors along it, the most that
//     divide the axis (every tile along it computes the scores again).
//   - Rows (with `maxRows` > 1): the innermost other output axis the
//     weights are constant along and the scores are not (attention's
//     queries), when it has at least `minRows` rows and the keys come in
//     blocks of at least `minKeys` (a single summed axis of twice that or
//     more steps by blocks, then smaller ones); a tile is a block of up to
//     `maxRows` rows, the last one short.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_CONVERSION_KERNELCODEGEN_SOFTMAXSUMTILING_H
#define LAZY_CONVERSION_KERNELCODEGEN_SOFTMAXSUMTILING_H

#include "lazy/Conversion/KernelCodegen/VectorLanes.h"
#include "lazy/Dialect/Lazy/Analysis/RowSplit.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::lazy {

/// The softmax_sum a store group's values all read at the top level (not
/// inside another reduce), when it is the group's only top-level reduce
/// and no computed view stands between; else null.
SoftmaxSumOp topSoftmaxSum(const StoreGroup &group);

/// The target's limits on a softmax_sum tile.
struct SoftmaxSumLimits {
  /// Bytes of one accumulator vector (lanes of f32, or f64).
  int64_t vectorBytes;
  /// The most vectors of accumulators one tile carries.
  int64_t maxVectors;
  /// Row blocks: the most rows (1: none), the fewest rows and the fewest
  /// keys per block that make one.
  int64_t maxRows = 1, minRows = 1, minKeys = 1;
};

/// A store group's tiles of a softmax_sum (see the file comment).
struct SoftmaxSumTiling {
  std::optional<LaneAxis> lanes;
  /// Vectors of lanes per tile (1 without lanes: one element).
  int64_t vectors = 1;
  std::optional<size_t> rowAxis;
  int64_t rows = 1;
  /// Per output axis: elements one tile spans, and tiles along it.
  SmallVector<int64_t> steps, trips;
  /// All tiles.
  int64_t tileCount() const;
  /// The elements of the tile whose first element is `first`: one per
  /// vector of lanes (the first row's, with rows).
  SmallVector<SmallVector<Value>> elementsAt(OpBuilder &b, Location loc,
                                             ValueRange first) const;
};

/// The tiling of a store group of `shape` whose value is `op`.
SoftmaxSumTiling softmaxSumTiling(SoftmaxSumOp op, ArrayRef<int64_t> shape,
                                  const SoftmaxSumLimits &limits);

} // namespace mlir::lazy

#endif // LAZY_CONVERSION_KERNELCODEGEN_SOFTMAXSUMTILING_H
