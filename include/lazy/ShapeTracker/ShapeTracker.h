//===- ShapeTracker.h - A stack of views over one buffer --------*- C++ -*-===//
//
// Part of lazy-mlir. Plain C++17, no MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//
//
// A ShapeTracker is a list of Views, innermost first. Each view indexes into
// the (flattened) shape of the view before it; the first view indexes the
// buffer. Movement ops only touch the last (outermost) view, except reshape,
// which appends a fresh view when the last one cannot absorb it. Semantics
// match tinygrad 0.9.2's ShapeTracker for integer shapes.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_SHAPETRACKER_SHAPETRACKER_H
#define LAZY_SHAPETRACKER_SHAPETRACKER_H

#include "lazy/ShapeTracker/View.h"

namespace lazy::st {

/// `sum_d coeffs[d] * idx[d] + constant < 0` over a tracker's multi-index.
struct AffineCondition {
  std::vector<int64_t> coeffs;
  int64_t constant = 0;
};

struct ShapeTracker {
  /// Innermost first; views.back() determines shape(). Never empty for a
  /// tracker built through fromShape and the ops below.
  std::vector<View> views;

  static ShapeTracker fromShape(const std::vector<int64_t> &shape);

  const std::vector<int64_t> &shape() const;
  int64_t size() const;
  /// One view, and that view is the identity of its shape.
  bool contiguous() const;
  /// One unmasked view with row-major strides (any offset).
  bool consecutive() const;
  /// Some view has a mask: reading through it yields 0 somewhere (a pad).
  bool masked() const;

  // Movement ops; preconditions are the matching check* functions applied to
  // shape().
  ShapeTracker reshape(const std::vector<int64_t> &newShape) const;
  ShapeTracker pad(const Mask &arg) const;
  ShapeTracker shrink(const Mask &arg) const;
  ShapeTracker expand(const std::vector<int64_t> &newShape) const;
  ShapeTracker permute(const std::vector<int64_t> &axes) const;
  ShapeTracker stride(const std::vector<int64_t> &mul) const;

  /// Composition: `other` indexes into this tracker's shape. Views are
  /// appended one at a time, simplifying after each.
  ShapeTracker operator+(const ShapeTracker &other) const;
  /// Merge the last two views while that is representable.
  ShapeTracker simplify() const;

  /// Per-dim stride of the index expression; nullopt where the dim does not
  /// appear as a plain multiple of its index (or, unless ignoreValid, where
  /// the dim takes part in the validity expression). Mirrors tinygrad's
  /// real_strides, which reads them off its simplified symbolic expression.
  std::vector<std::optional<int64_t>>
  realStrides(bool ignoreValid = false) const;
  /// The validity of an element as the conjunction of affine conditions on
  /// its multi-index, read off tinygrad's simplified validity expression
  /// (as realStrides reads strides); empty when every element is valid.
  /// Where the simplified expression keeps a division or remainder, a
  /// tracker of two views whose inner mask reads a remainder of the outer
  /// flat index that stays within one run of its period (tinygrad's tril)
  /// is derived from the views; otherwise nullopt. Lowerings use it to
  /// count the valid elements along an axis in closed form (a fused
  /// arange) and to test masks in vector lanes.
  std::optional<std::vector<AffineCondition>> affineValidity() const;
  /// Dims whose real stride is exactly 1.
  std::vector<int64_t> unitStrideAxes(bool ignoreValid = false) const;
  /// Whether every run of `width` elements along `axis` that starts at a
  /// multiple of `width` reads `width` consecutive buffer elements and is
  /// valid or invalid as a whole, through every view: a vector of lanes
  /// there is one load. Sufficient, not necessary: in each view the run
  /// follows one dim of stride 1 whose size and mask bounds are multiples
  /// of `width`, and reaches the view below aligned (offset and the other
  /// dims' strides multiples of `width`) along its innermost dim of more
  /// than one element, whose size `width` divides. This holds where
  /// realStrides has no stride: a reshaped transpose (heads merged back)
  /// read along its merged axis.
  bool contiguousRuns(size_t axis, int64_t width) const;

  /// Inverse tracker mapping back onto `outShape`, or nullopt.
  std::optional<ShapeTracker>
  invert(const std::vector<int64_t> &outShape) const;

  /// Buffer index and validity of the element at multi-index `idx` (which
  /// must lie inside shape()). Evaluated exactly like tinygrad's expr_idxs
  /// with constant indices: once an outer view is invalid, the result is
  /// (-1, false) without consulting inner views. For many elements of one
  /// tracker, ElementIndexer does the same without allocating per element.
  std::pair<int64_t, bool> indexAndValid(const std::vector<int64_t> &idx) const;

  bool operator==(const ShapeTracker &o) const { return views == o.views; }
  bool operator!=(const ShapeTracker &o) const { return !(*this == o); }

  /// "ST[" + view strs joined by ", " + "]".
  std::string str() const;
};

/// Hash consistent with operator== (for (node, tracker) memo tables).
std::size_t hashValue(const View &view);
std::size_t hashValue(const ShapeTracker &tracker);

} // namespace lazy::st

#endif // LAZY_SHAPETRACKER_SHAPETRACKER_H
