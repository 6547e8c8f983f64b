//===- OnlineSoftmax.cpp - a softmax-weighted sum over lazy ops -----------===//
//
// Rules (OnlineSoftmax.h states the form):
//   - o's input and p are products: mul ops flattened into factors, a float
//     cast on top of p or of view(p) looked through;
//   - exactly one factor of o's input is p (through V, or p itself), and V
//     maps o's summed axes one to one onto p's axes J;
//   - exactly one factor of p is exp2(c * (x + neg(view(m)))) (the product
//     either way round, c a positive const, none for c = 1) with m a max of
//     x over J, and exactly one is recip(view(l)) with l a sum of that
//     exp2 over J; both views only broadcast the reduced value back;
//   - no other factor reads m, l or the exp2 (looked for through at most
//     kMaxFactorOps ops: a deeper factor is declined, not searched).
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/OnlineSoftmax.h"
#include "lazy/Dialect/Lazy/Analysis/KernelFacts.h"

#include "llvm/ADT/DenseSet.h"

#include <cmath>
#include <tuple>

using namespace mlir;
using namespace mlir::lazy;

/// The most ops a factor's check for m, l and e walks.
static constexpr size_t kMaxFactorOps = 4096;

namespace {

/// `v` without float-to-float casts on top.
Value throughFloatCasts(Value v) {
  while (auto cast = v.getDefiningOp<CastOp>()) {
    if (!isa<FloatType>(getElementTypeOrSelf(cast.getSrc().getType())) ||
        !isa<FloatType>(getElementTypeOrSelf(cast.getType())))
      break;
    v = cast.getSrc();
  }
  return v;
}

/// The factors of a product of mul ops.
SmallVector<Value> factorsOf(Value v) {
  SmallVector<Value> factors, stack = {v};
  while (!stack.empty()) {
    Value x = stack.pop_back_val();
    if (auto mul = x.getDefiningOp<MulOp>()) {
      stack.push_back(mul.getRhs());
      stack.push_back(mul.getLhs());
      continue;
    }
    factors.push_back(x);
  }
  return factors;
}

/// A float const's value, read directly or through a view.
std::optional<double> constFloat(Value v) {
  if (auto view = v.getDefiningOp<ViewOp>())
    v = view.getSrc();
  auto c = v.getDefiningOp<ConstOp>();
  if (!c)
    return std::nullopt;
  auto f = dyn_cast<FloatAttr>(c.getValue());
  if (!f)
    return std::nullopt;
  return f.getValueAsDouble();
}

/// The reduce `R` that `v` reads as view(R), the view broadcasting R's
/// value back along R's own axes (its shape R's input's).
template <typename R> R broadcastReduce(Value v) {
  auto view = v.getDefiningOp<ViewOp>();
  if (!view)
    return {};
  auto reduce = view.getSrc().template getDefiningOp<R>();
  if (!reduce || reduce.getSrc().getType() != view.getType())
    return {};
  std::optional<SmallVector<int64_t>> from = viewAxisSources(view);
  if (!from)
    return {};
  ArrayRef<int64_t> axes = reduce.getAxes();
  ArrayRef<int64_t> shape = view.getType().getShape();
  for (size_t a = 0; a < from->size(); ++a) {
    bool reduced = llvm::is_contained(axes, int64_t(a));
    if (reduced ? (*from)[a] >= 0 : ((*from)[a] != int64_t(a) && shape[a] != 1))
      return {};
  }
  return reduce;
}

/// Whether `v` reads any of `ops`' results, walking at most kMaxFactorOps
/// ops (true past that: declined, not searched).
bool reachesAny(Value v, ArrayRef<Operation *> ops) {
  bool found = false;
  bool complete = walkOperands(v, kMaxFactorOps, [&](Operation *op) {
    found = llvm::is_contained(ops, op);
    return found ? OperandWalk::Stop : OperandWalk::Descend;
  });
  return found || !complete;
}

/// exp2(c * (x + neg(view(max x)))) over `axes`: fills x, c, the max and
/// the exp2 of `m`.
bool matchShiftedExp(Value factor, ArrayRef<int64_t> axes,
                     OnlineSoftmaxMatch &m) {
  auto exp = factor.getDefiningOp<Exp2Op>();
  if (!exp)
    return false;
  Value arg = exp.getSrc();
  double scale = 1.0;
  if (auto mul = arg.getDefiningOp<MulOp>()) {
    std::optional<double> c = constFloat(mul.getRhs());
    Value other = mul.getLhs();
    if (!c) {
      c = constFloat(mul.getLhs());
      other = mul.getRhs();
    }
    if (!c || !(*c > 0) || !std::isfinite(*c))
      return false;
    scale = *c;
    arg = other;
  }
  auto add = arg.getDefiningOp<AddOp>();
  if (!add)
    return false;
  for (auto [x, shifted] : {std::pair(add.getLhs(), add.getRhs()),
                            std::pair(add.getRhs(), add.getLhs())}) {
    auto neg = shifted.getDefiningOp<NegOp>();
    if (!neg)
      continue;
    ReduceMaxOp max = broadcastReduce<ReduceMaxOp>(neg.getSrc());
    if (!max || max.getSrc() != x || max.getAxes() != axes)
      continue;
    m.scores = x;
    m.scale = scale;
    m.max = max;
    m.exp = exp;
    return true;
  }
  return false;
}

} // namespace

