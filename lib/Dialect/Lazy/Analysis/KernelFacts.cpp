//===- KernelFacts.cpp - views and reduces of a kernel body ---------------===//
//
// KernelFacts.h states each fact.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/KernelFacts.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/ShapeTracker/ShapeTracker.h"
#include "lazy/ShapeTracker/SymView.h"

#include "llvm/ADT/DenseSet.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;

/// A symbolic view's integer strides: its integer tracker's where it has
/// one; else, for one view, each axis's own stride where it is an integer
/// and (unless ignoring validity) the mask keeps the whole axis.
static std::vector<std::optional<int64_t>>
integerStrides(const st::SymShapeTracker &tracker, bool ignoreValid) {
  if (std::optional<st::ShapeTracker> ints = tracker.toTracker())
    return ints->realStrides(ignoreValid);
  size_t rank = tracker.shape().size();
  std::vector<std::optional<int64_t>> strides(rank);
  if (tracker.views.size() != 1)
    return strides;
  // One view: each axis's own stride, where it is an integer and (unless
  // ignoring validity) the mask keeps the whole axis.
  const st::SymView &v = tracker.views.front();
  for (size_t d = 0; d < rank; ++d) {
    bool masked =
        v.mask && !((*v.mask)[d].first.constant() == 0 &&
                    st::symEqual({(*v.mask)[d].second}, {v.shape[d]}));
    if (ignoreValid || !masked)
      strides[d] = v.strides[d].constant();
  }
  return strides;
}

std::vector<std::optional<int64_t>>
mlir::lazy::viewStridesOf(ShapeTrackerAttr view, bool ignoreValid) {
  if (view.isSymbolic())
    return integerStrides(view.getSymTracker(), ignoreValid);
  return view.getTracker().realStrides(ignoreValid);
}

ArrayRef<int64_t> mlir::lazy::reduceAxes(Operation *reduce) {
  if (auto sum = dyn_cast<ReduceSumOp>(reduce))
    return sum.getAxes();
  return cast<ReduceMaxOp>(reduce).getAxes();
}

int64_t mlir::lazy::reducedElementCount(Operation *reduce) {
  // A symbolic dim counts its smallest value (the reorder thresholds must
  // hold at every launch); an integer dim's smallest value is itself.
  st::SymShape dims = symbolicShapeOf(reduce->getOperand(0).getType());
  int64_t count = 1;
  for (int64_t axis : reduceAxes(reduce)) {
    st::SInt least = dims[size_t(axis)].min();
    count *= least.isInt() ? std::max<int64_t>(least.getInt(), 0) : 0;
  }
  return count;
}

int64_t mlir::lazy::splitCount(Operation *reduce, ArrayRef<int64_t> unroll,
                               bool reassociateSums, int64_t laneAccumulators) {
  ArrayRef<int64_t> axes = reduceAxes(reduce);
  bool isFloat = isa<FloatType>(
      cast<RankedTensorType>(reduce->getResult(0).getType()).getElementType());
  if (!isa<ReduceSumOp>(reduce) || !reassociateSums || axes.empty() ||
      (isFloat && reducedElementCount(reduce) < kReorderMinElements) ||
      laneAccumulators >= kLatencyAccumulators)
    return 1;
  return unroll[axes.back()];
}

std::optional<SmallVector<int64_t>> mlir::lazy::viewAxisSources(ViewOp view) {
  if (view.getTracker().isSymbolic() ||
      hasSymbolicShape(view.getSrc().getType()))
    return std::nullopt;
  const st::ShapeTracker tracker = view.getTracker().getTracker();
  if (tracker.views.size() != 1)
    return std::nullopt;
  const st::View &v = tracker.views[0];
  if (v.mask || v.offset != 0)
    return std::nullopt;
  ArrayRef<int64_t> src = view.getSrc().getType().getShape();
  std::vector<int64_t> srcShape(src.begin(), src.end());
  std::vector<int64_t> contiguous = st::stridesForShape(srcShape);
  SmallVector<int64_t> from(v.shape.size(), -1);
  SmallVector<bool> walked(srcShape.size(), false);
  for (size_t a = 0; a < v.shape.size(); ++a) {
    if (v.strides[a] == 0)
      continue;
    auto d =
        llvm::find_if(llvm::seq<size_t>(0, srcShape.size()), [&](size_t d) {
          return srcShape[d] > 1 && !walked[d] && srcShape[d] == v.shape[a] &&
                 contiguous[d] == v.strides[a];
        });
    if (*d == srcShape.size())
      return std::nullopt;
    walked[*d] = true;
    from[a] = int64_t(*d);
  }
  for (size_t d = 0; d < srcShape.size(); ++d)
    if (srcShape[d] > 1 && !walked[d])
      return std::nullopt;
  return from;
}

bool mlir::lazy::walkOperands(Value v, size_t limit,
                              function_ref<OperandWalk(Operation *)> visit) {
  llvm::SmallDenseSet<Operation *, 16> visited;
  SmallVector<Operation *> stack;
  if (Operation *def = v.getDefiningOp())
    stack.push_back(def);
  while (!stack.empty()) {
    Operation *op = stack.pop_back_val();
    if (!visited.insert(op).second)
      continue;
    if (visited.size() > limit)
      return false;
    OperandWalk next = visit(op);
    if (next == OperandWalk::Stop)
      return false;
    if (next == OperandWalk::Skip)
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        stack.push_back(def);
  }
  return true;
}
