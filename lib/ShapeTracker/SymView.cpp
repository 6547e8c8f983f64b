//===- SymView.cpp - Views and ShapeTrackers over symbolic ints -----------===//
//
// Part of lazy-mlir. Plain C++17, no MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//
//
// The symbolic side of tinygrad 0.9.2's View algebra. Every operation first
// tries the integer View when the view and the argument are plain ints;
// otherwise it follows tinygrad's rules with SInt arithmetic, where each
// Python comparison is `truthy(lt(...))` (true when it may be true) and each
// `isinstance(x, int)` is SInt::isInt (a NumNode is not an int). The rules
// that differ from the integer ones because of that:
//
//  * reshape of a non-contiguous integer view into a symbolic shape keeps
//    the view and only renames dims, each of which must match at the
//    Variables' bound values (else tinygrad's ValueError);
//  * a mask with a node entry cannot be reshaped (None);
//  * composition projects a mask only through int offsets, bounds and
//    steps; otherwise it gives up (None);
//  * every view entry that is a NumNode is stored as its int (see create).
//
//===----------------------------------------------------------------------===//

#include "lazy/ShapeTracker/SymView.h"

#include <algorithm>
#include <numeric>

using namespace lazy::st;
using namespace lazy::st::sym;

namespace {

[[noreturn]] void fail(const char *what) { throw Error{what}; }

bool allInt(const SymShape &v) {
  return std::all_of(v.begin(), v.end(),
                     [](const SInt &x) { return x.isInt(); });
}

bool allIntMask(const SymMask &m) {
  return std::all_of(m.begin(), m.end(), [](const auto &p) {
    return p.first.isInt() && p.second.isInt();
  });
}

std::vector<int64_t> ints(const SymShape &v) {
  std::vector<int64_t> r;
  r.reserve(v.size());
  for (const SInt &x : v)
    r.push_back(x.getInt());
  return r;
}

SymShape sints(const std::vector<int64_t> &v) {
  return SymShape(v.begin(), v.end());
}

Mask intMask(const SymMask &m) {
  Mask r;
  for (auto &[b, e] : m)
    r.push_back({b.getInt(), e.getInt()});
  return r;
}

SymMask symMask(const Mask &m) {
  SymMask r;
  for (auto &[b, e] : m)
    r.push_back({b, e});
  return r;
}

bool pairEq(const std::pair<SInt, SInt> &a, const std::pair<SInt, SInt> &b) {
  return eq(a.first, b.first) && eq(a.second, b.second);
}

bool maskEq(const std::optional<SymMask> &a, const std::optional<SymMask> &b) {
  if (!a || !b)
    return !a && !b;
  if (a->size() != b->size())
    return false;
  for (size_t i = 0; i < a->size(); ++i)
    if (!pairEq((*a)[i], (*b)[i]))
      return false;
  return true;
}

/// `0 in xs`.
bool containsZero(const SymShape &xs) {
  return std::any_of(xs.begin(), xs.end(),
                     [](const SInt &x) { return eq(x, 0); });
}

/// Python's builtin sum(xs): 0 + x0 + x1 + ...
SInt pySum(const std::vector<SInt> &xs) {
  SInt acc = 0;
  for (const SInt &x : xs)
    acc = acc + x;
  return acc;
}

/// tinygrad's prod: 1 * x0 * x1 * ...
SInt pyProd(const SymShape &xs) {
  SInt acc = 1;
  for (const SInt &x : xs)
    acc = acc * x;
  return acc;
}

SymShape canonicalizeStrides(const SymShape &shape, const SymShape &strides) {
  SymShape r;
  for (size_t i = 0; i < shape.size() && i < strides.size(); ++i)
    r.push_back(eq(shape[i], 1) ? SInt(0) : strides[i]);
  return r;
}

SymShape symStridesForShape(const SymShape &shape) {
  if (shape.empty())
    return {};
  SymShape strides(shape.size());
  SInt acc = 1;
  strides.back() = acc;
  for (size_t i = shape.size() - 1; i-- > 0;) {
    acc = acc * shape[i + 1];
    strides[i] = acc;
  }
  return canonicalizeStrides(shape, strides);
}

struct Merged {
  SInt size, stride, real;
};

/// tinygrad's _merge_dims over sints.
std::vector<Merged> mergeDims(const SymShape &shape, const SymShape &strides,
                              const std::optional<SymMask> &mask) {
  std::vector<Merged> ret;
  if (shape.empty())
    return ret;
  auto singleIndex = [&](size_t i) {
    return mask ? eq((*mask)[i].second - (*mask)[i].first, 1) : eq(shape[i], 1);
  };
  ret.push_back({shape[0], strides[0], truthy(strides[0]) ? shape[0] : 0});
  bool merging = singleIndex(0);
  for (size_t i = 1; i < shape.size(); ++i) {
    const SInt &s = shape[i], &st = strides[i];
    Merged last = ret.back();
    if (eq(s, 1))
      continue;
    if (merging || eq(last.stride, s * st))
      ret.back() = {last.size * s, st,
                    truthy(st) ? (merging ? s : last.real * s) : SInt(0)};
    else
      ret.push_back({s, st, truthy(st) ? s : SInt(0)});
    merging = singleIndex(i);
  }
  return ret;
}

/// tinygrad's _reshape_mask over sints.
std::optional<SymMask> reshapeMask(const std::optional<SymMask> &mask,
                                   const SymShape &oldShape,
                                   const SymShape &newShape) {
  if (!mask) {
    SymMask full;
    for (const SInt &s : newShape)
      full.push_back({0, s});
    return full;
  }
  if (!allIntMask(*mask))
    return std::nullopt;
  const SymMask zeroMask(newShape.size(), {0, 0});
  for (auto &[b, e] : *mask)
    if (e.getInt() - b.getInt() < 1)
      return zeroMask;

  size_t remMask = mask->size(), remOld = oldShape.size(),
         remNew = newShape.size();
  auto nextOld = [&]() -> SInt { return remOld ? oldShape[--remOld] : 1; };
  auto nextNew = [&]() -> SInt { return remNew ? newShape[--remNew] : 1; };
  auto nextMask = [&]() -> std::pair<SInt, SInt> {
    return remMask ? (*mask)[--remMask] : std::pair<SInt, SInt>{0, 1};
  };

  SymMask newMask;
  SInt currStride = 1, oldDim = nextOld(), newDim = nextNew();
  std::pair<SInt, SInt> cur = nextMask();
  size_t budget = 4 * (oldShape.size() + newShape.size()) + 16;
  while (newMask.size() < newShape.size()) {
    if (budget-- == 0)
      return std::nullopt;
    auto [l, r] = cur;
    SInt nextStride = newDim * currStride;
    if (truthy(ge(oldDim, nextStride))) {
      if (eq(oldDim, nextStride)) {
        newMask.push_back({floordiv(l, currStride),
                           floordiv(r - SInt(1), currStride) + SInt(1)});
        currStride = 1;
        oldDim = nextOld();
        newDim = nextNew();
        cur = nextMask();
      } else {
        bool cut =
            (truthy(mod(l, nextStride)) || truthy(mod(r, nextStride))) &&
            !eq(floordiv(l, nextStride), floordiv(r - SInt(1), nextStride));
        if (cut || truthy(mod(oldDim, nextStride)))
          return std::nullopt;
        newMask.push_back(
            {floordiv(mod(l, nextStride), currStride),
             floordiv(mod(r - SInt(1), nextStride), currStride) + SInt(1)});
        currStride = nextStride;
        newDim = nextNew();
      }
    } else {
      auto next = nextMask();
      if (!pairEq(cur, {0, oldDim}) && !eq(next.second - next.first, 1))
        return std::nullopt;
      cur = {next.first * oldDim + l, (next.second - SInt(1)) * oldDim + r};
      oldDim = oldDim * nextOld();
    }
  }
  while (remMask)
    if (!pairEq(nextMask(), {0, 1}))
      return zeroMask;
  std::reverse(newMask.begin(), newMask.end());
  return newMask;
}

SymShape un1d(const SymShape &shape, const SInt &offsIn) {
  SymShape result;
  SInt offs = offsIn;
  for (const SInt &stride : symStridesForShape(shape)) {
    SInt here = truthy(stride) ? floordiv(offs, stride) : SInt(0);
    result.push_back(here);
    offs = offs - here * stride;
  }
  return result;
}

/// `x.b if isinstance(x, NumNode) else x`.
SInt numToInt(const SInt &x) {
  if (x.isNode() && x.getNode()->kind == Kind::Num)
    return x.getNode()->b;
  return x;
}

SymView unsafeResize(const SymView &v, const SymMask &arg,
                     std::optional<SymMask> mask = std::nullopt) {
  std::vector<SInt> terms;
  for (size_t i = 0; i < arg.size(); ++i)
    terms.push_back(v.strides[i] * arg[i].first);
  SInt offset = pySum(terms);
  if (v.mask) {
    SymMask moved;
    for (size_t i = 0; i < arg.size(); ++i) {
      auto [mx, my] = (*v.mask)[i];
      auto [ax, ay] = arg[i];
      moved.push_back({pymax(0, pymin(mx - ax, ay - ax)),
                       pymax(0, pymin(my - ax, ay - ax))});
    }
    if (mask) {
      for (size_t i = 0; i < moved.size(); ++i)
        moved[i] = {pymax(moved[i].first, (*mask)[i].first),
                    pymin(moved[i].second, (*mask)[i].second)};
    }
    mask = std::move(moved);
  }
  SymShape shape;
  for (auto &[b, e] : arg)
    shape.push_back(e - b);
  if (mask) {
    bool full = true;
    for (size_t i = 0; i < shape.size(); ++i)
      full &= eq((*mask)[i].first, 0) && eq((*mask)[i].second, shape[i]);
    if (full)
      mask.reset();
  }
  for (SInt &s : shape)
    s = numToInt(s);
  return SymView::create(shape, v.strides, v.offset + offset, mask);
}

/// CPython's list sort for short lists (a run, then binary insertion), on
/// indices ordered by `keys[i] < keys[j]` (truthy): argsort of sints.
std::vector<int64_t> pyArgsort(const SymShape &keys) {
  std::vector<int64_t> a(keys.size());
  std::iota(a.begin(), a.end(), 0);
  auto less = [&](int64_t x, int64_t y) {
    return truthy(lt(keys[x], keys[y]));
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
    std::move_backward(a.begin() + l, a.begin() + start, a.begin() + start + 1);
    a[l] = pivot;
  }
  return a;
}

std::optional<SymView> addViews(const SymView &vm2, const SymView &vm1,
                                int depth);

/// `vm2 + vm1`: the integer View when both are plain ints.
std::optional<SymView> addAny(const SymView &vm2, const SymView &vm1,
                              int depth) {
  if (vm2.isInt() && vm1.isInt()) {
    auto r = *vm2.toView() + *vm1.toView();
    if (!r)
      return std::nullopt;
    return SymView::fromView(*r);
  }
  return addViews(vm2, vm1, depth);
}

/// The symbolic View.__add__.
std::optional<SymView> addViews(const SymView &vm2, const SymView &vm1,
                                int depth) {
  if (depth > 64)
    return std::nullopt;
  if (vm2.contiguous)
    return vm1;
  if (vm1.contiguous && symEqual(vm1.shape, vm2.shape))
    return vm2;
  if (vm1.contiguous && vm1.size() == vm2.size())
    if (auto ret = vm2.reshape(vm1.shape))
      return ret;
  const size_t n1 = vm1.shape.size(), n2 = vm2.shape.size();
  if (vm1.mask && !vm1.mask->empty()) {
    for (auto &[b, e] : *vm1.mask)
      if (!truthy(lt(b, e)))
        return SymView::create(vm1.shape, SymShape(n1, 0), 0,
                               SymMask(n1, {0, 0}));
    auto merged = addAny(vm2, vm1.shrink(*vm1.mask), depth + 1);
    if (!merged)
      return std::nullopt;
    SymMask padArg;
    for (size_t i = 0; i < n1; ++i)
      padArg.push_back(
          {(*vm1.mask)[i].first, vm1.shape[i] - (*vm1.mask)[i].second});
    return merged->pad(padArg);
  }

  // Project vm1's offset and strides on to vm2.
  SymShape origin = un1d(vm2.shape, vm1.offset);
  std::vector<std::vector<std::pair<size_t, SInt>>> terms(n2);
  SymShape strides(n1, 0);
  for (size_t d1 = 0; d1 < n1; ++d1) {
    const SInt &st = vm1.strides[d1];
    if (eq(st, 0))
      continue;
    SymShape moved = un1d(vm2.shape, vm1.offset + st);
    for (size_t d2 = 0; d2 < n2; ++d2) {
      SInt s1 = moved[d2] - origin[d2];
      if (eq(s1, 0))
        continue;
      terms[d2].push_back({d1, s1});
      strides[d1] = strides[d1] + s1 * vm2.strides[d2];
    }
  }

  // Merge dimensions in vm2 if required.
  std::vector<NodeP> idxs;
  for (size_t i = 0; i < n1; ++i)
    idxs.push_back(var("idx" + std::to_string(i), 0, vm1.shape[i] - SInt(1)));
  SInt mergedSize = 1;
  NodeP mergedTerm = num(0);
  std::vector<std::pair<SInt, NodeP>> extents;
  for (size_t r = 0; r < n2; ++r) {
    size_t d2 = n2 - 1 - r;
    std::vector<NodeP> parts;
    for (auto &[d1, s1] : terms[d2]) {
      SInt part = SInt(idxs[d1]) * (s1 * mergedSize);
      parts.push_back(part.isInt() ? num(part.getInt()) : part.getNode());
    }
    SInt add = SInt(sum(parts)) + origin[d2] * mergedSize;
    mergedTerm = (SInt(mergedTerm) + add).getNode();
    mergedSize = mergedSize * vm2.shape[d2];
    if (!truthy(ge(SInt(mergedTerm), mergedSize)) &&
        !truthy(lt(SInt(mergedTerm), 0))) {
      extents.push_back({mergedSize, mergedTerm});
      mergedSize = 1;
      mergedTerm = num(0);
    }
  }
  if (truthy(SInt(mergedTerm)))
    return std::nullopt;
  SymShape vm2Shape;
  for (auto it = extents.rbegin(); it != extents.rend(); ++it)
    vm2Shape.push_back(it->first);
  if (!symEqual(vm2Shape, vm2.shape)) {
    auto reshaped = vm2.reshape(vm2Shape);
    if (!reshaped)
      return std::nullopt;
    return addAny(*reshaped, vm1, depth + 1);
  }

  if (vm2.mask) {
    // Try to project vm2's mask on to vm1.
    SymShape newb(n1, 0), newe = vm1.shape;
    bool bad = false;
    for (size_t d2 = 0; d2 < n2; ++d2) {
      auto [b, e] = (*vm2.mask)[d2];
      const SInt &o = origin[d2];
      const NodeP &t = extents[n2 - 1 - d2].second;
      if (!(truthy(lt(t->min, b)) || truthy(ge(t->max, e))))
        continue;
      if (!o.isInt() || !b.isInt() || !e.isInt()) {
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
      if (!s1.isInt() || !newe[d1].isInt()) {
        bad = true;
        continue;
      }
      int64_t si = s1.getInt(), oi = o.getInt(), bi = b.getInt(),
              ei = e.getInt();
      // math.ceil(x / s1) for the small ints of masks.
      int64_t num0 = si > 0 ? bi - oi : ei - oi - 1;
      SInt lo = -floordiv(SInt(-num0), SInt(si));
      newb[d1] = pymax(newb[d1], lo);
      newe[d1] = pymin(
          newe[d1],
          floordiv(SInt(si < 0 ? bi - oi : ei - oi - 1), SInt(si)) + SInt(1));
    }
    for (size_t i = 0; i < n1; ++i) {
      if (!eq(newb[i], 0) || !eq(newe[i], vm1.shape[i])) {
        SymMask m;
        for (size_t j = 0; j < n1; ++j)
          m.push_back({newb[j], newe[j]});
        return addAny(vm2,
                      SymView::create(vm1.shape, vm1.strides, vm1.offset, m),
                      depth + 1);
      }
    }
    if (bad)
      return std::nullopt;
  }

  std::vector<SInt> offs;
  for (size_t d2 = 0; d2 < n2; ++d2)
    offs.push_back(origin[d2] * vm2.strides[d2]);
  return SymView::create(vm1.shape, strides, pySum(offs) + vm2.offset);
}

std::string tupleStr(const SymShape &v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? "," : "") + render(v[i]);
  if (v.size() == 1)
    s += ",";
  return s + ")";
}

} // namespace

