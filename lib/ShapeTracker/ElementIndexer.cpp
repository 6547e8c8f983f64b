//===- ElementIndexer.cpp - a tracker's index function, precomputed -------===//
//
// Evaluated like tinygrad's expr_idxs with constant indices: the outermost
// view maps the multi-index to an index into the view before it; each inner
// view unravels that flat index over its (minified) shape and maps it on.
// Once a view finds the element invalid, inner views are not consulted and
// the result is (-1, false).
//
//===----------------------------------------------------------------------===//

#include "lazy/ShapeTracker/ElementIndexer.h"

#include "Arith.h"

using namespace lazy::st;
using detail::floorDiv;
using detail::floorMod;

ElementIndexer::ElementIndexer(const ShapeTracker &tracker) {
  levels.reserve(tracker.views.size());
  for (size_t vi = tracker.views.size(); vi-- > 0;) {
    bool outermost = vi + 1 == tracker.views.size();
    // Minifying keeps the index function and drops dims an inner view's
    // unravelling would only split again.
    View view = outermost ? tracker.views[vi] : tracker.views[vi].minify();
    Level level{view.offset, view.mask.has_value(), false, dims.size(),
                view.shape.size()};
    for (size_t d = 0; d < view.shape.size(); ++d) {
      int64_t size = view.shape[d];
      level.empty = level.empty || size == 0;
      auto [begin, end] =
          view.mask ? (*view.mask)[d] : std::pair<int64_t, int64_t>{0, size};
      dims.push_back({size, view.strides[d], begin, end});
    }
    levels.push_back(level);
  }
}

std::pair<int64_t, bool> ElementIndexer::operator()(const int64_t *idx) const {
  const Level &outer = levels.front();
  int64_t index = outer.offset;
  bool valid = true;
  for (size_t d = 0; d < outer.rank; ++d) {
    const Dim &dim = dims[outer.firstDim + d];
    index += idx[d] * dim.stride;
    if (outer.masked)
      valid = valid && idx[d] >= dim.begin && idx[d] < dim.end;
  }
  for (size_t l = 1; l < levels.size(); ++l) {
    const Level &level = levels[l];
    if (!valid || level.empty)
      return {-1, false};
    int64_t flat = index, next = level.offset;
    // Unravel row-major: the last dim varies fastest.
    for (size_t d = level.rank; d-- > 0;) {
      const Dim &dim = dims[level.firstDim + d];
      int64_t i = floorMod(flat, dim.size);
      flat = floorDiv(flat, dim.size);
      next += i * dim.stride;
      if (level.masked)
        valid = valid && i >= dim.begin && i < dim.end;
    }
    index = next;
  }
  return {index, valid};
}
