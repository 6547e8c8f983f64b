//===- VectorLanes.cpp - a register tile's elements as vectors ------------===//
//
// Rules:
//   - in lane mode each tile element stands for `width` consecutive
//     positions along the lane axis; a value that does not vary along it
//     stays a scalar and is broadcast where it meets a vector;
//   - a load contiguous along the lane axis is one vector load (aligned
//     where setBufferAlignment proves it, prefetched ahead where it moves a
//     cache line per reduce step), any other is gathered lane by lane;
//   - an op scalarOp has a vector form of is one vector op, others run lane
//     by lane; stores are vector stores where contiguous (nontemporal into
//     the buffers setNontemporalBuffers names), else one per lane.
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

FailureOr<Value> KernelEmitter::evaluateLanesAt(OpBuilder &b, Value v,
                                                ValueRange idx,
                                                LaneAxis laneAxis) {
  std::optional<LaneAxis> outer = lanes;
  lanes = laneAxis;
  scopes.emplace_back();
  FailureOr<Value> x = evaluateIn(b, v, idx, true);
  if (succeeded(x))
    x = broadcastLanes(b, v.getLoc(), *x);
  scopes.pop_back();
  lanes = outer;
  return x;
}

//===----------------------------------------------------------------------===//
// Lane mode: a register tile's elements as vectors along the lane axis.
//===----------------------------------------------------------------------===//

Value KernelEmitter::lookupLanes(Value v, ValueRange idx) const {
  return findIn(&Scope::lanes, v, idx);
}

Value KernelEmitter::laneIndex(OpBuilder &b, Location loc, Value base,
                               int64_t lane) {
  if (lane == 0)
    return base;
  for (const Scope &scope : llvm::reverse(scopes)) {
    auto it = scope.laneIndices.find({base, lane});
    if (it != scope.laneIndices.end())
      return it->second;
  }
  Value at = arith::AddIOp::create(
      b, loc, base, arith::ConstantIndexOp::create(b, loc, lane));
  scopes.back().laneIndices[{base, lane}] = at;
  return at;
}

Value KernelEmitter::broadcastLanes(OpBuilder &b, Location loc, Value x) {
  if (isa<VectorType>(x.getType()))
    return x;
  return vector::BroadcastOp::create(
      b, loc, VectorType::get({lanes->width}, x.getType()), x);
}

const AffineIndex *KernelEmitter::laneFormOf(ShapeTrackerAttr view) {
  if (auto inBounds = inBoundsForms.find(view); inBounds != inBoundsForms.end())
    return &inBounds->second;
  auto [it, inserted] = laneForms.try_emplace(view);
  if (inserted) {
    // One view is affine as it stands (symbolicAffineForm, which takes
    // plain ints too); a stack of views may simplify to one form.
    if (view.isSymbolic())
      it->second = symbolicAffineForm(view.getSymTracker());
    else if (view.getTracker().views.size() == 1)
      it->second = symbolicAffineForm(
          st::SymShapeTracker::fromTracker(view.getTracker()));
    else
      it->second = affineIndexOf(view.getTracker());
  }
  return it->second ? &*it->second : nullptr;
}

llvm::MaybeAlign KernelEmitter::laneAlignment(Value memref,
                                              const AffineIndex &form) const {
  auto it = bufferAlignment.find(memref);
  if (it == bufferAlignment.end())
    return {};
  int64_t width = lanes->width;
  if (form.offset % width != 0)
    return {};
  for (auto [d, stride] : llvm::enumerate(form.strides))
    if (d != lanes->axis && stride % width != 0)
      return {};
  Type element = cast<MemRefType>(memref.getType()).getElementType();
  int64_t bytes = width * int64_t(element.getIntOrFloatBitWidth() / 8);
  if (bytes <= 0 || !llvm::isPowerOf2_64(uint64_t(bytes)) ||
      it->second % bytes != 0)
    return {};
  return llvm::Align(uint64_t(bytes));
}