bool lazy::st::symEqual(const SymShape &a, const SymShape &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!eq(a[i], b[i]))
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// SymView
//===----------------------------------------------------------------------===//

SymView SymView::fromView(const View &v) {
  SymView r;
  r.shape = sints(v.shape);
  r.strides = sints(v.strides);
  r.offset = v.offset;
  if (v.mask)
    r.mask = symMask(*v.mask);
  r.contiguous = v.contiguous;
  return r;
}

bool SymView::isInt() const {
  return allInt(shape) && allInt(strides) && offset.isInt() &&
         (!mask || allIntMask(*mask));
}

std::optional<View> SymView::toView() const {
  if (!isInt())
    return std::nullopt;
  View v;
  v.shape = ints(shape);
  v.strides = ints(strides);
  v.offset = offset.getInt();
  if (mask)
    v.mask = intMask(*mask);
  v.contiguous = contiguous;
  return v;
}

SymView SymView::create(SymShape shape, std::optional<SymShape> strides,
                        SInt offset, std::optional<SymMask> mask) {
  // A NumNode entry is stored as its int: tinygrad's View.create is
  // lru-cached with NumNode(k) == k, so which of the two a view holds
  // depends on what the process computed before, not on the arguments.
  for (SInt &x : shape)
    x = numToInt(x);
  if (strides)
    for (SInt &x : *strides)
      x = numToInt(x);
  offset = numToInt(offset);
  if (mask)
    for (auto &[b, e] : *mask) {
      b = numToInt(b);
      e = numToInt(e);
    }
  if (allInt(shape) && (!strides || allInt(*strides)) && offset.isInt() &&
      (!mask || allIntMask(*mask))) {
    std::optional<std::vector<int64_t>> s;
    if (strides)
      s = ints(*strides);
    std::optional<Mask> m;
    if (mask)
      m = intMask(*mask);
    return fromView(View::create(ints(shape), s, offset.getInt(), m));
  }
  for (const SInt &s : shape)
    if (!truthy(ge(s, 0)))
      fail("View with a negative dimension");
  SymView v;
  v.strides = (strides && !strides->empty())
                  ? canonicalizeStrides(shape, *strides)
                  : symStridesForShape(shape);
  v.shape = std::move(shape);
  const size_t n = v.shape.size();
  if (containsZero(v.shape)) {
    v.strides.assign(n, 0);
    v.offset = 0;
    v.contiguous = true;
    return v;
  }
  if (mask) {
    bool full = true;
    for (size_t i = 0; i < n; ++i)
      full &= pairEq((*mask)[i], {0, v.shape[i]});
    if (full)
      mask.reset();
  }
  if (mask && !mask->empty()) {
    std::vector<bool> elim;
    bool anyElim = false, anyEmpty = false;
    for (auto &[b, e] : *mask) {
      elim.push_back(!truthy(lt(b + SInt(1), e)));
      anyElim |= elim.back();
    }
    if (anyElim) {
      for (auto &[b, e] : *mask)
        anyEmpty |= !truthy(lt(b, e));
      if (anyEmpty) {
        v.strides.assign(n, 0);
        offset = 0;
        mask = SymMask(n, {0, 0});
      }
      std::vector<SInt> terms;
      for (size_t i = 0; i < n; ++i)
        terms.push_back(elim[i] ? v.strides[i] * (*mask)[i].first : SInt(0));
      offset = offset + pySum(terms);
      for (size_t i = 0; i < n; ++i)
        if (elim[i])
          v.strides[i] = 0;
    }
  }
  v.offset = numToInt(offset);
  for (SInt &x : v.strides)
    x = numToInt(x);
  v.mask = std::move(mask);
  v.contiguous = eq(v.offset, 0) && !v.mask &&
                 symEqual(v.strides, symStridesForShape(v.shape));
  return v;
}

