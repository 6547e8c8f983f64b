//===- lazy-opt.cpp - mlir-opt for the lazy dialect -----------------------===//
//
// mlir-opt with the lazy dialect, its passes and the upstream dialects and
// passes lazy-mlir's pipelines use, so every mlir-opt flag works
// (--mlir-print-ir-after-all, --mlir-timing, crash reproducers, ...).
//
//===----------------------------------------------------------------------===//

#include "lazy/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

int main(int argc, char **argv) {
#if defined(__GLIBC__)
  // lazy-form-kernels builds kernels on worker threads; glibc grows their
  // heaps one mprotect call at a time unless asked to reserve ahead (the
  // reserve is address space, not memory, until it is used). Without effect
  // when the build links mimalloc (cmake/Allocator.cmake).
  mallopt(M_TOP_PAD, 64 << 20);
#endif
  mlir::lazy::registerAllPasses();
  mlir::DialectRegistry registry;
  mlir::lazy::registerAllDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "lazy-mlir optimizer driver\n", registry));
}
