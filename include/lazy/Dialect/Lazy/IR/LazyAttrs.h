//===- LazyAttrs.h - lazy dialect attributes ---------------------*- C++
//-*-===//

#ifndef LAZY_DIALECT_LAZY_IR_LAZYATTRS_H
#define LAZY_DIALECT_LAZY_IR_LAZYATTRS_H

#include "lazy/ShapeTracker/ShapeTracker.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

namespace mlir::lazy {
/// Diagnoses a tracker that is not tinygrad-canonical or that indexes outside
/// the view below it. Empty string when valid.
std::string describeInvalidTracker(const ::lazy::st::ShapeTracker &tracker);
/// Prints `tracker` in the `#lazy.st<...>` body syntax (without `#lazy.st<>`).
void printTrackerBody(llvm::raw_ostream &os,
                      const ::lazy::st::ShapeTracker &tracker);
/// Smallest and largest index `view` can produce over its valid elements, or
/// nullopt when it has no valid element.
std::optional<std::pair<int64_t, int64_t>>
validIndexRange(const ::lazy::st::View &view);
} // namespace mlir::lazy

#include "lazy/Dialect/Lazy/IR/LazyEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "lazy/Dialect/Lazy/IR/LazyAttrs.h.inc"

#endif // LAZY_DIALECT_LAZY_IR_LAZYATTRS_H