int64_t SymView::size() const {
  // tinygrad asserts the product of the largest values is an int.
  int64_t r = 1;
  for (const SInt &s : shape) {
    SInt hi = s.max();
    if (!hi.isInt())
      fail("a dim without an integer maximum");
    r *= hi.getInt();
  }
  return r;
}

bool SymView::operator==(const SymView &o) const {
  return symEqual(shape, o.shape) && symEqual(strides, o.strides) &&
         eq(offset, o.offset) && maskEq(mask, o.mask) &&
         contiguous == o.contiguous;
}

std::string SymView::str() const {
  std::string m = "None";
  if (mask) {
    m = "(";
    for (size_t i = 0; i < mask->size(); ++i)
      m += (i ? ",(" : "(") + render((*mask)[i].first) + "," +
           render((*mask)[i].second) + ")";
    if (mask->size() == 1)
      m += ",";
    m += ")";
  }
  return "V(shape=" + tupleStr(shape) + ", strides=" + tupleStr(strides) +
         ", offset=" + render(offset) + ", mask=" + m +
         ", contiguous=" + (contiguous ? "True" : "False") + ")";
}

std::optional<SymView> SymView::reshape(const SymShape &newShape) const {
  if (symEqual(shape, newShape))
    return *this;
  if (isInt() && allInt(newShape)) {
    std::vector<int64_t> ns = ints(newShape);
    if (std::string why = checkReshape(ints(shape), ns); !why.empty())
      fail("invalid reshape");
    auto r = toView()->reshape(ns);
    if (!r)
      return std::nullopt;
    return fromView(*r);
  }
  for (const SInt &s : newShape)
    if (!truthy(ge(s, 0)))
      fail("reshape into a negative dimension");
  if (containsZero(shape)) {
    if (!containsZero(newShape))
      fail("cannot reshape a size-0 view into a nonzero size");
    return create(newShape);
  }
  bool selfAllInt = allInt(shape);
  if (selfAllInt) {
    SymShape values;
    for (const SInt &s : newShape) {
      if (s.isInt()) {
        values.push_back(s);
        continue;
      }
      const NodeP &n = s.getNode();
      if (n->kind != Kind::Var)
        fail("reshape into a symbolic dim that is not a Variable");
      if (!n->bound)
        fail("reshape into an unbound Variable");
      values.push_back(*n->bound);
    }
    if (!eq(pyProd(shape), pyProd(values)))
      fail("reshape changes the number of elements");
  }
  if (newShape.empty() && mask)
    for (auto &[b, e] : *mask)
      if (eq(b, e))
        return std::nullopt;
  if (contiguous)
    return create(newShape);

  if (selfAllInt && !allInt(newShape)) {
    if (shape.size() != newShape.size())
      fail("cannot reshape a non-contiguous view into a symbolic shape "
           "of another rank");
    for (size_t i = 0; i < shape.size(); ++i) {
      const SInt &so = newShape[i];
      if (so.isInt()) {
        if (!eq(shape[i], so))
          fail("cannot reshape a non-contiguous view into a symbolic shape");
        continue;
      }
      std::map<std::string, NodeP> vars;
      collectVars(so.getNode(), vars);
      VarVals values;
      for (auto &[k, v] : vars) {
        if (!v->bound)
          fail("reshape into an unbound Variable");
        values[k] = *v->bound;
      }
      if (!eq(shape[i], infer(so, values)))
        fail("cannot reshape a non-contiguous view into a symbolic shape");
    }
    SymView v = *this;
    v.shape = newShape;
    for (SInt &x : v.shape)
      x = numToInt(x);
    return v;
  }

  std::vector<SInt> rstrides;
  size_t remNew = newShape.size();
  auto merged = mergeDims(shape, strides, mask);
  for (auto it = merged.rbegin(); it != merged.rend(); ++it) {
    SInt acc = 1, newStride = it->stride;
    while (truthy(le(acc, it->size)) && !eq(acc, it->size) && remNew > 0) {
      SInt newDim = newShape[--remNew];
      if (!truthy(newDim))
        break;
      rstrides.push_back(newStride);
      if (!eq(newDim, 1)) {
        acc = acc * newDim;
        newStride = newStride * (truthy(lt(acc, it->real)) ? newDim : SInt(0));
      }
    }
    if (!eq(acc, it->size))
      return std::nullopt;
  }
  rstrides.resize(newShape.size(), 0);
  auto newMask = reshapeMask(mask, shape, newShape);
  if (!newMask)
    return std::nullopt;
  SymShape extent, newStrides(rstrides.rbegin(), rstrides.rend());
  for (auto &[b, e] : *newMask)
    extent.push_back(e - b);
  newStrides = canonicalizeStrides(extent, newStrides);
  std::vector<SInt> before, after;
  if (mask)
    for (size_t i = 0; i < shape.size(); ++i)
      before.push_back((*mask)[i].first * strides[i]);
  for (size_t i = 0; i < newShape.size(); ++i)
    after.push_back((*newMask)[i].first * newStrides[i]);
  SInt extra = (mask ? pySum(before) : SInt(0)) - pySum(after);
  return create(newShape, newStrides, offset + extra, newMask);
}

