//===- Reductions.h - reduce loops and their accumulators -------*- C++ -*-===//
//
// What the emitter's reduce loops share with the lowerings; the facts the
// planner reads too (reduceAxes, splitCount) are Analysis/KernelFacts.h.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_CONVERSION_KERNELCODEGEN_REDUCTIONS_H
#define LAZY_CONVERSION_KERNELCODEGEN_REDUCTIONS_H

#include "lazy/Dialect/Lazy/Analysis/KernelFacts.h"

#include "mlir/IR/Operation.h"

namespace mlir::lazy {

/// Steps a mixed-radix counter (`offsets[i]` in [0, limits[i]), the last
/// digit fastest); false once it wraps back to all zeros.
bool nextOffsets(MutableArrayRef<int64_t> offsets, ArrayRef<int64_t> limits);

} // namespace mlir::lazy

#endif // LAZY_CONVERSION_KERNELCODEGEN_REDUCTIONS_H
