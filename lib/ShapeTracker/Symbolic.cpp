//===- Symbolic.cpp - Symbolic integers (tinygrad's sint) -----------------===//
//
// Part of lazy-mlir. Plain C++17, no MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//
//
// Rewrite rules (an independent restatement of tinygrad 0.9.2's symbolic
// normal forms):
//
//  * Any node whose bounds collapse (min == max) becomes a constant.
//  * Multiplication distributes into sums and folds into an existing
//    product; by 0 or 1 it is trivial. A product by a node keeps the node as
//    its right operand.
//  * Sums are flattened, like terms (same key) are grouped with their
//    coefficients added, constants are folded into one trailing constant.
//  * Floor division: a product whose factor divides (or is divided by) the
//    divisor cancels; nested divisions combine; `(x % m) // d` with d | m
//    becomes `(x // d) % (m / d)`; a sum is split into the terms the divisor
//    divides exactly and a remainder, which is divided by the gcd first.
//    Numerators that may be negative are shifted to be non-negative first.
//    By a node, only `x // x` and `x // y` with 0 <= x < y simplify.
//  * Modulo: products and constants inside a sum are reduced term-wise;
//    nested modulo by a multiple collapses; if the whole range lies in one
//    period the modulo becomes a subtraction. By a node, only `x % x` and
//    `x % y` with 0 <= x < y simplify.
//  * Comparisons for validity (`createLt`): `sum < c` drops the constants
//    into c and divides through by the gcd of the large positive products
//    when the rest is provably smaller than that gcd. The plain operators
//    (`lt`, `gt`, ...) build the comparison node without those rules, as
//    tinygrad's `__lt__` does.
//
// The order in which these rules fire, including which implementation of a
// rule a node kind uses (tinygrad's per-class methods and their fallbacks
// to the base class), is observable in the final form and is reproduced
// deliberately.
//
//===----------------------------------------------------------------------===//

#include "lazy/ShapeTracker/Symbolic.h"
#include "Arith.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <unordered_map>

using namespace lazy::st::sym;
using lazy::st::detail::floorDiv;
using lazy::st::detail::floorMod;

namespace {

[[noreturn]] void fail(const char *what) { throw Error{what}; }

int64_t checkedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    fail("integer overflow");
  return r;
}

int64_t checkedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    fail("integer overflow");
  return r;
}

NodeP make(Node n) { return std::make_shared<const Node>(std::move(n)); }

/// `create_node`: constant-fold a node whose bounds coincide.
NodeP create(Node n) {
  if (!truthy(le(n.min, n.max)))
    fail("min greater than max");
  if (eq(n.min, n.max)) {
    if (!n.min.constant())
      fail("equal symbolic bounds");
    return num(*n.min.constant());
  }
  return make(std::move(n));
}

/// Python `x >= 0` / `x < 0` on a bound, as a bool.
bool nonNegative(const SInt &x) { return truthy(ge(x, 0)); }
bool negative(const SInt &x) { return truthy(lt(x, 0)); }

NodeP asNode(const SInt &x) {
  return x.isInt() ? num(x.getInt()) : x.getNode();
}

bool isNum(const NodeP &x) { return x->kind == Kind::Num; }

/// `MulNode(a, b)` built directly (bounds only, no folding).
Node mulNode(const NodeP &a, const SInt &b) {
  if (!nonNegative(a->min))
    fail("product of a possibly negative node");
  Node n{Kind::Mul};
  n.a = a;
  if (b.isInt()) {
    int64_t c = b.getInt();
    n.b = c;
    n.min = c >= 0 ? a->min * c : a->max * c;
    n.max = c >= 0 ? a->max * c : a->min * c;
  } else {
    const NodeP &c = b.getNode();
    n.bNode = c;
    bool pos = nonNegative(c->min);
    n.min = pos ? a->min * c->min : a->max * c->min;
    n.max = pos ? a->max * c->max : a->min * c->max;
  }
  return n;
}

