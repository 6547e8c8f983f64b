//===- LazyToLoops.cpp - lazy.kernel to scf loops over memrefs ------------===//
//
// convert-lazy-to-loops: every lazy.kernel becomes a func.func over
// memrefs. Rules:
//   - each store is an scf.parallel over its view's shape; its value is
//     computed per element and stored at the index its ShapeTracker gives
//     (guarded by the view's mask);
//   - a load reads through its ShapeTracker (IndexExpr.h); outside the mask
//     it yields 0, reading a clamped index so nothing is read out of bounds;
//   - a const view is an arith.constant, 0 outside its mask;
//   - a reduce is an scf.for nest over its axes with an accumulator (0 for
//     sum, the dtype's lowest value for max);
//   - elementwise ops become arith/math ops chosen by dtype and tinygrad
//     signedness: C division and remainder (a zero divisor gives 0 and
//     INT_MIN / -1 wraps, as in the reference interpreter, so no kernel can
//     trap), MAX as `a > b ? a : b`, bool ADD/MUL as or/and, CAST by source
//     and destination kinds; THREEFRY as tinygrad's 32-bit rounds.
// Each node is computed once per index vector (memoized per loop scope).
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/LazyToLoops/IndexExpr.h"
#include "lazy/Conversion/Passes.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_CONVERTLAZYTOLOOPS
#include "lazy/Conversion/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;

namespace {

/// The signless type arith computes with.
Type signless(Type t) {
  if (auto i = dyn_cast<IntegerType>(t))
    return IntegerType::get(t.getContext(), i.getWidth());
  return t;
}

bool isUnsignedInt(Type t) {
  auto i = dyn_cast<IntegerType>(t);
  return i && (i.isUnsigned() || i.getWidth() == 1);
}

Type elementOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

TypedAttr zeroAttr(Builder &b, Type t) {
  Type s = signless(t);
  if (isa<FloatType>(s))
    return b.getFloatAttr(s, 0.0);
  return b.getIntegerAttr(s, 0);
}

/// The value of a const op as an attribute of the signless type.
TypedAttr constAttr(Builder &b, ConstOp c) {
  Type s = signless(c.getType().getElementType());
  if (auto f = dyn_cast<FloatAttr>(c.getValue()))
    return b.getFloatAttr(s, f.getValue());
  auto i = cast<IntegerAttr>(c.getValue());
  return b.getIntegerAttr(s, i.getValue());
}

/// The accumulator's start: 0 for sum, the lowest value for max.
TypedAttr reduceInit(Builder &b, Type t, bool isSum) {
  Type s = signless(t);
  if (isSum)
    return zeroAttr(b, t);
  if (auto f = dyn_cast<FloatType>(s))
    return b.getFloatAttr(
        s, APFloat::getInf(f.getFloatSemantics(), /*Negative=*/true));
  unsigned width = cast<IntegerType>(s).getWidth();
  return b.getIntegerAttr(s, isUnsignedInt(t) ? APInt::getZero(width)
                                              : APInt::getSignedMinValue(width));
}

class KernelLowering {
public:
  KernelLowering(KernelOp kernel, func::FuncOp func)
      : kernel(kernel), func(func) {}

  LogicalResult run();

private:
  FailureOr<Value> evaluate(OpBuilder &b, Value v, ValueRange idx);
  FailureOr<Value> scalarOp(OpBuilder &b, Operation *op,
                            ArrayRef<Value> args);
  Value maxOf(OpBuilder &b, Location loc, Value a, Value c, Type t);
  Value addOf(OpBuilder &b, Location loc, Value a, Value c, Type t);
  Value mulOf(OpBuilder &b, Location loc, Value a, Value c, Type t);

