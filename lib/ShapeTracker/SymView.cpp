//===- SymView.cpp - Views and ShapeTrackers over symbolic ints -----------===//
//
// Part of lazy-mlir. Plain C++17, no MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//
//
// The symbolic side of tinygrad 0.9.2's View algebra. The rules live in
// ViewAlgebra.h, shared with the integer View; this file gives them the
// `sint` policy, where each Python comparison is `truthy(lt(...))` (true
// when it may be true) and each `isinstance(x, int)` is SInt::isInt (a
// NumNode is not an int), and adds what only symbolic views have:
//
//  * every operation first takes the integer View when the view and the
//    argument are plain ints (the two agree there; the integer one is
//    faster);
//  * tinygrad's argument assertions, thrown as sym::Error;
//  * reshape of a non-contiguous integer view into a symbolic shape keeps
//    the view and only renames dims, each of which must match at the
//    Variables' bound values (else tinygrad's ValueError);
//  * a mask with a node entry cannot be reshaped (None); composition
//    projects a mask only through int offsets, bounds and steps;
//  * every view entry that is a NumNode is stored as its int (see create);
//  * Variables: vars, unbind, substitute, and index expressions.
//
//===----------------------------------------------------------------------===//

#include "lazy/ShapeTracker/SymView.h"
#include "ViewAlgebra.h"

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

/// `x.b if isinstance(x, NumNode) else x`.
SInt numToInt(const SInt &x) {
  if (x.isNode() && x.getNode()->kind == Kind::Num)
    return x.getNode()->b;
  return x;
}

/// The `sint` policy of ViewAlgebra (see ViewAlgebra.h).
struct SymDims {
  using Dim = SInt;
  using ViewT = SymView;

  static bool eq(const SInt &a, const SInt &b) { return sym::eq(a, b); }
  static bool mayLt(const SInt &a, const SInt &b) { return truthy(lt(a, b)); }
  static bool mayLe(const SInt &a, const SInt &b) { return truthy(le(a, b)); }
  static bool mayGt(const SInt &a, const SInt &b) { return truthy(gt(a, b)); }
  static bool mayGe(const SInt &a, const SInt &b) { return truthy(ge(a, b)); }
  static bool nonzero(const SInt &a) { return truthy(a); }
  static SInt floorDiv(const SInt &a, const SInt &b) {
    return sym::floordiv(a, b);
  }
  static SInt floorMod(const SInt &a, const SInt &b) { return sym::mod(a, b); }
  static SInt max(const SInt &a, const SInt &b) { return pymax(a, b); }
  static SInt min(const SInt &a, const SInt &b) { return pymin(a, b); }
  static SInt mul(const SInt &a, const SInt &b) { return a * b; }
  static SInt canonical(const SInt &a) { return numToInt(a); }
  static std::optional<int64_t> asInt(const SInt &a) {
    if (a.isInt())
      return a.getInt();
    return std::nullopt;
  }
  static bool allInt(const SymMask &m) { return allIntMask(m); }
  static std::string render(const SInt &a) { return sym::render(a); }
  static std::optional<SymView> add(const SymView &vm2, const SymView &vm1,
                                    int depth);

  /// The projected index as a node over `idx<d>` Variables bounded by the
  /// later view's shape; its min and max are tinygrad's bounds.
  using Bounds = NodeP;
  struct BoundsContext {
    std::vector<NodeP> idxs;
    explicit BoundsContext(const SymShape &shape) {
      for (size_t i = 0; i < shape.size(); ++i)
        idxs.push_back(var("idx" + std::to_string(i), 0, shape[i] - SInt(1)));
    }
    NodeP zero() const { return num(0); }
    void accumulate(NodeP &merged,
                    const std::vector<std::pair<size_t, SInt>> &terms,
                    const SInt &origin, const SInt &scale) const {
      std::vector<NodeP> parts;
      for (auto &[d, coef] : terms) {
        SInt part = SInt(idxs[d]) * (coef * scale);
        parts.push_back(part.isInt() ? num(part.getInt()) : part.getNode());
      }
      SInt add = SInt(sum(parts)) + origin * scale;
      merged = (SInt(merged) + add).getNode();
    }
    bool within(const NodeP &t, const SInt &size) const {
      return !truthy(ge(SInt(t), size)) && !truthy(lt(SInt(t), 0));
    }
    bool mayBeNonzero(const NodeP &t) const { return truthy(SInt(t)); }
    bool mayLeave(const NodeP &t, const SInt &begin, const SInt &end) const {
      return truthy(lt(t->min, begin)) || truthy(ge(t->max, end));
    }
  };
};

using Algebra = lazy::st::detail::ViewAlgebra<SymDims>;

/// `vm2 + vm1`: the integer View when both are plain ints.
std::optional<SymView> SymDims::add(const SymView &vm2, const SymView &vm1,
                                    int depth) {
  if (vm2.isInt() && vm1.isInt()) {
    auto r = *vm2.toView() + *vm1.toView();
    if (!r)
      return std::nullopt;
    return SymView::fromView(*r);
  }
  return Algebra::compose(vm2, vm1, depth);
}

} // namespace

