//===- LazyToLoops.cpp - lazy.kernel to scf loops over memrefs ------------===//
//
// convert-lazy-to-loops: every lazy.kernel becomes a func.func over
// memrefs, each store an scf.parallel over its view's shape whose body
// computes one element (KernelEmitter.h states the per-element rules) and
// stores it at the index its ShapeTracker gives, guarded by the view's mask.
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

/// Lowers one kernel into `func`: one scf.parallel per store.
LogicalResult lowerKernel(KernelOp kernel, func::FuncOp func) {
  Block &body = kernel.getBody().front();
  Block *entry = func.addEntryBlock();
  IRMapping buffers;
  for (auto [arg, memrefArg] :
       llvm::zip(body.getArguments(), entry->getArguments()))
    buffers.map(arg, memrefArg);
  KernelEmitter emitter(buffers);
  OpBuilder b = OpBuilder::atBlockEnd(entry);
  for (Operation &op : body) {
    auto store = dyn_cast<StoreOp>(op);
    if (!store)
      continue;
    Location loc = store.getLoc();
    // (getTracker() returns a copy: keep it alive for the loop.)
    ::lazy::st::ShapeTracker view = store.getView().getTracker();
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t dim : view.shape()) {
      lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
      ubs.push_back(arith::ConstantIndexOp::create(b, loc, dim));
      steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
    }
    LogicalResult status = success();
    auto storeAt = [&](OpBuilder &pb, ValueRange ivs) {
      emitter.beginElement();
      FailureOr<Value> value = emitter.evaluate(pb, store.getValue(), ivs);
      if (failed(value)) {
        status = failure();
        return;
      }
      emitter.emitStore(pb, store, *value, ivs);
    };
    if (lbs.empty())
      storeAt(b, {});
    else
      scf::ParallelOp::create(b, loc, lbs, ubs, steps,
                              [&](OpBuilder &pb, Location, ValueRange ivs) {
                                storeAt(pb, ivs);
                              });
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

/// Rewrites a scheduled function onto memrefs (HostBuffers.h): buffer
/// arguments and allocations are bytes (`memref<B x i8>`), each buffer a
/// `memref.view` of them; a launch calls the lowered kernel with each
/// buffer seen as the kernel's argument type; a copy is memref.copy (one
/// address space on the CPU), EMPTY a zero fill.
LogicalResult lowerScheduledFunction(func::FuncOp func) {
  if (func.isExternal())
    return success();
  Block &body = func.getBody().front();
  DenseMap<Value, HostBuffer> host;
  OpBuilder entry = OpBuilder::atBlockBegin(&body);
  for (BlockArgument arg : body.getArguments()) {
    auto type = dyn_cast<BufferType>(arg.getType());
    if (!type)
      continue;
    arg.setType(bytesOf(type));
    host[arg] = {arg, 0, viewOf(entry, arg.getLoc(), arg, 0, memrefOf(type))};
  }
  SmallVector<Operation *> dead;
  SmallVector<Value> allocations;
  for (Operation &op : llvm::make_early_inc_range(body)) {
    OpBuilder b(&op);
    Location loc = op.getLoc();
    auto viewFor = [&](Value v) { return host.lookup(v).view; };
    for (Value v : op.getOperands())
      if (isa<BufferType>(v.getType()) && !host.count(v))
        return op.emitOpError("uses a buffer the CPU lowering does not know "
                              "(defined by an unsupported op)");
    if (auto alloc = dyn_cast<AllocOp>(op)) {
      Value bytes = memref::AllocOp::create(b, loc, bytesOf(alloc.getType()));
      allocations.push_back(bytes);
      host[alloc] = {bytes, 0, viewOf(b, loc, bytes, 0,
                                      memrefOf(alloc.getType()))};
    } else if (auto sub = dyn_cast<SubAllocOp>(op)) {
      HostBuffer base = host.lookup(sub.getBase());
      int64_t shift = base.shift + sub.getOffset();
      host[sub] = {base.bytes, shift,
                   viewOf(b, loc, base.bytes, shift, memrefOf(sub.getType()))};
    } else if (auto launch = dyn_cast<LaunchOp>(op)) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          launch, launch.getKernelAttr());
      if (!callee)
        return launch.emitOpError("calls a kernel that was not lowered");
      SmallVector<Value> args;
      for (auto [v, param] :
           llvm::zip(launch->getOperands(), callee.getArgumentTypes())) {
        auto paramType = cast<MemRefType>(param);
        Value m = viewAs(b, loc, host.lookup(v),
                         MemRefType::get(paramType.getShape(),
                                         paramType.getElementType()));
        args.push_back(memref::CastOp::create(b, loc, param, m));
      }
      func::CallOp::create(b, loc, launch.getKernel(), TypeRange{}, args);
      for (auto [result, out] : llvm::zip(launch.getResults(), launch.getOuts()))
        host[result] = host.lookup(out);
    } else if (auto ext = dyn_cast<ExtOp>(op)) {
      StringRef kind = ext.getKind();
      if (kind == "copy") {
        Value in = viewFor(ext.getIns()[0]), out = viewFor(ext.getOuts()[0]);
        if (in.getType() != out.getType())
          return ext.emitOpError("copies between buffers of different "
                                 "types, which the CPU lowering does not "
                                 "support");
        memref::CopyOp::create(b, loc, in, out);
      } else if (kind == "empty") {
        // tinygrad leaves EMPTY uninitialized; zeros are one of its valid
        // contents and make runs reproducible (the interpreter agrees).
        Value out = viewFor(ext.getOuts()[0]);
        auto type = cast<MemRefType>(out.getType());
        Value zero = arith::ConstantOp::create(
            b, loc, zeroAttr(b, type.getElementType()));
        Value lo = arith::ConstantIndexOp::create(b, loc, 0);
        Value hi = arith::ConstantIndexOp::create(b, loc, type.getDimSize(0));
        Value one = arith::ConstantIndexOp::create(b, loc, 1);
        scf::ForOp::create(b, loc, lo, hi, one, ValueRange{},
                           [&](OpBuilder &fb, Location, Value iv, ValueRange) {
                             memref::StoreOp::create(fb, loc, zero, out, iv);
                             scf::YieldOp::create(fb, loc);
                           });
      } else if (kind == "custom") {
        return ext.emitOpError("calls a host function that cannot be "
                               "lowered to loops");
      }
      host[ext.getResult(0)] = host.lookup(ext.getOuts()[0]);
    } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      // Allocations no result lives in are freed before returning.
      llvm::DenseSet<Value> returned;
      for (OpOperand &operand : ret->getOpOperands())
        if (host.count(operand.get())) {
          returned.insert(host.lookup(operand.get()).bytes);
          operand.set(viewFor(operand.get()));
        }
      for (Value bytes : allocations)
        if (!returned.contains(bytes))
          memref::DeallocOp::create(b, loc, bytes);
      continue;
    } else {
      continue;
    }
    dead.push_back(&op);
  }
  for (Operation *op : llvm::reverse(dead)) {
    op->dropAllUses();
    op->erase();
  }
  SmallVector<Type> results;
  for (Value v : body.getTerminator()->getOperands())
    results.push_back(v.getType());
  func.setFunctionType(
      FunctionType::get(func.getContext(), body.getArgumentTypes(), results));
  // Buffer identity and result views describe lazy buffers; memrefs are
  // plain memory from here on.
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    func.removeArgAttr(i, LazyDialect::kBufferAttrName);
    func.removeArgAttr(i, LazyDialect::kBufferOffsetAttrName);
  }
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    func.removeResultAttr(
        i, StringAttr::get(func.getContext(), LazyDialect::kResultViewAttrName));
  return success();
}

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
      auto func = func::FuncOp::create(
          b, kernel.getLoc(), kernel.getSymName(),
          b.getFunctionType(argTypes, {}));
      if (auto metadata = kernel.getMetadataAttr())
        func->setAttr(LazyDialect::kMetadataAttrName, metadata);
      if (failed(lowerKernel(kernel, func))) {
        func.erase();
        return signalPassFailure();
      }
      kernel.erase();
    }
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (llvm::any_of(func.getArgumentTypes(),
                       [](Type t) { return isa<BufferType>(t); }) ||
          llvm::any_of(func.getResultTypes(),
                       [](Type t) { return isa<BufferType>(t); }))
        if (failed(lowerScheduledFunction(func)))
          return signalPassFailure();
  }
};

} // namespace