Node divNode(const NodeP &a, int64_t b) {
  if (!nonNegative(a->min))
    fail("division of a possibly negative node");
  Node n{Kind::Div};
  n.a = a;
  n.b = b;
  n.min = floordiv(a->min, b);
  n.max = floordiv(a->max, b);
  return n;
}

Node modNode(const NodeP &a, int64_t b) {
  if (!nonNegative(a->min))
    fail("modulo of a possibly negative node");
  Node n{Kind::Mod};
  n.a = a;
  n.b = b;
  if (truthy(ge(a->max - a->min, b)) ||
      (!eq(a->min, a->max) && truthy(ge(mod(a->min, b), mod(a->max, b))))) {
    n.min = 0;
    n.max = b - 1;
  } else {
    n.min = mod(a->min, b);
    n.max = mod(a->max, b);
  }
  return n;
}

Node ltNode(const NodeP &a, const SInt &b) {
  Node n{Kind::Lt};
  n.a = a;
  if (b.isInt())
    n.b = b.getInt();
  else
    n.bNode = b.getNode();
  SInt bmin = b.min(), bmax = b.max();
  if (eq(SInt(a), b)) {
    n.min = n.max = 0;
  } else if (truthy(lt(a->max, bmin))) {
    n.min = n.max = 1;
  } else if (truthy(ge(a->min, bmax))) {
    n.min = n.max = 0;
  } else {
    n.min = 0;
    n.max = 1;
  }
  return n;
}

Node sumNode(std::vector<NodeP> nodes) {
  Node n{Kind::Sum};
  for (auto &x : nodes) {
    n.min = n.min + x->min;
    n.max = n.max + x->max;
  }
  n.nodes = std::move(nodes);
  return n;
}

/// SumNode.flat_components.
void flatten(const std::vector<NodeP> &nodes, std::vector<NodeP> &out) {
  for (auto &x : nodes) {
    if (x->kind == Kind::Sum)
      flatten(x->nodes, out);
    else
      out.push_back(x);
  }
}

/// Python `x + y` with x a node.
NodeP addNode(const NodeP &x, const SInt &y) { return sum({x, asNode(y)}); }

NodeP nodeMul(const NodeP &x, const SInt &b);
NodeP nodeFloorDiv(const NodeP &x, const SInt &b,
                   std::optional<bool> factoring);
NodeP nodeMod(const NodeP &x, const SInt &b);

/// Node.__mul__ (the base-class rule).
NodeP baseMul(const NodeP &x, const SInt &b) {
  if (eq(b, 0))
    return num(0);
  if (eq(b, 1))
    return x;
  if (b.isNode() && isNum(b.getNode()))
    return create(mulNode(x, b.getNode()->b));
  return create(mulNode(x, b));
}

/// `x * b` dispatched on the class of x.
NodeP nodeMul(const NodeP &x, const SInt &b) {
  switch (x->kind) {
  case Kind::Num:
    // NumNode.__mul__: an int gives a NumNode, a node multiplies by us.
    if (b.isInt())
      return num(checkedMul(x->b, b.getInt()));
    return nodeMul(b.getNode(), x->b);
  case Kind::Mul:
    // Two products in one: a * (b * c).
    return nodeMul(x->a, x->rhs() * b);
  case Kind::Sum: {
    std::vector<NodeP> parts;
    for (auto &n : x->nodes)
      parts.push_back(nodeMul(n, b));
    return sum(parts);
  }
  default:
    return baseMul(x, b);
  }
}

