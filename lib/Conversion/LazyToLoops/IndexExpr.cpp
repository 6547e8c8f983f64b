//===- IndexExpr.cpp - ShapeTracker index arithmetic in MLIR --------------===//

#include "lazy/Conversion/LazyToLoops/IndexExpr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;

IndexAndValid mlir::lazy::emitIndexAndValid(OpBuilder &b, Location loc,
                                            const st::ShapeTracker &tracker,
                                            ValueRange outerIdx) {
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  auto andValid = [&](Value acc, Value cond) {
    return acc ? arith::AndIOp::create(b, loc, acc, cond).getResult() : cond;
  };
  SmallVector<Value> idx(outerIdx.begin(), outerIdx.end());
  Value valid;
  for (size_t k = tracker.views.size(); k-- > 0;) {
    const st::View &v = tracker.views[k];
    if (v.mask)
      for (size_t d = 0; d < v.shape.size(); ++d) {
        auto [begin, end] = (*v.mask)[d];
        if (begin == 0 && end == v.shape[d])
          continue;
        Value lo = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                         idx[d], cst(begin));
        Value hi = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                         idx[d], cst(end));
        valid = andValid(valid, andValid(lo, hi));
      }
    Value flat = cst(v.offset);
    for (size_t d = 0; d < v.shape.size(); ++d) {
      if (v.strides[d] == 0)
        continue;
      Value term = v.strides[d] == 1 ? idx[d]
                                     : arith::MulIOp::create(b, loc, idx[d],
                                                             cst(v.strides[d]))
                                           .getResult();
      flat = arith::AddIOp::create(b, loc, flat, term);
    }
    if (k == 0)
      return {flat, valid};
    // Unflatten into the shape of the view below.
    const std::vector<int64_t> &shape = tracker.views[k - 1].shape;
    idx.assign(shape.size(), Value());
    int64_t inner = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      if (shape[d] == 1) {
        idx[d] = cst(0);
        continue;
      }
      Value q = inner == 1
                    ? flat
                    : arith::FloorDivSIOp::create(b, loc, flat, cst(inner))
                          .getResult();
      idx[d] = arith::RemSIOp::create(b, loc, q, cst(shape[d]));
      inner *= shape[d];
    }
  }
  return {cst(0), valid};
}

std::optional<AffineIndex>
mlir::lazy::affineIndexOf(const st::ShapeTracker &tracker) {
  if (tracker.views.size() < 2)
    return std::nullopt;
  const std::vector<int64_t> &shape = tracker.shape();
  for (int64_t size : shape)
    if (size == 0)
      return std::nullopt;
  AffineIndex form;
  for (const std::optional<int64_t> &s :
       tracker.realStrides(/*ignoreValid=*/true)) {
    if (!s)
      return std::nullopt;
    form.strides.push_back(*s);
  }
  std::optional<std::vector<st::AffineCondition>> valid =
      tracker.affineValidity();
  if (!valid)
    return std::nullopt;
  form.valid = std::move(*valid);
  auto dot = [](const std::vector<int64_t> &coeffs,
                const std::vector<int64_t> &p) {
    int64_t v = 0;
    for (size_t d = 0; d < p.size(); ++d)
      v += coeffs[d] * p[d];
    return v;
  };
  auto holds = [&](const std::vector<int64_t> &p) {
    return llvm::all_of(form.valid, [&](const st::AffineCondition &c) {
      return c.constant + dot(c.coeffs, p) < 0;
    });
  };
  auto linear = [&](const std::vector<int64_t> &p) {
    return dot(form.strides, p);
  };
  // Sample elements: both corners, each axis's last index, then a
  // deterministic pseudo-random walk.
  std::vector<std::vector<int64_t>> samples;
  samples.emplace_back(shape.size(), 0);
  std::vector<int64_t> last(shape.size());
  for (size_t d = 0; d < shape.size(); ++d)
    last[d] = shape[d] - 1;
  samples.push_back(last);
  for (size_t d = 0; d < shape.size(); ++d) {
    std::vector<int64_t> p(shape.size(), 0);
    p[d] = shape[d] - 1;
    samples.push_back(std::move(p));
  }
  uint64_t state = 0x9E3779B97F4A7C15ull;
  while (samples.size() < size_t(kAffineSamples)) {
    std::vector<int64_t> p(shape.size());
    for (size_t d = 0; d < shape.size(); ++d) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      p[d] = int64_t((state >> 33) % uint64_t(shape[d]));
    }
    samples.push_back(std::move(p));
  }
  bool haveOffset = false;
  for (const std::vector<int64_t> &p : samples) {
    auto [index, ok] = tracker.indexAndValid(p);
    if (ok != holds(p))
      return std::nullopt;
    if (!ok)
      continue;
    if (!haveOffset) {
      form.offset = index - linear(p);
      haveOffset = true;
    } else if (index != form.offset + linear(p)) {
      return std::nullopt;
    }
  }
  if (!haveOffset)
    return std::nullopt;
  return form;
}

Value mlir::lazy::emitAffine(OpBuilder &b, Location loc,
                             ArrayRef<int64_t> coeffs, int64_t constant,
                             ValueRange idx) {
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value v = cst(constant);
  for (auto [d, c] : llvm::enumerate(coeffs)) {
    if (c == 0)
      continue;
    Value term =
        c == 1 ? Value(idx[d])
               : arith::MulIOp::create(b, loc, idx[d], cst(c)).getResult();
    v = arith::AddIOp::create(b, loc, v, term);
  }
  return v;
}

IndexAndValid mlir::lazy::emitAffineIndexAndValid(OpBuilder &b, Location loc,
                                                  const AffineIndex &form,
                                                  ValueRange idx) {
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value valid;
  for (const st::AffineCondition &c : form.valid) {
    Value holds = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::slt,
        emitAffine(b, loc, c.coeffs, c.constant, idx), cst(0));
    valid =
        valid ? arith::AndIOp::create(b, loc, valid, holds).getResult() : holds;
  }
  return {emitAffine(b, loc, form.strides, form.offset, idx), valid};
}
