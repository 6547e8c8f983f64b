//===- Passes.h - lazy dialect passes ----------------------------*- C++
//-*-===//

#ifndef LAZY_DIALECT_LAZY_TRANSFORMS_PASSES_H
#define LAZY_DIALECT_LAZY_TRANSFORMS_PASSES_H

#include "lazy/Dialect/Lazy/IR/LazyDialect.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Dialect/Lazy/IR/ScheduleFlags.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::lazy {

#define GEN_PASS_DECL
#include "lazy/Dialect/Lazy/Transforms/Passes.h.inc"

/// lazy-fold-views' rewrite of one function, for passes that fold on their
/// own (lazy-form-kernels with `fold-views`); true when it changed anything.
bool foldViews(func::FuncOp func);

/// lazy-form-kernels as lazy-schedule runs it: `fold-views` and
/// `record-nodes` as in Passes.td, and the flags in `flags` set (the
/// module's `lazy.flags` give the others).
struct FormKernelsConfig {
  bool foldViews = true;
  bool recordNodes = false;
};
std::unique_ptr<Pass> createLazyFormKernels(const FormKernelsConfig &config,
                                            const ScheduleFlagOverrides &flags);

/// lazy-online-softmax's rewrite of one kernel: the number of
/// softmax-weighted sums rewritten into lazy.softmax_sum.
unsigned rewriteOnlineSoftmax(KernelOp kernel);

/// The device of each rank lazy-distribute would make of the ordered
/// schedule `func` (sorted by name, then number), or failure after a
/// diagnostic on a device that cannot be a rank.
FailureOr<std::vector<std::string>> rankDevicesOf(func::FuncOp func);

/// Registers the `lazy-schedule` pipeline (all scheduler passes).
void registerSchedulePipeline();
/// Adds lazy-schedule's passes with its default options (the module's
/// flags, memory planning) to `pm`, anchored on a module.
void addSchedulePasses(OpPassManager &pm);

#define GEN_PASS_REGISTRATION
#include "lazy/Dialect/Lazy/Transforms/Passes.h.inc"

} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_TRANSFORMS_PASSES_H
