//===- LazyToLoops.cpp - lazy.kernel to scf loops over memrefs ------------===//
//
// convert-lazy-to-loops: every lazy.kernel becomes a func.func over
// memrefs, each group of consecutive stores of one shape an scf.parallel
// over that shape whose body computes one element of every store's value
// (KernelEmitter.h states the per-element rules), then stores each at the
// index its ShapeTracker gives, guarded by the view's mask.
// The scheduled function becomes byte allocations viewed per buffer (so
// buffer views of any offset and dtype are views of the same memory),
// calls, copies and fills (HostBuffers.h).
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/LazyToLoops/HostBuffers.h"
#include "lazy/Conversion/LazyToLoops/KernelEmitter.h"
#include "lazy/Conversion/Passes.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_CONVERTLAZYTOLOOPS
#include "lazy/Conversion/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using namespace mlir::lazy;

namespace {

/// Lowers one kernel into `func`: one scf.parallel per group of
/// consecutive stores of one shape.
LogicalResult lowerKernel(KernelOp kernel, func::FuncOp func) {
  Block &body = kernel.getBody().front();
  Block *entry = func.addEntryBlock();
  IRMapping buffers;
  for (auto [arg, memrefArg] :
       llvm::zip(body.getArguments(), entry->getArguments()))
    buffers.map(arg, memrefArg);
  KernelEmitter emitter(buffers);
  OpBuilder b = OpBuilder::atBlockEnd(entry);
  for (StoreGroup &group : groupStores(body)) {
    Location loc = group.stores.front().getLoc();
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t dim : group.shape) {
      lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
      ubs.push_back(arith::ConstantIndexOp::create(b, loc, dim));
      steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
    }
    LogicalResult status = success();
    auto storeAt = [&](OpBuilder &pb, ValueRange ivs) {
      if (failed(emitter.emitStoreGroup(pb, group.stores, ivs)))
        status = failure();
    };
    if (lbs.empty())
      storeAt(b, {});
    else
      scf::ParallelOp::create(
          b, loc, lbs, ubs, steps,
          [&](OpBuilder &pb, Location, ValueRange ivs) { storeAt(pb, ivs); });
    if (failed(status))
      return failure();
  }
  func::ReturnOp::create(b, kernel.getLoc());
  return success();
}

/// Kernels take any rank-1 unit-stride memref.
MemRefType kernelMemrefOf(Type bufferType) {
  MemRefType plain = memrefOf(cast<BufferType>(bufferType));
  return MemRefType::get(
      plain.getShape(), plain.getElementType(),
      StridedLayoutAttr::get(plain.getContext(), ShapedType::kDynamic, {1}));
}

/// The CPU side of a schedule: memref allocations (freed before the
/// return unless a result lives in them), calls of the lowered kernels,
/// memref.copy, a zero-filling loop for EMPTY.
class CpuHost final : public HostTarget {
public:
  StringRef name() const override { return "CPU"; }
  Value allocate(OpBuilder &b, Location loc, MemRefType bytes) override {
    return memref::AllocOp::create(b, loc, bytes);
  }
  LogicalResult launch(OpBuilder &b, LaunchOp launch,
                       ArrayRef<HostBuffer> operands) override {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        launch, launch.getKernelAttr());
    if (!callee)
      return launch.emitOpError("calls a kernel that was not lowered");
    Location loc = launch.getLoc();
    SmallVector<Value> args;
    for (auto [buffer, param] :
         llvm::zip(operands, callee.getArgumentTypes())) {
      auto paramType = cast<MemRefType>(param);
      Value m = viewAs(
          b, loc, buffer,
          MemRefType::get(paramType.getShape(), paramType.getElementType()));
      args.push_back(memref::CastOp::create(b, loc, param, m));
    }
    func::CallOp::create(b, loc, launch.getKernel(), TypeRange{}, args);
    return success();
  }
  void copy(OpBuilder &b, Location loc, Value dst, Value src) override {
    memref::CopyOp::create(b, loc, src, dst);
  }
  void fillZero(OpBuilder &b, Location loc, Value dst) override {
    auto type = cast<MemRefType>(dst.getType());
    Value zero =
        arith::ConstantOp::create(b, loc, zeroAttr(b, type.getElementType()));
    Value lo = arith::ConstantIndexOp::create(b, loc, 0);
    Value hi = arith::ConstantIndexOp::create(b, loc, type.getDimSize(0));
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    scf::ForOp::create(b, loc, lo, hi, one, ValueRange{},
                       [&](OpBuilder &fb, Location, Value iv, ValueRange) {
                         memref::StoreOp::create(fb, loc, zero, dst, iv);
                         scf::YieldOp::create(fb, loc);
                       });
  }
  void release(OpBuilder &b, Location loc, ArrayRef<Value> unused) override {
    for (Value bytes : unused)
      memref::DeallocOp::create(b, loc, bytes);
  }
  /// A call of lazy_rt_custom_random (HostFunctions.h) on the output's
  /// address, which the JIT resolves in the running process.
  void customRandom(OpBuilder &b, Location loc, Value dst, int64_t seed,
                    int32_t dtype) override {
    emitCustomRandomCall(b, loc, dst, seed, dtype);
  }
};

struct ConvertLazyToLoops final
    : mlir::lazy::impl::ConvertLazyToLoopsBase<ConvertLazyToLoops> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
    for (KernelOp kernel : kernels) {
      SmallVector<Type> argTypes;
      for (Type t : kernel.getArgumentTypes())
        argTypes.push_back(kernelMemrefOf(t));
      OpBuilder b(kernel);
      auto func = func::FuncOp::create(b, kernel.getLoc(), kernel.getSymName(),
                                       b.getFunctionType(argTypes, {}));
      if (auto metadata = kernel.getMetadataAttr())
        func->setAttr(LazyDialect::kMetadataAttrName, metadata);
      if (failed(lowerKernel(kernel, func))) {
        func.erase();
        return signalPassFailure();
      }
      kernel.erase();
    }
    CpuHost host;
    if (failed(lowerHostFunctions(module, host)))
      return signalPassFailure();
  }
};

} // namespace
