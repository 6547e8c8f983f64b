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
      Value term = v.strides[d] == 1
                       ? idx[d]
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
      Value q = inner == 1 ? flat
                           : arith::FloorDivSIOp::create(b, loc, flat,
                                                         cst(inner))
                                 .getResult();
      idx[d] = arith::RemSIOp::create(b, loc, q, cst(shape[d]));
      inner *= shape[d];
    }
  }
  return {cst(0), valid};
}
