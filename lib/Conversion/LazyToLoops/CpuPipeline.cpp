//===- CpuPipeline.cpp - the lazy-to-cpu pipeline -------------------------===//
//
// lazy-to-cpu: schedule (lazy-schedule; a no-op on an already scheduled
// module), choose each kernel's plan for this host (lazy-optimize-kernels),
// lower kernels and the scheduled program to loops over memrefs
// (convert-lazy-to-loops; kernels of at least kParallelMinWork elements get
// an scf.parallel; buffers are static, allocated once per loaded program;
// vector stores into outputs of at least kNontemporalMinBytes bypass the
// cache; lazy-distribute's items become mpi ops, lowered by MPIToLLVM:
// lazy-mpi-to-llvm),
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

#include "lazy/Dialect/Lazy/Transforms/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::lazy;

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
      llvm::cl::desc("lazy-expand-exp2's fast: f32 exp2 within 1 ulp "
                     "(tinygrad's own accuracy), at about half the cost of "
                     "the correctly rounded one (fast-exp2=false)"),
      llvm::cl::init(true)};
  Option<bool> poisonBuffers{
      *this, "poison-buffers",
      llvm::cl::desc("convert-lazy-to-loops' poison-buffers: every "
                     "allocation filled with 0xFF bytes")};
};
} // namespace

void mlir::lazy::addSoftBFloat16Passes(OpPassManager &pm) {
  math::MathExtendToSupportedTypesOptions extend;
  extend.extraTypeStrs = {"f16"};
  extend.targetTypeStr = "f32";
  pm.addPass(math::createMathExtendToSupportedTypes(extend));
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
}

/// lazy-to-cpu's passes, in the order of the header comment.
void mlir::lazy::addCpuPipeline(OpPassManager &pm,
                                const CpuPipelineConfig &options) {
  addSchedulePasses(pm);
  pm.addPass(createLazyOptimizeKernels());
  ConvertLazyToLoopsOptions loops;
  loops.parallelMinWork = kParallelMinWork;
  loops.staticBuffers = true;
  loops.nontemporalMinBytes = kNontemporalMinBytes;
  loops.profileCalls = options.profileCalls;
  loops.poisonBuffers = options.poisonBuffers;
  loops.checkCalls = options.checkCalls;
  pm.addPass(createConvertLazyToLoops(loops));
  pm.addPass(createCSEPass());
  pm.addPass(createLazyMpiToLLVM());
  addSoftBFloat16Passes(pm);
  LazyExpandExp2Options exp2;
  exp2.vectorLdexp = ::lazy::hostHasAvx512();
  exp2.x86Scalef = ::lazy::hostHasAvx512();
  exp2.fast = options.fastExp2;
  pm.addPass(createLazyExpandExp2(exp2));
  pm.addPass(createConvertSCFToOpenMPPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::lazy::registerCpuPipeline() {
  registerPipelineWithHints<CpuPipelineOptions>(
      "lazy-to-cpu",
      "schedule, lower kernels to loops and everything to the LLVM dialect",
      [](OpPassManager &pm, const CpuPipelineOptions &options) {
        CpuPipelineConfig config;
        config.profileCalls = options.profileCalls;
        config.checkCalls = options.checkCalls;
        config.fastExp2 = options.fastExp2;
        config.poisonBuffers = options.poisonBuffers;
        addCpuPipeline(pm, config);
      });
}
