//===- HostProgram.cpp - run convert-lazy-to-gpu's host code --------------===//
//
// Each SSA value of the host function is either an index constant or a
// device buffer (a pointer and a size in bytes); ops are issued in order:
//   gpu.alloc        -> GpuDevice::alloc of the memref's bytes
//   memref.view      -> the base pointer plus the byte shift
//   gpu.launch_func  -> launch by kernel name with constant geometry
//   gpu.memcpy       -> a device-to-device copy of the destination's bytes
//   gpu.memset       -> a zero fill (the only value the lowering emits)
//   func.return      -> the results
// and, for custom_random items, host memory the runtime fills and copies in:
//   memref.alloc / memref.dealloc            -> host bytes
//   memref.extract_aligned_pointer_as_index,
//   arith.index_cast                         -> the address, as an integer
//   func.call @lazy_rt_custom_random         -> the host function, after
//                                               checking that its output
//                                               lies inside a host buffer
//   gpu.memcpy from host memory              -> a copy to the device
// Anything else is an error at the op's location.
//
//===----------------------------------------------------------------------===//

#include "lazy/Runtime/HostProgram.h"
#include "lazy/Interpreter/HostFunctions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

#include <new>

using namespace mlir;
using namespace mlir::lazy;
using ::lazy::runtime::DevicePtr;
using ::lazy::runtime::GpuDevice;

namespace {

/// A launch's grid and block, which must be positive constants
/// (`constantIndex` reads one).
LogicalResult
launchGeometry(gpu::LaunchFuncOp launch,
               function_ref<std::optional<int64_t>(Value)> constantIndex,
               unsigned grid[3], unsigned block[3]) {
  gpu::KernelDim3 g = launch.getGridSizeOperandValues();
  gpu::KernelDim3 b = launch.getBlockSizeOperandValues();
  Value dims[6] = {g.x, g.y, g.z, b.x, b.y, b.z};
  for (int i = 0; i < 6; ++i) {
    std::optional<int64_t> v = constantIndex(dims[i]);
    if (!v || *v <= 0)
      return launch.emitError("launch geometry must be positive constants");
    (i < 3 ? grid[i] : block[i - 3]) = unsigned(*v);
  }
  return success();
}

size_t bytesOf(Type type) {
  auto memref = cast<MemRefType>(type);
  unsigned bits = memref.getElementType().getIntOrFloatBitWidth();
  return size_t(memref.getNumElements()) * std::max(1u, bits / 8);
}

} // namespace

LogicalResult mlir::lazy::loadKernels(ModuleOp module, GpuDevice &device) {
  auto binary = module.lookupSymbol<gpu::BinaryOp>("lazy_kernels");
  if (!binary)
    return success(); // a schedule without kernels
  auto objects = binary.getObjects();
  if (objects.empty())
    return binary.emitError("holds no code object");
  auto object = cast<gpu::ObjectAttr>(objects[0]);
  std::string image = object.getObject().str();
  if (object.getFormat() == gpu::CompilationTarget::Assembly)
    image.push_back('\0'); // PTX is loaded as a C string
  if (!device.loadModule(image.data(), image.size()))
    return binary.emitError("cannot load the kernels on the device: ")
           << device.error();
  return success();
}