  /// Computed (value, index vector) pairs, one map per loop scope.
  using Memo = DenseMap<Value, SmallVector<std::pair<SmallVector<Value, 4>,
                                                      Value>>>;
  SmallVector<Memo> scopes;
  KernelOp kernel;
  func::FuncOp func;
  IRMapping buffers; // kernel buffer argument -> memref argument
};

Value KernelLowering::addOf(OpBuilder &b, Location loc, Value a, Value c,
                            Type t) {
  if (isa<FloatType>(signless(t)))
    return arith::AddFOp::create(b, loc, a, c);
  if (t.isInteger(1))
    return arith::OrIOp::create(b, loc, a, c);
  return arith::AddIOp::create(b, loc, a, c);
}

Value KernelLowering::mulOf(OpBuilder &b, Location loc, Value a, Value c,
                            Type t) {
  if (isa<FloatType>(signless(t)))
    return arith::MulFOp::create(b, loc, a, c);
  if (t.isInteger(1))
    return arith::AndIOp::create(b, loc, a, c);
  return arith::MulIOp::create(b, loc, a, c);
}

/// C division or remainder without its traps, as the reference interpreter
/// defines them: a zero divisor gives 0, and INT_MIN / -1 wraps (the
/// divisor -1 is replaced by 1, so the quotient is INT_MIN and the
/// remainder 0).
Value safeDivRem(OpBuilder &b, Location loc, Value a, Value d, Type t,
                 bool isDiv) {
  Type s = signless(t);
  unsigned width = cast<IntegerType>(s).getWidth();
  auto cst = [&](const APInt &v) {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(s, v))
        .getResult();
  };
  Value zero = cst(APInt::getZero(width)), one = cst(APInt(width, 1));
  Value isZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, d, zero);
  Value bad = isZero;
  if (!isUnsignedInt(t)) {
    Value isMin = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a,
                                        cst(APInt::getSignedMinValue(width)));
    Value isMinusOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                             d, cst(APInt::getAllOnes(width)));
    bad = arith::OrIOp::create(
        b, loc, isZero, arith::AndIOp::create(b, loc, isMin, isMinusOne));
  }
  Value safe = arith::SelectOp::create(b, loc, bad, one, d);
  Value r;
  if (isDiv)
    r = isUnsignedInt(t) ? arith::DivUIOp::create(b, loc, a, safe).getResult()
                         : arith::DivSIOp::create(b, loc, a, safe).getResult();
  else
    r = isUnsignedInt(t) ? arith::RemUIOp::create(b, loc, a, safe).getResult()
                         : arith::RemSIOp::create(b, loc, a, safe).getResult();
  return arith::SelectOp::create(b, loc, isZero, zero, r);
}

/// tinygrad's threefry2x32 on a ui64 counter and key (20 rounds of 32-bit
/// add/rotate/xor; the key's low 32 bits), as the interpreter computes it.
Value threefry(OpBuilder &b, Location loc, Value x, Value seed) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto c32 = [&](uint32_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(v)))
        .getResult();
  };
  auto add = [&](Value a, Value c) {
    return arith::AddIOp::create(b, loc, a, c).getResult();
  };
  Value thirtyTwo = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(32));
  Value x0 = arith::TruncIOp::create(b, loc, i32, x);
  Value x1 = arith::TruncIOp::create(
      b, loc, i32, arith::ShRUIOp::create(b, loc, x, thirtyTwo));
  Value key = arith::TruncIOp::create(b, loc, i32, seed);
  Value ks[3] = {c32(0), arith::XOrIOp::create(b, loc, key, c32(0x1BD11BDA)),
                 key};
  static const unsigned rotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  Value r0 = add(x0, ks[2]), r1 = add(x1, ks[0]);
  for (unsigned i = 0; i < 5; ++i) {
    for (unsigned r : rotations[i % 2]) {
      r0 = add(r0, r1);
      Value rot = arith::OrIOp::create(
          b, loc, arith::ShLIOp::create(b, loc, r1, c32(r)),
          arith::ShRUIOp::create(b, loc, r1, c32(32 - r)));
      r1 = arith::XOrIOp::create(b, loc, r0, rot);
    }
    r0 = add(r0, ks[i % 3]);
    r1 = add(add(r1, ks[(i + 1) % 3]), c32(i + 1));
  }
  Value hi = arith::ShLIOp::create(
      b, loc, arith::ExtUIOp::create(b, loc, i64, r1), thirtyTwo);
  return arith::OrIOp::create(b, loc, hi,
                              arith::ExtUIOp::create(b, loc, i64, r0));
}

Value KernelLowering::maxOf(OpBuilder &b, Location loc, Value a, Value c,
                            Type t) {
  Value greater =
      isa<FloatType>(signless(t))
          ? arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, a, c)
                .getResult()
          : arith::CmpIOp::create(b, loc,
                                  isUnsignedInt(t) ? arith::CmpIPredicate::ugt
                                                   : arith::CmpIPredicate::sgt,
                                  a, c)
                .getResult();
  return arith::SelectOp::create(b, loc, greater, a, c);
}

