//===- BlockReductions.cpp - GPU block mode and row mode ------------------===//
//
// Rules:
//   - block mode: one output element per block at a time; the block's
//     threads split the reduced elements (in runs of up to kMaxBlockLanes
//     consecutive elements where the loads allow), each accumulating its
//     share, and a gpu.all_reduce combines the partials. Narrow types are
//     reduced in 32 bits (the same bits for integers and bool); a float
//     max is IEEE maximum across the threads, rerun in index order where
//     the block's result is a NaN or a zero;
//   - row mode: a block per row, its computed views first (long reduces as
//     block reductions), then the row's elements split across the threads;
//   - an unrolled grid-stride loop visits indices in the plain loop's
//     order, so sums add in the same order, with `factor` loads in flight
//     per thread.
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/KernelCodegen/GPU/BlockReductions.h"
#include "lazy/Conversion/KernelCodegen/GPU/SharedTiles.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::lazy;

static int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

FailureOr<SmallVector<Value>>
mlir::lazy::emitUnrolledLoop(OpBuilder &b, Location loc, Value start, Value end,
                             Value step, int64_t factor, ValueRange inits,
                             UnrolledBody body) {
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  auto emitLoop = [&](Value lower, Value upper, Value stride,
                      ArrayRef<Value> offsets,
                      ValueRange carried) -> FailureOr<scf::ForOp> {
    auto loop = scf::ForOp::create(b, loc, lower, upper, stride, carried);
    Block *block = loop.getBody();
    OpBuilder lb = OpBuilder::atBlockEnd(block);
    if (!block->empty() && block->back().hasTrait<OpTrait::IsTerminator>())
      lb.setInsertionPoint(&block->back());
    SmallVector<Value> indices{loop.getInductionVar()};
    for (Value offset : offsets)
      indices.push_back(
          arith::AddIOp::create(lb, loc, loop.getInductionVar(), offset));
    FailureOr<SmallVector<Value>> next =
        body(lb, indices, loop.getRegionIterArgs());
    if (failed(next)) {
      loop.erase();
      return failure();
    }
    if (!carried.empty())
      scf::YieldOp::create(lb, loc, *next);
    return loop;
  };
  if (factor <= 1) {
    FailureOr<scf::ForOp> loop = emitLoop(start, end, step, {}, inits);
    if (failed(loop))
      return failure();
    return SmallVector<Value>(loop->getResults());
  }
  SmallVector<Value> offsets;
  for (int64_t u = 1; u < factor; ++u)
    offsets.push_back(arith::MulIOp::create(b, loc, step, cst(u)));
  Value span = offsets.back();
  Value mainEnd = arith::SelectOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, end, span),
      arith::SubIOp::create(b, loc, end, span), cst(0));
  Value mainStep = arith::MulIOp::create(b, loc, step, cst(factor));
  FailureOr<scf::ForOp> main =
      emitLoop(start, mainEnd, mainStep, offsets, inits);
  if (failed(main))
    return failure();
  // The first index the main loop did not take.
  Value trips = arith::SelectOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, mainEnd, start),
      arith::CeilDivUIOp::create(
          b, loc, arith::SubIOp::create(b, loc, mainEnd, start), mainStep),
      cst(0));
  Value restStart = arith::AddIOp::create(
      b, loc, start, arith::MulIOp::create(b, loc, trips, mainStep));
  FailureOr<scf::ForOp> rest =
      emitLoop(restStart, end, step, {}, main->getResults());
  if (failed(rest)) {
    main->erase();
    return failure();
  }
  return SmallVector<Value>(rest->getResults());
}

/// Block mode's runs are at most this many lanes.
constexpr int64_t kMaxBlockLanes = 8;