std::optional<OnlineSoftmaxMatch>
mlir::lazy::matchOnlineSoftmax(ReduceSumOp sum) {
  auto resultType = cast<RankedTensorType>(sum.getType());
  if (!isa<FloatType>(resultType.getElementType()) ||
      hasSymbolicShape(sum.getSrc().getType()))
    return std::nullopt;
  OnlineSoftmaxMatch m;
  m.sum = sum;
  SmallVector<Value> outer = factorsOf(throughFloatCasts(sum.getSrc()));
  // The one factor that is p, and p's axes J that o's axes walk.
  std::optional<size_t> probsAt;
  for (auto [i, factor] : llvm::enumerate(outer)) {
    Value f = throughFloatCasts(factor);
    ViewOp view = f.getDefiningOp<ViewOp>();
    Value p = view ? throughFloatCasts(view.getSrc()) : f;
    if (!p.getDefiningOp<MulOp>())
      continue;
    SmallVector<int64_t> axes;
    if (view) {
      std::optional<SmallVector<int64_t>> from = viewAxisSources(view);
      if (!from)
        continue;
      for (int64_t a : sum.getAxes())
        axes.push_back((*from)[size_t(a)]);
      if (llvm::is_contained(axes, -1))
        continue;
      llvm::sort(axes);
    } else {
      axes.assign(sum.getAxes().begin(), sum.getAxes().end());
    }
    // p's factors: the shifted exponential, its normalization and others.
    OnlineSoftmaxMatch trial = m;
    SmallVector<Value> inner;
    Value norm;
    for (Value g : factorsOf(p)) {
      if (!trial.exp && matchShiftedExp(g, axes, trial))
        continue;
      inner.push_back(g);
    }
    if (!trial.exp)
      continue;
    for (Value &g : inner) {
      auto recip = g.getDefiningOp<RecipOp>();
      if (!recip)
        continue;
      ReduceSumOp l = broadcastReduce<ReduceSumOp>(recip.getSrc());
      if (!l || l.getSrc() != trial.exp.getResult() ||
          l.getAxes() != ArrayRef<int64_t>(axes))
        continue;
      trial.norm = l;
      norm = g;
      break;
    }
    if (!trial.norm)
      continue;
    if (probsAt)
      return std::nullopt; // p read twice: not this form
    llvm::erase(inner, norm);
    trial.innerFactors = std::move(inner);
    trial.probsView = view;
    trial.probs = p;
    probsAt = i;
    m = std::move(trial);
  }
  if (!probsAt)
    return std::nullopt;
  for (auto [i, factor] : llvm::enumerate(outer))
    if (i != *probsAt)
      m.outerFactors.push_back(factor);
  SmallVector<Operation *> shifted = {m.max, m.norm, m.exp};
  for (Value f : llvm::concat<Value>(m.outerFactors, m.innerFactors))
    if (reachesAny(f, shifted))
      return std::nullopt;
  return m;
}

namespace {

/// Whether `v` is the const -inf, read directly or through a view without
/// a mask.
bool isNegInfConst(Value v) {
  if (auto view = v.getDefiningOp<ViewOp>()) {
    if (view.getTracker().isSymbolic() ||
        llvm::any_of(view.getTracker().getTracker().views,
                     [](const ::lazy::st::View &w) { return bool(w.mask); }))
      return false;
    v = view.getSrc();
  }
  auto c = v.getDefiningOp<ConstOp>();
  if (!c)
    return false;
  Attribute value = c.getValue();
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (!dense.isSplat())
      return false;
    value = dense.getSplatValue<Attribute>();
  }
  auto f = dyn_cast<FloatAttr>(value);
  return f && f.getValue().isInfinity() && f.getValue().isNegative();
}

/// For each axis of `view`'s source, the scores axis its index is, given
/// `axes` for the view's own axes (-1: an axis of one element); none
/// where the view does more than expand and reorder (viewAxisSources).
std::optional<SmallVector<int64_t>> sourceScoresAxes(ViewOp view,
                                                     ArrayRef<int64_t> axes) {
  std::optional<SmallVector<int64_t>> sources = viewAxisSources(view);
  if (!sources)
    return std::nullopt;
  int64_t srcRank = cast<RankedTensorType>(view.getSrc().getType()).getRank();
  SmallVector<int64_t> srcAxes(size_t(srcRank), -1);
  for (auto [e, d] : llvm::enumerate(*sources))
    if (d >= 0)
      srcAxes[size_t(d)] = axes[e];
  return srcAxes;
}

/// Whether `v` reads no load (kMaxMaskOps ops at most): an index function
/// (an arange is a reduce of a const view, which lowers in closed form).
bool indexOnly(Value v) {
  return walkOperands(v, kMaxMaskOps, [](Operation *op) {
    return isa<LoadOp, SoftmaxSumOp>(op) || op->getNumRegions() != 0
               ? OperandWalk::Stop
               : OperandWalk::Descend;
  });
}

