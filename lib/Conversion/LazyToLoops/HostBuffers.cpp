//===- HostBuffers.cpp - the scheduled function as host code --------------===//
//
// The walk both lowerings share (HostBuffers.h): buffer arguments become
// bytes, each lazy buffer a view of an allocation's or argument's bytes,
// sub-buffers views at their byte shift; launches, copies and fills are
// left to the target through HostTarget.
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/LazyToLoops/HostBuffers.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Dialect/Lazy/IR/RngSeeds.h"
#include "lazy/Interpreter/HostFunctions.h"
#include "lazy/Interpreter/Interpreter.h"

#include "mlir/Dialect/DLTI/DLTI.h"

#include <limits>

using namespace mlir;
using namespace mlir::lazy;
namespace interp = ::lazy::interp;

void mlir::lazy::emitCustomRandomCall(OpBuilder &b, Location loc, Value view,
                                      int64_t seed, int32_t dtype) {
  static constexpr StringLiteral kEntry = "lazy_rt_custom_random";
  auto module =
      b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto callee = module.lookupSymbol<func::FuncOp>(kEntry);
  if (!callee) {
    OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
    callee = func::FuncOp::create(
        mb, loc, kEntry, b.getFunctionType({i64, i32, i64, i64}, {i32}));
    callee.setPrivate();
  }
  Value address = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, view);
  Value args[] = {
      arith::ConstantIntOp::create(b, loc, i64, seed),
      arith::ConstantIntOp::create(b, loc, i32, dtype),
      arith::IndexCastOp::create(b, loc, i64, address),
      arith::ConstantIntOp::create(
          b, loc, i64, cast<MemRefType>(view.getType()).getNumElements())};
  func::CallOp::create(b, loc, callee, args);
}

/// A target without lazy-distribute's items.
static LogicalResult noDistributedLowering(Operation *op, StringRef target) {
  return op->emitOpError("has no ")
         << target << " lowering: distributed programs run on CPUs";
}

LogicalResult HostTarget::send(OpBuilder &, SendOp op, Value) {
  return noDistributedLowering(op, name());
}

LogicalResult HostTarget::receive(OpBuilder &, RecvOp op, Value) {
  return noDistributedLowering(op, name());
}

LogicalResult HostTarget::allReduce(OpBuilder &, AllReduceOp op, Value, Value) {
  return noDistributedLowering(op, name());
}

void mlir::lazy::setMpiImplementation(ModuleOp module,
                                      StringRef implementation) {
  MLIRContext *context = module.getContext();
  auto entry = MapAttr::get(
      context,
      {DataLayoutEntryAttr::get(StringAttr::get(context, "MPI:Implementation"),
                                StringAttr::get(context, implementation))});
  module->setAttr("dlti.map", entry);
}

/// Whether an item writes `buffer` or a sub-buffer of it.
static bool isWritten(Value buffer) {
  SmallVector<Value> pending{buffer};
  while (!pending.empty()) {
    Value v = pending.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<LaunchOp, ExtOp, RecvOp, AllReduceOp>(user) &&
          llvm::is_contained(itemOuts(user), v))
        return true;
      if (isa<SubAllocOp>(user))
        pending.push_back(user->getResult(0));
    }
  }
  return false;
}

/// Whether an item reads `buffer`.
static bool isRead(Value buffer) {
  return llvm::any_of(buffer.getUsers(), [&](Operation *user) {
    return isa<LaunchOp, ExtOp, SendOp, AllReduceOp>(user) &&
           llvm::is_contained(itemIns(user), buffer);
  });
}

