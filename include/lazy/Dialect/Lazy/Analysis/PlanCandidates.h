//===- PlanCandidates.h - plans near a kernel's heuristic plan --*- C++ -*-===//
//
// The candidates a plan search times (lazy-run --search-plans): the
// heuristic's plan first, then no plan (kernels without a reduce), then
// the plan with one step's
// amount changed, each checked by readPlan against the kernel's space.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_ANALYSIS_PLANCANDIDATES_H
#define LAZY_DIALECT_LAZY_ANALYSIS_PLANCANDIDATES_H

#include "lazy/Dialect/Lazy/Analysis/KernelSpace.h"

namespace mlir::lazy {

/// Plans for a kernel of `space` whose heuristic plan is `heuristic`
/// (empty: none), distinct and valid, at most `limit`:
///   - the heuristic's plan, then no plan where the kernel has no reduce
///     (a reduce kernel without one runs its reduce innermost, element by
///     element);
///   - each upcast step's amount halved, doubled and quadrupled (1 drops
///     the step);
///   - each tile step dropped, halved and doubled; a pack step on its axis
///     halves with it and goes with it otherwise (a grown block's panels
///     could outgrow kMaxPanelBytes), and goes alone once.
/// A symbolic space gets the heuristic's plan alone.
SmallVector<ArrayAttr> planCandidates(MLIRContext *ctx,
                                      ArrayRef<Attribute> heuristic,
                                      const KernelSpace &space, size_t limit);

} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_ANALYSIS_PLANCANDIDATES_H
