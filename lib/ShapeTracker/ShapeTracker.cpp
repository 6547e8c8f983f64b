//===- ShapeTracker.cpp - A stack of views over one buffer ----------------===//
//
// Part of lazy-mlir. Plain C++17, no MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//
//
// Index evaluation walks the views from outermost to innermost: the linear
// index produced by one view is unflattened over the (minified) shape of the
// view below it. realStrides needs the *symbolic* form of that walk, because
// tinygrad defines it syntactically on its simplified expression; that is
// what the private Symbolic module provides.
//
//===----------------------------------------------------------------------===//

#include "lazy/ShapeTracker/ShapeTracker.h"
#include "Arith.h"
#include "ViewAlgebra.h"
#include "lazy/ShapeTracker/ElementIndexer.h"
#include "lazy/ShapeTracker/Symbolic.h"

#include <algorithm>
#include <functional>
#include <set>

using namespace lazy::st;
using lazy::st::detail::floorDiv;
using lazy::st::detail::floorMod;

namespace {

/// tinygrad refuses index expressions outside the int32 range.
constexpr int64_t kIndexLimit = int64_t(1) << 31;

/// Symbolic index and validity of `v` for per-dim index nodes `idxs`.
std::pair<sym::NodeP, sym::NodeP> viewExpr(const View &v,
                                           const std::vector<sym::NodeP> &idxs,
                                           const sym::NodeP &valid) {
  std::vector<sym::NodeP> iexpr{sym::num(v.offset)}, vexpr;
  if (valid)
    vexpr.push_back(valid);
  for (size_t i = 0; i < v.shape.size(); ++i) {
    if (v.shape[i] != 1 && v.strides[i] != 0)
      iexpr.push_back(sym::mul(idxs[i], v.strides[i]));
    if (v.mask) {
      vexpr.push_back(sym::greaterEq(idxs[i], (*v.mask)[i].first));
      vexpr.push_back(sym::lessThan(idxs[i], (*v.mask)[i].second));
    }
  }
  return {sym::sum(iexpr), sym::ands(vexpr)};
}

/// tinygrad's expr_idxs: the simplified index and validity of `tracker`
/// over per-dim variables `idxs` (filled here: idx<i> over [0, shape-1]).
/// Throws sym::Error where tinygrad's simplifier would fail.
std::pair<sym::NodeP, sym::NodeP> trackerExpr(const ShapeTracker &tracker,
                                              std::vector<sym::NodeP> &idxs) {
  const View &last = tracker.views.back();
  for (size_t i = 0; i < last.shape.size(); ++i)
    idxs.push_back(sym::var("idx" + std::to_string(i), 0, last.shape[i] - 1));
  auto [idx, valid] = viewExpr(last, idxs, nullptr);
  for (size_t vi = tracker.views.size() - 1; vi-- > 0;) {
    if (sym::eq(valid->max, 0))
      return {sym::num(-1), valid};
    View v = tracker.views[vi].minify();
    std::vector<sym::NodeP> inner(v.shape.size());
    int64_t acc = 1;
    for (size_t d = v.shape.size(); d-- > 0;) {
      inner[d] = sym::mod(sym::floordiv(idx, acc), v.shape[d]);
      acc *= v.shape[d];
    }
    std::tie(idx, valid) = viewExpr(v, inner, valid);
  }
  return {idx, valid};
}

/// The position in `idxs` of the node structurally equal to `node`
/// (tinygrad's identity: the same rendering), or idxs.size().
size_t findVariable(const std::vector<sym::NodeP> &idxs,
                    const sym::NodeP &node) {
  return size_t(std::find_if(idxs.begin(), idxs.end(),
                             [&](const sym::NodeP &v) {
                               return v->key() == node->key();
                             }) -
                idxs.begin());
}

/// `x` as coefficients per variable of `idxs` plus a constant, or false
/// when it is not a sum of multiples of those variables and a number.
bool readAffine(const sym::NodeP &x, const std::vector<sym::NodeP> &idxs,
                AffineCondition &out) {
  std::vector<sym::NodeP> terms =
      x->kind == sym::Kind::Sum ? x->nodes : std::vector<sym::NodeP>{x};
  for (const sym::NodeP &t : terms) {
    if (t->kind == sym::Kind::Num) {
      out.constant += t->b;
      continue;
    }
    sym::NodeP base = t->kind == sym::Kind::Mul ? t->a : t;
    int64_t factor = t->kind == sym::Kind::Mul ? t->b : 1;
    size_t d =
        base->kind == sym::Kind::Var ? findVariable(idxs, base) : idxs.size();
    if (d == idxs.size())
      return false;
    out.coeffs[d] += factor;
  }
  return true;
}

} // namespace

