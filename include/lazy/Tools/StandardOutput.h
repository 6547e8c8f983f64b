//===- StandardOutput.h - report a failed write to standard output -*- C++ -*-//
//
// LLVM's raw_fd_ostream ends the process with "LLVM ERROR: IO failure on
// output stream" when a stream that failed to write (a full disk, a
// closed pipe) is destroyed. The tools check standard output themselves
// before exiting and report the failure as an error with exit code 1.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_TOOLS_STANDARDOUTPUT_H
#define LAZY_TOOLS_STANDARDOUTPUT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::lazy {

/// Flushes standard output; after a write error there, prints why and
/// returns 1, else returns `exitCode`.
inline int finishStandardOutput(llvm::StringRef tool, int exitCode) {
  llvm::raw_fd_ostream &out = llvm::outs();
  out.flush();
  if (!out.has_error())
    return exitCode;
  std::error_code error = out.error();
  out.clear_error();
  llvm::WithColor::error(llvm::errs(), tool)
      << "cannot write to standard output: " << error.message() << "\n";
  return 1;
}

} // namespace mlir::lazy

#endif // LAZY_TOOLS_STANDARDOUTPUT_H
