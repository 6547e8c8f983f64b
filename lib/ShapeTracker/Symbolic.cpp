//===- Symbolic.cpp - Integer index expressions ---------------------------===//
//
// Part of lazy-mlir. Plain C++17, no MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//
//
// Rewrite rules (an independent restatement of tinygrad 0.9.2's symbolic
// normal forms; only integer right operands occur in index expressions):
//
//  * Any node whose bounds collapse (min == max) becomes a constant.
//  * Multiplication distributes into sums and folds into an existing
//    product; by 0 or 1 it is trivial.
//  * Sums are flattened, like terms (same key) are grouped with their
//    coefficients added, constants are folded into one trailing constant.
//  * Floor division: a product whose factor divides (or is divided by) the
//    divisor cancels; nested divisions combine; `(x % m) // d` with d | m
//    becomes `(x // d) % (m / d)`; a sum is split into the terms the divisor
//    divides exactly and a remainder, which is divided by the gcd first.
//    Numerators that may be negative are shifted to be non-negative first.
//  * Modulo: products and constants inside a sum are reduced term-wise;
//    nested modulo by a multiple collapses; if the whole range lies in one
//    period the modulo becomes a subtraction.
//  * Comparisons `sum < c` drop the constants into c and divide through by
//    the gcd of the large positive products when the rest is provably
//    smaller than that gcd.
//
// The order in which these rules fire, including which implementation of a
// rule a node kind uses, is observable in the final form and is reproduced
// deliberately.
//
//===----------------------------------------------------------------------===//

#include "Symbolic.h"
#include "Arith.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <unordered_map>

using namespace lazy::st::sym;
using lazy::st::detail::floorDiv;
using lazy::st::detail::floorMod;

namespace {

[[noreturn]] void fail(const char *what) { throw Error{what}; }

NodeP make(Node n) { return std::make_shared<const Node>(std::move(n)); }

/// Constant-fold a node whose bounds coincide.
NodeP create(Node n) {
  if (n.min > n.max)
    fail("min greater than max");
  if (n.min == n.max)
    return num(n.min);
  return make(std::move(n));
}

/// A product node built directly (bounds only, no folding).
Node mulNode(const NodeP &a, int64_t b) {
  if (a->min < 0)
    fail("product of a possibly negative node");
  Node n{Kind::Mul};
  n.a = a;
  n.b = b;
  if (b >= 0) {
    n.min = a->min * b;
    n.max = a->max * b;
  } else {
    n.min = a->max * b;
    n.max = a->min * b;
  }
  return n;
}

Node divNode(const NodeP &a, int64_t b) {
  if (a->min < 0)
    fail("division of a possibly negative node");
  Node n{Kind::Div};
  n.a = a;
  n.b = b;
  n.min = floorDiv(a->min, b);
  n.max = floorDiv(a->max, b);
  return n;
}

Node modNode(const NodeP &a, int64_t b) {
  if (a->min < 0)
    fail("modulo of a possibly negative node");
  Node n{Kind::Mod};
  n.a = a;
  n.b = b;
  if (a->max - a->min >= b ||
      (a->min != a->max && floorMod(a->min, b) >= floorMod(a->max, b))) {
    n.min = 0;
    n.max = b - 1;
  } else {
    n.min = floorMod(a->min, b);
    n.max = floorMod(a->max, b);
  }
  return n;
}

Node ltNode(const NodeP &a, int64_t b) {
  Node n{Kind::Lt};
  n.a = a;
  n.b = b;
  if (a->kind == Kind::Num && a->b == b) {
    n.min = n.max = 0;
  } else if (a->max < b) {
    n.min = n.max = 1;
  } else if (a->min >= b) {
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
    n.min += x->min;
    n.max += x->max;
  }
  n.nodes = std::move(nodes);
  return n;
}

void flatten(const std::vector<NodeP> &nodes, std::vector<NodeP> &out) {
  for (auto &x : nodes) {
    if (x->kind == Kind::Sum)
      flatten(x->nodes, out);
    else
      out.push_back(x);
  }
}

NodeP add2(const NodeP &x, const NodeP &y) { return sum({x, y}); }

/// Floor division with an explicit "factoring allowed" flag; nullopt means
/// the default of the node kind's own rule.
NodeP floordivF(const NodeP &x, int64_t b, std::optional<bool> factoring);

/// The generic floor-division rule, used by kinds without their own and as
/// fallback by those with one.
NodeP floordivBase(const NodeP &x, int64_t b, bool factoring) {
  if (b == 0)
    fail("division by zero");
  if (b < 0)
    return floordivF(mul(x, -1), -b, factoring);
  if (b == 1)
    return x;
  if (x->min < 0) {
    // Shift the numerator to be non-negative; factoring is not retried.
    int64_t offset = floorDiv(x->min, b);
    return add(floordivF(add(x, -offset * b), b, false), offset);
  }
  return create(divNode(x, b));
}

NodeP floordivSum(const NodeP &x, int64_t b, bool factoring) {
  if (b == 1)
    return x;
  if (!factoring)
    return floordivBase(x, b, false);
  int64_t g = b, divisor = 1;
  std::vector<NodeP> fully, rest, comps;
  flatten(x->nodes, comps);
  for (NodeP c : comps) {
    if (c->kind == Kind::Num || c->kind == Kind::Mul) {
      if (floorMod(c->b, b) == 0) {
        fully.push_back(floordiv(c, b));
        continue;
      }
      if (c->kind == Kind::Num) {
        if (int64_t d = floorDiv(c->b, b)) {
          fully.push_back(num(d));
          c = num(c->b - b * d);
        }
      }
      rest.push_back(c);
      g = std::gcd(g, c->b);
      if (c->kind == Kind::Mul && divisor == 1 && floorMod(b, c->b) == 0)
        divisor = c->b;
    } else {
      rest.push_back(c);
      g = 1;
    }
  }
  if (g > 1)
    return add2(sum(fully), floordiv(floordiv(sum(rest), g), floorDiv(b, g)));
  if (divisor > 1)
    return add2(sum(fully),
                floordiv(floordiv(sum(rest), divisor), floorDiv(b, divisor)));
  return add2(sum(fully), floordivBase(sum(rest), b, true));
}

NodeP floordivF(const NodeP &x, int64_t b, std::optional<bool> factoring) {
  if (b == 0)
    fail("division by zero");
  switch (x->kind) {
  case Kind::Mul:
    if (floorMod(x->b, b) == 0)
      return mul(x->a, floorDiv(x->b, b));
    if (floorMod(b, x->b) == 0 && x->b > 0)
      return floordiv(x->a, floorDiv(b, x->b));
    return floordivBase(x, b, factoring.value_or(false));
  case Kind::Div:
    return floordiv(x->a, x->b * b);
  case Kind::Mod:
    if (floorMod(x->b, b) == 0)
      return mod(floordiv(x->a, b), floorDiv(x->b, b));
    return floordivBase(x, b, factoring.value_or(true));
  case Kind::Sum:
    return floordivSum(x, b, factoring.value_or(true));
  default:
    return floordivBase(x, b, factoring.value_or(true));
  }
}

/// The generic modulo rule.
NodeP modBase(const NodeP &x, int64_t b) {
  if (b <= 0)
    fail("modulo by a non-positive number");
  if (b == 1)
    return num(0);
  if (floorDiv(x->min, b) == floorDiv(x->max, b))
    return add(x, -(b * floorDiv(x->min, b)));
  if (x->min < 0)
    return mod(add(x, -(floorDiv(x->min, b) * b)), b);
  return create(modNode(x, b));
}

} // namespace

