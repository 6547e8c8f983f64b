//===- ElementEvaluation.cpp - one output element's value -----------------===//
//
// Rules:
//   - KernelEmitter::evaluate walks a value's elementwise chain with an
//     explicit stack (kernels of any depth lower without recursion); only
//     reduces nest;
//   - each node is computed once per index vector, memoized per loop scope
//     (an element, a row, a reduce loop's body);
//   - a const is an arith.constant, a Variable's const its argument;
//   - a sum over one axis of a const view whose validity is affine (a fused
//     arange, which tinygrad's linearizer folds too) is the const times the
//     number of valid elements, counted in closed form, where that product
//     has the bits the loop would give (integers; integral floats whose
//     partial sums are exact).
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

Value KernelEmitter::findIn(Memo Scope::*memo, Value v, ValueRange key) const {
  for (const Scope &scope : llvm::reverse(scopes)) {
    auto it = (scope.*memo).find(v);
    if (it == (scope.*memo).end())
      continue;
    for (const auto &[seen, value] : it->second)
      if (llvm::equal(seen, key))
        return value;
  }
  return {};
}

Value KernelEmitter::lookup(Value v, ValueRange idx) const {
  return findIn(&Scope::scalar, v, idx);
}

/// Loads, const views and reduces: the values not computed from operands
/// at the same index.
bool mlir::lazy::isEvaluationLeaf(Operation *op) {
  return isa<LoadOp, ViewOp, ReduceSumOp, ReduceMaxOp, SoftmaxSumOp>(op);
}

/// The closed form of a reduce_sum over one axis of a const view: c times
/// the number of r in [0, n) with every affine validity condition
/// `a*r + S(idx) < 0` true. A condition with a > 0 bounds r above by
/// ceil(-S / a), one with a < 0 below by floor(S / -a) + 1, one with a = 0
/// holds or not for the whole row. Null where the fold does not apply or
/// could change the result's bits.
static Value foldConstSum(OpBuilder &b, Operation *op, ValueRange idx) {
  auto sum = dyn_cast<ReduceSumOp>(op);
  if (!sum || sum.getAxes().size() != 1)
    return {};
  auto view = op->getOperand(0).getDefiningOp<ViewOp>();
  auto c = view ? view.getSrc().getDefiningOp<ConstOp>() : ConstOp();
  if (!c || view.getTracker().isSymbolic() || isa<SymIntAttr>(c.getValue()))
    return {};
  int64_t axis = sum.getAxes()[0];
  st::ShapeTracker tracker = view.getTracker().getTracker();
  int64_t n = tracker.shape()[size_t(axis)];
  Type t = elementOf(op->getResult(0));
  Type s = signless(t);
  if (s.isInteger(1))
    return {}; // a bool sum is an OR
  if (auto f = dyn_cast<FloatType>(s)) {
    // Every partial sum k*c (k <= n) must be exact, and so c*count. Not
    // for -0: the loop adds it to +0, which stays +0, where c*count is -0
    // (tinygrad's CLANG kernel starts its accumulator at 0.0f as well).
    double v = cast<FloatAttr>(c.getElementValue()).getValueAsDouble();
    if (!std::isfinite(v) || v != std::trunc(v) ||
        (v == 0 && std::signbit(v)) ||
        std::fabs(v) * double(n) > std::ldexp(1.0, f.getFPMantissaWidth()))
      return {};
  }
  std::optional<std::vector<st::AffineCondition>> conditions =
      tracker.affineValidity();
  if (!conditions)
    return {};
  Location loc = op->getLoc();
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value lo = index(0), hi = index(n), rowValid;
  for (const st::AffineCondition &cond : *conditions) {
    // S: the condition's terms without r.
    Value rest = index(cond.constant);
    for (auto [d, coeff] : llvm::enumerate(cond.coeffs))
      if (int64_t(d) != axis && coeff != 0)
        rest = arith::AddIOp::create(
            b, loc, rest, arith::MulIOp::create(b, loc, idx[d], index(coeff)));
    int64_t a = cond.coeffs[size_t(axis)];
    if (a > 0) {
      Value negRest = arith::SubIOp::create(b, loc, index(0), rest);
      hi = arith::MinSIOp::create(
          b, loc, hi, arith::CeilDivSIOp::create(b, loc, negRest, index(a)));
    } else if (a < 0) {
      Value bound = arith::AddIOp::create(
          b, loc, arith::FloorDivSIOp::create(b, loc, rest, index(-a)),
          index(1));
      lo = arith::MaxSIOp::create(b, loc, lo, bound);
    } else {
      Value holds = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                          rest, index(0));
      rowValid =
          rowValid ? arith::AndIOp::create(b, loc, rowValid, holds).getResult()
                   : holds;
    }
  }
  Value count = arith::MaxSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, hi, lo), index(0));
  if (rowValid)
    count = arith::SelectOp::create(b, loc, rowValid, count, index(0));
  Value value = arith::ConstantOp::create(b, loc, constAttr(b, c));
  Value zero = arith::ConstantOp::create(b, loc, zeroAttr(b, t));
  Value product;
  if (isa<FloatType>(s)) {
    Value countF = arith::SIToFPOp::create(
        b, loc, s, arith::IndexCastOp::create(b, loc, b.getI64Type(), count));
    product = arith::MulFOp::create(b, loc, value, countF);
    // The loop adds c to +0: no valid element gives +0, not c * 0 (-0
    // for a negative c).
    Value none = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, count,
                                       index(0));
    product = arith::SelectOp::create(b, loc, none, zero, product);
  } else {
    product = arith::MulIOp::create(
        b, loc, value, arith::IndexCastOp::create(b, loc, s, count));
  }
  return product;
}

