//===- ScheduleRulesTest.cpp - each scheduler rule on its own -------------===//
//
// One test (or a few) per rule file of lib/Dialect/Lazy/Analysis, calling
// the rule's entry point on a small graph: the decisions as plain data,
// where the lit tests (test/Transforms/mark-realize.mlir, group.mlir) see
// them only as marks after every rule has run.
//
//===----------------------------------------------------------------------===//

#include "ScheduleRules.h"
#include "ReduceGrouping.h"
#include "lazy/Dialect/Lazy/Analysis/KernelAst.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::lazy;

namespace {

/// Parses one graph function; ops are found by their location names.
class Rules : public ::testing::Test {
protected:
  Rules() {
    DialectRegistry registry;
    registry.insert<LazyDialect, func::FuncDialect>();
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  /// Parses `body` as the body of `func.func @g` with `signature`, builds
  /// its graph and walks it.
  void load(StringRef signature, StringRef body) {
    std::string text =
        ("func.func @g" + signature + " {\n" + body + "\n}").str();
    module = parseSourceString<ModuleOp>(text, &ctx);
    ASSERT_TRUE(module) << text;
    auto func = *module->getOps<func::FuncOp>().begin();
    FailureOr<LazyGraph> built = LazyGraph::build(func);
    ASSERT_TRUE(succeeded(built));
    graph.emplace(std::move(*built));
    FailureOr<GraphWalk> walked = walkGraph(*graph);
    ASSERT_TRUE(succeeded(walked));
    walk.emplace(std::move(*walked));
  }

  /// The node of the op at `loc("name")`.
  NodeId node(StringRef name) const {
    for (NodeId id = 0; id < NodeId(graph->size()); ++id)
      if (StringAttr meta = graph->node(id).metadata)
        if (meta.getValue() == name)
          return id;
    ADD_FAILURE() << "no op named " << name.str();
    return -1;
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  std::optional<LazyGraph> graph;
  std::optional<GraphWalk> walk;
};

//===- Realize.cpp --------------------------------------------------------===//

TEST_F(Rules, RealizeOutputsMetaOpsAndExpandedBases) {
  load("(%a: tensor<4xf32>) -> tensor<4x4xf32>", R"(
  %c = lazy.const 2.0 : tensor<f32> loc("c")
  %cv = lazy.view %c as <[(4):(0)]> : tensor<f32> -> tensor<4xf32>
  %m = lazy.mul %a, %cv : tensor<4xf32> loc("m")
  %e = lazy.view %m as <[(4, 4):(1, 0)]> : tensor<4xf32> -> tensor<4x4xf32>
  %n = lazy.neg %e : tensor<4x4xf32> loc("n")
  return %n : tensor<4x4xf32>)");
  // The output, then (walking its sources) the expanded base, then the
  // const (a meta op).
  EXPECT_EQ(std::vector<NodeId>(walk->realizes.begin(), walk->realizes.end()),
            (std::vector<NodeId>{node("n"), node("m"), node("c")}));
  EXPECT_TRUE(walk->simplePads.empty());
}

TEST_F(Rules, RealizeRejectsAssignToAComputedValue) {
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  OwningOpRef<ModuleOp> bad = parseSourceString<ModuleOp>(R"(
func.func @g(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lazy.neg %a : tensor<4xf32>
  %1 = lazy.assign %a to %0 : tensor<4xf32>, tensor<4xf32>
  return %1 : tensor<4xf32>
})",
                                                          &ctx);
  ASSERT_TRUE(bad);
  FailureOr<LazyGraph> built =
      LazyGraph::build(*bad->getOps<func::FuncOp>().begin());
  ASSERT_TRUE(succeeded(built));
  EXPECT_TRUE(failed(walkGraph(*built)));
  EXPECT_NE(message.find("assigns to a value that is not a realized buffer"),
            std::string::npos)
      << message;
}

//===- UnsafePads.cpp -----------------------------------------------------===//

TEST_F(Rules, PadThroughAnUnsafeOpRealizes) {
  load("(%a: tensor<4xf32>) -> (tensor<6xf32>, tensor<6xf32>)", R"(
  %r = lazy.recip %a : tensor<4xf32> loc("recip")
  %p = lazy.view %r as <[(6):(1) offset -1 mask [(1, 5)]]> : tensor<4xf32> -> tensor<6xf32>
  %x = lazy.neg %p : tensor<6xf32> loc("x")
  %s = lazy.neg %a : tensor<4xf32> loc("safe")
  %q = lazy.view %s as <[(6):(1) offset -1 mask [(1, 5)]]> : tensor<4xf32> -> tensor<6xf32>
  %y = lazy.neg %q : tensor<6xf32> loc("y")
  return %x, %y : tensor<6xf32>, tensor<6xf32>)");
  EXPECT_TRUE(isUnsafePadOp(graph->node(node("recip")).op));
  EXPECT_FALSE(isUnsafePadOp(graph->node(node("safe")).op));
  EXPECT_TRUE(walk->simplePads.contains(node("recip")));
  EXPECT_TRUE(walk->simplePads.contains(node("safe")));
  NodeSet realizes = walk->realizes;
  realizeUnsafePads(*graph, *walk, realizes);
  EXPECT_TRUE(realizes.contains(node("recip")));
  EXPECT_FALSE(realizes.contains(node("safe")));
}

//===- ReduceGrouping.cpp -------------------------------------------------===//

TEST_F(Rules, ReduceFusesIntoItsContiguousChild) {
  load("(%a: tensor<4x4xf32>, %b: tensor<4x1xf32>) -> tensor<4x1xf32>", R"(
  %0 = lazy.reduce_sum %a axes [1] : tensor<4x4xf32> -> tensor<4x1xf32> loc("sum")
  %1 = lazy.add %0, %b : tensor<4x1xf32> loc("add")
  return %1 : tensor<4x1xf32>)");
  SchedulePlan plan;
  plan.realizes = computeRealizes(*graph, *walk);
  EXPECT_TRUE(groupReduces(*graph, *walk, plan, true).empty());
  EXPECT_EQ(plan.reduceForOp.lookup(node("add")), node("sum"));
  EXPECT_FALSE(plan.realizes.contains(node("sum")));
}

TEST_F(Rules, ReduceMeetingAReduceIsChasedToItsChild) {
  load("(%a: tensor<4x4x4xf32>, %c: tensor<1x4x4xf32>) -> tensor<1x1x4xf32>",
       R"(
  %0 = lazy.reduce_sum %a axes [0] : tensor<4x4x4xf32> -> tensor<1x4x4xf32> loc("inner")
  %1 = lazy.add %0, %c : tensor<1x4x4xf32> loc("add")
  %2 = lazy.reduce_sum %1 axes [1] : tensor<1x4x4xf32> -> tensor<1x1x4xf32> loc("outer")
  return %2 : tensor<1x1x4xf32>)");
  SchedulePlan plan;
  plan.realizes = computeRealizes(*graph, *walk);
  groupReduces(*graph, *walk, plan, false);
  // The inner reduce's path meets the outer reduce: it realizes, chased
  // down to the add, which stores it.
  EXPECT_TRUE(plan.realizes.contains(node("add")));
  EXPECT_FALSE(plan.realizes.contains(node("inner")));
  EXPECT_EQ(plan.reduceForOp.lookup(node("add")), node("inner"));
}

//===- AssignHazards.cpp --------------------------------------------------===//

TEST_F(Rules, AssignGuardSeesAnotherTarget) {
  load("(%a: tensor<4xf32>, %b: tensor<1xf32>) -> (tensor<4xf32>, "
       "tensor<1xf32>)",
       R"(
  %na = lazy.neg %a : tensor<4xf32> loc("na")
  %aa = lazy.assign %na to %a : tensor<4xf32>, tensor<4xf32> loc("assign_a")
  %s = lazy.reduce_sum %a axes [0] : tensor<4xf32> -> tensor<1xf32> loc("sum")
  %nb = lazy.add %b, %s : tensor<1xf32> loc("nb")
  %ab = lazy.assign %nb to %b : tensor<1xf32>, tensor<1xf32> loc("assign_b")
  return %aa, %ab : tensor<4xf32>, tensor<1xf32>)");
  NodeSet realizes = computeRealizes(*graph, *walk);
  // The sum reads %a, which assign_a writes: a kernel of the sum holding
  // assign_b but not assign_a would read another target. The walk up stops
  // at realized buffers.
  EXPECT_TRUE(readsOtherAssignTarget(*graph, *walk, realizes, node("sum"),
                                     NodeSet{node("assign_b")}));
  EXPECT_FALSE(
      readsOtherAssignTarget(*graph, *walk, realizes, node("sum"),
                             NodeSet{node("assign_a"), node("assign_b")}));
}

//===- DoubleReduceMerge.cpp ----------------------------------------------===//

TEST_F(Rules, DoubleReduceMergesUnderFuseConvBw) {
  load("(%a: tensor<4x4x4xf32>) -> tensor<1x1x1xf32>", R"(
  %0 = lazy.reduce_sum %a axes [2] : tensor<4x4x4xf32> -> tensor<4x4x1xf32> loc("inner")
  %1 = lazy.view %0 as <[(4, 4, 1):(1, 4, 0)]> : tensor<4x4x1xf32> -> tensor<4x4x1xf32>
  %2 = lazy.reduce_sum %1 axes [0, 1] : tensor<4x4x1xf32> -> tensor<1x1x1xf32> loc("outer")
  return %2 : tensor<1x1x1xf32>)");
  EXPECT_TRUE(isDoubleReduce(*graph, node("outer")));
  EXPECT_FALSE(isDoubleReduce(*graph, node("inner")));
  EXPECT_TRUE(walk->doubleReduces.contains(node("outer")));

  ScheduleFlags off, on;
  on.fuseConvBw = true;
  SchedulePlan without =
      computeGroups(*graph, *walk, computeRealizes(*graph, *walk), off);
  SchedulePlan with =
      computeGroups(*graph, *walk, computeRealizes(*graph, *walk), on);
  EXPECT_TRUE(without.realizes.contains(node("inner")));
  EXPECT_FALSE(with.realizes.contains(node("inner")));
  EXPECT_EQ(with.outputGroups.size(), 1u);
  EXPECT_EQ(without.outputGroups.size(), 2u);

  EXPECT_EQ(mergedAxes({0, 1}, {2}), (std::vector<int64_t>{0, 1, 2}));
}

TEST_F(Rules, MergeThroughARenumberingReshapeIsFlagged) {
  load("(%a: tensor<4x4xf32>) -> tensor<1x1xf32>", R"(
  %0 = lazy.reduce_sum %a axes [1] : tensor<4x4xf32> -> tensor<4x1xf32> loc("inner")
  %1 = lazy.view %0 as <[(1, 4):(0, 1)]> : tensor<4x1xf32> -> tensor<1x4xf32>
  %2 = lazy.reduce_sum %1 axes [1] : tensor<1x4xf32> -> tensor<1x1xf32> loc("outer")
  return %2 : tensor<1x1xf32>)");
  NodeId outer = node("outer");
  ::lazy::st::TrackerId between =
      graph->node(graph->node(outer).srcs[0]).tracker;
  // Axis 1 of the reshaped (1, 4) is the kept axis 0 of the inner (4, 1).
  EXPECT_TRUE(mergeRenumbersAxes(*graph, node("inner"), between, {1}));
  EXPECT_FALSE(mergeRenumbersAxes(*graph, node("inner"), between, {0, 1}));
}

//===- ArangeFolding.cpp --------------------------------------------------===//

TEST_F(Rules, ArangeFoldsIntoItsConsumers) {
  load("(%b: tensor<4x1xf32>) -> tensor<4x1xf32>", R"(
  %c = lazy.const 1.0 : tensor<f32> loc("one")
  %cv = lazy.view %c as <[(4, 4):(0, 0)]> : tensor<f32> -> tensor<4x4xf32>
  %0 = lazy.reduce_sum %cv axes [1] : tensor<4x4xf32> -> tensor<4x1xf32> loc("arange")
  %1 = lazy.exp2 %0 : tensor<4x1xf32> loc("stored")
  %2 = lazy.view %1 as <[(4, 1):(0, 0)]> : tensor<4x1xf32> -> tensor<4x1xf32>
  %3 = lazy.add %2, %b : tensor<4x1xf32> loc("use")
  return %3 : tensor<4x1xf32>)");
  EXPECT_TRUE(isArangeReduce(*graph, node("arange")));
  ScheduleFlags off, on;
  on.fuseArange = true;
  SchedulePlan without =
      computeGroups(*graph, *walk, computeRealizes(*graph, *walk), off);
  SchedulePlan with =
      computeGroups(*graph, *walk, computeRealizes(*graph, *walk), on);
  EXPECT_TRUE(without.realizes.contains(node("stored")));
  EXPECT_FALSE(with.realizes.contains(node("stored")));
  EXPECT_LT(with.outputGroups.size(), without.outputGroups.size());
}

//===- MultiOutput.cpp ----------------------------------------------------===//

TEST_F(Rules, BuffersSharingAReduceShareAGroup) {
  load("(%a: tensor<4x4xf32>) -> (tensor<1x1xf32>, tensor<1x1xf32>)", R"(
  %0 = lazy.reduce_sum %a axes [0, 1] : tensor<4x4xf32> -> tensor<1x1xf32> loc("sum")
  %1 = lazy.neg %0 : tensor<1x1xf32> loc("neg")
  %2 = lazy.exp2 %0 : tensor<1x1xf32> loc("exp2")
  return %1, %2 : tensor<1x1xf32>, tensor<1x1xf32>)");
  ScheduleFlags on, off;
  off.multiOutput = false;
  SchedulePlan shared =
      computeGroups(*graph, *walk, computeRealizes(*graph, *walk), on);
  ASSERT_EQ(shared.outputGroups.size(), 1u);
  EXPECT_EQ(shared.outputGroups[0],
            (std::vector<NodeId>{node("neg"), node("exp2")}));
  SchedulePlan apart =
      computeGroups(*graph, *walk, computeRealizes(*graph, *walk), off);
  EXPECT_EQ(apart.outputGroups.size(), 2u);
  EXPECT_TRUE(succeeded(checkGroupComputable(*graph, shared.outputGroups[0])));
  EXPECT_TRUE(succeeded(checkOutputsGrouped(*graph, shared.outputGroups)));
}

//===- AggressiveFusion.cpp -----------------------------------------------===//

/// A (64, 1) base computed from three (64, 1) buffers, expanded to (64, 2)
/// and read by `consumers` reduces.
static std::string expandedBase(int consumers) {
  std::string body = R"(
  %0 = lazy.add %a, %b : tensor<64x1xf32> loc("add")
  %1 = lazy.mul %0, %c : tensor<64x1xf32> loc("base")
  %2 = lazy.view %1 as <[(64, 2):(1, 0)]> : tensor<64x1xf32> -> tensor<64x2xf32>)";
  std::string results, types;
  for (int i = 0; i < consumers; ++i) {
    std::string n = std::to_string(i);
    body += "\n  %m" + n + " = lazy.mul %x, %2 : tensor<64x2xf32>\n  %r" + n +
            " = lazy.reduce_sum %m" + n +
            " axes [1] : tensor<64x2xf32> -> tensor<64x1xf32>";
    results += (i ? ", %r" : "%r") + n;
    types += i ? ", tensor<64x1xf32>" : "tensor<64x1xf32>";
  }
  return body + "\n  return " + results + " : " + types;
}

TEST_F(Rules, ExpandedBaseIsRecomputedWhenThatMovesFewerBytes) {
  for (int consumers : {1, 3}) {
    std::string types;
    for (int i = 0; i < consumers; ++i)
      types += i ? ", tensor<64x1xf32>" : "tensor<64x1xf32>";
    load("(%a: tensor<64x1xf32>, %b: tensor<64x1xf32>, %c: tensor<64x1xf32>, "
         "%x: tensor<64x2xf32>) -> (" +
             types + ")",
         expandedBase(consumers));
    SchedulePlan plan =
        computeGroups(*graph, *walk, computeRealizes(*graph, *walk), {});
    ASSERT_TRUE(plan.realizes.contains(node("base"))) << consumers;
    recomputeRealizedBases(*graph, *walk, plan);
    // Stored: 256 + 768 + n * 256 bytes; recomputed: n * 768, plus the
    // base's two ops on 2n * 64 elements, 64 of which storing computes
    // too, at kOpBytes (1): 896 against 1280 for one consumer, 2944
    // against 1792 for three.
    EXPECT_EQ(plan.realizes.contains(node("base")), consumers == 3)
        << consumers;
  }
}

TEST_F(Rules, AggressivePolicyRunsAfterTinygradsRules) {
  load("(%a: tensor<64x1xf32>, %b: tensor<64x1xf32>, %c: tensor<64x1xf32>, "
       "%x: tensor<64x2xf32>) -> (tensor<64x1xf32>)",
       expandedBase(1));
  ScheduleFlags aggressive;
  aggressive.fusion = FusionPolicy::Aggressive;
  SchedulePlan tinygrad =
      computeGroups(*graph, *walk, computeRealizes(*graph, *walk), {});
  SchedulePlan fused =
      computeGroups(*graph, *walk, computeRealizes(*graph, *walk), aggressive);
  EXPECT_EQ(tinygrad.outputGroups.size(), 2u);
  EXPECT_EQ(fused.outputGroups.size(), 1u);
}

/// A row max read by a row sum, and by a column sum (on its second use).
static std::string rowMax(bool columns) {
  std::string body = R"(
  %m = lazy.reduce_max %x axes [1] : tensor<8x16xf32> -> tensor<8x1xf32> loc("max")
  %mv = lazy.view %m as <[(8, 16):(1, 0)]> : tensor<8x1xf32> -> tensor<8x16xf32>
  %n = lazy.neg %mv : tensor<8x16xf32>
  %d = lazy.add %x, %n : tensor<8x16xf32>
  %rows = lazy.reduce_sum %d axes [1] : tensor<8x16xf32> -> tensor<8x1xf32> loc("rows"))";
  if (!columns)
    return body + "\n  return %rows : tensor<8x1xf32>";
  return body + R"(
  %cols = lazy.reduce_sum %d axes [0] : tensor<8x16xf32> -> tensor<1x16xf32> loc("cols")
  return %rows, %cols : tensor<8x1xf32>, tensor<1x16xf32>)";
}

