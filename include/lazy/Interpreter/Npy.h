//===- Npy.h - read and write numpy .npy files -------------------*- C++
//-*-===//
//
// Version 1.0-3.0 .npy files of the tinygrad dtypes, C order. bfloat16 has
// no numpy dtype: it is written and read as '<u2' holding the raw bits.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_INTERPRETER_NPY_H
#define LAZY_INTERPRETER_NPY_H

#include "lazy/Interpreter/HostTensor.h"

#include <optional>
#include <string>

namespace lazy::interp {

/// Reads `path`; on failure returns nullopt and sets `error`.
std::optional<HostTensor> readNpy(const std::string &path, std::string &error);

/// Writes `tensor` to `path`; on failure returns false and sets `error`.
bool writeNpy(const std::string &path, const HostTensor &tensor,
              std::string &error);

/// The numpy descr of a dtype ("<f4", "|b1", ...).
std::string npyDescr(DType dtype);

} // namespace lazy::interp

#endif // LAZY_INTERPRETER_NPY_H