FailureOr<Value> KernelEmitter::leaf(OpBuilder &b, Operation *op,
                                     ValueRange idx) {
  Location loc = op->getLoc();
  Type t = elementOf(op->getResult(0));
  if (auto load = dyn_cast<LoadOp>(op)) {
    if (auto it = packedPanels.find(op); it != packedPanels.end())
      return memref::LoadOp::create(
                 b, loc, it->second.scratch,
                 ValueRange{panelIndex(b, loc, it->second, idx)})
          .getResult();
    Value memref = buffers.lookup(load.getBuffer());
    IndexAndValid at = indexOf(b, loc, load.getView(), idx);
    Value index = at.index;
    if (at.valid) {
      Value zeroIdx = arith::ConstantIndexOp::create(b, loc, 0);
      index = arith::SelectOp::create(b, loc, at.valid, index, zeroIdx);
    }
    Value result = memref::LoadOp::create(b, loc, memref, index);
    if (at.valid) {
      Value zero = arith::ConstantOp::create(b, loc, zeroAttr(b, t));
      result = arith::SelectOp::create(b, loc, at.valid, result, zero);
    }
    return result;
  }
  if (auto view = dyn_cast<ViewOp>(op)) {
    auto c = view.getSrc().getDefiningOp<ConstOp>();
    if (!c)
      return computedView(b, view, idx);
    Value result = constValue(b, loc, c);
    IndexAndValid at = indexOf(b, loc, view.getTracker(), idx);
    if (at.valid) {
      Value zero = arith::ConstantOp::create(b, loc, zeroAttr(b, t));
      result = arith::SelectOp::create(b, loc, at.valid, result, zero);
    }
    return result;
  }
  // A reduce computed by the caller for the value being evaluated (a
  // tensor-core fragment's element: attention's score).
  if (auto it = pinnedReduces.find(op); it != pinnedReduces.end())
    return it->second;
  // A tile's reduce, computed before its elements (at the top level only:
  // inside another reduce's input the same op is read at other indices).
  if (reduceDepth() == 0) {
    auto it = tileReduces.find({op, currentElement});
    if (it != tileReduces.end()) {
      // Lane mode's vector, read by a lane computed alone (perLane).
      if (isa<VectorType>(it->second.getType()) && currentLane >= 0)
        return vector::ExtractOp::create(b, loc, it->second, currentLane)
            .getResult();
      return it->second;
    }
  }
  if (auto online = dyn_cast<SoftmaxSumOp>(op))
    return emitSoftmaxSum(b, online, idx);
  if (!softmaxKeys.empty()) {
    FailureOr<Value> blocked = keyBlockReduce(b, op, idx);
    if (failed(blocked) || *blocked)
      return blocked;
  }
  if (Value folded = foldConstSum(b, op, idx))
    return folded;
  return emitReduce(b, op, idx);
}

SmallVector<Value> mlir::lazy::delinearizeIndex(OpBuilder &b, Location loc,
                                                Value flat,
                                                ArrayRef<int64_t> shape,
                                                Value zero) {
  SmallVector<Value> idx(shape.size());
  int64_t stride = 1;
  for (int64_t k = int64_t(shape.size()) - 1; k >= 0; --k) {
    if (shape[k] == 1) {
      idx[k] = zero ? zero : arith::ConstantIndexOp::create(b, loc, 0);
      continue;
    }
    Value v = flat;
    if (stride != 1)
      v = arith::DivUIOp::create(
          b, loc, v, arith::ConstantIndexOp::create(b, loc, stride));
    if (k != 0)
      v = arith::RemUIOp::create(
          b, loc, v, arith::ConstantIndexOp::create(b, loc, shape[k]));
    idx[k] = v;
    stride *= shape[k];
  }
  return idx;
}

