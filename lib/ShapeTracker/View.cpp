//===- View.cpp - A single strided, masked view of a buffer ---------------===//
//
// Part of lazy-mlir. Plain C++17, no MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//
//
// View is tinygrad 0.9.2's View over plain integers: the rules themselves
// live in ViewAlgebra.h, shared with SymView; this file gives them the
// integer policy (C++ comparisons, Python's floor division, products that
// saturate instead of overflowing) and holds the argument checks that
// callers run before a movement op.
//
// The integer bounds of a projected index during composition are a linear
// form `k + sum(coef[d] * idx_d)` with idx_d in [0, shape[d]-1]: tinygrad
// checks them on an (always linear) symbolic sum with exactly these bounds.
//
//===----------------------------------------------------------------------===//

#include "lazy/ShapeTracker/View.h"
#include "Arith.h"
#include "ViewAlgebra.h"

#include <algorithm>
#include <limits>

using namespace lazy::st;

namespace {

// Products saturate instead of overflowing (undefined for int64_t): shapes
// whose element count does not fit are rejected by the IR verifier, which
// decodes them with these helpers first.
int64_t saturatingMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return (a < 0) != (b < 0) ? std::numeric_limits<int64_t>::min()
                              : std::numeric_limits<int64_t>::max();
  return r;
}

/// The integer policy of ViewAlgebra (see ViewAlgebra.h).
struct IntDims {
  using Dim = int64_t;
  using ViewT = View;

  static bool eq(int64_t a, int64_t b) { return a == b; }
  static bool mayLt(int64_t a, int64_t b) { return a < b; }
  static bool mayLe(int64_t a, int64_t b) { return a <= b; }
  static bool mayGt(int64_t a, int64_t b) { return a > b; }
  static bool mayGe(int64_t a, int64_t b) { return a >= b; }
  static bool nonzero(int64_t a) { return a != 0; }
  static int64_t floorDiv(int64_t a, int64_t b) {
    return lazy::st::detail::floorDiv(a, b);
  }
  static int64_t floorMod(int64_t a, int64_t b) {
    return lazy::st::detail::floorMod(a, b);
  }
  static int64_t max(int64_t a, int64_t b) { return std::max(a, b); }
  static int64_t min(int64_t a, int64_t b) { return std::min(a, b); }
  static int64_t mul(int64_t a, int64_t b) { return saturatingMul(a, b); }
  static int64_t canonical(int64_t a) { return a; }
  static std::optional<int64_t> asInt(int64_t a) { return a; }
  static bool allInt(const Mask &) { return true; }
  static std::string render(int64_t a) { return std::to_string(a); }
  static std::optional<View> add(const View &vm2, const View &vm1, int depth);

  /// A linear form `k + sum(coef[d] * idx_d)`, idx_d in [0, shape[d]-1].
  struct Bounds {
    std::vector<int64_t> coef;
    int64_t k = 0;
  };
  struct BoundsContext {
    const std::vector<int64_t> &shape;
    explicit BoundsContext(const std::vector<int64_t> &shape) : shape(shape) {}
    Bounds zero() const { return {std::vector<int64_t>(shape.size(), 0), 0}; }
    void accumulate(Bounds &b,
                    const std::vector<std::pair<size_t, int64_t>> &terms,
                    int64_t origin, int64_t scale) const {
      for (auto &[d, coef] : terms)
        b.coef[d] += coef * scale;
      b.k += origin * scale;
    }
    int64_t lo(const Bounds &b) const {
      int64_t r = b.k;
      for (size_t d = 0; d < b.coef.size(); ++d)
        r += std::min<int64_t>(0, b.coef[d] * (shape[d] - 1));
      return r;
    }
    int64_t hi(const Bounds &b) const {
      int64_t r = b.k;
      for (size_t d = 0; d < b.coef.size(); ++d)
        r += std::max<int64_t>(0, b.coef[d] * (shape[d] - 1));
      return r;
    }
    bool within(const Bounds &b, int64_t size) const {
      return hi(b) < size && lo(b) >= 0;
    }
    bool mayBeNonzero(const Bounds &b) const {
      return lo(b) != 0 || hi(b) != 0;
    }
    bool mayLeave(const Bounds &b, int64_t begin, int64_t end) const {
      return lo(b) < begin || hi(b) >= end;
    }
  };
};

using Algebra = lazy::st::detail::ViewAlgebra<IntDims>;

std::optional<View> IntDims::add(const View &vm2, const View &vm1, int depth) {
  return Algebra::compose(vm2, vm1, depth);
}

