//===- SoftmaxSums.cpp - lazy.softmax_sum in one pass ---------------------===//
//
// Rules:
//   - one scf.for nest over the sum's axes carries the running maximum m
//     and normalizer l of the scaled scores and an accumulator per element;
//     each step reads the score x and, for s = scale * x,
//       m' = m > s ? m : s                  (a NaN score reaches the
//                                            result through its own p)
//       a  = m' == m ? 1 : exp2(m - m')     (1 while every score is -inf)
//       p  = m' == -inf ? 0 : exp2(s - m')  (a masked score adds nothing)
//       l  = l * a + p,  acc = acc * a + p * w
//     and the result is acc / l (NaN where every score is -inf, as the
//     four-op form gives);
//   - the arithmetic is f32 (f64 for an f64 result), the result cast to its
//     element type;
//   - a tile's elements that differ only along axes the scores are
//     constant along (a view's stride 0: the head dim of attention's output)
//     share one m, l and p: each score is computed once per step for all of
//     them, and lanes along such an axis make the accumulators vectors;
//   - where the scores carry masks (scoreMasksOf: a causal tril, a key
//     padding or length mask, where(c, x, -inf)), each block of keys
//     computes them first, scalar, where the scores then find them: a
//     block whose keys are all masked has the scores -inf without
//     computing them (their dot products), and a block whose scores are
//     all -inf leaves m, l and the accumulators as they are (which the
//     update would, at the cost of its exp2s and weighted sums);
//   - keys step in blocks of kSoftmaxSumKeyBlock: a single summed axis
//     that the block does not divide steps by full blocks, then the rest
//     (the tail) in blocks of 8, 4, 2 and 1 keys as its length's binary
//     digits say; several axes step by the largest block dividing the
//     innermost;
//   - a block of rows (emitSoftmaxSumRows) runs the key blocks outside
//     and its rows inside, each row's m, l and accumulators loaded from
//     and stored to the caller's scratch around its step; one tile of
//     elements instead carries them in the loop;
//   - the scores are software-pipelined: a trip computes the next block's
//     (one tile) or the next row's (a block of rows, over full blocks of
//     keys) while this one's exp2s and weighted sums wait on their own.
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/KernelCodegen/KernelEmitter.h"
#include "lazy/Dialect/Lazy/Analysis/KernelFacts.h"
#include "lazy/Dialect/Lazy/Analysis/OnlineSoftmax.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/ScopeExit.h"

#include <limits>

using namespace mlir;
using namespace mlir::lazy;

/// Keys per step of the innermost summed axis (see the rules for the
/// extents it does not divide): the per-block work (the block's maximum,
/// the rescale and its exp2) is spread over more keys.
static constexpr int64_t kSoftmaxSumKeyBlock = 16;
/// Lanes of a block's dot products (keyBlockReduce): one f32 vector (AVX2),
/// as many keys' dot products reduced at once.
static constexpr int64_t kDotLanes = 8;
/// The most ops weightsConstantAxes walks (a deeper value is not constant
/// along any axis, as far as it is concerned).
static constexpr size_t kMaxWeightOps = 256;

SmallVector<bool> mlir::lazy::scoresConstantAxes(SoftmaxSumOp op) {
  size_t rank = op.getScores().getType().getRank();
  SmallVector<bool> constant(rank, false);
  auto view = op.getScores().getDefiningOp<ViewOp>();
  if (!view || view.getTracker().isSymbolic())
    return constant;
  std::vector<std::optional<int64_t>> strides =
      view.getTracker().getTracker().realStrides();
  for (size_t a = 0; a < rank; ++a)
    constant[a] = strides[a] && *strides[a] == 0;
  return constant;
}

/// `v` (a float scalar or vector) extended to `t`'s width.
static Value extendTo(OpBuilder &b, Location loc, Value v, FloatType t) {
  Type have = getElementTypeOrSelf(v.getType());
  if (have == t)
    return v;
  Type want = t;
  if (auto vec = dyn_cast<VectorType>(v.getType()))
    want = vec.clone(t);
  if (cast<FloatType>(have).getWidth() < t.getWidth())
    return arith::ExtFOp::create(b, loc, want, v);
  return arith::TruncFOp::create(b, loc, want, v);
}

/// x > y ? x : y, which x86 has as one instruction (maxss/maxps).
Value mlir::lazy::greaterOf(OpBuilder &b, Location loc, Value x, Value y) {
  Value greater =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, y);
  return arith::SelectOp::create(b, loc, greater, x, y);
}

/// The larger of `m` and the maximum of the vector `s`: a tree of lane
/// swaps, every lane holding the maximum at the end.
static Value maxOfBlock(OpBuilder &b, Location loc, Value m, Value s) {
  int64_t n = cast<VectorType>(s.getType()).getNumElements();
  for (int64_t half = 1; half < n; half *= 2) {
    SmallVector<int64_t> swapped;
    for (int64_t lane = 0; lane < n; ++lane)
      swapped.push_back(lane ^ half);
    s = greaterOf(b, loc, s, vector::ShuffleOp::create(b, loc, s, s, swapped));
  }
  return greaterOf(b, loc, m, vector::ExtractOp::create(b, loc, s, 0));
}