SymView SymView::pad(const SymMask &arg) const {
  if (arg.size() != shape.size())
    fail("pad of another rank");
  for (auto &[b, e] : arg)
    if (!(truthy(ge(b, 0)) && truthy(ge(e, 0))))
      fail("negative pad");
  if (isInt() && allIntMask(arg))
    return fromView(toView()->pad(intMask(arg)));
  bool any = false;
  for (auto &[b, e] : arg)
    any |= truthy(b) || truthy(e);
  if (!any)
    return *this;
  SymMask region, valid;
  for (size_t i = 0; i < arg.size(); ++i) {
    region.push_back({-arg[i].first, shape[i] + arg[i].second});
    valid.push_back({arg[i].first, shape[i] + arg[i].first});
  }
  return unsafeResize(*this, region, valid);
}

SymView SymView::shrink(const SymMask &arg) const {
  if (arg.size() != shape.size())
    fail("shrink of another rank");
  for (size_t i = 0; i < arg.size(); ++i) {
    auto &[b, e] = arg[i];
    if (!(truthy(le(0, b)) && truthy(le(b, e)) && truthy(le(e, shape[i]))))
      fail("invalid shrink");
  }
  if (isInt() && allIntMask(arg))
    return fromView(toView()->shrink(intMask(arg)));
  return unsafeResize(*this, arg);
}

