//===- PlanCandidates.cpp - plans near a kernel's heuristic plan ----------===//
//
// Rules (PlanCandidates.h): the heuristic's plan, no plan (kernels without
// a reduce), then one step
// changed at a time (upcasts x1/2, x2, x4, tiles dropped, x1/2, x2, a
// pack step following its tile where it shrinks and dropped with it
// otherwise, and a pack step dropped alone), in step order, each kept only
// if readPlan accepts it and no earlier candidate is the same.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/PlanCandidates.h"
#include "lazy/Dialect/Lazy/IR/LazyAttrs.h"

using namespace mlir;
using namespace mlir::lazy;

SmallVector<ArrayAttr> mlir::lazy::planCandidates(MLIRContext *ctx,
                                                  ArrayRef<Attribute> heuristic,
                                                  const KernelSpace &space,
                                                  size_t limit) {
  SmallVector<ArrayAttr> candidates;
  auto add = [&](ArrayRef<Attribute> plan) {
    if (candidates.size() >= limit)
      return;
    std::string why;
    if (!plan.empty() && failed(readPlan(plan, space, why)))
      return;
    ArrayAttr attr = ArrayAttr::get(ctx, plan);
    if (!llvm::is_contained(candidates, attr))
      candidates.push_back(attr);
  };
  add(heuristic);
  if (space.isSymbolic())
    return candidates;
  // Without a plan a reduce kernel runs its reduce innermost, one element
  // at a time (a 1024^3 matmul takes 3.7 s, a hundred times its plan's):
  // only kernels without a reduce try none.
  if (!llvm::is_contained(space.reduced, true))
    add({});
  for (auto [i, step] : llvm::enumerate(heuristic)) {
    auto opt = dyn_cast<OptAttr>(step);
    if (!opt ||
        (opt.getKind() != OptKind::upcast && opt.getKind() != OptKind::tile))
      continue;
    int64_t amount = opt.getAmount();
    SmallVector<int64_t> amounts;
    if (opt.getKind() == OptKind::upcast)
      amounts = {amount / 2, amount * 2, amount * 4};
    else
      amounts = {0, amount / 2, amount * 2};
    for (int64_t changed : amounts) {
      SmallVector<Attribute> plan(heuristic.begin(), heuristic.end());
      // An upcast of 1 or a tile of 0 is no step.
      bool drop =
          opt.getKind() == OptKind::upcast ? changed <= 1 : changed <= 0;
      if (drop)
        plan.erase(plan.begin() + i);
      else
        plan[i] = OptAttr::get(ctx, opt.getKind(), opt.getAxis(), changed);
      // A pack step follows its tile where the block shrinks (its panels
      // shrink with it); it goes with a dropped or grown tile, whose panels
      // could outgrow kMaxPanelBytes.
      if (opt.getKind() == OptKind::tile)
        for (size_t j = plan.size(); j-- > 0;) {
          auto pack = dyn_cast<OptAttr>(plan[j]);
          if (!pack || pack.getKind() != OptKind::pack ||
              pack.getAxis() != opt.getAxis())
            continue;
          if (drop || changed > amount)
            plan.erase(plan.begin() + j);
          else
            plan[j] = OptAttr::get(ctx, OptKind::pack, opt.getAxis(), changed);
        }
      add(plan);
    }
    // A pack step dropped alone: the block read from the buffer.
    if (opt.getKind() == OptKind::tile) {
      SmallVector<Attribute> plan;
      for (Attribute a : heuristic) {
        auto other = dyn_cast<OptAttr>(a);
        if (!other || other.getKind() != OptKind::pack ||
            other.getAxis() != opt.getAxis())
          plan.push_back(a);
      }
      if (plan.size() != heuristic.size())
        add(plan);
    }
  }
  return candidates;
}