/// Node.__floordiv__ (the base-class rule).
NodeP baseFloorDiv(const NodeP &x, const SInt &bIn, bool factoring) {
  if (bIn.isNode()) {
    const NodeP &b = bIn.getNode();
    if (isNum(b))
      return nodeFloorDiv(x, b->b, factoring);
    if (eq(SInt(x), bIn))
      return num(1);
    if (truthy(gt((bIn - SInt(x)).min(), 0)) && nonNegative(x->min))
      return num(0);
    fail("not supported: node // node");
  }
  int64_t b = bIn.getInt();
  if (b == 0)
    fail("division by zero");
  if (b == std::numeric_limits<int64_t>::min())
    fail("integer overflow");
  if (b < 0)
    return nodeFloorDiv(nodeMul(x, -1), -b, factoring);
  if (b == 1)
    return x;
  if (negative(x->min)) {
    // Shift the numerator to be non-negative; factoring is not retried.
    SInt offset = floordiv(x->min, b);
    return addNode(nodeFloorDiv(addNode(x, -offset * SInt(b)), b, false),
                   offset);
  }
  return create(divNode(x, b));
}

/// SumNode.__floordiv__.
NodeP sumFloorDiv(const NodeP &x, const SInt &bIn, bool factoring) {
  if (eq(SInt(x), bIn))
    return num(1);
  std::vector<NodeP> fully, rest, comps;
  flatten(x->nodes, comps);
  if (bIn.isNode()) {
    for (const NodeP &c : comps) {
      if (eq(nodeMod(c, bIn), 0))
        fully.push_back(nodeFloorDiv(c, bIn, std::nullopt));
      else
        rest.push_back(c);
    }
    NodeP divided = create(sumNode(fully));
    if (!eq(SInt(divided), 0))
      return addNode(divided, SInt(nodeFloorDiv(create(sumNode(rest)), bIn,
                                                std::nullopt)));
    return baseFloorDiv(x, bIn, false);
  }
  int64_t b = bIn.getInt();
  if (b == 1)
    return x;
  if (!factoring)
    return baseFloorDiv(x, b, false);
  int64_t g = b, divisor = 1;
  for (NodeP c : comps) {
    if (c->kind == Kind::Num || c->kind == Kind::Mul) {
      SInt cb = c->kind == Kind::Num ? SInt(c->b) : c->rhs();
      if (eq(mod(cb, b), 0)) {
        fully.push_back(nodeFloorDiv(c, b, std::nullopt));
        continue;
      }
      if (c->kind == Kind::Num) {
        if (int64_t d = floorDiv(c->b, b)) {
          fully.push_back(num(d));
          c = num(c->b - b * d);
          cb = c->b;
        }
      }
      rest.push_back(c);
      if (cb.isInt()) {
        g = std::gcd(g, cb.getInt());
        if (c->kind == Kind::Mul && divisor == 1 &&
            floorMod(b, cb.getInt()) == 0)
          divisor = cb.getInt();
      } else {
        g = 1;
      }
    } else {
      rest.push_back(c);
      g = 1;
    }
  }
  if (g > 1)
    return addNode(sum(fully),
                   SInt(nodeFloorDiv(nodeFloorDiv(sum(rest), g, std::nullopt),
                                     floorDiv(b, g), std::nullopt)));
  if (divisor > 1)
    return addNode(
        sum(fully),
        SInt(nodeFloorDiv(nodeFloorDiv(sum(rest), divisor, std::nullopt),
                          floorDiv(b, divisor), std::nullopt)));
  return addNode(sum(fully), SInt(baseFloorDiv(sum(rest), b, true)));
}

/// `x.__floordiv__(b[, factoring])` dispatched on the class of x; nullopt
/// is the class's own default for the flag.
NodeP nodeFloorDiv(const NodeP &x, const SInt &b,
                   std::optional<bool> factoring) {
  switch (x->kind) {
  case Kind::Mul: {
    SInt xb = x->rhs();
    if (eq(mod(xb, b), 0))
      return nodeMul(x->a, floordiv(xb, b));
    if (eq(mod(b, xb), 0) && truthy(gt(xb, 0)))
      return asNode(floordiv(SInt(x->a), floordiv(b, xb)));
    return baseFloorDiv(x, b, factoring.value_or(false));
  }
  case Kind::Div:
    return asNode(floordiv(SInt(x->a), SInt(x->b) * b));
  case Kind::Mod:
    if (eq(mod(SInt(x->b), b), 0))
      return asNode(mod(floordiv(SInt(x->a), b), floordiv(SInt(x->b), b)));
    return baseFloorDiv(x, b, factoring.value_or(true));
  case Kind::Sum:
    return sumFloorDiv(x, b, factoring.value_or(true));
  default:
    return baseFloorDiv(x, b, factoring.value_or(true));
  }
}