ShapeTracker ShapeTracker::fromShape(const std::vector<int64_t> &shape) {
  return ShapeTracker{{View::create(shape)}};
}

const std::vector<int64_t> &ShapeTracker::shape() const {
  return views.back().shape;
}

int64_t ShapeTracker::size() const { return views.back().size(); }

bool ShapeTracker::contiguous() const {
  return views.size() == 1 && views[0].contiguous;
}

bool ShapeTracker::consecutive() const {
  return views.size() == 1 && !views[0].mask &&
         views[0].strides == stridesForShape(views[0].shape);
}

bool ShapeTracker::masked() const {
  for (const View &v : views)
    if (v.mask)
      return true;
  return false;
}

ShapeTracker ShapeTracker::reshape(const std::vector<int64_t> &newShape) const {
  return detail::reshapeTracker(*this, newShape);
}

ShapeTracker ShapeTracker::pad(const Mask &arg) const {
  return detail::mapLastView(*this, [&](const View &v) { return v.pad(arg); });
}

ShapeTracker ShapeTracker::shrink(const Mask &arg) const {
  return detail::mapLastView(*this,
                             [&](const View &v) { return v.shrink(arg); });
}

ShapeTracker ShapeTracker::expand(const std::vector<int64_t> &newShape) const {
  return detail::mapLastView(*this,
                             [&](const View &v) { return v.expand(newShape); });
}

ShapeTracker ShapeTracker::permute(const std::vector<int64_t> &axes) const {
  return detail::mapLastView(*this,
                             [&](const View &v) { return v.permute(axes); });
}

ShapeTracker ShapeTracker::stride(const std::vector<int64_t> &mul) const {
  return detail::mapLastView(*this,
                             [&](const View &v) { return v.stride(mul); });
}

ShapeTracker ShapeTracker::simplify() const {
  return detail::simplifyTracker(*this);
}

ShapeTracker ShapeTracker::operator+(const ShapeTracker &other) const {
  return detail::composeTrackers(*this, other);
}

std::optional<ShapeTracker>
ShapeTracker::invert(const std::vector<int64_t> &outShape) const {
  return detail::invertTracker(*this, outShape);
}

std::pair<int64_t, bool>
ShapeTracker::indexAndValid(const std::vector<int64_t> &idx) const {
  return ElementIndexer(*this)(idx.data());
}

std::vector<std::optional<int64_t>>
ShapeTracker::realStrides(bool ignoreValid) const {
  const View &last = views.back();
  if (views.size() == 1 && !last.mask)
    return {last.strides.begin(), last.strides.end()};
  const size_t n = last.shape.size();
  std::vector<std::optional<int64_t>> ret(n);
  try {
    std::vector<sym::NodeP> idxs;
    auto [idx, valid] = trackerExpr(*this, idxs);
    if (!idx->min.isInt() || !idx->max.isInt() ||
        idx->min.getInt() < -kIndexLimit || idx->max.getInt() >= kIndexLimit)
      throw sym::Error{"index out of int32 range"};

    // Read "idx_i * c" terms off the top-level sum.
    std::set<std::string> badVars, idxVars, validVars;
    std::vector<sym::NodeP> terms =
        idx->kind == sym::Kind::Sum ? idx->nodes : std::vector<sym::NodeP>{idx};
    for (auto &t : terms) {
      sym::NodeP base = t->kind == sym::Kind::Mul ? t->a : t;
      int64_t stride = t->kind == sym::Kind::Mul ? t->b : 1;
      size_t d = findVariable(idxs, base);
      if (d != idxs.size())
        ret[d] = stride;
      else
        sym::collectVars(base, badVars);
    }
    sym::collectVars(idx, idxVars);
    sym::collectVars(valid, validVars);
    for (size_t i = 0; i < n; ++i) {
      // Size-1 dims are constants, never variables: they always read 0.
      bool isVar = idxs[i]->kind == sym::Kind::Var;
      const std::string &k = idxs[i]->key();
      if (isVar && (badVars.count(k) || (!ignoreValid && validVars.count(k))))
        ret[i] = std::nullopt;
      else if (!isVar || !idxVars.count(k))
        ret[i] = 0;
    }
  } catch (const sym::Error &) {
    // tinygrad raises here (e.g. a size-0 dim makes an empty index range);
    // report every stride as unknown instead.
    return std::vector<std::optional<int64_t>>(n);
  }
  return ret;
}