SymView SymView::expand(const SymShape &newShape) const {
  if (newShape.size() != shape.size())
    fail("expand of another rank");
  if (isInt() && allInt(newShape)) {
    if (!checkExpand(ints(shape), ints(newShape)).empty())
      fail("invalid expand");
    return fromView(toView()->expand(ints(newShape)));
  }
  if (containsZero(shape)) {
    for (size_t i = 0; i < shape.size(); ++i) {
      const SInt &s = shape[i], &x = newShape[i];
      if (!((eq(s, x) && eq(x, 0)) || (truthy(gt(s, 0)) && eq(mod(x, s), 0))))
        fail("invalid expand");
    }
    return create(newShape);
  }
  for (size_t i = 0; i < shape.size(); ++i)
    if (!(eq(shape[i], newShape[i]) || (eq(shape[i], 1) && eq(strides[i], 0))))
      fail("invalid expand");
  std::optional<SymMask> newMask;
  if (mask && !mask->empty()) {
    newMask = SymMask();
    for (size_t i = 0; i < shape.size(); ++i) {
      auto m = (*mask)[i];
      if (!eq(shape[i], newShape[i]))
        m = !pairEq(m, {0, 1}) ? std::pair<SInt, SInt>{0, 0}
                               : std::pair<SInt, SInt>{0, newShape[i]};
      newMask->push_back(m);
    }
  }
  return create(newShape, strides, offset, newMask);
}

