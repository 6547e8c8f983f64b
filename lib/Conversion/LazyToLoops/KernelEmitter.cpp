//===- KernelEmitter.cpp - scalar code for one element of a kernel --------===//
//
// Rules (shared by every target):
//   - a load reads through its ShapeTracker (IndexExpr.h); outside the mask
//     it yields 0, reading a clamped index so nothing is read out of bounds;
//   - a const view is an arith.constant, 0 outside its mask;
//   - a reduce is an scf.for nest over its axes with an accumulator (0 for
//     sum, the dtype's lowest value for max), unless a target overrides it;
//     with reassociateSums (the CPU) float sums of at least
//     kReorderMinElements elements may reorder, integer max
//     uses maxsi/maxui, and float max is IEEE maximum in any order, run
//     again in index order where it gives a NaN or a zero (the only results
//     the order can change);
//   - a register tile's long float sums of products (those that may
//     reorder) contract into fused multiply-adds on the CPU, and with
//     setPrefetchSteps its vector loads that move a cache line or more
//     per reduce step are prefetched that many steps ahead;
//   - a sum over one axis of a const view whose validity is affine (a fused
//     arange, which tinygrad's linearizer folds too) is the const times the
//     number of valid elements, counted in closed form, where that product
//     has the bits the loop would give (integers; integral floats whose
//     partial sums are exact);
//   - elementwise ops become arith/math ops chosen by dtype and tinygrad
//     signedness: C division and remainder (a zero divisor gives 0 and
//     INT_MIN / -1 wraps, as in the reference interpreter, so no kernel can
//     trap), MAX as `a > b ? a : b`, bool ADD/MUL as or/and, CAST by source
//     and destination kinds; THREEFRY as tinygrad's 32-bit rounds.
// Each node is computed once per index vector (memoized per loop scope).
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/LazyToLoops/KernelEmitter.h"
#include "lazy/Conversion/LazyToLoops/IndexExpr.h"
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

Type mlir::lazy::signless(Type t) {
  if (auto i = dyn_cast<IntegerType>(t))
    return IntegerType::get(t.getContext(), i.getWidth());
  return t;
}

bool mlir::lazy::isUnsignedInt(Type t) {
  auto i = dyn_cast<IntegerType>(t);
  return i && (i.isUnsigned() || i.getWidth() == 1);
}

Type mlir::lazy::elementOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

TypedAttr mlir::lazy::zeroAttr(Builder &b, Type t) {
  Type s = signless(t);
  if (isa<FloatType>(s))
    return b.getFloatAttr(s, 0.0);
  return b.getIntegerAttr(s, 0);
}

namespace {

/// The value of a const op as an attribute of the signless type.
TypedAttr constAttr(Builder &b, ConstOp c) {
  Type s = signless(c.getType().getElementType());
  if (auto f = dyn_cast<FloatAttr>(c.getElementValue()))
    return b.getFloatAttr(s, f.getValue());
  auto i = cast<IntegerAttr>(c.getValue());
  return b.getIntegerAttr(s, i.getValue());
}

} // namespace

/// The accumulator's start: 0 for sum, the lowest value for max.
TypedAttr mlir::lazy::reduceInit(Builder &b, Type t, bool isSum) {
  Type s = signless(t);
  if (isSum)
    return zeroAttr(b, t);
  if (auto f = dyn_cast<FloatType>(s))
    return b.getFloatAttr(
        s, APFloat::getInf(f.getFloatSemantics(), /*Negative=*/true));
  unsigned width = cast<IntegerType>(s).getWidth();
  return b.getIntegerAttr(s, isUnsignedInt(t)
                                 ? APInt::getZero(width)
                                 : APInt::getSignedMinValue(width));
}

namespace {

/// Float adds and multiplies round on their own (no contraction into
/// fused multiply-adds): the reference interpreter rounds each op, and a
/// training step's NaN pattern (square roots of values near 0) changes
/// with a fused a*b+c. A matmul runs as fast without (bench/cpu_bench.py).
Value addOf(OpBuilder &b, Location loc, Value a, Value c, Type t,
            arith::FastMathFlags flags = arith::FastMathFlags::none) {
  if (isa<FloatType>(signless(t)))
    return arith::AddFOp::create(b, loc, a, c, flags);
  if (t.isInteger(1))
    return arith::OrIOp::create(b, loc, a, c);
  return arith::AddIOp::create(b, loc, a, c);
}

Value mulOf(OpBuilder &b, Location loc, Value a, Value c, Type t) {
  if (isa<FloatType>(signless(t)))
    return arith::MulFOp::create(b, loc, a, c);
  if (t.isInteger(1))
    return arith::AndIOp::create(b, loc, a, c);
  return arith::MulIOp::create(b, loc, a, c);
}

/// A shift as the reference interpreter defines it for every count: a count
/// outside [0, bits) (negative counts are large unsigned) shifts everything
/// out, giving 0, or the sign for an arithmetic right shift. arith's shifts
/// give poison there.
Value safeShift(OpBuilder &b, Location loc, Value a, Value count, bool left,
                bool isUnsigned) {
  Type type = a.getType();
  unsigned bits = type.getIntOrFloatBitWidth();
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
  };
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        count, constant(bits));
  Value shifted, outOfRange;
  if (left) {
    shifted = arith::ShLIOp::create(b, loc, a, count);
    outOfRange = constant(0);
  } else if (isUnsigned) {
    shifted = arith::ShRUIOp::create(b, loc, a, count);
    outOfRange = constant(0);
  } else {
    shifted = arith::ShRSIOp::create(b, loc, a, count);
    outOfRange = arith::ShRSIOp::create(b, loc, a, constant(bits - 1));
  }
  return arith::SelectOp::create(b, loc, inRange, shifted, outOfRange);
}

/// A float converted to an integer type as the reference interpreter (and
/// clang's x86 code for tinygrad's C casts) does: truncation, through a
/// 64-bit conversion for 64-bit and uint32 targets and a 32-bit one
/// otherwise, whose NaN and out-of-range results are that width's "integer
/// indefinite" INT_MIN, then narrowed. arith's fptosi/fptoui give poison
/// there, which LLVM may fold into anything.
Value floatToInt(OpBuilder &b, Location loc, Value x, Type to,
                 bool isUnsigned) {
  unsigned tw = to.getIntOrFloatBitWidth();
  bool wide = tw == 64 || (isUnsigned && tw == 32);
  unsigned width = wide ? 64 : 32;
  Type wideInt = b.getIntegerType(width);
  // Bounds compared in double, as the interpreter does (exact there).
  Value d = x;
  if (!x.getType().isF64())
    d = arith::ExtFOp::create(b, loc, b.getF64Type(), x);
  auto f64 = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
  };
  using FPred = arith::CmpFPredicate;
  double limit = wide ? 9223372036854775808.0 : 2147483648.0;
  Value above = arith::CmpFOp::create(b, loc, FPred::OGT, d, f64(-limit - 1));
  Value below = arith::CmpFOp::create(b, loc, FPred::OLT, d, f64(limit));
  Value inRange = arith::AndIOp::create(b, loc, above, below);
  Value converted = arith::FPToSIOp::create(b, loc, wideInt, x);
  Value indefinite = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(wideInt, APInt::getSignedMinValue(width)));
  Value result =
      arith::SelectOp::create(b, loc, inRange, converted, indefinite);
  if (isUnsigned && tw == 64) {
    // [2^63, 2^64) converts as unsigned.
    Value big = arith::AndIOp::create(
        b, loc, arith::CmpFOp::create(b, loc, FPred::OGE, d, f64(limit)),
        arith::CmpFOp::create(b, loc, FPred::OLT, d, f64(2 * limit)));
    result = arith::SelectOp::create(
        b, loc, big, arith::FPToUIOp::create(b, loc, wideInt, x), result);
  }
  if (tw < width)
    result = arith::TruncIOp::create(b, loc, to, result);
  return result;
}