namespace {

/// The conditions of one element never valid (0 < 0).
std::vector<AffineCondition> neverValid(size_t rank) {
  return {{std::vector<int64_t>(rank, 0), 0}};
}

/// The validity as tinygrad's simplifier leaves it, where every clause is
/// affine.
std::optional<std::vector<AffineCondition>>
symbolicValidity(const ShapeTracker &tracker) {
  try {
    std::vector<sym::NodeP> idxs;
    sym::NodeP valid = trackerExpr(tracker, idxs).second;
    size_t rank = tracker.shape().size();
    std::vector<AffineCondition> conditions;
    if (valid->kind == sym::Kind::Num)
      return valid->b == 0 ? neverValid(rank) : conditions;
    std::vector<sym::NodeP> clauses = valid->kind == sym::Kind::And
                                          ? valid->nodes
                                          : std::vector<sym::NodeP>{valid};
    for (const sym::NodeP &clause : clauses) {
      if (clause->kind != sym::Kind::Lt)
        return std::nullopt;
      // a < b  <=>  a - b < 0.
      AffineCondition c{std::vector<int64_t>(rank, 0), -clause->b};
      if (!readAffine(clause->a, idxs, c))
        return std::nullopt;
      conditions.push_back(std::move(c));
    }
    return conditions;
  } catch (const sym::Error &) {
    return std::nullopt;
  }
}

/// The validity of a tracker of two views derived from the views, where
/// the inner view's mask reads a remainder of the outer view's flat index
/// (a triangle made by padding and reshaping: tinygrad's tril). Rules:
///   - the outer view's mask bounds each index to [lo_d, hi_d];
///   - the inner view unravels the flat index f = offset + sum s_d * i_d,
///     so its dim k (sizes P below it) lies in [L, H) exactly where
///     f mod (P * S_k) lies in [L * P, H * P);
///   - f mod M is e mod M for e with each coefficient and the offset
///     reduced to its nearest residue mod M; where e's range over the box
///     meets the allowed run [k M + A, k M + B) of only one period k, the
///     condition is that run's two affine bounds; a range over more than
///     two periods, or meeting the run in both, has no affine form.
std::optional<std::vector<AffineCondition>>
periodicValidity(const ShapeTracker &tracker) {
  if (tracker.views.size() != 2 || !tracker.views[0].mask)
    return std::nullopt;
  const View &outer = tracker.views[1];
  View inner = tracker.views[0].minify();
  if (!inner.mask)
    return std::nullopt;
  size_t rank = outer.shape.size();
  std::vector<AffineCondition> conditions;
  std::vector<int64_t> lo(rank), hi(rank);
  for (size_t d = 0; d < rank; ++d) {
    int64_t size = outer.shape[d];
    if (size <= 0)
      return std::nullopt;
    auto [begin, end] =
        outer.mask ? (*outer.mask)[d] : std::pair<int64_t, int64_t>{0, size};
    begin = std::max<int64_t>(begin, 0);
    end = std::min(end, size);
    if (begin >= end)
      return neverValid(rank);
    lo[d] = begin;
    hi[d] = end - 1;
    if (begin > 0) { // i_d >= begin  <=>  begin - 1 - i_d < 0
      conditions.push_back({std::vector<int64_t>(rank, 0), begin - 1});
      conditions.back().coeffs[d] = -1;
    }
    if (end < size) { // i_d < end
      conditions.push_back({std::vector<int64_t>(rank, 0), -end});
      conditions.back().coeffs[d] = 1;
    }
  }
  // f mod M in [a, b): at most one affine run of e.
  auto modIn = [&](int64_t m, int64_t a, int64_t b) -> bool {
    std::vector<int64_t> coeffs(rank);
    int64_t constant = floorMod(outer.offset, m);
    int64_t eLo = constant, eHi = constant;
    for (size_t d = 0; d < rank; ++d) {
      int64_t c = floorMod(outer.strides[d], m);
      if (2 * c > m)
        c -= m;
      coeffs[d] = c;
      eLo += c > 0 ? c * lo[d] : c * hi[d];
      eHi += c > 0 ? c * hi[d] : c * lo[d];
    }
    int64_t first = floorDiv(eLo, m), last = floorDiv(eHi, m);
    if (last - first > 1)
      return false;
    std::optional<int64_t> period;
    for (int64_t k = first; k <= last; ++k) {
      if (std::max(eLo, k * m + a) > std::min(eHi, k * m + b - 1))
        continue;
      if (period)
        return false;
      period = k;
    }
    if (!period) {
      conditions = neverValid(rank);
      return true;
    }
    if (*period * m + a > eLo) { // e >= k m + a  <=>  k m + a - 1 - e < 0
      AffineCondition c{coeffs, *period * m + a - 1 - constant};
      for (int64_t &x : c.coeffs)
        x = -x;
      conditions.push_back(std::move(c));
    }
    if (*period * m + b - 1 < eHi) // e < k m + b
      conditions.push_back({coeffs, constant - (*period * m + b)});
    return true;
  };
  int64_t below = 1;
  for (size_t k = inner.shape.size(); k-- > 0;) {
    int64_t size = inner.shape[k];
    if (size <= 0 || below > kIndexLimit / size)
      return std::nullopt;
    int64_t m = below * size;
    auto [begin, end] = (*inner.mask)[k];
    if ((begin > 0 || end < size) &&
        !modIn(m, std::max<int64_t>(begin, 0) * below,
               std::min(end, size) * below))
      return std::nullopt;
    below = m;
  }
  // A condition found never to hold decides alone.
  for (const AffineCondition &c : conditions)
    if (c.constant >= 0 && std::all_of(c.coeffs.begin(), c.coeffs.end(),
                                       [](int64_t x) { return x == 0; }))
      return neverValid(rank);
  return conditions;
}

} // namespace