/// Node.__mod__ (the base-class rule).
NodeP baseMod(const NodeP &x, const SInt &bIn) {
  if (bIn.isNode()) {
    const NodeP &b = bIn.getNode();
    if (isNum(b))
      return nodeMod(x, b->b);
    if (eq(SInt(x), bIn))
      return num(0);
    if (truthy(gt((bIn - SInt(x)).min(), 0)) && nonNegative(x->min))
      return x;
    fail("not supported: node % node");
  }
  int64_t b = bIn.getInt();
  if (b <= 0)
    fail("modulo by a non-positive number");
  if (b == 1)
    return num(0);
  // Only plain-int bounds take the shortcuts (tinygrad's isinstance test).
  if (x->min.isInt() && x->max.isInt()) {
    int64_t lo = x->min.getInt(), hi = x->max.getInt();
    if (floorDiv(lo, b) == floorDiv(hi, b))
      return addNode(x, -(b * floorDiv(lo, b)));
    if (lo < 0)
      return nodeMod(addNode(x, -(floorDiv(lo, b) * b)), b);
  }
  return create(modNode(x, b));
}

/// `x % b` dispatched on the class of x.
NodeP nodeMod(const NodeP &x, const SInt &b) {
  switch (x->kind) {
  case Kind::Mul:
    return baseMod(nodeMul(x->a, mod(x->rhs(), b)), b);
  case Kind::Mod:
    if (b.isInt() && b.getInt() == 0)
      fail("modulo by zero");
    if (b.isInt() && floorMod(x->b, b.getInt()) == 0)
      return nodeMod(x->a, b);
    return baseMod(x, b);
  case Kind::Sum: {
    if (eq(SInt(x), b))
      return num(0);
    if (b.isNode() && truthy(gt((b - SInt(x)).min(), 0)))
      return x;
    std::vector<NodeP> parts;
    for (auto &n : x->nodes)
      parts.push_back(
          n->kind == Kind::Num || n->kind == Kind::Mul ? nodeMod(n, b) : n);
    return baseMod(sum(parts), b);
  }
  default:
    return baseMod(x, b);
  }
}

/// Python `str(x)`: a node renders as `<key>`.
std::string pyStr(const SInt &x) {
  return x.isInt() ? std::to_string(x.getInt())
                   : "<" + x.getNode()->key() + ">";
}

std::string joinSorted(const std::vector<NodeP> &nodes, const char *sep,
                       bool debug) {
  std::vector<std::string> parts;
  for (auto &x : nodes)
    parts.push_back(debug ? x->key() : x->render());
  std::sort(parts.begin(), parts.end());
  std::string s = "(";
  for (size_t i = 0; i < parts.size(); ++i)
    s += (i ? sep : "") + parts[i];
  return s + ")";
}

std::string renderNode(const Node &n, bool debug) {
  auto sub = [&](const NodeP &x) { return debug ? x->key() : x->render(); };
  auto rhs = [&]() { return n.bNode ? sub(n.bNode) : std::to_string(n.b); };
  switch (n.kind) {
  case Kind::Num:
    return std::to_string(n.b);
  case Kind::Var:
    if (!debug)
      return n.name;
    return n.name + "[" + pyStr(n.min) + "-" + pyStr(n.max) +
           (n.bound ? "=" + std::to_string(*n.bound) : "") + "]";
  case Kind::Mul:
    // A product of two named Variables renders in name order.
    if (n.bNode && n.a->kind == Kind::Var && n.bNode->kind == Kind::Var &&
        !n.a->name.empty() && !n.bNode->name.empty() &&
        n.bNode->name < n.a->name)
      return "(" + sub(n.bNode) + "*" + sub(n.a) + ")";
    return "(" + sub(n.a) + "*" + rhs() + ")";
  case Kind::Div:
    return "(" + sub(n.a) + "//" + std::to_string(n.b) + ")";
  case Kind::Mod:
    return "(" + sub(n.a) + "%" + std::to_string(n.b) + ")";
  case Kind::Lt:
    return "(" + sub(n.a) + "<" + rhs() + ")";
  case Kind::Sum:
    return joinSorted(n.nodes, "+", debug);
  case Kind::And:
    return joinSorted(n.nodes, " and ", debug);
  }
  return "";
}

} // namespace

