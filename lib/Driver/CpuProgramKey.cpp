//===- CpuProgramKey.cpp - what names a compiled CPU program on disk ------===//
//
// Rules: the key is the BLAKE3 hash (hex) of everything that decides the
// compiled code:
//   - the entry format (ProgramCache::kFormatVersion) and lazy-mlir's
//     version;
//   - the build: the file that holds this code (the tool, or the C API's
//     shared library), its size and modification time, so that a rebuilt
//     lazy-mlir never loads what an older build compiled;
//   - LLVM's version, and the host CPU's name and features (what the
//     JIT's TargetMachine compiles for);
//   - the entry function, lazy-to-cpu's options, whether kernel wrappers
//     are kept, and the names of the host symbols the program links to;
//   - the scheduled module, as printed (its kernels, plans and host
//     function; printing leaves out locations, which change no code).
//
//===----------------------------------------------------------------------===//

#include "lazy/Driver/CompileForCpu.h"
#include "lazy/Runtime/ProgramCache.h"
#include "lazy/Tools/Version.h"

#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>

#include <algorithm>

using namespace mlir;
using namespace mlir::lazy;

namespace {

/// A stream that hashes what is written to it, so that a large module is
/// never held as text.
class HashingStream : public llvm::raw_ostream {
public:
  explicit HashingStream(llvm::BLAKE3 &hasher) : hasher(hasher) {}
  ~HashingStream() override { flush(); }

private:
  void write_impl(const char *data, size_t size) override {
    hasher.update(
        llvm::ArrayRef(reinterpret_cast<const uint8_t *>(data), size));
    position += size;
  }
  uint64_t current_pos() const override { return position; }

  llvm::BLAKE3 &hasher;
  uint64_t position = 0;
};

/// The build and the target, the same for every key of this process.
const std::string &processIdentity() {
  static const std::string identity = [] {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "lazy-mlir " << LAZY_MLIR_VERSION << " entry format "
       << ProgramCache::kFormatVersion << "\nllvm " << LLVM_VERSION_STRING
       << "\n";
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&processIdentity), &info) &&
        info.dli_fname) {
      llvm::sys::fs::file_status status;
      os << "build " << info.dli_fname;
      if (!llvm::sys::fs::status(info.dli_fname, status))
        os << " " << status.getSize() << " "
           << status.getLastModificationTime().time_since_epoch().count();
      os << "\n";
    }
    if (auto host = llvm::orc::JITTargetMachineBuilder::detectHost()) {
      os << "cpu " << host->getCPU() << " " << host->getFeatures().getString()
         << "\n";
    } else {
      llvm::consumeError(host.takeError());
    }
    return text;
  }();
  return identity;
}

} // namespace

std::string mlir::lazy::cpuProgramKey(ModuleOp module, StringRef entry,
                                      const CpuPipelineConfig &config,
                                      const CpuProgramOptions &options) {
  llvm::BLAKE3 hasher;
  {
    HashingStream os(hasher);
    os << processIdentity() << "entry " << entry << "\nconfig "
       << config.profileCalls << config.checkCalls << config.fastExp2
       << config.poisonBuffers << " wrappers " << options.kernelWrappers
       << "\nsymbols";
    std::vector<std::string> symbols;
    for (const auto &[name, address] : options.symbols)
      symbols.push_back(name);
    llvm::sort(symbols);
    for (const std::string &name : symbols)
      os << " " << name;
    os << "\n";
    // Verified by the passes that made it; printing need not do it again.
    module->print(os, OpPrintingFlags().assumeVerified());
  }
  std::array<uint8_t, 32> digest = hasher.final();
  return llvm::toHex(digest, /*LowerCase=*/true);
}
