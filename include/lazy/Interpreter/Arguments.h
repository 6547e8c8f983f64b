//===- Arguments.h - inputs for lazy-interp and lazy-run ---------*- C++
//-*-===//
//
// The tools' shared argument handling: `--input=I=PATH.npy` specs read
// from .npy files, every other argument filled with seeded random values of
// its dtype (randomTensor), all checked against the function's arguments.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_INTERPRETER_ARGUMENTS_H
#define LAZY_INTERPRETER_ARGUMENTS_H

#include "lazy/Interpreter/HostTensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>
#include <vector>

namespace mlir::lazy {

struct PreparedArguments {
  std::vector<::lazy::interp::HostTensor> values;
  /// Whether each value was generated (not read from a file).
  std::vector<bool> generated;
};

/// One value per argument of `func`; on failure returns nullopt and sets
/// `error` to a one-line reason.
std::optional<PreparedArguments> prepareArguments(func::FuncOp func,
                                                  ArrayRef<std::string> specs,
                                                  unsigned seed,
                                                  std::string &error);

} // namespace mlir::lazy

#endif // LAZY_INTERPRETER_ARGUMENTS_H