TEST_F(Rules, RowValueIsComputedByItsReader) {
  load("(%x: tensor<8x16xf32>) -> tensor<8x1xf32>", rowMax(false));
  SchedulePlan plan =
      computeGroups(*graph, *walk, computeRealizes(*graph, *walk), {});
  ASSERT_EQ(plan.outputGroups.size(), 2u);
  fuseRowReduces(*graph, *walk, plan);
  EXPECT_FALSE(plan.realizes.contains(node("max")));
  EXPECT_TRUE(plan.rowValues.contains(node("max")));
  ASSERT_EQ(plan.outputGroups.size(), 1u);
  EXPECT_EQ(plan.outputGroups[0], std::vector<NodeId>{node("rows")});
}

TEST_F(Rules, RowValueReadAlongAReduceIsStoredByARowReader) {
  load("(%x: tensor<8x16xf32>) -> (tensor<8x1xf32>, tensor<1x16xf32>)",
       rowMax(true));
  SchedulePlan plan =
      computeGroups(*graph, *walk, computeRealizes(*graph, *walk), {});
  ASSERT_EQ(plan.outputGroups.size(), 3u);
  fuseRowReduces(*graph, *walk, plan);
  // The column sum reads the max along its own reduce axis: the max stays
  // stored, now by the row sum's kernel, which computes it per row.
  EXPECT_TRUE(plan.realizes.contains(node("max")));
  EXPECT_TRUE(plan.rowValues.contains(node("max")));
  ASSERT_EQ(plan.outputGroups.size(), 2u);
  std::vector<NodeId> stored = plan.outputGroups[0];
  llvm::sort(stored);
  EXPECT_EQ(stored, (std::vector<NodeId>{node("max"), node("rows")}));
  EXPECT_EQ(plan.outputGroups[1], std::vector<NodeId>{node("cols")});
}

