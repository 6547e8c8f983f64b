//===- LazyOps.h - lazy dialect operations -----------------------*- C++
//-*-===//

#ifndef LAZY_DIALECT_LAZY_IR_LAZYOPS_H
#define LAZY_DIALECT_LAZY_IR_LAZYOPS_H

#include "lazy/Dialect/Lazy/IR/LazyAttrs.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"
#include "lazy/Dialect/Lazy/IR/LazyTypes.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::lazy {
/// Verifies that all tensor operands and results have the same encoding
/// (device).
LogicalResult verifySameDevice(Operation *op);
/// Verifies that all operands and results have one type (Lazy_SameTypes).
LogicalResult verifySameTypes(Operation *op);
/// Verifies that all tensor operands and results have one shape
/// (Lazy_Elementwise).
LogicalResult verifyElementwiseShapes(Operation *op);
} // namespace mlir::lazy

namespace mlir::OpTrait::lazy {
/// All tensor operands and results live on one device.
template <typename ConcreteType>
class SameDevice : public TraitBase<ConcreteType, SameDevice> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return ::mlir::lazy::verifySameDevice(op);
  }
};

/// All operands and results have one type.
template <typename ConcreteType>
class SameTypes : public TraitBase<ConcreteType, SameTypes> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return ::mlir::lazy::verifySameTypes(op);
  }
};

/// All tensor operands and results have one shape.
template <typename ConcreteType>
class Elementwise : public TraitBase<ConcreteType, Elementwise> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return ::mlir::lazy::verifyElementwiseShapes(op);
  }
};
} // namespace mlir::OpTrait::lazy

#define GET_OP_CLASSES
#include "lazy/Dialect/Lazy/IR/LazyOps.h.inc"

namespace mlir::lazy {
/// The tracker after the (verified) movement op or lazy.view `op` is applied
/// on top of `tracker`, which describes `op`'s source; nullopt for any other
/// op. A lazy.view composes: tracker + its own tracker.
std::optional<::lazy::st::ShapeTracker>
applyMovement(Operation *op, const ::lazy::st::ShapeTracker &tracker);

/// The buffers a schedule item (lazy.launch, lazy.ext, or lazy-distribute's
/// lazy.send, lazy.recv and lazy.all_reduce) writes and reads.
OperandRange itemOuts(Operation *item);
OperandRange itemIns(Operation *item);

/// The buffer a schedule-level value denotes: an item's result is the
/// output buffer it wrote, and a sub-buffer lives in its base.
Value bufferRootOf(Value v);

/// Whether `op` is a lazy.view of a value a kernel computes (a row
/// kernel's reduce read again through an expand), not of a lazy.const.
inline bool isComputedView(Operation *op) {
  auto view = dyn_cast<ViewOp>(op);
  return view && !view.getSrc().getDefiningOp<ConstOp>();
}
/// Whether a kernel body reads a computed value through a view (a row
/// kernel).
inline bool hasComputedViews(Block &body) {
  return llvm::any_of(body, [](Operation &op) { return isComputedView(&op); });
}
/// Whether `op` in a kernel body is one of the graph's ops the kernel
/// computes: not a load, store, const or const view.
inline bool isFusedOp(Operation &op) {
  return !isa<LoadOp, StoreOp, ConstOp>(op) &&
         !(isa<ViewOp>(op) && !isComputedView(&op));
}
} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_IR_LAZYOPS_H