const std::string &Node::key() const {
  if (!keyCache.empty())
    return keyCache;
  auto joined = [&](const char *sep) {
    std::vector<std::string> parts;
    for (auto &x : nodes)
      parts.push_back(x->key());
    std::sort(parts.begin(), parts.end());
    std::string s = "(";
    for (size_t i = 0; i < parts.size(); ++i)
      s += (i ? sep : "") + parts[i];
    return s + ")";
  };
  switch (kind) {
  case Kind::Num:
    keyCache = std::to_string(b);
    break;
  case Kind::Var:
    keyCache =
        name + "[" + std::to_string(min) + "-" + std::to_string(max) + "]";
    break;
  case Kind::Mul:
    keyCache = "(" + a->key() + "*" + std::to_string(b) + ")";
    break;
  case Kind::Div:
    keyCache = "(" + a->key() + "//" + std::to_string(b) + ")";
    break;
  case Kind::Mod:
    keyCache = "(" + a->key() + "%" + std::to_string(b) + ")";
    break;
  case Kind::Lt:
    keyCache = "(" + a->key() + "<" + std::to_string(b) + ")";
    break;
  case Kind::Sum:
    keyCache = joined("+");
    break;
  case Kind::And:
    keyCache = joined(" and ");
    break;
  }
  return keyCache;
}

NodeP lazy::st::sym::num(int64_t v) {
  Node n{Kind::Num};
  n.b = n.min = n.max = v;
  return make(std::move(n));
}

NodeP lazy::st::sym::var(const std::string &name, int64_t lo, int64_t hi) {
  if (lo < 0 || lo > hi)
    fail("invalid variable range");
  if (lo == hi)
    return num(lo);
  Node n{Kind::Var};
  n.name = name;
  n.min = lo;
  n.max = hi;
  return make(std::move(n));
}

NodeP lazy::st::sym::mul(const NodeP &x, int64_t b) {
  switch (x->kind) {
  case Kind::Num:
    return num(x->b * b);
  case Kind::Mul:
    return mul(x->a, x->b * b);
  case Kind::Sum: {
    std::vector<NodeP> parts;
    for (auto &n : x->nodes)
      parts.push_back(mul(n, b));
    return sum(parts);
  }
  default:
    if (b == 0)
      return num(0);
    if (b == 1)
      return x;
    return create(mulNode(x, b));
  }
}

NodeP lazy::st::sym::floordiv(const NodeP &x, int64_t b) {
  return floordivF(x, b, std::nullopt);
}

