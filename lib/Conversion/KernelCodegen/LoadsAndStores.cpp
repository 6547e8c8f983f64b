//===- LoadsAndStores.cpp - masked loads and stores through views ---------===//
//
// Rules:
//   - a load reads through its ShapeTracker (IndexExpr.h); outside the mask
//     it yields 0, reading a clamped index so nothing is read out of bounds;
//   - a const view is an arith.constant, 0 outside its mask;
//   - loads and const views are computed once per view key: a tile's
//     elements that differ only along axes a view ignores share one load;
//   - a store is guarded by its view's mask; the stores of a store group
//     come after every value they store is computed (an assign target may
//     be read by the other outputs' values, which must see its old
//     contents).
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/KernelCodegen/IndexExpr.h"
#include "lazy/Conversion/KernelCodegen/KernelEmitter.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;
namespace sym = ::lazy::st::sym;

SmallVector<Value, 4> KernelEmitter::viewKey(ShapeTrackerAttr view,
                                             ValueRange idx) {
  auto [it, inserted] = viewStrides.try_emplace(view);
  if (inserted)
    it->second = viewStridesOf(view, /*ignoreValid=*/false);
  SmallVector<Value, 4> key(idx.begin(), idx.end());
  for (auto [d, stride] : llvm::enumerate(it->second))
    if (d < key.size() && stride && *stride == 0)
      key[d] = Value();
  return key;
}

FailureOr<Value> KernelEmitter::viewLeaf(OpBuilder &b, Operation *op,
                                         ValueRange idx, bool laneMode) {
  auto view = isa<LoadOp>(op) ? cast<LoadOp>(op).getView()
                              : cast<ViewOp>(op).getTracker();
  SmallVector<Value, 4> key = viewKey(view, idx);
  Value v = op->getResult(0);
  Memo Scope::*memo = laneMode ? &Scope::laneViews : &Scope::views;
  if (Value seen = findIn(memo, v, key))
    return seen;
  // A row value (computed at the row's scope, beginRow) is the same in
  // every lane: lane mode reads the scalar. The key holds the lane index
  // unless the view is constant along the lane axis, so only such a view
  // finds one.
  if (laneMode && isComputedView(op))
    if (Value seen = findIn(&Scope::views, v, key))
      return seen;
  FailureOr<Value> result = laneMode ? laneLeaf(b, op, idx) : leaf(b, op, idx);
  if (succeeded(result))
    (scopes.back().*memo)[v].push_back({std::move(key), *result});
  return result;
}

LogicalResult KernelEmitter::emitStoreGroup(OpBuilder &b,
                                            ArrayRef<StoreOp> stores,
                                            ValueRange idx, Value extraGuard) {
  return emitStoreGroups(b, stores, {SmallVector<Value>(idx)}, extraGuard);
}

LogicalResult
KernelEmitter::emitStoreGroups(OpBuilder &b, ArrayRef<StoreOp> stores,
                               ArrayRef<SmallVector<Value>> elements,
                               Value extraGuard) {
  SmallVector<SmallVector<Value>> values;
  for (auto [e, idx] : llvm::enumerate(elements)) {
    beginElement();
    currentElement = unsigned(e);
    SmallVector<Value> &element = values.emplace_back();
    for (StoreOp store : stores) {
      FailureOr<Value> value =
          evaluateIn(b, store.getValue(), idx, lanes.has_value());
      if (failed(value))
        return failure();
      element.push_back(*value);
    }
  }
  // The stores' lane indices belong to no element's scope.
  beginElement();
  for (auto [idx, element] : llvm::zip(elements, values))
    for (auto [store, value] : llvm::zip(stores, element)) {
      if (lanes)
        emitLaneStore(b, store, value, idx, extraGuard);
      else
        emitStore(b, store, value, idx, extraGuard);
    }
  return success();
}

void KernelEmitter::emitStore(OpBuilder &b, StoreOp store, Value value,
                              ValueRange idx, Value extraGuard) {
  Location loc = store.getLoc();
  IndexAndValid at = indexOf(b, loc, store.getView(), idx);
  Value memref = buffers.lookup(store.getBuffer());
  Value guard = at.valid;
  if (extraGuard)
    guard = guard ? arith::AndIOp::create(b, loc, guard, extraGuard).getResult()
                  : extraGuard;
  if (!guard) {
    memref::StoreOp::create(b, loc, value, memref, at.index);
    return;
  }
  scf::IfOp::create(b, loc, guard, [&](OpBuilder &ib, Location) {
    memref::StoreOp::create(ib, loc, value, memref, at.index);
    scf::YieldOp::create(ib, loc);
  });
}

IndexAndValid KernelEmitter::indexOf(OpBuilder &b, Location loc,
                                     ShapeTrackerAttr view, ValueRange idx) {
  if (auto inBounds = inBoundsForms.find(view); inBounds != inBoundsForms.end())
    return emitAffineIndexAndValid(b, loc, inBounds->second, idx);
  if (view.isSymbolic())
    return emitSymIndexAndValid(b, loc, view.getSymTracker(), idx, variables);
  auto [it, inserted] = affineForms.try_emplace(view);
  if (inserted)
    it->second = affineIndexOf(view.getTracker());
  if (it->second)
    return emitAffineIndexAndValid(b, loc, *it->second, idx);
  if (std::optional<IndexAndValid> bounded =
          emitBoundedIndexAndValid(b, loc, view.getTracker(), idx))
    return *bounded;
  return emitIndexAndValid(b, loc, view.getTracker(), idx);
}
