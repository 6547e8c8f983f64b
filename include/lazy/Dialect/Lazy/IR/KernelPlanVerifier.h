//===- KernelPlanVerifier.h - how a kernel's plan is verified ---*- C++ -*-===//
//
// A lazy.kernel's plan (`opts`, #lazy.opt steps) means something only
// against the kernel's iteration space, which an analysis computes
// (Analysis/KernelSpace.h). The kernel's verifier checks a plan through this
// dialect interface, which the analysis library attaches
// (registerKernelPlanVerifier), so the IR library depends on no analysis.
// A kernel with a plan, in a context whose lazy dialect lacks the
// interface, fails to verify with a message naming the registration: a
// missing registration never lets a bad plan through.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_IR_KERNELPLANVERIFIER_H
#define LAZY_DIALECT_LAZY_IR_KERNELPLANVERIFIER_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectInterface.h"

#include <string>

namespace mlir::lazy {

class KernelOp;

class KernelPlanVerifierInterface
    : public DialectInterface::Base<KernelPlanVerifierInterface> {
public:
  KernelPlanVerifierInterface(Dialect *dialect) : Base(dialect) {}

  /// Checks the plan `opts` of `kernel`; on failure `message` completes
  /// "'lazy.kernel' op ..." with what is wrong.
  virtual LogicalResult verifyPlan(KernelOp kernel, ArrayAttr opts,
                                   std::string &message) const = 0;
};

} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_IR_KERNELPLANVERIFIER_H
