//===- BoundedIndex.cpp - a view's index simplified over loop ranges ------===//
//
// emitBoundedIndexAndValid (IndexExpr.h). Rules:
//   - an index value's form: an index constant is itself; an induction
//     variable of an scf.for or scf.parallel with constant bounds is a
//     Variable over [lower, upper - 1] (one per value); arith.addi is the
//     sum of its operands' forms, arith.muli by a constant the multiple;
//     anything else has no form, and the caller keeps its own arithmetic;
//   - the tracker's index and validity are tinygrad's expr_idxs at those
//     forms (SymShapeTracker::exprAt): each view below the outermost is
//     unflattened by division and remainder, which tinygrad's rules fold
//     where the bounds allow (a window position below a stride, a lane
//     below its tile);
//   - the form is used only when it has fewer divisions and remainders
//     than the view-by-view arithmetic (two per dim of each inner view);
//   - where tinygrad's algebra raises (sym::Error), there is no form. This
//     file is built with exceptions to catch it.
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/KernelCodegen/IndexExpr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;
namespace sym = ::lazy::st::sym;

namespace {

/// Index expressions are a few ops deep (a lane is base + constant); a
/// deeper one keeps its own arithmetic.
constexpr int kMaxFormDepth = 6;

class Forms {
public:
  /// The symbolic form of `v`, or null.
  sym::NodeP of(Value v, int depth = 0) {
    if (depth > kMaxFormDepth)
      return nullptr;
    if (std::optional<int64_t> c = getConstantIntValue(v))
      return sym::num(*c);
    auto known = forms.find(v);
    if (known != forms.end())
      return known->second;
    sym::NodeP form;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      form = inductionVariable(arg);
    } else if (auto add = v.getDefiningOp<arith::AddIOp>()) {
      sym::NodeP l = of(add.getLhs(), depth + 1),
                 r = of(add.getRhs(), depth + 1);
      if (l && r)
        form = sym::sum({l, r});
    } else if (auto mul = v.getDefiningOp<arith::MulIOp>()) {
      std::optional<int64_t> c = getConstantIntValue(mul.getRhs());
      Value other = mul.getLhs();
      if (!c) {
        c = getConstantIntValue(mul.getLhs());
        other = mul.getRhs();
      }
      if (c && *c >= 0)
        if (sym::NodeP x = of(other, depth + 1))
          form = sym::mul(x, *c);
    }
    forms[v] = form;
    return form;
  }

  /// Each Variable's value, by key, for emitSInt.
  VariableValues values;

private:
  sym::NodeP inductionVariable(BlockArgument arg) {
    Operation *owner = arg.getOwner()->getParentOp();
    std::optional<int64_t> lb, ub;
    if (auto loop = dyn_cast_or_null<scf::ForOp>(owner)) {
      if (arg != loop.getInductionVar())
        return nullptr;
      lb = getConstantIntValue(loop.getLowerBound());
      ub = getConstantIntValue(loop.getUpperBound());
    } else if (auto loop = dyn_cast_or_null<scf::ParallelOp>(owner)) {
      unsigned i = arg.getArgNumber();
      if (i >= loop.getNumLoops())
        return nullptr;
      lb = getConstantIntValue(loop.getLowerBound()[i]);
      ub = getConstantIntValue(loop.getUpperBound()[i]);
    }
    if (!lb || !ub || *ub <= *lb)
      return nullptr;
    sym::NodeP v =
        sym::var("loop" + std::to_string(values.size()), *lb, *ub - 1);
    if (v->kind == sym::Kind::Var)
      values[v->key()] = arg;
    return v;
  }

  llvm::DenseMap<Value, sym::NodeP> forms;
};

/// Distinct divisions and remainders in the expressions (a DAG walk).
int64_t divisionsIn(ArrayRef<sym::NodeP> roots) {
  llvm::DenseSet<const sym::Node *> seen;
  SmallVector<const sym::Node *> stack;
  for (const sym::NodeP &r : roots)
    stack.push_back(r.get());
  int64_t count = 0;
  while (!stack.empty()) {
    const sym::Node *n = stack.pop_back_val();
    if (!n || !seen.insert(n).second)
      continue;
    if (n->kind == sym::Kind::Div || n->kind == sym::Kind::Mod)
      ++count;
    stack.push_back(n->a.get());
    stack.push_back(n->bNode.get());
    for (const sym::NodeP &m : n->nodes)
      stack.push_back(m.get());
  }
  return count;
}

/// What emitIndexAndValid divides: every dim (but size 1) of each view
/// below the outermost, once by division and once by remainder.
int64_t viewByViewDivisions(const st::ShapeTracker &tracker) {
  int64_t count = 0;
  for (size_t k = 0; k + 1 < tracker.views.size(); ++k)
    for (int64_t size : tracker.views[k].shape)
      if (size != 1)
        count += 2;
  return count;
}

} // namespace

std::optional<IndexAndValid>
mlir::lazy::emitBoundedIndexAndValid(OpBuilder &b, Location loc,
                                     const st::ShapeTracker &tracker,
                                     ValueRange idx) {
  if (tracker.views.size() < 2)
    return std::nullopt;
  Forms forms;
  std::vector<sym::NodeP> at;
  for (Value v : idx) {
    sym::NodeP form = forms.of(v);
    if (!form)
      return std::nullopt;
    at.push_back(form);
  }
  sym::NodeP index, valid;
  try {
    std::tie(index, valid) =
        st::SymShapeTracker::fromTracker(tracker).exprAt(at);
  } catch (const sym::Error &) {
    return std::nullopt;
  }
  if (divisionsIn({index, valid}) >= viewByViewDivisions(tracker))
    return std::nullopt;
  IndexAndValid result;
  std::optional<int64_t> always = st::SInt(valid).constant();
  if (always == 0) {
    // No element is valid: any index, never read.
    result.index = arith::ConstantIndexOp::create(b, loc, 0);
    result.valid = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
    return result;
  }
  result.index = emitSInt(b, loc, st::SInt(index), forms.values);
  if (always != 1) {
    Value truth = emitSInt(b, loc, st::SInt(valid), forms.values);
    result.valid =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, truth,
                              arith::ConstantIndexOp::create(b, loc, 0));
  }
  return result;
}