/// double -> bfloat16, rounded once to nearest even. LLVM lowers this
/// truncation to a libcall (__truncdfbf2) that the host's runtime lacks, and
/// going through f32 with two roundings to nearest can land on a tie the
/// double was not on. Rounding to f32 *to odd* first (keep the truncation,
/// set its last bit when inexact) then to bfloat16 rounds correctly: f32
/// has more than 8 + 2 significand bits.
Value truncF64ToBF16(OpBuilder &b, Location loc, Value x) {
  Type i32 = b.getI32Type();
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(i32, v));
  };
  using FPred = arith::CmpFPredicate;
  // Each op gets its own statement: the order of argument evaluation is
  // unspecified, and the emitted order should not depend on the compiler.
  Value nearest = arith::TruncFOp::create(b, loc, b.getF32Type(), x);
  Value back = arith::ExtFOp::create(b, loc, b.getF64Type(), nearest);
  // UNE is also true for NaN; ORD keeps NaNs as they are.
  Value changed = arith::CmpFOp::create(b, loc, FPred::UNE, back, x);
  Value ordered = arith::CmpFOp::create(b, loc, FPred::ORD, x, x);
  Value inexact = arith::AndIOp::create(b, loc, changed, ordered);
  Value bits = arith::BitcastOp::create(b, loc, i32, nearest);
  Value lowBit = arith::AndIOp::create(b, loc, bits, constant(1));
  Value even = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lowBit,
                                     constant(0));
  // Sign-magnitude bits: one step down is toward zero, one up away from it.
  // An even nearest value that lies farther from zero than x steps down,
  // else up, to the odd neighbour on x's side.
  Value zero = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0.0));
  Value positive = arith::CmpFOp::create(b, loc, FPred::OGT, x, zero);
  Value above = arith::CmpFOp::create(b, loc, FPred::OGT, back, x);
  Value below = arith::CmpFOp::create(b, loc, FPred::OLT, back, x);
  Value fartherOut = arith::SelectOp::create(b, loc, positive, above, below);
  Value down = arith::SubIOp::create(b, loc, bits, constant(1));
  Value up = arith::AddIOp::create(b, loc, bits, constant(1));
  Value stepped = arith::SelectOp::create(b, loc, fartherOut, down, up);
  Value adjust = arith::AndIOp::create(b, loc, inexact, even);
  Value odd = arith::SelectOp::create(b, loc, adjust, stepped, bits);
  Value toOdd = arith::BitcastOp::create(b, loc, b.getF32Type(), odd);
  return arith::TruncFOp::create(b, loc, b.getBF16Type(), toOdd);
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

Value maxOf(OpBuilder &b, Location loc, Value a, Value c, Type t) {
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

} // namespace

/// Whether scalarOp has a vector form of `op`: not for the ops whose
/// expansion builds scalar constants or branches on values (division,
/// shifts, THREEFRY, float to integer casts), nor for 16-bit floats (their
/// software lowering is scalar).
static bool vectorizableOp(Operation *op) {
  if (isa<IdivOp, ModOp, ShlOp, ShrOp, ThreefryOp>(op))
    return false;
  auto sixteenBit = [](Value v) {
    Type t = signless(elementOf(v));
    return t.isBF16() || t.isF16();
  };
  if (llvm::any_of(op->getOperands(), sixteenBit) ||
      llvm::any_of(op->getResults(), sixteenBit))
    return false;
  if (auto cast = dyn_cast<CastOp>(op)) {
    Type to = signless(cast.getType().getElementType());
    if (isa<FloatType>(signless(elementOf(cast.getSrc()))) &&
        isa<IntegerType>(to) && !to.isInteger(1))
      return false;
  }
  return true;
}

/// A constant of `scalar`'s value, splat to `shape` when it is a vector.
static Value constantLike(OpBuilder &b, Location loc, TypedAttr scalar,
                          VectorType shape) {
  if (!shape)
    return arith::ConstantOp::create(b, loc, scalar);
  auto type = VectorType::get(shape.getShape(), scalar.getType());
  return arith::ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(type, scalar));
}

FailureOr<Value> KernelEmitter::scalarOp(OpBuilder &b, Operation *op,
                                         ArrayRef<Value> x) {
  Location loc = op->getLoc();
  // tinygrad's dtype of the operands (WHERE: of the values).
  Type t = elementOf(op->getOperand(op->getNumOperands() - 1));
  bool isFloat = isa<FloatType>(signless(t));
  bool isUnsigned = isUnsignedInt(t);
  using Pred = arith::CmpIPredicate;
  // Lane mode: every operand is a vector of the lanes.
  VectorType shape =
      x.empty() ? VectorType() : dyn_cast<VectorType>(x[0].getType());
  auto shaped = [&](Type scalar) -> Type {
    return shape ? VectorType::get(shape.getShape(), scalar) : scalar;
  };
  return llvm::TypeSwitch<Operation *, FailureOr<Value>>(op)
      .Case([&](Exp2Op) {
        return math::Exp2Op::create(b, loc, x[0]).getResult();
      })
      .Case([&](Log2Op) {
        return math::Log2Op::create(b, loc, x[0]).getResult();
      })
      .Case(
          [&](SinOp) { return math::SinOp::create(b, loc, x[0]).getResult(); })
      .Case([&](SqrtOp) {
        return math::SqrtOp::create(b, loc, x[0]).getResult();
      })
      .Case([&](RecipOp) -> Value {
        Value one = constantLike(b, loc, b.getFloatAttr(t, 1.0), shape);
        return arith::DivFOp::create(b, loc, one, x[0]);
      })
      .Case([&](NegOp) -> Value {
        if (isFloat)
          return arith::NegFOp::create(b, loc, x[0]);
        Value zero = constantLike(b, loc, zeroAttr(b, t), shape);
        return arith::SubIOp::create(b, loc, zero, x[0]);
      })
      .Case([&](AddOp) { return addOf(b, loc, x[0], x[1], t); })
      .Case([&](MulOp) { return mulOf(b, loc, x[0], x[1], t); })
      .Case([&](MaxOp) { return maxOf(b, loc, x[0], x[1], t); })
      .Case<IdivOp, ModOp>([&](Operation *o) -> Value {
        return safeDivRem(b, loc, x[0], x[1], t, isa<IdivOp>(o));
      })
      .Case([&](XorOp) {
        return arith::XOrIOp::create(b, loc, x[0], x[1]).getResult();
      })
      .Case([&](OrOp) {
        return arith::OrIOp::create(b, loc, x[0], x[1]).getResult();
      })
      .Case([&](AndOp) {
        return arith::AndIOp::create(b, loc, x[0], x[1]).getResult();
      })
      .Case([&](ShlOp) {
        return safeShift(b, loc, x[0], x[1], /*left=*/true, isUnsigned);
      })
      .Case([&](ShrOp) {
        return safeShift(b, loc, x[0], x[1], /*left=*/false, isUnsigned);
      })
      .Case([&](CmpltOp) -> Value {
        Type operand = elementOf(op->getOperand(0));
        if (isa<FloatType>(signless(operand)))
          return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x[0],
                                       x[1]);
        return arith::CmpIOp::create(
            b, loc, isUnsignedInt(operand) ? Pred::ult : Pred::slt, x[0], x[1]);
      })
      .Case([&](CmpneOp) -> Value {
        if (isa<FloatType>(signless(elementOf(op->getOperand(0)))))
          return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x[0],
                                       x[1]);
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
        return arith::BitcastOp::create(
            b, loc, shaped(signless(o.getType().getElementType())), x[0]);
      })
      .Case([&](CastOp o) -> FailureOr<Value> {
        Type from = elementOf(o.getSrc()), to = o.getType().getElementType();
        Type sTo = shaped(signless(to));
        bool fromFloat = isa<FloatType>(signless(from));
        bool toFloat = isa<FloatType>(signless(to));
        if (from == to)
          return x[0];
        if (to.isInteger(1)) {
          Value zero = constantLike(b, loc, zeroAttr(b, from), shape);
          if (fromFloat)
            return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE,
                                         x[0], zero)
                .getResult();
          return arith::CmpIOp::create(b, loc, Pred::ne, x[0], zero)
              .getResult();
        }
        if (fromFloat && toFloat) {
          unsigned fw = from.getIntOrFloatBitWidth(),
                   tw = to.getIntOrFloatBitWidth();
          if (fw < tw)
            return arith::ExtFOp::create(b, loc, sTo, x[0]).getResult();
          if (from.isF64() && to.isBF16())
            return truncF64ToBF16(b, loc, x[0]);
          if (fw > tw)
            return arith::TruncFOp::create(b, loc, sTo, x[0]).getResult();
          // half <-> bfloat16: same width, no direct conversion; f32 holds
          // both exactly, so going through it rounds once.
          Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x[0]);
          return arith::TruncFOp::create(b, loc, sTo, wide).getResult();
        }
        if (fromFloat)
          return floatToInt(b, loc, x[0], sTo, isUnsignedInt(to));
        if (toFloat)
          return isUnsignedInt(from)
                     ? arith::UIToFPOp::create(b, loc, sTo, x[0]).getResult()
                     : arith::SIToFPOp::create(b, loc, sTo, x[0]).getResult();
        unsigned fw = from.getIntOrFloatBitWidth(),
                 tw = to.getIntOrFloatBitWidth();
        if (fw < tw)
          return isUnsignedInt(from)
                     ? arith::ExtUIOp::create(b, loc, sTo, x[0]).getResult()
                     : arith::ExtSIOp::create(b, loc, sTo, x[0]).getResult();
        if (fw > tw)
          return arith::TruncIOp::create(b, loc, sTo, x[0]).getResult();
        return x[0]; // same width, other signedness: same bits
      })
      .Default([&](Operation *o) -> FailureOr<Value> {
        return o->emitOpError("cannot be lowered to a kernel yet");
      });
}

