//===- RowKernels.h - kernels that compute per-row values once --*- C++ -*-===//
//
// A row kernel (RowKernels.cpp) reads computed values through views that
// vary only along its row axes (a softmax's max and sum): each row computes
// them once, then its elements read them.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_CONVERSION_KERNELCODEGEN_ROWKERNELS_H
#define LAZY_CONVERSION_KERNELCODEGEN_ROWKERNELS_H

#include "lazy/Conversion/KernelCodegen/VectorLanes.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"

#include <optional>

namespace mlir::lazy {

/// A row kernel: stores that read computed values through views, each
/// varying only along the row axes (no reduce runs along them). Each row
/// computes those values once (KernelEmitter::beginRow), then its
/// elements; a softmax's max and sum become sequential reduces per row.
struct RowSplit {
  /// Per axis of the stores' shape.
  SmallVector<bool> rowAxis;
  /// The computed views, in body order (each before the views it reads).
  SmallVector<ViewOp> views;
  /// Whether the stores also read a reduce of their own (not through a
  /// computed view), which each element computes.
  bool elementReduces = false;
};

/// The row split of a store group, or none when it reads no computed view,
/// holds a symbolic view, or its views and reduces do not split into rows (then
/// each element computes what it reads, which is correct but repeats work).
std::optional<RowSplit> rowSplitOf(ArrayRef<StoreOp> stores);

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
