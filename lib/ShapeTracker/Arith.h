//===- Arith.h - Python-style integer helpers (private) ---------*- C++ -*-===//
//
// Part of lazy-mlir. Private to lib/ShapeTracker.
//
//===----------------------------------------------------------------------===//
//
// tinygrad's algebra is written with Python's floor division and modulo,
// which round toward negative infinity. C++ truncates toward zero, so every
// division in this library goes through these helpers.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_LIB_SHAPETRACKER_ARITH_H
#define LAZY_LIB_SHAPETRACKER_ARITH_H

#include <cstdint>

namespace lazy::st::detail {

/// Python `a // b` (b != 0).
inline int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

/// Python `a % b` (b != 0): result has the sign of b.
inline int64_t floorMod(int64_t a, int64_t b) { return a - floorDiv(a, b) * b; }

/// Python `math.ceil(a / b)` for operands small enough that the float
/// division in tinygrad is exact.
inline int64_t ceilDiv(int64_t a, int64_t b) { return -floorDiv(-a, b); }

} // namespace lazy::st::detail

#endif // LAZY_LIB_SHAPETRACKER_ARITH_H
