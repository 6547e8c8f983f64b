//===- KernelGraph.cpp - a kernel as a graph the interpreter evaluates ----===//

#include "lazy/Interpreter/KernelGraph.h"

#include "lazy/Dialect/Lazy/IR/LazyDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::lazy;

FailureOr<func::FuncOp> mlir::lazy::kernelAsGraph(KernelOp kernel,
                                                  ModuleOp into) {
  // The interpreter evaluates integer shapes; a kernel's Variables are
  // bound by its launches, not by the kernel.
  if (holdsVariables(kernel))
    return kernel.emitOpError("has Variables (symbolic shapes): the "
                              "interpreter evaluates kernels at integer "
                              "shapes only");
  Block &body = kernel.getBody().front();
  int64_t numOutputs = kernel.getNumOutputs();
  SmallVector<Type> argTypes;
  for (BlockArgument arg : body.getArguments()) {
    auto buffer = dyn_cast<BufferType>(arg.getType());
    if (!buffer)
      return kernel.emitOpError("argument #")
             << arg.getArgNumber() << " is not a buffer";
    argTypes.push_back(
        RankedTensorType::get({buffer.getSize()}, buffer.getElementType()));
  }

  OpBuilder b = OpBuilder::atBlockEnd(into.getBody());
  auto func = func::FuncOp::create(b, kernel.getLoc(),
                                   (kernel.getSymName() + "_graph").str(),
                                   b.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  IRMapping map;
  for (auto [kernelArg, funcArg] :
       llvm::zip(body.getArguments(), entry->getArguments()))
    map.map(kernelArg, funcArg);
  OpBuilder fb = OpBuilder::atBlockEnd(entry);
  SmallVector<Value> stored(numOutputs);
  auto fail = [&](InFlightDiagnostic diag) -> FailureOr<func::FuncOp> {
    func.erase();
    return diag;
  };
  for (Operation &op : body) {
    if (auto load = dyn_cast<LoadOp>(op)) {
      // A load reads its buffer through the tracker, as a view of the
      // buffer's elements does.
      map.map(load.getResult(),
              ViewOp::create(fb, load.getLoc(), load.getType(),
                             map.lookup(load.getBuffer()), load.getView()));
      continue;
    }
    if (auto store = dyn_cast<StoreOp>(op)) {
      auto target = dyn_cast<BlockArgument>(store.getBuffer());
      if (!target || target.getArgNumber() >= numOutputs ||
          stored[target.getArgNumber()])
        return fail(store.emitOpError("does not store a kernel output "
                                      "once"));
      stored[target.getArgNumber()] = map.lookup(store.getValue());
      continue;
    }
    if (!isa<LazyDialect>(op.getDialect()) || op.getNumRegions() != 0)
      return fail(op.emitOpError("cannot be evaluated as a graph op"));
    fb.clone(op, map);
  }
  SmallVector<Type> resultTypes;
  for (auto [index, value] : llvm::enumerate(stored)) {
    if (!value)
      return fail(kernel.emitOpError("never stores output #") << index);
    resultTypes.push_back(value.getType());
  }
  func::ReturnOp::create(fb, kernel.getLoc(), stored);
  func.setFunctionType(b.getFunctionType(argTypes, resultTypes));
  return func;
}
