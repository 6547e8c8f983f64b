//===- KernelGraph.h - a kernel as a graph to interpret ---------*- C++ -*-===//
//
// A `lazy.kernel` is a small graph over buffers: loads through
// ShapeTrackers, elementwise and reduce ops, stores through
// ShapeTrackers. kernelAsGraph writes it as a graph-level function that
// interpretFunction (and its f64 and rounding-noise twins) evaluates, so
// that a compiled kernel can be checked on its own, on the inputs it was
// actually given (lazy-run --check-kernels).
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_INTERPRETER_KERNELGRAPH_H
#define LAZY_INTERPRETER_KERNELGRAPH_H

#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::lazy {

/// The function a kernel computes, inserted at the end of `into`: one
/// argument per buffer argument of `kernel` (outputs too, in the kernel's
/// order), a 1-D tensor of the buffer's elements; one result per store, in
/// output order: the stored value, shaped like the store's view (read a
/// compiled output buffer through that view to compare). Each load becomes
/// a `lazy.view` of its buffer's argument. Fails with a diagnostic at the
/// kernel for a kernel with Variables (symbolic shapes) and for a body op
/// that is neither a load, a store nor a graph op.
FailureOr<func::FuncOp> kernelAsGraph(KernelOp kernel, ModuleOp into);

} // namespace mlir::lazy

#endif // LAZY_INTERPRETER_KERNELGRAPH_H