//===----------------------------------------------------------------------===//
// SInt and Node
//===----------------------------------------------------------------------===//

SInt::SInt(NodeP n) : ref(std::move(n)) {
  if (!ref)
    fail("null node");
}

std::optional<int64_t> SInt::constant() const {
  if (isInt())
    return value;
  if (isNum(ref))
    return ref->b;
  return std::nullopt;
}

SInt SInt::min() const { return ref ? ref->min : SInt(value); }
SInt SInt::max() const { return ref ? ref->max : SInt(value); }

const std::string &Node::key() const {
  if (keyCache.empty())
    keyCache = renderNode(*this, /*debug=*/true);
  return keyCache;
}

std::string Node::render() const { return renderNode(*this, false); }

//===----------------------------------------------------------------------===//
// Node constructors and node-level rules
//===----------------------------------------------------------------------===//

NodeP lazy::st::sym::num(int64_t v) {
  Node n{Kind::Num};
  n.b = v;
  n.min = n.max = v;
  return make(std::move(n));
}

NodeP lazy::st::sym::var(const std::string &name, int64_t lo, const SInt &hi,
                         std::optional<int64_t> bound) {
  if (lo < 0 || !truthy(le(lo, hi)))
    fail("invalid variable range");
  if (eq(lo, hi))
    return num(lo);
  if (bound && (*bound < lo || !truthy(le(*bound, hi))))
    fail("bound value outside the variable's range");
  Node n{Kind::Var};
  n.name = name;
  n.min = lo;
  n.max = hi;
  n.bound = bound;
  return make(std::move(n));
}

NodeP lazy::st::sym::sum(const std::vector<NodeP> &in) {
  std::vector<NodeP> nodes;
  for (auto &x : in)
    if (truthy(x->max) || truthy(x->min))
      nodes.push_back(x);
  if (nodes.empty())
    return num(0);
  if (nodes.size() == 1)
    return nodes[0];

  // Group like terms by key, keeping first-seen order and node. A product
  // by a node adds its node coefficient.
  std::vector<std::pair<NodeP, SInt>> groups;
  std::unordered_map<std::string, size_t> index;
  int64_t constant = 0;
  std::vector<NodeP> flat;
  flatten(nodes, flat);
  for (auto &x : flat) {
    if (x->kind == Kind::Num) {
      constant = checkedAdd(constant, x->b);
      continue;
    }
    NodeP base = x->kind == Kind::Mul ? x->a : x;
    SInt coef = x->kind == Kind::Mul ? x->rhs() : SInt(1);
    auto [it, inserted] = index.try_emplace(base->key(), groups.size());
    if (inserted)
      groups.push_back({base, SInt(0) + coef});
    else
      groups[it->second].second = groups[it->second].second + coef;
  }
  std::vector<NodeP> out;
  for (auto &[base, coef] : groups) {
    if (eq(coef, 0))
      continue;
    out.push_back(!eq(coef, 1) ? make(mulNode(base, coef)) : base);
  }
  if (constant)
    out.push_back(num(constant));
  if (out.size() > 1)
    return create(sumNode(std::move(out)));
  if (out.size() == 1)
    return out[0];
  return num(0);
}

