//===- ProductReduce.cpp - a kernel's reduce as a matrix product ----------===//
//
// ProductReduce.h states the shape matched.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/ProductReduce.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::lazy;

namespace {

Type elementOfValue(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

/// Per axis of `rank`, whether `operand` varies along it (an axis a load's
/// view reads or masks, or a const view masks); a failure where the
/// operand holds a reduce or a computed view. An explicit walk:
/// expressions may be deep.
FailureOr<SmallVector<bool>> axesOf(Value operand, size_t rank) {
  SmallVector<bool> varies(rank, false);
  llvm::DenseSet<Operation *> seen;
  SmallVector<Value> stack{operand};
  // A const's value is the same at every index: only its mask varies.
  auto read = [&](ShapeTrackerAttr view, bool isConst) {
    if (view.isSymbolic()) { // no integer strides: every axis may vary
      varies.assign(rank, true);
      return;
    }
    std::vector<std::optional<int64_t>> strides =
        view.getTracker().realStrides(/*ignoreValid=*/false);
    for (size_t d = 0; d < rank && d < strides.size(); ++d)
      if (!strides[d] || (!isConst && *strides[d] != 0))
        varies[d] = true;
  };
  while (!stack.empty()) {
    Operation *op = stack.pop_back_val().getDefiningOp();
    if (!op || !seen.insert(op).second)
      continue;
    if (isa<ReduceSumOp, ReduceMaxOp>(op) || isComputedView(op))
      return failure();
    if (auto load = dyn_cast<LoadOp>(op)) {
      read(load.getView(), /*isConst=*/false);
      continue;
    }
    if (auto view = dyn_cast<ViewOp>(op)) {
      read(view.getTracker(), /*isConst=*/true);
      continue;
    }
    for (Value v : op->getOperands())
      stack.push_back(v);
  }
  return varies;
}

/// matchProductReduce: over axis `k` alone with one own axis per operand,
/// or (no `k`) over any axes with any own axes.
FailureOr<ProductReduce> match(const KernelSpace &space,
                               std::optional<size_t> k, StringRef what,
                               std::string &why) {
  llvm::raw_string_ostream os(why);
  size_t rank = space.shape.size();
  if (space.reduces.size() != 1) {
    os << "a " << what << " plan needs one reduce; the kernel has "
       << space.reduces.size();
    return failure();
  }
  Operation *reduce = space.reduces.front();
  auto sum = dyn_cast<ReduceSumOp>(reduce);
  if (!sum) {
    os << "a " << what << " plan needs a reduce_sum";
    return failure();
  }
  if (k && (sum.getAxes().size() != 1 || size_t(sum.getAxes().front()) != *k)) {
    os << "a " << what << " plan needs the reduce over axis " << *k << " alone";
    return failure();
  }
  ProductReduce shape;
  shape.reduce = reduce;
  for (int64_t axis : sum.getAxes())
    shape.kAxes.push_back(size_t(axis));
  shape.k = shape.kAxes.back();
  Value x, y;
  Value input = sum.getSrc();
  if (auto cast = input.getDefiningOp<CastOp>()) {
    if (auto mul = cast.getSrc().getDefiningOp<MulOp>()) {
      x = mul.getLhs();
      y = mul.getRhs();
      shape.casts = ProductCasts::OfProduct;
    }
  } else if (auto mul = input.getDefiningOp<MulOp>()) {
    auto cx = mul.getLhs().getDefiningOp<CastOp>();
    auto cy = mul.getRhs().getDefiningOp<CastOp>();
    if (cx && cy) {
      x = cx.getSrc();
      y = cy.getSrc();
      shape.casts = ProductCasts::OfOperands;
    } else {
      x = mul.getLhs();
      y = mul.getRhs();
      shape.casts = ProductCasts::None;
    }
  }
  if (!x || elementOfValue(x) != elementOfValue(y)) {
    os << "a " << what
       << " plan needs the sum of a product of two operands of one type";
    return failure();
  }
  FailureOr<SmallVector<bool>> xAxes = axesOf(x, rank);
  FailureOr<SmallVector<bool>> yAxes = axesOf(y, rank);
  if (failed(xAxes) || failed(yAxes)) {
    os << "a " << what << " operand holds a reduce or a computed view";
    return failure();
  }
  // Each operand's own output axes: it varies along them, the other not.
  SmallVector<size_t> xOwn, yOwn;
  for (size_t d = 0; d < rank; ++d) {
    if (space.reduced[d] || space.shape[d] == 1)
      continue;
    if ((*xAxes)[d] && !(*yAxes)[d])
      xOwn.push_back(d);
    if ((*yAxes)[d] && !(*xAxes)[d])
      yOwn.push_back(d);
  }
  if (k ? (xOwn.size() != 1 || yOwn.size() != 1)
        : (xOwn.empty() || yOwn.empty())) {
    os << "a " << what << " plan needs "
       << (k ? "one output axis" : "output axes") << " of each operand's own";
    return failure();
  }
  // N (the columns, neighbouring threads' or lanes' outputs) where the
  // output is contiguous along it.
  bool xContiguous = false;
  for (auto store : reduce->getBlock()->getOps<StoreOp>()) {
    if (store.getView().isSymbolic())
      continue;
    std::vector<std::optional<int64_t>> strides =
        store.getView().getTracker().realStrides(/*ignoreValid=*/false);
    xContiguous |= strides[xOwn.back()] == 1;
  }
  shape.aAxes = xContiguous ? yOwn : xOwn;
  shape.bAxes = xContiguous ? xOwn : yOwn;
  shape.m = shape.aAxes.back();
  shape.n = shape.bAxes.back();
  shape.a = xContiguous ? y : x;
  shape.b = xContiguous ? x : y;
  return shape;
}
} // namespace

FailureOr<ProductReduce>
mlir::lazy::matchProductReduce(const KernelSpace &space, StringRef what,
                               std::string &why) {
  return match(space, std::nullopt, what, why);
}

FailureOr<ProductReduce>
mlir::lazy::matchProductReduce(const KernelSpace &space, size_t k,
                               StringRef what, std::string &why) {
  return match(space, k, what, why);
}

int64_t mlir::lazy::localChunk(const KernelSpace &space, const OptPlan &plan,
                               const ProductReduce &product) {
  int64_t chunk = plan.unroll[product.kAxes.front()];
  for (size_t axis : ArrayRef<size_t>(product.kAxes).drop_front())
    chunk *= space.shape[axis];
  return chunk;
}
