//===- ViewAlgebra.h - tinygrad's View algebra, written once ----*- C++ -*-===//
//
// Part of lazy-mlir. Private to lib/ShapeTracker.
//
//===----------------------------------------------------------------------===//
//
// The rules of tinygrad 0.9.2's View (canonicalization, reshape, pad,
// shrink, expand, permute, stride, composition, inversion), written once
// over a dimension policy `D`. Two policies instantiate them:
//
//  * IntDims (View.cpp): plain int64_t, for View, the fast path every pass
//    uses on concrete graphs;
//  * SymDims (SymView.cpp): tinygrad's `sint` (sym::SInt), for SymView,
//    where each Python comparison is "true when it may be true".
//
// A policy provides the dimension type and the Python operations the rules
// use on it:
//
//   using Dim; using ViewT;               the entry type and its view
//   eq(a, b)                              Python `a == b`
//   mayLt(a, b), mayLe, mayGt, mayGe      `bool(a < b)` etc.
//   nonzero(a)                            `bool(a)`
//   floorDiv(a, b), floorMod(a, b)        `a // b`, `a % b`
//   max(a, b), min(a, b)                  Python's builtin max/min
//   mul(a, b)                             a product of dims
//   canonical(a)                          the stored form of an entry
//   asInt(a)                              the plain int, if `a` is one
//   allInt(mask)                          every mask entry is a plain int
//   render(a)                             the repr of an entry
//   add(vm2, vm1, depth)                  composition (the recursion)
//   BoundsContext(vm1.shape), Bounds      the range of a projected index
//   bounds helpers: see composeViews
//
// Every rule keeps the order of tinygrad's operations (`0 + x0 + x1`,
// `sum + offset`) because symbolic expressions observe it; integers do not.
// The argument checks (View's check* strings, SymView's thrown errors) stay
// with each type: they differ in what they report, not in the algebra.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_LIB_SHAPETRACKER_VIEWALGEBRA_H
#define LAZY_LIB_SHAPETRACKER_VIEWALGEBRA_H

#include "Arith.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace lazy::st::detail {

