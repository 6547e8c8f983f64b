//===- FoldViews.cpp - movement ops to views, view folding ----------------===//
//
// lazy-fold-views puts the graph into tinygrad's LazyBuffer form: every value
// is a base or a single view of a base. Rules, applied to each movement op
// and lazy.view in program order (so operands are already folded and nothing
// recurses on graph depth):
//
//  1. The operand is seen as (base, tracker): a lazy.view gives its source
//     and tracker, anything else is its own base with the tracker
//     from_shape(shape).
//  2. The op moves the tracker (ShapeTracker reshape/permute/expand/pad/
//     shrink/stride), or a lazy.view of a view composes it: tracker +
//     view.tracker. A lazy.view of a base keeps its tracker as written.
//  3. Like tinygrad's LazyBuffer._view: a tracker that is contiguous with the
//     base's shape is the base itself; a tracker with a zero-sized dimension
//     or an empty outermost mask reads nothing and becomes tinygrad's
//     const(0, shape): a rank-0 `lazy.const 0` viewed as the result shape
//     (this check comes first, as in tinygrad); anything else is one
//     lazy.view of the base.
//
// Folded ops and views left without users are erased afterwards. A function
// with nothing to fold is left untouched (and all analyses preserved).
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/LazyGraph.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Dialect/Lazy/Transforms/Passes.h"
#include "lazy/Support/PassOptionHints.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseSet.h"

#include <array>

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYFOLDVIEWS
#include "lazy/Dialect/Lazy/Transforms/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;

namespace {

std::vector<int64_t> toVector(ArrayRef<int64_t> a) {
  return std::vector<int64_t>(a.begin(), a.end());
}

/// The base a value views and the tracker it views it through.
std::pair<Value, st::ShapeTracker> baseAndTracker(Value value) {
  if (auto view = value.getDefiningOp<ViewOp>())
    return {view.getSrc(), view.getTracker().getTracker()};
  return {value, st::ShapeTracker::fromShape(toVector(
                     cast<RankedTensorType>(value.getType()).getShape()))};
}

/// tinygrad's `const(0, shape)`: a rank-0 const seen through a view that
/// reshapes it to all-ones and expands it to `type`'s shape (its symbolic
/// shape, for a #lazy.sym_shape type).
Value zeroConstView(OpBuilder &builder, Location loc, RankedTensorType type) {
  Type elementType = type.getElementType();
  TypedAttr zero;
  if (elementType.isInteger(1))
    zero = builder.getBoolAttr(false);
  else if (isa<FloatType>(elementType))
    zero = builder.getF64FloatAttr(0.0);
  else
    zero = builder.getIntegerAttr(elementType, 0);
  auto scalarType = RankedTensorType::get({}, elementType, deviceOf(type));
  Value scalar = ConstOp::create(builder, loc, scalarType, zero);
  if (hasSymbolicShape(type)) {
    st::SymShape shape = symbolicShapeOf(type);
    st::SymShapeTracker expanded{
        {st::SymView::create(shape, st::SymShape(shape.size(), 0))}};
    return ViewOp::create(
        builder, loc, type, scalar,
        ShapeTrackerAttr::get(builder.getContext(), expanded));
  }
  std::vector<int64_t> shape = toVector(type.getShape());
  st::ShapeTracker tracker = st::ShapeTracker::fromShape({})
                                 .reshape(std::vector<int64_t>(shape.size(), 1))
                                 .expand(shape);
  return ViewOp::create(builder, loc, type, scalar,
                        ShapeTrackerAttr::get(builder.getContext(), tracker));
}

/// The _view rules for a view that holds Variables, or reads a view that
/// does: a view of a view is composed on sints first.
void foldSymbolicView(ViewOp view, SmallVectorImpl<Operation *> &folded,
                      llvm::DenseSet<std::pair<Attribute, Type>> &keptViews) {
  Value base = view.getSrc();
  st::SymShapeTracker tracker = view.getTracker().getSymTracker();
  if (auto inner = base.getDefiningOp<ViewOp>()) {
    // A view of a view: one view of the base, composed on sints. Where
    // tinygrad would raise, the views stay, for the scheduler to report.
    std::optional<st::SymShapeTracker> composed =
        st::composeOrNull(inner.getTracker().getSymTracker(), tracker);
    if (!composed)
      return;
    base = inner.getSrc();
    tracker = std::move(*composed);
  } else if (keptViews.contains({view.getTracker(), base.getType()})) {
    return;
  }
  OpBuilder builder(view);
  Value replacement;
  if (st::readsNothing(tracker)) {
    replacement = zeroConstView(builder, view.getLoc(), view.getType());
  } else if (symbolicViewFoldsAway(tracker, base.getType())) {
    replacement = base;
  } else if (base == view.getSrc()) {
    keptViews.insert({view.getTracker(), base.getType()});
    return;
  } else {
    replacement =
        ViewOp::create(builder, view.getLoc(), view.getType(), base,
                       ShapeTrackerAttr::get(view.getContext(), tracker));
  }
  view.getResult().replaceAllUsesWith(replacement);
  folded.push_back(view);
}

} // namespace