ArrayRef<int64_t> mlir::lazy::reduceAxes(Operation *reduce) {
  if (auto sum = dyn_cast<ReduceSumOp>(reduce))
    return sum.getAxes();
  return cast<ReduceMaxOp>(reduce).getAxes();
}

int64_t mlir::lazy::reducedElementCount(Operation *reduce) {
  // A symbolic dim counts its smallest value (the reorder thresholds must
  // hold at every launch); an integer dim's smallest value is itself.
  st::SymShape dims = symbolicShapeOf(reduce->getOperand(0).getType());
  int64_t count = 1;
  for (int64_t axis : reduceAxes(reduce)) {
    st::SInt least = dims[size_t(axis)].min();
    count *= least.isInt() ? std::max<int64_t>(least.getInt(), 0) : 0;
  }
  return count;
}

int64_t mlir::lazy::splitCount(Operation *reduce, ArrayRef<int64_t> unroll,
                               bool reassociateSums) {
  ArrayRef<int64_t> axes = reduceAxes(reduce);
  bool isFloat = isa<FloatType>(signless(elementOf(reduce->getResult(0))));
  if (!isa<ReduceSumOp>(reduce) || !reassociateSums || axes.empty() ||
      (isFloat && reducedElementCount(reduce) < kReorderMinElements))
    return 1;
  return unroll[axes.back()];
}

bool mlir::lazy::nextOffsets(MutableArrayRef<int64_t> offsets,
                             ArrayRef<int64_t> limits) {
  size_t i = offsets.size();
  while (i > 0 && ++offsets[i - 1] == limits[i - 1])
    offsets[--i] = 0;
  return i > 0;
}

