//===- Group.cpp - group realized buffers into kernels --------------------===//
//
// lazy-group: prints the schedule analysis's grouping (computeGroups,
// scheduler spec §2.3-2.6: ReduceGrouping.cpp, AssignHazards.cpp,
// DoubleReduceMerge.cpp, ArangeFolding.cpp, MultiOutput.cpp state the
// rules) of the bases lazy-mark-realize marked, as marks: `lazy.group = G`
// on every group member (groups in tinygrad's order), `lazy.realize`
// renumbered. lazy-form-kernels materializes the marks.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/ScheduleAnalysis.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Dialect/Lazy/Transforms/Passes.h"
#include "lazy/Support/PassOptionHints.h"

#include "mlir/IR/Builders.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYGROUP
#include "lazy/Dialect/Lazy/Transforms/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using namespace mlir::lazy;

namespace {
struct LazyGroup final
    : mlir::lazy::WithOptionHints<mlir::lazy::impl::LazyGroupBase<LazyGroup>> {
  using WithOptionHints::WithOptionHints;
  friend struct mlir::lazy::ScheduleFlagOverrides; // reads the flag options

  void runOnOperation() override {
    // Read once for the whole run.
    flags = readScheduleFlags(getOperation(),
                              ScheduleFlagOverrides::givenIn(*this));
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (isGraphFunction(func) && failed(groupFunction(func)))
        return signalPassFailure();
    // Marks only (module pass, so the graphs outlive it; see
    // lazy-mark-realize).
    markAnalysesPreserved<ScheduleGraphAnalysis>();
  }

  LogicalResult groupFunction(func::FuncOp func) {
    auto &analysis = getChildAnalysis<ScheduleGraphAnalysis>(func);
    if (!analysis.valid())
      return failure();
    const LazyGraph *graph = &*analysis.graph;
    const GraphWalk *walk = &*analysis.walk;

    // The realizes set, in the order lazy-mark-realize recorded.
    NodeSet realizes = readRealizeMarks(*graph);
    for (NodeId out : graph->outputs()) {
      const LazyNode &base = graph->node(graph->baseOf(out));
      if (!base.isRealized() && !realizes.contains(graph->baseOf(out)))
        return base.op->emitOpError(
            "is an output without a 'lazy.realize' mark; run "
            "lazy-mark-realize before lazy-group");
    }

    SchedulePlan plan =
        computeGroups(*graph, *walk, std::move(realizes), flags);
    writeScheduleMarks(*graph, plan.realizes, plan.outputGroups,
                       &plan.rowValues);
    return success();
  }

  ScheduleFlags flags;
};
} // namespace
