//===- PlannedTile.h - a kernel plan's register tile, for every target ----===//
//
// What the CPU and GPU lowerings of a planned kernel (`opts`, KernelSpace.h)
// share: the plan itself, the axis its vector lanes take, and the element
// index vectors of one register tile. The CPU runs tiles in loops over the
// output axes; the GPU gives each thread a tile.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_CONVERSION_KERNELCODEGEN_PLANNEDTILE_H
#define LAZY_CONVERSION_KERNELCODEGEN_PLANNEDTILE_H

#include "lazy/Conversion/KernelCodegen/KernelEmitter.h"
#include "lazy/Dialect/Lazy/Analysis/KernelSpace.h"

#include <optional>

namespace mlir::lazy {

/// The kernel's plan and iteration space, when it has a plan that applies
/// (a non-empty one; the verifier then guarantees one store group).
std::optional<std::pair<KernelSpace, OptPlan>> kernelPlanOf(KernelOp kernel);

/// The plan's vector lanes, at most `maxLanes` wide: the largest power of
/// two up to it that divides the axis's upcast, on the first of
///   1. the innermost upcast output axis that every store writes
///      contiguously (stride 1, unmasked along it) and every load reads
///      contiguously or not at all, some load contiguously (the
///      heuristic's vector axis);
///   2. none when every top-level reduce keeps split accumulators (the
///      dot-product form, `reassociateSums` only): the emitter puts the
///      lanes on the innermost reduce axis instead;
///   3. the innermost upcast output axis that every store writes
///      contiguously: the loads that vary otherwise along it are read lane
///      by lane, the accumulators and arithmetic are still vectors.
std::optional<LaneAxis> laneAxisOf(const StoreGroup &group,
                                   const KernelSpace &space,
                                   const OptPlan &plan, int64_t maxLanes,
                                   bool reassociateSums);

/// One register tile's layout over the output axes: on each, `count`
/// elements `step` apart (the upcast, or on the lane axis the upcast over
/// the lanes, a lane width apart).
struct TileLayout {
  TileLayout(const KernelSpace &space, const OptPlan &plan,
             std::optional<LaneAxis> lanes);

  /// The output axes, outermost first.
  SmallVector<size_t> outputAxes;
  /// Per output axis (in outputAxes order).
  SmallVector<int64_t> count, step;
  size_t rank;

  /// The index vector of every element of the tile whose first element is
  /// at `bases` (one per output axis), the last axis fastest; reduce axes
  /// get `zero`.
  SmallVector<SmallVector<Value>>
  elements(OpBuilder &b, Location loc, ArrayRef<Value> bases, Value zero) const;
};

} // namespace mlir::lazy

#endif // LAZY_CONVERSION_KERNELCODEGEN_PLANNEDTILE_H
