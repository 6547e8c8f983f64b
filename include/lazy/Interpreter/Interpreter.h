//===- Interpreter.h - reference interpreter for graph-level IR --*- C++ -*-===//
//
// Evaluates a graph-level `lazy` function op by op on the host, with no
// fusion: the golden answer that scheduled and compiled code is compared
// against, and the bridge to tinygrad's own numbers.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_INTERPRETER_INTERPRETER_H
#define LAZY_INTERPRETER_INTERPRETER_H

#include "lazy/Interpreter/HostTensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <vector>

namespace mlir::lazy {

/// The tinygrad dtype of an MLIR element type, if it is one.
std::optional<::lazy::interp::DType> dtypeOf(Type elementType);

/// Evaluates `func` on `inputs` (one per argument, matching its dtype and
/// shape) and returns one tensor per result. Errors (an op it cannot
/// evaluate, a mismatched input) are reported as diagnostics at the
/// offending location.
FailureOr<std::vector<::lazy::interp::HostTensor>>
interpretFunction(func::FuncOp func,
                  ArrayRef<::lazy::interp::HostTensor> inputs);

} // namespace mlir::lazy

#endif // LAZY_INTERPRETER_INTERPRETER_H
