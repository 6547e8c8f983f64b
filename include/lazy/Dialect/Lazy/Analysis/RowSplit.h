//===- RowSplit.h - which kernels run row by row ----------------*- C++ -*-===//
//
// A row kernel reads computed values through views that vary only along its
// row axes (a softmax's max and sum, read back through an expand): each row
// can compute them once, then its elements. rowSplitOf finds that structure
// in a store group; the `row` steps of a plan (readGroupPlan) say which
// groups run so, which lazy-optimize-kernels decides and the lowerings only
// read. A plan's `block` steps, read with them, say which groups run in GPU
// blocks (GpuBlocks.h).
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_ANALYSIS_ROWSPLIT_H
#define LAZY_DIALECT_LAZY_ANALYSIS_ROWSPLIT_H

#include "lazy/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>

namespace mlir::lazy {

/// Consecutive stores of one shape, which one loop computes together (a
/// multi-output kernel reads its inputs once per element, as tinygrad's one
/// loop does).
struct StoreGroup {
  SmallVector<int64_t> shape;
  SmallVector<StoreOp> stores;
};

/// The kernel body's stores in groups, in order.
SmallVector<StoreGroup> groupStores(Block &body);

/// How a store group splits into rows: stores that read computed values
/// through views, each varying only along the row axes (no reduce runs
/// along them).
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
/// holds a symbolic view, or its views and reduces do not split into rows
/// (then each element computes what it reads, which is correct but repeats
/// work).
std::optional<RowSplit> rowSplitOf(ArrayRef<StoreOp> stores);

/// The axes of `shape` a row's elements run along: not row axes, more than
/// one element.
SmallVector<size_t> innerAxesOf(const RowSplit &split, ArrayRef<int64_t> shape);

/// The ops the stores' values are computed by, each once, walking an op's
/// operands where `descend(op)` (loads have none).
SmallVector<Operation *>
opsComputingStores(ArrayRef<StoreOp> stores,
                   function_ref<bool(Operation *)> descend);

/// A group plan: per store group of the kernel (groupStores), what its
/// `row` and `block` steps say.
struct GroupPlan {
  /// 0 where the group runs elementwise, else the bytes of the vectors its
  /// row values' reduces and its elements take along its one inner axis
  /// (1: scalar).
  SmallVector<int64_t> rows;
  /// 0 where the group runs a GPU thread per element, else the threads of
  /// each of its GPU blocks.
  SmallVector<int64_t> blocks;
};

/// Whether `opts` holds a `row` or `block` step: a group plan, read by
/// readGroupPlan.
bool holdsGroupSteps(ArrayRef<Attribute> opts);

/// Reads a plan of `row` steps (#lazy.opt<row, GROUP, BYTES>) and `block`
/// steps (#lazy.opt<block, GROUP, THREADS>) against `kernel`; on failure
/// `why` names the bad step. Rules: only row and block steps; GROUP a
/// store group (groupStores), each at most once per kind; a row step's
/// group splits into rows (rowSplitOf), its BYTES 1 or a power of two,
/// above 1 only where the group has exactly one inner axis; THREADS a power
/// of two from 32 to 1024; no block step on a kernel over Variables.
FailureOr<GroupPlan> readGroupPlan(KernelOp kernel, ArrayRef<Attribute> opts,
                                   std::string &why);

/// The row plan lazy-optimize-kernels writes: a `row` step for every store
/// group that splits into rows, its vectors `vectorBytes` wide where the
/// group has one inner axis (else 1); empty when no group splits.
SmallVector<Attribute> chooseRowSteps(KernelOp kernel, int64_t vectorBytes);

} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_ANALYSIS_ROWSPLIT_H