Value KernelEmitter::combine(OpBuilder &b, Location loc, Value acc, Value x,
                             Type t, bool isSum, bool contract) {
  // acc + a*b may become one fused multiply-add where the target asks for
  // it (the GPU, as nvrtc's default --fmad=true does for tinygrad's CUDA
  // kernels; the CPU's register tiles of long sums): both ops get
  // `contract`, the product being used only here.
  if (isSum && contract && isa<FloatType>(signless(t)))
    if (auto mul = x.getDefiningOp<arith::MulFOp>(); mul && mul->use_empty()) {
      mul.setFastmath(arith::FastMathFlags::contract);
      return addOf(b, loc, acc, x, t, arith::FastMathFlags::contract);
    }
  return isSum ? addOf(b, loc, acc, x, t) : maxOf(b, loc, acc, x, t);
}

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
static bool isLeaf(Operation *op) {
  return isa<LoadOp, ViewOp, ReduceSumOp, ReduceMaxOp>(op);
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

std::vector<std::optional<int64_t>>
mlir::lazy::viewStridesOf(ShapeTrackerAttr view, bool ignoreValid) {
  if (view.isSymbolic())
    return integerStrides(view.getSymTracker(), ignoreValid);
  return view.getTracker().realStrides(ignoreValid);
}

SmallVector<sym::NodeP> mlir::lazy::kernelVariables(KernelOp kernel) {
  std::map<std::string, sym::NodeP> held;
  kernel.walk([&](Operation *op) { collectVariables(op, held); });
  std::map<std::string, sym::NodeP> unbound;
  for (auto &[key, node] : held) {
    sym::NodeP free = node->bound ? sym::unboundVar(node) : node;
    unbound.emplace(free->key(), free);
  }
  SmallVector<sym::NodeP> variables;
  for (auto &[key, node] : unbound)
    variables.push_back(node);
  return variables;
}

ArrayAttr mlir::lazy::kernelVariablesAttr(Builder &b,
                                          ArrayRef<sym::NodeP> variables) {
  SmallVector<Attribute> names;
  for (const sym::NodeP &v : variables)
    names.push_back(b.getStringAttr(st::variableText(v->key())));
  return b.getArrayAttr(names);
}

VariableValues mlir::lazy::variableValues(ArrayRef<sym::NodeP> variables,
                                          ValueRange args) {
  VariableValues values;
  for (auto [v, arg] : llvm::zip(variables, args))
    values[v->key()] = arg;
  return values;
}

/// The launch's lazy.var_vals value of the Variable named `text`
/// (`start_pos[1:8]`), or an error at the launch.
static FailureOr<int64_t> launchValue(LaunchOp launch, StringRef text) {
  auto given =
      launch->getAttrOfType<DictionaryAttr>(LazyDialect::kVarValuesAttrName);
  auto value = given ? given.getAs<IntegerAttr>(text) : IntegerAttr();
  if (!value)
    return launch.emitOpError("gives no value for the kernel's Variable ")
           << text << " (its " << LazyDialect::kVarValuesAttrName
           << " attribute)";
  return value.getInt();
}

FailureOr<SmallVector<int64_t>>
mlir::lazy::launchVariableValues(LaunchOp launch, Operation *callee) {
  SmallVector<int64_t> values;
  auto names =
      callee->getAttrOfType<ArrayAttr>(LazyDialect::kKernelVariablesAttrName);
  if (!names)
    return values;
  for (Attribute name : names) {
    FailureOr<int64_t> value =
        launchValue(launch, cast<StringAttr>(name).getValue());
    if (failed(value))
      return failure();
    values.push_back(*value);
  }
  return values;
}

LogicalResult mlir::lazy::verifyLaunchValues(ModuleOp module) {
  WalkResult walked = module.walk([&](LaunchOp launch) {
    auto kernel = SymbolTable::lookupNearestSymbolFrom<KernelOp>(
        launch, launch.getKernelAttr());
    if (!kernel)
      return WalkResult::advance();
    // The values by Variable name; each of the kernel's Variables needs
    // one.
    std::map<std::string, int64_t> values;
    for (const sym::NodeP &v : kernelVariables(kernel)) {
      std::string text = st::variableText(v->key());
      FailureOr<int64_t> value = launchValue(launch, text);
      if (failed(value))
        return WalkResult::interrupt();
      // The kernel was formed for the Variable's range only.
      if (*value < v->min.getInt() || !sym::truthy(sym::le(*value, v->max))) {
        launch.emitOpError("gives ")
            << text << " the value " << *value << ", outside its range";
        return WalkResult::interrupt();
      }
      values[v->name] = *value;
    }
    if (values.empty())
      return WalkResult::advance();
    std::string valuesText;
    for (auto &[name, v] : values)
      valuesText +=
          (valuesText.empty() ? "" : ", ") + name + "=" + std::to_string(v);
    WalkResult inKernel = kernel.walk([&](Operation *op) {
      ShapeTrackerAttr view;
      Value buffer;
      if (auto load = dyn_cast<LoadOp>(op))
        view = load.getView(), buffer = load.getBuffer();
      else if (auto store = dyn_cast<StoreOp>(op))
        view = store.getView(), buffer = store.getBuffer();
      if (!view || !view.isSymbolic())
        return WalkResult::advance();
      std::optional<st::ShapeTracker> at =
          st::trackerAt(view.getSymTracker(), values);
      std::string problem =
          at ? describeInvalidTracker(*at) : "it has no integer form";
      if (problem.empty()) {
        int64_t size = cast<BufferType>(buffer.getType()).getSize();
        if (auto range = validIndexRange(at->views.front());
            range && (range->first < 0 || range->second >= size))
          problem = "it reaches elements [" + std::to_string(range->first) +
                    ", " + std::to_string(range->second) + "] of a buffer of " +
                    std::to_string(size);
      }
      if (problem.empty())
        return WalkResult::advance();
      InFlightDiagnostic diag = launch.emitOpError("runs @")
                                << kernel.getSymName() << " at " << valuesText
                                << ", where a view of its " << op->getName()
                                << " is invalid: " << problem;
      diag.attachNote(op->getLoc()) << "the view";
      return WalkResult::interrupt();
    });
    return inKernel.wasInterrupted() ? WalkResult::interrupt()
                                     : WalkResult::advance();
  });
  return failure(walked.wasInterrupted());
}

Value KernelEmitter::zeroIndex(OpBuilder &b, Location loc) {
  if (zeroIdx)
    return zeroIdx;
  return arith::ConstantIndexOp::create(b, loc, 0);
}

/// The source index of a view that only expands and reorders its source:
/// one view without mask or offset whose every non-zero stride is the
/// contiguous stride of one source axis of the same size (the others of
/// size 1). Null entries where it is not.
static std::optional<SmallVector<int64_t>>
directAxes(const st::ShapeTracker &tracker, ArrayRef<int64_t> srcShape) {
  if (tracker.views.size() != 1)
    return std::nullopt;
  const st::View &v = tracker.views[0];
  if (v.mask || v.offset != 0)
    return std::nullopt;
  std::vector<int64_t> contiguous = st::stridesForShape(
      std::vector<int64_t>(srcShape.begin(), srcShape.end()));
  // For each source axis, the view axis that walks it (-1: size 1).
  SmallVector<int64_t> from(srcShape.size(), -1);
  for (size_t e = 0; e < v.shape.size(); ++e) {
    if (v.strides[e] == 0)
      continue;
    auto d =
        llvm::find_if(llvm::seq<size_t>(0, srcShape.size()), [&](size_t d) {
          return srcShape[d] > 1 && from[d] < 0 &&
                 contiguous[d] == v.strides[e] && srcShape[d] == v.shape[e];
        });
    if (*d == srcShape.size())
      return std::nullopt;
    from[*d] = int64_t(e);
  }
  for (size_t d = 0; d < srcShape.size(); ++d)
    if (srcShape[d] > 1 && from[d] < 0)
      return std::nullopt;
  return from;
}

FailureOr<Value> KernelEmitter::computedView(OpBuilder &b, ViewOp view,
                                             ValueRange idx) {
  Location loc = view.getLoc();
  Value src = view.getSrc();
  ArrayRef<int64_t> srcShape = cast<RankedTensorType>(src.getType()).getShape();
  bool symbolic =
      view.getTracker().isSymbolic() || hasSymbolicShape(src.getType());
  std::optional<SmallVector<int64_t>> from;
  if (!symbolic)
    from = directAxes(view.getTracker().getTracker(), srcShape);
  SmallVector<Value> srcIdx;
  Value valid;
  if (from) {
    for (int64_t e : *from)
      srcIdx.push_back(e < 0 ? zeroIndex(b, loc) : idx[size_t(e)]);
  } else {
    // The flat position in the source, row-major, clamped to 0 where the
    // view is invalid so that nothing reads out of bounds.
    IndexAndValid at = indexOf(b, loc, view.getTracker(), idx);
    Value flat = at.index;
    valid = at.valid;
    if (valid)
      flat = arith::SelectOp::create(b, loc, valid, flat, zeroIndex(b, loc));
    srcIdx =
        symbolic
            ? delinearizeSymIndex(b, loc, flat, symbolicShapeOf(src.getType()),
                                  variables, zeroIndex(b, loc))
            : delinearizeIndex(b, loc, flat, srcShape, zeroIndex(b, loc));
  }
  FailureOr<Value> value = evaluate(b, src, srcIdx);
  if (failed(value) || !valid)
    return value;
  Value zero = arith::ConstantOp::create(
      b, loc, zeroAttr(b, elementOf(view.getResult())));
  return arith::SelectOp::create(b, loc, valid, *value, zero).getResult();
}

/// The ops the stores' values are computed by, each once, walking an op's
/// operands where `descend(op)` (loads have none).
static SmallVector<Operation *>
opsReachedFrom(ArrayRef<StoreOp> stores,
               function_ref<bool(Operation *)> descend) {
  SmallVector<Operation *> reached;
  llvm::SmallPtrSet<Operation *, 32> seen;
  SmallVector<Value> stack;
  for (StoreOp store : stores)
    stack.push_back(store.getValue());
  while (!stack.empty()) {
    Operation *op = stack.pop_back_val().getDefiningOp();
    if (!op || !seen.insert(op).second)
      continue;
    reached.push_back(op);
    if (isa<LoadOp>(op) || !descend(op))
      continue;
    for (Value operand : op->getOperands())
      if (isa<RankedTensorType>(operand.getType()))
        stack.push_back(operand);
  }
  return reached;
}

std::optional<RowSplit> mlir::lazy::rowSplitOf(ArrayRef<StoreOp> stores) {
  if (stores.empty())
    return std::nullopt;
  StoreOp first = stores.front();
  ArrayRef<int64_t> shape = first.getView().getShape();
  if (llvm::any_of(stores, [](StoreOp s) { return s.getView().isSymbolic(); }))
    return std::nullopt;
  // The computed views the stores reach and the reduces on the way, not
  // looking into what a computed view reads (that is computed at its own
  // shape; its reduces hoist what they read, hoistInvariantViews).
  SmallVector<ViewOp> views;
  SmallVector<Operation *> reduces;
  for (Operation *op : opsReachedFrom(
           stores, [](Operation *op) { return !isComputedView(op); })) {
    if (isComputedView(op))
      views.push_back(cast<ViewOp>(op));
    else if (isa<ReduceSumOp, ReduceMaxOp>(op))
      reduces.push_back(op);
  }
  if (views.empty())
    return std::nullopt;
  RowSplit split;
  split.rowAxis.assign(shape.size(), false);
  for (ViewOp view : views) {
    ArrayRef<int64_t> viewShape = view.getTracker().getShape();
    if (viewShape.size() != shape.size() || view.getTracker().isSymbolic() ||
        hasSymbolicShape(view.getSrc().getType()))
      return std::nullopt;
    st::ShapeTracker tracker = view.getTracker().getTracker();
    std::vector<std::optional<int64_t>> strides =
        tracker.realStrides(/*ignoreValid=*/false);
    for (size_t d = 0; d < shape.size(); ++d)
      if (!strides[d] || *strides[d] != 0)
        split.rowAxis[d] = true;
  }
  // A row axis has the store's extent in every view, and no reduce runs
  // along it: then each view's value is one per row.
  for (ViewOp view : views) {
    ArrayRef<int64_t> viewShape = view.getTracker().getShape();
    for (size_t d = 0; d < shape.size(); ++d)
      if (split.rowAxis[d] && viewShape[d] != shape[d])
        return std::nullopt;
  }
  for (Operation *reduce : reduces) {
    if (cast<RankedTensorType>(reduce->getOperand(0).getType()).getRank() !=
        int64_t(shape.size()))
      return std::nullopt;
    for (int64_t axis : reduceAxes(reduce))
      if (split.rowAxis[size_t(axis)])
        return std::nullopt;
  }
  llvm::sort(views, [](ViewOp a, ViewOp b) {
    return a->isBeforeInBlock(b.getOperation());
  });
  split.views = std::move(views);
  split.elementReduces = !reduces.empty();
  return split;
}

/// Whether a reduce over `axes` of `in` computes the computed `view` its
/// input reads once before its loops (hoistInvariantViews): a view of the
/// input's shape, integer, constant and unmasked along every reduced axis.
static bool hoistsBeforeReduce(ViewOp view, RankedTensorType in,
                               ArrayRef<int64_t> axes) {
  if (view.getTracker().isSymbolic() ||
      view.getTracker().getShape() != in.getShape())
    return false;
  std::vector<std::optional<int64_t>> strides =
      view.getTracker().getTracker().realStrides(/*ignoreValid=*/false);
  return llvm::all_of(axes, [&](int64_t a) {
    return strides[size_t(a)] && *strides[size_t(a)] == 0;
  });
}

/// The lanes of `laneBytes` a row value's reduce runs in on the CPU
/// (KernelEmitter::setRowReduceLanes), or none: one axis of static extent
/// that the lanes divide, f32 or f64, a sum long enough to reorder, and no
/// reduce of its own in its input (that would be computed lane by lane;
/// the row values it reads, computed views, are scalars already).
static std::optional<LaneAxis> rowReduceLanes(Operation *op,
                                              int64_t laneBytes) {
  ArrayRef<int64_t> axes = reduceAxes(op);
  auto in = cast<RankedTensorType>(op->getOperand(0).getType());
  Type t = signless(elementOf(op->getResult(0)));
  if (laneBytes <= 0 || axes.size() != 1 || !in.hasStaticShape() ||
      !(t.isF32() || t.isF64()))
    return std::nullopt;
  if (isa<ReduceSumOp>(op) && reducedElementCount(op) < kReorderMinElements)
    return std::nullopt;
  int64_t width = laneBytes / int64_t(t.getIntOrFloatBitWidth() / 8);
  if (width < 2 || in.getDimSize(axes[0]) % width != 0)
    return std::nullopt;
  llvm::SmallPtrSet<Operation *, 32> seen;
  SmallVector<Value> stack{op->getOperand(0)};
  while (!stack.empty()) {
    Operation *def = stack.pop_back_val().getDefiningOp();
    if (!def || !seen.insert(def).second || isa<LoadOp>(def))
      continue;
    if (isa<ReduceSumOp, ReduceMaxOp>(def))
      return std::nullopt;
    if (auto view = dyn_cast<ViewOp>(def)) {
      // Lane mode reads a computed view only as the row value the reduce
      // hoists before its loop (hoistInvariantViews): one of the input's
      // shape, constant along the axis and unmasked there.
      if (isComputedView(view) && !hoistsBeforeReduce(view, in, axes))
        return std::nullopt;
      continue;
    }
    for (Value operand : def->getOperands())
      if (isa<RankedTensorType>(operand.getType()))
        stack.push_back(operand);
  }
  return LaneAxis{size_t(axes[0]), width};
}

/// The values computed elementwise from `root` (itself included), not
/// looking past loads, views and reduces.
static llvm::SmallPtrSet<Value, 16> elementwiseClosure(Value root) {
  llvm::SmallPtrSet<Value, 16> closure;
  SmallVector<Value> stack{root};
  while (!stack.empty()) {
    Value v = stack.pop_back_val();
    Operation *op = v.getDefiningOp();
    if (!op || isLeaf(op) || isa<ConstOp>(op) || !closure.insert(v).second)
      continue;
    for (Value operand : op->getOperands())
      if (isa<RankedTensorType>(operand.getType()))
        stack.push_back(operand);
  }
  return closure;
}

SmallVector<Value> mlir::lazy::rowCacheValues(ArrayRef<StoreOp> stores,
                                              LaneAxis lanes, int64_t laneBytes,
                                              int64_t maxBytes) {
  size_t laneAxis = lanes.axis;
  if (stores.empty())
    return {};
  StoreOp first = stores.front();
  ArrayRef<int64_t> shape = first.getView().getShape();
  Type element = elementOf(first.getValue());
  // The reduces of the row values (through the computed views) that run
  // along the lane axis alone, over values of the stores' shape.
  SmallVector<Operation *> reduces;
  for (Operation *op :
       opsReachedFrom(stores, [](Operation *) { return true; })) {
    if (isa<ReduceSumOp, ReduceMaxOp>(op)) {
      auto in = cast<RankedTensorType>(op->getOperand(0).getType());
      std::optional<LaneAxis> inLanes = rowReduceLanes(op, laneBytes);
      if (in.getShape() == shape && inLanes && inLanes->axis == laneAxis &&
          inLanes->width == lanes.width &&
          elementOf(op->getResult(0)) == element)
        reduces.push_back(op);
    }
  }
  if (reduces.empty())
    return {};
  // How many passes compute each value: the stores' and each reduce's.
  DenseMap<Value, int> passes, reducePasses;
  for (StoreOp store : stores)
    for (Value v : elementwiseClosure(store.getValue()))
      passes[v] = 1;
  for (Operation *reduce : reduces)
    for (Value v : elementwiseClosure(reduce->getOperand(0))) {
      ++passes[v];
      ++reducePasses[v];
    }
  auto shared = [&](Value v) {
    return passes.lookup(v) >= 2 && reducePasses.lookup(v) >= 1;
  };
  auto dear = [](Operation *op) {
    return isa<Exp2Op, Log2Op, SinOp, SqrtOp, RecipOp>(op);
  };
  SmallVector<Value> candidates;
  for (auto &[v, count] : passes) {
    (void)count;
    if (!shared(v) || elementOf(v) != element ||
        cast<RankedTensorType>(v.getType()).getShape() != shape ||
        llvm::any_of(v.getUsers(), [&](Operation *user) {
          return llvm::any_of(user->getResults(), shared);
        }))
      continue;
    // Whether the shared computation under v holds a dear op.
    bool isDear = false;
    llvm::SmallPtrSet<Value, 16> visited;
    SmallVector<Value> walk{v};
    while (!walk.empty() && !isDear) {
      Value w = walk.pop_back_val();
      if (!shared(w) || !visited.insert(w).second)
        continue;
      Operation *op = w.getDefiningOp();
      isDear = dear(op);
      for (Value operand : op->getOperands())
        walk.push_back(operand);
    }
    if (isDear)
      candidates.push_back(v);
  }
  // Body order: the lowering is deterministic, and within the byte limit
  // the first values are kept.
  llvm::sort(candidates, [](Value a, Value b) {
    return a.getDefiningOp()->isBeforeInBlock(b.getDefiningOp());
  });
  int64_t rowBytes =
      shape[laneAxis] * int64_t(element.getIntOrFloatBitWidth() / 8);
  SmallVector<Value> cached;
  for (Value v : candidates)
    if (int64_t(cached.size() + 1) * rowBytes <= maxBytes)
      cached.push_back(v);
  return cached;
}

LogicalResult KernelEmitter::hoistInvariantViews(OpBuilder &b,
                                                 Operation *reduce,
                                                 ValueRange idx) {
  // Only a kernel with computed views has anything to hoist, and the
  // lowerings set the zero index exactly then: the others (every kernel
  // of fusion=tinygrad) skip the walk.
  if (!zeroIdx)
    return success();
  ArrayRef<int64_t> axes = reduceAxes(reduce);
  auto inType = cast<RankedTensorType>(reduce->getOperand(0).getType());
  SmallVector<ViewOp> views;
  llvm::SmallPtrSet<Operation *, 32> seen;
  SmallVector<Value> stack{reduce->getOperand(0)};
  while (!stack.empty()) {
    Operation *op = stack.pop_back_val().getDefiningOp();
    if (!op || !seen.insert(op).second ||
        isa<ReduceSumOp, ReduceMaxOp, LoadOp>(op))
      continue;
    if (isComputedView(op)) {
      // The others (symbolic, varying along an axis) are computed at each
      // element instead.
      if (hoistsBeforeReduce(cast<ViewOp>(op), inType, axes))
        views.push_back(cast<ViewOp>(op));
      continue;
    }
    for (Value operand : op->getOperands())
      if (isa<RankedTensorType>(operand.getType()))
        stack.push_back(operand);
  }
  if (views.empty())
    return success();
  llvm::sort(views, [](ViewOp a, ViewOp b) {
    return a->isBeforeInBlock(b.getOperation());
  });
  SmallVector<Value> at(idx.begin(), idx.end());
  for (int64_t a : axes)
    at[size_t(a)] = zeroIndex(b, reduce->getLoc());
  for (ViewOp view : views)
    if (failed(evaluate(b, view.getResult(), at)))
      return failure();
  return success();
}

LogicalResult KernelEmitter::beginRow(OpBuilder &b, const RowSplit &split,
                                      ValueRange rowIdx) {
  rowScopes = 0;
  rowPasses = 0;
  rowCacheFilled.clear();
  currentRowIdx.assign(rowIdx.begin(), rowIdx.end());
  rowBlock = b.getInsertionBlock();
  hasNextRow = {};
  if (innermostRowAxis && !split.views.empty()) {
    Location loc = split.views.front()->getLoc();
    hasNextRow = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::slt, rowIdx[*innermostRowAxis],
        arith::ConstantIndexOp::create(b, loc, rowAxisExtent - 1));
  }
  beginElement();
  inRowValues = true;
  llvm::scope_exit done([&] { inRowValues = false; });
  for (ViewOp view : split.views)
    if (failed(evaluate(b, view.getResult(), rowIdx)))
      return failure();
  rowScopes = scopes.size();
  return success();
}

