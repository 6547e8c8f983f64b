//===- GraphPreparation.cpp - a graph made ready to schedule and run ------===//
//
// GraphPreparation.h states what each step does.
//
//===----------------------------------------------------------------------===//

#include "lazy/Driver/GraphPreparation.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Interpreter/HostFunctions.h"
#include "lazy/ShapeTracker/SymView.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::lazy;
namespace interp = ::lazy::interp;

void mlir::lazy::scheduleSeenValues(func::FuncOp graph) {
  unsigned count = 0;
  for (Operation &op : graph.getBody().front())
    if (op.removeAttr(mlir::lazy::LazyDialect::kSeenAttrName))
      ++count;
  if (count)
    llvm::errs() << "lazy-run: note: " << count
                 << " value(s) marked lazy.seen (produced by an earlier "
                    "schedule) are scheduled here too\n";
}

LogicalResult mlir::lazy::materializeConstOutputs(ModuleOp module,
                                                  func::FuncOp graph) {
  PassManager fold(module.getContext());
  if (failed(parsePassPipeline("func.func(lazy-fold-views)", fold)) ||
      failed(fold.run(module)))
    return failure();
  Operation *ret = graph.getBody().front().getTerminator();
  OpBuilder b(ret);
  for (OpOperand &operand : ret->getOpOperands()) {
    Value base = operand.get();
    while (Operation *def = base.getDefiningOp()) {
      if (!isa<mlir::lazy::ViewOp, mlir::lazy::ReshapeOp, mlir::lazy::PermuteOp,
               mlir::lazy::ExpandOp, mlir::lazy::PadOp, mlir::lazy::ShrinkOp,
               mlir::lazy::StrideOp>(def))
        break;
      base = def->getOperand(0);
    }
    if (base.getDefiningOp<mlir::lazy::ConstOp>())
      operand.set(mlir::lazy::ContiguousOp::create(
          b, operand.get().getLoc(), operand.get().getType(), operand.get()));
  }
  return success();
}

LogicalResult mlir::lazy::bindVariables(ModuleOp module,
                                        ArrayRef<std::string> assignments) {
  std::string pipeline = "lazy-bind-variables";
  if (!assignments.empty())
    pipeline += "{values=" + llvm::join(assignments, ",") + "}";
  PassManager pm(module.getContext());
  return failure(failed(parsePassPipeline(pipeline, pm)) ||
                 failed(pm.run(module)));
}

FailureOr<std::map<std::string, int64_t>>
mlir::lazy::variableValuesForRun(func::FuncOp graph, ModuleOp bound,
                                 const std::map<std::string, int64_t> &given,
                                 ArrayRef<std::string> assignments) {
  if (failed(bindVariables(bound, assignments)))
    return failure();
  std::map<std::string, int64_t> values;
  graph.walk([&](Operation *op) {
    std::map<std::string, ::lazy::st::sym::NodeP> held;
    mlir::lazy::collectVariables(op, held);
    for (auto &[key, node] : held)
      if (node->bound)
        values.emplace(node->name, *node->bound);
  });
  for (auto &[name, value] : given)
    values[name] = value;
  return values;
}

void mlir::lazy::setLaunchValues(func::FuncOp graph,
                                 const std::map<std::string, int64_t> &values) {
  graph.walk([&](mlir::lazy::LaunchOp launch) {
    auto given = launch->getAttrOfType<DictionaryAttr>(
        mlir::lazy::LazyDialect::kVarValuesAttrName);
    if (!given)
      return;
    Builder b(launch.getContext());
    SmallVector<NamedAttribute> entries;
    for (NamedAttribute entry : given) {
      StringRef key = entry.getName().getValue();
      auto it =
          values.find(key.take_until([](char c) { return c == '['; }).str());
      entries.push_back(
          it == values.end()
              ? entry
              : b.getNamedAttr(key, b.getI64IntegerAttr(it->second)));
    }
    launch->setAttr(mlir::lazy::LazyDialect::kVarValuesAttrName,
                    b.getDictionaryAttr(entries));
  });
}

FailureOr<::lazy::st::ShapeTracker>
mlir::lazy::viewAt(mlir::lazy::ShapeTrackerAttr view,
                   const std::map<std::string, int64_t> &values, Location loc) {
  if (!view.isSymbolic())
    return view.getTracker();
  std::optional<::lazy::st::ShapeTracker> ints =
      ::lazy::st::trackerAt(view.getSymTracker(), values);
  if (!ints)
    return emitError(loc, "a result's view has no integer form at these "
                          "values"),
           failure();
  return *ints;
}

void RandomSeeds::stamp(ModuleOp module, func::FuncOp graph) {
  llvm::DenseSet<int64_t> taken;
  SmallVector<mlir::lazy::CustomOp> seedless;
  module.walk([&](Operation *op) {
    if (auto custom = dyn_cast<mlir::lazy::CustomOp>(op)) {
      if (custom.getSeed())
        taken.insert(int64_t(*custom.getSeed()));
      else if (custom.getCallee() == interp::kCustomRandom &&
               custom->getParentOp() == graph)
        seedless.push_back(custom);
    } else if (auto ext = dyn_cast<mlir::lazy::ExtOp>(op)) {
      if (ext.getSeed())
        taken.insert(int64_t(*ext.getSeed()));
    }
  });
  int64_t candidate = 0;
  for (mlir::lazy::CustomOp op : seedless) {
    while (taken.contains(candidate))
      ++candidate;
    provisional.push_back(candidate);
    op.setSeed(candidate++);
  }
  seeds.emplace(module);
}

LogicalResult RandomSeeds::finish(func::FuncOp graph) {
  llvm::DenseSet<int64_t> pending(provisional.begin(), provisional.end());
  auto next = [&](int64_t draw, Operation *at) -> FailureOr<int64_t> {
    FailureOr<int64_t> seed = seeds->next(at);
    if (failed(seed))
      return failure();
    pending.erase(draw);
    return real[draw] = *seed;
  };
  WalkResult walked = graph.walk([&](mlir::lazy::ExtOp item) {
    if (item.getKind() != "custom" || !item.getSeed() ||
        !pending.contains(int64_t(*item.getSeed())))
      return WalkResult::advance();
    FailureOr<int64_t> seed = next(int64_t(*item.getSeed()), item);
    if (failed(seed))
      return WalkResult::interrupt();
    item.setSeed(*seed);
    return WalkResult::advance();
  });
  if (walked.wasInterrupted())
    return failure();
  for (int64_t draw : provisional)
    if (pending.contains(draw) && failed(next(draw, graph)))
      return failure();
  return success();
}

void RandomSeeds::apply(func::FuncOp copy) const {
  copy.walk([&](mlir::lazy::CustomOp op) {
    if (op.getSeed())
      if (auto it = real.find(int64_t(*op.getSeed())); it != real.end())
        op.setSeed(it->second);
  });
}
