//===- ExpandExp2.cpp - f32 exp2 as vectorizable arith --------------------===//
//
// lazy-expand-exp2: every f32 math.exp2 becomes, in double, 2^n * 2^f
// with n = roundeven(clamp(x, -151, 129)) and f = x - n, 2^f a degree-12
// Taylor polynomial of exp(f ln 2), 2^n built from exponent bits, then one
// rounding to f32; a NaN yields itself (Passes.td states the rules). Plain
// arith and math.roundeven, so LLVM vectorizes it where it vectorizes the
// loop around it.
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/Passes.h"
#include "lazy/Support/PassOptionHints.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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

struct ExpandExp2 final : OpRewritePattern<math::Exp2Op> {
  using OpRewritePattern::OpRewritePattern;

  /// Taylor terms of 2^f on [-1/2, 1/2]: the first left out is below
  /// (ln 2 / 2)^13 / 13! < 1e-15.
  static constexpr int kDegree = 12;

  LogicalResult matchAndRewrite(math::Exp2Op op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return failure();
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    // Scalars or vectors alike: constants are splats of the operand's shape.
    auto vector = dyn_cast<VectorType>(type);
    auto like = [&](Type element) -> Type {
      return vector ? Type(vector.clone(element)) : element;
    };
    Type f64 = like(b.getF64Type()), i64 = like(b.getI64Type());
    auto constant = [&](Type t, TypedAttr scalar) -> Value {
      if (auto v = dyn_cast<VectorType>(t))
        return arith::ConstantOp::create(b, loc,
                                         DenseElementsAttr::get(v, scalar));
      return arith::ConstantOp::create(b, loc, scalar);
    };
    auto dc = [&](double v) -> Value {
      return constant(f64, b.getF64FloatAttr(v));
    };
    auto ic = [&](int64_t v) -> Value {
      return constant(i64, b.getI64IntegerAttr(v));
    };
    Value x = op.getOperand();
    // In double: x, n and f = x - n are exact, and the polynomial's error
    // (below 1e-15 relative) leaves the one rounding to f32 at the end as
    // the correctly rounded result but for ties closer than that.
    Value xd = arith::ExtFOp::create(b, loc, f64, x);
    // 1. Clamp (NaN handled at the end), split into n + f.
    Value clamped = arith::MinNumFOp::create(
        b, loc, arith::MaxNumFOp::create(b, loc, xd, dc(-151.0)), dc(129.0));
    Value n = math::RoundEvenOp::create(b, loc, clamped);
    Value f = arith::SubFOp::create(b, loc, clamped, n);
    // 2. 2^f = sum (ln 2)^k / k! f^k, k <= kDegree, in Horner form.
    const double ln2 = 0.69314718055994530942;
    double coeff[kDegree + 1];
    coeff[0] = 1.0;
    for (int k = 1; k <= kDegree; ++k)
      coeff[k] = coeff[k - 1] * ln2 / k;
    Value p = dc(coeff[kDegree]);
    for (int k = kDegree - 1; k >= 0; --k)
      p = arith::AddFOp::create(b, loc, arith::MulFOp::create(b, loc, p, f),
                                dc(coeff[k]));
    // 3. 2^n, n in [-151, 129], is a normal double built from its bits.
    Value ni = arith::FPToSIOp::create(b, loc, i64, n);
    Value bits = arith::ShLIOp::create(
        b, loc, arith::AddIOp::create(b, loc, ni, ic(1023)), ic(52));
    Value scaledD = arith::MulFOp::create(
        b, loc, p, arith::BitcastOp::create(b, loc, f64, bits));
    Value scaled = arith::TruncFOp::create(b, loc, type, scaledD);
    // 4. NaN in, NaN out.
    Value isNan =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, isNan, x, scaled);
    return success();
  }
};

struct LazyExpandExp2 final
    : mlir::lazy::WithOptionHints<
          mlir::lazy::impl::LazyExpandExp2Base<LazyExpandExp2>> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandExp2>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
