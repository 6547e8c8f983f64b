//===- PlannedTile.h - a kernel plan's register tile, for every target ----===//
//
// What the CPU and GPU lowerings of a planned kernel (`opts`, KernelSpace.h)
// share: the plan itself, the axis its vector lanes take (the plan's
// `lanes` step, which lazy-optimize-kernels chose: PlanLanes.h), and the
// element index vectors of one register tile. The CPU runs tiles in loops over
// the output axes; the GPU gives each thread a tile.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_CONVERSION_KERNELCODEGEN_PLANNEDTILE_H
#define LAZY_CONVERSION_KERNELCODEGEN_PLANNEDTILE_H

#include "lazy/Conversion/KernelCodegen/KernelEmitter.h"
#include "lazy/Dialect/Lazy/Analysis/KernelSpace.h"

#include <optional>

namespace mlir::lazy {

/// The kernel's plan and iteration space, when it has a non-empty plan
/// (the verifier guarantees that it reads and that the kernel's stores
/// are one group).
/// A plan that does not read (a pipeline that skipped verification) is an
/// error at the kernel, never a kernel lowered without it.
FailureOr<std::optional<std::pair<KernelSpace, OptPlan>>>
kernelPlanOf(KernelOp kernel);

/// The plan's vector lanes (its `lanes` step), or none.
std::optional<LaneAxis> laneAxisOf(const OptPlan &plan);

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