template <typename D> struct ViewAlgebra {
  using Dim = typename D::Dim;
  using ViewT = typename D::ViewT;
  using Shape = std::vector<Dim>;
  using Range = std::pair<Dim, Dim>;
  using MaskT = std::vector<Range>;

  /// Deepest recursion composition may use. tinygrad itself recurses a
  /// handful of times at most; the cap only guarantees termination.
  static constexpr int kMaxAddDepth = 64;

  //===--------------------------------------------------------------------===//
  // Small helpers
  //===--------------------------------------------------------------------===//

  static bool shapesEqual(const Shape &a, const Shape &b) {
    if (a.size() != b.size())
      return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!D::eq(a[i], b[i]))
        return false;
    return true;
  }

  static bool rangesEqual(const Range &a, const Range &b) {
    return D::eq(a.first, b.first) && D::eq(a.second, b.second);
  }

  static bool masksEqual(const std::optional<MaskT> &a,
                         const std::optional<MaskT> &b) {
    if (!a || !b)
      return !a && !b;
    if (a->size() != b->size())
      return false;
    for (size_t i = 0; i < a->size(); ++i)
      if (!rangesEqual((*a)[i], (*b)[i]))
        return false;
    return true;
  }

  /// Python `0 in xs`.
  static bool containsZero(const Shape &xs) {
    return std::any_of(xs.begin(), xs.end(),
                       [](const Dim &x) { return D::eq(x, 0); });
  }

  /// tinygrad's prod: 1 * x0 * x1 * ...
  static Dim product(const Shape &xs) {
    Dim acc = 1;
    for (const Dim &x : xs)
      acc = D::mul(acc, x);
    return acc;
  }

  /// Zero the stride of every dim of extent 1 (`extent` is the shape or the
  /// mask extents, as the caller needs): its index is always 0.
  static Shape canonicalizeStrides(const Shape &extent, Shape strides) {
    for (size_t i = 0; i < strides.size() && i < extent.size(); ++i)
      if (D::eq(extent[i], 1))
        strides[i] = 0;
    return strides;
  }

  /// Row-major strides; dims of size 1 get stride 0.
  static Shape stridesForShape(const Shape &shape) {
    const size_t n = shape.size();
    Shape strides(n, Dim(0));
    if (n == 0)
      return strides;
    Dim acc = 1;
    strides[n - 1] = D::eq(shape[n - 1], 1) ? Dim(0) : acc;
    for (size_t i = n - 1; i-- > 0;) {
      acc = D::mul(acc, shape[i + 1]);
      strides[i] = D::eq(shape[i], 1) ? Dim(0) : acc;
    }
    return strides;
  }

  static std::string tupleStr(const Shape &v) {
    std::string s = "(";
    for (size_t i = 0; i < v.size(); ++i)
      s += (i ? "," : "") + D::render(v[i]);
    if (v.size() == 1)
      s += ",";
    return s + ")";
  }

  /// `V(shape=(2,3), strides=(3,1), offset=0, mask=None, contiguous=True)`.
  static std::string str(const ViewT &v) {
    std::string m = "None";
    if (v.mask) {
      m = "(";
      for (size_t i = 0; i < v.mask->size(); ++i)
        m += (i ? ",(" : "(") + D::render((*v.mask)[i].first) + "," +
             D::render((*v.mask)[i].second) + ")";
      if (v.mask->size() == 1)
        m += ",";
      m += ")";
    }
    return "V(shape=" + tupleStr(v.shape) + ", strides=" + tupleStr(v.strides) +
           ", offset=" + D::render(v.offset) + ", mask=" + m +
           ", contiguous=" + (v.contiguous ? "True" : "False") + ")";
  }

  //===--------------------------------------------------------------------===//
  // Canonicalization (View.create)
  //===--------------------------------------------------------------------===//

  /// Rules, in order:
  ///  1. strides default to row-major; a dim of size 1 gets stride 0;
  ///  2. a size-0 dim collapses the view to zero strides, offset 0, no
  ///     mask, contiguous: there are no elements to describe;
  ///  3. a mask covering every dim completely is dropped;
  ///  4. a mask dim admitting at most one index gets stride 0, the offset
  ///     absorbing `stride * begin`; if some mask dim is empty, every
  ///     element is invalid: strides 0, offset 0, mask all (0,0);
  ///  5. contiguous iff offset 0, no mask and row-major strides.
  static ViewT create(Shape shape, std::optional<Shape> strides, Dim offset,
                      std::optional<MaskT> mask) {
    ViewT v;
    v.strides = (strides && !strides->empty())
                    ? canonicalizeStrides(shape, std::move(*strides))
                    : stridesForShape(shape);
    v.shape = std::move(shape);
    const size_t n = v.shape.size();
    if (containsZero(v.shape)) {
      v.strides.assign(n, Dim(0));
      v.offset = 0;
      v.mask.reset();
      v.contiguous = true;
      return v;
    }
    if (mask) {
      bool full = true;
      for (size_t i = 0; i < n && full; ++i)
        full = rangesEqual((*mask)[i], {Dim(0), v.shape[i]});
      if (full)
        mask.reset();
    }
    if (mask && !mask->empty()) {
      std::vector<bool> elim(n);
      bool anyElim = false;
      for (size_t i = 0; i < n; ++i) {
        auto &[b, e] = (*mask)[i];
        elim[i] = !D::mayLt(b + Dim(1), e);
        anyElim |= elim[i];
      }
      if (anyElim) {
        bool anyEmpty = false;
        for (auto &[b, e] : *mask)
          anyEmpty |= !D::mayLt(b, e);
        if (anyEmpty) {
          v.strides.assign(n, Dim(0));
          offset = 0;
          mask = MaskT(n, {Dim(0), Dim(0)});
        }
        Dim absorbed = 0;
        for (size_t i = 0; i < n; ++i)
          absorbed =
              absorbed + (elim[i] ? v.strides[i] * (*mask)[i].first : Dim(0));
        offset = offset + absorbed;
        for (size_t i = 0; i < n; ++i)
          if (elim[i])
            v.strides[i] = 0;
      }
    }
    v.offset = D::canonical(offset);
    for (Dim &x : v.strides)
      x = D::canonical(x);
    v.mask = std::move(mask);
    v.contiguous = D::eq(v.offset, 0) && !v.mask &&
                   shapesEqual(v.strides, stridesForShape(v.shape));
    return v;
  }

  //===--------------------------------------------------------------------===//
  // Reshape
  //===--------------------------------------------------------------------===//

  struct Merged {
    Dim size, stride, real;
  };

  /// (merged size, stride, merged size ignoring broadcast dims) per group of
  /// dims that can be merged: either contiguous, or following a dim that
  /// only takes a single (masked or size-1) index.
  static std::vector<Merged> mergeDims(const Shape &shape, const Shape &strides,
                                       const std::optional<MaskT> &mask) {
    std::vector<Merged> ret;
    if (shape.empty())
      return ret;
    auto singleIndex = [&](size_t i) {
      return mask ? D::eq((*mask)[i].second - (*mask)[i].first, 1)
                  : D::eq(shape[i], 1);
    };
    ret.push_back(
        {shape[0], strides[0], D::nonzero(strides[0]) ? shape[0] : Dim(0)});
    bool merging = singleIndex(0);
    for (size_t i = 1; i < shape.size(); ++i) {
      const Dim &s = shape[i], &st = strides[i];
      if (D::eq(s, 1))
        continue;
      Merged &last = ret.back();
      if (merging || D::eq(last.stride, s * st)) {
        Dim real = D::nonzero(st) ? (merging ? s : last.real * s) : Dim(0);
        last = {last.size * s, st, real};
      } else {
        ret.push_back({s, st, D::nonzero(st) ? s : Dim(0)});
      }
      merging = singleIndex(i);
    }
    return ret;
  }

  /// The mask of `oldShape` expressed over `newShape`, or nullopt when the
  /// reshape would cut a masked region into pieces not expressible as a box
  /// (or a mask entry is symbolic).
  static std::optional<MaskT> reshapeMask(const std::optional<MaskT> &mask,
                                          const Shape &oldShape,
                                          const Shape &newShape) {
    if (!mask) {
      MaskT full;
      for (const Dim &s : newShape)
        full.push_back({Dim(0), s});
      return full;
    }
    if (!D::allInt(*mask))
      return std::nullopt;
    const MaskT zeroMask(newShape.size(), {Dim(0), Dim(0)});
    for (auto &[b, e] : *mask)
      if (D::mayLt(e - b, 1))
        return zeroMask;

    // Walk all three sequences from the innermost dim outwards; exhausted
    // sequences continue with neutral size-1 dims.
    size_t remMask = mask->size(), remOld = oldShape.size(),
           remNew = newShape.size();
    auto nextOld = [&]() -> Dim { return remOld ? oldShape[--remOld] : 1; };
    auto nextNew = [&]() -> Dim { return remNew ? newShape[--remNew] : 1; };
    auto nextMask = [&]() -> Range {
      return remMask ? (*mask)[--remMask] : Range{0, 1};
    };

    MaskT newMask;
    Dim currStride = 1, oldDim = nextOld(), newDim = nextNew();
    Range cur = nextMask();
    // Every iteration consumes a new dim or an old dim; once both are used
    // up only size-1 dims remain, so this bound is never reached for valid
    // input.
    size_t budget = 4 * (oldShape.size() + newShape.size()) + 16;
    while (newMask.size() < newShape.size()) {
      if (budget-- == 0)
        return std::nullopt;
      auto [l, r] = cur;
      Dim nextStride = newDim * currStride;
      if (D::eq(nextStride, 0))
        return std::nullopt;
      if (D::mayGe(oldDim, nextStride)) {
        if (D::eq(oldDim, nextStride)) {
          newMask.push_back({D::floorDiv(l, currStride),
                             D::floorDiv(r - Dim(1), currStride) + Dim(1)});
          currStride = 1;
          oldDim = nextOld();
          newDim = nextNew();
          cur = nextMask();
        } else {
          // A split is only possible if the mask does not straddle a
          // boundary of the new inner dim.
          bool cut = (D::nonzero(D::floorMod(l, nextStride)) ||
                      D::nonzero(D::floorMod(r, nextStride))) &&
                     !D::eq(D::floorDiv(l, nextStride),
                            D::floorDiv(r - Dim(1), nextStride));
          if (cut || D::nonzero(D::floorMod(oldDim, nextStride)))
            return std::nullopt;
          newMask.push_back(
              {D::floorDiv(D::floorMod(l, nextStride), currStride),
               D::floorDiv(D::floorMod(r - Dim(1), nextStride), currStride) +
                   Dim(1)});
          currStride = nextStride;
          newDim = nextNew();
        }
      } else {
        // Merge the next old dim in; only possible if the current mask
        // covers its whole dim or the outer mask admits a single index.
        Range next = nextMask();
        if (!rangesEqual(cur, {Dim(0), oldDim}) &&
            !D::eq(next.second - next.first, 1))
          return std::nullopt;
        cur = {next.first * oldDim + l, (next.second - Dim(1)) * oldDim + r};
        oldDim = oldDim * nextOld();
      }
    }
    // Leading old dims left over are size 1; anything but a full mask on
    // them means no element is valid.
    while (remMask)
      if (!rangesEqual(nextMask(), {Dim(0), Dim(1)}))
        return zeroMask;
    std::reverse(newMask.begin(), newMask.end());
    return newMask;
  }

  /// The reshape of a non-contiguous view with elements, after the
  /// caller's checks: merge the dims laid out contiguously (or broadcast),
  /// split them into the requested ones, reshape the mask separately.
  static std::optional<ViewT> reshapeStrided(const ViewT &v,
                                             const Shape &newShape) {
    std::vector<Dim> rstrides; // innermost first
    size_t remNew = newShape.size();
    auto merged = mergeDims(v.shape, v.strides, v.mask);
    for (auto it = merged.rbegin(); it != merged.rend(); ++it) {
      Dim acc = 1, newStride = it->stride;
      while (D::mayLe(acc, it->size) && !D::eq(acc, it->size) && remNew > 0) {
        Dim newDim = newShape[--remNew];
        if (!D::nonzero(newDim))
          break;
        rstrides.push_back(newStride);
        if (!D::eq(newDim, 1)) {
          acc = acc * newDim;
          // Past the non-broadcast extent, the remaining dims broadcast.
          newStride = newStride * (D::mayLt(acc, it->real) ? newDim : Dim(0));
        }
      }
      if (!D::eq(acc, it->size))
        return std::nullopt;
    }
    rstrides.resize(newShape.size(), Dim(0));
    auto newMask = reshapeMask(v.mask, v.shape, newShape);
    if (!newMask)
      return std::nullopt;
    Shape extent, newStrides(rstrides.rbegin(), rstrides.rend());
    for (auto &[b, e] : *newMask)
      extent.push_back(e - b);
    newStrides = canonicalizeStrides(extent, std::move(newStrides));
    Dim before = 0, after = 0;
    if (v.mask)
      for (size_t i = 0; i < v.shape.size(); ++i)
        before = before + (*v.mask)[i].first * v.strides[i];
    for (size_t i = 0; i < newShape.size(); ++i)
      after = after + (*newMask)[i].first * newStrides[i];
    return ViewT::create(newShape, newStrides, v.offset + (before - after),
                         newMask);
  }

  /// The dims of the fewest-dims reshape of `v`.
  static Shape minifiedShape(const ViewT &v) {
    Shape minShape;
    for (auto &m : mergeDims(v.shape, v.strides, v.mask))
      minShape.push_back(m.size);
    return minShape;
  }

  //===--------------------------------------------------------------------===//
  // Movement ops, after the caller's argument checks
  //===--------------------------------------------------------------------===//

  /// Shrink and pad in one: take [arg.first, arg.second) of every dim
  /// (possibly reaching outside the view), intersecting any existing mask
  /// with `mask`.
  static ViewT resize(const ViewT &v, const MaskT &arg,
                      std::optional<MaskT> mask = std::nullopt) {
    Dim offset = 0;
    for (size_t i = 0; i < arg.size(); ++i)
      offset = offset + v.strides[i] * arg[i].first;
    if (v.mask) {
      MaskT moved;
      for (size_t i = 0; i < arg.size(); ++i) {
        auto [mx, my] = (*v.mask)[i];
        auto [ax, ay] = arg[i];
        moved.push_back({D::max(0, D::min(mx - ax, ay - ax)),
                         D::max(0, D::min(my - ax, ay - ax))});
      }
      if (mask)
        for (size_t i = 0; i < moved.size(); ++i)
          moved[i] = {D::max(moved[i].first, (*mask)[i].first),
                      D::min(moved[i].second, (*mask)[i].second)};
      mask = std::move(moved);
    }
    Shape shape;
    for (auto &[b, e] : arg)
      shape.push_back(e - b);
    if (mask) {
      bool full = true;
      for (size_t i = 0; i < shape.size(); ++i)
        full &=
            D::eq((*mask)[i].first, 0) && D::eq((*mask)[i].second, shape[i]);
      if (full)
        mask.reset();
    }
    for (Dim &s : shape)
      s = D::canonical(s);
    return ViewT::create(shape, v.strides, v.offset + offset, mask);
  }

  static ViewT pad(const ViewT &v, const MaskT &arg) {
    bool any = false;
    for (auto &[b, e] : arg)
      any |= D::nonzero(b) || D::nonzero(e);
    if (!any)
      return v;
    MaskT region, valid;
    for (size_t i = 0; i < arg.size(); ++i) {
      region.push_back({-arg[i].first, v.shape[i] + arg[i].second});
      valid.push_back({arg[i].first, v.shape[i] + arg[i].first});
    }
    return resize(v, region, valid);
  }

  /// Broadcast size-1 dims of a view with elements.
  static ViewT expand(const ViewT &v, const Shape &newShape) {
    std::optional<MaskT> newMask;
    if (v.mask && !v.mask->empty()) {
      newMask = MaskT();
      for (size_t i = 0; i < v.shape.size(); ++i) {
        Range m = (*v.mask)[i];
        if (!D::eq(v.shape[i], newShape[i]))
          m = !rangesEqual(m, {Dim(0), Dim(1)}) ? Range{0, 0}
                                                : Range{0, newShape[i]};
        newMask->push_back(m);
      }
    }
    return ViewT::create(newShape, v.strides, v.offset, newMask);
  }

  static ViewT permute(const ViewT &v, const std::vector<int64_t> &axes) {
    Shape s, st;
    std::optional<MaskT> m;
    if (v.mask)
      m = MaskT();
    for (int64_t a : axes) {
      s.push_back(v.shape[a]);
      st.push_back(v.strides[a]);
      if (v.mask)
        m->push_back((*v.mask)[a]);
    }
    return ViewT::create(s, st, v.offset, m);
  }

  /// Every mul[i]-th element; a negative value also flips the dim.
  static ViewT stride(const ViewT &v, const std::vector<int64_t> &mul) {
    Shape st, s;
    Dim flipped = 0;
    std::optional<MaskT> m;
    if (v.mask)
      m = MaskT();
    for (size_t i = 0; i < v.shape.size(); ++i) {
      Dim a = mul[i] < 0 ? -mul[i] : mul[i];
      st.push_back(v.strides[i] * Dim(mul[i]));
      s.push_back(D::floorDiv(v.shape[i] + (a - Dim(1)), a));
      if (mul[i] < 0)
        flipped = flipped + (v.shape[i] - Dim(1)) * v.strides[i];
      if (v.mask) {
        auto [mx, my] = (*v.mask)[i];
        Dim lo = mul[i] > 0 ? mx : v.shape[i] - my;
        Dim hi = mul[i] > 0 ? my : v.shape[i] - mx;
        m->push_back({D::floorDiv(lo + (a - Dim(1)), a),
                      D::floorDiv(hi + (a - Dim(1)), a)});
      }
    }
    return ViewT::create(s, st, v.offset + flipped, m);
  }

  /// CPython's list sort for short lists (a run, then binary insertion) on
  /// indices ordered by `keys[i] < keys[j]`: an argsort that agrees with
  /// Python's even where a symbolic `<` is not a strict weak order.
  static std::vector<int64_t> argsort(const Shape &keys) {
    std::vector<int64_t> a(keys.size());
    std::iota(a.begin(), a.end(), 0);
    auto less = [&](int64_t x, int64_t y) {
      return D::mayLt(keys[x], keys[y]);
    };
    size_t n = a.size();
    if (n < 2)
      return a;
    size_t run = 2;
    if (less(a[1], a[0])) {
      while (run < n && less(a[run], a[run - 1]))
        ++run;
      std::reverse(a.begin(), a.begin() + run);
    } else {
      while (run < n && !less(a[run], a[run - 1]))
        ++run;
    }
    for (size_t start = run; start < n; ++start) {
      int64_t pivot = a[start];
      size_t l = 0, r = start;
      while (l < r) {
        size_t p = l + ((r - l) >> 1);
        if (less(pivot, a[p]))
          r = p;
        else
          l = p + 1;
      }
      std::move_backward(a.begin() + l, a.begin() + start,
                         a.begin() + start + 1);
      a[l] = pivot;
    }
    return a;
  }

  /// Inverse of a permute/flip/shrink-only view onto `outShape`; nullopt
  /// when the view also expands or strides.
  static std::optional<ViewT> invert(const ViewT &v, const Shape &outShape) {
    ViewT ret = ViewT::create(v.shape);
    if (v.mask)
      ret = ret.shrink(*v.mask);
    std::vector<int64_t> flip;
    Shape keys;
    for (const Dim &s : v.strides) {
      flip.push_back(D::mayLt(s, 0) ? -1 : 1);
      keys.push_back(D::mayGt(s, 0) ? -s : s);
    }
    ret = ret.stride(flip).permute(argsort(keys));
    if (!D::eq(product(ret.shape), product(outShape)))
      return std::nullopt;
    return ret;
  }

  //===--------------------------------------------------------------------===//
  // Composition (View.__add__)
  //===--------------------------------------------------------------------===//

  /// Unflatten `offs` over `shape` with its canonical strides (size-1 dims
  /// read 0). Offsets may be negative, hence floor division.
  static Shape un1d(const Shape &shape, const Dim &offsIn) {
    Shape result;
    Dim offs = offsIn;
    for (const Dim &stride : stridesForShape(shape)) {
      Dim here = D::nonzero(stride) ? D::floorDiv(offs, stride) : Dim(0);
      result.push_back(here);
      offs = offs - here * stride;
    }
    return result;
  }

  /// `vm2 + vm1`: vm2 is the earlier (inner) view, vm1 indexes into its
  /// shape. Projects vm1's offset and strides through vm2's shape, merging
  /// vm2's dims only where an index of vm1 wraps across them.
  static std::optional<ViewT> compose(const ViewT &vm2, const ViewT &vm1,
                                      int depth) {
    if (depth > kMaxAddDepth)
      return std::nullopt;
    if (vm2.contiguous)
      return vm1;
    if (vm1.contiguous && shapesEqual(vm1.shape, vm2.shape))
      return vm2;
    if (vm1.contiguous && vm1.size() == vm2.size())
      if (auto ret = vm2.reshape(vm1.shape))
        return ret;
    const size_t n1 = vm1.shape.size(), n2 = vm2.shape.size();
    if (vm1.mask && !vm1.mask->empty()) {
      for (auto &[b, e] : *vm1.mask)
        if (!D::mayLt(b, e))
          return ViewT::create(vm1.shape, Shape(n1, Dim(0)), 0,
                               MaskT(n1, {Dim(0), Dim(0)}));
      // Compose the unmasked part, then pad the mask back on.
      auto merged = D::add(vm2, vm1.shrink(*vm1.mask), depth + 1);
      if (!merged)
        return std::nullopt;
      MaskT padArg;
      for (size_t i = 0; i < n1; ++i)
        padArg.push_back(
            {(*vm1.mask)[i].first, vm1.shape[i] - (*vm1.mask)[i].second});
      return merged->pad(padArg);
    }

    // Project vm1's offset and strides onto vm2's dims: stepping vm1's dim
    // d1 by one moves by terms[d2] in vm2's dim d2.
    Shape origin = un1d(vm2.shape, vm1.offset);
    std::vector<std::vector<std::pair<size_t, Dim>>> terms(n2);
    Shape strides(n1, Dim(0));
    for (size_t d1 = 0; d1 < n1; ++d1) {
      const Dim &st = vm1.strides[d1];
      if (D::eq(st, 0))
        continue;
      Shape moved = un1d(vm2.shape, vm1.offset + st);
      for (size_t d2 = 0; d2 < n2; ++d2) {
        Dim s1 = moved[d2] - origin[d2];
        if (D::eq(s1, 0))
          continue;
        terms[d2].push_back({d1, s1});
        strides[d1] = strides[d1] + s1 * vm2.strides[d2];
      }
    }

    // Merge vm2 dims only where the projected index can leave a dim's
    // range; merging more would make vm2's mask harder to project.
    typename D::BoundsContext ctx(vm1.shape);
    Dim mergedSize = 1;
    typename D::Bounds merged = ctx.zero();
    std::vector<std::pair<Dim, typename D::Bounds>> extents;
    for (size_t r = 0; r < n2; ++r) {
      size_t d2 = n2 - 1 - r;
      ctx.accumulate(merged, terms[d2], origin[d2], mergedSize);
      mergedSize = mergedSize * vm2.shape[d2];
      if (ctx.within(merged, mergedSize)) {
        extents.push_back({mergedSize, merged});
        mergedSize = 1;
        merged = ctx.zero();
      }
    }
    if (ctx.mayBeNonzero(merged))
      return std::nullopt;
    Shape vm2Shape;
    for (auto it = extents.rbegin(); it != extents.rend(); ++it)
      vm2Shape.push_back(it->first);
    if (!shapesEqual(vm2Shape, vm2.shape)) {
      auto reshaped = vm2.reshape(vm2Shape);
      if (!reshaped)
        return std::nullopt;
      return D::add(*reshaped, vm1, depth + 1);
    }

    if (vm2.mask) {
      // Project vm2's mask onto vm1 where a vm2 dim depends on one vm1 dim
      // and every quantity involved is a plain int.
      Shape newb(n1, Dim(0)), newe = vm1.shape;
      bool bad = false;
      for (size_t d2 = 0; d2 < n2; ++d2) {
        auto [b, e] = (*vm2.mask)[d2];
        if (!ctx.mayLeave(extents[n2 - 1 - d2].second, b, e))
          continue;
        auto o = D::asInt(origin[d2]), bi = D::asInt(b), ei = D::asInt(e);
        if (!o || !bi || !ei) {
          bad = true;
          continue;
        }
        const auto &term = terms[d2];
        if (term.size() != 1) {
          if (term.empty() && !newe.empty())
            newe[0] = 0;
          else
            bad = true;
          continue;
        }
        auto [d1, s1] = term[0];
        auto si = D::asInt(s1);
        if (!si || !D::asInt(newe[d1])) {
          bad = true;
          continue;
        }
        newb[d1] =
            D::max(newb[d1], ceilDiv(*si > 0 ? *bi - *o : *ei - *o - 1, *si));
        newe[d1] = D::min(newe[d1],
                          floorDiv(*si < 0 ? *bi - *o : *ei - *o - 1, *si) + 1);
      }
      // If part of vm1 is masked off, retry with that mask in place.
      for (size_t i = 0; i < n1; ++i) {
        if (!D::eq(newb[i], 0) || !D::eq(newe[i], vm1.shape[i])) {
          MaskT m;
          for (size_t j = 0; j < n1; ++j)
            m.push_back({newb[j], newe[j]});
          return D::add(vm2,
                        ViewT::create(vm1.shape, vm1.strides, vm1.offset, m),
                        depth + 1);
        }
      }
      if (bad)
        return std::nullopt;
    }

    Dim offset = 0;
    for (size_t d2 = 0; d2 < n2; ++d2)
      offset = offset + origin[d2] * vm2.strides[d2];
    return ViewT::create(vm1.shape, strides, offset + vm2.offset, std::nullopt);
  }
};