std::optional<std::vector<AffineCondition>>
ShapeTracker::affineValidity() const {
  if (std::optional<std::vector<AffineCondition>> symbolic =
          symbolicValidity(*this))
    return symbolic;
  return periodicValidity(*this);
}

std::vector<int64_t> ShapeTracker::unitStrideAxes(bool ignoreValid) const {
  std::vector<int64_t> ret;
  auto rs = realStrides(ignoreValid);
  for (size_t i = 0; i < rs.size(); ++i)
    if (rs[i] && *rs[i] == 1)
      ret.push_back(int64_t(i));
  return ret;
}

bool ShapeTracker::contiguousRuns(size_t axis, int64_t width) const {
  if (width <= 1)
    return true;
  if (views.empty() || axis >= shape().size())
    return false;
  size_t dim = axis;
  for (size_t k = views.size(); k-- > 0;) {
    const View &v = views[k];
    if (v.shape[dim] % width != 0 || v.strides[dim] != 1)
      return false;
    if (v.mask) {
      auto [begin, end] = (*v.mask)[dim];
      if (begin % width != 0 || end % width != 0)
        return false;
    }
    if (k == 0)
      return true;
    // The run's flat index into the view below starts at a multiple of
    // width.
    if (v.offset % width != 0)
      return false;
    for (size_t d = 0; d < v.shape.size(); ++d)
      if (d != dim && v.shape[d] > 1 && v.strides[d] % width != 0)
        return false;
    // ... so it stays within one row of that view's innermost dim.
    const std::vector<int64_t> &below = views[k - 1].shape;
    size_t inner = below.size();
    while (inner > 0 && below[inner - 1] == 1)
      --inner;
    if (inner == 0)
      return false;
    dim = inner - 1;
  }
  return false;
}

std::string ShapeTracker::str() const {
  std::string s = "ST[";
  for (size_t i = 0; i < views.size(); ++i)
    s += (i ? ", " : "") + views[i].str();
  return s + "]";
}

//===----------------------------------------------------------------------===//
// Hashing
//===----------------------------------------------------------------------===//

static void hashCombine(std::size_t &seed, uint64_t value) {
  seed ^= std::hash<uint64_t>{}(value) + 0x9e3779b97f4a7c15ULL + (seed << 6) +
          (seed >> 2);
}

std::size_t lazy::st::hashValue(const View &view) {
  std::size_t seed = view.shape.size();
  for (int64_t v : view.shape)
    hashCombine(seed, uint64_t(v));
  for (int64_t v : view.strides)
    hashCombine(seed, uint64_t(v));
  hashCombine(seed, uint64_t(view.offset));
  hashCombine(seed, view.mask ? 1 : 0);
  if (view.mask)
    for (auto [b, e] : *view.mask) {
      hashCombine(seed, uint64_t(b));
      hashCombine(seed, uint64_t(e));
    }
  return seed;
}

std::size_t lazy::st::hashValue(const ShapeTracker &tracker) {
  std::size_t seed = tracker.views.size();
  for (const View &v : tracker.views)
    hashCombine(seed, hashValue(v));
  return seed;
}