void KernelEmitter::endRow() {
  rowScopes = 0;
  beginElement();
}

bool KernelEmitter::inRowIndexSpace(ValueRange idx) const {
  return innermostRowAxis && idx.size() == currentRowIdx.size() &&
         idx[*innermostRowAxis] == currentRowIdx[*innermostRowAxis];
}

bool KernelEmitter::inCurrentRow(ValueRange idx) const {
  if (!lanes || idx.size() != currentRowIdx.size())
    return false;
  for (size_t d = 0; d < idx.size(); ++d)
    if (d != lanes->axis && idx[d] != currentRowIdx[d])
      return false;
  return true;
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
    if (!expanded && !isLeaf(op)) {
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
    } else if (isLeaf(op)) {
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

FailureOr<Value> KernelEmitter::evaluateReduceInput(OpBuilder &b,
                                                    Operation *reduce,
                                                    ValueRange inner) {
  return evaluateAt(b, reduce->getOperand(0), inner);
}

FailureOr<Value> KernelEmitter::evaluateReduceInputLanes(OpBuilder &b,
                                                         Operation *reduce,
                                                         ValueRange inner,
                                                         LaneAxis laneAxis) {
  return evaluateLanesAt(b, reduce->getOperand(0), inner, laneAxis);
}

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

FailureOr<Value> KernelEmitter::emitReduceLoops(OpBuilder &b, Operation *op,
                                                ValueRange idx, ReduceStep step,
                                                Value init) {
  Location loc = op->getLoc();
  Type t = elementOf(op->getResult(0));
  ArrayRef<int64_t> axes = reduceAxes(op);
  if (failed(hoistInvariantViews(b, op, idx)))
    return failure();
  Value acc = init ? init
                   : arith::ConstantOp::create(
                         b, loc, reduceInit(b, t, isa<ReduceSumOp>(op)));
  SmallVector<Value> inner(idx.begin(), idx.end());
  // One loop per reduced axis, nested (the nest is as deep as the number of
  // axes, not as the graph); the innermost body adds one element.
  SmallVector<scf::ForOp> loops;
  OpBuilder::InsertionGuard guard(b);
  for (int64_t axis : axes) {
    Value lo = arith::ConstantIndexOp::create(b, loc, 0);
    Value hi = extentOf(b, loc, op->getOperand(0), size_t(axis));
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ForOp::create(b, loc, lo, hi, one, ValueRange{acc});
    inner[axis] = loop.getInductionVar();
    acc = loop.getRegionIterArgs()[0];
    b.setInsertionPointToStart(loop.getBody());
    loops.push_back(loop);
  }
  FailureOr<Value> x = evaluateReduceInput(b, op, inner);
  if (failed(x)) {
    if (!loops.empty())
      loops.front().erase();
    return failure();
  }
  Value next = step(b, acc, *x);
  // Close the nest from the inside out: each loop yields its accumulator.
  for (scf::ForOp loop : llvm::reverse(loops)) {
    b.setInsertionPointToEnd(loop.getBody());
    scf::YieldOp::create(b, loc, next);
    next = loop.getResult(0);
  }
  return next;
}

/// Loops in `block` run only where a fast path's answer needs checking:
/// LLVM leaves them as they are (no vectorizing, unrolling or other
/// transformation it is not asked for), which saves it the compile time
/// of vector code that seldom runs. scf-to-cf carries the annotation to
/// the loop's latch branch.
static void markCold(MLIRContext *context, Block *block) {
  auto cold = LLVM::LoopAnnotationAttr::get(
      context, BoolAttr::get(context, true), {}, {}, {}, {}, {}, {}, {}, {}, {},
      {}, {}, {}, {}, {});
  for (Operation &op : *block)
    op.walk([&](scf::ForOp loop) { loop->setAttr("loop_annotation", cold); });
}

/// A reduce's innermost loops of at least this many iterations are
/// vectorized and interleaved by LLVM but not unrolled after (keepRolled).
constexpr int64_t kRolledMinTrips = 1024;

/// The innermost loops in `loop` with at least kRolledMinTrips iterations
/// are vectorized by LLVM, interleaved 8 times (128 f32 in flight with
/// AVX-512, as many loads as the unrolled loop had) and not unrolled
/// after: unrolled, a max reduce's vector loop with its NaN blends is
/// hundreds of instructions that took LLVM 50 ms to select and schedule
/// (full max 4096^2: 76 -> 17 ms of compile, the same run time). Shorter
/// loops keep LLVM's own choice: a forced interleave longer than the
/// loop would leave it scalar.
static void keepRolled(scf::ForOp loop) {
  MLIRContext *context = loop.getContext();
  auto rolled = LLVM::LoopAnnotationAttr::get(
      context, {}, {},
      LLVM::LoopInterleaveAttr::get(
          context, IntegerAttr::get(IntegerType::get(context, 32), 8)),
      LLVM::LoopUnrollAttr::get(context, BoolAttr::get(context, true), {}, {},
                                {}, {}, {}, {}),
      {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {});
  // The loops around such a loop are not unrolled either: LLVM would
  // copy the vector loop once per outer iteration.
  auto notUnrolled =
      LLVM::LoopAnnotationAttr::get(context, {}, {}, {}, rolled.getUnroll(), {},
                                    {}, {}, {}, {}, {}, {}, {}, {}, {}, {});
  loop->walk([&](scf::ForOp inner) {
    // A nested reduce's loops keep what they were given (a max's cold
    // rerun inside a long sum's loop stays cold).
    if (inner->hasAttr("loop_annotation"))
      return;
    bool innermost = true;
    inner.getBody()->walk([&](scf::ForOp) { innermost = false; });
    std::optional<APInt> trips = inner.getStaticTripCount();
    if (!innermost || !trips || trips->getSExtValue() < kRolledMinTrips)
      return;
    inner->setAttr("loop_annotation", rolled);
    for (Operation *outer = inner->getParentOp(); outer;
         outer = outer->getParentOp()) {
      if (isa<scf::ForOp>(outer) && !outer->hasAttr("loop_annotation"))
        outer->setAttr("loop_annotation", notUnrolled);
      if (outer == loop.getOperation())
        break;
    }
  });
}

FailureOr<Value> KernelEmitter::emitReduce(OpBuilder &b, Operation *op,
                                           ValueRange idx) {
  bool isSum = isa<ReduceSumOp>(op);
  Location loc = op->getLoc();
  Type t = elementOf(op->getResult(0));
  auto inOrder = [&](OpBuilder &sb, Value acc, Value x) {
    return combine(sb, loc, acc, x, t, isSum, contractSumOfProducts);
  };
  if (inRowValues && reduceDepth() == 0)
    if (std::optional<LaneAxis> axis = rowReduceLanesOf(op))
      return emitRowReduceLanes(b, op, idx, *axis);
  if (!reassociateSums)
    return emitReduceLoops(b, op, idx, inOrder);
  if (isSum) {
    // A long float sum may add in any order, which LLVM vectorizes; a short
    // one gains little and keeps index order, so that small graphs' results
    // (and outputs that amplify rounding, such as Adam's steps on gradients
    // that are zero up to rounding) stay the interpreter's bit for bit.
    if (reducedElementCount(op) < kReorderMinElements)
      return emitReduceLoops(b, op, idx, inOrder);
    FailureOr<Value> sum =
        emitReduceLoops(b, op, idx, [&](OpBuilder &sb, Value acc, Value x) {
          return addOf(sb, loc, acc, x, t, arith::FastMathFlags::reassoc);
        });
    if (succeeded(sum))
      if (auto loop = sum->getDefiningOp<scf::ForOp>())
        keepRolled(loop);
    return sum;
  }
  if (!isa<FloatType>(signless(t))) {
    // Integer max is associative: LLVM vectorizes smax/umax reductions.
    bool isUnsigned = isUnsignedInt(t) && !t.isInteger(1);
    return emitReduceLoops(b, op, idx, [&](OpBuilder &sb, Value acc, Value x) {
      if (t.isInteger(1))
        return arith::OrIOp::create(sb, loc, acc, x).getResult();
      return isUnsigned ? arith::MaxUIOp::create(sb, loc, acc, x).getResult()
                        : arith::MaxSIOp::create(sb, loc, acc, x).getResult();
    });
  }
  // Float max in index order (acc > x ? acc : x) depends on the order only
  // through NaNs and the signs of zeros. The fast loop takes IEEE maximum
  // (NaNs propagate) ignoring zeros' signs, which LLVM vectorizes in any
  // order (maxps and a NaN blend on x86); where that gives a NaN or a zero,
  // the in-order loop runs again and gives the exact result. Any other
  // result is the largest value, whose bits no other value shares.
  // f32 and f64 use LLVM's intrinsic directly: arith-expand, which the CPU
  // pipeline runs for bfloat16, would turn arith.maximumf into compares
  // and selects that LLVM does not vectorize.
  auto floatType = cast<FloatType>(signless(t));
  bool llvmMaximum = floatType.isF32() || floatType.isF64();
  FailureOr<Value> fastMax = emitReduceLoops(
      b, op, idx, [&](OpBuilder &sb, Value acc, Value x) -> Value {
        if (llvmMaximum)
          return LLVM::MaximumOp::create(sb, loc, acc, x,
                                         LLVM::FastmathFlags::nsz);
        return arith::MaximumFOp::create(sb, loc, acc, x,
                                         arith::FastMathFlags::nsz);
      });
  if (failed(fastMax))
    return failure();
  if (auto loop = fastMax->getDefiningOp<scf::ForOp>())
    keepRolled(loop);
  return inOrderWhereMaxDiffers(b, op, idx, *fastMax);
}

std::optional<LaneAxis> KernelEmitter::rowReduceLanesOf(Operation *op) {
  if (!reassociateSums)
    return std::nullopt;
  return rowReduceLanes(op, rowLaneBytes);
}

FailureOr<Value> KernelEmitter::emitRowReduceLanes(OpBuilder &b, Operation *op,
                                                   ValueRange idx,
                                                   LaneAxis axis) {
  bool isSum = isa<ReduceSumOp>(op);
  Location loc = op->getLoc();
  Type t = signless(elementOf(op->getResult(0)));
  int64_t extent = cast<RankedTensorType>(op->getOperand(0).getType())
                       .getDimSize(int64_t(axis.axis));
  // Independent partial vectors, so that each add waits on its own
  // previous one only (an add's latency is several of its issue slots).
  int64_t partials = 4;
  while (extent % (axis.width * partials) != 0)
    partials /= 2;
  if (failed(hoistInvariantViews(b, op, idx)))
    return failure();
  auto vectorType = VectorType::get({axis.width}, t);
  Value init = constantLike(b, loc, reduceInit(b, t, isSum), vectorType);
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto merge = [&](OpBuilder &mb, Value acc, Value x) -> Value {
    // A long sum of products may contract, as in a register tile.
    if (isSum)
      return combine(mb, loc, acc, x, t, /*isSum=*/true, /*contract=*/true);
    return LLVM::MaximumOp::create(mb, loc, acc, x, LLVM::FastmathFlags::nsz);
  };
  auto loop = scf::ForOp::create(b, loc, index(0), index(extent),
                                 index(axis.width * partials),
                                 SmallVector<Value>(size_t(partials), init));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    beginRowPass();
    // Only a pass every row runs whole may fill the row cache.
    fillRowCache = !rowCache.empty() && loop->getBlock() == rowBlock;
    llvm::scope_exit endPass([&] {
      endRowPass();
      fillRowCache = false;
      rowCacheFilled.insert(rowCacheFilling.begin(), rowCacheFilling.end());
      rowCacheFilling.clear();
    });
    SmallVector<Value> next;
    for (int64_t p = 0; p < partials; ++p) {
      SmallVector<Value> inner(idx.begin(), idx.end());
      inner[axis.axis] = loop.getInductionVar();
      if (p > 0)
        inner[axis.axis] = arith::AddIOp::create(b, loc, loop.getInductionVar(),
                                                 index(p * axis.width));
      FailureOr<Value> x = evaluateLanesAt(b, op->getOperand(0), inner, axis);
      if (failed(x)) {
        loop.erase();
        return failure();
      }
      next.push_back(merge(b, loop.getRegionIterArgs()[p], *x));
    }
    scf::YieldOp::create(b, loc, next);
  }
  Value total = loop.getResult(0);
  for (int64_t p = 1; p < partials; ++p)
    total = merge(b, total, loop.getResult(p));
  if (isSum)
    return vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD,
                                       total, arith::FastMathFlags::reassoc)
        .getResult();
  Value fast =
      vector::ReductionOp::create(b, loc, vector::CombiningKind::MAXIMUMF,
                                  total, arith::FastMathFlags::nsz);
  return inOrderWhereMaxDiffers(b, op, idx, fast);
}

FailureOr<Value> KernelEmitter::inOrderWhereMaxDiffers(OpBuilder &b,
                                                       Operation *reduce,
                                                       ValueRange idx,
                                                       Value fast) {
  Location loc = reduce->getLoc();
  Type t = elementOf(reduce->getResult(0));
  Value nanSeen =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, fast, fast);
  Value zero =
      arith::ConstantOp::create(b, loc, b.getFloatAttr(signless(t), 0));
  Value isZero =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, fast, zero);
  Value special = arith::OrIOp::create(b, loc, nanSeen, isZero);
  LogicalResult status = success();
  auto ifOp = scf::IfOp::create(
      b, loc, special,
      [&](OpBuilder &tb, Location) {
        FailureOr<Value> exact = emitReduceLoops(
            tb, reduce, idx, [&](OpBuilder &sb, Value acc, Value x) {
              return combine(sb, loc, acc, x, t, /*isSum=*/false,
                             /*contract=*/false);
            });
        if (failed(exact))
          status = failure();
        else
          markCold(tb.getContext(), tb.getInsertionBlock());
        scf::YieldOp::create(tb, loc, succeeded(exact) ? *exact : fast);
      },
      [&](OpBuilder &eb, Location) { scf::YieldOp::create(eb, loc, fast); });
  if (failed(status))
    return failure();
  return ifOp.getResult(0);
}

