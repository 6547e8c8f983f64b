//===- InitAll.cpp - register everything lazy-mlir tools need -------------===//

#include "lazy/InitAll.h"

#include "lazy/Conversion/Passes.h"
#include "lazy/Dialect/Lazy/Analysis/KernelSpace.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"
#include "lazy/Dialect/Lazy/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVM/ROCDL/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Transforms/Passes.h"

void mlir::lazy::registerAllDialects(DialectRegistry &registry) {
  registry.insert<LazyDialect, func::FuncDialect, arith::ArithDialect,
                  math::MathDialect, scf::SCFDialect, cf::ControlFlowDialect,
                  memref::MemRefDialect, tensor::TensorDialect, gpu::GPUDialect,
                  LLVM::LLVMDialect, NVVM::NVVMDialect, ROCDL::ROCDLDialect,
                  vector::VectorDialect, nvgpu::NVGPUDialect,
                  amdgpu::AMDGPUDialect, mpi::MPIDialect, DLTIDialect>();
  // The kernel verifier's plan check lives with the analyses it needs.
  registerKernelPlanVerifier(registry);
  // Lowering to LLVM through dialect interfaces, the NVVM/ROCDL targets
  // that gpu-module-to-binary serializes with, and LLVM IR translation.
  registerAllExtensions(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  ROCDL::registerROCDLTargetInterfaceExternalModels(registry);
  registerAllGPUToLLVMIRTranslations(registry);
  // lazy-to-cpu's parallel loops are OpenMP regions.
  registerOpenMPDialectTranslation(registry);
}

void mlir::lazy::registerAllPasses() {
  registerLazyPasses();
  registerSchedulePipeline();
  registerLazyConversionPasses();
  registerCpuPipeline();
  registerGpuPipelines();
  // Generic cleanups (canonicalize, cse, symbol-dce, ...) for improved mode
  // and for users composing pipelines.
  mlir::registerTransformsPasses();
  // Upstream lowerings (scf/arith/math/memref/func/cf to LLVM, GPU) that the
  // CPU and GPU pipelines compose.
  mlir::registerConversionPasses();
  mlir::memref::registerMemRefPasses();
  // bfloat16 in software on the CPU (lazy-to-cpu and the GPU emulator), so
  // that results do not depend on the host's conversion instructions.
  mlir::arith::registerArithEmulateUnsupportedFloats();
  mlir::arith::registerArithExpandOpsPass();
  mlir::math::registerMathExtendToSupportedTypes();
  // Target attachment and gpu-module-to-binary for the GPU pipelines.
  mlir::registerGPUPasses();
}
