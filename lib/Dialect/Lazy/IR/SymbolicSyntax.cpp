//===- SymbolicSyntax.cpp - Symbolic ints in lazy attributes --------------===//
//
// Part of lazy-mlir.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/IR/SymbolicSyntax.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::lazy;
using ::lazy::st::sym::Kind;
using ::lazy::st::sym::Node;
using ::lazy::st::sym::NodeP;
using ::lazy::st::sym::SInt;
namespace sym = ::lazy::st::sym;

namespace {

/// Deepest nesting of parentheses the parser accepts; tinygrad's shapes
/// nest a few levels.
constexpr int kMaxDepth = 32;
/// Largest magnitude of an integer in a symbolic expression: the algebra
/// computes in int64_t, and sums and products of a few such values stay
/// in range or are caught as overflow.
constexpr int64_t kMaxMagnitude = int64_t(1) << 62;

ParseResult parseBoundedInteger(AsmParser &parser, int64_t &value) {
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseInteger(value))
    return failure();
  if (value > kMaxMagnitude || value < -kMaxMagnitude)
    return parser.emitError(loc) << "integer " << value
                                 << " is too large for a symbolic expression "
                                    "(at most 2^62 in magnitude)";
  return success();
}

std::string nodeText(const Node &n) {
  auto sub = [](const NodeP &x) { return nodeText(*x); };
  switch (n.kind) {
  case Kind::Num:
    return std::to_string(n.b);
  case Kind::Var: {
    std::string s = n.name + "[" + sintText(n.min) + ":" + sintText(n.max);
    if (n.bound)
      s += "=" + std::to_string(*n.bound);
    return s + "]";
  }
  case Kind::Mul:
    // A product of two Variables prints in name order, as tinygrad
    // renders it.
    if (n.bNode && n.a->kind == Kind::Var && n.bNode->kind == Kind::Var &&
        !n.a->name.empty() && !n.bNode->name.empty() &&
        n.bNode->name < n.a->name)
      return "(" + sub(n.bNode) + " * " + sub(n.a) + ")";
    return "(" + sub(n.a) + " * " + sintText(n.rhs()) + ")";
  case Kind::Div:
    return "(" + sub(n.a) + " floordiv " + std::to_string(n.b) + ")";
  case Kind::Mod:
    return "(" + sub(n.a) + " mod " + std::to_string(n.b) + ")";
  case Kind::Lt:
    return "(" + sub(n.a) + " < " + sintText(n.rhs()) + ")";
  case Kind::Sum:
  case Kind::And: {
    // Sorted, as tinygrad renders them, so equal nodes print alike.
    std::vector<std::string> parts;
    for (auto &x : n.nodes)
      parts.push_back(sub(x));
    std::sort(parts.begin(), parts.end());
    std::string s = "(";
    for (size_t i = 0; i < parts.size(); ++i)
      s += (i ? (n.kind == Kind::Sum ? " + " : " and ") : "") + parts[i];
    return s + ")";
  }
  }
  return "";
}

ParseResult parseNode(AsmParser &parser, SInt &value, int depth);

/// A Variable: `name[lo:hi]` or `name[lo:hi=bound]`.
ParseResult parseVariable(AsmParser &parser, StringRef name, SInt &value) {
  SMLoc loc = parser.getCurrentLocation();
  int64_t lo, hi;
  if (parser.parseLSquare() || parser.parseInteger(lo) || parser.parseColon() ||
      parser.parseInteger(hi))
    return failure();
  std::optional<int64_t> bound;
  if (succeeded(parser.parseOptionalEqual())) {
    int64_t b;
    if (parser.parseInteger(b))
      return failure();
    bound = b;
  }
  if (parser.parseRSquare())
    return failure();
  if (lo < 0 || lo > hi)
    return parser.emitError(loc)
           << "Variable '" << name << "' needs 0 <= " << lo << " <= " << hi;
  if (bound && (*bound < lo || *bound > hi))
    return parser.emitError(loc)
           << "Variable '" << name << "' is bound to " << *bound
           << ", outside its range [" << lo << ", " << hi << "]";
  value = sym::var(name.str(), lo, hi, bound);
  return success();
}

ParseResult parseNode(AsmParser &parser, SInt &value, int depth) {
  SMLoc loc = parser.getCurrentLocation();
  if (depth > kMaxDepth)
    return parser.emitError(loc) << "symbolic expression nested too deeply";
  int64_t number;
  OptionalParseResult intResult = parser.parseOptionalInteger(number);
  if (intResult.has_value()) {
    if (failed(*intResult))
      return failure();
    // A whole entry that is an integer is checked by the integer
    // verifier; inside an expression the algebra needs headroom.
    if (depth > 0 && (number > kMaxMagnitude || number < -kMaxMagnitude))
      return parser.emitError(loc)
             << "integer " << number
             << " is too large for a symbolic expression (at most 2^62 in "
                "magnitude)";
    value = number;
    return success();
  }
  StringRef name;
  if (succeeded(parser.parseOptionalKeyword(&name)))
    return parseVariable(parser, name, value);
  if (parser.parseLParen())
    return failure();
  SInt first;
  if (parseNode(parser, first, depth + 1))
    return failure();
  try {
    if (succeeded(parser.parseOptionalPlus())) {
      std::vector<SInt> terms{first};
      do {
        SInt term;
        if (parseNode(parser, term, depth + 1))
          return failure();
        terms.push_back(term);
      } while (succeeded(parser.parseOptionalPlus()));
      SInt total = 0;
      for (const SInt &t : terms)
        total = total + t;
      value = total;
    } else if (succeeded(parser.parseOptionalStar())) {
      SInt rhs;
      if (parseNode(parser, rhs, depth + 1))
        return failure();
      value = first * rhs;
    } else if (succeeded(parser.parseOptionalKeyword("floordiv"))) {
      int64_t d;
      if (parseBoundedInteger(parser, d))
        return failure();
      if (d == 0)
        return parser.emitError(loc) << "division by zero";
      value = sym::floordiv(first, d);
    } else if (succeeded(parser.parseOptionalKeyword("mod"))) {
      int64_t d;
      if (parseBoundedInteger(parser, d))
        return failure();
      if (d <= 0)
        return parser.emitError(loc) << "modulo by a non-positive number";
      value = sym::mod(first, d);
    } else {
      return parser.emitError(parser.getCurrentLocation(),
                              "expected '+', '*', 'floordiv' or 'mod'");
    }
  } catch (const sym::Error &e) {
    return parser.emitError(loc) << "invalid symbolic expression: " << e.what;
  }
  return parser.parseRParen();
}

} // namespace

std::string mlir::lazy::sintText(const SInt &value) {
  return value.isInt() ? std::to_string(value.getInt())
                       : nodeText(*value.getNode());
}

void mlir::lazy::printSInt(llvm::raw_ostream &os, const SInt &value) {
  os << sintText(value);
}

ParseResult mlir::lazy::parseVariableAfterName(AsmParser &parser,
                                               StringRef name, SInt &value) {
  return parseVariable(parser, name, value);
}

ParseResult mlir::lazy::parseSInt(AsmParser &parser, SInt &value) {
  if (parseNode(parser, value, 0))
    return failure();
  // A whole entry that folds to a constant is that int.
  if (value.isNode() && value.getNode()->kind == Kind::Num)
    value = value.getNode()->b;
  return success();
}

namespace lazy::st::sym {
llvm::hash_code hash_value(const SInt &value) {
  if (value.isInt())
    return llvm::hash_value(value.getInt());
  return llvm::hash_value(value.getNode()->key());
}
} // namespace lazy::st::sym