FailureOr<std::vector<DeviceBuffer>>
mlir::lazy::runHostProgram(func::FuncOp host, GpuDevice &device,
                           ArrayRef<DeviceBuffer> args,
                           std::vector<DevicePtr> &allocations,
                           const LaunchProfiler &profiler, bool poison) {
  Block &body = host.getBody().front();
  if (body.getNumArguments() != args.size())
    return host.emitError("takes ")
           << body.getNumArguments() << " buffers, given " << args.size();
  DenseMap<Value, DeviceBuffer> buffers;
  for (auto [arg, buffer] : llvm::zip(body.getArguments(), args)) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type || !type.hasStaticShape() ||
        !type.getElementType().isIntOrFloat())
      return host.emitError("argument ")
             << arg.getArgNumber() << " is not a memref of static shape";
    if (bytesOf(arg.getType()) > buffer.bytes)
      return host.emitError("argument ")
             << arg.getArgNumber() << " needs " << bytesOf(arg.getType())
             << " bytes, given " << buffer.bytes;
    buffers[arg] = buffer;
  }
  // Host memory (custom_random's staging buffers): each allocation, and
  // every value that views one, as (start, bytes).
  std::vector<std::unique_ptr<uint8_t[]>> hostMemory;
  DenseMap<Value, std::pair<uint8_t *, size_t>> hostBuffers;
  // Integers computed at run time (addresses).
  DenseMap<Value, int64_t> integers;
  auto constantIndex = [&](Value v) -> std::optional<int64_t> {
    APInt value;
    if (matchPattern(v, m_ConstantInt(&value)))
      return value.getSExtValue();
    if (auto it = integers.find(v); it != integers.end())
      return it->second;
    return std::nullopt;
  };
  auto deviceError =
      [&](Operation *op) -> FailureOr<std::vector<DeviceBuffer>> {
    return op->emitError("device: ") << device.error();
  };
  auto plainMemref = [](Type t) {
    auto memref = dyn_cast<MemRefType>(t);
    return !memref ||
           (memref.hasStaticShape() && memref.getElementType().isIntOrFloat());
  };
  for (Operation &op : body) {
    // Buffer sizes are computed from types: only static shapes of ints and
    // floats have one.
    if (!llvm::all_of(op.getOperandTypes(), plainMemref) ||
        !llvm::all_of(op.getResultTypes(), plainMemref))
      return op.emitError("host code needs memrefs of static shape with "
                          "integer or float elements");
    if (isa<arith::ConstantOp>(op))
      continue;
    if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
      DeviceBuffer buffer{0, bytesOf(alloc.getType())};
      if (!device.alloc(buffer.bytes, buffer.ptr))
        return deviceError(&op);
      allocations.push_back(buffer.ptr);
      buffers[alloc.getMemref()] = buffer;
      if (poison && buffer.bytes) {
        std::vector<uint8_t> pattern(buffer.bytes, 0xFF);
        if (!device.copyToDevice(buffer.ptr, pattern.data(), buffer.bytes))
          return deviceError(&op);
      }
    } else if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      // Staging buffers are small: at most 16 GiB.
      size_t bytes = bytesOf(alloc.getType());
      if (bytes > (size_t(1) << 34))
        return alloc.emitError("host buffer of ") << bytes << " bytes is "
                                                  << "too large";
      hostMemory.emplace_back(new (std::nothrow)
                                  uint8_t[std::max<size_t>(bytes, 1)]);
      if (!hostMemory.back())
        return alloc.emitError("cannot allocate ") << bytes << " host bytes";
      hostBuffers[alloc.getResult()] = {hostMemory.back().get(), bytes};
    } else if (auto view = dyn_cast<memref::ViewOp>(op);
               view && hostBuffers.count(view.getSource())) {
      auto [base, size] = hostBuffers.lookup(view.getSource());
      std::optional<int64_t> shift = constantIndex(view.getByteShift());
      size_t bytes = bytesOf(view.getType());
      if (!shift || *shift < 0 || size_t(*shift) + bytes > size)
        return view.emitError("views bytes outside its buffer");
      hostBuffers[view.getResult()] = {base + *shift, bytes};
    } else if (auto address =
                   dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(op)) {
      if (!hostBuffers.count(address.getSource()))
        return address.emitError("takes the address of device memory");
      integers[address.getResult()] = int64_t(reinterpret_cast<uintptr_t>(
          hostBuffers.lookup(address.getSource()).first));
    } else if (auto cast = dyn_cast<arith::IndexCastOp>(op)) {
      std::optional<int64_t> value = constantIndex(cast.getIn());
      if (!value)
        return cast.emitError("casts a value that is not known");
      integers[cast.getResult()] = *value;
    } else if (auto call = dyn_cast<func::CallOp>(op)) {
      if (call.getCallee() != "lazy_rt_custom_random" ||
          call.getNumOperands() != 4)
        return call.emitError("calls a function lazy-run does not provide");
      std::optional<int64_t> seed = constantIndex(call.getOperand(0));
      std::optional<int64_t> dtype = constantIndex(call.getOperand(1));
      std::optional<int64_t> address = constantIndex(call.getOperand(2));
      std::optional<int64_t> count = constantIndex(call.getOperand(3));
      if (!seed || !dtype || !address || !count || *count < 0 || *dtype < 0 ||
          *dtype > int64_t(::lazy::interp::DType::Float64))
        return call.emitError("custom_random needs a known seed, dtype, "
                              "address and count");
      // The output must lie inside one host buffer (in integers: no
      // pointer arithmetic, no overflow).
      uintptr_t out = uintptr_t(*address);
      size_t item =
          size_t(::lazy::interp::itemSize(::lazy::interp::DType(*dtype)));
      bool inside = false;
      for (auto &entry : hostBuffers) {
        uintptr_t start = reinterpret_cast<uintptr_t>(entry.second.first);
        size_t size = entry.second.second;
        inside |= out >= start && out - start <= size &&
                  uint64_t(*count) <= (size - (out - start)) / item;
      }
      if (!inside)
        return call.emitError("custom_random would write outside host memory");
      std::string problem = ::lazy::interp::customRandom(
          uint64_t(*seed), ::lazy::interp::DType(*dtype),
          reinterpret_cast<void *>(out), *count);
      if (!problem.empty())
        return call.emitError(problem);
    } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      if (!hostBuffers.count(dealloc.getMemref()))
        return dealloc.emitError("frees memory that is not host memory");
      // Freed with the program: staging buffers are small and few.
    } else if (auto view = dyn_cast<memref::ViewOp>(op)) {
      std::optional<int64_t> shift = constantIndex(view.getByteShift());
      if (!buffers.count(view.getSource()))
        return view.emitError("views a value that is not a buffer");
      DeviceBuffer base = buffers.lookup(view.getSource());
      size_t bytes = bytesOf(view.getType());
      if (!shift || *shift < 0 || size_t(*shift) + bytes > base.bytes)
        return view.emitError("views bytes outside its buffer");
      buffers[view.getResult()] = {base.ptr + DevicePtr(*shift), bytes};
    } else if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      unsigned grid[3], block[3];
      if (failed(launchGeometry(launch, constantIndex, grid, block)))
        return failure();
      std::vector<DevicePtr> pointers;
      size_t bytes = 0;
      for (Value operand : launch.getKernelOperands()) {
        // A Variable's value (an index constant) goes by value, in the
        // argument slot a pointer would take.
        if (std::optional<int64_t> v = constantIndex(operand)) {
          pointers.push_back(DevicePtr(*v));
          continue;
        }
        auto it = buffers.find(operand);
        if (it == buffers.end())
          return launch.emitError("passes a value that is not a buffer or "
                                  "an index constant");
        pointers.push_back(it->second.ptr);
        bytes += it->second.bytes;
      }
      std::string kernel = launch.getKernelName().str();
      double seconds = 0;
      if (profiler ? !device.timedLaunch(kernel, grid, block, pointers.data(),
                                         pointers.size(), seconds)
                   : !device.launch(kernel, grid, block, pointers.data(),
                                    pointers.size()))
        return deviceError(&op);
      if (profiler)
        profiler(kernel, seconds, bytes);
    } else if (auto copy = dyn_cast<gpu::MemcpyOp>(op);
               copy && hostBuffers.count(copy.getSrc())) {
      if (!buffers.count(copy.getDst()))
        return copy.emitError("copies host memory to a value that is not a "
                              "device buffer");
      DeviceBuffer dst = buffers.lookup(copy.getDst());
      auto [src, srcBytes] = hostBuffers.lookup(copy.getSrc());
      if (srcBytes < dst.bytes)
        return copy.emitError("copies ")
               << dst.bytes << " bytes from a buffer of " << srcBytes;
      if (!device.copyToDevice(dst.ptr, src, dst.bytes))
        return deviceError(&op);
    } else if (auto copy = dyn_cast<gpu::MemcpyOp>(op)) {
      if (!buffers.count(copy.getDst()) || !buffers.count(copy.getSrc()))
        return copy.emitError("copies a value that is not a buffer");
      DeviceBuffer dst = buffers.lookup(copy.getDst());
      DeviceBuffer src = buffers.lookup(copy.getSrc());
      if (src.bytes < dst.bytes)
        return copy.emitError("copies ")
               << dst.bytes << " bytes from a buffer of " << src.bytes;
      if (!device.copyOnDevice(dst.ptr, src.ptr, dst.bytes))
        return deviceError(&op);
    } else if (auto fill = dyn_cast<gpu::MemsetOp>(op)) {
      Attribute value;
      if (!matchPattern(fill.getValue(), m_Constant(&value)) ||
          !(matchPattern(fill.getValue(), m_Zero()) ||
            matchPattern(fill.getValue(), m_AnyZeroFloat())))
        return fill.emitError("only zero fills are supported");
      if (!buffers.count(fill.getDst()))
        return fill.emitError("fills a value that is not a buffer");
      DeviceBuffer dst = buffers.lookup(fill.getDst());
      if (!device.fillZero(dst.ptr, dst.bytes))
        return deviceError(&op);
    } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      if (!device.synchronize())
        return deviceError(&op);
      std::vector<DeviceBuffer> results;
      for (Value v : ret.getOperands()) {
        auto it = buffers.find(v);
        if (it == buffers.end())
          return ret.emitError("returns a value that is not a buffer");
        results.push_back(it->second);
      }
      return results;
    } else {
      return op.emitError("is not host code lazy-run can execute");
    }
  }
  return host.emitError("has no return");
}

