//===- Reductions.h - reduce loops and their accumulators -------*- C++ -*-===//
//
// Facts about reduce ops that the emitter (Reductions.cpp) and the
// lowerings' plans share.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_CONVERSION_KERNELCODEGEN_REDUCTIONS_H
#define LAZY_CONVERSION_KERNELCODEGEN_REDUCTIONS_H

#include "mlir/IR/Operation.h"

namespace mlir::lazy {

/// With reassociateSums, float sums of at least this many elements may add
/// in any order (LLVM vectorizes them); shorter ones keep index order.
constexpr int64_t kReorderMinElements = 64;

/// The axes, in order, that a reduce op reduces.
ArrayRef<int64_t> reduceAxes(Operation *reduce);
/// How many input elements meet in each of a reduce's results (at least:
/// a symbolic dim counts its smallest value).
int64_t reducedElementCount(Operation *reduce);

/// How many partial sums a register tile keeps per element of `reduce`
/// (split accumulators): the innermost reduce axis's unroll for a sum that
/// may reorder (integers; with reassociateSums, floats of at least
/// kReorderMinElements elements), else 1.
int64_t splitCount(Operation *reduce, ArrayRef<int64_t> unroll,
                   bool reassociateSums);

/// Steps a mixed-radix counter (`offsets[i]` in [0, limits[i]), the last
/// digit fastest); false once it wraps back to all zeros.
bool nextOffsets(MutableArrayRef<int64_t> offsets, ArrayRef<int64_t> limits);

} // namespace mlir::lazy

#endif // LAZY_CONVERSION_KERNELCODEGEN_REDUCTIONS_H
