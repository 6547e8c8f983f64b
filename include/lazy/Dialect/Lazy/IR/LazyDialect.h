//===- LazyDialect.h - lazy dialect declaration ------------------*- C++
//-*-===//

#ifndef LAZY_DIALECT_LAZY_IR_LAZYDIALECT_H
#define LAZY_DIALECT_LAZY_IR_LAZYDIALECT_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

#include "lazy/Dialect/Lazy/IR/LazyDialect.h.inc"

namespace mlir::lazy {
/// True when `type` is a ranked tensor whose encoding is absent, a
/// #lazy.device or a #lazy.sym_shape attribute (used by the ODS type
/// constraints).
bool hasValidEncoding(Type type);

/// The device of a tensor type: its #lazy.device encoding or the device of
/// its #lazy.sym_shape; null for the module's default device.
Attribute deviceOf(Type type);
/// Whether a tensor type's shape holds a Variable (#lazy.sym_shape).
bool hasSymbolicShape(Type type);
/// Whether some op under `root` (itself included) holds a tinygrad
/// Variable in a type or an attribute.
bool holdsVariables(Operation *root);
/// For the parts of lazy-mlir that take integer shapes only: emits
/// "<what> does not take symbolic shapes yet" at the first op under `root`
/// (itself included) that holds a Variable in a type or a #lazy.st, and
/// fails; succeeds when there is none.
LogicalResult rejectSymbolicShapes(Operation *root, StringRef what);

/// Classes of tinygrad dtypes, for isLazyTensor.
enum DTypeClass : unsigned {
  kBoolDType = 1,     // i1
  kSignedDType = 2,   // si8, si16, si32, si64
  kUnsignedDType = 4, // ui8, ui16, ui32, ui64
  kFloatDType = 8,    // f16, bf16, f32, f64
  kUI64DType = 16,    // ui64 only
  kAnyDType = kBoolDType | kSignedDType | kUnsignedDType | kFloatDType,
};

/// True when `type` is a statically shaped ranked tensor whose element type
/// is in one of the `classes` (a DTypeClass mask) and whose encoding is
/// valid. The ODS tensor constraints call this: one type switch instead of
/// a chain of interface casts and width checks, as the verifier runs on
/// every op after every pass.
bool isLazyTensor(Type type, unsigned classes);

/// Whether `elements` items of `element` (dims multiplied without
/// overflow) take at most INT64_MAX bytes: every tensor and buffer of the
/// dialect does, so that element counts and byte sizes never wrap.
bool fitsInBytes(ArrayRef<int64_t> shape, Type element);
} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_IR_LAZYDIALECT_H
