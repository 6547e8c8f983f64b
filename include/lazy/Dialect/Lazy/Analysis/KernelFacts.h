//===- KernelFacts.h - views and reduces of a kernel body -------*- C++ -*-===//
//
// Facts about a kernel body that the planner (lazy-optimize-kernels,
// PlanLanes.h) and the code generator (KernelCodegen) both read: a view's
// integer strides, and how a reduce may accumulate.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_ANALYSIS_KERNELFACTS_H
#define LAZY_DIALECT_LAZY_ANALYSIS_KERNELFACTS_H

#include "lazy/Dialect/Lazy/IR/LazyAttrs.h"

#include "mlir/IR/Operation.h"

#include <optional>
#include <vector>

namespace mlir::lazy {

class ViewOp;

/// The axis of `view`'s source each of its axes walks, -1 for one of
/// stride 0, when `view` (one integer view, no mask, no offset) only
/// expands and reorders its source: each axis of non-zero stride walks a
/// distinct source axis of its extent (more than one element) at that
/// axis's contiguous stride, and every source axis of more than one
/// element is walked. None otherwise.
std::optional<SmallVector<int64_t>> viewAxisSources(ViewOp view);

/// Per axis, the integer stride of a view's index along it
/// (ShapeTracker::realStrides; for a symbolic view its integer tracker's,
/// or with one view each axis's integer stride), nullopt where there is
/// none or, unless `ignoreValid`, the axis takes part in the mask.
std::vector<std::optional<int64_t>> viewStridesOf(ShapeTrackerAttr view,
                                                  bool ignoreValid);

/// What walkOperands does after visiting an op.
enum class OperandWalk { Descend, Skip, Stop };

/// Walks the ops `v` reads (its defining op, then theirs), each once:
/// `visit` says whether to go on into an op's operands, skip them or stop.
/// False where it stopped, or reached more than `limit` ops.
bool walkOperands(Value v, size_t limit,
                  function_ref<OperandWalk(Operation *)> visit);

/// With reassociateSums, float sums of at least this many elements may add
/// in any order (LLVM vectorizes them); shorter ones keep index order.
constexpr int64_t kReorderMinElements = 64;

/// The axes, in order, that a reduce op reduces.
ArrayRef<int64_t> reduceAxes(Operation *reduce);
/// How many input elements meet in each of a reduce's results (at least:
/// a symbolic dim counts its smallest value).
int64_t reducedElementCount(Operation *reduce);

/// A register tile of at least this many vector accumulators hides the
/// latency of its fused multiply-adds (two units, 4 cycles each) without
/// split accumulators, which would only spill: a 3x3 conv's 8x8 tile with
/// its window split three ways kept 24 vectors in AVX2's 16 registers and
/// ran 8.6-8.9 ms against 5.4-6.2 unsplit.
constexpr int64_t kLatencyAccumulators = 8;

/// How many partial sums a register tile keeps per element of `reduce`
/// (split accumulators): the innermost reduce axis's unroll for a sum that
/// may reorder (integers; with reassociateSums, floats of at least
/// kReorderMinElements elements), else 1. `laneAccumulators` is the
/// tile's vector accumulators when it has lanes on an output axis (0
/// without): each split there is another register per element, so a tile
/// of kLatencyAccumulators or more keeps one. Without output lanes the
/// partials are the lanes of one vector (the dot-product form).
int64_t splitCount(Operation *reduce, ArrayRef<int64_t> unroll,
                   bool reassociateSums, int64_t laneAccumulators = 0);

} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_ANALYSIS_KERNELFACTS_H
