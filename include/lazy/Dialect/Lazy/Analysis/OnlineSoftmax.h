//===- OnlineSoftmax.h - a softmax-weighted sum over lazy ops ---*- C++ -*-===//
//
// Recognizes, over lazy ops (a graph function's or a kernel body's: both
// are lazy ops reading each other through lazy.view), a weighted sum of
// softmax probabilities along the sum's own axes:
//
//   m = reduce_max(x)                      over J
//   e = exp2(c * (x - view(m)))            (c > 0, 1 when absent)
//   l = reduce_sum(e)                      over J
//   p = e * recip(view(l)) * F             (F: more factors)
//   o = reduce_sum(view(p) * G)            over the axes V maps onto J
//
// where the views of m and l broadcast them back along J, V (optional)
// only expands and reorders p's axes, and the factors F and G read none of
// m, l and e. Which x (scores plus any additive mask, bias or soft cap), F
// and G is open: the rule is the algebra of the rescaled sum, not one
// model's graph. A float cast over p or over view(p) is looked through.
// lazy-online-softmax (Transforms/OnlineSoftmax.cpp) rewrites a match into
// one lazy.softmax_sum; fusion=aggressive (AggressiveFusion.cpp, rule 6)
// forms the kernel that holds it.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_ANALYSIS_ONLINESOFTMAX_H
#define LAZY_DIALECT_LAZY_ANALYSIS_ONLINESOFTMAX_H

#include "lazy/Dialect/Lazy/IR/LazyOps.h"

#include <optional>

namespace mlir::lazy {

struct OnlineSoftmaxMatch {
  /// The weighted sum o.
  ReduceSumOp sum;
  /// V, the view reading p at o's input shape; null when o reads p at its
  /// own shape.
  ViewOp probsView;
  /// p, at its own shape.
  Value probs;
  /// x, at p's shape.
  Value scores;
  /// c.
  double scale = 1.0;
  ReduceMaxOp max;
  ReduceSumOp norm;
  Exp2Op exp;
  /// The factors of o's input other than the probabilities (G, at o's
  /// input shape) and of p other than e and recip(view(l)) (F, at p's
  /// shape).
  SmallVector<Value> outerFactors, innerFactors;
};

/// The match rooted at `sum`, if it is one.
std::optional<OnlineSoftmaxMatch> matchOnlineSoftmax(ReduceSumOp sum);

/// A part of softmax scores that masks them: where it says so, the score
/// is -inf (taken as -inf whatever its other terms, as block-skipping
/// attention kernels do: a NaN or +inf they would add is not seen).
struct ScoreMask {
  /// A float term of the scores' sum, masking where it is -inf; or, with
  /// `isCondition`, the i1 condition c of where(c, x, -inf) (masking where
  /// false) or of where(c, -inf, x) (`maskedWhen`: where true).
  Value value;
  bool isCondition = false;
  bool maskedWhen = false;
  /// For each axis of `value`, the scores axis its index is (-1: an axis
  /// of one element, index 0).
  SmallVector<int64_t> scoresAxis;
};

/// The masks of `scores` (softmax scores, as a lazy.softmax_sum reads
/// them). Rules:
///   - the scores are walked through sums (add), products by a positive
///     const, float casts and views that only expand and reorder
///     (viewAxisSources), whose index maps are composed;
///   - a term whose value is cheap (loads, consts, elementwise ops and
///     reduces that read no load: aranges; at most kMaxMaskOps ops) and
///     can be -inf (it reads a -inf const or a float load) is a mask;
///   - where(c, x, -inf) and where(c, -inf, x) with such a c mask by c,
///     and their x is walked on.
/// A mask is cheap to compute ahead of the scores, so that a block of keys
/// all masked skips them.
SmallVector<ScoreMask> scoreMasksOf(Value scores);
constexpr size_t kMaxMaskOps = 256;

/// The dot product softmax scores are computed from (attention's q . k).
struct ScoresDotProduct {
  ReduceSumOp reduce;
  /// For each axis of the reduce's result, the scores axis its index is
  /// (-1: an axis of one element, index 0).
  SmallVector<int64_t> scoresAxis;
};

/// The one reduce_sum `scores` read that is not an index function (an
/// arange), walked through elementwise ops and views that only expand and
/// reorder (viewAxisSources, their index maps composed), every path to it
/// with the same index map; cheap values (scoreMasksOf's: loads, consts,
/// aranges) are not walked. None where there is another reduce, a view
/// that does not only expand and reorder over a value that is not cheap,
/// or more than kMaxMaskOps ops. A tensor-core kernel computes the reduce
/// and evaluates the rest of the scores around its result.
std::optional<ScoresDotProduct> scoresDotProductOf(Value scores);

} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_ANALYSIS_ONLINESOFTMAX_H
