//===- Group.cpp - group realized buffers into kernels --------------------===//
//
// lazy-group: prints the schedule analysis's whole plan (computeRealizes,
// then computeGroups, scheduler spec §2.1-2.6: ReduceGrouping.cpp,
// AssignHazards.cpp, DoubleReduceMerge.cpp, ArangeFolding.cpp,
// MultiOutput.cpp state the rules) as marks: `lazy.realize = N` on the final
// realizes, `lazy.group = G` on every group member (groups in tinygrad's
// order), `lazy.row_value` on fusion=aggressive's row values. The marks are
// a printout: no pass reads them, lazy-form-kernels decides the same plan
// itself.
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
    // Marks only: the graphs and their walks stay valid.
    markAnalysesPreserved<ScheduleGraphAnalysis>();
  }

  LogicalResult groupFunction(func::FuncOp func) {
    auto &analysis = getChildAnalysis<ScheduleGraphAnalysis>(func);
    if (!analysis.valid())
      return failure();
    const LazyGraph *graph = &*analysis.graph;
    const GraphWalk *walk = &*analysis.walk;

    SchedulePlan plan =
        computeGroups(*graph, *walk, computeRealizes(*graph, *walk), flags);
    writeScheduleMarks(*graph, plan.realizes, plan.outputGroups,
                       &plan.rowValues);
    return success();
  }

  ScheduleFlags flags;
};
} // namespace
