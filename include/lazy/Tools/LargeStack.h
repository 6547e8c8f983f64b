//===- LargeStack.h - run a tool's main on a thread with a large stack ----===//
//
// MLIR's parser, verifier and printer recurse on the IR's nesting: a module
// nested 100,000 deep, or an attribute nested 50,000 deep, overflows the
// main thread's 8 MiB stack (SIGSEGV). The tools run their main on a
// thread whose stack is reserved large (address space; pages are touched
// only as deep as the input goes), or as large as a process limit lets.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_TOOLS_LARGESTACK_H
#define LAZY_TOOLS_LARGESTACK_H

#include <pthread.h>

namespace mlir::lazy {

/// Enough for a few hundred thousand levels of nesting.
inline constexpr size_t kToolStackBytes = size_t(1) << 30;
/// The least stack tried before giving up on a thread.
inline constexpr size_t kMinToolStackBytes = size_t(64) << 20;

/// `toolMain(argc, argv)` on a thread with a kToolStackBytes stack. Under
/// an address-space limit (ulimit -v) that cannot map it, smaller stacks
/// are tried down to kMinToolStackBytes, then the main thread runs it:
/// the nesting limit (NestingLimit.h) still stands before the parser.
inline int runWithLargeStack(int (*toolMain)(int, char **), int argc,
                             char **argv) {
  struct Call {
    int (*toolMain)(int, char **);
    int argc;
    char **argv;
    int result = 1;
  } call{toolMain, argc, argv};
  auto run = [](void *arg) -> void * {
    auto *c = static_cast<Call *>(arg);
    c->result = c->toolMain(c->argc, c->argv);
    return nullptr;
  };
  for (size_t bytes = kToolStackBytes; bytes >= kMinToolStackBytes;
       bytes /= 2) {
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0)
      break;
    pthread_t worker;
    bool started = pthread_attr_setstacksize(&attr, bytes) == 0 &&
                   pthread_create(&worker, &attr, run, &call) == 0;
    pthread_attr_destroy(&attr);
    if (started) {
      pthread_join(worker, nullptr);
      return call.result;
    }
  }
  run(&call);
  return call.result;
}

} // namespace mlir::lazy

#endif // LAZY_TOOLS_LARGESTACK_H