Value mlir::lazy::scoreMaskHolds(OpBuilder &b, Location loc,
                                 const ScoreMask &mask, Value x) {
  if (mask.isCondition)
    return mask.maskedWhen
               ? x
               : arith::XOrIOp::create(
                     b, loc, x, arith::ConstantIntOp::create(b, loc, 1, 1))
                     .getResult();
  auto t = cast<FloatType>(x.getType());
  return arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OEQ, x,
      arith::ConstantOp::create(
          b, loc, b.getFloatAttr(t, -std::numeric_limits<double>::infinity())));
}

FailureOr<SmallVector<Value>> KernelEmitter::emitSoftmaxSumLoop(
    OpBuilder &b, SoftmaxSumOp op, ArrayRef<SmallVector<Value>> tileElements,
    const SoftmaxRowBlock *rows, SoftmaxSumFinish finish) {
  Location loc = op.getLoc();
  // The elements the steps compute: the tile's, or one row's of a block
  // of rows (its index along the row axis moved, setRow).
  SmallVector<SmallVector<Value>> elements(tileElements.begin(),
                                           tileElements.end());
  Type resultType = elementOf(op.getResult());
  FloatType acc = resultType.isF64() ? cast<FloatType>(b.getF64Type())
                                     : cast<FloatType>(b.getF32Type());
  ArrayRef<int64_t> axes = op.getAxes();
  // Elements that differ only along axes the scores are constant along
  // (or summed along) share a group: one m, l and p per step.
  SmallVector<bool> shared = scoresConstantAxes(op);
  for (int64_t a : axes)
    shared[size_t(a)] = true;
  SmallVector<unsigned> groupOf, firstOf;
  for (auto [e, idx] : llvm::enumerate(elements)) {
    auto same = llvm::find_if(firstOf, [&](unsigned f) {
      for (size_t a = 0; a < idx.size(); ++a)
        if (!shared[a] && elements[f][a] != idx[a])
          return false;
      return true;
    });
    if (same == firstOf.end()) {
      groupOf.push_back(unsigned(firstOf.size()));
      firstOf.push_back(unsigned(e));
    } else {
      groupOf.push_back(unsigned(same - firstOf.begin()));
    }
  }
  VectorType laneType =
      lanes ? VectorType::get({lanes->width}, acc) : VectorType();
  auto scalar = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(acc, v));
  };
  auto splatAt = [&](OpBuilder &sb, Value s) -> Value {
    return laneType ? vector::BroadcastOp::create(sb, loc, laneType, s) : s;
  };
  auto splat = [&](Value s) { return splatAt(b, s); };
  double inf = std::numeric_limits<double>::infinity();
  size_t groups = firstOf.size();
  // Carried: m and l per group, then an accumulator per element.
  SmallVector<Value> carried;
  for (size_t g = 0; g < groups; ++g) {
    carried.push_back(scalar(-inf));
    carried.push_back(scalar(0.0));
  }
  Value zeroAcc = splat(scalar(0.0));
  carried.append(elements.size(), zeroAcc);
  Value one = scalar(1.0), zero = scalar(0.0), negInf = scalar(-inf);
  Value scale = scalar(op.getScale().convertToDouble());

  // The innermost axis steps by a block of keys: their scores form one
  // vector, whose maximum rescales the accumulators once per block.
  int64_t extent = op.getScores().getType().getShape()[size_t(axes.back())];
  // One summed axis of at least kSoftmaxSumKeyBlock keys steps by full
  // blocks up to `mainEnd`, then in blocks of 8, 4, 2, 1 (a tail of fewer than
  // a block); several axes step by the largest block dividing the innermost.
  int64_t block = 1;
  int64_t mainEnd = extent;
  bool tail = false;
  if (!ShapedType::isDynamic(extent)) {
    for (int64_t b2 : {kSoftmaxSumKeyBlock, int64_t(8), int64_t(4), int64_t(2)})
      if (extent % b2 == 0) {
        block = b2;
        break;
      }
    if (axes.size() == 1 && block < kSoftmaxSumKeyBlock &&
        extent >= kSoftmaxSumKeyBlock) {
      block = kSoftmaxSumKeyBlock;
      mainEnd = extent - extent % block;
      tail = true;
    }
  }
  // The tail's blocks: the binary digits of its length (8, 4, 2, 1 keys:
  // a block's maximum is a tree of lane swaps), each one update.
  SmallVector<std::pair<int64_t, int64_t>> tailBlocks;
  if (tail) {
    int64_t first = mainEnd;
    for (int64_t count = kSoftmaxSumKeyBlock / 2; count > 0; count /= 2)
      if ((extent - mainEnd) & count) {
        tailBlocks.push_back({first, count});
        first += count;
      }
  }
  auto blockTypeOf = [&](size_t n) {
    return VectorType::get({int64_t(n)}, acc);
  };
  // Element e's index with the summed axes at `outer` (all but the
  // innermost) and the innermost at `key`.
  SmallVector<Value> outer;
  auto innerOf = [&](unsigned e, Value key) {
    SmallVector<Value> inner(elements[e].begin(), elements[e].end());
    for (auto [i, axis] : llvm::enumerate(axes.drop_back()))
      inner[size_t(axis)] = outer[i];
    inner[size_t(axes.back())] = key;
    return inner;
  };
  // The scaled scores of group g at `keys` (one block) as one vector.
  auto scoresOf = [&](OpBuilder &sb, size_t g,
                      ArrayRef<Value> keys) -> FailureOr<Value> {
    softmaxKeys.assign(keys.begin(), keys.end());
    llvm::scope_exit clearKeys([&] { softmaxKeys.clear(); });
    SmallVector<Value> scores;
    for (Value key : keys) {
      FailureOr<Value> x = evaluateIn(
          sb, op.getScores(), innerOf(firstOf[g], key), lanes.has_value());
      if (failed(x))
        return failure();
      if (isa<VectorType>(x->getType()))
        return op.emitOpError("has scores that vary along the lanes");
      scores.push_back(extendTo(sb, loc, *x, acc));
    }
    return arith::MulFOp::create(sb, loc,
                                 vector::FromElementsOp::create(
                                     sb, loc, blockTypeOf(keys.size()), scores),
                                 vector::BroadcastOp::create(
                                     sb, loc, blockTypeOf(keys.size()), scale))
        .getResult();
  };
  auto keysFrom = [&](OpBuilder &kb, Value first, int64_t count) {
    SmallVector<Value> keys = {first};
    for (int64_t k = 1; k < count; ++k)
      keys.push_back(arith::AddIOp::create(
          kb, loc, first, arith::ConstantIndexOp::create(kb, loc, k)));
    return keys;
  };
  // Masks (scoreMasksOf): a block whose keys are all masked is not
  // computed, its scores -inf; only the masks are, which the scores then
  // find computed.
  SmallVector<ScoreMask> masks = scoreMasksOf(op.getScores());
  auto allMasked = [&](OpBuilder &mb, size_t g,
                       ArrayRef<Value> keys) -> FailureOr<Value> {
    Value all;
    for (Value key : keys) {
      SmallVector<Value> inner = innerOf(firstOf[g], key);
      Value any;
      for (const ScoreMask &mask : masks) {
        SmallVector<Value> at;
        for (int64_t a : mask.scoresAxis)
          at.push_back(a < 0 ? zeroIndex(mb, loc) : inner[size_t(a)]);
        FailureOr<Value> x = evaluateIn(mb, mask.value, at, /*laneMode=*/false);
        if (failed(x))
          return failure();
        if (isa<VectorType>(x->getType()))
          return op.emitOpError("has a mask that varies along the lanes");
        Value masked = scoreMaskHolds(mb, loc, mask, *x);
        any = any ? arith::OrIOp::create(mb, loc, any, masked).getResult()
                  : masked;
      }
      all = all ? arith::AndIOp::create(mb, loc, all, any).getResult() : any;
    }
    return all;
  };
  auto blockScoresOf = [&](OpBuilder &sb, size_t g,
                           ArrayRef<Value> keys) -> FailureOr<Value> {
    if (masks.empty())
      return scoresOf(sb, g, keys);
    FailureOr<Value> masked = allMasked(sb, g, keys);
    if (failed(masked))
      return failure();
    LogicalResult status = success();
    Value negInfBlock =
        vector::BroadcastOp::create(sb, loc, blockTypeOf(keys.size()), negInf);
    auto ifOp = scf::IfOp::create(
        sb, loc, *masked,
        [&](OpBuilder &tb, Location) {
          scf::YieldOp::create(tb, loc, negInfBlock);
        },
        [&](OpBuilder &eb, Location) {
          scopes.emplace_back();
          FailureOr<Value> own = scoresOf(eb, g, keys);
          scopes.pop_back();
          if (failed(own))
            status = failure();
          scf::YieldOp::create(eb, loc, succeeded(own) ? *own : negInfBlock);
        });
    if (failed(status))
      return failure();
    return ifOp.getResult(0);
  };
  // Every group's scores at `keys`.
  auto groupScoresOf =
      [&](OpBuilder &sb,
          ArrayRef<Value> keys) -> FailureOr<SmallVector<Value>> {
    SmallVector<Value> scores;
    for (size_t g = 0; g < groups; ++g) {
      FailureOr<Value> own = blockScoresOf(sb, g, keys);
      if (failed(own))
        return failure();
      scores.push_back(*own);
    }
    return scores;
  };
  // One summed axis of two blocks or more is software-pipelined: each
  // trip computes the next block's scores (the last trip its own again)
  // while the softmax and the weighted sum of this block wait on the exp2s,
  // and carries them to the next trip.
  bool pipelined = !rows && axes.size() == 1 &&
                   !ShapedType::isDynamic(extent) && mainEnd >= 2 * block;
  size_t scoresAt = carried.size();
  if (pipelined) {
    scopes.emplace_back();
    llvm::scope_exit popScope([&] { scopes.pop_back(); });
    FailureOr<SmallVector<Value>> first = groupScoresOf(
        b, keysFrom(b, arith::ConstantIndexOp::create(b, loc, 0), block));
    if (failed(first))
      return failure();
    carried.append(first->begin(), first->end());
  }
  // Both exp2s may approximate (within 1 ulp on the CPU): the rescaled
  // sums round otherwise than the four-op form's anyway.
  auto approximate = arith::FastMathFlags::afn;
  size_t updated = 2 * groups + elements.size();
  // m, l and the accumulators after a block of keys whose scaled scores
  // (per group) are `scores`, from `state`.
  auto update = [&](OpBuilder &b, ArrayRef<Value> state, ArrayRef<Value> scores,
                    ArrayRef<Value> keys) -> FailureOr<SmallVector<Value>> {
    SmallVector<Value> next(updated);
    int64_t count = int64_t(keys.size());
    VectorType blockType = blockTypeOf(keys.size());
    SmallVector<Value> alphas(groups);
    SmallVector<SmallVector<Value>> probs(groups);
    for (size_t g = 0; g < groups; ++g) {
      Value s = scores[g];
      Value m = state[2 * g], l = state[2 * g + 1];
      Value mNext = maxOfBlock(b, loc, m, s);
      Value grew =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, mNext, m);
      Value rescale = math::Exp2Op::create(
          b, loc, arith::SubFOp::create(b, loc, m, mNext), approximate);
      Value alpha = arith::SelectOp::create(b, loc, grew, rescale, one);
      Value empty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                          mNext, negInf);
      Value shifted = arith::SubFOp::create(
          b, loc, s, vector::BroadcastOp::create(b, loc, blockType, mNext));
      Value p = arith::SelectOp::create(
          b, loc, empty, vector::BroadcastOp::create(b, loc, blockType, zero),
          math::Exp2Op::create(b, loc, shifted, approximate));
      next[2 * g] = mNext;
      next[2 * g + 1] = arith::AddFOp::create(
          b, loc, arith::MulFOp::create(b, loc, l, alpha),
          vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD, p));
      alphas[g] = splatAt(b, alpha);
      for (int64_t k = 0; k < count; ++k)
        probs[g].push_back(
            splatAt(b, vector::ExtractOp::create(b, loc, p, k).getResult()));
    }
    // Key by key, every element: a key's weights (loaded once, where they
    // do not vary along the elements' rows) serve all of them.
    SmallVector<Value> accNext;
    for (size_t e = 0; e < elements.size(); ++e)
      accNext.push_back(arith::MulFOp::create(b, loc, state[2 * groups + e],
                                              alphas[groupOf[e]]));
    for (int64_t k = 0; k < count; ++k) {
      for (size_t e = 0; e < elements.size(); ++e) {
        FailureOr<Value> w = evaluateIn(b, op.getWeights(),
                                        innerOf(unsigned(e), keys[size_t(k)]),
                                        lanes.has_value());
        if (failed(w))
          return failure();
        Value weight = lanes ? broadcastLanes(b, loc, *w) : *w;
        weight = extendTo(b, loc, weight, acc);
        accNext[e] = math::FmaOp::create(b, loc, probs[groupOf[e]][size_t(k)],
                                         weight, accNext[e]);
      }
    }
    for (size_t e = 0; e < elements.size(); ++e)
      next[2 * groups + e] = accNext[e];
    return next;
  };
  // update, skipped where masks made every score of the block -inf (which
  // would leave m, l and the accumulators as they are).
  auto updateUnlessMasked =
      [&](OpBuilder &b, ArrayRef<Value> state, ArrayRef<Value> scores,
          ArrayRef<Value> keys) -> FailureOr<SmallVector<Value>> {
    if (masks.empty())
      return update(b, state, scores, keys);
    Value live;
    for (Value s : scores) {
      Value above = arith::CmpFOp::create(
          b, loc, arith::CmpFPredicate::UNE, s,
          vector::BroadcastOp::create(b, loc, s.getType(), negInf));
      Value any =
          vector::ReductionOp::create(b, loc, vector::CombiningKind::OR, above);
      live = live ? arith::OrIOp::create(b, loc, live, any).getResult() : any;
    }
    SmallVector<Value> before(state.take_front(updated));
    LogicalResult status = success();
    auto ifOp = scf::IfOp::create(
        b, loc, live,
        [&](OpBuilder &tb, Location) {
          scopes.emplace_back();
          FailureOr<SmallVector<Value>> own = update(tb, state, scores, keys);
          scopes.pop_back();
          if (failed(own))
            status = failure();
          scf::YieldOp::create(
              tb, loc, succeeded(own) ? ValueRange(*own) : ValueRange(before));
        },
        [&](OpBuilder &eb, Location) {
          scf::YieldOp::create(eb, loc, before);
        });
    if (failed(status))
      return failure();
    return SmallVector<Value>(ifOp.getResults().begin(),
                              ifOp.getResults().end());
  };
  // Each element's value from the final state: acc / l.
  auto resultsOf = [&](OpBuilder &b, ArrayRef<Value> state) {
    SmallVector<Value> results;
    for (size_t e = 0; e < elements.size(); ++e) {
      Value l = splatAt(b, state[2 * groupOf[e] + 1]);
      Value r = arith::DivFOp::create(b, loc, state[2 * groups + e], l);
      results.push_back(
          extendTo(b, loc, r, cast<FloatType>(signless(resultType))));
    }
    return results;
  };

  SmallVector<Value> ivs;
  OpBuilder::InsertionGuard guard(b);
  SmallVector<int64_t> steps(axes.size(), 1);
  steps.back() = block;
  if (rows) {
    // A block of rows: the keys outside, the rows inside, each row's m, l
    // and accumulators in a scratch on the stack between its steps (the
    // keys' and values' block stays in L1 while every row reads it).
    int64_t width = laneType ? lanes->width : 1;
    int64_t slots = int64_t(updated);
    auto index = [&](OpBuilder &ib, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(ib, loc, v);
    };
    Value state = rows->state;
    auto stateType = cast<MemRefType>(state.getType());
    if (groups != 1 || stateType.getElementType() != acc ||
        stateType.getNumElements() !=
            softmaxRowStateSize(rows->rows, int64_t(elements.size()), width))
      return op.emitOpError("has a row block whose state does not fit it");
    auto slotAt = [&](OpBuilder &ib, Value row, int64_t slot) -> Value {
      return arith::AddIOp::create(
          ib, loc,
          arith::MulIOp::create(ib, loc, row, index(ib, slots * width)),
          index(ib, slot * width));
    };
    auto loadState = [&](OpBuilder &ib, Value row) {
      SmallVector<Value> values;
      for (int64_t i = 0; i < slots; ++i) {
        Value at = slotAt(ib, row, i);
        bool vector = laneType && i >= int64_t(2 * groups);
        values.push_back(
            vector ? vector::LoadOp::create(ib, loc, laneType, state, at)
                         .getResult()
                   : memref::LoadOp::create(ib, loc, state, at).getResult());
      }
      return values;
    };
    auto storeState = [&](OpBuilder &ib, Value row, ArrayRef<Value> values) {
      for (auto [i, v] : llvm::enumerate(values)) {
        Value at = slotAt(ib, row, int64_t(i));
        if (isa<VectorType>(v.getType()))
          vector::StoreOp::create(ib, loc, v, state, at);
        else
          memref::StoreOp::create(ib, loc, v, state, at);
      }
    };
    // The elements of row `row` of the block.
    auto setRow = [&](OpBuilder &ib, Value row) {
      for (auto [e, element] : llvm::enumerate(elements))
        element[rows->axis] =
            arith::AddIOp::create(ib, loc, tileElements[e][rows->axis], row);
    };
    // for row in [0, rows): body(row).
    auto forRows = [&](OpBuilder &ib,
                       function_ref<LogicalResult(OpBuilder &, Value)> body) {
      LogicalResult status = success();
      scf::ForOp::create(ib, loc, index(ib, 0), rows->count, index(ib, 1),
                         ValueRange{},
                         [&](OpBuilder &rb, Location, Value row, ValueRange) {
                           if (failed(body(rb, row)))
                             status = failure();
                           scf::YieldOp::create(rb, loc);
                         });
      return status;
    };
    (void)forRows(b, [&](OpBuilder &rb, Value row) {
      storeState(rb, row, carried);
      return success();
    });
    // Every row's step over `keys`.
    auto stepRows = [&](OpBuilder &kb, ArrayRef<Value> keys) {
      return forRows(kb, [&](OpBuilder &rb, Value row) {
        scopes.emplace_back();
        llvm::scope_exit popRow([&] { scopes.pop_back(); });
        setRow(rb, row);
        FailureOr<SmallVector<Value>> scores = groupScoresOf(rb, keys);
        if (failed(scores))
          return failure();
        FailureOr<SmallVector<Value>> after =
            updateUnlessMasked(rb, loadState(rb, row), *scores, keys);
        if (failed(after))
          return failure();
        storeState(rb, row, *after);
        return success();
      });
    };
    // The same over a full block of keys, pipelined: each trip computes
    // the next row's scores (the last trip its own again) while this row's
    // exp2s and weighted sum wait on its own, carried from the trip before.
    auto stepRowsPipelined = [&](OpBuilder &kb,
                                 ArrayRef<Value> keys) -> LogicalResult {
      auto scoresAtRow = [&](OpBuilder &sb,
                             Value row) -> FailureOr<SmallVector<Value>> {
        setRow(sb, row);
        return groupScoresOf(sb, keys);
      };
      scopes.emplace_back();
      FailureOr<SmallVector<Value>> first = scoresAtRow(kb, index(kb, 0));
      scopes.pop_back();
      if (failed(first))
        return failure();
      Value last = arith::SubIOp::create(kb, loc, rows->count, index(kb, 1));
      LogicalResult status = success();
      scf::ForOp::create(
          kb, loc, index(kb, 0), rows->count, index(kb, 1), *first,
          [&](OpBuilder &rb, Location, Value row, ValueRange scores) {
            scopes.emplace_back();
            llvm::scope_exit popRow([&] { scopes.pop_back(); });
            Value next = arith::MinSIOp::create(
                rb, loc, arith::AddIOp::create(rb, loc, row, index(rb, 1)),
                last);
            FailureOr<SmallVector<Value>> ahead = scoresAtRow(rb, next);
            setRow(rb, row);
            FailureOr<SmallVector<Value>> after =
                succeeded(ahead)
                    ? updateUnlessMasked(rb, loadState(rb, row),
                                         SmallVector<Value>(scores), keys)
                    : FailureOr<SmallVector<Value>>(failure());
            if (failed(after)) {
              status = failure();
              scf::YieldOp::create(rb, loc, scores);
              return;
            }
            storeState(rb, row, *after);
            scf::YieldOp::create(rb, loc, *ahead);
          });
      return status;
    };
    Value mainHi = index(b, mainEnd);
    SmallVector<Value> none;
    SmallVector<scf::ForOp> loops =
        openLoopNest(b, loc, op.getScores(), axes, steps, none, ivs);
    if (tail)
      loops.back().setUpperBound(mainHi);
    outer.assign(ivs.begin(), ivs.end() - 1);
    scopes.emplace_back();
    LogicalResult stepped =
        stepRowsPipelined(b, keysFrom(b, ivs.back(), block));
    scopes.pop_back();
    // The loops carry nothing: each body ends in the yield they came with.
    if (!loops.empty())
      b.setInsertionPointAfter(loops.front());
    if (failed(stepped)) {
      if (!loops.empty())
        loops.front().erase();
      return failure();
    }
    for (auto [first, count] : tailBlocks) {
      scopes.emplace_back();
      LogicalResult status = stepRows(b, keysFrom(b, index(b, first), count));
      scopes.pop_back();
      if (failed(status))
        return failure();
    }
    LogicalResult finished = forRows(b, [&](OpBuilder &rb, Value row) {
      setRow(rb, row);
      return finish(rb, elements, resultsOf(rb, loadState(rb, row)));
    });
    beginElement();
    if (failed(finished))
      return failure();
    return SmallVector<Value>();
  }

  Value mainHi = arith::ConstantIndexOp::create(b, loc, mainEnd);
  SmallVector<scf::ForOp> loops =
      openLoopNest(b, loc, op.getScores(), axes, steps, carried, ivs);
  if (tail)
    loops.back().setUpperBound(mainHi);
  outer.assign(ivs.begin(), ivs.end() - 1);
  auto fail = [&]() -> FailureOr<SmallVector<Value>> {
    if (!loops.empty())
      loops.front().erase();
    return failure();
  };
  SmallVector<Value> keys = keysFrom(b, ivs.back(), block);
  scopes.emplace_back();
  llvm::scope_exit popScope([&] { scopes.pop_back(); });
  SmallVector<Value> next(carried.size());
  if (pipelined) {
    Value ahead = arith::MinSIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, ivs.back(),
                              arith::ConstantIndexOp::create(b, loc, block)),
        arith::ConstantIndexOp::create(b, loc, mainEnd - block));
    FailureOr<SmallVector<Value>> nextScores =
        groupScoresOf(b, keysFrom(b, ahead, block));
    if (failed(nextScores))
      return fail();
    llvm::copy(*nextScores, next.begin() + scoresAt);
  }
  SmallVector<Value> scores(ArrayRef<Value>(carried).drop_front(scoresAt));
  if (!pipelined) {
    FailureOr<SmallVector<Value>> own = groupScoresOf(b, keys);
    if (failed(own))
      return fail();
    scores = std::move(*own);
  }
  FailureOr<SmallVector<Value>> after =
      updateUnlessMasked(b, carried, scores, keys);
  if (failed(after))
    return fail();
  for (size_t i = 0; i < updated; ++i)
    next[i] = (*after)[i];
  next = closeLoopNest(b, loc, loops, next);
  // The loop body's values stay inside it.
  scopes.pop_back();
  popScope.release();
  // The keys after the last full block, in the tail's blocks.
  SmallVector<Value> state(ValueRange(next).take_front(updated));
  for (auto [first, count] : tailBlocks) {
    scopes.emplace_back();
    SmallVector<Value> tailKeys =
        keysFrom(b, arith::ConstantIndexOp::create(b, loc, first), count);
    FailureOr<SmallVector<Value>> scores = groupScoresOf(b, tailKeys);
    FailureOr<SmallVector<Value>> after =
        succeeded(scores) ? updateUnlessMasked(b, state, *scores, tailKeys)
                          : FailureOr<SmallVector<Value>>(failure());
    scopes.pop_back();
    if (failed(after))
      return failure();
    state = std::move(*after);
  }
  if (tail)
    next = std::move(state);
  return resultsOf(b, next);
}