/// Whether `v` is cheap ahead of the scores (kMaxMaskOps ops at most, no
/// reduce but of an index function: loads, consts, aranges and
/// elementwise ops), and whether it can be -inf: it reads a -inf const or
/// a float load.
std::pair<bool, bool> cheapAndMaybeNegInf(Value v) {
  bool negInf = false;
  bool cheap = walkOperands(v, kMaxMaskOps, [&](Operation *op) {
    if (isa<SoftmaxSumOp>(op) || op->getNumRegions() != 0)
      return OperandWalk::Stop;
    if (isa<ReduceSumOp, ReduceMaxOp>(op))
      return indexOnly(op->getOperand(0)) ? OperandWalk::Skip
                                          : OperandWalk::Stop;
    if (isa<LoadOp>(op) &&
        isa<FloatType>(getElementTypeOrSelf(op->getResult(0).getType())))
      negInf = true;
    if (isa<ConstOp>(op) && isNegInfConst(op->getResult(0)))
      negInf = true;
    return OperandWalk::Descend;
  });
  return {cheap, cheap && negInf};
}

} // namespace

SmallVector<ScoreMask> mlir::lazy::scoreMasksOf(Value scores) {
  SmallVector<ScoreMask> masks;
  int64_t rank = cast<RankedTensorType>(scores.getType()).getRank();
  SmallVector<int64_t> identity = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  SmallVector<std::pair<Value, SmallVector<int64_t>>> stack = {
      {scores, identity}};
  for (size_t steps = 0; !stack.empty() && steps < kMaxMaskOps; ++steps) {
    auto [v, axes] = stack.pop_back_val();
    v = throughFloatCasts(v);
    if (!isa<FloatType>(getElementTypeOrSelf(v.getType())))
      continue;
    auto [cheap, maybeNegInf] = cheapAndMaybeNegInf(v);
    if (cheap) {
      if (maybeNegInf)
        masks.push_back({v, false, false, axes});
      continue;
    }
    if (auto add = v.getDefiningOp<AddOp>()) {
      stack.push_back({add.getRhs(), axes});
      stack.push_back({add.getLhs(), axes});
    } else if (auto mul = v.getDefiningOp<MulOp>()) {
      for (auto [c, x] : {std::pair(mul.getRhs(), mul.getLhs()),
                          std::pair(mul.getLhs(), mul.getRhs())}) {
        std::optional<double> factor = constFloat(c);
        if (factor && *factor > 0 && std::isfinite(*factor)) {
          stack.push_back({x, axes});
          break;
        }
      }
    } else if (auto where = v.getDefiningOp<WhereOp>()) {
      if (!cheapAndMaybeNegInf(where.getCondition()).first)
        continue;
      for (auto [negInf, x, when] :
           {std::tuple(where.getFalseValue(), where.getTrueValue(), false),
            std::tuple(where.getTrueValue(), where.getFalseValue(), true)}) {
        if (isNegInfConst(negInf)) {
          masks.push_back({where.getCondition(), true, when, axes});
          stack.push_back({x, axes});
          break;
        }
      }
    } else if (auto view = v.getDefiningOp<ViewOp>()) {
      if (std::optional<SmallVector<int64_t>> srcAxes =
              sourceScoresAxes(view, axes))
        stack.push_back({view.getSrc(), std::move(*srcAxes)});
    }
  }
  return masks;
}

std::optional<ScoresDotProduct> mlir::lazy::scoresDotProductOf(Value scores) {
  std::optional<ScoresDotProduct> found;
  int64_t rank = cast<RankedTensorType>(scores.getType()).getRank();
  SmallVector<std::pair<Value, SmallVector<int64_t>>> stack = {
      {scores, llvm::to_vector(llvm::seq<int64_t>(0, rank))}};
  for (size_t steps = 0; !stack.empty(); ++steps) {
    if (steps == kMaxMaskOps)
      return std::nullopt;
    auto [v, axes] = stack.pop_back_val();
    Operation *op = v.getDefiningOp();
    // Arguments and cheap values (loads, consts, index functions and
    // elementwise ops of them: masks, biases): no dot product.
    if (!op || cheapAndMaybeNegInf(v).first)
      continue;
    if (auto sum = dyn_cast<ReduceSumOp>(op)) {
      if (found && (found->reduce != sum || found->scoresAxis != axes))
        return std::nullopt;
      found = ScoresDotProduct{sum, axes};
      continue;
    }
    if (isa<ReduceMaxOp, SoftmaxSumOp>(op) || op->getNumRegions() != 0)
      return std::nullopt;
    if (auto view = dyn_cast<ViewOp>(op)) {
      std::optional<SmallVector<int64_t>> srcAxes =
          sourceScoresAxes(view, axes);
      if (!srcAxes)
        return std::nullopt;
      stack.push_back({view.getSrc(), std::move(*srcAxes)});
      continue;
    }
    // Elementwise: every operand at the same index.
    for (Value operand : op->getOperands())
      stack.push_back({operand, axes});
  }
  return found;
}