SmallVector<StoreGroup> mlir::lazy::groupStores(Block &body) {
  SmallVector<StoreGroup> groups;
  auto dimsOf = [](StoreOp store) {
    return symbolicShapeOf(store.getValue().getType());
  };
  for (auto store : body.getOps<StoreOp>()) {
    // A group's stores have one symbolic shape, which bounds its loops ((i)
    // and (j) of one largest value are two groups); `shape` holds its dims
    // at their largest values.
    if (groups.empty() ||
        !st::symEqual(dimsOf(groups.back().stores.front()), dimsOf(store)))
      groups.push_back({SmallVector<int64_t>(store.getView().getShape()), {}});
    groups.back().stores.push_back(store);
  }
  return groups;
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

LogicalResult
KernelEmitter::emitReduceTile(OpBuilder &b, Operation *op,
                              ArrayRef<SmallVector<Value>> elements,
                              ArrayRef<int64_t> unroll) {
  bool isSum = isa<ReduceSumOp>(op);
  Location loc = op->getLoc();
  Type t = elementOf(op->getResult(0));
  ArrayRef<int64_t> axes = reduceAxes(op);
  bool longSum = reducedElementCount(op) >= kReorderMinElements;
  // Split accumulators: with an unrolled innermost reduce axis, a long sum
  // (reorderable, as in emitReduce) keeps one partial sum per unrolled
  // step, each in index order, added in step order at the end.
  int64_t split = splitCount(op, unroll, reassociateSums);
  // Without lanes on an output axis, an element's partials are the lanes
  // of one vector along the innermost reduce axis (a dot product whose
  // reduce axis its loads read contiguously): one vector evaluation per
  // trip instead of `split` scalar ones.
  bool reduceLanes = !lanes && split > 1;
  llvm::scope_exit restoreLanes(
      [&, outputLanes = lanes] { lanes = outputLanes; });
  if (reduceLanes)
    lanes = LaneAxis{size_t(axes.back()), split};
  VectorType laneType =
      lanes ? VectorType::get({lanes->width}, signless(t)) : VectorType();
  Value init = constantLike(b, loc, reduceInit(b, t, isSum), laneType);
  size_t slots = reduceLanes ? 1 : size_t(split);
  SmallVector<Value> accs(elements.size() * slots, init);
  // One loop per reduced axis, each carrying every element's accumulator.
  SmallVector<scf::ForOp> loops;
  SmallVector<Value> ivs;
  OpBuilder::InsertionGuard guard(b);
  for (int64_t axis : axes) {
    Value lo = arith::ConstantIndexOp::create(b, loc, 0);
    // A symbolic axis runs to its value (plans leave it unrolled by 1).
    Value hi = extentOf(b, loc, op->getOperand(0), size_t(axis));
    Value step = arith::ConstantIndexOp::create(b, loc, unroll[axis]);
    auto loop = scf::ForOp::create(b, loc, lo, hi, step, accs);
    ivs.push_back(loop.getInductionVar());
    accs.assign(loop.getRegionIterArgs().begin(),
                loop.getRegionIterArgs().end());
    b.setInsertionPointToStart(loop.getBody());
    loops.push_back(loop);
  }
  auto fail = [&]() {
    if (!loops.empty())
      loops.front().erase();
    return failure();
  };
  // Every unrolled step in index order, each adding to every element.
  SmallVector<int64_t> offset(axes.size(), 0), steps;
  for (int64_t axis : axes)
    steps.push_back(unroll[axis]);
  if (reduceLanes)
    steps.back() = 1; // the lanes cover the innermost axis's steps
  std::optional<size_t> outerPrefetch = prefetchAxis;
  if (prefetchSteps > 0 && lanes && !reduceLanes && !axes.empty())
    prefetchAxis = size_t(axes.back());
  llvm::scope_exit restorePrefetch([&] { prefetchAxis = outerPrefetch; });
  scopes.emplace_back();
  do {
    SmallVector<Value> reduced;
    for (auto [i, axis] : llvm::enumerate(axes)) {
      Value at = ivs[i];
      if (offset[i])
        at = arith::AddIOp::create(
            b, loc, at, arith::ConstantIndexOp::create(b, loc, offset[i]));
      reduced.push_back(at);
    }
    for (auto [e, idx] : llvm::enumerate(elements)) {
      SmallVector<Value> inner(idx.begin(), idx.end());
      for (auto [i, axis] : llvm::enumerate(axes))
        inner[axis] = reduced[i];
      FailureOr<Value> x =
          evaluateIn(b, op->getOperand(0), inner, lanes.has_value());
      if (failed(x)) {
        scopes.pop_back();
        return fail();
      }
      if (lanes)
        x = broadcastLanes(b, loc, *x);
      // In index order: a reassociable sum would let LLVM vectorize the
      // reduce loop instead of the tile. A long sum of products (one that
      // may reorder) contracts into fused multiply-adds on the CPU.
      size_t slot = e * slots + (slots > 1 ? size_t(offset.back()) : size_t(0));
      accs[slot] = combine(b, loc, accs[slot], *x, t, isSum,
                           /*contract=*/contractSumOfProducts ||
                               (reassociateSums && longSum));
    }
  } while (nextOffsets(offset, steps));
  scopes.pop_back();
  for (scf::ForOp loop : llvm::reverse(loops)) {
    b.setInsertionPointToEnd(loop.getBody());
    scf::YieldOp::create(b, loc, accs);
    accs.assign(loop.getResults().begin(), loop.getResults().end());
  }
  // The partials meet after the nest.
  if (!loops.empty())
    b.setInsertionPointAfter(loops.front());
  for (size_t e = 0; e < elements.size(); ++e) {
    auto partial = [&](int64_t p) -> Value {
      if (reduceLanes)
        return vector::ExtractOp::create(b, loc, accs[e], p);
      return accs[e * slots + size_t(p)];
    };
    Value total = partial(0);
    for (int64_t p = 1; p < split; ++p)
      total = addOf(b, loc, total, partial(p), t);
    tileReduces[{op, unsigned(e)}] = total;
  }
  return success();
}

FailureOr<Value> KernelEmitter::evaluateAt(OpBuilder &b, Value v,
                                           ValueRange idx) {
  scopes.emplace_back();
  FailureOr<Value> x = evaluate(b, v, idx);
  scopes.pop_back();
  return x;
}

LogicalResult
KernelEmitter::emitStoresOfReduce(OpBuilder &b, ArrayRef<StoreOp> stores,
                                  ArrayRef<SmallVector<Value>> elements,
                                  Operation *reduce, ArrayRef<Value> values) {
  tileReduces.clear();
  llvm::scope_exit reset([&] { tileReduces.clear(); });
  for (auto [e, value] : llvm::enumerate(values))
    tileReduces[{reduce, unsigned(e)}] = value;
  return emitStoreGroups(b, stores, elements);
}

LogicalResult KernelEmitter::emitStoreTile(
    OpBuilder &b, ArrayRef<StoreOp> stores,
    ArrayRef<SmallVector<Value>> elements, ArrayRef<Operation *> reduces,
    ArrayRef<int64_t> unroll, std::optional<LaneAxis> laneAxis) {
  tileReduces.clear();
  lanes = laneAxis;
  llvm::scope_exit reset([&] {
    lanes.reset();
    tileReduces.clear();
  });
  beginElement();
  for (Operation *reduce : reduces)
    if (failed(emitReduceTile(b, reduce, elements, unroll)))
      return failure();
  return emitStoreGroups(b, stores, elements);
}

IndexAndValid KernelEmitter::indexOf(OpBuilder &b, Location loc,
                                     ShapeTrackerAttr view, ValueRange idx) {
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
    if (isComputedView(view))
      return view.emitOpError("reads a computed value, which a planned "
                              "kernel cannot hold");
    const AffineIndex *form = laneFormOf(view.getTracker());
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