FailureOr<Value> KernelEmitter::emitSoftmaxSum(OpBuilder &b, SoftmaxSumOp op,
                                               ValueRange idx) {
  SmallVector<SmallVector<Value>> elements = {
      SmallVector<Value>(idx.begin(), idx.end())};
  std::optional<LaneAxis> outer = lanes;
  lanes.reset();
  llvm::scope_exit restore([&] { lanes = outer; });
  FailureOr<SmallVector<Value>> results = emitSoftmaxSumLoop(b, op, elements);
  if (failed(results))
    return failure();
  return results->front();
}

LogicalResult
KernelEmitter::emitSoftmaxSumTile(OpBuilder &b, ArrayRef<StoreOp> stores,
                                  ArrayRef<SmallVector<Value>> elements,
                                  SoftmaxSumOp op,
                                  std::optional<LaneAxis> laneAxis) {
  lanes = laneAxis;
  llvm::scope_exit reset([&] { lanes.reset(); });
  beginElement();
  FailureOr<SmallVector<Value>> results = emitSoftmaxSumLoop(b, op, elements);
  if (failed(results))
    return failure();
  return emitStoresOfReduce(b, stores, elements, op, *results);
}

LogicalResult KernelEmitter::emitSoftmaxSumRows(
    OpBuilder &b, ArrayRef<StoreOp> stores,
    ArrayRef<SmallVector<Value>> elements, SoftmaxSumOp op,
    std::optional<LaneAxis> laneAxis, SoftmaxRowBlock rows) {
  lanes = laneAxis;
  llvm::scope_exit reset([&] { lanes.reset(); });
  beginElement();
  auto finish = [&](OpBuilder &fb, ArrayRef<SmallVector<Value>> row,
                    ArrayRef<Value> values) {
    return emitStoresOfReduce(fb, stores, row, op, values);
  };
  return success(succeeded(emitSoftmaxSumLoop(b, op, elements, &rows, finish)));
}