TEST_F(Rules, RowTrialsCheckTheKernelsShapes) {
  // A row sum read through its expand: the reader's kernel, built with it
  // as a row value, reads it through a View node.
  load("(%x: tensor<8x16xf32>) -> tensor<8x16xf32>", R"(
  %0 = lazy.reduce_sum %x axes [1] : tensor<8x16xf32> -> tensor<8x1xf32> loc("sum")
  %1 = lazy.view %0 as <[(8, 16):(1, 0)]> : tensor<8x1xf32> -> tensor<8x16xf32>
  %2 = lazy.add %x, %1 : tensor<8x16xf32> loc("add")
  return %2 : tensor<8x16xf32>)");
  NodeSet realizes = computeRealizes(*graph, *walk);
  realizes.remove(node("sum"));
  NodeSet rows;
  rows.insert(node("sum"));
  KernelAstBuilder builder(*graph, realizes, /*useCopyKernel=*/false, &rows);
  FailureOr<ScheduleItem> built = builder.build({node("add")});
  ASSERT_TRUE(succeeded(built));
  ScheduleItem item = *built;
  const ::lazy::st::TrackerPool &pool = graph->trackers();
  EXPECT_TRUE(kernelShapesAgree(item, pool));
  auto find = [&](AstNode::Kind kind) {
    return int32_t(
        llvm::find_if(item.nodes,
                      [&](const AstNode &n) { return n.kind == kind; }) -
        item.nodes.begin());
  };
  int32_t view = find(AstNode::Kind::View), add = find(AstNode::Kind::Compute);
  ASSERT_LT(add, int32_t(item.nodes.size()));
  ASSERT_LT(view, int32_t(item.nodes.size()));
  // The add reading the (8, 1) sum itself, past its View node.
  ScheduleItem skipped = item;
  for (int32_t &src : skipped.nodes[size_t(add)].srcSlots)
    if (src == view)
      src = skipped.nodes[size_t(view)].srcs()[0];
  EXPECT_FALSE(kernelShapesAgree(skipped, pool));
  // A reduce whose axes leave another shape than its own.
  ScheduleItem otherAxis = item;
  int32_t sum = find(AstNode::Kind::Reduce);
  ASSERT_LT(sum, int32_t(item.nodes.size()));
  ASSERT_EQ(otherAxis.axesOf(otherAxis.nodes[size_t(sum)]).size(), 1u);
  otherAxis.axes[otherAxis.nodes[size_t(sum)].axesBegin] = 0;
  EXPECT_FALSE(kernelShapesAgree(otherAxis, pool));
  // A store through a view of another shape than its value.
  ScheduleItem stored = item;
  stored.stores[0].second = item.nodes[size_t(sum)].shaped;
  EXPECT_FALSE(kernelShapesAgree(stored, pool));
}

TEST_F(Rules, AnOutputInNoGroupIsAnError) {
  load("(%a: tensor<4xf32>) -> tensor<4xf32>", R"(
  %0 = lazy.neg %a : tensor<4xf32> loc("neg")
  return %0 : tensor<4xf32>)");
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(checkOutputsGrouped(*graph, {})));
  EXPECT_NE(message.find("is an output but belongs to no kernel"),
            std::string::npos)
      << message;
}

} // namespace
