//===- IndexExpr.cpp - ShapeTracker index arithmetic in MLIR --------------===//

#include "lazy/Conversion/KernelCodegen/IndexExpr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;
namespace sym = ::lazy::st::sym;

IndexAndValid mlir::lazy::emitIndexAndValid(OpBuilder &b, Location loc,
                                            const st::ShapeTracker &tracker,
                                            ValueRange outerIdx) {
  // One home for the arithmetic: the symbolic emitter on plain ints emits
  // constants where it would read a Variable.
  return emitSymIndexAndValid(b, loc, st::SymShapeTracker::fromTracker(tracker),
                              outerIdx, VariableValues());
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

/// A division or remainder of a dividend that is never negative (its
/// bounds say so) by a positive integer: floor division and Python's modulo
/// are the unsigned ones there, which take fewer instructions.
static bool nonNegativeByPositive(const sym::Node &n) {
  return !n.bNode && n.b > 0 && n.a && n.a->min.isInt() &&
         n.a->min.getInt() >= 0;
}

Value mlir::lazy::emitSInt(OpBuilder &b, Location loc, const st::SInt &x,
                           const VariableValues &vars) {
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  if (std::optional<int64_t> c = x.constant())
    return cst(*c);
  // Post-order over the node DAG with an explicit stack (nothing recurses
  // on expression depth); each node is emitted once.
  llvm::DenseMap<const sym::Node *, Value> done;
  SmallVector<std::pair<sym::NodeP, bool>> stack{{x.getNode(), false}};
  auto operands = [](const sym::Node &n) {
    SmallVector<sym::NodeP> ops;
    if (n.a)
      ops.push_back(n.a);
    if (n.bNode)
      ops.push_back(n.bNode);
    ops.append(n.nodes.begin(), n.nodes.end());
    return ops;
  };
  auto truth = [&](Value v) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, cst(0))
        .getResult();
  };
  auto asIndex = [&](Value cond) {
    return arith::SelectOp::create(b, loc, cond, cst(1), cst(0)).getResult();
  };
  while (!stack.empty()) {
    auto [node, expanded] = stack.back();
    const sym::Node *n = node.get();
    if (done.count(n)) {
      stack.pop_back();
      continue;
    }
    if (!expanded) {
      stack.back().second = true;
      for (const sym::NodeP &m : operands(*n))
        if (!done.count(m.get()))
          stack.push_back({m, false});
      continue;
    }
    stack.pop_back();
    Value a = n->a ? done.lookup(n->a.get()) : Value();
    Value rhs = n->bNode ? done.lookup(n->bNode.get()) : cst(n->b);
    Value v;
    switch (n->kind) {
    case sym::Kind::Num:
      v = cst(n->b);
      break;
    case sym::Kind::Var:
      v = vars.lookup(node->bound ? sym::unboundVar(node)->key() : n->key());
      assert(v && "a kernel Variable without its argument");
      break;
    case sym::Kind::Mul:
      v = arith::MulIOp::create(b, loc, a, rhs);
      break;
    case sym::Kind::Div:
      v = nonNegativeByPositive(*n)
              ? arith::DivUIOp::create(b, loc, a, rhs).getResult()
              : arith::FloorDivSIOp::create(b, loc, a, rhs).getResult();
      break;
    case sym::Kind::Mod: {
      if (nonNegativeByPositive(*n)) {
        v = arith::RemUIOp::create(b, loc, a, rhs);
        break;
      }
      // Python's modulo: a - (a // b) * b.
      Value q = arith::FloorDivSIOp::create(b, loc, a, rhs);
      v = arith::SubIOp::create(b, loc, a,
                                arith::MulIOp::create(b, loc, q, rhs));
      break;
    }
    case sym::Kind::Lt:
      v = asIndex(
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, a, rhs));
      break;
    case sym::Kind::Sum:
      for (const sym::NodeP &m : n->nodes) {
        Value term = done.lookup(m.get());
        v = v ? arith::AddIOp::create(b, loc, v, term).getResult() : term;
      }
      if (!v)
        v = cst(0);
      break;
    case sym::Kind::And: {
      Value all;
      for (const sym::NodeP &m : n->nodes) {
        Value t = truth(done.lookup(m.get()));
        all = all ? arith::AndIOp::create(b, loc, all, t).getResult() : t;
      }
      v = all ? asIndex(all) : cst(1);
      break;
    }
    }
    done[n] = v;
  }
  return done.lookup(x.getNode().get());
}

