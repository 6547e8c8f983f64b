//===- GpuBlocks.cpp - which store groups run in GPU blocks ---------------===//
//
// GpuBlocks.h states the rules. They moved here from convert-lazy-to-gpu,
// which chose block mode from its options while lowering, when the plan
// began to carry the GPU mapping.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/GpuBlocks.h"
#include "lazy/Dialect/Lazy/Analysis/KernelFacts.h"
#include "lazy/Dialect/Lazy/Analysis/RowSplit.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::lazy;

SmallVector<Operation *> mlir::lazy::outerReduces(ArrayRef<StoreOp> stores) {
  auto isReduce = [](Operation *op) {
    return isa<ReduceSumOp, ReduceMaxOp>(op);
  };
  SmallVector<Operation *> reduces;
  for (Operation *op :
       opsComputingStores(stores, [&](Operation *op) { return !isReduce(op); }))
    if (isReduce(op))
      reduces.push_back(op);
  return reduces;
}

/// Whether the stores' values read a softmax_sum outside every reduce.
static bool readsSoftmaxSum(ArrayRef<StoreOp> stores) {
  return llvm::any_of(
      opsComputingStores(stores,
                         [](Operation *op) {
                           return !isa<ReduceSumOp, ReduceMaxOp, SoftmaxSumOp>(
                               op);
                         }),
      [](Operation *op) { return isa<SoftmaxSumOp>(op); });
}

SmallVector<Attribute> mlir::lazy::chooseBlockSteps(KernelOp kernel,
                                                    ArrayRef<Attribute> plan,
                                                    const BlockTarget &target) {
  auto hasRowStep = [&](size_t group) {
    return llvm::any_of(plan, [&](Attribute a) {
      auto step = dyn_cast<OptAttr>(a);
      return step && step.getKind() == OptKind::row &&
             step.getAxis() == int64_t(group);
    });
  };
  SmallVector<Attribute> steps;
  for (auto [i, g] : llvm::enumerate(groupStores(kernel.getBody().front()))) {
    if (readsSoftmaxSum(g.stores))
      continue;
    // Without Variables a reduce's element count is its one extent.
    int64_t longest = 0;
    for (Operation *r : outerReduces(g.stores))
      longest = std::max(longest, reducedElementCount(r));
    if (longest < target.reduceMin)
      continue;
    int64_t work = longest;
    if (hasRowStep(i)) {
      // A row's threads also split its elements.
      std::optional<RowSplit> split = rowSplitOf(g.stores);
      int64_t inner = 1;
      if (split)
        for (size_t d : innerAxesOf(*split, g.shape))
          inner *= g.shape[d];
      work = std::max(work, inner);
    }
    int64_t threads =
        std::clamp<int64_t>(int64_t(llvm::PowerOf2Ceil(uint64_t(
                                llvm::divideCeil(work, target.perThread)))),
                            32, target.maxThreads);
    steps.push_back(
        OptAttr::get(kernel.getContext(), OptKind::block, int64_t(i), threads));
  }
  return steps;
}