SymView SymView::permute(const std::vector<int64_t> &axes) const {
  if (!checkPermute(std::vector<int64_t>(shape.size(), 1), axes).empty())
    fail("invalid permutation");
  SymShape s, st;
  std::optional<SymMask> m;
  if (mask)
    m = SymMask();
  for (int64_t a : axes) {
    s.push_back(shape[a]);
    st.push_back(strides[a]);
    if (mask)
      m->push_back((*mask)[a]);
  }
  return create(s, st, offset, m);
}

SymView SymView::stride(const std::vector<int64_t> &mul) const {
  if (mul.size() != shape.size())
    fail("stride of another rank");
  for (int64_t m : mul)
    if (m == 0)
      fail("zero stride");
  if (isInt())
    return fromView(toView()->stride(mul));
  SymShape st, s;
  std::vector<SInt> offs;
  std::optional<SymMask> m;
  if (mask)
    m = SymMask();
  for (size_t i = 0; i < shape.size(); ++i) {
    SInt a = std::abs(mul[i]);
    st.push_back(strides[i] * SInt(mul[i]));
    s.push_back(floordiv(shape[i] + (a - SInt(1)), a));
    if (mul[i] < 0)
      offs.push_back((shape[i] - SInt(1)) * strides[i]);
    if (mask) {
      auto [mx, my] = (*mask)[i];
      SInt lo = mul[i] > 0 ? mx : shape[i] - my;
      SInt hi = mul[i] > 0 ? my : shape[i] - mx;
      m->push_back(
          {floordiv(lo + (a - SInt(1)), a), floordiv(hi + (a - SInt(1)), a)});
    }
  }
  return create(s, st, offset + pySum(offs), m);
}

std::optional<SymView> SymView::operator+(const SymView &later) const {
  return addAny(*this, later, 0);
}

std::optional<SymView> SymView::invert(const SymShape &outShape) const {
  if (isInt() && allInt(outShape)) {
    auto r = toView()->invert(ints(outShape));
    if (!r)
      return std::nullopt;
    return fromView(*r);
  }
  SymView ret = create(shape);
  if (mask)
    ret = ret.shrink(*mask);
  std::vector<int64_t> flip;
  SymShape keys;
  for (const SInt &s : strides) {
    flip.push_back(truthy(lt(s, 0)) ? -1 : 1);
    keys.push_back(truthy(gt(s, 0)) ? -s : s);
  }
  ret = ret.stride(flip).permute(pyArgsort(keys));
  if (!eq(pyProd(ret.shape), pyProd(outShape)))
    return std::nullopt;
  return ret;
}

SymView SymView::minify() const {
  if (isInt())
    return fromView(toView()->minify());
  SymShape minShape;
  for (auto &m : mergeDims(shape, strides, mask))
    minShape.push_back(m.size);
  if (auto nv = reshape(minShape))
    return *nv;
  return *this;
}

std::map<std::string, NodeP> SymView::vars() const {
  std::map<std::string, NodeP> out;
  auto add = [&](const SInt &x) {
    if (x.isNode())
      collectVars(x.getNode(), out);
  };
  for (const SInt &x : shape)
    add(x);
  for (const SInt &x : strides)
    add(x);
  add(offset);
  if (mask)
    for (auto &[b, e] : *mask) {
      add(b);
      add(e);
    }
  return out;
}

SymView SymView::substitute(const std::map<std::string, NodeP> &map) const {
  auto sub = [&](const SInt &x) {
    return x.isInt() ? x : SInt(sym::substitute(x.getNode(), map));
  };
  SymShape s, st;
  for (const SInt &x : shape)
    s.push_back(sub(x));
  for (const SInt &x : strides)
    st.push_back(sub(x));
  std::optional<SymMask> m;
  if (mask) {
    m = SymMask();
    for (auto &[b, e] : *mask)
      m->push_back({sub(b), sub(e)});
  }
  return create(s, st, sub(offset), m);
}

std::pair<SymView, VarVals> SymView::unbind() const {
  std::map<std::string, NodeP> map;
  VarVals values;
  for (auto &[k, v] : vars()) {
    NodeP unbound = unboundVar(v);
    map.emplace(k, unbound);
    values[unbound->key()] = *v->bound;
  }
  if (map.empty())
    return {*this, values};
  return {substitute(map), values};
}

std::pair<NodeP, NodeP> SymView::expr(const std::vector<NodeP> &idxs,
                                      const NodeP &valid) const {
  std::vector<NodeP> iexpr{offset.isInt() ? num(offset.getInt())
                                          : offset.getNode()},
      vexpr;
  if (valid)
    vexpr.push_back(valid);
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!eq(shape[i], 1) && !eq(strides[i], 0)) {
      SInt term = SInt(idxs[i]) * strides[i];
      iexpr.push_back(term.isInt() ? num(term.getInt()) : term.getNode());
    }
    if (mask) {
      vexpr.push_back(createGe(idxs[i], (*mask)[i].first));
      vexpr.push_back(createLt(idxs[i], (*mask)[i].second));
    }
  }
  return {sum(iexpr), ands(vexpr)};
}

//===----------------------------------------------------------------------===//
// SymShapeTracker
//===----------------------------------------------------------------------===//

SymShapeTracker SymShapeTracker::fromShape(const SymShape &shape) {
  return {{SymView::create(shape)}};
}

SymShapeTracker SymShapeTracker::fromTracker(const ShapeTracker &tracker) {
  SymShapeTracker r;
  for (const View &v : tracker.views)
    r.views.push_back(SymView::fromView(v));
  return r;
}

bool SymShapeTracker::isInt() const {
  return std::all_of(views.begin(), views.end(),
                     [](const SymView &v) { return v.isInt(); });
}

std::optional<ShapeTracker> SymShapeTracker::toTracker() const {
  ShapeTracker r;
  for (const SymView &v : views) {
    auto iv = v.toView();
    if (!iv)
      return std::nullopt;
    r.views.push_back(*iv);
  }
  return r;
}

