//===- Tolerance.h - how close a float result must be -----------*- C++ -*-===//
//
// The one table of float tolerances: lazy-run --check and lazy-replay
// (compareBuffers) use it, and the Python checks read it through the C API
// (lazyFloatTolerance). A result `got` matches `want` when
//   |got - want| <= atol * max(1, max |want|) + rtol * |want|,
// NaN only matching NaN; the atol is scaled by the largest finite |want|,
// so that cancellation in a large sum is judged against the sum's size.
// A result is judged at the tolerance of the narrowest float type it was
// computed in (roundingElementType in Interpreter.h), not its own: an f64
// result cast from f32 arithmetic carries that arithmetic's error. An
// element outside the tolerance still matches (compareWithEvidence) when
// it lies between the reference and the f64 evaluation of the graph; an
// infinity, when the f64 value overflows the result's type to it
// (`overflow`); and any element within the tolerance plus twice the
// spread that rounding noise gives the reference.
// Why each figure is what it is:
//   f64   1e-9 / 1e-12  reassociated sums only;
//   f32   1e-4 / 1e-5   sums in another order (a training step's backward
//                       and Adam update amplify a 1e-7 reassociation to
//                       ~5e-5); exp2/log2/sin/sqrt within a few ulp of
//                       tinygrad's approximations;
//   f16   1e-2 / 1e-3   11-bit mantissa; tinygrad may round intermediates
//                       differently;
//   bf16  3e-2 / 1e-2   8-bit mantissa (a few ulp = 1e-2 relative).
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_RUNTIME_TOLERANCE_H
#define LAZY_RUNTIME_TOLERANCE_H

#include <cstring>

namespace lazy::runtime {

struct FloatTolerance {
  const char *mlirName; // the MLIR element type
  const char *cName;    // tinygrad's C name of the dtype
  double rtol, atol;
  /// The smallest magnitude that rounds to infinity in this type (round
  /// to nearest: the largest finite value plus half an ulp).
  double overflow;
};

inline constexpr FloatTolerance kFloatTolerances[] = {
    {"f64", "double", 1e-9, 1e-12, __builtin_inf()},
    {"f32", "float", 1e-4, 1e-5, 0x1.ffffffp+127},
    {"f16", "half", 1e-2, 1e-3, 65520.0},
    {"bf16", "__bf16", 3e-2, 1e-2, 0x1.ffp+127},
};

/// The tolerance of a float dtype named either way, or null for a dtype
/// compared bit for bit.
inline const FloatTolerance *floatTolerance(const char *name) {
  for (const FloatTolerance &t : kFloatTolerances)
    if (!std::strcmp(name, t.mlirName) || !std::strcmp(name, t.cName))
      return &t;
  return nullptr;
}

} // namespace lazy::runtime

#endif // LAZY_RUNTIME_TOLERANCE_H
