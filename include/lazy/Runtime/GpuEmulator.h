//===- GpuEmulator.h - run GPU kernels on CPU threads ------------*- C++
//-*-===//
//
// A GpuDevice for machines without a GPU: the gpu.func kernels that
// convert-lazy-to-gpu produced run on the CPU, one fiber per GPU thread of
// a block, with the block's threads meeting at every gpu.all_reduce. It
// checks what the lowering decides (grid-stride loops, block-wide
// reductions and their 32-bit widening, host views, launch arguments)
// without vendor code generation; `lazy-run --device=emulate` uses it.
//
// Only a few blocks run (the kernels' loops are grid-stride, so any grid
// is correct, and running fewer blocks than launched exercises that), each
// after the previous one: blocks never synchronize with each other.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_RUNTIME_GPUEMULATOR_H
#define LAZY_RUNTIME_GPUEMULATOR_H

#include "lazy/Runtime/GpuDevice.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::lazy {

/// Compiles the kernels of `module` (after convert-lazy-to-gpu, before
/// serialization) for the CPU and returns a device that runs them.
/// Diagnostics go to the module's context.
FailureOr<std::unique_ptr<::lazy::runtime::GpuDevice>>
createGpuEmulator(ModuleOp module, unsigned maxBlocks = 3);

} // namespace mlir::lazy

#endif // LAZY_RUNTIME_GPUEMULATOR_H