//===----------------------------------------------------------------------===//
// Stacks of views (ShapeTracker)
//===----------------------------------------------------------------------===//

/// Merge the last two views while they compose into one, in place.
template <typename ViewT> void simplifyViews(std::vector<ViewT> &views) {
  while (views.size() >= 2) {
    auto merged = views[views.size() - 2] + views.back();
    if (!merged)
      break;
    views.pop_back();
    views.back() = std::move(*merged);
  }
}

/// The tracker with its views merged while they compose.
template <typename TrackerT> TrackerT simplifyTracker(const TrackerT &tracker) {
  TrackerT ret = tracker;
  simplifyViews(ret.views);
  return ret;
}

/// The tracker with `op` applied to its last view (the movement ops).
template <typename TrackerT, typename Op>
TrackerT mapLastView(const TrackerT &tracker, Op op) {
  TrackerT ret = tracker;
  ret.views.back() = op(tracker.views.back());
  return ret;
}

/// `a + b`: b's views appended one at a time, simplifying after each (which
/// simplifies better than appending all at once).
template <typename TrackerT>
TrackerT composeTrackers(const TrackerT &a, const TrackerT &b) {
  TrackerT ret = a;
  for (const auto &v : b.views) {
    ret.views.push_back(v);
    simplifyViews(ret.views);
  }
  return ret;
}

/// The tracker mapping `outShape` back through every view, innermost view
/// inverted last; nullopt where a view cannot be inverted.
template <typename TrackerT, typename ShapeT>
std::optional<TrackerT> invertTracker(const TrackerT &tracker,
                                      const ShapeT &outShape) {
  TrackerT ret;
  for (size_t i = tracker.views.size(); i-- > 0;) {
    const ShapeT &target = i > 0 ? tracker.views[i - 1].shape : outShape;
    auto inv = tracker.views[i].invert(target);
    if (!inv)
      return std::nullopt;
    ret.views.push_back(*inv);
  }
  return ret.reshape(outShape);
}

/// The tracker with its last view reshaped, or a new view pushed when the
/// reshape is not representable in place.
template <typename TrackerT, typename ShapeT>
TrackerT reshapeTracker(const TrackerT &tracker, const ShapeT &newShape) {
  TrackerT ret = tracker;
  if (auto v = tracker.views.back().reshape(newShape))
    ret.views.back() = *v;
  else
    ret.views.push_back(
        std::decay_t<decltype(tracker.views.back())>::create(newShape));
  return ret;
}

} // namespace lazy::st::detail

#endif // LAZY_LIB_SHAPETRACKER_VIEWALGEBRA_H
