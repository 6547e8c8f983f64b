//===- KernelVariables.cpp - symbolic shapes at a kernel's launch ---------===//
//
// Rules:
//   - a kernel over Variables takes each as an `index` argument after its
//     buffers, ordered by key, named in the kernel's
//     LazyDialect::kKernelVariablesAttrName attribute;
//   - a launch must give every one in its lazy.var_vals, and each load and
//     store view at those values must be a valid integer tracker inside its
//     buffer: otherwise an error at the launch, before anything lowers.
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/KernelCodegen/IndexExpr.h"
#include "lazy/Conversion/KernelCodegen/KernelEmitter.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;
namespace sym = ::lazy::st::sym;

SmallVector<sym::NodeP> mlir::lazy::kernelVariables(KernelOp kernel) {
  std::map<std::string, sym::NodeP> held;
  kernel.walk([&](Operation *op) { collectVariables(op, held); });
  std::map<std::string, sym::NodeP> unbound;
  for (auto &[key, node] : held) {
    sym::NodeP free = node->bound ? sym::unboundVar(node) : node;
    unbound.emplace(free->key(), free);
  }
  SmallVector<sym::NodeP> variables;
  for (auto &[key, node] : unbound)
    variables.push_back(node);
  return variables;
}

ArrayAttr mlir::lazy::kernelVariablesAttr(Builder &b,
                                          ArrayRef<sym::NodeP> variables) {
  SmallVector<Attribute> names;
  for (const sym::NodeP &v : variables)
    names.push_back(b.getStringAttr(st::variableText(v->key())));
  return b.getArrayAttr(names);
}

VariableValues mlir::lazy::variableValues(ArrayRef<sym::NodeP> variables,
                                          ValueRange args) {
  VariableValues values;
  for (auto [v, arg] : llvm::zip(variables, args))
    values[v->key()] = arg;
  return values;
}

/// The launch's lazy.var_vals value of the Variable named `text`
/// (`start_pos[1:8]`), or an error at the launch.
static FailureOr<int64_t> launchValue(LaunchOp launch, StringRef text) {
  auto given =
      launch->getAttrOfType<DictionaryAttr>(LazyDialect::kVarValuesAttrName);
  auto value = given ? given.getAs<IntegerAttr>(text) : IntegerAttr();
  if (!value)
    return launch.emitOpError("gives no value for the kernel's Variable ")
           << text << " (its " << LazyDialect::kVarValuesAttrName
           << " attribute)";
  return value.getInt();
}

FailureOr<SmallVector<int64_t>>
mlir::lazy::launchVariableValues(LaunchOp launch, Operation *callee) {
  SmallVector<int64_t> values;
  auto names =
      callee->getAttrOfType<ArrayAttr>(LazyDialect::kKernelVariablesAttrName);
  if (!names)
    return values;
  for (Attribute name : names) {
    FailureOr<int64_t> value =
        launchValue(launch, cast<StringAttr>(name).getValue());
    if (failed(value))
      return failure();
    values.push_back(*value);
  }
  return values;
}

LogicalResult mlir::lazy::verifyLaunchValues(ModuleOp module) {
  WalkResult walked = module.walk([&](LaunchOp launch) {
    auto kernel = SymbolTable::lookupNearestSymbolFrom<KernelOp>(
        launch, launch.getKernelAttr());
    if (!kernel)
      return WalkResult::advance();
    // The values by Variable name; each of the kernel's Variables needs
    // one.
    std::map<std::string, int64_t> values;
    for (const sym::NodeP &v : kernelVariables(kernel)) {
      std::string text = st::variableText(v->key());
      FailureOr<int64_t> value = launchValue(launch, text);
      if (failed(value))
        return WalkResult::interrupt();
      // The kernel was formed for the Variable's range only.
      if (*value < v->min.getInt() || !sym::truthy(sym::le(*value, v->max))) {
        launch.emitOpError("gives ")
            << text << " the value " << *value << ", outside its range";
        return WalkResult::interrupt();
      }
      values[v->name] = *value;
    }
    if (values.empty())
      return WalkResult::advance();
    std::string valuesText;
    for (auto &[name, v] : values)
      valuesText +=
          (valuesText.empty() ? "" : ", ") + name + "=" + std::to_string(v);
    WalkResult inKernel = kernel.walk([&](Operation *op) {
      ShapeTrackerAttr view;
      Value buffer;
      if (auto load = dyn_cast<LoadOp>(op))
        view = load.getView(), buffer = load.getBuffer();
      else if (auto store = dyn_cast<StoreOp>(op))
        view = store.getView(), buffer = store.getBuffer();
      if (!view || !view.isSymbolic())
        return WalkResult::advance();
      std::optional<st::ShapeTracker> at =
          st::trackerAt(view.getSymTracker(), values);
      std::string problem =
          at ? describeInvalidTracker(*at) : "it has no integer form";
      if (problem.empty()) {
        int64_t size = cast<BufferType>(buffer.getType()).getSize();
        if (auto range = validIndexRange(at->views.front());
            range && (range->first < 0 || range->second >= size))
          problem = "it reaches elements [" + std::to_string(range->first) +
                    ", " + std::to_string(range->second) + "] of a buffer of " +
                    std::to_string(size);
      }
      if (problem.empty())
        return WalkResult::advance();
      InFlightDiagnostic diag = launch.emitOpError("runs @")
                                << kernel.getSymName() << " at " << valuesText
                                << ", where a view of its " << op->getName()
                                << " is invalid: " << problem;
      diag.attachNote(op->getLoc()) << "the view";
      return WalkResult::interrupt();
    });
    return inKernel.wasInterrupted() ? WalkResult::interrupt()
                                     : WalkResult::advance();
  });
  return failure(walked.wasInterrupted());
}
