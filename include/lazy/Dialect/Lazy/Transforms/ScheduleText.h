//===- ScheduleText.h - a scheduled module as text ---------------*- C++
//-*-===//
//
// The two text forms of a schedule (lazy-print-schedule prints them; the
// C API returns them):
//   - canonical: what the differential harness also prints from tinygrad's
//     ScheduleItems, so two schedules are identical exactly when their
//     texts are;
//   - bridge: what a caller that holds the graph needs to rebuild the
//     schedule in its own objects (the tinygrad bridge): each distinct
//     kernel's AST once, and for each item the graph positions of its
//     outputs (`lazy.nodes`, written by lazy-schedule{record-nodes}) and
//     where each of its buffers lives after memory planning.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_TRANSFORMS_SCHEDULETEXT_H
#define LAZY_DIALECT_LAZY_TRANSFORMS_SCHEDULETEXT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::lazy {

/// Dot: Graphviz DOT, one digraph per scheduled function (printDot).
enum class ScheduleTextFormat { Canonical, Bridge, Dot };

/// Prints every scheduled function of `module`. With `buffers`, the
/// canonical form also lists each item's buffers (the memory plan); the
/// bridge form always does. Fails (with a diagnostic) where the bridge
/// form lacks what it needs: an item without `lazy.nodes`.
LogicalResult printSchedule(ModuleOp module, llvm::raw_ostream &os,
                            ScheduleTextFormat format, bool buffers = false);

} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_TRANSFORMS_SCHEDULETEXT_H
