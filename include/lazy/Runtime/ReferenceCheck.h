//===- ReferenceCheck.h - results judged by the interpreter -----*- C++ -*-===//
//
// How lazy-run decides that a compiled result is right: the graph is
// evaluated by the reference interpreter, and each result compared with
// the tolerance of the narrowest float dtype it was computed in
// (Tolerance.h). A float result off the interpreter's gets second
// opinions, made once for the whole graph and only then: the graph
// evaluated in f64 (an element between the two matches) and a few
// evaluations with rounding noise (an element within twice their spread
// matches). lazy-run --check judges a whole graph's outputs this way;
// --check-kernels (KernelCheck.h) each kernel call's outputs.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_RUNTIME_REFERENCECHECK_H
#define LAZY_RUNTIME_REFERENCECHECK_H

#include "lazy/Interpreter/HostTensor.h"
#include "lazy/Runtime/DevicePlan.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>
#include <vector>

namespace mlir::lazy {

/// What the interpreter says of one result.
struct Verdict {
  bool ok = false;
  /// The largest difference from the interpreter's value.
  double worst = 0;
  /// The result's dtype, and the float dtype whose tolerance judged it
  /// (empty when none does).
  std::string dtype, roundedAs;
  /// Elements off the interpreter's value that still matched.
  ::lazy::runtime::Rescued rescued;
  /// One line: "match, max abs error E (dtype[, computed in T])[; ...]".
  std::string describe(size_t elements) const;
};

class ReferenceCheck {
public:
  /// Evaluates `func` on `inputs` with the interpreter (its diagnostics on
  /// failure). `func` and `inputs` must stay as they are until the last
  /// judge(): the second opinions evaluate them again.
  static FailureOr<ReferenceCheck>
  evaluate(func::FuncOp func, ArrayRef<::lazy::interp::HostTensor> inputs);

  /// The interpreter's value of result `index`.
  const ::lazy::interp::HostTensor &reference(unsigned index) const {
    return results[index];
  }
  /// Judges `got` (result `index`, computed some other way; the same dtype
  /// and shape as the reference's).
  Verdict judge(unsigned index, const ::lazy::interp::HostTensor &got);
  /// Set when a float result needed second opinions that the graph cannot
  /// give (bitcasts, buffer views, CUSTOM ops).
  bool noSecondOpinion() const { return secondOpinionFailed; }

private:
  ReferenceCheck(func::FuncOp func, ArrayRef<::lazy::interp::HostTensor> inputs)
      : func(func), inputs(inputs) {}

  func::FuncOp func;
  ArrayRef<::lazy::interp::HostTensor> inputs;
  std::vector<::lazy::interp::HostTensor> results;
  /// The graph in f64 and with rounding noise, made on the first float
  /// result off the interpreter's.
  bool secondOpinionsTried = false, secondOpinionFailed = false;
  std::vector<::lazy::interp::HostTensor> exact;
  std::vector<std::vector<::lazy::interp::HostTensor>> noisyRuns;
};

} // namespace mlir::lazy

#endif // LAZY_RUNTIME_REFERENCECHECK_H
