//===- SchedulePipeline.cpp - the lazy-schedule pipeline ------------------===//
//
// lazy-schedule runs tinygrad 0.9.2's whole scheduler: lazy-fold-views,
// lazy-mark-realize, lazy-group, lazy-form-kernels, lazy-toposort and (as
// Tensor.schedule does, unless plan-memory=false) lazy-plan-memory. The
// first four run as one, lazy-form-kernels{fold-views=true}: it makes the
// decisions the marking passes print, and an exported graph, already
// folded, is not walked and verified again. Flags given as
// options override the module's `lazy.flags`; flags not given keep the
// module's value, else tinygrad's default. record-nodes marks each item
// with the graph positions of its outputs (`lazy.nodes`, for the tinygrad
// bridge).
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Transforms/Passes.h"
#include "lazy/Support/PassOptionHints.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::lazy;

namespace {
struct SchedulePipelineOptions
    : public PassPipelineOptions<SchedulePipelineOptions> {
#define LAZY_BOOL_FLAG(field, key, option, def, tinygrad, description)         \
  Option<bool> field{                                                          \
      *this, option,                                                           \
      llvm::cl::desc(tinygrad ": " description " (default " #def ")")};
#define LAZY_POLICY_FLAG(field, key, option, description)                      \
  Option<FusionPolicy> field{                                                  \
      *this, option, llvm::cl::desc(description),                              \
      llvm::cl::values(                                                        \
          clEnumValN(FusionPolicy::Tinygrad, "tinygrad", "tinygrad 0.9.2"),    \
          clEnumValN(FusionPolicy::Aggressive, "aggressive",                   \
                     "fewer kernels, fewer bytes"))};
#include "lazy/Dialect/Lazy/IR/ScheduleFlags.def"
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

void buildSchedulePipeline(OpPassManager &pm,
                           const SchedulePipelineOptions &options) {
  FormKernelsConfig config;
  config.recordNodes = options.recordNodes;
  pm.addPass(
      createLazyFormKernels(config, ScheduleFlagOverrides::givenIn(options)));
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  funcPm.addPass(createLazyToposort());
  if (options.planMemory)
    funcPm.addPass(createLazyPlanMemory());
}
} // namespace

void mlir::lazy::addSchedulePasses(OpPassManager &pm) {
  buildSchedulePipeline(pm, SchedulePipelineOptions());
}

void mlir::lazy::registerSchedulePipeline() {
  registerPipelineWithHints<SchedulePipelineOptions>(
      "lazy-schedule",
      "tinygrad 0.9.2's scheduler: fold views, mark realizes, group, form "
      "kernels, order",
      buildSchedulePipeline);
}
