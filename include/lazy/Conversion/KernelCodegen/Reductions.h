//===- Reductions.h - reduce loops and their accumulators -------*- C++ -*-===//
//
// What the emitter's reduce loops share with the lowerings; the facts the
// planner reads too (reduceAxes, splitCount) are Analysis/KernelFacts.h.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_CONVERSION_KERNELCODEGEN_REDUCTIONS_H
#define LAZY_CONVERSION_KERNELCODEGEN_REDUCTIONS_H

#include "lazy/Dialect/Lazy/Analysis/KernelFacts.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"

namespace mlir::lazy {

/// Steps a mixed-radix counter (`offsets[i]` in [0, limits[i]), the last
/// digit fastest); false once it wraps back to all zeros.
bool nextOffsets(MutableArrayRef<int64_t> offsets, ArrayRef<int64_t> limits);

/// Closes a nest of scf.for loops (outermost first) that carry `values`
/// from the innermost body out: each loop yields them and they become its
/// results. Returns the outermost loop's results (`values` itself when
/// `loops` is empty), with `b` after the nest.
SmallVector<Value> closeLoopNest(OpBuilder &b, Location loc,
                                 ArrayRef<scf::ForOp> loops,
                                 ArrayRef<Value> values);

} // namespace mlir::lazy

#endif // LAZY_CONVERSION_KERNELCODEGEN_REDUCTIONS_H
