//===- ScheduleAnalysis.cpp - the scheduler's one decision route ----------===//
//
// Runs the rules in tinygrad 0.9.2's order (docs/scheduler-spec.md §2.1-2.6),
// each from its own file (ScheduleRules.h lists them), and reads and writes
// the marks that print a plan in the IR. Nothing here decides anything a
// rule file does not.
//
//===----------------------------------------------------------------------===//

#include "ReduceGrouping.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::lazy;

void mlir::lazy::writeScheduleMarks(const LazyGraph &g, const NodeSet &realizes,
                                    ArrayRef<std::vector<NodeId>> groups,
                                    const NodeSet *rowValues) {
  std::vector<int64_t> position(g.size(), -1), groupOf(g.size(), -1);
  for (auto [index, id] : llvm::enumerate(realizes))
    position[id] = int64_t(index);
  for (auto [index, members] : llvm::enumerate(groups))
    for (NodeId id : members)
      groupOf[id] = int64_t(index);

  MLIRContext *ctx = g.function().getContext();
  StringAttr realizeName = StringAttr::get(ctx, LazyDialect::kRealizeAttrName);
  StringAttr groupName = StringAttr::get(ctx, LazyDialect::kGroupAttrName);
  StringAttr rowName = StringAttr::get(ctx, LazyDialect::kRowValueAttrName);
  auto i64 = IntegerType::get(ctx, 64);
  for (NodeId id = 0; id < NodeId(g.size()); ++id) {
    Operation *op = g.node(id).op;
    if (!op)
      continue;
    // Rebuilding an op's attribute dictionary is the expensive part, so an
    // op whose marks are already right (most, when lazy-group keeps what
    // lazy-mark-realize decided) is left alone. The raw dictionary holds
    // exactly the discardable attributes (lazy ops keep inherent ones in
    // properties); getDiscardableAttrDictionary() would unique a new
    // dictionary for every op without properties.
    DictionaryAttr attrs = op->getRawDictionaryAttrs();
    auto holds = [&](StringAttr name, int64_t want) {
      Attribute have = attrs.get(name);
      if (want < 0)
        return !have;
      auto value = dyn_cast_or_null<IntegerAttr>(have);
      return value && value.getType() == i64 && value.getInt() == want;
    };
    bool row = rowValues && rowValues->contains(id);
    if (holds(realizeName, position[id]) && holds(groupName, groupOf[id]) &&
        bool(attrs.get(rowName)) == row)
      continue;
    NamedAttrList marks(attrs);
    if (row)
      marks.set(rowName, UnitAttr::get(ctx));
    else
      marks.erase(rowName);
    for (auto [name, want] : {std::pair(realizeName, position[id]),
                              std::pair(groupName, groupOf[id])}) {
      if (holds(name, want))
        continue;
      if (want < 0)
        marks.erase(name);
      else
        marks.set(name, IntegerAttr::get(i64, want));
    }
    op->setDiscardableAttrs(marks.getDictionary(ctx));
  }
}

NodeSet mlir::lazy::computeRealizes(const LazyGraph &g, const GraphWalk &w) {
  NodeSet realizes = w.realizes;
  realizeUnsafePads(g, w, realizes);
  return realizes;
}

SchedulePlan mlir::lazy::computeGroups(const LazyGraph &g, const GraphWalk &w,
                                       NodeSet realizes,
                                       const ScheduleFlags &flags) {
  SchedulePlan plan;
  plan.realizes = std::move(realizes);
  std::vector<NodeId> aranges =
      groupReduces(g, w, plan, /*collectAranges=*/flags.fuseArange);
  if (flags.fuseConvBw)
    mergeDoubleReduces(g, w, plan.realizes);
  if (flags.fuseArange)
    foldAranges(g, w, aranges, plan.reduceForOp, plan.realizes);
  // The fusion-policy seam: tinygrad 0.9.2's decisions end here.
  if (flags.fusion == FusionPolicy::Aggressive) {
    if (flags.onlineSoftmax)
      fuseOnlineSoftmax(g, w, plan);
    fuseReduceEpilogues(g, w, plan);
    recomputeRealizedBases(g, w, plan);
  }
  plan.outputGroups =
      formOutputGroups(g, plan.realizes, plan.reduceForOp, flags);
  if (flags.fusion == FusionPolicy::Aggressive) {
    fuseRowReduces(g, w, plan);
    mergeSiblingReduces(g, w, plan);
  }
  return plan;
}

LogicalResult
mlir::lazy::checkOutputsGrouped(const LazyGraph &g,
                                ArrayRef<std::vector<NodeId>> groups) {
  std::vector<char> grouped(g.size(), 0);
  for (const std::vector<NodeId> &group : groups)
    for (NodeId id : group)
      grouped[id] = 1;
  for (NodeId out : g.outputs()) {
    NodeId base = g.baseOf(out);
    const LazyNode &n = g.node(base);
    if (n.isRealized())
      continue;
    // tinygrad schedules nothing for a const output (nor for one already
    // scheduled, in `seen`).
    if (!grouped[base] && !n.seen && n.kind != NodeOp::Const)
      return n.op->emitOpError(
          "is an output but belongs to no kernel: fuse-conv-bw merged it "
          "into the reduce that reads it");
  }
  return success();
}

FailureOr<SchedulePlan> mlir::lazy::planSchedule(const LazyGraph &g,
                                                 const GraphWalk &w,
                                                 const ScheduleFlags &flags) {
  SchedulePlan plan = computeGroups(g, w, computeRealizes(g, w), flags);
  if (failed(checkOutputsGrouped(g, plan.outputGroups)))
    return failure();
  return plan;
}

ScheduleGraphAnalysis::ScheduleGraphAnalysis(Operation *op) {
  FailureOr<LazyGraph> built = LazyGraph::build(cast<func::FuncOp>(op));
  if (failed(built))
    return;
  FailureOr<GraphWalk> walked = walkGraph(*built);
  if (failed(walked))
    return;
  graph = std::move(*built);
  walk = std::move(*walked);
}
