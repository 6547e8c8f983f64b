//===- PlanCandidatesTest.cpp - the plans a search times ------------------===//
//
// planCandidates: the heuristic's plan first, none only without a reduce,
// then one step changed at a time in step order, invalid plans and
// repeats left out, at most `limit`.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/PlanCandidates.h"
#include "lazy/Dialect/Lazy/IR/LazyAttrs.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::lazy;

namespace {

/// A 256 x 1024 x 1024 matmul (axis 2 reduced) and an elementwise kernel.
constexpr const char *kKernels = R"mlir(
lazy.kernel @mm(%out0: !lazy.buffer<262144xf32>, %in0: !lazy.buffer<262144xf32>, %in1: !lazy.buffer<1048576xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(256, 1024, 1024):(1024, 0, 1)]> : !lazy.buffer<262144xf32> -> tensor<256x1024x1024xf32>
  %1 = lazy.load %in1 as <[(256, 1024, 1024):(0, 1, 1024)]> : !lazy.buffer<1048576xf32> -> tensor<256x1024x1024xf32>
  %2 = lazy.mul %0, %1 : tensor<256x1024x1024xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<256x1024x1024xf32> -> tensor<256x1024x1xf32>
  lazy.store %3, %out0 as <[(256, 1024, 1):(1024, 1, 0)]> : tensor<256x1024x1xf32>, !lazy.buffer<262144xf32>
}
lazy.kernel @add(%out0: !lazy.buffer<64xf32>, %in0: !lazy.buffer<64xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(64):(1)]> : !lazy.buffer<64xf32> -> tensor<64xf32>
  %1 = lazy.add %0, %0 : tensor<64xf32>
  lazy.store %1, %out0 as <[(64):(1)]> : tensor<64xf32>, !lazy.buffer<64xf32>
}
)mlir";

