//===- CheckGpuToolchain.cpp - fail early when a GPU tool is missing ------===//
//
// lazy-check-gpu-toolchain runs in the GPU pipelines before serialization,
// so that a missing tool is one clear error instead of a failure deep in
// gpu-module-to-binary (or, for libdevice, silently unresolved calls).
// Rules:
//   - the chip is one LLVM's NVPTX or AMDGPU backend knows (LLVM itself
//     only warns and compiles for a default processor);
//   - nvvm, format=bin: ptxas is in TOOLKIT/bin or on PATH;
//   - nvvm: a kernel using a math function needs
//     TOOLKIT/nvvm/libdevice/libdevice.10.bc (the error names the kernel);
//   - rocdl: TOOLKIT/amdgcn/bitcode holds ocml, ockl, hip, opencl and
//     oclc_isa_version_<chip>.bc (MLIR links them into every module);
//   - rocdl, format=bin: TOOLKIT/llvm/bin/ld.lld exists.
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/Passes.h"
#include "lazy/Support/PassOptionHints.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>

namespace mlir::lazy {
#define GEN_PASS_DEF_CHECKGPUTOOLCHAIN
#include "lazy/Conversion/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {

std::string join(StringRef base, StringRef a, StringRef b = "",
                 StringRef c = "") {
  SmallString<256> path(base);
  llvm::sys::path::append(path, a, b, c);
  return std::string(path);
}

struct CheckGpuToolchain final
    : mlir::lazy::WithOptionHints<
          mlir::lazy::impl::CheckGpuToolchainBase<CheckGpuToolchain>> {
  using WithOptionHints::WithOptionHints;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (target == "nvvm")
      checkNvvm(module);
    else if (target == "rocdl")
      checkRocdl(module);
    else {
      module.emitError("lazy-check-gpu-toolchain: target must be nvvm or "
                       "rocdl, not '")
          << target << "'";
      signalPassFailure();
    }
  }

  /// Whether LLVM's backend for `triple` knows processor `cpu`; true when
  /// this LLVM has no such backend (gpu-module-to-binary reports that).
  static bool knownChip(StringRef triple, StringRef cpu) {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargetMCs();
    std::string error;
    const llvm::Target *target =
        llvm::TargetRegistry::lookupTarget(llvm::Triple(triple), error);
    if (!target)
      return true;
    std::unique_ptr<llvm::MCSubtargetInfo> info(
        target->createMCSubtargetInfo(llvm::Triple(triple), "", ""));
    return !info || info->isCPUStringValid(cpu);
  }

  void fail(ModuleOp module, const Twine &message) {
    module.emitError(message);
    signalPassFailure();
  }

  void checkNvvm(ModuleOp module) {
    if (!chip.empty() && !knownChip("nvptx64-nvidia-cuda", chip))
      return fail(module, "lazy-to-nvvm: chip '" + chip +
                              "' is not a processor LLVM's NVPTX backend "
                              "knows (e.g. sm_80, sm_90)");
    if (format == "bin" || format == "fatbin") {
      bool inToolkit = !toolkit.empty() && llvm::sys::fs::can_execute(
                                               join(toolkit, "bin", "ptxas"));
      if (!inToolkit && !llvm::sys::findProgramByName("ptxas"))
        return fail(module, "lazy-to-nvvm: format=" + format +
                                " needs ptxas, found "
                                "neither in '" +
                                toolkit +
                                "/bin' nor on PATH (install the "
                                "CUDA toolkit or use format=isa)");
    }
    std::string libdevice =
        join(toolkit, "nvvm", "libdevice", "libdevice.10.bc");
    if (!toolkit.empty() && llvm::sys::fs::exists(libdevice))
      return;
    module.walk([&](gpu::GPUFuncOp kernel) {
      WalkResult found = kernel.walk([&](Operation *op) {
        if (!isa<math::MathDialect>(op->getDialect()))
          return WalkResult::advance();
        kernel.emitError("kernel @")
            << kernel.getName() << " uses " << op->getName()
            << ", which needs CUDA's libdevice; none at '" << libdevice
            << "' (pass toolkit= the CUDA toolkit folder)";
        return WalkResult::interrupt();
      });
      if (found.wasInterrupted()) {
        signalPassFailure();
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
  }

  void checkRocdl(ModuleOp module) {
    // gfx942 or gfx942:sramecc+ -> 942 (the device library's suffix).
    StringRef isa = StringRef(chip).drop_front(3).split(':').first;
    if (!StringRef(chip).starts_with("gfx") || isa.empty())
      return fail(module,
                  "lazy-to-rocdl: chip must be gfx<N>, not '" + chip + "'");
    if (!knownChip("amdgcn-amd-amdhsa", StringRef(chip).split(':').first))
      return fail(module, "lazy-to-rocdl: chip '" + chip +
                              "' is not a processor LLVM's AMDGPU backend "
                              "knows (e.g. gfx90a, gfx942, gfx1100)");
    for (std::string lib :
         {std::string("ocml"), std::string("ockl"), std::string("hip"),
          std::string("opencl"), "oclc_isa_version_" + isa.str()}) {
      std::string path = join(toolkit, "amdgcn", "bitcode", lib + ".bc");
      if (!llvm::sys::fs::exists(path))
        return fail(module, "lazy-to-rocdl: the ROCm device library '" + path +
                                "' is missing (install "
                                "rocm-device-libs and reconfigure, or "
                                "pass toolkit=)");
    }
    if (format == "bin" &&
        !llvm::sys::fs::can_execute(join(toolkit, "llvm", "bin", "ld.lld")))
      return fail(module, "lazy-to-rocdl: format=bin needs '" +
                              join(toolkit, "llvm", "bin", "ld.lld") +
                              "' (install lld-22, or use format=isa)");
  }
};

} // namespace
