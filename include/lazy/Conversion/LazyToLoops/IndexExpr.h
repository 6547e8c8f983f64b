//===- IndexExpr.h - ShapeTracker index arithmetic in MLIR -------*- C++ -*-===//
//
// Emits, as arith ops on `index` values, the buffer index and validity of an
// element of a ShapeTracker: the same function ShapeTracker::indexAndValid
// evaluates on constants.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_CONVERSION_LAZYTOLOOPS_INDEXEXPR_H
#define LAZY_CONVERSION_LAZYTOLOOPS_INDEXEXPR_H

#include "lazy/ShapeTracker/ShapeTracker.h"

#include "mlir/IR/Builders.h"

namespace mlir::lazy {

struct IndexAndValid {
  Value index; // index-typed buffer index
  Value valid; // i1, or null when every element is valid
};

/// The buffer index and validity of the element at `idx` (one index value
/// per dimension of tracker.shape()). Views are applied from the outermost
/// inwards; an index into an earlier view is unflattened with floor
/// division and remainder by its shape.
IndexAndValid emitIndexAndValid(OpBuilder &b, Location loc,
                                const ::lazy::st::ShapeTracker &tracker,
                                ValueRange idx);

} // namespace mlir::lazy

#endif // LAZY_CONVERSION_LAZYTOLOOPS_INDEXEXPR_H