SmallVector<bool> mlir::lazy::weightsConstantAxes(SoftmaxSumOp op) {
  // Every load and view the weights compute from (through elementwise ops:
  // f16 values cast up) must not move along the axis; a const never does.
  size_t rank = op.getWeights().getType().getRank();
  SmallVector<bool> constant(rank, op.getWeights().getDefiningOp() != nullptr);
  bool complete =
      walkOperands(op.getWeights(), kMaxWeightOps, [&](Operation *def) {
        if (isa<ConstOp>(def))
          return OperandWalk::Skip;
        ShapeTrackerAttr view;
        if (auto load = dyn_cast<LoadOp>(def))
          view = load.getView();
        else if (auto v = dyn_cast<ViewOp>(def))
          view = v.getTracker();
        if (view) {
          if (view.isSymbolic())
            return OperandWalk::Stop;
          std::vector<std::optional<int64_t>> strides =
              view.getTracker().realStrides();
          for (size_t a = 0; a < rank; ++a)
            constant[a] = constant[a] && strides[a] && *strides[a] == 0;
          return OperandWalk::Skip;
        }
        if (!def->hasTrait<OpTrait::lazy::Elementwise>() ||
            llvm::any_of(def->getOperands(),
                         [](Value x) { return !x.getDefiningOp(); }))
          return OperandWalk::Stop;
        return OperandWalk::Descend;
      });
  if (!complete)
    constant.assign(rank, false);
  return constant;
}