NodeP lazy::st::sym::mod(const NodeP &x, int64_t b) {
  if (b == 0)
    fail("modulo by zero");
  switch (x->kind) {
  case Kind::Mul:
    return modBase(mul(x->a, floorMod(x->b, b)), b);
  case Kind::Mod:
    if (floorMod(x->b, b) == 0)
      return mod(x->a, b);
    return modBase(x, b);
  case Kind::Sum: {
    std::vector<NodeP> parts;
    for (auto &n : x->nodes)
      parts.push_back(n->kind == Kind::Num || n->kind == Kind::Mul ? mod(n, b)
                                                                   : n);
    return modBase(sum(parts), b);
  }
  default:
    return modBase(x, b);
  }
}

NodeP lazy::st::sym::sum(const std::vector<NodeP> &in) {
  std::vector<NodeP> nodes;
  for (auto &x : in)
    if (x->max != 0 || x->min != 0)
      nodes.push_back(x);
  if (nodes.empty())
    return num(0);
  if (nodes.size() == 1)
    return nodes[0];

  // Group like terms by key, keeping first-seen order and node.
  std::vector<std::pair<NodeP, int64_t>> groups;
  std::unordered_map<std::string, size_t> index;
  int64_t constant = 0;
  std::vector<NodeP> flat;
  flatten(nodes, flat);
  for (auto &x : flat) {
    if (x->kind == Kind::Num) {
      constant += x->b;
      continue;
    }
    NodeP base = x->kind == Kind::Mul ? x->a : x;
    int64_t coef = x->kind == Kind::Mul ? x->b : 1;
    auto [it, inserted] = index.try_emplace(base->key(), groups.size());
    if (inserted)
      groups.push_back({base, coef});
    else
      groups[it->second].second += coef;
  }
  std::vector<NodeP> out;
  for (auto &[base, coef] : groups) {
    if (coef == 0)
      continue;
    out.push_back(coef != 1 ? make(mulNode(base, coef)) : base);
  }
  if (constant)
    out.push_back(num(constant));
  if (out.size() > 1)
    return create(sumNode(std::move(out)));
  if (out.size() == 1)
    return out[0];
  return num(0);
}

NodeP lazy::st::sym::add(const NodeP &x, int64_t c) { return sum({x, num(c)}); }

NodeP lazy::st::sym::ands(const std::vector<NodeP> &in) {
  if (in.empty())
    return num(1);
  if (in.size() == 1)
    return in[0];
  for (auto &x : in)
    if (x->max == 0 && x->min == 0)
      return num(0);
  std::vector<NodeP> nodes;
  for (auto &x : in)
    if (x->min != x->max)
      nodes.push_back(x);
  if (nodes.size() > 1) {
    Node n{Kind::And};
    n.min = nodes[0]->min;
    n.max = nodes[0]->max;
    for (auto &x : nodes) {
      n.min = std::min(n.min, x->min);
      n.max = std::max(n.max, x->max);
    }
    n.nodes = std::move(nodes);
    return create(std::move(n));
  }
  if (nodes.size() == 1)
    return nodes[0];
  return num(1);
}

NodeP lazy::st::sym::lessThan(const NodeP &lhsIn, int64_t b) {
  NodeP lhs = lhsIn;
  if (lhs->kind == Kind::Sum) {
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
    std::vector<NodeP> muls, others;
    for (auto &x : nodes) {
      if (x->kind == Kind::Mul && x->b > 0 && x->max >= b)
        muls.push_back(x);
      else
        others.push_back(x);
    }
    if (!muls.empty()) {
      int64_t g = b;
      for (auto &m : muls)
        g = std::gcd(g, m->b);
      NodeP rest = sum(others);
      if (rest->min >= 0 && rest->max < g) {
        std::vector<NodeP> divided;
        for (auto &m : muls)
          divided.push_back(floordiv(m, g));
        lhs = sum(divided);
        b = floorDiv(b, g);
      }
    }
    if (lhs->kind == Kind::Sum)
      return create(ltNode(lhs, b));
    return lessThan(lhs, b);
  }
  if (lhs->kind == Kind::Mul) {
    if (lhs->b == -1)
      return create(ltNode(lhs, b));
    int64_t sgn = lhs->b > 0 ? 1 : -1, m = std::abs(lhs->b);
    return create(ltNode(mul(lhs->a, sgn), floorDiv(b + m - 1, m)));
  }
  return create(ltNode(lhs, b));
}

NodeP lazy::st::sym::greaterEq(const NodeP &lhs, int64_t b) {
  return lessThan(mul(lhs, -1), -b + 1);
}

void lazy::st::sym::collectVars(const NodeP &x, std::set<std::string> &out) {
  switch (x->kind) {
  case Kind::Num:
    return;
  case Kind::Var:
    out.insert(x->key());
    return;
  case Kind::Sum:
  case Kind::And:
    for (auto &n : x->nodes)
      collectVars(n, out);
    return;
  default:
    collectVars(x->a, out);
  }
}
