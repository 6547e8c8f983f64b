//===- GraphPreparation.h - a graph made ready to schedule and run -*- C++
//-*-===//
//
// What runGraph does to a graph function before and after scheduling it,
// so that the schedule runs the whole graph, reads every output and draws
// tinygrad's random numbers, and so that a graph over Variables runs at
// given values.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DRIVER_GRAPHPREPARATION_H
#define LAZY_DRIVER_GRAPHPREPARATION_H

#include "lazy/Dialect/Lazy/IR/LazyAttrs.h"
#include "lazy/Dialect/Lazy/IR/RngSeeds.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

#include <map>
#include <optional>
#include <string>

namespace mlir::lazy {

/// Drops the `lazy.seen` marks: an earlier schedule would have produced
/// those values, and lazy-run runs only this one, so it schedules them too
/// (as the interpreter computes them). Says so on stderr.
void scheduleSeenValues(func::FuncOp graph);

/// Reads each const output through lazy.contiguous, as tinygrad's .numpy()
/// does: a const has no buffer for the schedule to return. Views are
/// folded first (lazy-fold-views, as the schedule folds them), so that an
/// output whose view reads nothing (all padding, or a size-0 source),
/// which tinygrad's _view makes const(0), is one too.
LogicalResult materializeConstOutputs(ModuleOp module, func::FuncOp graph);

/// tinygrad's seeds for the custom_random draws without a seed of their
/// own: the k-th the schedule runs gets lazy.rng_seed + k. Before
/// scheduling, each such draw gets a provisional seed that no explicit seed
/// uses, which names it through scheduling; the scheduled order then gives
/// the real seeds, written on the scheduled items and on any copy of the
/// graph taken before. Draws the schedule does not run (nothing uses them)
/// continue the count, so that the interpreter can evaluate them too.
class RandomSeeds {
public:
  /// Stamps provisional seeds on `graph`'s seedless draws.
  void stamp(ModuleOp module, func::FuncOp graph);

  /// Gives the real seeds in the order of the scheduled `graph`'s items,
  /// and writes them there.
  LogicalResult finish(func::FuncOp graph);

  /// Writes the real seeds on a copy of the graph taken after stamp().
  void apply(func::FuncOp copy) const;

private:
  SmallVector<int64_t> provisional;      // per seedless draw, in graph order
  llvm::DenseMap<int64_t, int64_t> real; // provisional -> real seed
  std::optional<RngSeedCounter> seeds;   // set by stamp()
};

/// Runs lazy-bind-variables on `module`: every Variable becomes its value,
/// from the NAME=VALUE `assignments` or else the one the graph binds it to
/// (its errors, located, when a value is out of range or missing).
LogicalResult bindVariables(ModuleOp module, ArrayRef<std::string> assignments);

/// Symbolic shapes: each Variable's value for this run, by name (`given`,
/// the parsed `assignments`, else the value the graph binds it to), with
/// `bound`, a copy of the graph's module, bound at those values
/// (bindVariables): the integer graph the reference --check evaluates.
FailureOr<std::map<std::string, int64_t>>
variableValuesForRun(func::FuncOp graph, ModuleOp bound,
                     const std::map<std::string, int64_t> &given,
                     ArrayRef<std::string> assignments);

/// Sets every launch's lazy.var_vals to `values` (by Variable name): the
/// kernels were scheduled at the bound values and serve every value.
void setLaunchValues(func::FuncOp graph,
                     const std::map<std::string, int64_t> &values);

/// A result's view at the Variables' values (by name).
FailureOr<::lazy::st::ShapeTracker>
viewAt(ShapeTrackerAttr view, const std::map<std::string, int64_t> &values,
       Location loc);

} // namespace mlir::lazy

#endif // LAZY_DRIVER_GRAPHPREPARATION_H