FailureOr<Value> KernelLowering::scalarOp(OpBuilder &b, Operation *op,
                                          ArrayRef<Value> x) {
  Location loc = op->getLoc();
  // tinygrad's dtype of the operands (WHERE: of the values).
  Type t = elementOf(op->getOperand(op->getNumOperands() - 1));
  bool isFloat = isa<FloatType>(signless(t));
  bool isUnsigned = isUnsignedInt(t);
  using Pred = arith::CmpIPredicate;
  return llvm::TypeSwitch<Operation *, FailureOr<Value>>(op)
      .Case([&](Exp2Op) { return math::Exp2Op::create(b, loc, x[0]).getResult(); })
      .Case([&](Log2Op) { return math::Log2Op::create(b, loc, x[0]).getResult(); })
      .Case([&](SinOp) { return math::SinOp::create(b, loc, x[0]).getResult(); })
      .Case([&](SqrtOp) { return math::SqrtOp::create(b, loc, x[0]).getResult(); })
      .Case([&](RecipOp) -> Value {
        Value one = arith::ConstantOp::create(b, loc, b.getFloatAttr(t, 1.0));
        return arith::DivFOp::create(b, loc, one, x[0]);
      })
      .Case([&](NegOp) -> Value {
        if (isFloat)
          return arith::NegFOp::create(b, loc, x[0]);
        Value zero = arith::ConstantOp::create(b, loc, zeroAttr(b, t));
        return arith::SubIOp::create(b, loc, zero, x[0]);
      })
      .Case([&](AddOp) { return addOf(b, loc, x[0], x[1], t); })
      .Case([&](MulOp) { return mulOf(b, loc, x[0], x[1], t); })
      .Case([&](MaxOp) { return maxOf(b, loc, x[0], x[1], t); })
      .Case<IdivOp, ModOp>([&](Operation *o) -> Value {
        return safeDivRem(b, loc, x[0], x[1], t, isa<IdivOp>(o));
      })
      .Case([&](XorOp) { return arith::XOrIOp::create(b, loc, x[0], x[1]).getResult(); })
      .Case([&](OrOp) { return arith::OrIOp::create(b, loc, x[0], x[1]).getResult(); })
      .Case([&](AndOp) { return arith::AndIOp::create(b, loc, x[0], x[1]).getResult(); })
      .Case([&](ShlOp) { return arith::ShLIOp::create(b, loc, x[0], x[1]).getResult(); })
      .Case([&](ShrOp) -> Value {
        return isUnsigned ? arith::ShRUIOp::create(b, loc, x[0], x[1]).getResult()
                          : arith::ShRSIOp::create(b, loc, x[0], x[1]).getResult();
      })
      .Case([&](CmpltOp) -> Value {
        Type operand = elementOf(op->getOperand(0));
        if (isa<FloatType>(signless(operand)))
          return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x[0], x[1]);
        return arith::CmpIOp::create(b, loc,
                                     isUnsignedInt(operand) ? Pred::ult : Pred::slt,
                                     x[0], x[1]);
      })
      .Case([&](CmpneOp) -> Value {
        if (isa<FloatType>(signless(elementOf(op->getOperand(0)))))
          return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x[0], x[1]);
        return arith::CmpIOp::create(b, loc, Pred::ne, x[0], x[1]);
      })
      .Case([&](ThreefryOp) { return threefry(b, loc, x[0], x[1]); })
      .Case([&](WhereOp) {
        return arith::SelectOp::create(b, loc, x[0], x[1], x[2]).getResult();
      })
      .Case([&](MulaccOp) {
        return addOf(b, loc, mulOf(b, loc, x[0], x[1], t), x[2], t);
      })
      .Case([&](BitcastOp o) -> Value {
        return arith::BitcastOp::create(b, loc, signless(o.getType().getElementType()), x[0]);
      })
      .Case([&](CastOp o) -> FailureOr<Value> {
        Type from = elementOf(o.getSrc()), to = o.getType().getElementType();
        Type sTo = signless(to);
        bool fromFloat = isa<FloatType>(signless(from));
        bool toFloat = isa<FloatType>(sTo);
        if (from == to)
          return x[0];
        if (to.isInteger(1)) {
          Value zero = arith::ConstantOp::create(b, loc, zeroAttr(b, from));
          if (fromFloat)
            return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x[0], zero).getResult();
          return arith::CmpIOp::create(b, loc, Pred::ne, x[0], zero).getResult();
        }
        if (fromFloat && toFloat) {
          unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
          if (fw < tw)
            return arith::ExtFOp::create(b, loc, sTo, x[0]).getResult();
          if (fw > tw || from != to)
            return arith::TruncFOp::create(b, loc, sTo, x[0]).getResult();
          return x[0];
        }
        if (fromFloat)
          return isUnsignedInt(to) ? arith::FPToUIOp::create(b, loc, sTo, x[0]).getResult()
                                   : arith::FPToSIOp::create(b, loc, sTo, x[0]).getResult();
        if (toFloat)
          return isUnsignedInt(from) ? arith::UIToFPOp::create(b, loc, sTo, x[0]).getResult()
                                     : arith::SIToFPOp::create(b, loc, sTo, x[0]).getResult();
        unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
        if (fw < tw)
          return isUnsignedInt(from) ? arith::ExtUIOp::create(b, loc, sTo, x[0]).getResult()
                                     : arith::ExtSIOp::create(b, loc, sTo, x[0]).getResult();
        if (fw > tw)
          return arith::TruncIOp::create(b, loc, sTo, x[0]).getResult();
        return x[0]; // same width, other signedness: same bits
      })
      .Default([&](Operation *o) -> FailureOr<Value> {
        return o->emitOpError("is not supported by convert-lazy-to-loops yet");
      });
}

