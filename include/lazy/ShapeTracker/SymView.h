//===- SymView.h - Views and ShapeTrackers over symbolic ints ---*- C++ -*-===//
//
// Part of lazy-mlir. Plain C++17, no MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//
//
// tinygrad 0.9.2's View and ShapeTracker with `sint` entries: shapes,
// strides, offsets and masks may hold symbolic expressions over bounded
// (and usually bound) Variables, as in a kv-cache of `start_pos + 1` rows.
//
// The integer View/ShapeTracker (View.h, ShapeTracker.h) stay the fast path
// every pass uses on concrete graphs. Both are written once: the rules live
// in lib/ShapeTracker/ViewAlgebra.h over a dimension policy, int64_t for
// View and SInt (Symbolic.h) for SymView. A SymView whose entries are all
// plain ints takes the integer View (converting in and out), which is
// faster. Where tinygrad raises (a ValueError or assertion on a symbolic
// reshape, a failed bound), the operations throw sym::Error.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_SHAPETRACKER_SYMVIEW_H
#define LAZY_SHAPETRACKER_SYMVIEW_H

#include "lazy/ShapeTracker/ShapeTracker.h"
#include "lazy/ShapeTracker/Symbolic.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace lazy::st {

using sym::SInt;
using SymShape = std::vector<SInt>;
using SymMask = std::vector<std::pair<SInt, SInt>>;

/// Values of Variables, keyed by the unbound Variable's key (`x[1-8]`).
using VarVals = std::map<std::string, int64_t>;

struct SymView {
  SymShape shape, strides;
  SInt offset;
  std::optional<SymMask> mask;
  bool contiguous = true;

  /// tinygrad's View.create: canonicalizes (see View::create).
  static SymView create(SymShape shape,
                        std::optional<SymShape> strides = std::nullopt,
                        SInt offset = 0,
                        std::optional<SymMask> mask = std::nullopt);
  static SymView fromView(const View &v);
  /// The integer view, when every entry is a plain int.
  std::optional<View> toView() const;
  /// Every entry is a plain int (no node, not even a NumNode).
  bool isInt() const;

  std::optional<SymView> reshape(const SymShape &newShape) const;
  SymView pad(const SymMask &arg) const;
  SymView shrink(const SymMask &arg) const;
  SymView expand(const SymShape &newShape) const;
  SymView permute(const std::vector<int64_t> &axes) const;
  SymView stride(const std::vector<int64_t> &mul) const;
  /// View.__add__: `*this` is the earlier view, `later` indexes into it.
  std::optional<SymView> operator+(const SymView &later) const;
  std::optional<SymView> invert(const SymShape &outShape) const;
  SymView minify() const;

  /// Product of the dims, each at its largest value.
  int64_t size() const;
  /// The Variables of every entry, by key.
  std::map<std::string, sym::NodeP> vars() const;
  /// Every bound Variable replaced by its unbound twin (re-canonicalized),
  /// and the values they were bound to.
  std::pair<SymView, VarVals> unbind() const;
  /// Variables (by key) replaced by the mapped nodes, re-canonicalized.
  SymView substitute(const std::map<std::string, sym::NodeP> &map) const;
  /// Index and validity expressions over per-dim index nodes.
  std::pair<sym::NodeP, sym::NodeP>
  expr(const std::vector<sym::NodeP> &idxs,
       const sym::NodeP &valid = nullptr) const;

  /// Python `==` on the fields (a NumNode equals its int).
  bool operator==(const SymView &o) const;
  bool operator!=(const SymView &o) const { return !(*this == o); }
  /// `V(shape=(2,(1+start_pos)), ...)`, with the plain rendering of nodes.
  std::string str() const;
};

struct SymShapeTracker {
  /// Innermost first, as in ShapeTracker.
  std::vector<SymView> views;

  static SymShapeTracker fromShape(const SymShape &shape);
  static SymShapeTracker fromTracker(const ShapeTracker &tracker);
  std::optional<ShapeTracker> toTracker() const;
  bool isInt() const;

  const SymShape &shape() const { return views.back().shape; }
  int64_t size() const { return views.back().size(); }
  bool contiguous() const;
  bool consecutive() const;

