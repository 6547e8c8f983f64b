//===- PlanLanes.h - the vector lanes a plan's tiles take -------*- C++ -*-===//
//
// A register-tile plan's elements may be vectors along one output axis: its
// `lanes` step (#lazy.opt<lanes, AXIS, WIDTH>). lazy-optimize-kernels
// chooses that step with the rules below and writes it into the plan; the
// lowerings only read it.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_ANALYSIS_PLANLANES_H
#define LAZY_DIALECT_LAZY_ANALYSIS_PLANLANES_H

#include "lazy/Dialect/Lazy/Analysis/KernelSpace.h"

#include <optional>

namespace mlir::lazy {

/// What bounds a target's lanes.
struct LaneTarget {
  /// The widest vector, in elements.
  int64_t maxLanes = 16;
  /// Float sums may reorder (the CPU; splitCount).
  bool reassociateSums = true;
};
/// The CPU's lanes: up to one register of f32 (`vectorBits` / 32: 8 on
/// AVX2, 16 on AVX-512), sums reordered. Wider lanes split into several
/// registers per vector: an AVX2 matmul's 8x16 tile ran 46-66 ms in lanes
/// of 8 against 69 in lanes of 16.
LaneTarget cpuLaneTarget(unsigned vectorBits);
/// A GPU's lanes: a 128-bit access of the kernel's widest element, sums in
/// index order.
LaneTarget gpuLaneTarget(KernelOp kernel);

/// The lanes of `plan` (a register-tile plan of `kernel`, whose stores are
/// one group) for `target`: at most `maxLanes` wide, the largest power of
/// two up to it that divides the axis's upcast, on the first of
///   1. the innermost upcast output axis that every store writes
///      contiguously (stride 1, unmasked along it) and every load reads
///      contiguously or not at all, some load contiguously (the
///      heuristic's vector axis);
///   2. none when every top-level reduce keeps split accumulators (the
///      dot-product form, `reassociateSums` only): the emitter puts the
///      lanes on the innermost reduce axis instead;
///   3. the innermost upcast output axis that every store writes
///      contiguously: the loads that vary otherwise along it are read lane
///      by lane, the accumulators and arithmetic are still vectors.
/// Returns (axis, width), or none.
std::optional<std::pair<size_t, int64_t>> chooseLanes(KernelOp kernel,
                                                      const KernelSpace &space,
                                                      const OptPlan &plan,
                                                      const LaneTarget &target);

/// `steps` (a plan that reads against `space`) with the `lanes` step
/// chooseLanes gives appended, where the plan is a register-tile plan (no
/// tc, local or group step) without one.
SmallVector<Attribute> withLaneStep(KernelOp kernel, const KernelSpace &space,
                                    ArrayRef<Attribute> steps,
                                    const LaneTarget &target);

} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_ANALYSIS_PLANLANES_H
