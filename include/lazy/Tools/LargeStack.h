//===- LargeStack.h - run a tool's main on a thread with a large stack ----===//
//
// MLIR's parser, verifier and printer recurse on the IR's nesting: a module
// nested 100,000 deep, or an attribute nested 50,000 deep, overflows the
// main thread's 8 MiB stack (SIGSEGV). The tools run their main on a
// thread whose stack is reserved large (address space; pages are touched
// only as deep as the input goes).
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_TOOLS_LARGESTACK_H
#define LAZY_TOOLS_LARGESTACK_H

#include "llvm/Support/thread.h"

#include <optional>

namespace mlir::lazy {

/// Enough for a few hundred thousand levels of nesting.
inline constexpr unsigned kToolStackBytes = 1u << 30;

/// `toolMain(argc, argv)` on a thread with a kToolStackBytes stack.
inline int runWithLargeStack(int (*toolMain)(int, char **), int argc,
                             char **argv) {
  int result = 1;
  llvm::thread worker(std::optional<unsigned>(kToolStackBytes),
                      [&] { result = toolMain(argc, argv); });
  worker.join();
  return result;
}

} // namespace mlir::lazy

#endif // LAZY_TOOLS_LARGESTACK_H
