//===- LazyDialect.h - lazy dialect declaration ------------------*- C++ -*-===//

#ifndef LAZY_DIALECT_LAZY_IR_LAZYDIALECT_H
#define LAZY_DIALECT_LAZY_IR_LAZYDIALECT_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

#include "lazy/Dialect/Lazy/IR/LazyDialect.h.inc"

namespace mlir::lazy {
/// True when `type` is a ranked tensor whose encoding is absent or a
/// #lazy.device attribute (used by the ODS type constraints).
bool hasValidEncoding(Type type);
} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_IR_LAZYDIALECT_H