NodeP lazy::st::sym::ands(const std::vector<NodeP> &in) {
  if (in.empty())
    return num(1);
  if (in.size() == 1)
    return in[0];
  for (auto &x : in)
    if (!truthy(SInt(x)))
      return num(0);
  std::vector<NodeP> nodes;
  for (auto &x : in)
    if (!eq(x->min, x->max))
      nodes.push_back(x);
  if (nodes.size() > 1) {
    Node n{Kind::And};
    n.min = nodes[0]->min;
    n.max = nodes[0]->max;
    for (size_t i = 1; i < nodes.size(); ++i) {
      n.min = pymin(n.min, nodes[i]->min);
      n.max = pymax(n.max, nodes[i]->max);
    }
    n.nodes = std::move(nodes);
    return create(std::move(n));
  }
  if (nodes.size() == 1)
    return nodes[0];
  return num(1);
}

NodeP lazy::st::sym::createLt(const NodeP &lhsIn, const SInt &bIn) {
  NodeP lhs = lhsIn;
  if (lhs->kind == Kind::Sum) {
    if (bIn.isInt()) {
      int64_t b = bIn.getInt();
      std::vector<NodeP> terms;
      for (auto &x : lhs->nodes) {
        if (x->kind == Kind::Num)
          b -= x->b;
        else
          terms.push_back(x);
      }
      lhs = sum(terms);
      std::vector<NodeP> nodes =
          lhs->kind == Kind::Sum ? lhs->nodes : std::vector<NodeP>{lhs};
      for (auto &x : nodes)
        if (x->kind == Kind::Mul && x->bNode)
          fail("not supported: comparison of a product by a node");
      std::vector<NodeP> muls, others;
      for (auto &x : nodes) {
        if (x->kind == Kind::Mul && x->b > 0 && truthy(ge(x->max, b)))
          muls.push_back(x);
        else
          others.push_back(x);
      }
      if (!muls.empty()) {
        int64_t g = b;
        for (auto &m : muls)
          g = std::gcd(g, m->b);
        NodeP rest = sum(others);
        if (nonNegative(rest->min) && truthy(lt(rest->max, g))) {
          std::vector<NodeP> divided;
          for (auto &m : muls)
            divided.push_back(nodeFloorDiv(m, g, std::nullopt));
          lhs = sum(divided);
          b = floorDiv(b, g);
        }
      }
      if (lhs->kind == Kind::Sum)
        return create(ltNode(lhs, b));
      return createLt(lhs, b);
    }
    return create(ltNode(lhs, bIn));
  }
  if (lhs->kind == Kind::Mul) {
    if (bIn.isNode() || lhs->bNode || lhs->b == -1)
      return create(ltNode(lhs, bIn));
    int64_t sgn = lhs->b > 0 ? 1 : -1, m = std::abs(lhs->b);
    return create(
        ltNode(nodeMul(lhs->a, sgn), floorDiv(bIn.getInt() + m - 1, m)));
  }
  return create(ltNode(lhs, bIn));
}

NodeP lazy::st::sym::createGe(const NodeP &lhs, const SInt &b) {
  return createLt(nodeMul(lhs, -1), -b + SInt(1));
}

NodeP lazy::st::sym::substitute(const NodeP &x,
                                const std::map<std::string, NodeP> &map) {
  auto subInt = [&](const SInt &v) {
    return v.isInt() ? v : SInt(substitute(v.getNode(), map));
  };
  switch (x->kind) {
  case Kind::Num:
    return x;
  case Kind::Var: {
    auto it = map.find(x->key());
    return it == map.end() ? x : it->second;
  }
  case Kind::Mul:
    return nodeMul(substitute(x->a, map), subInt(x->rhs()));
  case Kind::Div:
    return asNode(floordiv(SInt(substitute(x->a, map)), SInt(x->b)));
  case Kind::Mod:
    return asNode(mod(SInt(substitute(x->a, map)), SInt(x->b)));
  case Kind::Lt:
    return createLt(substitute(x->a, map), subInt(x->rhs()));
  case Kind::Sum:
  case Kind::And: {
    std::vector<NodeP> parts;
    for (auto &n : x->nodes)
      parts.push_back(substitute(n, map));
    return x->kind == Kind::Sum ? sum(parts) : ands(parts);
  }
  }
  return x;
}