std::pair<Value, Value> KernelEmitter::laneAccess(OpBuilder &b, Location loc,
                                                  const AffineIndex &form,
                                                  ValueRange idx) {
  int64_t width = lanes->width;
  auto indexVector = VectorType::get({width}, b.getIndexType());
  Value uniform, perLaneMask;
  for (const st::AffineCondition &c : form.valid) {
    // At lane l the condition's value is its value at lane 0 plus a*l.
    Value atLaneZero = emitAffine(b, loc, c.coeffs, c.constant, idx);
    int64_t a = c.coeffs[lanes->axis];
    if (a == 0) {
      Value holds =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, atLaneZero,
                                arith::ConstantIndexOp::create(b, loc, 0));
      uniform = uniform
                    ? arith::AndIOp::create(b, loc, uniform, holds).getResult()
                    : holds;
      continue;
    }
    SmallVector<APInt> steps;
    for (int64_t l = 0; l < width; ++l)
      steps.push_back(APInt(64, uint64_t(a * l), /*isSigned=*/true));
    Value offsets = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(indexVector, steps));
    Value values = arith::AddIOp::create(
        b, loc, vector::BroadcastOp::create(b, loc, indexVector, atLaneZero),
        offsets);
    Value zeros = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(indexVector, b.getIndexAttr(0)));
    Value holds =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, values, zeros);
    perLaneMask =
        perLaneMask
            ? arith::AndIOp::create(b, loc, perLaneMask, holds).getResult()
            : holds;
  }
  Value mask = perLaneMask;
  if (uniform) {
    Value all = broadcastLanes(b, loc, uniform);
    mask = mask ? arith::AndIOp::create(b, loc, mask, all).getResult() : all;
  }
  return {emitAffine(b, loc, form.strides, form.offset, idx), mask};
}

FailureOr<Value> KernelEmitter::perLane(OpBuilder &b, Value v, ValueRange idx) {
  Location loc = v.getLoc();
  SmallVector<Value> parts;
  SmallVector<Value> at(idx.begin(), idx.end());
  for (int64_t l = 0; l < lanes->width; ++l) {
    at[lanes->axis] = laneIndex(b, loc, idx[lanes->axis], l);
    currentLane = l;
    FailureOr<Value> part = evaluate(b, v, at);
    currentLane = -1;
    if (failed(part))
      return failure();
    parts.push_back(*part);
  }
  return gatherLanes(b, loc, parts);
}

Value KernelEmitter::gatherLanes(OpBuilder &b, Location loc,
                                 ArrayRef<Value> parts) {
  return vector::FromElementsOp::create(
      b, loc, VectorType::get({lanes->width}, parts.front().getType()), parts);
}

void KernelEmitter::prefetchAt(OpBuilder &b, Location loc, Value memref,
                               Value index, int64_t offset) {
  auto type = cast<MemRefType>(memref.getType());
  if (offset == 0 || !type.hasStaticShape() || type.getNumElements() == 0)
    return;
  // Clamped into the buffer: the last steps prefetch its end again.
  Value ahead = arith::AddIOp::create(
      b, loc, index, arith::ConstantIndexOp::create(b, loc, offset));
  ahead = arith::MaxSIOp::create(
      b, loc,
      arith::MinSIOp::create(
          b, loc, ahead,
          arith::ConstantIndexOp::create(b, loc, type.getNumElements() - 1)),
      arith::ConstantIndexOp::create(b, loc, 0));
  memref::PrefetchOp::create(b, loc, memref, ValueRange{ahead},
                             /*isWrite=*/false, /*localityHint=*/3,
                             /*isDataCache=*/true);
}

void KernelEmitter::prefetchAhead(OpBuilder &b, Location loc, Value memref,
                                  Value index, int64_t stepBytes,
                                  int64_t stepElements) {
  if (std::abs(stepBytes) >= kCacheLineBytes)
    prefetchAt(b, loc, memref, index, prefetchSteps * stepElements);
}

