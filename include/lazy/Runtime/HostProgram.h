//===- HostProgram.h - run convert-lazy-to-gpu's host code ------*- C++ -*-===//
//
// The host function convert-lazy-to-gpu produces is straight-line code over
// a handful of ops (gpu.alloc, memref.view, gpu.launch_func, gpu.memcpy,
// gpu.memset, index constants). Rather than JIT-compiling it against a
// vendor runtime, lazy-run walks it and issues each op to a GpuDevice.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_RUNTIME_HOSTPROGRAM_H
#define LAZY_RUNTIME_HOSTPROGRAM_H

#include "lazy/Runtime/GpuDevice.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <vector>

namespace mlir::lazy {

/// A range of device memory.
struct DeviceBuffer {
  ::lazy::runtime::DevicePtr ptr = 0;
  size_t bytes = 0;
};

/// Loads the code object of the module's `gpu.binary @lazy_kernels` (its
/// first object; an assembly object gets a trailing NUL for PTX JIT).
LogicalResult loadKernels(ModuleOp module, ::lazy::runtime::GpuDevice &device);

/// Called after each launch when profiling: the kernel, its time in seconds
/// (the device is synchronized before and after the launch) and the bytes
/// of the buffers it was given.
using LaunchProfiler =
    std::function<void(StringRef kernel, double seconds, size_t bytes)>;

/// Runs `host` with `args` (one per byte-buffer argument). Buffers it
/// allocates are appended to `allocations` (the caller frees them after
/// reading the results, which may live inside them). Waits for the device
/// before returning the results. With `poison`, every device allocation
/// is first filled with 0xFF bytes (a NaN in every float dtype), so that
/// an output no kernel writes cannot pass a check.
FailureOr<std::vector<DeviceBuffer>>
runHostProgram(func::FuncOp host, ::lazy::runtime::GpuDevice &device,
               ArrayRef<DeviceBuffer> args,
               std::vector<::lazy::runtime::DevicePtr> &allocations,
               const LaunchProfiler &profiler = nullptr, bool poison = false);

/// What one `gpu.launch_func` of a host function asks of the device, for
/// a caller that runs the kernels itself (tinygrad's own GPU runtime,
/// through the C API's lazyCompileGpu).
struct LaunchSpec {
  /// One kernel operand: a byte offset into a host function argument or
  /// into the host function's n-th `gpu.alloc`, or a Variable's value.
  struct Operand {
    enum Kind { Argument, Allocation, Value } kind;
    int64_t index; // argument or allocation number, or the value
    int64_t offset;
  };
  std::string kernel;
  unsigned grid[3], block[3];
  std::vector<Operand> operands;
};

/// The launches of `host`, in order, under the rules runHostProgram runs
/// them by (constant geometry, buffers through memref.view).
FailureOr<std::vector<LaunchSpec>> describeLaunches(func::FuncOp host);

} // namespace mlir::lazy

#endif // LAZY_RUNTIME_HOSTPROGRAM_H
