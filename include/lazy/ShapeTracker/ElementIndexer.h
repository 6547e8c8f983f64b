//===- ElementIndexer.h - a tracker's index function, precomputed -*- C++
//-*-===//
//
// Part of lazy-mlir. Plain C++17, no MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//
//
// ShapeTracker::indexAndValid for many elements of one tracker: the inner
// views are minified once, and evaluating an element allocates nothing. The
// reference interpreter and lazy-run read whole tensors through views with
// it (one call per element).
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_SHAPETRACKER_ELEMENTINDEXER_H
#define LAZY_SHAPETRACKER_ELEMENTINDEXER_H

#include "lazy/ShapeTracker/ShapeTracker.h"

namespace lazy::st {

class ElementIndexer {
public:
  explicit ElementIndexer(const ShapeTracker &tracker);

  /// Buffer index and validity of the element at multi-index `idx` (rank of
  /// the tracker's shape, inside it); the same result as
  /// ShapeTracker::indexAndValid.
  std::pair<int64_t, bool> operator()(const int64_t *idx) const;

private:
  struct Dim {
    int64_t size, stride;
    /// The mask's half-open range, or [0, size) for an unmasked view.
    int64_t begin, end;
  };
  struct Level {
    int64_t offset;
    bool masked;
    /// Has a dimension of size 0: nothing reaching it is valid.
    bool empty;
    /// This level's dims are dims[firstDim, firstDim + rank).
    size_t firstDim, rank;
  };
  /// Outermost (the tracker's last view, as written) first, then the inner
  /// views minified.
  std::vector<Level> levels;
  std::vector<Dim> dims;
};

} // namespace lazy::st

#endif // LAZY_SHAPETRACKER_ELEMENTINDEXER_H
