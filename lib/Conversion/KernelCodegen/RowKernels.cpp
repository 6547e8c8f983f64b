//===- RowKernels.cpp - kernels that compute per-row values once ----------===//
//
// Rules:
//   - a store group that reads computed values through views (a softmax's
//     max and sum read back through an expand) splits into rows when every
//     such view varies only along axes no reduce runs along: each row
//     computes the views' values once, in body order, then its elements;
//   - a row value's long float sum or max over the row's one inner axis may
//     run in vector lanes (setRowReduceLanes), and values that more than one
//     pass over the row computes are cached per row (rowCacheValues);
//   - a computed view outside a row split is the source at the index the
//     view maps to, 0 outside the view's mask.
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

FailureOr<Value> KernelEmitter::computedView(OpBuilder &b, ViewOp view,
                                             ValueRange idx) {
  Location loc = view.getLoc();
  Value src = view.getSrc();
  ArrayRef<int64_t> srcShape = cast<RankedTensorType>(src.getType()).getShape();
  bool symbolic =
      view.getTracker().isSymbolic() || hasSymbolicShape(src.getType());
  // A view that only expands and reorders its source (viewAxisSources)
  // reads the source at its own indices, moved.
  std::optional<SmallVector<int64_t>> sources = viewAxisSources(view);
  SmallVector<Value> srcIdx;
  Value valid;
  if (sources) {
    // For each source axis, the view axis that walks it (-1: size 1).
    SmallVector<int64_t> from(srcShape.size(), -1);
    for (auto [e, d] : llvm::enumerate(*sources))
      if (d >= 0)
        from[size_t(d)] = int64_t(e);
    for (int64_t e : from)
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
    if (!op || isEvaluationLeaf(op) || isa<ConstOp>(op) ||
        !closure.insert(v).second)
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
       opsComputingStores(stores, [](Operation *) { return true; })) {
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
