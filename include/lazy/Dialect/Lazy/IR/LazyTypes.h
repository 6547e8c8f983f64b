//===- LazyTypes.h - lazy dialect types --------------------------*- C++
//-*-===//

#ifndef LAZY_DIALECT_LAZY_IR_LAZYTYPES_H
#define LAZY_DIALECT_LAZY_IR_LAZYTYPES_H

#include "lazy/Dialect/Lazy/IR/LazyAttrs.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#define GET_TYPEDEF_CLASSES
#include "lazy/Dialect/Lazy/IR/LazyTypes.h.inc"

namespace mlir::lazy {
/// tinygrad's itemsize of an element type: its bytes, one for bool.
int64_t itemSize(Type elementType);
} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_IR_LAZYTYPES_H