class PlanCandidatesTest : public ::testing::Test {
protected:
  void SetUp() override {
    ctx.loadDialect<LazyDialect, func::FuncDialect>();
    module = parseSourceString<ModuleOp>(kKernels, &ctx);
    ASSERT_TRUE(module);
  }
  KernelSpace spaceOf(StringRef name) {
    std::string why;
    FailureOr<KernelSpace> space =
        kernelSpace(module->lookupSymbol<KernelOp>(name), why);
    EXPECT_TRUE(succeeded(space)) << why;
    return *space;
  }
  Attribute opt(OptKind kind, int64_t axis, int64_t amount) {
    return OptAttr::get(&ctx, kind, axis, amount);
  }
  /// A plan as "u1:16 u0:4 t1:128" (upcast, unroll, tile).
  static std::string text(ArrayAttr plan) {
    std::string out;
    for (Attribute a : plan) {
      auto o = cast<OptAttr>(a);
      char kind = o.getKind() == OptKind::upcast   ? 'u'
                  : o.getKind() == OptKind::unroll ? 'r'
                  : o.getKind() == OptKind::pack   ? 'p'
                                                   : 't';
      out += (out.empty() ? "" : " ") + std::string(1, kind) +
             std::to_string(o.getAxis()) + ":" + std::to_string(o.getAmount());
    }
    return out.empty() ? "none" : out;
  }
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

TEST_F(PlanCandidatesTest, MatmulStepsChangedOneAtATime) {
  SmallVector<Attribute> heuristic = {opt(OptKind::upcast, 1, 16),
                                      opt(OptKind::upcast, 0, 4),
                                      opt(OptKind::tile, 1, 128)};
  SmallVector<ArrayAttr> got =
      planCandidates(&ctx, heuristic, spaceOf("mm"), /*limit=*/100);
  std::vector<std::string> texts;
  for (ArrayAttr plan : got)
    texts.push_back(text(plan));
  // No "none": the kernel reduces. Each upcast halved, doubled and
  // quadrupled, the tile dropped, halved and doubled.
  std::vector<std::string> want = {"u1:16 u0:4 t1:128",  "u1:8 u0:4 t1:128",
                                   "u1:32 u0:4 t1:128",  "u1:64 u0:4 t1:128",
                                   "u1:16 u0:2 t1:128",  "u1:16 u0:8 t1:128",
                                   "u1:16 u0:16 t1:128", "u1:16 u0:4",
                                   "u1:16 u0:4 t1:64",   "u1:16 u0:4 t1:256"};
  EXPECT_EQ(texts, want);
}

TEST_F(PlanCandidatesTest, PackFollowsItsTile) {
  // A packed block: halving the tile halves the pack step; dropping or
  // doubling it drops the pack step; the pack step also goes alone.
  SmallVector<Attribute> heuristic = {
      opt(OptKind::upcast, 1, 16), opt(OptKind::upcast, 0, 4),
      opt(OptKind::tile, 1, 128), opt(OptKind::pack, 1, 128)};
  SmallVector<ArrayAttr> got =
      planCandidates(&ctx, heuristic, spaceOf("mm"), /*limit=*/100);
  std::vector<std::string> texts;
  for (ArrayAttr plan : got)
    texts.push_back(text(plan));
  std::vector<std::string> tileSteps(texts.end() - 4, texts.end());
  std::vector<std::string> want = {"u1:16 u0:4", "u1:16 u0:4 t1:64 p1:64",
                                   "u1:16 u0:4 t1:256", "u1:16 u0:4 t1:128"};
  EXPECT_EQ(tileSteps, want);
  for (ArrayAttr plan : got) {
    std::string why;
    EXPECT_TRUE(succeeded(readPlan(plan.getValue(), spaceOf("mm"), why)))
        << text(plan) << ": " << why;
  }
}

TEST_F(PlanCandidatesTest, InvalidPlansLeftOutAndLimitHolds) {
  // The candidates readPlan refuses (over kMaxElementsPerTrip elements a
  // trip) are not offered.
  SmallVector<Attribute> heuristic = {opt(OptKind::upcast, 1, 128),
                                      opt(OptKind::upcast, 0, 4)};
  SmallVector<ArrayAttr> got =
      planCandidates(&ctx, heuristic, spaceOf("mm"), /*limit=*/100);
  for (ArrayAttr plan : got) {
    std::string why;
    EXPECT_TRUE(succeeded(readPlan(plan.getValue(), spaceOf("mm"), why)))
        << text(plan) << ": " << why;
  }
  std::vector<std::string> texts;
  for (ArrayAttr plan : got)
    texts.push_back(text(plan));
  // u1:256 and u1:512 (x u0:4), u0:8 and u0:16 (x u1:128) give 1024 or
  // more elements a trip: left out.
  std::vector<std::string> want = {"u1:128 u0:4", "u1:64 u0:4", "u1:128 u0:2"};
  EXPECT_EQ(texts, want);
  EXPECT_EQ(planCandidates(&ctx, heuristic, spaceOf("mm"), 2).size(), 2u);
}

TEST_F(PlanCandidatesTest, ElementwiseKernelsTryNoPlan) {
  SmallVector<Attribute> heuristic = {opt(OptKind::upcast, 0, 16)};
  SmallVector<ArrayAttr> got =
      planCandidates(&ctx, heuristic, spaceOf("add"), /*limit=*/100);
  std::vector<std::string> texts;
  for (ArrayAttr plan : got)
    texts.push_back(text(plan));
  std::vector<std::string> want = {"u0:16", "none", "u0:8", "u0:32", "u0:64"};
  EXPECT_EQ(texts, want);
}

TEST_F(PlanCandidatesTest, ReadPlanRefusesRowStepsOnAKernelWithASpace) {
  // Row and block steps name store groups (readGroupPlan reads them): over
  // a space, readPlan refuses one, so no candidate holds it.
  std::string why;
  SmallVector<Attribute> plan = {opt(OptKind::row, 0, 32)};
  EXPECT_TRUE(failed(readPlan(plan, spaceOf("add"), why)));
  EXPECT_EQ(why, "step 0 (row) names a store group: it belongs to a plan "
                 "of row and block steps only");
}

} // namespace
