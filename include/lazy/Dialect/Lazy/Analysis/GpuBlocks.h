//===- GpuBlocks.h - which store groups run in GPU blocks -------*- C++ -*-===//
//
// On the GPU a store group runs a thread per element, or, with its plan's
// `block` step, a block of threads per element (its reduces split across
// the threads) or per row (with its `row` step). lazy-optimize-kernels
// target=gpu decides that with chooseBlockSteps; the GPU lowering only
// reads the plan.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_ANALYSIS_GPUBLOCKS_H
#define LAZY_DIALECT_LAZY_ANALYSIS_GPUBLOCKS_H

#include "lazy/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/Support/LLVM.h"

namespace mlir::lazy {

/// The reduces in the stores' values that no other reduce encloses.
SmallVector<Operation *> outerReduces(ArrayRef<StoreOp> stores);

/// What bounds a GPU block (lazy-optimize-kernels' gpu-block-* options).
struct BlockTarget {
  /// Groups whose longest reduce has at least this many elements get a
  /// block step.
  int64_t reduceMin = 64;
  /// A block's threads take at least this many reduced elements each.
  int64_t perThread = 16;
  /// The most threads of a block (a power of two from 32 to 1024).
  int64_t maxThreads = 256;
};

/// The `block` steps of `kernel` (a kernel without Variables) for
/// `target`, beside the `row` steps in `plan` (the rest of its plan: empty,
/// or row steps). Rules, per store group whose longest outer reduce
/// reaches `reduceMin` elements:
///   1. a row group: threads of the row's longest reduce or inner
///      elements (whichever is more), `perThread` each;
///   2. any other group: threads of its longest reduce, `perThread` each;
/// both rounded up to a power of two and clamped to [32, maxThreads].
/// A group whose value reads a lazy.softmax_sum outside every reduce gets
/// none: the GPU lowering's softmax-sum mode runs it (a thread per query
/// row, or tensor-core tiles), which a block per output element would
/// replace with every score computed again per element.
/// Empty when no group qualifies.
SmallVector<Attribute> chooseBlockSteps(KernelOp kernel,
                                        ArrayRef<Attribute> plan,
                                        const BlockTarget &target);

} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_ANALYSIS_GPUBLOCKS_H