std::string tupleStr(const std::vector<int64_t> &v) {
  return Algebra::tupleStr(v);
}

/// Product with overflow detection; nullopt if it exceeds 2^62.
std::optional<int64_t> safeProd(const std::vector<int64_t> &v) {
  int64_t r = 1;
  for (int64_t x : v) {
    if (x < 0)
      return std::nullopt;
    if (__builtin_mul_overflow(r, x, &r) || r > (int64_t(1) << 62))
      return std::nullopt;
  }
  return r;
}

std::string checkShape(const std::vector<int64_t> &shape, const char *what) {
  for (int64_t s : shape)
    if (s < 0)
      return std::string(what) + " dims must be non-negative, got " +
             tupleStr(shape);
  if (!safeProd(shape))
    return std::string(what) + " has too many elements: " + tupleStr(shape);
  return "";
}

std::string checkRank(const std::vector<int64_t> &shape, size_t n,
                      const char *op) {
  if (n == shape.size())
    return "";
  return std::string(op) + " argument must have rank " +
         std::to_string(shape.size()) + ", got " + std::to_string(n);
}

} // namespace

//===----------------------------------------------------------------------===//
// Free helpers
//===----------------------------------------------------------------------===//

std::vector<int64_t>
lazy::st::stridesForShape(const std::vector<int64_t> &shape) {
  return Algebra::stridesForShape(shape);
}

int64_t lazy::st::prod(const std::vector<int64_t> &v) {
  return Algebra::product(v);
}

//===----------------------------------------------------------------------===//
// View
//===----------------------------------------------------------------------===//

View View::create(std::vector<int64_t> shape,
                  std::optional<std::vector<int64_t>> strides, int64_t offset,
                  std::optional<Mask> mask) {
  return Algebra::create(std::move(shape), std::move(strides), offset,
                         std::move(mask));
}

int64_t View::size() const { return prod(shape); }

bool View::operator==(const View &o) const {
  return shape == o.shape && strides == o.strides && offset == o.offset &&
         mask == o.mask && contiguous == o.contiguous;
}

std::string View::str() const { return Algebra::str(*this); }

std::optional<View> View::reshape(const std::vector<int64_t> &newShape) const {
  if (shape == newShape)
    return *this;
  if (Algebra::containsZero(shape))
    return create(newShape);
  // Precondition violations yield "not representable" instead of UB.
  if (!checkReshape(shape, newShape).empty())
    return std::nullopt;
  if (newShape.empty() && mask)
    for (auto &[b, e] : *mask)
      if (b == e)
        return std::nullopt;
  if (contiguous)
    return create(newShape);
  return Algebra::reshapeStrided(*this, newShape);
}

View View::pad(const Mask &arg) const { return Algebra::pad(*this, arg); }

View View::shrink(const Mask &arg) const { return Algebra::resize(*this, arg); }

View View::expand(const std::vector<int64_t> &newShape) const {
  if (Algebra::containsZero(shape))
    return create(newShape);
  return Algebra::expand(*this, newShape);
}

View View::permute(const std::vector<int64_t> &axes) const {
  return Algebra::permute(*this, axes);
}

View View::stride(const std::vector<int64_t> &mul) const {
  return Algebra::stride(*this, mul);
}

std::optional<View> View::operator+(const View &later) const {
  return Algebra::compose(*this, later, 0);
}

std::optional<View> View::invert(const std::vector<int64_t> &outShape) const {
  return Algebra::invert(*this, outShape);
}

View View::minify() const {
  if (auto nv = reshape(Algebra::minifiedShape(*this)))
    return *nv;
  return *this;
}

//===----------------------------------------------------------------------===//
// Argument checks
//===----------------------------------------------------------------------===//

std::string lazy::st::checkReshape(const std::vector<int64_t> &shape,
                                   const std::vector<int64_t> &newShape) {
  if (auto e = checkShape(shape, "shape"); !e.empty())
    return e;
  if (auto e = checkShape(newShape, "reshape"); !e.empty())
    return e;
  if (prod(shape) != prod(newShape))
    return "reshape must preserve the number of elements: " + tupleStr(shape) +
           " has " + std::to_string(prod(shape)) + ", " + tupleStr(newShape) +
           " has " + std::to_string(prod(newShape));
  return "";
}