FailureOr<Value> KernelLowering::evaluate(OpBuilder &b, Value v,
                                          ValueRange idx) {
  for (Memo &memo : llvm::reverse(scopes)) {
    auto it = memo.find(v);
    if (it == memo.end())
      continue;
    for (auto &[key, value] : it->second)
      if (llvm::equal(key, idx))
        return value;
  }
  Operation *op = v.getDefiningOp();
  Location loc = op->getLoc();
  Type t = elementOf(v);
  Value result;
  if (auto load = dyn_cast<LoadOp>(op)) {
    Value memref = buffers.lookup(load.getBuffer());
    IndexAndValid at =
        emitIndexAndValid(b, loc, load.getView().getTracker(), idx);
    Value index = at.index;
    if (at.valid) {
      Value zeroIdx = arith::ConstantIndexOp::create(b, loc, 0);
      index = arith::SelectOp::create(b, loc, at.valid, index, zeroIdx);
    }
    result = memref::LoadOp::create(b, loc, memref, index);
    if (at.valid) {
      Value zero = arith::ConstantOp::create(b, loc, zeroAttr(b, t));
      result = arith::SelectOp::create(b, loc, at.valid, result, zero);
    }
  } else if (auto view = dyn_cast<ViewOp>(op)) {
    auto c = view.getSrc().getDefiningOp<ConstOp>();
    if (!c)
      return view.emitOpError("in a kernel must view a lazy.const");
    result = arith::ConstantOp::create(b, loc, constAttr(b, c));
    IndexAndValid at =
        emitIndexAndValid(b, loc, view.getTracker().getTracker(), idx);
    if (at.valid) {
      Value zero = arith::ConstantOp::create(b, loc, zeroAttr(b, t));
      result = arith::SelectOp::create(b, loc, at.valid, result, zero);
    }
  } else if (isa<ReduceSumOp, ReduceMaxOp>(op)) {
    bool isSum = isa<ReduceSumOp>(op);
    ArrayRef<int64_t> axes = isSum ? cast<ReduceSumOp>(op).getAxes()
                                   : cast<ReduceMaxOp>(op).getAxes();
    Value input = op->getOperand(0);
    ArrayRef<int64_t> inShape =
        cast<RankedTensorType>(input.getType()).getShape();
    Value init = arith::ConstantOp::create(b, loc, reduceInit(b, t, isSum));
    SmallVector<Value> inner(idx.begin(), idx.end());
    // One loop per reduced axis, nested; the innermost body adds one
    // element to the accumulator.
    std::function<FailureOr<Value>(OpBuilder &, size_t, Value)> loop =
        [&](OpBuilder &lb, size_t k, Value acc) -> FailureOr<Value> {
      if (k == axes.size()) {
        scopes.emplace_back();
        FailureOr<Value> x = evaluate(lb, input, inner);
        scopes.pop_back();
        if (failed(x))
          return failure();
        return isSum ? addOf(lb, loc, acc, *x, t) : maxOf(lb, loc, acc, *x, t);
      }
      Value lo = arith::ConstantIndexOp::create(lb, loc, 0);
      Value hi = arith::ConstantIndexOp::create(lb, loc, inShape[axes[k]]);
      Value one = arith::ConstantIndexOp::create(lb, loc, 1);
      bool failedInside = false;
      auto forOp = scf::ForOp::create(
          lb, loc, lo, hi, one, ValueRange{acc},
          [&](OpBuilder &fb, Location, Value iv, ValueRange iter) {
            inner[axes[k]] = iv;
            FailureOr<Value> next = loop(fb, k + 1, iter[0]);
            if (failed(next)) {
              failedInside = true;
              scf::YieldOp::create(fb, loc, iter[0]);
              return;
            }
            scf::YieldOp::create(fb, loc, *next);
          });
      if (failedInside)
        return failure();
      return forOp.getResult(0);
    };
    FailureOr<Value> reduced = loop(b, 0, init);
    if (failed(reduced))
      return failure();
    result = *reduced;
  } else {
    SmallVector<Value> args;
    for (Value operand : op->getOperands()) {
      FailureOr<Value> x = evaluate(b, operand, idx);
      if (failed(x))
        return failure();
      args.push_back(*x);
    }
    FailureOr<Value> r = scalarOp(b, op, args);
    if (failed(r))
      return failure();
    result = *r;
  }
  scopes.back()[v].push_back(
      {SmallVector<Value, 4>(idx.begin(), idx.end()), result});
  return result;
}

