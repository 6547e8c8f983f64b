//===- SchedulePipeline.cpp - the lazy-schedule pipeline ------------------===//
//
// lazy-schedule runs tinygrad 0.9.2's whole scheduler: lazy-fold-views,
// lazy-mark-realize, lazy-group, lazy-form-kernels, lazy-toposort and (as
// Tensor.schedule does, unless plan-memory=false) lazy-plan-memory. The
// first four run as one, lazy-form-kernels{decide=true fold-views=true}:
// the marks would only be written to be read back, and an exported graph,
// already folded, would only be walked and verified again. Flags given as
// options override the module's `lazy.flags`; flags not given keep the
// module's value, else tinygrad's default.
// record-nodes marks each item with the graph positions of its outputs
// (`lazy.nodes`, for the tinygrad bridge).
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace {
struct SchedulePipelineOptions
    : public PassPipelineOptions<SchedulePipelineOptions> {
  Option<bool> multiOutput{*this, "multi-output",
                           llvm::cl::desc("MULTIOUTPUT (default true)")};
  Option<bool> fuseConvBw{*this, "fuse-conv-bw",
                          llvm::cl::desc("FUSE_CONV_BW (default false)")};
  Option<bool> fuseArange{*this, "fuse-arange",
                          llvm::cl::desc("FUSE_ARANGE (default false)")};
  Option<bool> planMemory{
      *this, "plan-memory",
      llvm::cl::desc("run lazy-plan-memory (tinygrad's NO_MEMORY_PLANNER=0)"),
      llvm::cl::init(true)};
  Option<bool> recordNodes{
      *this, "record-nodes",
      llvm::cl::desc("mark each item with the graph positions of its outputs "
                     "(`lazy.nodes`), for the tinygrad bridge"),
      llvm::cl::init(false)};
};

LogicalResult buildSchedulePipeline(OpPassManager &pm,
                                    const SchedulePipelineOptions &options) {
  // Only explicitly given flags are passed on, so that the module's
  // lazy.flags decide the others.
  std::string flagOptions;
  auto add = [&](const SchedulePipelineOptions::Option<bool> &option,
                 StringRef name) {
    if (!option.hasValue())
      return;
    flagOptions += (flagOptions.empty() ? "" : " ") + name.str() + "=" +
                    (option ? "true" : "false");
  };
  add(options.multiOutput, "multi-output");
  add(options.fuseConvBw, "fuse-conv-bw");
  add(options.fuseArange, "fuse-arange");
  if (options.recordNodes)
    flagOptions += (flagOptions.empty() ? "" : " ") + std::string("record-nodes=true");
  // lazy-form-kernels{decide} folds views where lazy-fold-views would and
  // makes lazy-mark-realize's and lazy-group's decisions itself: the same
  // schedule, without writing, verifying and reading back their marks, and
  // without a pass over (and a verification of) a graph that is already
  // folded, as exported graphs are.
  std::string pipeline = "lazy-form-kernels{"
                         "decide=true fold-views=true" +
                         (flagOptions.empty() ? "" : " " + flagOptions) +
                         "},func.func(lazy-toposort" +
                         (options.planMemory ? ",lazy-plan-memory" : "") + ")";
  return parsePassPipeline(pipeline, pm);
}
} // namespace

void mlir::lazy::registerSchedulePipeline() {
  PassPipelineRegistration<SchedulePipelineOptions>(
      "lazy-schedule",
      "tinygrad 0.9.2's scheduler: fold views, mark realizes, group, form "
      "kernels, order",
      [](OpPassManager &pm, const SchedulePipelineOptions &options) {
        if (failed(buildSchedulePipeline(pm, options)))
          llvm::report_fatal_error("lazy-schedule: bad pipeline");
      });
}
