//===- CpuPipeline.cpp - the lazy-to-cpu pipeline -------------------------===//
//
// lazy-to-cpu: schedule (lazy-schedule; a no-op on an already scheduled
// module), choose each kernel's plan for this host (lazy-optimize-kernels),
// lower kernels and the scheduled program to loops over memrefs
// (convert-lazy-to-loops; kernels of at least kParallelMinWork elements get
// an scf.parallel; buffers are static, allocated once per loaded program;
// vector stores into outputs of at least kNontemporalMinBytes bypass the
// cache),
// bfloat16 into software (kSoftBFloat16Passes), f32 exp2 into arith that
// vectorizes (lazy-expand-exp2; on AVX-512 hosts vectors scale with
// ldexp, one vscalefps), parallel
// loops into OpenMP (convert-scf-to-openmp: the program calls libomp's
// __kmpc_* entry points, so whatever runs it loads libomp), the register
// tiles' lane vectors into LLVM vectors and masked loads and stores
// (convert-vector-to-llvm), then upstream lowering to the LLVM dialect
// for the ExecutionEngine / mlir-runner.
// memref-to-llvm comes before scf-to-cf: the OpenMP lowering wraps each
// parallel loop in a memref.alloca_scope, whose region must stay one block.
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/Passes.h"
#include "lazy/Support/HostCpu.h"
#include "lazy/Support/PassOptionHints.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

/// Below this many elements a kernel's fork and join cost more than the
/// second core gives back (a few microseconds each).
static constexpr int64_t kParallelMinWork = 65536;
/// Outputs of at least this many bytes outgrow a last-level cache (32 MiB
/// on the machines measured): their vector stores are nontemporal.
static constexpr int64_t kNontemporalMinBytes = 32 << 20;

namespace {
struct CpuPipelineOptions : PassPipelineOptions<CpuPipelineOptions> {
  Option<bool> profileCalls{
      *this, "profile-calls",
      llvm::cl::desc("convert-lazy-to-loops' profile-calls: each kernel "
                     "call bracketed by lazy_rt_kernel_begin/end calls")};
  Option<bool> checkCalls{
      *this, "check-calls",
      llvm::cl::desc("convert-lazy-to-loops' check-calls: each kernel "
                     "call's buffers passed to lazy_rt_check_arg, the "
                     "call bracketed by lazy_rt_check_begin/end calls")};
  Option<bool> fastExp2{
      *this, "fast-exp2",
      llvm::cl::desc("lazy-expand-exp2's fast: f32 exp2 within 1 ulp, "
                     "not correctly rounded, at about half the cost")};
  Option<bool> poisonBuffers{
      *this, "poison-buffers",
      llvm::cl::desc("convert-lazy-to-loops' poison-buffers: every "
                     "allocation filled with 0xFF bytes")};
};
} // namespace

void mlir::lazy::registerCpuPipeline() {
  registerPipelineWithHints<CpuPipelineOptions>(
      "lazy-to-cpu",
      "schedule, lower kernels to loops and everything to the LLVM dialect",
      [](OpPassManager &pm, const CpuPipelineOptions &options) {
        std::string hostOptions =
            std::string(options.profileCalls ? " profile-calls=true" : "") +
            (options.poisonBuffers ? " poison-buffers=true" : "") +
            (options.checkCalls ? " check-calls=true" : "");
        if (failed(parsePassPipeline(
                "lazy-schedule,lazy-optimize-kernels,"
                "convert-lazy-to-loops{parallel-min-work=" +
                    std::to_string(kParallelMinWork) + " static-buffers=true" +
                    " nontemporal-min-bytes=" +
                    std::to_string(kNontemporalMinBytes) +
                    " row-vector-bytes=" +
                    std::to_string(::lazy::hostVectorBits() / 8) + hostOptions +
                    "},cse," + kSoftBFloat16Passes +
                    ",lazy-expand-exp2{vector-ldexp=" +
                    (::lazy::hostHasAvx512() ? "true" : "false") +
                    (options.fastExp2 ? " fast=true" : "") +
                    (::lazy::hostHasAvx512() ? " x86-scalef=true" : "") +
                    "},convert-scf-to-openmp,"
                    "convert-vector-to-llvm,expand-strided-metadata,"
                    "finalize-memref-to-llvm,convert-scf-to-cf,"
                    "convert-math-to-llvm,convert-arith-to-llvm,"
                    "convert-func-to-llvm,convert-cf-to-llvm,"
                    "convert-openmp-to-llvm,reconcile-unrealized-casts",
                pm)))
          llvm::report_fatal_error("lazy-to-cpu: bad pipeline");
      });
}
