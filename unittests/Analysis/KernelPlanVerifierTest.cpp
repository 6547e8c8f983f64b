//===- KernelPlanVerifierTest.cpp - the plan check's registration ---------===//
//
// A lazy.kernel's plan is verified through a dialect interface that the
// analysis library attaches (registerKernelPlanVerifier). Without it a
// planned kernel fails to verify and says what to register; with it a
// plan is held to readPlan's rules.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/KernelSpace.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::lazy;

namespace {

/// An elementwise kernel over 64 elements with the plan `upcast` of axis 0
/// by `amount`.
std::string kernelWithUpcast(int amount) {
  return R"mlir(
lazy.kernel @add(%out0: !lazy.buffer<64xf32>, %in0: !lazy.buffer<64xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 0, )mlir" +
         std::to_string(amount) + R"mlir(>]} {
  %0 = lazy.load %in0 as <[(64):(1)]> : !lazy.buffer<64xf32> -> tensor<64xf32>
  %1 = lazy.add %0, %0 : tensor<64xf32>
  lazy.store %1, %out0 as <[(64):(1)]> : tensor<64xf32>, !lazy.buffer<64xf32>
}
)mlir";
}

/// Parses `source` in `ctx`; returns the diagnostics it raised.
std::string parseErrors(MLIRContext &ctx, const std::string &source,
                        bool &parsed) {
  std::string errors;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    errors += diag.str();
    return success();
  });
  parsed = static_cast<bool>(parseSourceString<ModuleOp>(source, &ctx));
  return errors;
}

TEST(KernelPlanVerifierTest, UnregisteredVerifierRejectsPlans) {
  MLIRContext ctx;
  ctx.loadDialect<LazyDialect, func::FuncDialect>();
  bool parsed = true;
  std::string errors = parseErrors(ctx, kernelWithUpcast(4), parsed);
  EXPECT_FALSE(parsed);
  EXPECT_NE(errors.find("no plan verifier is registered"), std::string::npos)
      << errors;
}

TEST(KernelPlanVerifierTest, RegisteredVerifierChecksPlans) {
  DialectRegistry registry;
  registry.insert<LazyDialect, func::FuncDialect>();
  registerKernelPlanVerifier(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  bool parsed = false;
  std::string errors = parseErrors(ctx, kernelWithUpcast(4), parsed);
  EXPECT_TRUE(parsed) << errors;
  // 3 does not divide the axis's 64 elements.
  errors = parseErrors(ctx, kernelWithUpcast(3), parsed);
  EXPECT_FALSE(parsed);
  EXPECT_NE(errors.find("has an invalid plan"), std::string::npos) << errors;
}

} // namespace
