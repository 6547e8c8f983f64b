//===- Symbolic.h - Integer index expressions (private) ---------*- C++ -*-===//
//
// Part of lazy-mlir. Private to lib/ShapeTracker.
//
//===----------------------------------------------------------------------===//
//
// A small rewriting simplifier over integer index expressions, reproducing
// the normal forms of tinygrad 0.9.2's symbolic module. It exists only so
// that ShapeTracker::realStrides can read strides off the *simplified*
// expression exactly as tinygrad does: which dims end up as a plain
// `idx * c` term depends on those simplification rules, not on the
// mathematical function alone.
//
// Nodes are immutable and shared. Structural identity follows tinygrad: two
// nodes are equal iff their debug renderings (`key()`) are equal. Where
// tinygrad would raise (an assertion inside its simplifier), the functions
// here throw sym::Error; ShapeTracker catches it at its API boundary.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_LIB_SHAPETRACKER_SYMBOLIC_H
#define LAZY_LIB_SHAPETRACKER_SYMBOLIC_H

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace lazy::st::sym {

struct Error {
  const char *what;
};

enum class Kind { Num, Var, Mul, Div, Mod, Lt, Sum, And };

struct Node;
using NodeP = std::shared_ptr<const Node>;

struct Node {
  explicit Node(Kind k) : kind(k) {}
  Kind kind;
  int64_t min = 0, max = 0;
  /// Constant operand: the value of a Num, the right operand of Mul/Div/
  /// Mod/Lt.
  int64_t b = 0;
  /// Left operand of Mul/Div/Mod/Lt.
  NodeP a;
  /// Operands of Sum/And, in construction order (which some rules observe).
  std::vector<NodeP> nodes;
  /// Variable name.
  std::string name;

  const std::string &key() const;

private:
  mutable std::string keyCache;
};

NodeP num(int64_t v);
/// A variable ranging over [lo, hi]; a constant when lo == hi.
NodeP var(const std::string &name, int64_t lo, int64_t hi);

NodeP mul(const NodeP &x, int64_t b);
/// `x // b` with the per-node-kind rewrite rules.
NodeP floordiv(const NodeP &x, int64_t b);
/// `x % b` with the per-node-kind rewrite rules.
NodeP mod(const NodeP &x, int64_t b);
/// Canonical sum: flattens, groups like terms, folds constants.
NodeP sum(const std::vector<NodeP> &nodes);
NodeP add(const NodeP &x, int64_t c);
NodeP ands(const std::vector<NodeP> &nodes);
/// `lhs < b` / `lhs >= b`, simplified.
NodeP lessThan(const NodeP &lhs, int64_t b);
NodeP greaterEq(const NodeP &lhs, int64_t b);

/// Keys of the variables occurring in `x`.
void collectVars(const NodeP &x, std::set<std::string> &out);

} // namespace lazy::st::sym

#endif // LAZY_LIB_SHAPETRACKER_SYMBOLIC_H
