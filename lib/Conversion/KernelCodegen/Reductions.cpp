//===- Reductions.cpp - reduce loops, accumulators and register tiles -----===//
//
// Rules:
//   - a reduce is an scf.for nest over its axes with an accumulator (0 for
//     sum, the dtype's lowest value for max), unless a target overrides it;
//     with reassociateSums (the CPU) float sums of at least
//     kReorderMinElements elements may reorder, integer max uses
//     maxsi/maxui, and float max is IEEE maximum in any order, run again in
//     index order where it gives a NaN or a zero (the only results the
//     order can change);
//   - a register tile computes the top-level reduces of all its elements in
//     one loop nest; its long float sums of products (those that may
//     reorder) contract into fused multiply-adds on the CPU, split over
//     several accumulators, and with setPrefetchSteps its vector loads that
//     move a cache line or more per reduce step are prefetched that many
//     steps ahead.
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

bool mlir::lazy::nextOffsets(MutableArrayRef<int64_t> offsets,
                             ArrayRef<int64_t> limits) {
  size_t i = offsets.size();
  while (i > 0 && ++offsets[i - 1] == limits[i - 1])
    offsets[--i] = 0;
  return i > 0;
}

SmallVector<Value> mlir::lazy::closeLoopNest(OpBuilder &b, Location loc,
                                             ArrayRef<scf::ForOp> loops,
                                             ArrayRef<Value> values) {
  SmallVector<Value> next(values.begin(), values.end());
  for (scf::ForOp loop : llvm::reverse(loops)) {
    b.setInsertionPointToEnd(loop.getBody());
    scf::YieldOp::create(b, loc, next);
    next.assign(loop.getResults().begin(), loop.getResults().end());
  }
  if (!loops.empty())
    b.setInsertionPointAfter(loops.front());
  return next;
}

SmallVector<scf::ForOp> KernelEmitter::openLoopNest(OpBuilder &b, Location loc,
                                                    Value input,
                                                    ArrayRef<int64_t> axes,
                                                    ArrayRef<int64_t> steps,
                                                    SmallVector<Value> &carried,
                                                    SmallVector<Value> &ivs) {
  SmallVector<scf::ForOp> loops;
  for (auto [axis, step] : llvm::zip(axes, steps)) {
    Value lo = arith::ConstantIndexOp::create(b, loc, 0);
    Value hi = extentOf(b, loc, input, size_t(axis));
    Value stepValue = arith::ConstantIndexOp::create(b, loc, step);
    auto loop = scf::ForOp::create(b, loc, lo, hi, stepValue, carried);
    ivs.push_back(loop.getInductionVar());
    carried.assign(loop.getRegionIterArgs().begin(),
                   loop.getRegionIterArgs().end());
    b.setInsertionPointToStart(loop.getBody());
    loops.push_back(loop);
  }
  return loops;
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
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Value> carried = {acc}, ivs;
  SmallVector<scf::ForOp> loops =
      openLoopNest(b, loc, op->getOperand(0), axes,
                   SmallVector<int64_t>(axes.size(), 1), carried, ivs);
  for (auto [axis, iv] : llvm::zip(axes, ivs))
    inner[size_t(axis)] = iv;
  acc = carried.front();
  FailureOr<Value> x = evaluateReduceInput(b, op, inner);
  if (failed(x)) {
    if (!loops.empty())
      loops.front().erase();
    return failure();
  }
  Value next = step(b, acc, *x);
  // Close the nest from the inside out: each loop yields its accumulator.
  return closeLoopNest(b, loc, loops, {next}).front();
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
  // step, each in index order, added in step order at the end; a tile of
  // kLatencyAccumulators vectors or more keeps one (KernelFacts.h).
  int64_t split = splitCount(op, unroll, reassociateSums,
                             lanes ? int64_t(elements.size()) : 0);
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
  SmallVector<Value> ivs;
  OpBuilder::InsertionGuard guard(b);
  // A symbolic axis runs to its value (plans leave it unrolled by 1).
  SmallVector<int64_t> unrolled;
  for (int64_t axis : axes)
    unrolled.push_back(unroll[axis]);
  SmallVector<scf::ForOp> loops =
      openLoopNest(b, loc, op->getOperand(0), axes, unrolled, accs, ivs);
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
  // The partials meet after the nest.
  accs = closeLoopNest(b, loc, loops, accs);
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

LogicalResult
KernelEmitter::emitStoresOfReduce(OpBuilder &b, ArrayRef<StoreOp> stores,
                                  ArrayRef<SmallVector<Value>> elements,
                                  Operation *reduce, ArrayRef<Value> values,
                                  Value extraGuard) {
  tileReduces.clear();
  llvm::scope_exit reset([&] { tileReduces.clear(); });
  for (auto [e, value] : llvm::enumerate(values))
    tileReduces[{reduce, unsigned(e)}] = value;
  return emitStoreGroups(b, stores, elements, extraGuard);
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
