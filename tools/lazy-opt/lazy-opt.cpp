//===- lazy-opt.cpp - mlir-opt for the lazy dialect -----------------------===//
//
// mlir-opt with the lazy dialect, its passes and the upstream dialects and
// passes lazy-mlir's pipelines use, so every mlir-opt flag works
// (--mlir-print-ir-after-all, --mlir-timing, crash reproducers, ...).
//
// The output file (-o) is written whole or not at all: mlir-opt's driver
// writes a temporary file beside it, which replaces it by rename only when
// the run succeeds. A failing run leaves an existing file alone, the input
// may be the output (mlir-opt would truncate a file it is still reading),
// and concurrent runs writing one path leave one complete result. Outputs
// that are not regular files (-, /dev/null, pipes, devices) are written as
// mlir-opt writes them. The driver runs on a large stack (LargeStack.h),
// and an input file nested deeper than NestingLimit.h allows is refused.
//
//===----------------------------------------------------------------------===//

#include "lazy/InitAll.h"
#include "lazy/Tools/LargeStack.h"
#include "lazy/Tools/NestingLimit.h"
#include "lazy/Tools/StandardOutput.h"
#include "lazy/Tools/Version.h"
#include "llvm/Support/CommandLine.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

using namespace mlir;

namespace {

/// Whether `path` is written through a temporary file: a regular file or
/// a path where nothing is yet.
bool writesAtomically(llvm::StringRef path) {
  if (path == "-")
    return false;
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(path, status))
    return true; // nothing there yet
  return llvm::sys::fs::is_regular_file(status);
}

/// Copies the file `from` to `to` ("-": standard output), reporting a
/// failed write (a full device, a closed pipe) as an error.
LogicalResult copyOutput(llvm::StringRef from, llvm::StringRef to) {
  auto text = llvm::MemoryBuffer::getFile(from, /*IsText=*/false);
  auto fail = [&](const std::string &why) {
    llvm::WithColor::error(llvm::errs(), "lazy-opt")
        << "cannot write '" << to << "': " << why << "\n";
    return failure();
  };
  if (!text)
    return fail(text.getError().message());
  if (to == "-") {
    llvm::outs() << (*text)->getBuffer();
    return success(); // main reports a failed standard output
  }
  std::error_code ec;
  llvm::raw_fd_ostream out(to, ec, llvm::sys::fs::OF_None);
  if (ec)
    return fail(ec.message());
  out << (*text)->getBuffer();
  out.close();
  if (out.has_error()) {
    std::error_code error = out.error();
    out.clear_error(); // reported here, not by the stream's destructor
    return fail(error.message());
  }
  return success();
}

/// MlirOptMain with its output written to a temporary file, then moved
/// into place, because MlirOptMain's own stream would end the process on a
/// failed write. A regular output file (or a path where nothing is yet)
/// is replaced by the renamed file on success and left alone otherwise;
/// another file (a device, a pipe) gets a checked copy on success.
/// Standard output gets the copy success or not (the splits of
/// --split-input-file that passed): MlirOptMain writes it as its standard
/// output, redirected, together with what passes print there.
LogicalResult runAtomically(int argc, char **argv, llvm::StringRef input,
                            llvm::StringRef output, DialectRegistry &registry) {
  bool rename = writesAtomically(output);
  llvm::SmallString<128> model;
  if (rename) {
    model = output;
    model += ".tmp-%%%%%%";
  } else {
    llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, model);
    llvm::sys::path::append(model, "lazy-opt-%%%%%%.mlir");
  }
  llvm::Expected<llvm::sys::fs::TempFile> temp =
      llvm::sys::fs::TempFile::create(model);
  if (!temp) {
    llvm::WithColor::error(llvm::errs(), "lazy-opt")
        << "cannot write '" << output
        << "': " << llvm::toString(temp.takeError()) << "\n";
    return failure();
  }
  if (output != "-") {
    LogicalResult result =
        MlirOptMain(argc, argv, input, temp->TmpName, registry);
    if (succeeded(result) && !rename)
      result = copyOutput(temp->TmpName, output);
    if (failed(result) || !rename) {
      llvm::consumeError(temp->discard());
      return result;
    }
    if (llvm::Error error = temp->keep(output)) {
      llvm::WithColor::error(llvm::errs(), "lazy-opt")
          << "cannot write '" << output
          << "': " << llvm::toString(std::move(error)) << "\n";
      return failure();
    }
    return success();
  }
  llvm::outs().flush();
  int savedStdout = dup(STDOUT_FILENO);
  if (savedStdout < 0 || dup2(temp->FD, STDOUT_FILENO) < 0) {
    llvm::consumeError(temp->discard());
    llvm::WithColor::error(llvm::errs(), "lazy-opt")
        << "cannot write to standard output: " << std::strerror(errno) << "\n";
    return failure();
  }
  LogicalResult result = MlirOptMain(argc, argv, input, "-", registry);
  llvm::outs().flush();
  dup2(savedStdout, STDOUT_FILENO);
  close(savedStdout);
  if (failed(copyOutput(temp->TmpName, output)))
    result = failure();
  llvm::consumeError(temp->discard());
  return result;
}

} // namespace

static int toolMain(int argc, char **argv) {
#if defined(__GLIBC__)
  // lazy-form-kernels builds kernels on worker threads; glibc grows their
  // heaps one mprotect call at a time unless asked to reserve ahead (the
  // reserve is address space, not memory, until it is used). Without effect
  // when the build links mimalloc (cmake/Allocator.cmake).
  mallopt(M_TOP_PAD, 64 << 20);
#endif
  mlir::lazy::registerAllPasses();
  // --version names lazy-mlir before the LLVM it is built on.
  llvm::cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { os << "lazy-mlir " LAZY_MLIR_VERSION "\n"; });
  DialectRegistry registry;
  mlir::lazy::registerAllDialects(registry);
  auto [input, output] = registerAndParseCLIOptions(
      argc, argv, "lazy-mlir optimizer driver\n", registry);
  // A file is checked for nesting the parser takes too long over (standard
  // input, which cannot be read twice, is not).
  if (input != "-") {
    if (auto text = llvm::MemoryBuffer::getFile(input, /*IsText=*/true)) {
      std::string deep = mlir::lazy::checkNesting(input, (*text)->getBuffer());
      if (!deep.empty()) {
        llvm::errs() << deep << "\n";
        return 1;
      }
    }
  }
  return asMainReturnCode(runAtomically(argc, argv, input, output, registry));
}

int main(int argc, char **argv) {
  return mlir::lazy::finishStandardOutput(
      "lazy-opt", mlir::lazy::runWithLargeStack(toolMain, argc, argv));
}
