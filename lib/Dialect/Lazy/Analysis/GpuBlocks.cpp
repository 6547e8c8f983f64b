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

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::lazy;

SmallVector<Operation *> mlir::lazy::outerReduces(Value root) {
  SmallVector<Operation *> found;
  DenseSet<Operation *> seen;
  SmallVector<Value> stack{root};
  while (!stack.empty()) {
    Operation *op = stack.pop_back_val().getDefiningOp();
    if (!op || !seen.insert(op).second)
      continue;
    if (isa<ReduceSumOp, ReduceMaxOp>(op)) {
      found.push_back(op);
      continue;
    }
    for (Value operand : op->getOperands())
      stack.push_back(operand);
  }
  return found;
}

int64_t mlir::lazy::reducedElements(Operation *reduce) {
  ArrayRef<int64_t> in =
      cast<RankedTensorType>(reduce->getOperand(0).getType()).getShape();
  int64_t n = 1;
  for (int64_t axis : reduceAxes(reduce))
    n *= in[axis];
  return n;
}

SmallVector<Attribute> mlir::lazy::chooseBlockSteps(KernelOp kernel,
                                                    ArrayRef<int64_t> rows,
                                                    const BlockTarget &target) {
  SmallVector<Attribute> steps;
  for (auto [i, g] : llvm::enumerate(groupStores(kernel.getBody().front()))) {
    int64_t longest = 0;
    for (StoreOp store : g.stores)
      for (Operation *r : outerReduces(store.getValue()))
        longest = std::max(longest, reducedElements(r));
    if (longest < target.reduceMin)
      continue;
    int64_t work = longest;
    if (i < rows.size() && rows[i]) {
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
