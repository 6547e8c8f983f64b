//===- ExpandExp2.cpp - f32 exp2 as vectorizable arith --------------------===//
//
// lazy-expand-exp2: every f32 math.exp2 becomes 2^n * 2^f with
// n = roundeven(clamp(x, -151, 129)) and f = x - n, 2^f a polynomial and
// 2^n applied from exponent bits (or ldexp); a NaN yields itself. By
// default in double (degree 12, one rounding to f32: correctly rounded);
// with `fast` in f32 (degree 6, within 1 ulp). Passes.td states the
// rules. Plain arith and math.roundeven, so LLVM vectorizes it
// where it vectorizes the loop around it.
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/Passes.h"
#include "lazy/Support/PassOptionHints.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYEXPANDEXP2
#include "lazy/Conversion/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;

namespace {

/// Splat constants of one shape (a scalar type or a vector type's shape).
struct ShapedConstants {
  OpBuilder &b;
  Location loc;
  mutable VectorType vector; // null for scalars (clone is not const)

  Type like(Type element) const {
    return vector ? Type(vector.clone(element)) : element;
  }
  Value get(Type element, TypedAttr scalar) const {
    if (vector)
      return arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(vector.clone(element), scalar));
    return arith::ConstantOp::create(b, loc, scalar);
  }
  Value real(FloatType element, double v) const {
    return get(element, b.getFloatAttr(element, v));
  }
  Value integer(IntegerType element, int64_t v) const {
    return get(element, b.getIntegerAttr(element, v));
  }
};

/// x clamped to [-151, 129] and split into n = roundeven(x) and f = x - n:
/// below -151 every result rounds to 0, above 128 to +inf. A NaN leaves
/// minnum/maxnum as a bound; the caller selects it back.
std::pair<Value, Value> splitExponent(const ShapedConstants &c, Value x,
                                      FloatType element) {
  Value clamped = arith::MinNumFOp::create(
      c.b, c.loc,
      arith::MaxNumFOp::create(c.b, c.loc, x, c.real(element, -151.0)),
      c.real(element, 129.0));
  Value n = math::RoundEvenOp::create(c.b, c.loc, clamped);
  return {n, arith::SubFOp::create(c.b, c.loc, clamped, n)};
}

/// sum coeff[k] * f^k in Horner form.
Value horner(const ShapedConstants &c, Value f, FloatType element,
             ArrayRef<double> coeff, arith::FastMathFlags flags) {
  Value p = c.real(element, coeff.back());
  for (int k = int(coeff.size()) - 2; k >= 0; --k)
    p = arith::AddFOp::create(c.b, c.loc,
                              arith::MulFOp::create(c.b, c.loc, p, f, flags),
                              c.real(element, coeff[k]), flags);
  return p;
}

/// The power of two 2^e, e an integer of `bits` (an IEEE float's exponent
/// range: normal), as a float of that width.
Value powerOfTwo(const ShapedConstants &c, Value e, IntegerType bits,
                 FloatType element) {
  int mantissa = element.getFPMantissaWidth() - 1;
  int bias = (1 << (element.getWidth() - mantissa - 2)) - 1;
  Value biased = arith::AddIOp::create(c.b, c.loc, e, c.integer(bits, bias));
  Value shifted =
      arith::ShLIOp::create(c.b, c.loc, biased, c.integer(bits, mantissa));
  return arith::BitcastOp::create(c.b, c.loc, c.like(element), shifted);
}

/// p * 2^n by llvm.ldexp (llvm.intr.ldexp's op takes no vector exponent),
/// n an integer vector of p's shape.
Value ldexpOf(const ShapedConstants &c, Value p, Value n) {
  return LLVM::CallIntrinsicOp::create(c.b, c.loc, p.getType(),
                                       c.b.getStringAttr("llvm.ldexp"),
                                       ValueRange{p, n})
      .getResult(0);
}

/// The fast form's 2^f on [-1/2, 1/2]: a degree-6 polynomial fitted to it
/// (relative error 1.9e-9), its coefficients rounded to f32.
constexpr double kFastCoeff[] = {
    1.0,
    0.6931471824645996,
    0.24022646248340607,
    0.05550328642129898,
    0.009618489071726799,
    0.0013399930903688073,
    0.00015345810970757157,
};

/// 2^x in f32: a degree-6 polynomial fitted to 2^f on [-1/2, 1/2]
/// (relative error 1.9e-9, rounded to f32), its multiply-adds free to
/// fuse. 2^n is applied by llvm.intr.ldexp (`ldexp`), else as
/// 2^(n>>1) * 2^(n - (n>>1)), both normal for n in [-151, 129]; either
/// way only the last step rounds.
Value exp2InF32(const ShapedConstants &c, Value x, bool ldexp) {
  OpBuilder &b = c.b;
  FloatType f32 = b.getF32Type();
  IntegerType i32 = b.getI32Type();
  auto [n, f] = splitExponent(c, x, f32);
  Value p = horner(c, f, f32, kFastCoeff, arith::FastMathFlags::contract);
  Value ni = arith::FPToSIOp::create(b, c.loc, c.like(i32), n);
  if (ldexp)
    return ldexpOf(c, p, ni);
  Value half = arith::ShRSIOp::create(b, c.loc, ni, c.integer(i32, 1));
  Value rest = arith::SubIOp::create(b, c.loc, ni, half);
  Value exact =
      arith::MulFOp::create(b, c.loc, p, powerOfTwo(c, half, i32, f32));
  return arith::MulFOp::create(b, c.loc, exact, powerOfTwo(c, rest, i32, f32));
}

