//===- KernelPlanVerifier.cpp - the kernel verifier's plan check ----------===//
//
// Attaches KernelPlanVerifierInterface (IR/KernelPlanVerifier.h) to the lazy
// dialect: a plan verifies when the kernel has an iteration space and the
// plan reads against it (readPlan's rules, KernelSpace.h).
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/IR/KernelPlanVerifier.h"
#include "lazy/Dialect/Lazy/Analysis/KernelSpace.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::lazy;

namespace {
struct KernelSpacePlanVerifier final : KernelPlanVerifierInterface {
  using KernelPlanVerifierInterface::KernelPlanVerifierInterface;

  LogicalResult verifyPlan(KernelOp kernel, ArrayAttr opts,
                           std::string &message) const override {
    return failure(failed(readKernelPlan(kernel, opts.getValue(), message)));
  }
};
} // namespace

void mlir::lazy::registerKernelPlanVerifier(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *, LazyDialect *dialect) {
    dialect->addInterfaces<KernelSpacePlanVerifier>();
  });
}
