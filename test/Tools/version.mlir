// lazy-opt --version names lazy-mlir's version (include/lazy/Tools/Version.h)
// after the LLVM it is built on.
// RUN: lazy-opt --version | FileCheck %s
// CHECK: LLVM version 22
// CHECK: lazy-mlir 0.1.0