void lazy::st::sym::collectVars(const NodeP &x,
                                std::map<std::string, NodeP> &out) {
  switch (x->kind) {
  case Kind::Num:
    return;
  case Kind::Var:
    out.emplace(x->key(), x);
    return;
  case Kind::Sum:
  case Kind::And:
    for (auto &n : x->nodes)
      collectVars(n, out);
    return;
  default:
    collectVars(x->a, out);
    if (x->bNode)
      collectVars(x->bNode, out);
  }
}

void lazy::st::sym::collectVars(const NodeP &x, std::set<std::string> &out) {
  std::map<std::string, NodeP> vars;
  collectVars(x, vars);
  for (auto &kv : vars)
    out.insert(kv.first);
}

NodeP lazy::st::sym::unboundVar(const NodeP &v) {
  if (v->kind != Kind::Var || !v->bound)
    fail("cannot unbind a node that is not a bound Variable");
  return var(v->name, v->min.getInt(), v->max);
}

NodeP lazy::st::sym::unbind(const NodeP &x) {
  std::map<std::string, NodeP> vars, map;
  collectVars(x, vars);
  // tinygrad reads every Variable's value here, so all must be bound.
  for (auto &[k, v] : vars)
    map.emplace(k, unboundVar(v));
  return map.empty() ? x : substitute(x, map);
}

NodeP lazy::st::sym::mul(const NodeP &x, int64_t b) { return nodeMul(x, b); }
NodeP lazy::st::sym::floordiv(const NodeP &x, int64_t b) {
  return nodeFloorDiv(x, b, std::nullopt);
}
NodeP lazy::st::sym::mod(const NodeP &x, int64_t b) {
  if (b == 0)
    fail("modulo by zero");
  return nodeMod(x, b);
}
NodeP lazy::st::sym::add(const NodeP &x, int64_t c) { return addNode(x, c); }
NodeP lazy::st::sym::lessThan(const NodeP &lhs, int64_t b) {
  return createLt(lhs, b);
}
NodeP lazy::st::sym::greaterEq(const NodeP &lhs, int64_t b) {
  return createGe(lhs, b);
}

//===----------------------------------------------------------------------===//
// Python operators on int | Node
//===----------------------------------------------------------------------===//

SInt lazy::st::sym::operator+(const SInt &a, const SInt &b) {
  if (a.isInt() && b.isInt())
    return checkedAdd(a.getInt(), b.getInt());
  if (a.isNode())
    return addNode(a.getNode(), b);
  return addNode(b.getNode(), a); // int.__add__ defers to Node.__radd__
}

SInt lazy::st::sym::operator-(const SInt &a) {
  if (a.isInt())
    return checkedMul(a.getInt(), -1);
  return nodeMul(a.getNode(), -1);
}

SInt lazy::st::sym::operator-(const SInt &a, const SInt &b) {
  if (a.isInt() && b.isInt())
    return checkedAdd(a.getInt(), -b.getInt());
  if (a.isNode())
    return addNode(a.getNode(), -b);
  return addNode((-b).getNode(), a); // Node.__rsub__: -self + a
}

SInt lazy::st::sym::operator*(const SInt &a, const SInt &b) {
  if (a.isInt() && b.isInt())
    return checkedMul(a.getInt(), b.getInt());
  if (a.isNode())
    return nodeMul(a.getNode(), b);
  return nodeMul(b.getNode(), a);
}

SInt lazy::st::sym::floordiv(const SInt &a, const SInt &b) {
  if (a.isInt() && b.isInt()) {
    if (b.getInt() == 0)
      fail("division by zero");
    if (b.getInt() == -1)
      return checkedMul(a.getInt(), -1); // INT64_MIN // -1 overflows
    return floorDiv(a.getInt(), b.getInt());
  }
  if (a.isNode())
    return nodeFloorDiv(a.getNode(), b, std::nullopt);
  // Node.__rfloordiv__: NumNode(a) // b, whose class has no rule of its own.
  return baseFloorDiv(num(a.getInt()), b, true);
}