/// The sums of each of `parts` (kDotLanes vectors of as many
/// lanes) as one vector, lane k part k's: pairs of lanes added in three
/// rounds of shuffles, each round halving the vectors.
static Value transposedSums(OpBuilder &b, Location loc,
                            SmallVector<Value> parts) {
  int64_t n = int64_t(parts.size());
  for (int64_t run = 1; parts.size() > 1; run *= 2) {
    SmallVector<Value> next;
    for (size_t i = 0; i < parts.size(); i += 2) {
      // Per 2*run lanes: the first run of each vector in `lo`, the second
      // in `hi`; their sum adds each vector's pairs of runs.
      SmallVector<int64_t> lo, hi;
      for (int64_t lane = 0; lane < n; lane += 2 * run) {
        for (int64_t r = 0; r < run; ++r)
          lo.push_back(lane + r);
        for (int64_t r = 0; r < run; ++r)
          lo.push_back(n + lane + r);
        for (int64_t r = 0; r < run; ++r)
          hi.push_back(lane + run + r);
        for (int64_t r = 0; r < run; ++r)
          hi.push_back(n + lane + run + r);
      }
      Value a = vector::ShuffleOp::create(b, loc, parts[i], parts[i + 1], lo);
      Value c = vector::ShuffleOp::create(b, loc, parts[i], parts[i + 1], hi);
      next.push_back(arith::AddFOp::create(b, loc, a, c));
    }
    parts = std::move(next);
  }
  return parts.front();
}

