//===- Symbolic.h - Symbolic integers (tinygrad's sint) ---------*- C++ -*-===//
//
// Part of lazy-mlir. Plain C++17, no MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//
//
// tinygrad 0.9.2's symbolic module (`tinygrad/shape/symbolic.py`), restated:
// immutable expression nodes over bounded integer Variables, kept in the
// normal forms tinygrad's rewrite rules produce, and `SInt`, a value that is
// either a plain integer or a node (tinygrad's `sint = int | Node`).
//
// Two uses:
//  * symbolic shapes: a View's shape, strides, offset and mask entries are
//    SInts, and a Variable may carry the value it is bound to;
//  * index expressions: ShapeTracker::realStrides reads strides off the
//    simplified expression, exactly as tinygrad does.
//
// The SInt operations reproduce Python's operator dispatch on `int | Node`,
// including its quirks, because the View algebra's decisions depend on them:
//  * `int op Node` goes to the node's reflected method (`3 - x` is
//    `-x + 3`, `3 // x` is `NumNode(3) // x`);
//  * comparisons of nodes build `LtNode`s, and `truthy` is tinygrad's
//    `bool(node)`: false only when the node is exactly 0, so a symbolic
//    comparison is "true" whenever it may be true;
//  * `eq` is Python `==`: a NumNode equals the int of its value, other
//    nodes equal nodes with the same rendering and never an int;
//  * a NumNode is not an int (`isInt` is false), as `isinstance` sees it.
//
// Structural identity follows tinygrad: two nodes are equal iff their debug
// renderings (`key()`, which includes a Variable's bound value) are equal.
// Where tinygrad raises (an assertion, "not supported"), the functions here
// throw sym::Error.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_SHAPETRACKER_SYMBOLIC_H
#define LAZY_SHAPETRACKER_SYMBOLIC_H

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace lazy::st::sym {

struct Error {
  const char *what;
};

enum class Kind { Num, Var, Mul, Div, Mod, Lt, Sum, And };

struct Node;
using NodeP = std::shared_ptr<const Node>;

/// tinygrad's `sint`: a plain integer, or a node (which may be a NumNode).
class SInt {
public:
  SInt() = default;
  template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
  SInt(T v) : value(static_cast<int64_t>(v)) {}
  SInt(NodeP n);

  bool isInt() const { return !ref; }
  bool isNode() const { return bool(ref); }
  /// The integer; only for isInt().
  int64_t getInt() const { return value; }
  const NodeP &getNode() const { return ref; }
  /// The value when it is an int or a NumNode.
  std::optional<int64_t> constant() const;
  /// Smallest and largest value (the int itself for an int). A bound is
  /// itself symbolic where a Variable ranges up to a node, as the index of
  /// a dim of `start_pos + 1` elements does.
  SInt min() const;
  SInt max() const;

private:
  int64_t value = 0;
  NodeP ref;
};

struct Node {
  explicit Node(Kind k) : kind(k) {}
  Kind kind;
  /// Bounds: ints, or nodes below a Variable with a node maximum.
  SInt min, max;
  /// The value of a Num; the integer right operand of Div/Mod, and of
  /// Mul/Lt when bNode is null.
  int64_t b = 0;
  /// The node right operand of Mul/Lt (tinygrad allows `x * node` and
  /// `x < node`); null when the operand is an integer.
  NodeP bNode;
  /// Left operand of Mul/Div/Mod/Lt.
  NodeP a;
  /// Operands of Sum/And, in construction order (which some rules observe).
  std::vector<NodeP> nodes;
  /// Variable name, and the value it is bound to, if any.
  std::string name;
  std::optional<int64_t> bound;

  /// The right operand of Mul/Lt as an SInt.
  SInt rhs() const { return bNode ? SInt(bNode) : SInt(b); }
  /// tinygrad's DEBUG rendering (`x[1-8=4]`); the node's identity.
  const std::string &key() const;
  /// tinygrad's plain rendering (`x`, `(1+x)`), as in generated code.
  std::string render() const;

private:
  mutable std::string keyCache;
};

//===----------------------------------------------------------------------===//
// Node constructors and node-level rules
//===----------------------------------------------------------------------===//

NodeP num(int64_t v);
/// `Variable(name, lo, hi)`, optionally bound; a NumNode when lo == hi.
/// `hi` may be a node (an index below a symbolic extent).
NodeP var(const std::string &name, int64_t lo, const SInt &hi,
          std::optional<int64_t> bound = std::nullopt);

/// `Node.sum`: flattens, groups like terms, folds constants.
NodeP sum(const std::vector<NodeP> &nodes);
/// `Node.ands`.
NodeP ands(const std::vector<NodeP> &nodes);
/// `create_lt_node(lhs, b)` / `create_ge_node(lhs, b)`: the comparisons of
/// index validity, with their extra simplifications.
NodeP createLt(const NodeP &lhs, const SInt &b);
NodeP createGe(const NodeP &lhs, const SInt &b);

/// Replace Variables (by key) with the mapped nodes and re-simplify.
NodeP substitute(const NodeP &x, const std::map<std::string, NodeP> &map);
/// The Variables of `x` (by key).
void collectVars(const NodeP &x, std::map<std::string, NodeP> &out);
void collectVars(const NodeP &x, std::set<std::string> &out);
/// The unbound twin of a bound Variable (same name and range).
NodeP unboundVar(const NodeP &v);
/// `x` with every bound Variable replaced by its unbound twin.
NodeP unbind(const NodeP &x);

// Integer right operands, for index expressions.
NodeP mul(const NodeP &x, int64_t b);
NodeP floordiv(const NodeP &x, int64_t b);
NodeP mod(const NodeP &x, int64_t b);
NodeP add(const NodeP &x, int64_t c);
NodeP lessThan(const NodeP &lhs, int64_t b);
NodeP greaterEq(const NodeP &lhs, int64_t b);

//===----------------------------------------------------------------------===//
// Python operators on int | Node
//===----------------------------------------------------------------------===//

SInt operator+(const SInt &a, const SInt &b);
SInt operator-(const SInt &a, const SInt &b);
SInt operator-(const SInt &a);
SInt operator*(const SInt &a, const SInt &b);
/// Python `a // b` and `a % b`.
SInt floordiv(const SInt &a, const SInt &b);
SInt mod(const SInt &a, const SInt &b);
/// Python `<`, `<=`, `>`, `>=`: an int 0/1 for two ints, else a node.
SInt lt(const SInt &a, const SInt &b);
SInt le(const SInt &a, const SInt &b);
SInt gt(const SInt &a, const SInt &b);
SInt ge(const SInt &a, const SInt &b);
/// Python `bool(x)`.
bool truthy(const SInt &x);
/// Python `a == b` (see the file comment).
bool eq(const SInt &a, const SInt &b);
inline bool operator==(const SInt &a, const SInt &b) { return eq(a, b); }
inline bool operator!=(const SInt &a, const SInt &b) { return !eq(a, b); }
/// Python's builtin `max(a, b)` / `min(a, b)`: `b` replaces `a` when
/// `b > a` (`b < a`) is truthy.
SInt pymax(const SInt &a, const SInt &b);
SInt pymin(const SInt &a, const SInt &b);

/// `sym_infer`: the value of `x` with Variables (by key) set to `values`;
/// throws if some Variable is left.
int64_t infer(const SInt &x, const std::map<std::string, int64_t> &values);
/// `sym_render` with the plain (ctx None) or the DEBUG rendering.
std::string render(const SInt &x);
std::string key(const SInt &x);

} // namespace lazy::st::sym

#endif // LAZY_SHAPETRACKER_SYMBOLIC_H
