//===- Passes.h - lazy conversion passes -------------------------*- C++
//-*-===//

#ifndef LAZY_CONVERSION_PASSES_H
#define LAZY_CONVERSION_PASSES_H

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::lazy {

#define GEN_PASS_DECL
#include "lazy/Conversion/Passes.h.inc"

/// Adds the upstream passes that put bfloat16 in software on the CPU
/// (math-extend-to-supported-types{extra-types=f16 target-type=f32},
/// arith-emulate-unsupported-floats{source-types=bf16 target-type=f32},
/// arith-expand{include-bf16=true}): arithmetic and
/// math in f32, rounding f32 to bfloat16 with integer ops (widening stays
/// an exact LLVM fpext). LLVM would otherwise use the host's bfloat16
/// conversion instructions where it has them, which flush subnormals to
/// zero, so results would depend on the machine and differ from the
/// reference interpreter's. Run by lazy-to-cpu and the GPU emulator before
/// lowering to the LLVM dialect. arith-expand also rewrites
/// arith.maximumf/minimumf without regard to the sign of zero: kernels use
/// cmpf + select instead.
void addSoftBFloat16Passes(OpPassManager &pm);

/// lazy-to-cpu's options (its pipeline options of the same names).
struct CpuPipelineConfig {
  /// Each kernel call bracketed by lazy_rt_kernel_begin/end calls.
  bool profileCalls = false;
  /// Each kernel call's buffers passed to the lazy_rt_check_* hooks.
  bool checkCalls = false;
  /// f32 exp2 within 1 ulp (tinygrad's accuracy) instead of correctly
  /// rounded.
  bool fastExp2 = true;
  /// Every allocation filled with 0xFF bytes.
  bool poisonBuffers = false;
};
/// Adds lazy-to-cpu's passes (CpuPipeline.cpp): schedule, plan, lower the
/// kernels to loops and everything to the LLVM dialect.
void addCpuPipeline(OpPassManager &pm, const CpuPipelineConfig &config = {});
/// Registers the `lazy-to-cpu` pipeline.
void registerCpuPipeline();
/// Registers the `lazy-to-nvvm` and `lazy-to-rocdl` pipelines.
void registerGpuPipelines();

/// The reduced elements per thread of a GPU block that lazy-to-rocdl plans
/// with (its `reduce-per-thread`, lazy-optimize-kernels'
/// gpu-reduce-per-thread): the NVIDIA default, 16, was measured on an H200;
/// on AMD's 64-lane waves the block stays the reduce's size.
constexpr int64_t kRocdlReducePerThread = 1;

#define GEN_PASS_REGISTRATION
#include "lazy/Conversion/Passes.h.inc"

} // namespace mlir::lazy

#endif // LAZY_CONVERSION_PASSES_H
