//===- RowKernels.h - kernels that compute per-row values once --*- C++ -*-===//
//
// A row kernel (RowKernels.cpp) reads computed values through views that
// vary only along its row axes (a softmax's max and sum): each row computes
// them once, then its elements read them. Which groups run so, and in what
// vectors, is the plan's (`row` steps, Analysis/RowSplit.h).
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_CONVERSION_KERNELCODEGEN_ROWKERNELS_H
#define LAZY_CONVERSION_KERNELCODEGEN_ROWKERNELS_H

#include "lazy/Conversion/KernelCodegen/VectorLanes.h"
#include "lazy/Dialect/Lazy/Analysis/RowSplit.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"

#include <optional>

namespace mlir::lazy {

/// The values a row kernel whose elements are `lanes` keeps per row
/// (KernelEmitter::setRowCache): of the stores' shape and the first
/// store's element type, computed elementwise both by a row value's reduce
/// that runs in the same lanes (setRowReduceLanes' `laneBytes`) and by
/// the stores or another such reduce, holding an exp2, log2, sin, sqrt or
/// recip (dearer to compute again than to load), and no part of a larger
/// such value; at most `maxBytes` of rows in all.
SmallVector<Value> rowCacheValues(ArrayRef<StoreOp> stores, LaneAxis lanes,
                                  int64_t laneBytes, int64_t maxBytes);

} // namespace mlir::lazy

#endif // LAZY_CONVERSION_KERNELCODEGEN_ROWKERNELS_H