std::optional<LaneAxis> GpuKernelEmitter::blockLanes(Operation *reduce) const {
  ArrayRef<int64_t> axes = reduceAxes(reduce);
  ArrayRef<int64_t> inShape =
      cast<RankedTensorType>(reduce->getOperand(0).getType()).getShape();
  size_t axis = size_t(axes.back());
  int64_t widest = 1;
  bool contiguous = false;
  SmallVector<Value> stack{reduce->getOperand(0)};
  DenseSet<Operation *> seen;
  while (!stack.empty()) {
    Operation *op = stack.pop_back_val().getDefiningOp();
    if (!op || !seen.insert(op).second)
      continue;
    if (isa<ReduceSumOp, ReduceMaxOp>(op) || isComputedView(op))
      return std::nullopt;
    if (auto load = dyn_cast<LoadOp>(op)) {
      Type element = load.getBuffer().getType().getElementType();
      if (element.isInteger(1) || element.isBF16())
        return std::nullopt;
      widest = std::max(widest, itemSize(element));
      std::optional<int64_t> stride =
          load.getView().getTracker().realStrides(/*ignoreValid=*/true)[axis];
      if (stride != 0 && stride != 1)
        return std::nullopt;
      contiguous |= stride == 1;
      continue;
    }
    for (Value operand : op->getOperands())
      stack.push_back(operand);
  }
  if (!contiguous)
    return std::nullopt;
  int64_t width = std::min(kMaxBlockLanes, kGpuVectorBytes / widest);
  while (width >= 2 && inShape[axis] % width != 0)
    width /= 2;
  if (width < 2)
    return std::nullopt;
  return LaneAxis{axis, width};
}

FailureOr<Value> GpuKernelEmitter::emitReduce(OpBuilder &b, Operation *op,
                                              ValueRange idx) {
  if (!blockMode || reduceDepth() != 0)
    return KernelEmitter::emitReduce(b, op, idx);
  if (failed(hoistInvariantViews(b, op, idx)))
    return failure();
  bool isSum = isa<ReduceSumOp>(op);
  Location loc = op->getLoc();
  Type t = elementOf(op->getResult(0));
  Type s = signless(t);
  ArrayRef<int64_t> axes = reduceAxes(op);
  ArrayRef<int64_t> inShape =
      cast<RankedTensorType>(op->getOperand(0).getType()).getShape();
  SmallVector<int64_t> reducedShape;
  for (int64_t axis : axes)
    reducedShape.push_back(inShape[axis]);

  // Each thread accumulates elements tid, tid + blockDim, ... of the
  // flattened reduced axes, `reduceUnroll` of them loaded per trip; with
  // lanes (blockLanes), runs of that many consecutive elements, one vector
  // load each, runs tid, tid + blockDim, ..., each added in index order.
  std::optional<LaneAxis> laneAxis = blockLanes(op);
  int64_t width = laneAxis ? laneAxis->width : 1;
  // A float max in index order (acc > x ? acc : x) depends on the order
  // through NaNs and zeros' signs only: the threads take IEEE maximum
  // (NaNs propagate, -0 below +0), and where the block's result is a NaN
  // or a zero every thread runs the reduce again in index order.
  bool floatMax = !isSum && isa<FloatType>(s);
  Value init = arith::ConstantOp::create(b, loc, reduceInit(b, t, isSum));
  Value total =
      arith::ConstantIndexOp::create(b, loc, numElements(reducedShape) / width);
  Value widthValue = arith::ConstantIndexOp::create(b, loc, width);
  FailureOr<SmallVector<Value>> accumulated = emitUnrolledLoop(
      b, loc, threadId, total, blockDim,
      std::max<int64_t>(1, reduceUnroll / width), ValueRange{init},
      [&](OpBuilder &lb, ArrayRef<Value> flat,
          ValueRange acc) -> FailureOr<SmallVector<Value>> {
        SmallVector<Value> xs;
        for (Value f : flat) {
          if (laneAxis)
            f = arith::MulIOp::create(lb, loc, f, widthValue);
          SmallVector<Value> inner(idx.begin(), idx.end());
          for (auto [axis, v] :
               llvm::zip(axes, delinearizeIndex(lb, loc, f, reducedShape)))
            inner[axis] = v;
          FailureOr<Value> x =
              laneAxis ? evaluateReduceInputLanes(lb, op, inner, *laneAxis)
                       : evaluateReduceInput(lb, op, inner);
          if (failed(x))
            return failure();
          if (!laneAxis) {
            xs.push_back(*x);
            continue;
          }
          for (int64_t l = 0; l < width; ++l)
            xs.push_back(vector::ExtractOp::create(lb, loc, *x, l));
        }
        Value sum = acc[0];
        for (Value x : xs)
          sum = floatMax
                    ? arith::MaximumFOp::create(lb, loc, sum, x).getResult()
                    : combine(lb, loc, sum, x, t, isSum,
                              contractsSumOfProducts());
        return SmallVector<Value>{sum};
      });
  if (failed(accumulated))
    return failure();
  Value partial = (*accumulated)[0];

  // Combine the block's partial results in at least 32 bits: shuffles move
  // 32-bit lanes, and for integers the low bits of a wider sum or max are
  // the narrow result.
  using Kind = gpu::AllReduceOperation;
  Kind kind;
  Value wide = partial;
  if (auto f = dyn_cast<FloatType>(s)) {
    kind = isSum ? Kind::ADD : Kind::MAXIMUMF;
    if (f.getWidth() < 32)
      wide = arith::ExtFOp::create(b, loc, b.getF32Type(), partial);
  } else {
    unsigned width = s.getIntOrFloatBitWidth();
    if (width == 1)
      kind = Kind::OR; // bool: sum and max are both "any"
    else if (isSum)
      kind = Kind::ADD;
    else
      kind = isUnsignedInt(t) ? Kind::MAXUI : Kind::MAXSI;
    if (width < 32)
      wide = isUnsignedInt(t)
                 ? arith::ExtUIOp::create(b, loc, b.getI32Type(), partial)
                       .getResult()
                 : arith::ExtSIOp::create(b, loc, b.getI32Type(), partial)
                       .getResult();
  }
  Value reduced = gpu::AllReduceOp::create(
      b, loc, wide, gpu::AllReduceOperationAttr::get(b.getContext(), kind),
      /*uniform=*/true);
  if (wide != partial)
    reduced = isa<FloatType>(s)
                  ? arith::TruncFOp::create(b, loc, s, reduced).getResult()
                  : arith::TruncIOp::create(b, loc, s, reduced).getResult();
  if (!floatMax)
    return reduced;
  return inOrderWhereMaxDiffers(b, op, idx, reduced);
}

