//===- OnlineSoftmax.cpp - softmax-weighted sums into one pass ------------===//
//
// lazy-online-softmax. Rules (Passes.td states them for users):
//   - a reduce_sum of a kernel that matchOnlineSoftmax (Analysis/
//     OnlineSoftmax.h) matches becomes lazy.softmax_sum(x', w): x' the
//     scores read at the sum's input shape through the view the sum reads
//     the probabilities through (x itself without one), w the product of
//     the sum's other factors and the probabilities' other factors read
//     through that view, cast to the sum's element type (a const 1 where
//     there are none);
//   - the scale is the exponential's const factor;
//   - ops that nothing reads any longer are erased (the four-op form's
//     max, sum, exponentials and probabilities), the scores' own ops stay.
// Only kernels: a graph function's ops are tinygrad's LazyOps, which have
// no softmax_sum.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/OnlineSoftmax.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Dialect/Lazy/Transforms/Passes.h"
#include "lazy/ShapeTracker/ShapeTracker.h"

#include "mlir/IR/Builders.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYONLINESOFTMAX
#include "lazy/Dialect/Lazy/Transforms/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;

/// `v` with `elementType` (a cast where it has another).
static Value castTo(OpBuilder &b, Location loc, Value v, Type elementType) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType() == elementType)
    return v;
  return CastOp::create(b, loc, type.clone(elementType), v);
}

/// The product of `factors` (none: null).
static Value productOf(OpBuilder &b, Location loc, ArrayRef<Value> factors) {
  Value product;
  for (Value f : factors)
    product =
        product ? MulOp::create(b, loc, product.getType(), product,
                                castTo(b, loc, f,
                                       getElementTypeOrSelf(product.getType())))
                : f;
  return product;
}

/// `v` (of the probabilities' shape) read at the sum's input shape through
/// the match's view.
static Value atSumShape(OpBuilder &b, Location loc, OnlineSoftmaxMatch &m,
                        Value v) {
  if (!m.probsView)
    return v;
  auto shape = cast<RankedTensorType>(m.probsView.getType());
  return ViewOp::create(b, loc, shape.clone(getElementTypeOrSelf(v.getType())),
                        v, m.probsView.getTracker());
}

/// A const 1 of `type` (a float tensor), a rank-0 const expanded.
static Value oneOf(OpBuilder &b, Location loc, RankedTensorType type) {
  auto scalarType =
      RankedTensorType::get({}, type.getElementType(), type.getEncoding());
  Value scalar = ConstOp::create(b, loc, scalarType, b.getF64FloatAttr(1.0));
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  st::ShapeTracker tracker = st::ShapeTracker::fromShape({})
                                 .reshape(std::vector<int64_t>(shape.size(), 1))
                                 .expand(shape);
  return ViewOp::create(b, loc, type, scalar,
                        ShapeTrackerAttr::get(b.getContext(), tracker));
}

/// Erases the pure ops of `body` that nothing reads, users first.
static void eraseUnread(Block &body) {
  bool erased = true;
  while (erased) {
    erased = false;
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (op.use_empty() && isPure(&op) &&
          !op.hasTrait<OpTrait::IsTerminator>()) {
        op.erase();
        erased = true;
      }
  }
}

unsigned mlir::lazy::rewriteOnlineSoftmax(KernelOp kernel) {
  SmallVector<OnlineSoftmaxMatch> matches;
  kernel.walk([&](ReduceSumOp sum) {
    if (std::optional<OnlineSoftmaxMatch> m = matchOnlineSoftmax(sum))
      matches.push_back(std::move(*m));
  });
  for (OnlineSoftmaxMatch &m : matches) {
    ReduceSumOp sum = m.sum;
    OpBuilder b(sum);
    Location loc = sum.getLoc();
    auto inType = cast<RankedTensorType>(sum.getSrc().getType());
    Type resultElement = getElementTypeOrSelf(sum.getType());
    Value scores = atSumShape(b, loc, m, m.scores);
    SmallVector<Value> factors(m.outerFactors);
    if (Value inner = productOf(b, loc, m.innerFactors))
      factors.push_back(atSumShape(b, loc, m, inner));
    Value weights = productOf(b, loc, factors);
    weights = weights ? castTo(b, loc, weights, resultElement)
                      : oneOf(b, loc, inType.clone(resultElement));
    auto online = SoftmaxSumOp::create(b, loc, sum.getType(), scores, weights,
                                       sum.getAxes(), llvm::APFloat(m.scale));
    sum.replaceAllUsesWith(online.getResult());
    sum.erase();
  }
  if (!matches.empty())
    eraseUnread(kernel.getBody().front());
  return unsigned(matches.size());
}

namespace {
struct LazyOnlineSoftmax
    : public mlir::lazy::impl::LazyOnlineSoftmaxBase<LazyOnlineSoftmax> {
  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<KernelOp>())
      numRewritten += rewriteOnlineSoftmax(kernel);
  }
};
} // namespace
