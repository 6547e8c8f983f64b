//===- View.h - A single strided, masked view of a buffer -------*- C++ -*-===//
//
// Part of lazy-mlir. Plain C++17, no MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//
//
// A View maps a multi-index over `shape` to a linear buffer position
// `offset + sum(idx[i] * strides[i])`, and optionally restricts validity to
// the box `mask` (elements outside read as "invalid", i.e. padding).
//
// The algebra follows tinygrad 0.9.2's View exactly (integer shapes only):
// every constructor goes through View::create, which canonicalizes, so two
// views that tinygrad would consider equal compare equal here. The rules
// are written once, for this View and for SymView, in
// lib/ShapeTracker/ViewAlgebra.h.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_SHAPETRACKER_VIEW_H
#define LAZY_SHAPETRACKER_VIEW_H

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lazy::st {

/// One half-open [begin, end) range per dimension.
using Mask = std::vector<std::pair<int64_t, int64_t>>;

/// Row-major strides for `shape`; dimensions of size 1 get stride 0.
std::vector<int64_t> stridesForShape(const std::vector<int64_t> &shape);

/// Product of all entries (1 for an empty vector).
int64_t prod(const std::vector<int64_t> &v);

struct View {
  std::vector<int64_t> shape, strides;
  int64_t offset = 0;
  std::optional<Mask> mask;
  bool contiguous = true;

  /// Canonicalizing constructor (tinygrad's View.create). `strides` defaults
  /// to the row-major strides of `shape`. Shapes must be non-negative and all
  /// vectors must have the rank of `shape`.
  static View create(std::vector<int64_t> shape,
                     std::optional<std::vector<int64_t>> strides = std::nullopt,
                     int64_t offset = 0,
                     std::optional<Mask> mask = std::nullopt);

  /// Reshape in place if representable as a single view, else nullopt.
  /// Preconditions: see checkReshape.
  std::optional<View> reshape(const std::vector<int64_t> &newShape) const;
  /// Zero-pad each dim by (before, after). Preconditions: see checkPad.
  View pad(const Mask &arg) const;
  /// Keep [begin, end) of each dim. Preconditions: see checkShrink.
  View shrink(const Mask &arg) const;
  /// Broadcast size-1 dims. Preconditions: see checkExpand.
  View expand(const std::vector<int64_t> &newShape) const;
  /// Reorder dims: result dim i is input dim axes[i].
  View permute(const std::vector<int64_t> &axes) const;
  /// Take every mul[i]-th element; a negative value also flips the dim.
  View stride(const std::vector<int64_t> &mul) const;

  /// tinygrad's View.__add__: `*this` is the earlier (inner) view, `later`
  /// indexes into this view's shape. nullopt if the composition is not
  /// representable as one view.
  std::optional<View> operator+(const View &later) const;

  /// Inverse of a permute/flip/shrink-only view onto `outShape`; nullopt if
  /// the view also expands or strides.
  std::optional<View> invert(const std::vector<int64_t> &outShape) const;

  /// Same view with mergeable dimensions merged (fewest dims).
  View minify() const;

  /// Product of shape.
  int64_t size() const;

  bool operator==(const View &o) const;
  bool operator!=(const View &o) const { return !(*this == o); }

  /// Renders as `V(shape=(2,3), strides=(3,1), offset=0, mask=None,
  /// contiguous=True)`; masks render as `((0,2),(1,3))`. Tuples of one
  /// element carry a trailing comma like Python's, e.g. `(4,)`.
  std::string str() const;
};

// Argument validation for the View/ShapeTracker movement ops. Each returns
// "" if the op may be applied to a view of `shape`, otherwise a reason. Ops
// applied to arguments that passed these checks never throw or abort.
std::string checkReshape(const std::vector<int64_t> &shape,
                         const std::vector<int64_t> &newShape);
std::string checkPad(const std::vector<int64_t> &shape, const Mask &arg);
std::string checkShrink(const std::vector<int64_t> &shape, const Mask &arg);
std::string checkExpand(const std::vector<int64_t> &shape,
                        const std::vector<int64_t> &newShape);
std::string checkPermute(const std::vector<int64_t> &shape,
                         const std::vector<int64_t> &axes);
std::string checkStride(const std::vector<int64_t> &shape,
                        const std::vector<int64_t> &mul);
/// Validates the fields of a view built by hand (e.g. parsed from an
/// attribute): equal ranks, non-negative shape, mask ranges within
/// [0, dim]. Views passing this may be used with every View operation whose
/// own argument check passes.
std::string checkView(const std::vector<int64_t> &shape,
                      const std::vector<int64_t> &strides,
                      const std::optional<Mask> &mask);

} // namespace lazy::st

#endif // LAZY_SHAPETRACKER_VIEW_H