Value KernelEmitter::extentOf(OpBuilder &b, Location loc, Value v, size_t dim) {
  // emitSInt makes an integer dim a constant.
  return emitSInt(b, loc, symbolicShapeOf(v.getType())[dim], variables);
}

Value KernelEmitter::constValue(OpBuilder &b, Location loc, ConstOp c) {
  auto variable = dyn_cast<SymIntAttr>(c.getValue());
  if (!variable)
    return arith::ConstantOp::create(b, loc, constAttr(b, c));
  // A Variable's value, in the const's (integer) type.
  Type s = signless(c.getType().getElementType());
  Value v = arith::IndexCastOp::create(
      b, loc, b.getI64Type(), emitSInt(b, loc, variable.getValue(), variables));
  if (isa<FloatType>(s))
    return arith::SIToFPOp::create(b, loc, s, v);
  if (s.isInteger(1))
    return arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, v,
        arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0));
  unsigned width = s.getIntOrFloatBitWidth();
  if (width < 64)
    return arith::TruncIOp::create(b, loc, s, v);
  return v;
}

Value KernelEmitter::zeroIndex(OpBuilder &b, Location loc) {
  if (zeroIdx)
    return zeroIdx;
  return arith::ConstantIndexOp::create(b, loc, 0);
}

FailureOr<Value> KernelEmitter::evaluate(OpBuilder &b, Value root,
                                         ValueRange idx) {
  return evaluateIn(b, root, idx, /*laneMode=*/false);
}

FailureOr<Value> KernelEmitter::evaluateIn(OpBuilder &b, Value root,
                                           ValueRange idx, bool laneMode) {
  auto find = [&](Value v) {
    return laneMode ? lookupLanes(v, idx) : lookup(v, idx);
  };
  // Post-order over the expression: a value is pushed once to expand its
  // operands and computed when it is on top again with all of them known.
  SmallVector<std::pair<Value, bool>> stack{{root, false}};
  while (!stack.empty()) {
    auto [v, expanded] = stack.back();
    if (find(v)) {
      stack.pop_back();
      continue;
    }
    // A row-cached value a pass before this one stored.
    if (laneMode && rowCacheFilled.contains(v) && inCurrentRow(idx)) {
      Location loc = v.getLoc();
      Value loaded = vector::LoadOp::create(
          b, loc, VectorType::get({lanes->width}, signless(elementOf(v))),
          rowCache.lookup(v), ValueRange{idx[lanes->axis]});
      scopes.back().lanes[v].push_back(
          {SmallVector<Value, 4>(idx.begin(), idx.end()), loaded});
      stack.pop_back();
      continue;
    }
    Operation *op = v.getDefiningOp();
    if (!op)
      return emitError(v.getLoc(), "kernel value is not computed by an op");
    if (!expanded && !isEvaluationLeaf(op)) {
      stack.back().second = true;
      // Reversed, so that operands are computed left to right.
      for (Value operand : llvm::reverse(op->getOperands()))
        if (!find(operand))
          stack.push_back({operand, false});
      continue;
    }
    FailureOr<Value> result = failure();
    if (isa<LoadOp, ViewOp>(op)) {
      result = viewLeaf(b, op, idx, laneMode);
    } else if (isEvaluationLeaf(op)) {
      result = laneMode ? laneLeaf(b, op, idx) : leaf(b, op, idx);
    } else {
      SmallVector<Value> args;
      for (Value operand : op->getOperands())
        args.push_back(find(operand));
      result = laneMode ? laneOp(b, op, args) : scalarOp(b, op, args);
    }
    if (failed(result))
      return failure();
    if (laneMode && fillRowCache && rowCache.count(v) &&
        !rowCacheFilled.contains(v) && inCurrentRow(idx)) {
      vector::StoreOp::create(b, v.getLoc(),
                              broadcastLanes(b, v.getLoc(), *result),
                              rowCache.lookup(v), ValueRange{idx[lanes->axis]});
      rowCacheFilling.insert(v);
    }
    (laneMode ? scopes.back().lanes : scopes.back().scalar)[v].push_back(
        {SmallVector<Value, 4>(idx.begin(), idx.end()), *result});
    stack.pop_back();
  }
  return find(root);
}

FailureOr<Value> KernelEmitter::evaluateAt(OpBuilder &b, Value v,
                                           ValueRange idx) {
  scopes.emplace_back();
  FailureOr<Value> x = evaluate(b, v, idx);
  scopes.pop_back();
  return x;
}
