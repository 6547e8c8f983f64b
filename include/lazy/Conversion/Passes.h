//===- Passes.h - lazy conversion passes -------------------------*- C++ -*-===//

#ifndef LAZY_CONVERSION_PASSES_H
#define LAZY_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::lazy {

#define GEN_PASS_DECL
#include "lazy/Conversion/Passes.h.inc"

/// Registers the `lazy-to-cpu` pipeline.
void registerCpuPipeline();
/// Registers the `lazy-to-nvvm` and `lazy-to-rocdl` pipelines.
void registerGpuPipelines();

#define GEN_PASS_REGISTRATION
#include "lazy/Conversion/Passes.h.inc"

} // namespace mlir::lazy

#endif // LAZY_CONVERSION_PASSES_H