std::string lazy::st::checkPad(const std::vector<int64_t> &shape,
                               const Mask &arg) {
  if (auto e = checkShape(shape, "shape"); !e.empty())
    return e;
  if (auto e = checkRank(shape, arg.size(), "pad"); !e.empty())
    return e;
  std::vector<int64_t> padded;
  for (size_t i = 0; i < arg.size(); ++i) {
    if (arg[i].first < 0 || arg[i].second < 0)
      return "pad must be non-negative, got (" + std::to_string(arg[i].first) +
             "," + std::to_string(arg[i].second) + ") for dim " +
             std::to_string(i);
    if (arg[i].first > (int64_t(1) << 40) || arg[i].second > (int64_t(1) << 40))
      return "pad amount too large for dim " + std::to_string(i);
    padded.push_back(shape[i] + arg[i].first + arg[i].second);
  }
  return checkShape(padded, "padded shape");
}

std::string lazy::st::checkShrink(const std::vector<int64_t> &shape,
                                  const Mask &arg) {
  if (auto e = checkShape(shape, "shape"); !e.empty())
    return e;
  if (auto e = checkRank(shape, arg.size(), "shrink"); !e.empty())
    return e;
  for (size_t i = 0; i < arg.size(); ++i)
    if (!(0 <= arg[i].first && arg[i].first <= arg[i].second &&
          arg[i].second <= shape[i]))
      return "shrink range (" + std::to_string(arg[i].first) + "," +
             std::to_string(arg[i].second) +
             ") must satisfy 0 <= begin <= "
             "end <= " +
             std::to_string(shape[i]) + " for dim " + std::to_string(i);
  return "";
}

std::string lazy::st::checkExpand(const std::vector<int64_t> &shape,
                                  const std::vector<int64_t> &newShape) {
  if (auto e = checkShape(shape, "shape"); !e.empty())
    return e;
  if (auto e = checkShape(newShape, "expand"); !e.empty())
    return e;
  if (auto e = checkRank(shape, newShape.size(), "expand"); !e.empty())
    return e;
  bool zero = Algebra::containsZero(shape);
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t s = shape[i], x = newShape[i];
    // With no elements tinygrad only asks for divisibility.
    bool ok = zero ? ((s == 0 && x == 0) || (s > 0 && x % s == 0))
                   : (s == x || s == 1);
    if (!ok)
      return "cannot expand " + tupleStr(shape) + " to " + tupleStr(newShape) +
             ": dim " + std::to_string(i) + " must be 1 or unchanged";
  }
  return "";
}

std::string lazy::st::checkPermute(const std::vector<int64_t> &shape,
                                   const std::vector<int64_t> &axes) {
  std::vector<int64_t> sorted = axes;
  std::sort(sorted.begin(), sorted.end());
  bool ok = sorted.size() == shape.size();
  for (size_t i = 0; ok && i < sorted.size(); ++i)
    ok = sorted[i] == int64_t(i);
  if (ok)
    return "";
  return "permute axes must be a permutation of 0.." +
         std::to_string(int64_t(shape.size()) - 1) + ", got " + tupleStr(axes);
}

std::string lazy::st::checkStride(const std::vector<int64_t> &shape,
                                  const std::vector<int64_t> &mul) {
  if (auto e = checkShape(shape, "shape"); !e.empty())
    return e;
  if (auto e = checkRank(shape, mul.size(), "stride"); !e.empty())
    return e;
  for (size_t i = 0; i < mul.size(); ++i)
    if (mul[i] == 0 || mul[i] == std::numeric_limits<int64_t>::min())
      return "stride must be non-zero (and > INT64_MIN), got " +
             std::to_string(mul[i]) + " for dim " + std::to_string(i);
  return "";
}

std::string lazy::st::checkView(const std::vector<int64_t> &shape,
                                const std::vector<int64_t> &strides,
                                const std::optional<Mask> &mask) {
  if (auto e = checkShape(shape, "view shape"); !e.empty())
    return e;
  if (strides.size() != shape.size())
    return "view strides must have rank " + std::to_string(shape.size()) +
           ", got " + std::to_string(strides.size());
  if (!mask)
    return "";
  if (mask->size() != shape.size())
    return "view mask must have rank " + std::to_string(shape.size()) +
           ", got " + std::to_string(mask->size());
  for (size_t i = 0; i < shape.size(); ++i) {
    auto [b, e] = (*mask)[i];
    if (!(0 <= b && b <= e && e <= shape[i]))
      return "view mask range (" + std::to_string(b) + "," + std::to_string(e) +
             ") must satisfy 0 <= begin <= end <= " + std::to_string(shape[i]) +
             " for dim " + std::to_string(i);
  }
  return "";
}