/// Row mode: block b takes rows b, b + gridDim, ...; each row's computed
/// views come first, then its elements, thread t taking elements t,
/// t + blockDim, ... of the row. With `blockReduces` the views' outermost
/// reduces are block reductions (which every thread of the block reaches
/// together); without, each thread computes them alone in index order.
LogicalResult mlir::lazy::lowerRows(OpBuilder &b, GpuKernelEmitter &emitter,
                                    StoreGroup &group, const RowSplit &split,
                                    ArrayRef<int64_t> rowShape,
                                    ArrayRef<int64_t> innerShape,
                                    bool blockReduces, Value tid, Value bid,
                                    Value bdim, Value gdim) {
  Location loc = group.stores.front().getLoc();
  Value zero = emitter.zeroIndex(b, loc);
  // Scatters the row's (or an element's) own indices into a full index.
  auto scatter = [&](SmallVector<Value> &idx, ArrayRef<Value> part,
                     bool rowPart) {
    size_t next = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      if (split.rowAxis[d] == rowPart)
        idx[d] = part[next++];
  };
  Value rows = arith::ConstantIndexOp::create(b, loc, numElements(rowShape));
  Value inner = arith::ConstantIndexOp::create(b, loc, numElements(innerShape));
  FailureOr<SmallVector<Value>> done = emitUnrolledLoop(
      b, loc, bid, rows, gdim, 1, ValueRange{},
      [&](OpBuilder &rb, ArrayRef<Value> row,
          ValueRange) -> FailureOr<SmallVector<Value>> {
        SmallVector<Value> rowIdx(group.shape.size(), zero);
        scatter(rowIdx, delinearizeIndex(rb, loc, row[0], rowShape, zero),
                true);
        emitter.blockMode = blockReduces;
        LogicalResult began = emitter.beginRow(rb, split, rowIdx);
        emitter.blockMode = false;
        if (failed(began))
          return failure();
        FailureOr<SmallVector<Value>> elements = emitUnrolledLoop(
            rb, loc, tid, inner, bdim, 1, ValueRange{},
            [&](OpBuilder &eb, ArrayRef<Value> flat,
                ValueRange) -> FailureOr<SmallVector<Value>> {
              SmallVector<Value> idx = rowIdx;
              scatter(idx, delinearizeIndex(eb, loc, flat[0], innerShape, zero),
                      false);
              if (failed(emitter.emitStoreGroup(eb, group.stores, idx)))
                return failure();
              return SmallVector<Value>{};
            });
        emitter.endRow();
        if (failed(elements))
          return failure();
        return SmallVector<Value>{};
      });
  return failure(failed(done));
}
