//===- ScalarOps.cpp - tinygrad's elementwise ops as arith/math -----------===//
//
// Rules:
//   - elementwise ops become arith/math ops chosen by dtype and tinygrad
//     signedness: C division and remainder (a zero divisor gives 0 and
//     INT_MIN / -1 wraps, as in the reference interpreter, so no kernel can
//     trap), MAX as `a > b ? a : b`, bool ADD/MUL as or/and, CAST by source
//     and destination kinds; THREEFRY as tinygrad's 32-bit rounds;
//   - float adds and multiplies round on their own unless a reduce's
//     accumulation allows contraction (Reductions.cpp);
//   - the same ops take vectors of one width (lane mode, VectorLanes.cpp)
//     where vectorizableOp accepts them.
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

TypedAttr mlir::lazy::constAttr(Builder &b, ConstOp c) {
  Type s = signless(c.getType().getElementType());
  if (auto f = dyn_cast<FloatAttr>(c.getElementValue()))
    return b.getFloatAttr(s, f.getValue());
  auto i = cast<IntegerAttr>(c.getValue());
  return b.getIntegerAttr(s, i.getValue());
}

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

/// Float adds and multiplies round on their own (no contraction into
/// fused multiply-adds): the reference interpreter rounds each op, and a
/// training step's NaN pattern (square roots of values near 0) changes
/// with a fused a*b+c. A matmul runs as fast without (bench/cpu_bench.py).
Value mlir::lazy::addOf(OpBuilder &b, Location loc, Value a, Value c, Type t,
                        arith::FastMathFlags flags) {
  if (isa<FloatType>(signless(t)))
    return arith::AddFOp::create(b, loc, a, c, flags);
  if (t.isInteger(1))
    return arith::OrIOp::create(b, loc, a, c);
  return arith::AddIOp::create(b, loc, a, c);
}

Value mlir::lazy::mulOf(OpBuilder &b, Location loc, Value a, Value c, Type t) {
  if (isa<FloatType>(signless(t)))
    return arith::MulFOp::create(b, loc, a, c);
  if (t.isInteger(1))
    return arith::AndIOp::create(b, loc, a, c);
  return arith::MulIOp::create(b, loc, a, c);
}

namespace {

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

} // namespace

Value mlir::lazy::maxOf(OpBuilder &b, Location loc, Value a, Value c, Type t) {
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

/// Whether scalarOp has a vector form of `op`: not for the ops whose
/// expansion builds scalar constants or branches on values (division,
/// shifts, THREEFRY, float to integer casts), nor for 16-bit floats (their
/// software lowering is scalar).
bool mlir::lazy::vectorizableOp(Operation *op) {
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
Value mlir::lazy::constantLike(OpBuilder &b, Location loc, TypedAttr scalar,
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
