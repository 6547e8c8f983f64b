//===- MarkRealize.cpp - decide which bases realize -----------------------===//
//
// lazy-mark-realize: prints the schedule analysis's realizes set
// (computeRealizes, scheduler spec §2.1-2.2: Realize.cpp and UnsafePads.cpp
// state the rules) as marks: each base in tinygrad's ordered `realizes` set
// gets `lazy.realize = <position>`. The marks are a printout: no pass
// reads them. Errors are the walk's: an assign to
// anything but a function argument; a copy of a non-contiguous or partial
// view.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/ScheduleAnalysis.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Dialect/Lazy/Transforms/Passes.h"
#include "lazy/Support/PassOptionHints.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYMARKREALIZE
#include "lazy/Dialect/Lazy/Transforms/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using namespace mlir::lazy;

namespace {
// A module pass, not a function pass: the graph analysis it builds for
// each graph function then outlives the pass and is reused by lazy-group
// (analyses of a nested pipeline are dropped when it
// ends).
struct LazyMarkRealize final
    : mlir::lazy::WithOptionHints<
          mlir::lazy::impl::LazyMarkRealizeBase<LazyMarkRealize>> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!isGraphFunction(func))
        continue;
      auto &analysis = getChildAnalysis<ScheduleGraphAnalysis>(func);
      if (!analysis.valid())
        return signalPassFailure();
      NodeSet realizes = computeRealizes(*analysis.graph, *analysis.walk);

      // Decisions from an earlier run are replaced, not merged.
      writeScheduleMarks(*analysis.graph, realizes);
    }
    // Marks only: the graphs and their walks stay valid for the next passes.
    markAnalysesPreserved<ScheduleGraphAnalysis>();
  }
};
} // namespace