LogicalResult KernelLowering::run() {
  Block &body = kernel.getBody().front();
  Block *entry = func.addEntryBlock();
  for (auto [arg, memrefArg] :
       llvm::zip(body.getArguments(), entry->getArguments()))
    buffers.map(arg, memrefArg);
  OpBuilder b = OpBuilder::atBlockEnd(entry);
  for (Operation &op : body) {
    auto store = dyn_cast<StoreOp>(op);
    if (!store)
      continue;
    Location loc = store.getLoc();
    st::ShapeTracker view = store.getView().getTracker();
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t dim : view.shape()) {
      lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
      ubs.push_back(arith::ConstantIndexOp::create(b, loc, dim));
      steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
    }
    LogicalResult status = success();
    auto storeAt = [&](OpBuilder &pb, ValueRange ivs) {
      scopes.assign(1, Memo());
      FailureOr<Value> value = evaluate(pb, store.getValue(), ivs);
      if (failed(value)) {
        status = failure();
        return;
      }
      IndexAndValid at = emitIndexAndValid(pb, loc, view, ivs);
      Value memref = buffers.lookup(store.getBuffer());
      if (!at.valid) {
        memref::StoreOp::create(pb, loc, *value, memref, at.index);
        return;
      }
      scf::IfOp::create(pb, loc, at.valid, [&](OpBuilder &ib, Location) {
        memref::StoreOp::create(ib, loc, *value, memref, at.index);
        scf::YieldOp::create(ib, loc);
      });
    };
    if (view.shape().empty()) {
      storeAt(b, {});
    } else {
      scf::ParallelOp::create(b, loc, lbs, ubs, steps,
                              [&](OpBuilder &pb, Location, ValueRange ivs) {
                                storeAt(pb, ivs);
                              });
    }
    if (failed(status))
      return failure();
  }
  func::ReturnOp::create(b, kernel.getLoc());
  return success();
}

MemRefType memrefOf(Type bufferType) {
  auto buffer = cast<BufferType>(bufferType);
  return MemRefType::get({buffer.getSize()},
                         signless(buffer.getElementType()));
}

