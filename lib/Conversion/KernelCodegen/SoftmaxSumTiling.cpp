//===- SoftmaxSumTiling.cpp - how a softmax_sum's elements are tiled ------===//
//
// The rules are in SoftmaxSumTiling.h; LazyToLoops and LazyToGPU both read
// the decision from here.
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/KernelCodegen/SoftmaxSumTiling.h"
#include "lazy/Conversion/KernelCodegen/KernelEmitter.h"
#include "lazy/Dialect/Lazy/Analysis/KernelFacts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::lazy;

SoftmaxSumOp mlir::lazy::topSoftmaxSum(const StoreGroup &group) {
  SoftmaxSumOp found;
  for (Operation *op : opsComputingStores(
           group.stores, [](Operation *op) { return !isEvaluationLeaf(op); })) {
    if (auto online = dyn_cast<SoftmaxSumOp>(op)) {
      if (found)
        return {};
      found = online;
    } else if (isa<ReduceSumOp, ReduceMaxOp>(op) || isComputedView(op)) {
      return {};
    }
  }
  return found;
}

int64_t SoftmaxSumTiling::tileCount() const {
  return ShapedType::getNumElements(trips);
}

SmallVector<SmallVector<Value>>
SoftmaxSumTiling::elementsAt(OpBuilder &b, Location loc,
                             ValueRange first) const {
  SmallVector<SmallVector<Value>> elements;
  for (int64_t k = 0; k < vectors; ++k) {
    SmallVector<Value> idx(first.begin(), first.end());
    if (lanes && k)
      idx[lanes->axis] = arith::AddIOp::create(
          b, loc, first[lanes->axis],
          arith::ConstantIndexOp::create(b, loc, k * lanes->width));
    elements.push_back(std::move(idx));
  }
  return elements;
}

SoftmaxSumTiling mlir::lazy::softmaxSumTiling(SoftmaxSumOp op,
                                              ArrayRef<int64_t> shape,
                                              const SoftmaxSumLimits &limits) {
  SoftmaxSumTiling tiling;
  SmallVector<bool> constant = scoresConstantAxes(op);
  Type result = elementOf(op.getResult());
  int64_t width = limits.vectorBytes / (result.isF64() ? int64_t(8) : 4);
  auto summed = [&](size_t a) {
    return llvm::is_contained(op.getAxes(), int64_t(a));
  };
  for (size_t a = shape.size(); a-- > 0;)
    if (shape[a] > 1) {
      if (width > 1 && constant[a] && shape[a] % width == 0 && !summed(a))
        tiling.lanes = LaneAxis{a, width};
      break;
    }
  if (tiling.lanes) {
    int64_t total = shape[tiling.lanes->axis] / width;
    tiling.vectors = std::min(limits.maxVectors, total);
    while (total % tiling.vectors)
      --tiling.vectors;
  }
  if (limits.maxRows > 1) {
    SmallVector<bool> weightsConstant = weightsConstantAxes(op);
    for (size_t a = shape.size(); a-- > 0;) {
      if ((tiling.lanes && a == tiling.lanes->axis) || shape[a] <= 1 ||
          summed(a))
        continue;
      if (weightsConstant[a] && !constant[a])
        tiling.rowAxis = a;
      break;
    }
    int64_t keys =
        op.getScores().getType().getShape()[size_t(op.getAxes().back())];
    if (tiling.rowAxis && shape[*tiling.rowAxis] >= limits.minRows &&
        !ShapedType::isDynamic(keys) &&
        (keys % limits.minKeys == 0 || keys >= 2 * limits.minKeys))
      tiling.rows = std::min(limits.maxRows, shape[*tiling.rowAxis]);
    else
      tiling.rowAxis.reset();
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t step = tiling.lanes && d == tiling.lanes->axis
                       ? tiling.vectors * width
                   : tiling.rowAxis && d == *tiling.rowAxis ? tiling.rows
                                                            : 1;
    tiling.steps.push_back(step);
    tiling.trips.push_back((shape[d] + step - 1) / step);
  }
  return tiling;
}