bool mlir::lazy::foldViews(func::FuncOp func) {
  SmallVector<Operation *> folded;
  // Views of a base found to stay as written, by tracker and base type
  // (both uniqued, and all the verdict depends on): a graph has many
  // views but few distinct ones, and each is decoded once.
  llvm::DenseSet<std::pair<Attribute, Type>> keptViews;
  // The ops this pass rewrites, by TypeID, taken once: each isa<> test
  // is an out-of-line call, and a graph has thousands of ops.
  const std::array<TypeID, 7> candidates = {
      TypeID::get<ReshapeOp>(), TypeID::get<ExpandOp>(),
      TypeID::get<PermuteOp>(), TypeID::get<PadOp>(),
      TypeID::get<ShrinkOp>(),  TypeID::get<StrideOp>(),
      TypeID::get<ViewOp>()};
  bool sawUnusedView = false;
  func.walk([&](Operation *op) {
    if (!llvm::is_contained(candidates, op->getName().getTypeID()))
      return;
    if (isa<ViewOp>(op) && op->use_empty())
      sawUnusedView = true;
    std::optional<std::pair<Attribute, Type>> viewKey;
    if (auto view = dyn_cast<ViewOp>(op);
        view && !view.getSrc().getDefiningOp<ViewOp>()) {
      viewKey = {view.getTracker(), view.getSrc().getType()};
      if (keptViews.contains(*viewKey))
        return;
    }
    auto symbolicView = [](Value v) {
      auto view = v.getDefiningOp<ViewOp>();
      return view && view.getTracker().isSymbolic();
    };
    Value src = op->getOperand(0);
    bool symbolic =
        hasSymbolicShape(src.getType()) ||
        hasSymbolicShape(op->getResult(0).getType()) || symbolicView(src) ||
        (isa<ViewOp>(op) && cast<ViewOp>(op).getTracker().isSymbolic());
    if (symbolic) {
      // Movement ops take integer shapes (their verifiers), so only a
      // movement op of a symbolic view gets here; the scheduler reports it.
      if (auto view = dyn_cast<ViewOp>(op))
        foldSymbolicView(view, folded, keptViews);
      return;
    }
    auto [base, tracker] = baseAndTracker(op->getOperand(0));
    // A view of a base is already in LazyBuffer form: keep its tracker
    // exactly as written (the exporter writes tinygrad's own), only
    // checking the _view rules below.
    auto view = dyn_cast<ViewOp>(op);
    std::optional<st::ShapeTracker> moved = view && view.getSrc() == base
                                                ? view.getTracker().getTracker()
                                                : applyMovement(op, tracker);
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    OpBuilder builder(op);
    Value replacement;
    // The _view rules, as LazyGraph.h states them for
    // lazy-form-kernels{fold-views}'s check (viewFoldsAway).
    if (readsNothing(*moved)) {
      replacement = zeroConstView(builder, op->getLoc(), resultType);
    } else if (viewIsItsBase(
                   *moved, cast<RankedTensorType>(base.getType()).getShape())) {
      replacement = base;
    } else if (view && view.getSrc() == base) {
      keptViews.insert(*viewKey);
      return; // Already a view of a base.
    } else {
      replacement =
          ViewOp::create(builder, op->getLoc(), resultType, base,
                         ShapeTrackerAttr::get(op->getContext(), *moved));
    }
    op->getResult(0).replaceAllUsesWith(replacement);
    folded.push_back(op);
  });
  // Erase in reverse program order so users go before their producers.
  for (Operation *op : llvm::reverse(folded))
    if (op->use_empty())
      op->erase();
  // Views of views that were replaced may now be unused as well (and a
  // view may have had no users to begin with).
  SmallVector<ViewOp> deadViews;
  if (!folded.empty() || sawUnusedView)
    func.walk([&](ViewOp view) {
      if (view->use_empty())
        deadViews.push_back(view);
    });
  for (ViewOp view : llvm::reverse(deadViews))
    view->erase();
  return !folded.empty() || !deadViews.empty();
}

namespace {

struct LazyFoldViews final
    : mlir::lazy::WithOptionHints<
          mlir::lazy::impl::LazyFoldViewsBase<LazyFoldViews>> {
  void runOnOperation() override {
    // A graph already in LazyBuffer form (what the exporter writes) is left
    // as it was: saying so lets the pass manager skip verifying it again.
    if (!foldViews(getOperation()))
      markAllAnalysesPreserved();
  }
};

} // namespace