/// Kernels take any rank-1 unit-stride memref, so that a buffer view at an
/// offset (tinygrad's sub-buffer) is passed without a copy.
MemRefType kernelMemrefOf(Type bufferType) {
  MemRefType plain = memrefOf(bufferType);
  return MemRefType::get(
      plain.getShape(), plain.getElementType(),
      StridedLayoutAttr::get(plain.getContext(), ShapedType::kDynamic, {1}));
}

/// Rewrites a scheduled function onto memrefs: buffers are memrefs,
/// lazy.alloc a memref.alloc, a launch a call of the lowered kernel (its
/// results are the output memrefs), a copy a memref.copy (one address space
/// on the CPU), an empty item nothing.
LogicalResult lowerScheduledFunction(func::FuncOp func) {
  if (func.isExternal())
    return success();
  Block &body = func.getBody().front();
  for (BlockArgument arg : body.getArguments())
    if (isa<BufferType>(arg.getType()))
      arg.setType(memrefOf(arg.getType()));
  IRMapping map;
  SmallVector<Operation *> dead;
  for (Operation &op : llvm::make_early_inc_range(body)) {
    OpBuilder b(&op);
    Location loc = op.getLoc();
    auto lookup = [&](Value v) { return map.lookupOrDefault(v); };
    if (auto alloc = dyn_cast<AllocOp>(op)) {
      map.map(alloc.getResult(),
              memref::AllocOp::create(b, loc, memrefOf(alloc.getType())));
    } else if (auto sub = dyn_cast<SubAllocOp>(op)) {
      // (Arguments are memrefs already: compare the lowered types.)
      Value base = lookup(sub.getBase());
      Type element = signless(sub.getType().getElementType());
      int64_t itemSize =
          std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
      if (cast<MemRefType>(base.getType()).getElementType() != element ||
          sub.getOffset() % itemSize != 0)
        return sub.emitOpError("of another dtype is not lowered to loops "
                               "yet");
      // The same memory, `offset` bytes in: a strided view of the base.
      int64_t size = sub.getType().getSize();
      int64_t baseOffset = 0;
      if (auto strided = dyn_cast<StridedLayoutAttr>(
              cast<MemRefType>(base.getType()).getLayout()))
        if (strided.getOffset() == ShapedType::kDynamic)
          return sub.emitOpError("of a buffer at an unknown offset is not "
                                 "lowered to loops yet");
        else
          baseOffset = strided.getOffset();
      int64_t offset = baseOffset + sub.getOffset() / itemSize;
      auto to = MemRefType::get(
          {size}, signless(sub.getType().getElementType()),
          StridedLayoutAttr::get(b.getContext(), offset, {1}));
      map.map(sub.getResult(),
              memref::ReinterpretCastOp::create(
                  b, loc, to, base, offset, ArrayRef<int64_t>{size},
                  ArrayRef<int64_t>{1}));
    } else if (auto launch = dyn_cast<LaunchOp>(op)) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          launch, launch.getKernelAttr());
      if (!callee)
        return launch.emitOpError("calls a kernel that was not lowered");
      SmallVector<Value> args;
      for (auto [v, param] :
           llvm::zip(launch->getOperands(), callee.getArgumentTypes())) {
        Value m = lookup(v);
        if (m.getType() != param)
          m = memref::CastOp::create(b, loc, param, m);
        args.push_back(m);
      }
      func::CallOp::create(b, loc, launch.getKernel(), TypeRange{}, args);
      for (auto [result, out] : llvm::zip(launch.getResults(), launch.getOuts()))
        map.map(result, lookup(out));
    } else if (auto ext = dyn_cast<ExtOp>(op)) {
      StringRef kind = ext.getKind();
      if (kind == "copy") {
        memref::CopyOp::create(b, loc, lookup(ext.getIns()[0]),
                               lookup(ext.getOuts()[0]));
      } else if (kind == "empty") {
        // tinygrad leaves EMPTY uninitialized; zeros are one of its valid
        // contents and make runs reproducible (the interpreter agrees).
        Value out = lookup(ext.getOuts()[0]);
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
      } else if (kind == "custom")
        return ext.emitOpError("calls a host function that cannot be "
                               "lowered to loops");
      map.map(ext.getResult(0), lookup(ext.getOuts()[0]));
    } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (OpOperand &operand : ret->getOpOperands())
        operand.set(lookup(operand.get()));
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
      KernelLowering lowering(kernel, func);
      if (failed(lowering.run())) {
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
