//===- MarkRealize.cpp - decide which bases realize -----------------------===//
//
// lazy-mark-realize: tinygrad 0.9.2's _recurse_lb walk plus the padding
// check (scheduler spec §2.1-2.2). Marks each base in tinygrad's ordered
// `realizes` set with `lazy.realize = <position>`:
//   - the base of every unrealized output;
//   - forced_realize bases and every meta op;
//   - the source base of each copy and buffer_view;
//   - the base of an expanding view (unless it is a single masked view whose
//     valid box fits in the base: a pad);
//   - a padded base when an UNSAFE_PAD_OPS op (recip, log2, exp2, idiv)
//     lies between it and the nearest realized buffer.
// Errors: an assign to anything but a function argument; a copy of a
// non-contiguous or partial view.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/ScheduleAnalysis.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Dialect/Lazy/Transforms/Passes.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYMARKREALIZE
#include "lazy/Dialect/Lazy/Transforms/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using namespace mlir::lazy;

namespace {
// A module pass, not a function pass: the graph analysis it builds for
// each graph function then outlives the pass and is reused by lazy-group
// and lazy-form-kernels (analyses of a nested pipeline are dropped when it
// ends).
struct LazyMarkRealize final
    : mlir::lazy::impl::LazyMarkRealizeBase<LazyMarkRealize> {
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