FailureOr<std::vector<LaunchSpec>>
mlir::lazy::describeLaunches(func::FuncOp host) {
  std::vector<LaunchSpec> launches;
  DenseMap<Value, LaunchSpec::Operand> buffers;
  int64_t allocations = 0;
  for (BlockArgument arg : host.getArguments())
    buffers[arg] = {LaunchSpec::Operand::Argument, arg.getArgNumber(), 0};
  auto constantIndex = [](Value v) -> std::optional<int64_t> {
    APInt value;
    if (matchPattern(v, m_ConstantInt(&value)))
      return value.getSExtValue();
    return std::nullopt;
  };
  for (Operation &op : host.getBody().front()) {
    if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
      buffers[alloc.getMemref()] = {LaunchSpec::Operand::Allocation,
                                    allocations++, 0};
    } else if (auto view = dyn_cast<memref::ViewOp>(op)) {
      std::optional<int64_t> shift = constantIndex(view.getByteShift());
      auto base = buffers.find(view.getSource());
      if (base == buffers.end() || !shift)
        continue; // a host staging buffer's view: no kernel reads it
      LaunchSpec::Operand viewed = base->second;
      viewed.offset += *shift;
      buffers[view.getResult()] = viewed;
    } else if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      LaunchSpec spec;
      spec.kernel = launch.getKernelName().str();
      if (failed(launchGeometry(launch, constantIndex, spec.grid, spec.block)))
        return failure();
      for (Value operand : launch.getKernelOperands()) {
        if (std::optional<int64_t> v = constantIndex(operand)) {
          spec.operands.push_back({LaunchSpec::Operand::Value, *v, 0});
          continue;
        }
        auto it = buffers.find(operand);
        if (it == buffers.end())
          return launch.emitError("passes a value that is not a buffer or "
                                  "an index constant");
        spec.operands.push_back(it->second);
      }
      launches.push_back(std::move(spec));
    }
  }
  return launches;
}