/// 2^x for a vector of 16 f32 on AVX-512 (`x86Scalef`): the fast
/// polynomial, 2^n applied by vscalefps (LLVM's x86 intrinsic), which
/// takes n as a float, so that no integer conversion is needed; the clamp keeps
/// NaN (x < lo ? lo : x, one vmaxps), which then flows through to the result:
/// no select.
Value exp2WithScalef(const ShapedConstants &c, Value x) {
  OpBuilder &b = c.b;
  FloatType f32 = b.getF32Type();
  auto clamp = [&](arith::CmpFPredicate beyond, Value v, double bound) {
    Value limit = c.real(f32, bound);
    Value out = arith::CmpFOp::create(b, c.loc, beyond, v, limit);
    return arith::SelectOp::create(b, c.loc, out, limit, v).getResult();
  };
  Value clamped = clamp(arith::CmpFPredicate::OGT,
                        clamp(arith::CmpFPredicate::OLT, x, -151.0), 129.0);
  Value n = math::RoundEvenOp::create(b, c.loc, clamped);
  Value f = arith::SubFOp::create(b, c.loc, clamped, n);
  Value p = horner(c, f, f32, kFastCoeff, arith::FastMathFlags::contract);
  // llvm.x86.avx512.mask.scalef.ps.512(a, b, passthru, mask, rounding):
  // a * 2^floor(b) in every lane; _MM_FROUND_CUR_DIRECTION (4) rounds as
  // the MXCSR says (to nearest).
  Value allLanes = arith::ConstantOp::create(b, c.loc, b.getI16IntegerAttr(-1));
  Value rounding = arith::ConstantOp::create(b, c.loc, b.getI32IntegerAttr(4));
  return LLVM::CallIntrinsicOp::create(
             b, c.loc, p.getType(),
             b.getStringAttr("llvm.x86.avx512.mask.scalef.ps.512"),
             ValueRange{p, n, p, allLanes, rounding})
      .getResult(0);
}

/// 2^x computed in double and rounded to f32 once: n and f = x - n are
/// exact in f32 and in double, and the degree-12 Taylor polynomial's error
/// (below 1e-15 relative; its multiply-adds may fuse, which moves the
/// double result by about 1e-16) leaves that rounding the correctly
/// rounded result but for ties closer than it. 2^n, n in [-151, 129], is
/// a normal double, applied exactly (by llvm.intr.ldexp with `ldexp`).
Value exp2InF64(const ShapedConstants &c, Value x, bool ldexp) {
  OpBuilder &b = c.b;
  FloatType f32 = b.getF32Type(), f64 = b.getF64Type();
  auto [n, f] = splitExponent(c, x, f32);
  // Taylor terms of 2^f on [-1/2, 1/2]: the first left out is below
  // (ln 2 / 2)^13 / 13! < 1e-15.
  constexpr int kDegree = 12;
  const double ln2 = 0.69314718055994530942;
  double coeff[kDegree + 1];
  coeff[0] = 1.0;
  for (int k = 1; k <= kDegree; ++k)
    coeff[k] = coeff[k - 1] * ln2 / k;
  Value p = horner(c, arith::ExtFOp::create(b, c.loc, c.like(f64), f), f64,
                   coeff, arith::FastMathFlags::contract);
  Value scaled;
  if (ldexp) {
    scaled = ldexpOf(
        c, p, arith::FPToSIOp::create(b, c.loc, c.like(b.getI32Type()), n));
  } else {
    IntegerType i64 = b.getI64Type();
    Value ni = arith::FPToSIOp::create(b, c.loc, c.like(i64), n);
    scaled = arith::MulFOp::create(b, c.loc, p, powerOfTwo(c, ni, i64, f64));
  }
  return arith::TruncFOp::create(b, c.loc, c.like(f32), scaled);
}

struct ExpandExp2 final : OpRewritePattern<math::Exp2Op> {
  ExpandExp2(MLIRContext *context, bool fast, bool vectorLdexp, bool x86Scalef)
      : OpRewritePattern(context), fast(fast), vectorLdexp(vectorLdexp),
        x86Scalef(x86Scalef) {}

  LogicalResult matchAndRewrite(math::Exp2Op op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return failure();
    ShapedConstants c{rewriter, op.getLoc(), dyn_cast<VectorType>(type)};
    Value x = op.getOperand();
    // An exp2 marked `afn` (approximate functions: lazy.softmax_sum's,
    // whose online rescaling rounds otherwise than the reference anyway)
    // takes the fast form whatever the pass's option.
    bool fast = this->fast || arith::bitEnumContainsAll(
                                  op.getFastmath(), arith::FastMathFlags::afn);
    if (fast && x86Scalef && c.vector &&
        c.vector.getShape() == ArrayRef<int64_t>{16}) {
      rewriter.replaceOp(op, exp2WithScalef(c, x));
      return success();
    }
    bool ldexp = vectorLdexp && c.vector;
    Value result = fast ? exp2InF32(c, x, ldexp) : exp2InF64(c, x, ldexp);
    // NaN in, NaN out.
    Value isNan =
        arith::CmpFOp::create(rewriter, c.loc, arith::CmpFPredicate::UNO, x, x);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, isNan, x, result);
    return success();
  }

  bool fast;
  /// Vectors scale by llvm.intr.ldexp: LLVM's loop vectorizer leaves a
  /// scalar one scalar, so scalar code keeps the multiplications.
  bool vectorLdexp;
  /// With fast, vectors of 16 f32 use AVX-512's vscalefps directly.
  bool x86Scalef;
};

struct LazyExpandExp2 final
    : mlir::lazy::WithOptionHints<
          mlir::lazy::impl::LazyExpandExp2Base<LazyExpandExp2>> {
  using WithOptionHints::WithOptionHints;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandExp2>(&getContext(), fast, vectorLdexp, x86Scalef);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