FailureOr<Value> KernelEmitter::laneLeaf(OpBuilder &b, Operation *op,
                                         ValueRange idx) {
  Location loc = op->getLoc();
  Type t = signless(elementOf(op->getResult(0)));
  size_t axis = lanes->axis;
  auto dependsOnLanes = [&](const AffineIndex &form) {
    return llvm::any_of(form.valid, [&](const st::AffineCondition &c) {
      return c.coeffs[axis] != 0;
    });
  };
  auto zeros = [&]() {
    return constantLike(b, loc, zeroAttr(b, t),
                        VectorType::get({lanes->width}, t));
  };
  if (auto load = dyn_cast<LoadOp>(op)) {
    if (auto it = packedPanels.find(op); it != packedPanels.end())
      return vector::LoadOp::create(
                 b, loc, VectorType::get({lanes->width}, t), it->second.scratch,
                 ValueRange{panelIndex(b, loc, it->second, idx)})
          .getResult();
    // The lanes from `index` on; lanes outside `mask` (if any) are not
    // read, wherever their index points.
    Value memref = buffers.lookup(load.getBuffer());
    auto vectorLoad = [&](Value index, Value mask,
                          llvm::MaybeAlign align = {}) -> Value {
      auto type = VectorType::get({lanes->width}, t);
      if (!mask)
        return vector::LoadOp::create(b, loc, type, memref, ValueRange{index},
                                      /*nontemporal=*/false, align);
      auto masked = vector::MaskedLoadOp::create(
          b, loc, type, memref, ValueRange{index}, mask, zeros());
      if (align)
        masked.setAlignment(align->value());
      return masked;
    };
    // Bools are bytes in memory but bits in a vector register.
    bool bits = t.isInteger(1);
    if (const AffineIndex *form = laneFormOf(load.getView())) {
      int64_t stride = form->strides[axis];
      if (stride == 0 && !dependsOnLanes(*form))
        return leaf(b, op, idx);
      if (stride == 1 && !bits) {
        auto [index, mask] = laneAccess(b, loc, *form, idx);
        if (!mask && prefetchAxis)
          prefetchAhead(b, loc, memref, index,
                        form->strides[*prefetchAxis] *
                            int64_t(t.getIntOrFloatBitWidth() / 8),
                        form->strides[*prefetchAxis]);
        // The same lanes in the next row, an element of the view (which
        // has no mask) where there is one, else these lanes again.
        if (!mask && prefetchNextRow && hasNextRow && inRowIndexSpace(idx) &&
            form->strides[*innermostRowAxis] != 0) {
          Value offset = arith::SelectOp::create(
              b, loc, hasNextRow,
              arith::ConstantIndexOp::create(b, loc,
                                             form->strides[*innermostRowAxis]),
              arith::ConstantIndexOp::create(b, loc, 0));
          memref::PrefetchOp::create(
              b, loc, memref,
              ValueRange{arith::AddIOp::create(b, loc, index, offset)},
              /*isWrite=*/false, /*localityHint=*/3, /*isDataCache=*/true);
        }
        return vectorLoad(index, mask, laneAlignment(memref, *form));
      }
    } else if (viewStridesOf(load.getView(), /*ignoreValid=*/false)[axis] ==
               0) {
      // No affine form (a symbolic stride on another axis), but the same
      // element in every lane: one scalar load.
      return leaf(b, op, idx);
    }
    // No affine form, but the lanes are one aligned run (their first index
    // is a multiple of the width): lane 0's index, then one load, masked
    // as a whole where the run is invalid.
    if (!bits && !load.getView().isSymbolic() &&
        load.getView().getTracker().contiguousRuns(axis, lanes->width)) {
      IndexAndValid at = indexOf(b, loc, load.getView(), idx);
      return vectorLoad(at.index,
                        at.valid ? broadcastLanes(b, loc, at.valid) : Value());
    }
    return perLane(b, op->getResult(0), idx);
  }
  if (auto view = dyn_cast<ViewOp>(op)) {
    const AffineIndex *form = laneFormOf(view.getTracker());
    // A computed value the same in every lane (a softmax_sum's scores
    // along the head dim) is one scalar; another (a softmax_sum's weights
    // cast before they are permuted: tinygrad's v.float()) is computed
    // lane by lane.
    if (isComputedView(view)) {
      if (form && form->strides[axis] == 0 && !dependsOnLanes(*form))
        return leaf(b, op, idx);
      return perLane(b, op->getResult(0), idx);
    }
    if (!form)
      return perLane(b, op->getResult(0), idx);
    if (!dependsOnLanes(*form))
      return leaf(b, op, idx);
    auto c = view.getSrc().getDefiningOp<ConstOp>();
    if (!c)
      return view.emitOpError("in a kernel must view a lazy.const");
    Value mask = laneAccess(b, loc, *form, idx).second;
    auto laneType = VectorType::get({lanes->width}, t);
    Value value = isa<SymIntAttr>(c.getValue())
                      ? vector::BroadcastOp::create(b, loc, laneType,
                                                    constValue(b, loc, c))
                            .getResult()
                      : constantLike(b, loc, constAttr(b, c), laneType);
    return arith::SelectOp::create(b, loc, mask, value, zeros()).getResult();
  }
  // A tile's reduce (a vector), else a reduce computed lane by lane.
  if (reduceDepth() == 0) {
    auto it = tileReduces.find({op, currentElement});
    if (it != tileReduces.end())
      return it->second;
  }
  return perLane(b, op->getResult(0), idx);
}

