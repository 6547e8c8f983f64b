//===- RowSplit.cpp - which kernels run row by row ------------------------===//
//
// RowSplit.h states the rules: a store group splits into rows when every
// computed view it reads varies only along axes no reduce runs along; a
// plan's `row` steps name the groups that run so, its `block` steps the
// groups that run in GPU blocks.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/RowSplit.h"
#include "lazy/Dialect/Lazy/Analysis/KernelFacts.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;

SmallVector<StoreGroup> mlir::lazy::groupStores(Block &body) {
  SmallVector<StoreGroup> groups;
  auto dimsOf = [](StoreOp store) {
    return symbolicShapeOf(store.getValue().getType());
  };
  for (auto store : body.getOps<StoreOp>()) {
    // A group's stores have one symbolic shape, which bounds its loops ((i)
    // and (j) of one largest value are two groups); `shape` holds its dims
    // at their largest values.
    if (groups.empty() ||
        !st::symEqual(dimsOf(groups.back().stores.front()), dimsOf(store)))
      groups.push_back({SmallVector<int64_t>(store.getView().getShape()), {}});
    groups.back().stores.push_back(store);
  }
  return groups;
}

SmallVector<Operation *>
mlir::lazy::opsComputingStores(ArrayRef<StoreOp> stores,
                               function_ref<bool(Operation *)> descend) {
  SmallVector<Operation *> reached;
  llvm::SmallPtrSet<Operation *, 32> seen;
  SmallVector<Value> stack;
  for (StoreOp store : stores)
    stack.push_back(store.getValue());
  while (!stack.empty()) {
    Operation *op = stack.pop_back_val().getDefiningOp();
    if (!op || !seen.insert(op).second)
      continue;
    reached.push_back(op);
    if (isa<LoadOp>(op) || !descend(op))
      continue;
    for (Value operand : op->getOperands())
      if (isa<RankedTensorType>(operand.getType()))
        stack.push_back(operand);
  }
  return reached;
}

std::optional<RowSplit> mlir::lazy::rowSplitOf(ArrayRef<StoreOp> stores) {
  if (stores.empty())
    return std::nullopt;
  StoreOp first = stores.front();
  ArrayRef<int64_t> shape = first.getView().getShape();
  if (llvm::any_of(stores, [](StoreOp s) { return s.getView().isSymbolic(); }))
    return std::nullopt;
  // The computed views the stores reach and the reduces on the way, not
  // looking into what a computed view reads (that is computed at its own
  // shape; its reduces hoist what they read, hoistInvariantViews).
  SmallVector<ViewOp> views;
  SmallVector<Operation *> reduces;
  for (Operation *op : opsComputingStores(
           stores, [](Operation *op) { return !isComputedView(op); })) {
    if (isComputedView(op))
      views.push_back(cast<ViewOp>(op));
    else if (isa<ReduceSumOp, ReduceMaxOp>(op))
      reduces.push_back(op);
    else if (isa<SoftmaxSumOp>(op))
      return std::nullopt; // one pass over its axes, not rows
  }
  if (views.empty())
    return std::nullopt;
  RowSplit split;
  split.rowAxis.assign(shape.size(), false);
  for (ViewOp view : views) {
    ArrayRef<int64_t> viewShape = view.getTracker().getShape();
    if (viewShape.size() != shape.size() || view.getTracker().isSymbolic() ||
        hasSymbolicShape(view.getSrc().getType()))
      return std::nullopt;
    st::ShapeTracker tracker = view.getTracker().getTracker();
    std::vector<std::optional<int64_t>> strides =
        tracker.realStrides(/*ignoreValid=*/false);
    for (size_t d = 0; d < shape.size(); ++d)
      if (!strides[d] || *strides[d] != 0)
        split.rowAxis[d] = true;
  }
  // A row axis has the store's extent in every view, and no reduce runs
  // along it: then each view's value is one per row.
  for (ViewOp view : views) {
    ArrayRef<int64_t> viewShape = view.getTracker().getShape();
    for (size_t d = 0; d < shape.size(); ++d)
      if (split.rowAxis[d] && viewShape[d] != shape[d])
        return std::nullopt;
  }
  for (Operation *reduce : reduces) {
    if (cast<RankedTensorType>(reduce->getOperand(0).getType()).getRank() !=
        int64_t(shape.size()))
      return std::nullopt;
    for (int64_t axis : reduceAxes(reduce))
      if (split.rowAxis[size_t(axis)])
        return std::nullopt;
  }
  llvm::sort(views, [](ViewOp a, ViewOp b) {
    return a->isBeforeInBlock(b.getOperation());
  });
  split.views = std::move(views);
  split.elementReduces = !reduces.empty();
  return split;
}