IndexAndValid mlir::lazy::emitSymIndexAndValid(
    OpBuilder &b, Location loc, const st::SymShapeTracker &tracker,
    ValueRange outerIdx, const VariableValues &vars) {
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  auto value = [&](const st::SInt &x) { return emitSInt(b, loc, x, vars); };
  auto andValid = [&](Value acc, Value cond) {
    return acc ? arith::AndIOp::create(b, loc, acc, cond).getResult() : cond;
  };
  SmallVector<Value> idx(outerIdx.begin(), outerIdx.end());
  Value valid;
  for (size_t k = tracker.views.size(); k-- > 0;) {
    const st::SymView &v = tracker.views[k];
    if (v.mask)
      for (size_t d = 0; d < v.shape.size(); ++d) {
        const auto &[begin, end] = (*v.mask)[d];
        bool fromStart = begin.constant() == std::optional<int64_t>(0);
        bool toEnd = st::symEqual({end}, {v.shape[d]});
        if (!fromStart)
          valid = andValid(
              valid, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                           idx[d], value(begin)));
        if (!toEnd)
          valid = andValid(
              valid, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                           idx[d], value(end)));
      }
    Value flat = value(v.offset);
    for (size_t d = 0; d < v.shape.size(); ++d) {
      std::optional<int64_t> stride = v.strides[d].constant();
      if (stride == 0)
        continue;
      Value term = stride == 1 ? idx[d]
                               : arith::MulIOp::create(b, loc, idx[d],
                                                       value(v.strides[d]))
                                     .getResult();
      flat = arith::AddIOp::create(b, loc, flat, term);
    }
    if (k == 0)
      return {flat, valid};
    // Unflatten into the (symbolic) shape of the view below.
    idx = delinearizeSymIndex(b, loc, flat, tracker.views[k - 1].shape, vars,
                              Value());
  }
  return {cst(0), valid};
}

SmallVector<Value> mlir::lazy::delinearizeSymIndex(OpBuilder &b, Location loc,
                                                   Value flat,
                                                   const st::SymShape &shape,
                                                   const VariableValues &vars,
                                                   Value zero) {
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  // As emitIndexAndValid unflattens: only a masked-out position can have a
  // negative flat index, and its validity is already false.
  SmallVector<Value> idx(shape.size());
  Value inner;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d].constant() == std::optional<int64_t>(1)) {
      idx[d] = zero ? zero : cst(0);
      continue;
    }
    Value q = inner
                  ? arith::FloorDivSIOp::create(b, loc, flat, inner).getResult()
                  : flat;
    Value size = emitSInt(b, loc, shape[d], vars);
    // A dim that can be 0 has no valid position at 0, but masked-out ones
    // still run through here: divide by at least 1 (x86 traps on 0).
    st::SInt least = shape[d].min();
    if (!least.isInt() || least.getInt() < 1)
      size = arith::MaxSIOp::create(b, loc, size, cst(1));
    idx[d] = arith::RemSIOp::create(b, loc, q, size);
    inner =
        inner ? arith::MulIOp::create(b, loc, inner, size).getResult() : size;
  }
  return idx;
}

std::optional<AffineIndex>
mlir::lazy::symbolicAffineForm(const st::SymShapeTracker &tracker) {
  if (tracker.views.size() != 1)
    return std::nullopt;
  const st::SymView &v = tracker.views.front();
  std::optional<int64_t> offset = v.offset.constant();
  if (!offset)
    return std::nullopt;
  AffineIndex form;
  form.offset = *offset;
  for (const st::SInt &s : v.strides) {
    std::optional<int64_t> stride = s.constant();
    if (!stride)
      return std::nullopt;
    form.strides.push_back(*stride);
  }
  if (!v.mask)
    return form;
  size_t rank = v.shape.size();
  for (size_t d = 0; d < rank; ++d) {
    const auto &[begin, end] = (*v.mask)[d];
    std::optional<int64_t> b = begin.constant(), e = end.constant();
    bool wholeDim = b == 0 && st::symEqual({end}, {v.shape[d]});
    if (wholeDim)
      continue;
    if (!b || !e)
      return std::nullopt;
    // begin <= i (begin - 1 - i < 0) and i < end (i - end < 0).
    st::AffineCondition lo, hi;
    lo.coeffs.assign(rank, 0);
    lo.coeffs[d] = -1;
    lo.constant = *b - 1;
    hi.coeffs.assign(rank, 0);
    hi.coeffs[d] = 1;
    hi.constant = -*e;
    form.valid.push_back(std::move(lo));
    form.valid.push_back(std::move(hi));
  }
  return form;
}
