//===- Version.h - lazy-mlir's version -----------------------------*- C++
//-*-===//
//
// One version string for every tool (--version) and the C API
// (lazyVersion); python/pyproject.toml carries the same number, which the
// Python tests check.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_TOOLS_VERSION_H
#define LAZY_TOOLS_VERSION_H

#define LAZY_MLIR_VERSION "0.1.0"

#endif // LAZY_TOOLS_VERSION_H
