//===- KernelSpace.cpp - a kernel's iteration space and its plan ----------===//

#include "lazy/Dialect/Lazy/IR/KernelSpace.h"
#include "lazy/Dialect/Lazy/IR/TensorCores.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::lazy;

static ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

FailureOr<KernelSpace> mlir::lazy::kernelSpace(KernelOp kernel,
                                               std::string &why) {
  KernelSpace space;
  // A row kernel (fusion=aggressive): its reduces run per row, one after
  // another, which no plan describes yet.
  if (hasComputedViews(kernel.getBody().front())) {
    why = "it reads a computed value through a view";
    return failure();
  }
  SmallVector<Value> stack;
  bool first = true;
  for (auto store : kernel.getBody().front().getOps<StoreOp>()) {
    ArrayRef<int64_t> shape = store.getView().getShape();
    if (first) {
      space.shape.assign(shape.begin(), shape.end());
      first = false;
    } else if (ArrayRef<int64_t>(space.shape) != shape) {
      why = "its stores have different shapes";
      return failure();
    }
    stack.push_back(store.getValue());
  }
  space.reduced.assign(space.shape.size(), false);
  // The top-level reduces: reached from a store without passing a reduce.
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!stack.empty()) {
    Operation *op = stack.pop_back_val().getDefiningOp();
    if (!op || !seen.insert(op).second)
      continue;
    if (isa<ReduceSumOp, ReduceMaxOp>(op)) {
      space.reduces.push_back(op);
      continue;
    }
    for (Value operand : op->getOperands())
      if (isa<RankedTensorType>(operand.getType()))
        stack.push_back(operand);
  }
  llvm::sort(space.reduces,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  if (space.reduces.empty())
    return space;
  ArrayRef<int64_t> in = shapeOf(space.reduces.front()->getOperand(0));
  if (in.size() != space.shape.size()) {
    why = "its reduce reads another rank than it stores";
    return failure();
  }
  SmallVector<int64_t> full(in.begin(), in.end());
  SmallVector<bool> reduced(in.size(), false);
  auto axesOf = [](Operation *reduce) {
    if (auto sum = dyn_cast<ReduceSumOp>(reduce))
      return sum.getAxes();
    return cast<ReduceMaxOp>(reduce).getAxes();
  };
  for (int64_t axis : axesOf(space.reduces.front()))
    reduced[size_t(axis)] = true;
  for (Operation *reduce : space.reduces) {
    if (shapeOf(reduce->getOperand(0)) != ArrayRef<int64_t>(full) ||
        axesOf(reduce) != axesOf(space.reduces.front())) {
      why = "its reduces read different shapes or axes";
      return failure();
    }
  }
  for (size_t d = 0; d < full.size(); ++d) {
    if (reduced[d] ? space.shape[d] != 1 : space.shape[d] != full[d]) {
      why = "its stores do not have the shape its reduce produces";
      return failure();
    }
  }
  space.shape = std::move(full);
  space.reduced = std::move(reduced);
  return space;
}

int64_t OptPlan::elementsPerTrip() const {
  return ShapedType::getNumElements(upcast);
}

bool OptPlan::empty() const {
  return !tensorCores &&
         llvm::all_of(upcast, [](int64_t u) { return u == 1; }) &&
         llvm::all_of(unroll, [](int64_t u) { return u == 1; }) &&
         llvm::all_of(tile, [](int64_t t) { return t == 0; });
}

FailureOr<OptPlan> mlir::lazy::readPlan(ArrayRef<Attribute> opts,
                                        const KernelSpace &space,
                                        std::string &why) {
  size_t rank = space.shape.size();
  OptPlan plan;
  plan.upcast.assign(rank, 1);
  plan.unroll.assign(rank, 1);
  plan.tile.assign(rank, 0);
  SmallVector<bool> given(4 * rank, false);
  llvm::raw_string_ostream os(why);
  for (auto [i, attr] : llvm::enumerate(opts)) {
    auto opt = dyn_cast<OptAttr>(attr);
    if (!opt) {
      os << "step " << i << " is not a #lazy.opt";
      return failure();
    }
    int64_t axis = opt.getAxis(), amount = opt.getAmount();
    StringRef kind = stringifyOptKind(opt.getKind());
    if (axis < 0 || axis >= int64_t(rank)) {
      os << "step " << i << " (" << kind << ") names axis " << axis
         << ", outside the kernel's " << rank << " axes";
      return failure();
    }
    int64_t size = space.shape[size_t(axis)];
    if (amount < 1 || size % amount != 0) {
      os << "step " << i << " (" << kind << ") takes " << amount
         << " elements of axis " << axis << ", which has " << size
         << " (the amount must divide it)";
      return failure();
    }
    bool wantsReduce =
        opt.getKind() == OptKind::unroll || opt.getKind() == OptKind::tc;
    if (space.reduced[size_t(axis)] != wantsReduce) {
      os << "step " << i << " (" << kind << ") needs "
         << (wantsReduce ? "a reduce" : "an output") << " axis; axis " << axis
         << " is " << (wantsReduce ? "an output" : "a reduce") << " axis";
      return failure();
    }
    size_t slot = size_t(opt.getKind()) * rank + size_t(axis);
    if (given[slot]) {
      os << "step " << i << " repeats " << kind << " on axis " << axis;
      return failure();
    }
    given[slot] = true;
    switch (opt.getKind()) {
    case OptKind::upcast:
      plan.upcast[size_t(axis)] = amount;
      break;
    case OptKind::unroll:
      plan.unroll[size_t(axis)] = amount;
      break;
    case OptKind::tile:
      plan.tile[size_t(axis)] = amount;
      break;
    case OptKind::tc: {
      if (opts.size() != 1) {
        os << "step " << i << " (tc) is a whole plan: it takes no other step";
        return failure();
      }
      if (amount != kTensorCoreK) {
        os << "step " << i << " (tc) takes " << kTensorCoreK
           << " elements of its axis a trip, not " << amount;
        return failure();
      }
      std::string mismatch;
      if (failed(matchTensorCores(space, size_t(axis), mismatch))) {
        os << "step " << i << " (tc): " << mismatch;
        return failure();
      }
      plan.tensorCores = size_t(axis);
      break;
    }
    }
  }
  for (size_t d = 0; d < rank; ++d) {
    if (plan.tile[d] && plan.tile[d] % plan.upcast[d] != 0) {
      os << "the tile of axis " << d << " (" << plan.tile[d]
         << ") is not a multiple of its upcast (" << plan.upcast[d] << ")";
      return failure();
    }
  }
  int64_t perTrip = plan.elementsPerTrip();
  for (int64_t u : plan.unroll)
    perTrip *= u;
  if (perTrip > kMaxElementsPerTrip) {
    os << "the plan computes " << perTrip << " elements per loop trip; at most "
       << kMaxElementsPerTrip;
    return failure();
  }
  return plan;
}