bool SymShapeTracker::contiguous() const {
  return views.size() == 1 && views[0].contiguous;
}

bool SymShapeTracker::consecutive() const {
  return views.size() == 1 && !views[0].mask &&
         symEqual(views[0].strides, symStridesForShape(views[0].shape));
}

SymShapeTracker SymShapeTracker::reshape(const SymShape &newShape) const {
  SymShapeTracker ret = *this;
  if (auto v = views.back().reshape(newShape))
    ret.views.back() = *v;
  else
    ret.views.push_back(SymView::create(newShape));
  return ret;
}

#define LAZY_LAST_VIEW_OP(NAME, ARG)                                           \
  SymShapeTracker SymShapeTracker::NAME(ARG arg) const {                       \
    SymShapeTracker ret = *this;                                               \
    ret.views.back() = views.back().NAME(arg);                                 \
    return ret;                                                                \
  }
LAZY_LAST_VIEW_OP(pad, const SymMask &)
LAZY_LAST_VIEW_OP(shrink, const SymMask &)
LAZY_LAST_VIEW_OP(expand, const SymShape &)
LAZY_LAST_VIEW_OP(permute, const std::vector<int64_t> &)
LAZY_LAST_VIEW_OP(stride, const std::vector<int64_t> &)
#undef LAZY_LAST_VIEW_OP

static void simplifyInPlace(std::vector<SymView> &views) {
  while (views.size() >= 2) {
    auto merged = views[views.size() - 2] + views.back();
    if (!merged)
      break;
    views.pop_back();
    views.back() = std::move(*merged);
  }
}

SymShapeTracker SymShapeTracker::simplify() const {
  SymShapeTracker ret = *this;
  simplifyInPlace(ret.views);
  return ret;
}

SymShapeTracker SymShapeTracker::operator+(const SymShapeTracker &other) const {
  SymShapeTracker ret = *this;
  for (const SymView &v : other.views) {
    ret.views.push_back(v);
    simplifyInPlace(ret.views);
  }
  return ret;
}

std::optional<SymShapeTracker>
SymShapeTracker::invert(const SymShape &outShape) const {
  SymShapeTracker ret;
  for (size_t i = views.size(); i-- > 0;) {
    const SymShape &target = i > 0 ? views[i - 1].shape : outShape;
    auto inv = views[i].invert(target);
    if (!inv)
      return std::nullopt;
    ret.views.push_back(*inv);
  }
  return ret.reshape(outShape);
}

std::map<std::string, NodeP> SymShapeTracker::vars() const {
  std::map<std::string, NodeP> out;
  for (const SymView &v : views)
    for (auto &kv : v.vars())
      out.insert(kv);
  return out;
}

VarVals SymShapeTracker::varVals() const {
  VarVals out;
  for (auto &[k, v] : vars()) {
    NodeP unbound = unboundVar(v);
    auto [it, inserted] = out.emplace(unbound->key(), *v->bound);
    if (!inserted && it->second != *v->bound)
      fail("a Variable is bound to two values");
  }
  return out;
}

std::pair<SymShapeTracker, VarVals> SymShapeTracker::unbind() const {
  SymShapeTracker ret;
  VarVals all;
  for (const SymView &v : views) {
    auto [uv, vals] = v.unbind();
    ret.views.push_back(std::move(uv));
    for (auto &[k, val] : vals) {
      auto [it, inserted] = all.emplace(k, val);
      if (!inserted && it->second != val)
        fail("a Variable is bound to two values");
    }
  }
  return {ret, all};
}

SymShapeTracker
SymShapeTracker::substitute(const std::map<std::string, NodeP> &map) const {
  SymShapeTracker ret;
  for (const SymView &v : views)
    ret.views.push_back(v.substitute(map));
  return ret;
}

std::pair<NodeP, NodeP> SymShapeTracker::exprIdxs() const {
  std::vector<NodeP> idxs;
  for (size_t i = 0; i < shape().size(); ++i)
    idxs.push_back(var("idx" + std::to_string(i), 0, shape()[i] - SInt(1)));
  auto [idx, valid] = exprAt(idxs);
  if ((idx->min.isInt() && idx->min.getInt() < -(int64_t(1) << 31)) ||
      (idx->max.isInt() && idx->max.getInt() >= (int64_t(1) << 31)))
    fail("index out of int32 range");
  return {idx, valid};
}

std::pair<NodeP, NodeP>
SymShapeTracker::exprAt(const std::vector<NodeP> &idxs) const {
  auto [idx, valid] = views.back().expr(idxs);
  for (size_t vi = views.size() - 1; vi-- > 0;) {
    if (eq(valid->max, 0))
      return {num(-1), valid};
    SymView v = views[vi].minify();
    std::vector<NodeP> inner(v.shape.size());
    SInt acc = 1;
    for (size_t d = v.shape.size(); d-- > 0;) {
      SInt x = mod(floordiv(SInt(idx), acc), v.shape[d]);
      inner[d] = x.isInt() ? num(x.getInt()) : x.getNode();
      acc = acc * v.shape[d];
    }
    std::tie(idx, valid) = v.expr(inner, valid);
  }
  return {idx, valid};
}

