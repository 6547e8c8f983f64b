//===- LazyAttrs.h - lazy dialect attributes ---------------------*- C++
//-*-===//

#ifndef LAZY_DIALECT_LAZY_IR_LAZYATTRS_H
#define LAZY_DIALECT_LAZY_IR_LAZYATTRS_H

#include "lazy/ShapeTracker/ShapeTracker.h"
#include "lazy/ShapeTracker/SymView.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/TensorEncoding.h"
#include "llvm/ADT/Hashing.h"

namespace lazy::st::sym {
/// Hash of a symbolic shape (a #lazy.sym_shape parameter).
llvm::hash_code hash_value(const std::vector<SInt> &dims);
} // namespace lazy::st::sym

namespace mlir::lazy {
/// The symbolic views of a `#lazy.st`; null for a tracker of plain ints.
/// Compared by value (tinygrad's `==`), hashed by the entries' renderings.
struct SymTrackerRef {
  std::shared_ptr<const ::lazy::st::SymShapeTracker> tracker;
  bool operator==(const SymTrackerRef &other) const;
  explicit operator bool() const { return bool(tracker); }
};
llvm::hash_code hash_value(const SymTrackerRef &ref);

/// The Variables `op` holds (in its result and block argument types, its
/// #lazy.st and #lazy.sint attributes), by key.
void collectVariables(Operation *op,
                      std::map<std::string, ::lazy::st::sym::NodeP> &out);
/// tinygrad's scheduler unbinds every Variable and merges their values
/// (merge_dicts asserts they agree): emits an error at the first op under
/// `root` holding an unbound Variable or a second value for one, and
/// fails.
LogicalResult verifyVariableBindings(Operation *root);

/// The dims of a tensor type: its #lazy.sym_shape's, else the static ones.
::lazy::st::SymShape symbolicShapeOf(Type type);

/// Diagnoses a symbolic tracker that is not tinygrad-canonical. Empty
/// string when valid.
std::string describeInvalidTracker(const ::lazy::st::SymShapeTracker &tracker);
/// Prints symbolic views in the `#lazy.st<...>` body syntax.
void printTrackerBody(llvm::raw_ostream &os,
                      const ::lazy::st::SymShapeTracker &tracker);

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

namespace mlir::lazy {
class DeviceAttr;
} // namespace mlir::lazy

#define GET_ATTRDEF_CLASSES
#include "lazy/Dialect/Lazy/IR/LazyAttrs.h.inc"

#endif // LAZY_DIALECT_LAZY_IR_LAZYATTRS_H