bool lazy::st::symEqual(const SymShape &a, const SymShape &b) {
  return Algebra::shapesEqual(a, b);
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
  return Algebra::create(std::move(shape), std::move(strides), offset,
                         std::move(mask));
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
         sym::eq(offset, o.offset) && Algebra::masksEqual(mask, o.mask) &&
         contiguous == o.contiguous;
}

std::string SymView::str() const { return Algebra::str(*this); }

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
  if (Algebra::containsZero(shape)) {
    if (!Algebra::containsZero(newShape))
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
    if (!sym::eq(Algebra::product(shape), Algebra::product(values)))
      fail("reshape changes the number of elements");
  }
  if (newShape.empty() && mask)
    for (auto &[b, e] : *mask)
      if (sym::eq(b, e))
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
        if (!sym::eq(shape[i], so))
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
      if (!sym::eq(shape[i], infer(so, values)))
        fail("cannot reshape a non-contiguous view into a symbolic shape");
    }
    SymView v = *this;
    v.shape = newShape;
    for (SInt &x : v.shape)
      x = numToInt(x);
    return v;
  }
  return Algebra::reshapeStrided(*this, newShape);
}

SymView SymView::pad(const SymMask &arg) const {
  if (arg.size() != shape.size())
    fail("pad of another rank");
  for (auto &[b, e] : arg)
    if (!(truthy(ge(b, 0)) && truthy(ge(e, 0))))
      fail("negative pad");
  if (isInt() && allIntMask(arg))
    return fromView(toView()->pad(intMask(arg)));
  return Algebra::pad(*this, arg);
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
  return Algebra::resize(*this, arg);
}

SymView SymView::expand(const SymShape &newShape) const {
  if (newShape.size() != shape.size())
    fail("expand of another rank");
  if (isInt() && allInt(newShape)) {
    if (!checkExpand(ints(shape), ints(newShape)).empty())
      fail("invalid expand");
    return fromView(toView()->expand(ints(newShape)));
  }
  if (Algebra::containsZero(shape)) {
    for (size_t i = 0; i < shape.size(); ++i) {
      const SInt &s = shape[i], &x = newShape[i];
      if (!((sym::eq(s, x) && sym::eq(x, 0)) ||
            (truthy(gt(s, 0)) && sym::eq(mod(x, s), 0))))
        fail("invalid expand");
    }
    return create(newShape);
  }
  for (size_t i = 0; i < shape.size(); ++i)
    if (!(sym::eq(shape[i], newShape[i]) ||
          (sym::eq(shape[i], 1) && sym::eq(strides[i], 0))))
      fail("invalid expand");
  return Algebra::expand(*this, newShape);
}

SymView SymView::permute(const std::vector<int64_t> &axes) const {
  if (!checkPermute(std::vector<int64_t>(shape.size(), 1), axes).empty())
    fail("invalid permutation");
  return Algebra::permute(*this, axes);
}

SymView SymView::stride(const std::vector<int64_t> &mul) const {
  if (mul.size() != shape.size())
    fail("stride of another rank");
  for (int64_t m : mul)
    if (m == 0)
      fail("zero stride");
  if (isInt())
    return fromView(toView()->stride(mul));
  return Algebra::stride(*this, mul);
}

std::optional<SymView> SymView::operator+(const SymView &later) const {
  return SymDims::add(*this, later, 0);
}

std::optional<SymView> SymView::invert(const SymShape &outShape) const {
  if (isInt() && allInt(outShape)) {
    auto r = toView()->invert(ints(outShape));
    if (!r)
      return std::nullopt;
    return fromView(*r);
  }
  return Algebra::invert(*this, outShape);
}

SymView SymView::minify() const {
  if (isInt())
    return fromView(toView()->minify());
  if (auto nv = reshape(Algebra::minifiedShape(*this)))
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
         symEqual(views[0].strides, Algebra::stridesForShape(views[0].shape));
}

SymShapeTracker SymShapeTracker::reshape(const SymShape &newShape) const {
  return detail::reshapeTracker(*this, newShape);
}

#define LAZY_LAST_VIEW_OP(NAME, ARG)                                           \
  SymShapeTracker SymShapeTracker::NAME(ARG arg) const {                       \
    return detail::mapLastView(*this,                                          \
                               [&](const SymView &v) { return v.NAME(arg); }); \
  }
LAZY_LAST_VIEW_OP(pad, const SymMask &)
LAZY_LAST_VIEW_OP(shrink, const SymMask &)
LAZY_LAST_VIEW_OP(expand, const SymShape &)
LAZY_LAST_VIEW_OP(permute, const std::vector<int64_t> &)
LAZY_LAST_VIEW_OP(stride, const std::vector<int64_t> &)
#undef LAZY_LAST_VIEW_OP

SymShapeTracker SymShapeTracker::simplify() const {
  return detail::simplifyTracker(*this);
}

SymShapeTracker SymShapeTracker::operator+(const SymShapeTracker &other) const {
  return detail::composeTrackers(*this, other);
}

std::optional<SymShapeTracker>
SymShapeTracker::invert(const SymShape &outShape) const {
  return detail::invertTracker(*this, outShape);
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
    return truthy(lt(Algebra::product(a), Algebra::product(b)));
  } catch (const Error &) {
    return false;
  }
}

bool lazy::st::prodMayBeGreaterEq(const SymShape &a,
                                  const SymShape &b) noexcept {
  try {
    return truthy(ge(Algebra::product(a), Algebra::product(b)));
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