FailureOr<Value> KernelEmitter::laneOp(OpBuilder &b, Operation *op,
                                       SmallVector<Value> args) {
  bool anyVector =
      llvm::any_of(args, [](Value a) { return isa<VectorType>(a.getType()); });
  if (!anyVector)
    return scalarOp(b, op, args);
  if (vectorizableOp(op)) {
    for (Value &a : args)
      a = broadcastLanes(b, op->getLoc(), a);
    return scalarOp(b, op, args);
  }
  // Lane by lane from the operands' lanes, then gathered.
  SmallVector<Value> parts;
  for (int64_t l = 0; l < lanes->width; ++l) {
    SmallVector<Value> laneArgs;
    for (Value a : args)
      laneArgs.push_back(
          isa<VectorType>(a.getType())
              ? vector::ExtractOp::create(b, op->getLoc(), a, l).getResult()
              : a);
    FailureOr<Value> part = scalarOp(b, op, laneArgs);
    if (failed(part))
      return failure();
    parts.push_back(*part);
  }
  return gatherLanes(b, op->getLoc(), parts);
}

void KernelEmitter::emitLaneStore(OpBuilder &b, StoreOp store, Value value,
                                  ValueRange idx, Value extraGuard) {
  Location loc = store.getLoc();
  Value memref = buffers.lookup(store.getBuffer());
  Type t = cast<MemRefType>(memref.getType()).getElementType();
  const AffineIndex *form = laneFormOf(store.getView());
  if (form && form->strides[lanes->axis] == 1 && !t.isInteger(1) &&
      !extraGuard) {
    Value vec = broadcastLanes(b, loc, value);
    auto [index, mask] = laneAccess(b, loc, *form, idx);
    llvm::MaybeAlign align = laneAlignment(memref, *form);
    if (!mask) {
      auto stored =
          vector::StoreOp::create(b, loc, vec, memref, ValueRange{index},
                                  /*nontemporal=*/false, align);
      // An output too large to stay in the cache for its readers: skip
      // the read a cached store makes of each line (a quarter of a*b+c's
      // traffic). Only aligned: x86 splits an unaligned one into 8-byte
      // stores.
      if (align && nontemporalBuffers.contains(memref))
        stored.setNontemporal(true);
    } else {
      auto stored = vector::MaskedStoreOp::create(b, loc, memref,
                                                  ValueRange{index}, mask, vec);
      if (align)
        stored.setAlignment(align->value());
    }
    return;
  }
  SmallVector<Value> at(idx.begin(), idx.end());
  for (int64_t l = 0; l < lanes->width; ++l) {
    at[lanes->axis] = laneIndex(b, loc, idx[lanes->axis], l);
    Value part = isa<VectorType>(value.getType())
                     ? vector::ExtractOp::create(b, loc, value, l).getResult()
                     : value;
    emitStore(b, store, part, at, extraGuard);
  }
}
