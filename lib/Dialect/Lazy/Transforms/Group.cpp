//===- Group.cpp - group realized buffers into kernels --------------------===//
//
// lazy-group: tinygrad 0.9.2's reduce grouping (scheduler spec §2.3-2.6) on
// the bases lazy-mark-realize marked. For each unrealized reduce in walk
// order it collects the realized buffers reachable through elementwise
// children on contiguous same-size paths (the reduce realizes itself when a
// path meets another reduce, two views of one base, or a non-contiguous or
// resized view), keeps multi-buffer groups only when no member has a reduce
// among its unrealized ancestors (adding the members' own fusable
// descendants), refuses to fuse an assign when the kernel reads another
// assign target, and chases a self-realizing reduce down a single-child
// contiguous chain (never storing after a widening cast). Then fuse-conv-bw
// and fuse-arange un-realize what they fold, and buffers sharing a reduce
// form one group when multi-output is on.
//
// Writes `lazy.group = G` on every group member (groups in tinygrad's order)
// and renumbers `lazy.realize`.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/ScheduleAnalysis.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Dialect/Lazy/Transforms/Passes.h"
#include "SchedulerFlagOptions.h"

#include "mlir/IR/Builders.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYGROUP
#include "lazy/Dialect/Lazy/Transforms/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using namespace mlir::lazy;

namespace {
struct LazyGroup final : mlir::lazy::impl::LazyGroupBase<LazyGroup> {
  using LazyGroupBase::LazyGroupBase;

  void runOnOperation() override {
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

    ScheduleFlags flags =
        scheduleFlags(func, multiOutput, fuseConvBw, fuseArange);
    Grouping grouping =
        computeGroups(*graph, *walk, std::move(realizes), flags);

    writeScheduleMarks(*graph, grouping.realizes, grouping.outputGroups);
    return success();
  }
};
} // namespace
