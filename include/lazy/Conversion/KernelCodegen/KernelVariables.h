//===- KernelVariables.h - symbolic shapes at a kernel's launch -*- C++ -*-===//
//
// A kernel over tinygrad Variables takes each Variable's value as an
// `index` argument after its buffers; its launches give the values
// (lazy.var_vals). KernelVariables.cpp binds the two and checks every view
// at the values a launch gives.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_CONVERSION_KERNELCODEGEN_KERNELVARIABLES_H
#define LAZY_CONVERSION_KERNELCODEGEN_KERNELVARIABLES_H

#include "lazy/Conversion/KernelCodegen/IndexExpr.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"

namespace mlir::lazy {

/// The unbound Variables a kernel reads (symbolic shapes), ordered by key:
/// its `index` arguments after the buffers.
SmallVector<::lazy::st::sym::NodeP> kernelVariables(KernelOp kernel);
/// Their names (`start_pos[1:8]`, as lazy.var_vals spells them), the
/// LazyDialect::kKernelVariablesAttrName attribute.
ArrayAttr kernelVariablesAttr(Builder &b,
                              ArrayRef<::lazy::st::sym::NodeP> variables);
/// The emitter's map of `variables` to `args` (one each, in order).
VariableValues variableValues(ArrayRef<::lazy::st::sym::NodeP> variables,
                              ValueRange args);
/// A launch's value of each Variable `callee` (a lowered kernel function)
/// names in its LazyDialect::kKernelVariablesAttrName attribute, from the
/// launch's lazy.var_vals; an error at the launch where one is missing.
FailureOr<SmallVector<int64_t>> launchVariableValues(LaunchOp launch,
                                                     Operation *callee);

/// Checks every launch of a kernel over Variables at its lazy.var_vals:
/// each load and store view, at those values, is a valid integer tracker
/// whose elements stay inside its buffer (the integer schedule's
/// verifiers, which a symbolic view can only be held to at a value). An
/// error at the launch otherwise: the lowerings call this first, so that
/// no compiled kernel reads or writes outside its buffers.
LogicalResult verifyLaunchValues(ModuleOp module);

} // namespace mlir::lazy

#endif // LAZY_CONVERSION_KERNELCODEGEN_KERNELVARIABLES_H