std::vector<std::optional<SInt>>
SymShapeTracker::realStrides(bool ignoreValid) const {
  const SymView &last = views.back();
  if (views.size() == 1 && !last.mask)
    return {last.strides.begin(), last.strides.end()};
  if (isInt()) {
    std::vector<std::optional<SInt>> r;
    for (auto &s : toTracker()->realStrides(ignoreValid))
      r.push_back(s ? std::optional<SInt>(*s) : std::nullopt);
    return r;
  }
  const size_t n = last.shape.size();
  std::vector<std::optional<SInt>> ret(n);
  auto [idx, valid] = exprIdxs();
  std::vector<std::string> idxKeys;
  for (size_t i = 0; i < n; ++i)
    idxKeys.push_back(
        var("idx" + std::to_string(i), 0, shape()[i] - SInt(1))->key());
  std::set<std::string> badVars, idxVars, validVars;
  std::vector<NodeP> terms =
      idx->kind == Kind::Sum ? idx->nodes : std::vector<NodeP>{idx};
  for (auto &t : terms) {
    NodeP base = t->kind == Kind::Mul ? t->a : t;
    SInt stride = t->kind == Kind::Mul ? t->rhs() : SInt(1);
    auto it = std::find(idxKeys.begin(), idxKeys.end(), base->key());
    if (it != idxKeys.end())
      ret[it - idxKeys.begin()] = stride;
    else
      collectVars(base, badVars);
  }
  collectVars(idx, idxVars);
  collectVars(valid, validVars);
  for (size_t i = 0; i < n; ++i) {
    const std::string &k = idxKeys[i];
    bool isVar = k.find('[') != std::string::npos;
    if (isVar && (badVars.count(k) || (!ignoreValid && validVars.count(k))))
      ret[i] = std::nullopt;
    else if (!isVar || !idxVars.count(k))
      ret[i] = SInt(0);
  }
  return ret;
}

std::string SymShapeTracker::str() const {
  std::string s = "ST[";
  for (size_t i = 0; i < views.size(); ++i)
    s += (i ? ", " : "") + views[i].str();
  return s + "]";
}

std::size_t lazy::st::hashValue(const SymShapeTracker &tracker) {
  std::size_t seed = tracker.views.size();
  auto mix = [&](const SInt &x) {
    std::size_t h = x.isInt() ? std::hash<int64_t>{}(x.getInt())
                              : std::hash<std::string>{}(x.getNode()->key());
    seed ^= h + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
  };
  for (const SymView &v : tracker.views) {
    for (const SInt &x : v.shape)
      mix(x);
    for (const SInt &x : v.strides)
      mix(x);
    mix(v.offset);
    mix(v.mask ? 1 : 0);
    if (v.mask)
      for (auto &[b, e] : *v.mask) {
        mix(b);
        mix(e);
      }
  }
  return seed;
}

bool lazy::st::prodMayBeLess(const SymShape &a, const SymShape &b) noexcept {
  try {
    return truthy(lt(pyProd(a), pyProd(b)));
  } catch (const Error &) {
    return false;
  }
}

bool lazy::st::prodMayBeGreaterEq(const SymShape &a,
                                  const SymShape &b) noexcept {
  try {
    return truthy(ge(pyProd(a), pyProd(b)));
  } catch (const Error &) {
    return false;
  }
}

SymShape lazy::st::maskExtents(const SymMask &mask) noexcept {
  SymShape out;
  for (auto &[b, e] : mask) {
    try {
      out.push_back(e - b);
    } catch (const Error &) {
      out.push_back(0);
    }
  }
  return out;
}

bool lazy::st::isIdentityLike(const SymShapeTracker &tracker) noexcept {
  if (tracker.contiguous())
    return true;
  if (tracker.views.size() != 1 || !tracker.views[0].mask)
    return false;
  try {
    const SymMask &mask = *tracker.views[0].mask;
    return SymShapeTracker::fromShape(tracker.shape()).shrink(mask) ==
           tracker.shrink(mask);
  } catch (const Error &) {
    return false;
  }
}

std::pair<SymShapeTracker, VarVals>
lazy::st::unbindOrKeep(const SymShapeTracker &tracker) noexcept {
  try {
    return tracker.unbind();
  } catch (const Error &) {
    return {tracker, {}};
  }
}

SymShape lazy::st::unbindShape(const SymShape &shape) noexcept {
  SymShape out;
  for (const SInt &d : shape) {
    if (d.isInt()) {
      out.push_back(d);
      continue;
    }
    std::map<std::string, NodeP> vars, map;
    collectVars(d.getNode(), vars);
    for (auto &[k, v] : vars)
      if (v->bound)
        map.emplace(k, var(v->name, v->min.getInt(), v->max));
    try {
      out.push_back(map.empty() ? d : SInt(sym::substitute(d.getNode(), map)));
    } catch (const Error &) {
      out.push_back(d);
    }
  }
  return out;
}

std::optional<ShapeTracker> lazy::st::trackerAt(
    const SymShapeTracker &tracker,
    const std::map<std::string, int64_t> &valuesByName) noexcept {
  try {
    std::map<std::string, sym::NodeP> substitution;
    for (auto &[key, node] : tracker.vars()) {
      auto it = valuesByName.find(node->name);
      if (it == valuesByName.end())
        return std::nullopt;
      substitution[key] = sym::num(it->second);
    }
    return tracker.substitute(substitution).toTracker();
  } catch (const sym::Error &) {
    return std::nullopt;
  }
}

std::string lazy::st::variableText(const std::string &key) {
  // name[lo-hi] or name[lo-hi=v]: the first '-' after '[' separates.
  std::string s = key;
  size_t open = s.find('[');
  if (open != std::string::npos) {
    size_t dash = s.find('-', open);
    if (dash != std::string::npos)
      s[dash] = ':';
  }
  return s;
}

std::optional<SymShapeTracker>
lazy::st::composeOrNull(const SymShapeTracker &a,
                        const SymShapeTracker &b) noexcept {
  try {
    return a + b;
  } catch (const Error &) {
    return std::nullopt;
  }
}

bool lazy::st::readsNothing(const SymShapeTracker &tracker) noexcept {
  try {
    const SymView &last = tracker.views.back();
    if (tracker.size() == 0)
      return true;
    if (last.mask)
      for (auto &[b, e] : *last.mask)
        if (eq(e - b, 0))
          return true;
    return false;
  } catch (const Error &) {
    return false;
  }
}