SmallVector<size_t> mlir::lazy::innerAxesOf(const RowSplit &split,
                                            ArrayRef<int64_t> shape) {
  SmallVector<size_t> inner;
  for (auto [d, extent] : llvm::enumerate(shape))
    if (extent > 1 && !split.rowAxis[d])
      inner.push_back(d);
  return inner;
}

bool mlir::lazy::holdsGroupSteps(ArrayRef<Attribute> opts) {
  return llvm::any_of(opts, [](Attribute step) {
    auto opt = dyn_cast<OptAttr>(step);
    return opt &&
           (opt.getKind() == OptKind::row || opt.getKind() == OptKind::block);
  });
}

FailureOr<GroupPlan> mlir::lazy::readGroupPlan(KernelOp kernel,
                                               ArrayRef<Attribute> opts,
                                               std::string &why) {
  llvm::raw_string_ostream os(why);
  SmallVector<StoreGroup> groups = groupStores(kernel.getBody().front());
  GroupPlan plan{SmallVector<int64_t>(groups.size(), 0),
                 SmallVector<int64_t>(groups.size(), 0)};
  for (auto [i, a] : llvm::enumerate(opts)) {
    auto step = dyn_cast<OptAttr>(a);
    if (!step ||
        (step.getKind() != OptKind::row && step.getKind() != OptKind::block)) {
      os << "step " << i << " is not a row or block step; a plan with one "
         << "holds only row and block steps";
      return failure();
    }
    bool isRow = step.getKind() == OptKind::row;
    StringRef kind = isRow ? "row" : "block";
    int64_t group = step.getAxis(), amount = step.getAmount();
    if (group < 0 || group >= int64_t(groups.size())) {
      os << "step " << i << " (" << kind << ") names store group " << group
         << "; the kernel has " << groups.size();
      return failure();
    }
    int64_t &slot = (isRow ? plan.rows : plan.blocks)[size_t(group)];
    if (slot) {
      os << "step " << i << " (" << kind << ") names store group " << group
         << " again";
      return failure();
    }
    if (!isRow) {
      if (amount < 32 || amount > 1024 ||
          !llvm::isPowerOf2_64(uint64_t(amount))) {
        os << "step " << i << " (block) has " << amount
           << " threads; a power of two from 32 to 1024";
        return failure();
      }
      if (holdsVariables(kernel)) {
        os << "step " << i << " (block): the kernel reads through symbolic "
           << "shapes (tinygrad Variables), which run a thread per element";
        return failure();
      }
      slot = amount;
      continue;
    }
    if (amount < 1 || !llvm::isPowerOf2_64(uint64_t(amount))) {
      os << "step " << i << " (row) has vectors of " << amount
         << " bytes; 1 (scalar) or a power of two";
      return failure();
    }
    const StoreGroup &g = groups[size_t(group)];
    std::optional<RowSplit> split = rowSplitOf(g.stores);
    if (!split) {
      os << "step " << i << " (row): store group " << group
         << " does not split into rows (it reads no computed view, or one "
            "that varies along a reduced or symbolic axis)";
      return failure();
    }
    size_t inner = innerAxesOf(*split, g.shape).size();
    if (amount > 1 && inner != 1) {
      os << "step " << i << " (row): vectors run along a row's one inner "
         << "axis; store group " << group << " has " << inner;
      return failure();
    }
    slot = amount;
  }
  return plan;
}

SmallVector<Attribute> mlir::lazy::chooseRowSteps(KernelOp kernel,
                                                  int64_t vectorBytes) {
  SmallVector<Attribute> steps;
  for (auto [i, g] : llvm::enumerate(groupStores(kernel.getBody().front()))) {
    std::optional<RowSplit> split = rowSplitOf(g.stores);
    if (!split)
      continue;
    int64_t bytes = innerAxesOf(*split, g.shape).size() == 1 ? vectorBytes : 1;
    steps.push_back(OptAttr::get(kernel.getContext(), OptKind::row, int64_t(i),
                                 std::max<int64_t>(bytes, 1)));
  }
  return steps;
}