  SymShapeTracker reshape(const SymShape &newShape) const;
  SymShapeTracker pad(const SymMask &arg) const;
  SymShapeTracker shrink(const SymMask &arg) const;
  SymShapeTracker expand(const SymShape &newShape) const;
  SymShapeTracker permute(const std::vector<int64_t> &axes) const;
  SymShapeTracker stride(const std::vector<int64_t> &mul) const;
  SymShapeTracker operator+(const SymShapeTracker &other) const;
  SymShapeTracker simplify() const;
  std::optional<SymShapeTracker> invert(const SymShape &outShape) const;

  std::map<std::string, sym::NodeP> vars() const;
  /// `var_vals`: the bound value of each Variable, by unbound key; throws
  /// when a Variable is unbound or bound to two values.
  VarVals varVals() const;
  std::pair<SymShapeTracker, VarVals> unbind() const;
  SymShapeTracker
  substitute(const std::map<std::string, sym::NodeP> &map) const;
  /// tinygrad's expr_idxs over `idx<i>` Variables.
  std::pair<sym::NodeP, sym::NodeP> exprIdxs() const;
  /// tinygrad's expr_idxs at the given index nodes (one per dim, bounded
  /// as the caller knows them: tinygrad's algebra simplifies with the
  /// bounds); no int32 range check.
  std::pair<sym::NodeP, sym::NodeP>
  exprAt(const std::vector<sym::NodeP> &idxs) const;
  /// tinygrad's real_strides; nullopt entries where it gives None.
  std::vector<std::optional<SInt>> realStrides(bool ignoreValid = false) const;

  bool operator==(const SymShapeTracker &o) const { return views == o.views; }
  bool operator!=(const SymShapeTracker &o) const { return !(*this == o); }
  std::string str() const;
};

/// Python `==` on tuples of sints.
bool symEqual(const SymShape &a, const SymShape &b);

/// Hash consistent with operator== (views hold no NumNode entries).
std::size_t hashValue(const SymShapeTracker &tracker);

// Non-throwing queries for code built without exceptions (the scheduler's
// passes): where tinygrad's own computation would raise, they answer as
// documented instead.

/// tinygrad's `prod(a) < prod(b)` and `prod(a) >= prod(b)` on sints: true
/// when it may be true; false when a product overflows.
bool prodMayBeLess(const SymShape &a, const SymShape &b) noexcept;
bool prodMayBeGreaterEq(const SymShape &a, const SymShape &b) noexcept;
/// tinygrad's _view test for a view that reads nothing: a size of 0, or an
/// outermost mask range of extent 0 (false where tinygrad would raise).
bool readsNothing(const SymShapeTracker &tracker) noexcept;
/// The extents `end - begin` of a mask.
SymShape maskExtents(const SymMask &mask) noexcept;
/// The test for the self operand of an augmented assign: contiguous, or
/// one masked view equal to the identity inside its mask; false where
/// tinygrad would raise.
bool isIdentityLike(const SymShapeTracker &tracker) noexcept;
/// tracker.unbind(), or the tracker itself and no values when some
/// Variable is not bound.
std::pair<SymShapeTracker, VarVals>
unbindOrKeep(const SymShapeTracker &tracker) noexcept;
/// a + b (`b` indexes into a's shape), or nullopt where tinygrad raises.
std::optional<SymShapeTracker> composeOrNull(const SymShapeTracker &a,
                                             const SymShapeTracker &b) noexcept;
/// The shape with every bound Variable unbound (dims unchanged where a
/// Variable is unbound).
SymShape unbindShape(const SymShape &shape) noexcept;
/// The integer tracker at the given values of its Variables, by name
/// (tinygrad's substitute, then every view re-created), or nullopt where
/// a Variable has no value or tinygrad would raise.
std::optional<ShapeTracker>
trackerAt(const SymShapeTracker &tracker,
          const std::map<std::string, int64_t> &valuesByName) noexcept;
/// The rendering of an unbound Variable's key (`start_pos[1-8]`) in the
/// dialect's syntax (`start_pos[1:8]`).
std::string variableText(const std::string &key);

} // namespace lazy::st

#endif // LAZY_SHAPETRACKER_SYMVIEW_H