LogicalResult mlir::lazy::lowerHostFunction(func::FuncOp func,
                                            HostTarget &target) {
  if (func.isExternal())
    return success();
  Block &body = func.getBody().front();
  DenseMap<Value, HostBuffer> host;
  // Arguments are retyped to bytes up front, so their buffer types are kept
  // here: ODS accessors that cast an operand to a buffer (a sub-buffer's
  // base, an op's output) must not be used on them.
  DenseMap<Value, BufferType> argumentBufferTypes;
  auto bufferTypeOf = [&](Value v) {
    if (BufferType type = argumentBufferTypes.lookup(v))
      return type;
    return cast<BufferType>(v.getType());
  };
  OpBuilder entry = OpBuilder::atBlockBegin(&body);
  for (BlockArgument arg : body.getArguments()) {
    auto type = dyn_cast<BufferType>(arg.getType());
    if (!type)
      continue;
    argumentBufferTypes[arg] = type;
    arg.setType(bytesOf(type));
    host[arg] = {arg, 0, viewOf(entry, arg.getLoc(), arg, 0, memrefOf(type))};
  }
  SmallVector<Operation *> dead;
  SmallVector<Value> allocations;
  RngSeedCounter seeds(func);
  for (Operation &op : llvm::make_early_inc_range(body)) {
    OpBuilder b(&op);
    Location loc = op.getLoc();
    for (Value v : op.getOperands())
      if (isa<BufferType>(v.getType()) && !host.count(v))
        return op.emitOpError("uses a buffer the ")
               << target.name() << " lowering does not know (defined by an "
               << "unsupported op)";
    auto viewFor = [&](Value v) { return host.lookup(v).view; };
    if (auto alloc = dyn_cast<AllocOp>(op)) {
      // A buffer an earlier schedule wrote (a `lazy.seen` value) is read
      // here but allocated afresh: its contents cannot reach the program.
      if (isRead(alloc) && !isWritten(alloc))
        return alloc.emitOpError("is read by the schedule but no item of it "
                                 "writes it (a value an earlier schedule "
                                 "produces, marked lazy.seen): the ")
               << target.name() << " lowering cannot pass its contents in";
      Value bytes = target.allocate(b, loc, bytesOf(alloc.getType()));
      allocations.push_back(bytes);
      host[alloc] = {bytes, 0,
                     viewOf(b, loc, bytes, 0, memrefOf(alloc.getType()))};
    } else if (auto sub = dyn_cast<SubAllocOp>(op)) {
      HostBuffer base = host.lookup(sub->getOperand(0));
      int64_t shift = base.shift + sub.getOffset();
      host[sub] = {base.bytes, shift,
                   viewOf(b, loc, base.bytes, shift, memrefOf(sub.getType()))};
    } else if (auto launch = dyn_cast<LaunchOp>(op)) {
      SmallVector<HostBuffer> operands;
      for (Value v : launch->getOperands())
        operands.push_back(host.lookup(v));
      if (failed(target.launch(b, launch, operands)))
        return failure();
      for (auto [result, out] :
           llvm::zip(launch.getResults(), launch.getOuts()))
        host[result] = host.lookup(out);
    } else if (auto ext = dyn_cast<ExtOp>(op)) {
      StringRef kind = ext.getKind();
      Value out = viewFor(ext.getOuts()[0]);
      if (kind == "copy") {
        Value in = viewFor(ext.getIns()[0]);
        if (in.getType() != out.getType())
          return ext.emitOpError("copies between buffers of different "
                                 "types, which the ")
                 << target.name() << " lowering does not support";
        target.copy(b, loc, out, in);
      } else if (kind == "empty") {
        // tinygrad leaves EMPTY uninitialized; zeros are one of its valid
        // contents and make runs reproducible (the interpreter agrees).
        target.fillZero(b, loc, out);
      } else if (kind == "custom") {
        auto callee = dyn_cast_or_null<StringAttr>(ext.getArgAttr());
        if (!callee || callee.getValue() != interp::kCustomRandom)
          return ext.emitOpError("calls a host function, which has no ")
                 << target.name() << " lowering";
        Type element = bufferTypeOf(ext.getOuts()[0]).getElementType();
        std::optional<interp::DType> dtype = dtypeOf(element);
        if (!dtype || *dtype == interp::DType::BFloat16)
          return ext.emitOpError("custom_random cannot fill ")
                 << element << " (numpy has no such dtype; tinygrad fails too)";
        FailureOr<int64_t> seed = ext.getSeed()
                                      ? FailureOr<int64_t>(*ext.getSeed())
                                      : seeds.next(ext);
        if (failed(seed))
          return failure();
        target.customRandom(b, loc, out, *seed, int32_t(*dtype));
      }
      host[ext.getResult(0)] = host.lookup(ext.getOuts()[0]);
    } else if (auto send = dyn_cast<SendOp>(op)) {
      HostBuffer from = host.lookup(send.getBuffer());
      if (failed(target.send(b, send,
                             viewOf(b, loc, from.bytes, from.shift,
                                    bytesOf(bufferTypeOf(send.getBuffer()))))))
        return failure();
    } else if (auto recv = dyn_cast<RecvOp>(op)) {
      HostBuffer into = host.lookup(recv.getBuffer());
      if (failed(
              target.receive(b, recv,
                             viewOf(b, loc, into.bytes, into.shift,
                                    bytesOf(bufferTypeOf(recv.getBuffer()))))))
        return failure();
      host[recv.getResult()] = into;
    } else if (auto reduce = dyn_cast<AllReduceOp>(op)) {
      HostBuffer in = host.lookup(reduce.getIn());
      HostBuffer out = host.lookup(reduce.getOut());
      Value inView = in.view;
      // MPI reads and writes distinct memory (no MPI_IN_PLACE here): an
      // input sharing bytes with the output is reduced from a copy.
      BufferType inType = bufferTypeOf(reduce.getIn());
      int64_t size = inType.getSizeInBytes();
      if (in.bytes == out.bytes && in.shift < out.shift + size &&
          out.shift < in.shift + size) {
        Value scratch = target.allocate(b, loc, bytesOf(inType));
        allocations.push_back(scratch);
        inView = viewOf(b, loc, scratch, 0, memrefOf(inType));
        target.copy(b, loc, inView, in.view);
      }
      if (failed(target.allReduce(b, reduce, inView, out.view)))
        return failure();
      host[reduce.getResult()] = out;
    } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      llvm::DenseSet<Value> returned;
      for (OpOperand &operand : ret->getOpOperands())
        if (host.count(operand.get())) {
          returned.insert(host.lookup(operand.get()).bytes);
          operand.set(viewFor(operand.get()));
        }
      SmallVector<Value> unused;
      for (Value bytes : allocations)
        if (!returned.contains(bytes))
          unused.push_back(bytes);
      target.release(b, loc, unused);
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
    func.removeArgAttr(i, LazyDialect::kArgumentAttrName);
  }
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    func.removeResultAttr(i, StringAttr::get(func.getContext(),
                                             LazyDialect::kResultViewAttrName));
    func.removeResultAttr(
        i, StringAttr::get(func.getContext(), LazyDialect::kOutputAttrName));
  }
  return success();
}

LogicalResult mlir::lazy::lowerHostFunctions(ModuleOp module,
                                             HostTarget &target) {
  auto isBuffer = [](Type t) { return isa<BufferType>(t); };
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (llvm::any_of(func.getArgumentTypes(), isBuffer) ||
        llvm::any_of(func.getResultTypes(), isBuffer))
      if (failed(lowerHostFunction(func, target)))
        return failure();
  return success();
}
