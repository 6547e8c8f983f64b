//===- PlannedTile.cpp - a kernel plan's register tile, for every target --===//
//
// PlannedTile.h states what is shared. The lane rules live with the
// planner (Analysis/PlanLanes.cpp): the plan carries its lanes.
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/KernelCodegen/PlannedTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::lazy;

FailureOr<std::optional<std::pair<KernelSpace, OptPlan>>>
mlir::lazy::kernelPlanOf(KernelOp kernel) {
  ArrayAttr opts = kernel.getOptsAttr();
  if (!opts)
    return std::optional<std::pair<KernelSpace, OptPlan>>();
  // The kernel verifier read the plan already (KernelPlanVerifier.h); a
  // pipeline that skipped verification gets the same error here rather
  // than a kernel lowered without its plan.
  std::string message;
  auto planned = readKernelPlan(kernel, opts.getValue(), message);
  if (failed(planned))
    return kernel.emitOpError() << message;
  if (planned->second.empty())
    return std::optional<std::pair<KernelSpace, OptPlan>>();
  return std::make_optional(std::move(*planned));
}

std::optional<LaneAxis> mlir::lazy::laneAxisOf(const OptPlan &plan) {
  if (!plan.laneAxis)
    return std::nullopt;
  return LaneAxis{*plan.laneAxis, plan.laneWidth};
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
