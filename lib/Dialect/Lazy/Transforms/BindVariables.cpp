//===- BindVariables.cpp - give tinygrad Variables values ----------------===//
//
// lazy-bind-variables: the integer graph of a graph with symbolic shapes
// at one value of each Variable:
//   - the value of a Variable is the one given by name in `values`, else
//     the value it is bound to; a value outside its range, a name no
//     Variable has, or a Variable without either is an error;
//   - every #lazy.st is re-created (tinygrad's View.create) with the values
//     substituted, so its views are canonical integer views;
//   - every tensor of a #lazy.sym_shape gets the integer shape at the
//     values (its device becomes the #lazy.device encoding);
//   - a lazy.const of a Variable becomes an integer const of its value.
// Kernels are left alone: they hold unbound Variables, whose values their
// launches carry.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/LazyGraph.h"
#include "lazy/Dialect/Lazy/IR/LazyAttrs.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Dialect/Lazy/IR/SymbolicSyntax.h"
#include "lazy/Dialect/Lazy/Transforms/Passes.h"
#include "lazy/Support/PassOptionHints.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <map>

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYBINDVARIABLES
#include "lazy/Dialect/Lazy/Transforms/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;
namespace sym = ::lazy::st::sym;

namespace {

struct LazyBindVariables final
    : mlir::lazy::WithOptionHints<
          mlir::lazy::impl::LazyBindVariablesBase<LazyBindVariables>> {
  using WithOptionHints::WithOptionHints;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> graphs;
    for (auto func : module.getOps<func::FuncOp>())
      if (isGraphFunction(func))
        graphs.push_back(func);

    // Given values, by name.
    std::map<std::string, int64_t> given;
    for (const std::string &entry : values) {
      size_t eq = entry.find('=');
      int64_t v = 0;
      if (eq == std::string::npos || eq == 0 ||
          StringRef(entry).drop_front(eq + 1).getAsInteger(10, v)) {
        module.emitError() << "lazy-bind-variables: '" << entry
                           << "' is not NAME=VALUE";
        return signalPassFailure();
      }
      given[entry.substr(0, eq)] = v;
    }

    // Every Variable of the graphs, and the op that first holds it.
    std::map<std::string, sym::NodeP> vars;
    std::map<std::string, Operation *> firstHolder;
    for (func::FuncOp func : graphs)
      func.walk([&](Operation *op) {
        std::map<std::string, sym::NodeP> held;
        collectVariables(op, held);
        for (auto &[key, node] : held)
          if (vars.emplace(key, node).second)
            firstHolder[key] = op;
      });
    std::map<std::string, sym::NodeP> substitution;
    std::set<std::string> used;
    for (auto &[key, node] : vars) {
      std::optional<int64_t> value = node->bound;
      if (auto it = given.find(node->name); it != given.end()) {
        value = it->second;
        used.insert(node->name);
      }
      Operation *at = firstHolder[key];
      if (!value) {
        at->emitError() << "Variable " << sintText(node)
                        << " has no value: give one (" << node->name
                        << "=...) or bind it";
        return signalPassFailure();
      }
      if (*value < node->min.getInt() ||
          !sym::truthy(sym::le(*value, node->max))) {
        at->emitError() << "value " << *value << " is outside the range of "
                        << sintText(node);
        return signalPassFailure();
      }
      substitution[key] = sym::num(*value);
    }
    for (auto &[name, value] : given)
      if (!used.count(name)) {
        module.emitError() << "lazy-bind-variables: no Variable is named '"
                           << name << "'";
        return signalPassFailure();
      }
    if (substitution.empty())
      return markAllAnalysesPreserved();

    for (func::FuncOp func : graphs)
      if (failed(bind(func, substitution)))
        return signalPassFailure();
  }

  /// The integer type of a tensor type of a symbolic shape.
  static Type bindType(Type type,
                       const std::map<std::string, sym::NodeP> &values) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    auto shape =
        tensor ? dyn_cast_or_null<SymShapeAttr>(tensor.getEncoding()) : nullptr;
    if (!shape)
      return type;
    SmallVector<int64_t> dims;
    for (const st::SInt &d : shape.getDims())
      dims.push_back(d.isInt() ? d.getInt() : sym::infer(d, [&] {
        std::map<std::string, int64_t> ints;
        for (auto &[k, n] : values)
          ints[k] = n->b;
        return ints;
      }()));
    return RankedTensorType::get(dims, tensor.getElementType(),
                                 shape.getDevice());
  }

  static LogicalResult bind(func::FuncOp func,
                            const std::map<std::string, sym::NodeP> &values) {
    MLIRContext *ctx = func.getContext();
    auto bindTracker = [&](ShapeTrackerAttr attr,
                           Operation *op) -> FailureOr<ShapeTrackerAttr> {
      if (!attr.isSymbolic())
        return attr;
      try {
        st::SymShapeTracker bound = attr.getSymTracker().substitute(values);
        std::optional<st::ShapeTracker> ints = bound.toTracker();
        if (!ints)
          return op->emitOpError("keeps a Variable after binding"), failure();
        if (std::string problem = describeInvalidTracker(*ints);
            !problem.empty())
          return op->emitOpError()
                     << "has no valid view at these values: " << problem,
                 failure();
        return ShapeTrackerAttr::get(ctx, *ints);
      } catch (const sym::Error &e) {
        return op->emitOpError() << "cannot bind its view: " << e.what,
               failure();
      }
    };
    auto bindValue = [&](Value v, Operation *at) {
      Type type = bindType(v.getType(), values);
      if (!type) {
        at->emitOpError() << "has a negative dimension at these values";
        return false;
      }
      v.setType(type);
      return true;
    };
    for (BlockArgument arg : func.getArguments())
      if (!bindValue(arg, func))
        return failure();
    WalkResult walked = func.walk([&](Operation *op) {
      for (Value result : op->getResults())
        if (!bindValue(result, op))
          return WalkResult::interrupt();
      if (auto view = dyn_cast<ViewOp>(op)) {
        FailureOr<ShapeTrackerAttr> bound = bindTracker(view.getTracker(), op);
        if (failed(bound))
          return WalkResult::interrupt();
        view.setTrackerAttr(*bound);
      } else if (auto assign = dyn_cast<AssignOp>(op)) {
        if (ShapeTrackerAttr attr = assign.getViewAttr()) {
          FailureOr<ShapeTrackerAttr> bound = bindTracker(attr, op);
          if (failed(bound))
            return WalkResult::interrupt();
          assign.setViewAttr(*bound);
        }
      } else if (auto c = dyn_cast<ConstOp>(op)) {
        if (auto value = dyn_cast<SymIntAttr>(c.getValue())) {
          int64_t v = values.at(value.getValue().getNode()->key())->b;
          c.setValueAttr(IntegerAttr::get(value.getType(), v));
        }
      }
      return WalkResult::advance();
    });
    if (walked.wasInterrupted())
      return failure();
    SmallVector<Type> results;
    func.walk([&](func::ReturnOp ret) {
      results.assign(ret.getOperandTypes().begin(),
                     ret.getOperandTypes().end());
    });
    func.setFunctionType(
        FunctionType::get(ctx, func.getArgumentTypes(), results));
    return success();
  }
};

} // namespace
