//===- PlanLanes.cpp - the vector lanes a plan's tiles take ---------------===//
//
// PlanLanes.h states the rules. They moved here from the lowerings when the
// plan began to carry its lanes, so that lazy-optimize-kernels decides them
// once.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/PlanLanes.h"
#include "lazy/Dialect/Lazy/Analysis/KernelFacts.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::lazy;

LaneTarget mlir::lazy::cpuLaneTarget(unsigned vectorBits) {
  return LaneTarget{std::max<int64_t>(2, vectorBits / 32), true};
}

LaneTarget mlir::lazy::gpuLaneTarget(KernelOp kernel) {
  // A GPU thread's widest access is 128 bits of the widest element any
  // buffer holds.
  int64_t widest = 1;
  for (Type t : kernel.getArgumentTypes())
    widest = std::max<int64_t>(widest,
                               itemSize(cast<BufferType>(t).getElementType()));
  return LaneTarget{16 / widest, false};
}

std::optional<std::pair<size_t, int64_t>>
mlir::lazy::chooseLanes(KernelOp kernel, const KernelSpace &space,
                        const OptPlan &plan, const LaneTarget &target) {
  Block &body = kernel.getBody().front();
  SmallVector<StoreOp> stores(body.getOps<StoreOp>());
  auto strideAlong = [](ShapeTrackerAttr view, size_t d, bool ignoreValid) {
    return viewStridesOf(view, ignoreValid)[d];
  };
  auto lanesOn =
      [&](bool loadsContiguous) -> std::optional<std::pair<size_t, int64_t>> {
    for (size_t d = space.shape.size(); d-- > 0;) {
      if (space.reduced[d] || plan.upcast[d] < 2)
        continue;
      if (!llvm::all_of(stores, [&](StoreOp store) {
            return strideAlong(store.getView(), d, false) == 1;
          }))
        continue;
      if (loadsContiguous) {
        bool contiguous = false, fits = true;
        for (auto load : body.getOps<LoadOp>()) {
          std::optional<int64_t> s = strideAlong(load.getView(), d, true);
          contiguous |= s == 1;
          fits &= s == 0 || s == 1;
        }
        if (!contiguous || !fits)
          continue;
      }
      int64_t width = 1;
      while (width * 2 <= target.maxLanes && plan.upcast[d] % (width * 2) == 0)
        width *= 2;
      if (width < 2)
        return std::nullopt;
      return std::make_pair(d, width);
    }
    return std::nullopt;
  };
  if (auto lanes = lanesOn(/*loadsContiguous=*/true))
    return lanes;
  if (!space.reduces.empty() &&
      llvm::all_of(space.reduces, [&](Operation *reduce) {
        return splitCount(reduce, plan.unroll, target.reassociateSums) > 1;
      }))
    return std::nullopt;
  return lanesOn(/*loadsContiguous=*/false);
}

SmallVector<Attribute> mlir::lazy::withLaneStep(KernelOp kernel,
                                                const KernelSpace &space,
                                                ArrayRef<Attribute> steps,
                                                const LaneTarget &target) {
  SmallVector<Attribute> result(steps.begin(), steps.end());
  std::string why;
  FailureOr<OptPlan> plan = readPlan(steps, space, why);
  if (failed(plan) || plan->empty() || plan->laneAxis || plan->isGpuOnly())
    return result;
  if (auto lanes = chooseLanes(kernel, space, *plan, target))
    result.push_back(OptAttr::get(kernel.getContext(), OptKind::lanes,
                                  int64_t(lanes->first), lanes->second));
  return result;
}