FailureOr<Value> KernelEmitter::keyBlockReduce(OpBuilder &b, Operation *op,
                                               ValueRange idx) {
  auto sum = dyn_cast<ReduceSumOp>(op);
  int64_t width = kDotLanes;
  if (!sum || sum.getAxes().size() != 1 ||
      int64_t(softmaxKeys.size()) % width != 0 ||
      !elementOf(sum.getResult()).isF32())
    return Value();
  size_t axis = size_t(sum.getAxes()[0]);
  int64_t extent = sum.getSrc().getType().getShape()[axis];
  if (ShapedType::isDynamic(extent) || extent % width || extent < width)
    return Value();
  // The one index position that holds a key, the first of its run of
  // kDotLanes keys (the others find their values memoized).
  std::optional<size_t> at;
  std::optional<size_t> firstKey;
  for (auto [d, v] : llvm::enumerate(idx)) {
    auto *key = llvm::find(softmaxKeys, v);
    if (key == softmaxKeys.end())
      continue;
    size_t k = size_t(key - softmaxKeys.begin());
    if (at || d == axis || k % size_t(width))
      return Value();
    at = d;
    firstKey = k;
  }
  if (!at)
    return Value();
  SmallVector<Value> run(
      ArrayRef<Value>(softmaxKeys).slice(*firstKey, size_t(width)));
  Location loc = op->getLoc();
  SmallVector<SmallVector<Value>> elements;
  for (Value key : run) {
    SmallVector<Value> e(idx.begin(), idx.end());
    e[*at] = key;
    elements.push_back(std::move(e));
  }
  Type f32 = b.getF32Type();
  auto laneType = VectorType::get({width}, f32);
  std::optional<LaneAxis> outer = lanes;
  SmallVector<Value> keys = std::move(softmaxKeys);
  softmaxKeys.clear();
  llvm::scope_exit restore([&] {
    lanes = outer;
    softmaxKeys = keys;
  });
  lanes = LaneAxis{axis, width};
  Value zero = constantLike(b, loc, b.getF32FloatAttr(0.0f), laneType);
  SmallVector<Value> accs(elements.size(), zero);
  OpBuilder::InsertionGuard guard(b);
  Value lo = arith::ConstantIndexOp::create(b, loc, 0);
  Value hi = arith::ConstantIndexOp::create(b, loc, extent);
  Value step = arith::ConstantIndexOp::create(b, loc, width);
  auto loop = scf::ForOp::create(b, loc, lo, hi, step, accs);
  b.setInsertionPointToStart(loop.getBody());
  scopes.emplace_back();
  SmallVector<Value> next;
  for (auto [e, element] : llvm::enumerate(elements)) {
    SmallVector<Value> inner(element);
    inner[axis] = loop.getInductionVar();
    FailureOr<Value> x = evaluateIn(b, sum.getSrc(), inner, /*laneMode=*/true);
    if (failed(x)) {
      scopes.pop_back();
      loop.erase();
      return failure();
    }
    next.push_back(combine(b, loc, loop.getRegionIterArgs()[e],
                           broadcastLanes(b, loc, *x), f32, /*isSum=*/true,
                           /*contract=*/true));
  }
  scopes.pop_back();
  scf::YieldOp::create(b, loc, next);
  b.setInsertionPointAfter(loop);
  Value sums = transposedSums(
      b, loc,
      SmallVector<Value>(loop.getResults().begin(), loop.getResults().end()));
  Value first;
  for (auto [k, element] : llvm::enumerate(elements)) {
    Value v = vector::ExtractOp::create(b, loc, sums, int64_t(k));
    if (k == 0) {
      first = v;
      continue;
    }
    scopes.back().scalar[sum.getResult()].push_back(
        {SmallVector<Value, 4>(element.begin(), element.end()), v});
  }
  return first;
}
