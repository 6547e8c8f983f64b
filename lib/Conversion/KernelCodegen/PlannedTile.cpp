//===- PlannedTile.cpp - a kernel plan's register tile, for every target --===//
//
// PlannedTile.h states what is shared. The lane rules moved here from the
// CPU lowering when the GPU lowering started to run plans too.
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/KernelCodegen/PlannedTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::lazy;

std::optional<std::pair<KernelSpace, OptPlan>>
mlir::lazy::kernelPlanOf(KernelOp kernel) {
  ArrayAttr opts = kernel.getOptsAttr();
  if (!opts)
    return std::nullopt;
  std::string why;
  FailureOr<KernelSpace> space = kernelSpace(kernel, why);
  if (failed(space))
    return std::nullopt;
  FailureOr<OptPlan> plan = readPlan(opts.getValue(), *space, why);
  if (failed(plan) || plan->empty())
    return std::nullopt;
  return std::make_pair(std::move(*space), std::move(*plan));
}

std::optional<LaneAxis> mlir::lazy::laneAxisOf(const StoreGroup &group,
                                               const KernelSpace &space,
                                               const OptPlan &plan,
                                               int64_t maxLanes,
                                               bool reassociateSums) {
  Block *body = group.stores.front()->getBlock();
  auto strideAlong = [](ShapeTrackerAttr view, size_t d, bool ignoreValid) {
    return viewStridesOf(view, ignoreValid)[d];
  };
  auto lanesOn = [&](bool loadsContiguous) -> std::optional<LaneAxis> {
    for (size_t d = space.shape.size(); d-- > 0;) {
      if (space.reduced[d] || plan.upcast[d] < 2)
        continue;
      if (!llvm::all_of(group.stores, [&](StoreOp store) {
            return strideAlong(store.getView(), d, false) == 1;
          }))
        continue;
      if (loadsContiguous) {
        bool contiguous = false, fits = true;
        for (auto load : body->getOps<LoadOp>()) {
          std::optional<int64_t> s = strideAlong(load.getView(), d, true);
          contiguous |= s == 1;
          fits &= s == 0 || s == 1;
        }
        if (!contiguous || !fits)
          continue;
      }
      int64_t width = 1;
      while (width * 2 <= maxLanes && plan.upcast[d] % (width * 2) == 0)
        width *= 2;
      if (width < 2)
        return std::nullopt;
      return LaneAxis{d, width};
    }
    return std::nullopt;
  };
  if (auto lanes = lanesOn(/*loadsContiguous=*/true))
    return lanes;
  if (!space.reduces.empty() &&
      llvm::all_of(space.reduces, [&](Operation *reduce) {
        return splitCount(reduce, plan.unroll, reassociateSums) > 1;
      }))
    return std::nullopt;
  return lanesOn(/*loadsContiguous=*/false);
}

TileLayout::TileLayout(const KernelSpace &space, const OptPlan &plan,
                       std::optional<LaneAxis> lanes)
    : rank(space.shape.size()) {
  for (size_t d = 0; d < rank; ++d) {
    if (space.reduced[d])
      continue;
    outputAxes.push_back(d);
    bool laneAxis = lanes && lanes->axis == d;
    count.push_back(laneAxis ? plan.upcast[d] / lanes->width : plan.upcast[d]);
    step.push_back(laneAxis ? lanes->width : 1);
  }
}

SmallVector<SmallVector<Value>> TileLayout::elements(OpBuilder &b, Location loc,
                                                     ArrayRef<Value> bases,
                                                     Value zero) const {
  // Each output axis's indices in the tile: base + 0, step, 2 step, ...
  SmallVector<SmallVector<Value>> at;
  for (auto [i, base] : llvm::enumerate(bases)) {
    SmallVector<Value> &axis = at.emplace_back(1, base);
    for (int64_t u = 1; u < count[i]; ++u)
      axis.push_back(arith::AddIOp::create(
          b, loc, base, arith::ConstantIndexOp::create(b, loc, u * step[i])));
  }
  SmallVector<SmallVector<Value>> elements;
  SmallVector<int64_t> offset(outputAxes.size(), 0);
  do {
    SmallVector<Value> idx(rank, zero);
    for (auto [i, d] : llvm::enumerate(outputAxes))
      idx[d] = at[i][size_t(offset[i])];
    elements.push_back(std::move(idx));
  } while (nextOffsets(offset, count));
  return elements;
}