SInt lazy::st::sym::mod(const SInt &a, const SInt &b) {
  if (a.isInt() && b.isInt()) {
    if (b.getInt() == 0)
      fail("modulo by zero");
    if (b.getInt() == -1)
      return int64_t(0); // INT64_MIN % -1 traps in C++
    return floorMod(a.getInt(), b.getInt());
  }
  if (a.isNode())
    return nodeMod(a.getNode(), b);
  return baseMod(num(a.getInt()), b);
}

SInt lazy::st::sym::lt(const SInt &a, const SInt &b) {
  if (a.isInt() && b.isInt())
    return int64_t(a.getInt() < b.getInt());
  if (a.isNode())
    return create(ltNode(a.getNode(), b));
  return gt(b, a); // reflected: b > a
}

SInt lazy::st::sym::gt(const SInt &a, const SInt &b) {
  if (a.isInt() && b.isInt())
    return int64_t(a.getInt() > b.getInt());
  if (a.isNode())
    return lt(-a, -b); // Node.__gt__: (-self) < (-b)
  return lt(b, a);     // reflected: b < a
}

SInt lazy::st::sym::le(const SInt &a, const SInt &b) {
  if (a.isInt() && b.isInt())
    return int64_t(a.getInt() <= b.getInt());
  if (a.isNode())
    return lt(a, b + SInt(1)); // Node.__le__: self < (b+1)
  return ge(b, a);             // reflected: b >= a
}

SInt lazy::st::sym::ge(const SInt &a, const SInt &b) {
  if (a.isInt() && b.isInt())
    return int64_t(a.getInt() >= b.getInt());
  if (a.isNode())
    return lt(-a, -b + SInt(1)); // Node.__ge__: (-self) < (-b+1)
  return le(b, a);               // reflected: b <= a
}

bool lazy::st::sym::truthy(const SInt &x) {
  if (x.isInt())
    return x.getInt() != 0;
  // not (max == min == 0)
  const Node &n = *x.getNode();
  return !(eq(n.max, n.min) && eq(n.min, 0));
}

bool lazy::st::sym::eq(const SInt &a, const SInt &b) {
  if (a.isInt() && b.isInt())
    return a.getInt() == b.getInt();
  if (a.isInt() || b.isInt()) {
    // Only a NumNode compares equal to an int.
    const NodeP &n = a.isInt() ? b.getNode() : a.getNode();
    int64_t v = a.isInt() ? a.getInt() : b.getInt();
    return isNum(n) && n->b == v;
  }
  const NodeP &x = a.getNode(), &y = b.getNode();
  if (x == y)
    return true;
  // NumNode.__eq__ compares values; any other node compares renderings.
  if (isNum(x) || isNum(y))
    return isNum(x) && isNum(y) && x->b == y->b;
  return x->key() == y->key();
}

SInt lazy::st::sym::pymax(const SInt &a, const SInt &b) {
  return truthy(gt(b, a)) ? b : a;
}

SInt lazy::st::sym::pymin(const SInt &a, const SInt &b) {
  return truthy(lt(b, a)) ? b : a;
}

int64_t lazy::st::sym::infer(const SInt &x,
                             const std::map<std::string, int64_t> &values) {
  if (x.isInt())
    return x.getInt();
  std::map<std::string, NodeP> map;
  for (auto &[k, v] : values)
    map.emplace(k, num(v));
  NodeP r = substitute(x.getNode(), map);
  if (!isNum(r))
    fail("a Variable has no value");
  return r->b;
}

std::string lazy::st::sym::render(const SInt &x) {
  return x.isInt() ? std::to_string(x.getInt()) : x.getNode()->render();
}

std::string lazy::st::sym::key(const SInt &x) {
  return x.isInt() ? std::to_string(x.getInt()) : x.getNode()->key();
}
