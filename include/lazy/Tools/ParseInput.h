//===- ParseInput.h - read a tool's input module --------------*- C++ -*-===//
//
// The tools that run a graph (lazy-run, lazy-interp) read their input the
// same way: the file (or "-", standard input), refused when nested deeper
// than the parser takes (NestingLimit.h), then parsed as a module whose
// diagnostics point into it.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_TOOLS_PARSEINPUT_H
#define LAZY_TOOLS_PARSEINPUT_H

#include "lazy/Tools/NestingLimit.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::lazy {

/// The module in file `path`, its buffer added to `sourceMgr`; null after
/// an error, which is written to stderr as "TOOL: error: ..." (a file that
/// cannot be read), with its position (nesting), or as the parser's
/// located diagnostic.
inline OwningOpRef<ModuleOp> parseInputModule(llvm::StringRef tool,
                                              llvm::StringRef path,
                                              llvm::SourceMgr &sourceMgr,
                                              MLIRContext *context) {
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &error);
  if (!file) {
    llvm::errs() << tool << ": error: " << error << "\n";
    return nullptr;
  }
  if (std::string deep =
          checkNesting(file->getBufferIdentifier(), file->getBuffer());
      !deep.empty()) {
    llvm::errs() << deep << "\n";
    return nullptr;
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  return parseSourceFile<ModuleOp>(sourceMgr, context);
}

} // namespace mlir::lazy

#endif // LAZY_TOOLS_PARSEINPUT_H
