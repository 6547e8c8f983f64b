//===- AttentionTiles.cpp - attention's softmax_sum on tensor cores -------===//
//
// FlashAttention-2's loop for a lazy.softmax_sum on mma.sync m16n8k16 (or
// MFMA 16x16x16; f16 or bf16 operands, f32 accumulators). Rules:
//   1. a block of up to kAttentionWarps warps takes a tile of 16 query rows
//      per warp at a time (one element of every other output axis),
//      grid-stride; rows past the queries read the last row's operands and
//      are not stored;
//   2. each warp's Q fragments (16 of the dot product's depth each) are
//      gathered once per tile; past the depth they are 0;
//   3. per block of 16 keys, the block's threads copy the keys' K rows
//      (the depth) and V rows (the head dim) into shared memory, 0 past
//      the keys, the depth and the head dim, between two barriers; the
//      warps read their K and V fragments from there; where the scores
//      carry masks (scoreMasksOf: causal, key padding, lengths), a block of
//      keys they mask for every row of the block (an or over its threads,
//      gpu.all_reduce) is skipped past the copy;
//   4. S = Q K^T as two 16x8 tiles, one mma.sync per 16 of depth; each
//      lane's eight scores go through the rest of the scores (scale, masks,
//      biases, caps: KernelEmitter with the dot product pinned to the
//      fragment's value) and are -inf past the keys;
//   5. the online softmax of SoftmaxSums.cpp per row: the block's row
//      maximum from the lane's four values of the row and two xor shuffles
//      (PTX's C layout gives row g and g + 8 to lanes 4g to 4g + 3), the
//      new maximum m' and the rescale alpha, p = exp2(s - m') (0 where m'
//      is -inf); each lane keeps its share of l, added across its four
//      lanes at the end;
//   6. P rounded to the operands' type is the A fragment of P V as it
//      stands (the C layout of two 16x8 tiles is the A layout of one 16x16
//      tile): per 8 columns of the head dim one mma.sync with V's B
//      fragment, onto the accumulators rescaled by alpha;
//   7. each lane's outputs O / l go through the rest of the kernel (a cast
//      to f16) and are stored where inside the queries and the head dim.
// AMD's instructions compute S^T = K Q^T instead (emitTransposedTile): a
// lane's scores are then one query's. On MFMA they are the B fragment of
// O^T = V^T P^T as they stand; on WMMA (RDNA3) a lane holds the even or
// odd keys of its query, and P^T's B fragment takes the other half from
// lane l ^ 16.
// Scores past a mask stay exact; P in 16 bits rounds as FlashAttention's
// kernels do, and products of the dot product are exact where the graph
// rounds them to 16 bits first (TensorCores.h).
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/KernelCodegen/GPU/AttentionTiles.h"
#include "lazy/Conversion/KernelCodegen/GPU/SharedTiles.h"
#include "lazy/Conversion/KernelCodegen/GPU/TensorCores.h"
#include "lazy/Dialect/Lazy/Analysis/OnlineSoftmax.h"
#include "lazy/Dialect/Lazy/Analysis/ProductReduce.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::lazy;

namespace {

/// Query rows per warp's tile (mma.sync's M) and keys per step (two of its
/// N, one of its K).
constexpr int64_t kTileRows = 16, kBlockKeys = 16;
/// Warps of a block, each its own 16 query rows, sharing each block of
/// keys' K and V rows in shared memory.
constexpr int64_t kAttentionWarps = 4;
/// The largest depth and head dim: the Q fragments and the accumulators
/// stay in registers (64 f32 accumulators per lane at 256 columns).
constexpr int64_t kMaxAttentionHeadDim = 256;

bool isSixteenBitFloat(Type t) { return t.isF16() || t.isBF16(); }

/// Whether every element of `v` is a value of the 16-bit float type
/// `element`: `v` is of that type, or a float cast of such a value, read
/// through views (which move and pad values, never change them). Its
/// elements then convert to `element` exactly.
bool holdsSixteenBitValues(Value v, Type element) {
  while (auto view = v.getDefiningOp<ViewOp>())
    v = view.getSrc();
  if (getElementTypeOrSelf(v.getType()) == element)
    return true;
  auto cast = v.getDefiningOp<CastOp>();
  return cast && getElementTypeOrSelf(cast.getSrc().getType()) == element;
}

/// Builds the tile's code; one per emitAttentionTensorCores.
class AttentionTileBuilder {
public:
  AttentionTileBuilder(OpBuilder &b, Location loc, KernelEmitter &emitter,
                       ArrayRef<StoreOp> stores, const AttentionTensorCores &a,
                       gpu::GPUFuncOp func, Value threadId,
                       int64_t blockThreads)
      : b(b), loc(loc), emitter(emitter), stores(stores), a(a), op(a.op),
        kind(a.kind), masks(scoreMasksOf(op.getScores())), threadId(threadId),
        blockThreads(blockThreads) {
    f32 = b.getF32Type();
    // Rows padded by kTensorCoreRowPad elements: neighbouring keys' rows
    // start in other shared-memory banks.
    // The head dim's columns per tile: 8 on mma.sync, 16 on MFMA and WMMA.
    int64_t columnStep = kind == TensorCoreKind::MmaSync ? 8 : 16;
    keyStride = llvm::divideCeilSigned(a.depth, 16) * 16 + kTensorCoreRowPad;
    valueStride = llvm::divideCeilSigned(a.headDim, columnStep) * columnStep +
                  kTensorCoreRowPad;
    keyTile =
        addWorkgroupBuffer(b, loc, func, a.element, kBlockKeys * keyStride);
    valueTile =
        addWorkgroupBuffer(b, loc, func, a.element, kBlockKeys * valueStride);
    Value lane =
        arith::RemUIOp::create(b, loc, threadId, cst(tensorCoreLanes(kind)));
    if (kind == TensorCoreKind::Mfma) {
      q16 = arith::RemUIOp::create(b, loc, lane, cst(16));
      quad4 = arith::MulIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, lane, cst(16)), cst(4));
      return;
    }
    if (kind == TensorCoreKind::Wmma) {
      q16 = arith::RemUIOp::create(b, loc, lane, cst(16));
      half = arith::DivUIOp::create(b, loc, lane, cst(16));
      return;
    }
    Value four = cst(4);
    g = arith::DivUIOp::create(b, loc, lane, four);
    t2 = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, lane, four), cst(2));
  }

  /// The tile whose first element (its first row) is `base`.
  LogicalResult emitTile(ArrayRef<Value> base) {
    return kind == TensorCoreKind::MmaSync ? emitMmaSyncTile(base)
                                           : emitTransposedTile(base);
  }

private:
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value floatConst(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(float(v)));
  }
  /// first + laneTerm + c (laneTerm may be null).
  Value at(Value first, Value laneTerm, int64_t c) {
    Value v = first;
    if (laneTerm)
      v = arith::AddIOp::create(b, loc, v, laneTerm);
    if (c)
      v = arith::AddIOp::create(b, loc, v, cst(c));
    return v;
  }
  /// min(i, extent - 1): an index read in bounds.
  Value clampTo(Value i, int64_t extent) {
    return arith::MinUIOp::create(b, loc, i, cst(extent - 1));
  }
  Value below(Value i, int64_t extent) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i,
                                 cst(extent));
  }
  /// `key` read in bounds: past the keys, the last one (whose score is
  /// then -inf, whose values 0).
  Value keyRead(Value key) {
    return a.keys % kBlockKeys ? clampTo(key, a.keys) : key;
  }
  /// Q at (row, depth) as the operands' type, 0 past the depth.
  FailureOr<Value> queryAt(ArrayRef<Value> base, Value row, Value depth) {
    bool raggedDepth = a.depth % 16 != 0;
    return operandAt(a.query,
                     dotIndex(base, row, cst(0),
                              raggedDepth ? clampTo(depth, a.depth) : depth),
                     raggedDepth ? below(depth, a.depth) : Value());
  }
  Value shuffled(Value x, int32_t mask, int32_t width) {
    return gpu::ShuffleOp::create(b, loc, x, mask, width, gpu::ShuffleMode::XOR)
        .getShuffleResult();
  }
  /// One row's step of the online softmax (SoftmaxSums.cpp's rules) over
  /// the lane's scaled `scores` of a block of keys, the row's other lanes
  /// reached by xor shuffles of `masks` within `width` lanes: the next m
  /// and the lane's share of l, the rescale alpha and the lane's p.
  struct RowUpdate {
    Value m, l, alpha;
    SmallVector<Value> p;
  };
  RowUpdate updateRow(ArrayRef<Value> scores, Value m, Value l,
                      ArrayRef<int32_t> masks, int32_t width) {
    auto approximate = arith::FastMathFlags::afn;
    Value negInf = floatConst(-std::numeric_limits<double>::infinity());
    Value fzero = floatConst(0.0);
    Value blockMax = scores.front();
    for (Value x : scores.drop_front())
      blockMax = greaterOf(b, loc, blockMax, x);
    for (int32_t mask : masks)
      blockMax = greaterOf(b, loc, blockMax, shuffled(blockMax, mask, width));
    RowUpdate u;
    u.m = greaterOf(b, loc, m, blockMax);
    Value grew =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, u.m, m);
    u.alpha = arith::SelectOp::create(
        b, loc, grew,
        math::Exp2Op::create(b, loc, arith::SubFOp::create(b, loc, m, u.m),
                             approximate),
        floatConst(1.0));
    Value empty =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, u.m, negInf);
    Value sum = fzero;
    for (Value x : scores) {
      Value e = math::Exp2Op::create(
          b, loc, arith::SubFOp::create(b, loc, x, u.m), approximate);
      u.p.push_back(arith::SelectOp::create(b, loc, empty, fzero, e));
      sum = arith::AddFOp::create(b, loc, sum, u.p.back());
    }
    u.l = arith::AddFOp::create(b, loc,
                                arith::MulFOp::create(b, loc, l, u.alpha), sum);
    return u;
  }
  /// The scaled score at (row, key) whose dot product is `dot`, -inf past
  /// the keys.
  FailureOr<Value> scoreAt(ArrayRef<Value> base, Value row, Value key,
                           Value dot) {
    emitter.pinReduce(a.dot, dot);
    FailureOr<Value> score = emitter.evaluateAt(
        b, op.getScores(), groupIndex(base, row, cst(0), keyRead(key)));
    emitter.unpinReduce(a.dot);
    if (failed(score))
      return failure();
    Value x = *score;
    if (x.getType() != f32)
      x = arith::ExtFOp::create(b, loc, f32, x);
    x = arith::MulFOp::create(b, loc, x,
                              floatConst(op.getScale().convertToDouble()));
    if (a.keys % kBlockKeys)
      x = arith::SelectOp::create(
          b, loc, below(key, a.keys), x,
          floatConst(-std::numeric_limits<double>::infinity()));
    return x;
  }
  /// O / l as the result's type, stored at (row, col) through the rest of
  /// the kernel where inside the queries and the head dim.
  LogicalResult storeOutput(ArrayRef<Value> base, Value row, Value col,
                            Value acc, Value l) {
    Value guard;
    if (a.queries % (kTileRows * attentionWarps(a)))
      guard = below(row, a.queries);
    if (a.headDim % 8 || (kind != TensorCoreKind::MmaSync && a.headDim % 16)) {
      Value inside = below(col, a.headDim);
      guard = guard ? arith::AndIOp::create(b, loc, guard, inside).getResult()
                    : inside;
    }
    Value o = arith::DivFOp::create(b, loc, acc, l);
    Type result = elementOf(op.getResult());
    if (result != f32)
      o = result.getIntOrFloatBitWidth() > 32
              ? arith::ExtFOp::create(b, loc, result, o).getResult()
              : arith::TruncFOp::create(b, loc, result, o).getResult();
    SmallVector<SmallVector<Value>> element = {
        groupIndex(base, guard ? clampTo(row, a.queries) : row,
                   guard ? clampTo(col, a.headDim) : col, cst(0))};
    return emitter.emitStoresOfReduce(b, stores, element, op, {o}, guard);
  }
  /// The AMD tiles, S^T = K Q^T, so that a lane's scores are one query's:
  /// on MFMA (v_mfma_f32_16x16x16f16, 64 lanes) its four keys 4 (l / 16)
  /// + i, which are as they stand the B fragment of O^T = V^T P^T; on WMMA
  /// (v_wmma_f32_16x16x16_f16, wave32) its even or odd keys 2i + l / 16,
  /// P^T's B fragment (all 16 keys) taking the other half from lane
  /// l ^ 16.
  LogicalResult emitTransposedTile(ArrayRef<Value> base);
  /// The mma.sync tile (m16n8k16, 32 lanes; the file comment's rules).
  LogicalResult emitMmaSyncTile(ArrayRef<Value> base);

  /// The block's shared copy of a block of 16 keys from `key0` on: a
  /// barrier (the previous block's reads are done), every thread of the
  /// block copying its share of K's rows (the dot product's depth, 0 past
  /// it) and V's rows (the head dim, 0 past it), 0 for keys past the end,
  /// then a barrier.
  LogicalResult stageKeys(ArrayRef<Value> base, Value key0) {
    gpu::BarrierOp::create(b, loc);
    bool raggedKeys = a.keys % kBlockKeys != 0;
    for (auto [buffer, stride, extent, isKey] :
         {std::tuple(keyTile, keyStride, a.depth, true),
          std::tuple(valueTile, valueStride, a.headDim, false)}) {
      int64_t elements = kBlockKeys * stride;
      auto copy = scf::ForOp::create(b, loc, threadId, cst(elements),
                                     cst(blockThreads));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(copy.getBody());
      Value i = copy.getInductionVar();
      Value key = arith::AddIOp::create(
          b, loc, key0, arith::DivUIOp::create(b, loc, i, cst(stride)));
      Value column = arith::RemUIOp::create(b, loc, i, cst(stride));
      Value valid = below(column, extent);
      if (raggedKeys)
        valid = arith::AndIOp::create(b, loc, valid, below(key, a.keys));
      Value columnRead = clampTo(column, extent);
      FailureOr<Value> x =
          isKey ? operandAt(a.key,
                            dotIndex(base, cst(0), keyRead(key), columnRead),
                            valid)
                : operandAt(a.values,
                            groupIndex(base, cst(0), columnRead, keyRead(key)),
                            valid);
      if (failed(x))
        return failure();
      memref::StoreOp::create(b, loc, *x, buffer, ValueRange{i});
    }
    gpu::BarrierOp::create(b, loc);
    return success();
  }
  /// Whether the scores' masks (scoreMasksOf) mask every one of the
  /// thread's (row, key) `pairs` in every thread of the block (keys past
  /// the end count as masked); null where the scores carry no mask.
  FailureOr<Value> blockAllMasked(ArrayRef<Value> base,
                                  ArrayRef<std::pair<Value, Value>> pairs) {
    if (masks.empty())
      return Value();
    bool raggedKeys = a.keys % kBlockKeys != 0;
    Value all;
    for (auto [row, key] : pairs) {
      SmallVector<Value> idx = groupIndex(base, row, cst(0), keyRead(key));
      Value any;
      if (raggedKeys)
        any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, key,
                                    cst(a.keys));
      for (const ScoreMask &mask : masks) {
        SmallVector<Value> at;
        for (int64_t axis : mask.scoresAxis)
          at.push_back(axis < 0 ? cst(0) : idx[size_t(axis)]);
        FailureOr<Value> x = emitter.evaluateAt(b, mask.value, at);
        if (failed(x))
          return failure();
        Value masked = scoreMaskHolds(b, loc, mask, *x);
        any = any ? arith::OrIOp::create(b, loc, any, masked).getResult()
                  : masked;
      }
      all = all ? arith::AndIOp::create(b, loc, all, any).getResult() : any;
    }
    // Across the block (every thread must take the same branch: the next
    // block of keys is staged by all of them): skipped where no thread has
    // an unmasked pair, an or of "some pair unmasked".
    Value live = arith::ExtUIOp::create(
        b, loc, b.getI32Type(),
        arith::XOrIOp::create(b, loc, all,
                              arith::ConstantIntOp::create(b, loc, 1, 1)));
    Value anyLive = gpu::AllReduceOp::create(
        b, loc, live,
        gpu::AllReduceOperationAttr::get(b.getContext(),
                                         gpu::AllReduceOperation::OR),
        /*uniform=*/true);
    return arith::CmpIOp::create(
               b, loc, arith::CmpIPredicate::eq, anyLive,
               arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0))
        .getResult();
  }
  /// The loop over blocks of kBlockKeys keys (the last one past the keys
  /// where they do not divide), carrying `init`.
  scf::ForOp keyLoop(ValueRange init) {
    return scf::ForOp::create(
        b, loc, cst(0),
        cst(llvm::divideCeilSigned(a.keys, kBlockKeys) * kBlockKeys),
        cst(kBlockKeys), init);
  }
  /// The start of a block of keys from `key0`, in the key loop whose state
  /// is `state`: the block stages its keys (stageKeys); where the scores
  /// carry masks that mask every one of the threads' (row, key) `pairs`
  /// (blockAllMasked), an scf.if yields `state`, and `b` is left in its
  /// else block, whose yield the caller adds before closeKeyBlock.
  FailureOr<scf::IfOp> openKeyBlock(ArrayRef<Value> base, Value key0,
                                    ArrayRef<std::pair<Value, Value>> pairs,
                                    ValueRange state) {
    if (failed(stageKeys(base, key0)))
      return failure();
    FailureOr<Value> skip = blockAllMasked(base, pairs);
    if (failed(skip))
      return failure();
    if (!*skip)
      return scf::IfOp();
    auto ifOp = scf::IfOp::create(b, loc, state.getTypes(), *skip,
                                  /*withElseRegion=*/true);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    scf::YieldOp::create(b, loc, state);
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    return ifOp;
  }
  /// The key loop's yield after a block openKeyBlock opened with `skipped`.
  void closeKeyBlock(scf::IfOp skipped) {
    if (!skipped)
      return;
    b.setInsertionPointAfter(skipped);
    scf::YieldOp::create(b, loc, skipped.getResults());
  }

  /// K at (key of the block, depth) and V at (key of the block, column)
  /// from the shared copies.
  Value stagedKey(Value key, Value depth) {
    return staged(keyTile, keyStride, key, depth);
  }
  Value stagedValue(Value key, Value column) {
    return staged(valueTile, valueStride, key, column);
  }
  Value staged(Value buffer, int64_t stride, Value key, Value column) {
    Value at = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, key, cst(stride)), column);
    return memref::LoadOp::create(b, loc, buffer, ValueRange{at});
  }

  /// The group's index at (row, column, key), the other axes `base`'s.
  SmallVector<Value> groupIndex(ArrayRef<Value> base, Value row, Value col,
                                Value key) {
    SmallVector<Value> idx(base);
    idx[a.queryAxis] = row;
    idx[a.headAxis] = col;
    idx[a.keyAxis] = key;
    return idx;
  }
  /// The dot product's input index at (row, key, depth).
  SmallVector<Value> dotIndex(ArrayRef<Value> base, Value row, Value key,
                              Value depth) {
    SmallVector<Value> idx;
    Value zero = cst(0);
    for (auto [j, axis] : llvm::enumerate(a.dotAxes)) {
      if (j == a.depthAxis)
        idx.push_back(depth);
      else if (axis < 0)
        idx.push_back(zero);
      else if (size_t(axis) == a.queryAxis)
        idx.push_back(row);
      else if (size_t(axis) == a.keyAxis)
        idx.push_back(key);
      else
        idx.push_back(base[size_t(axis)]);
    }
    return idx;
  }
  /// `v` at `idx` as the operands' type, 0 where `valid` (if given) fails.
  FailureOr<Value> operandAt(Value v, ArrayRef<Value> idx, Value valid) {
    FailureOr<Value> x = emitter.evaluateAt(b, v, idx);
    if (failed(x))
      return failure();
    Value r = *x;
    if (r.getType() != a.element)
      r = r.getType().getIntOrFloatBitWidth() > 16
              ? arith::TruncFOp::create(b, loc, a.element, r).getResult()
              : arith::ExtFOp::create(b, loc, a.element, r).getResult();
    if (valid)
      r = arith::SelectOp::create(
          b, loc, valid, r,
          arith::ConstantOp::create(b, loc, b.getFloatAttr(a.element, 0.0)));
    return r;
  }
  Value fragment(ArrayRef<int64_t> shape, Type t, ArrayRef<Value> parts) {
    return vector::FromElementsOp::create(b, loc, VectorType::get(shape, t),
                                          parts);
  }

  OpBuilder &b;
  Location loc;
  KernelEmitter &emitter;
  ArrayRef<StoreOp> stores;
  const AttentionTensorCores &a;
  /// a's softmax_sum (an op handle's accessors are not const).
  SoftmaxSumOp op;
  TensorCoreKind kind;
  /// The scores' masks (scoreMasksOf): a block of keys that they mask for
  /// all the block's rows is skipped.
  SmallVector<ScoreMask> masks;
  /// The block's threads and this one's place among them, and the shared
  /// copies of a block of keys: K [key][depth], V [key][column], rows of
  /// `keyStride` and `valueStride` elements.
  Value threadId;
  int64_t blockThreads;
  Value keyTile, valueTile;
  int64_t keyStride, valueStride;
  /// mma.sync: PTX's groupID (lane / 4) and twice the thread in the group.
  Value g, t2;
  /// MFMA: lane % 16 and 4 (lane / 16); WMMA: lane % 16 and lane / 16.
  Value q16, quad4, half;
  Type f32;
};

LogicalResult AttentionTileBuilder::emitMmaSyncTile(ArrayRef<Value> base) {
  Value row0 = base[a.queryAxis];
  int64_t depthChunks = llvm::divideCeilSigned(a.depth, 16);
  int64_t columnTiles = llvm::divideCeilSigned(a.headDim, 8);
  // Q's A fragments: register r holds row g + 8 (r & 1), depth
  // 2t + j + 8 (r >> 1).
  SmallVector<Value> qFrags;
  for (int64_t c = 0; c < depthChunks; ++c) {
    SmallVector<Value> parts;
    for (int64_t r = 0; r < 4; ++r)
      for (int64_t j = 0; j < 2; ++j) {
        FailureOr<Value> x =
            queryAt(base, clampTo(at(row0, g, 8 * (r & 1)), a.queries),
                    at(cst(16 * c), t2, j + 8 * (r >> 1)));
        if (failed(x))
          return failure();
        parts.push_back(*x);
      }
    qFrags.push_back(fragment({4, 2}, a.element, parts));
  }

  // The loop's state: m and l of rows g and g + 8, the accumulators of
  // each 8 columns.
  Value negInf = floatConst(-std::numeric_limits<double>::infinity());
  Value fzero = floatConst(0.0);
  auto accType = VectorType::get({2, 2}, f32);
  Value accZero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, b.getF32FloatAttr(0)));
  SmallVector<Value> init = {negInf, negInf, fzero, fzero};
  init.append(size_t(columnTiles), accZero);
  scf::ForOp loop = keyLoop(init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value key0 = loop.getInductionVar();
    ValueRange state = loop.getRegionIterArgs();
    // A block of keys the masks mask for all the block's rows: skipped.
    SmallVector<std::pair<Value, Value>> pairs;
    for (int64_t nt = 0; nt < 2; ++nt)
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t j = 0; j < 2; ++j)
          pairs.push_back({clampTo(at(row0, g, 8 * r), a.queries),
                           at(key0, t2, 8 * nt + j)});
    FailureOr<scf::IfOp> skipped = openKeyBlock(base, key0, pairs, state);
    if (failed(skipped))
      return loop.erase(), failure();
    // S = Q K^T, two tiles of 8 keys. K's B fragment: register r holds
    // depth 2t + j + 8r, key g.
    SmallVector<Value> sTiles;
    for (int64_t nt = 0; nt < 2; ++nt) {
      Value key = at(cst(8 * nt), g, 0);
      Value acc = accZero;
      for (int64_t c = 0; c < depthChunks; ++c) {
        SmallVector<Value> parts;
        for (int64_t r = 0; r < 2; ++r)
          for (int64_t j = 0; j < 2; ++j)
            parts.push_back(stagedKey(key, at(cst(16 * c), t2, j + 8 * r)));
        acc = emitMmaSync(b, loc, qFrags[size_t(c)],
                          fragment({2, 2}, a.element, parts), acc);
      }
      sTiles.push_back(acc);
    }
    // The scaled scores: s[nt][r][j] at row g + 8r, key 8 nt + 2t + j.
    Value s[2][2][2];
    for (int64_t nt = 0; nt < 2; ++nt)
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t j = 0; j < 2; ++j) {
          Value row = clampTo(at(row0, g, 8 * r), a.queries);
          Value key = at(key0, t2, 8 * nt + j);
          Value dot = vector::ExtractOp::create(b, loc, sTiles[size_t(nt)],
                                                ArrayRef<int64_t>{r, j});
          FailureOr<Value> x = scoreAt(base, row, key, dot);
          if (failed(x))
            return loop.erase(), failure();
          s[nt][r][j] = *x;
        }
    SmallVector<Value> next(state.begin(), state.end());
    Value alpha[2], p[2][2][2];
    for (int64_t r = 0; r < 2; ++r) {
      RowUpdate u =
          updateRow({s[0][r][0], s[0][r][1], s[1][r][0], s[1][r][1]},
                    state[size_t(r)], state[2 + size_t(r)], {1, 2}, 32);
      next[size_t(r)] = u.m;
      next[2 + size_t(r)] = u.l;
      alpha[r] = u.alpha;
      p[0][r][0] = u.p[0];
      p[0][r][1] = u.p[1];
      p[1][r][0] = u.p[2];
      p[1][r][1] = u.p[3];
    }
    // P as the A fragment of P V: register r is row g + 8 (r & 1), keys
    // 8 (r >> 1) + 2t + j: tile r >> 1's row r & 1.
    SmallVector<Value> pParts;
    for (int64_t r = 0; r < 4; ++r)
      for (int64_t j = 0; j < 2; ++j)
        pParts.push_back(
            arith::TruncFOp::create(b, loc, a.element, p[r >> 1][r & 1][j]));
    Value pFrag = fragment({4, 2}, a.element, pParts);
    Value alphas =
        fragment({2, 2}, f32, {alpha[0], alpha[0], alpha[1], alpha[1]});
    // V's B fragment per 8 columns: register r holds key 2t + j + 8r,
    // column g.
    for (int64_t ct = 0; ct < columnTiles; ++ct) {
      Value col = at(cst(8 * ct), g, 0);
      SmallVector<Value> parts;
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t j = 0; j < 2; ++j)
          parts.push_back(stagedValue(at(cst(0), t2, j + 8 * r), col));
      Value acc = arith::MulFOp::create(b, loc, state[4 + size_t(ct)], alphas);
      next[4 + size_t(ct)] =
          emitMmaSync(b, loc, pFrag, fragment({2, 2}, a.element, parts), acc);
    }
    scf::YieldOp::create(b, loc, next);
    closeKeyBlock(*skipped);
  }
  // l across the four lanes of each row, then O / l stored element by
  // element: accumulator (r, j) of tile ct is row g + 8r, column
  // 8 ct + 2t + j.
  Value total[2];
  for (int64_t r = 0; r < 2; ++r) {
    Value l = loop.getResult(2 + unsigned(r));
    l = arith::AddFOp::create(b, loc, l, shuffled(l, 1, 32));
    total[r] = arith::AddFOp::create(b, loc, l, shuffled(l, 2, 32));
  }
  for (int64_t ct = 0; ct < columnTiles; ++ct) {
    Value acc = loop.getResult(4 + unsigned(ct));
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t j = 0; j < 2; ++j) {
        Value o =
            vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{r, j});
        if (failed(storeOutput(base, at(row0, g, 8 * r), at(cst(8 * ct), t2, j),
                               o, total[r])))
          return failure();
      }
  }
  return success();
}

LogicalResult AttentionTileBuilder::emitTransposedTile(ArrayRef<Value> base) {
  bool mfma = kind == TensorCoreKind::Mfma;
  // Per lane: `operands` elements of an A or B fragment at places
  // kAt(e) along K (the depth, or the keys of P V); `results` elements of
  // C at rows rowAt(i) (keys of S^T, columns of O^T), column l % 16.
  int64_t operands = mfma ? 4 : 16, results = mfma ? 4 : 8;
  auto kAt = [&](Value first, int64_t e) {
    return mfma ? at(first, quad4, e) : at(first, Value(), e);
  };
  auto rowAt = [&](Value first, int64_t i) {
    return mfma ? at(first, quad4, i) : at(first, half, 2 * i);
  };
  // The lanes of one query: l % 16 alike.
  SmallVector<int32_t> queryLanes =
      mfma ? SmallVector<int32_t>{16, 32} : SmallVector<int32_t>{16};
  int32_t lanes = int32_t(tensorCoreLanes(kind));
  auto instruction = [&](Value aFrag, Value bFrag, Value acc) -> Value {
    auto i32 = [&](int64_t v) { return b.getI32IntegerAttr(int32_t(v)); };
    if (mfma)
      return amdgpu::MFMAOp::create(b, loc, acc.getType(), i32(16), i32(16),
                                    i32(16), i32(1), aFrag, bFrag, acc);
    return amdgpu::WMMAOp::create(b, loc, acc.getType(), i32(16), i32(16),
                                  i32(16), aFrag, bFrag, acc);
  };

  Value row0 = base[a.queryAxis];
  Value zero = cst(0);
  int64_t depthChunks = llvm::divideCeilSigned(a.depth, 16);
  int64_t columnTiles = llvm::divideCeilSigned(a.headDim, 16);
  Value query = clampTo(at(row0, q16, 0), a.queries);
  // Q^T's B fragments: element e is depth 16 c + kAt(e), query l % 16; 0
  // past the depth.
  SmallVector<Value> qFrags;
  for (int64_t c = 0; c < depthChunks; ++c) {
    SmallVector<Value> parts;
    for (int64_t e = 0; e < operands; ++e) {
      FailureOr<Value> x = queryAt(base, query, kAt(cst(16 * c), e));
      if (failed(x))
        return failure();
      parts.push_back(*x);
    }
    qFrags.push_back(fragment({operands}, a.element, parts));
  }
  auto accType = VectorType::get({results}, f32);
  Value accZero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, b.getF32FloatAttr(0)));
  SmallVector<Value> init = {
      floatConst(-std::numeric_limits<double>::infinity()), floatConst(0.0)};
  init.append(size_t(columnTiles), accZero);
  scf::ForOp loop = keyLoop(init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value key0 = loop.getInductionVar();
    ValueRange state = loop.getRegionIterArgs();
    SmallVector<std::pair<Value, Value>> pairs;
    for (int64_t i = 0; i < results; ++i)
      pairs.push_back({query, rowAt(key0, i)});
    FailureOr<scf::IfOp> skipped = openKeyBlock(base, key0, pairs, state);
    if (failed(skipped))
      return loop.erase(), failure();
    // S^T = K Q^T: K's A fragment element e is key l % 16, depth
    // 16 c + kAt(e).
    Value sT = accZero;
    for (int64_t c = 0; c < depthChunks; ++c) {
      SmallVector<Value> parts;
      for (int64_t e = 0; e < operands; ++e)
        parts.push_back(stagedKey(q16, kAt(cst(16 * c), e)));
      sT = instruction(fragment({operands}, a.element, parts),
                       qFrags[size_t(c)], sT);
    }
    // The lane's scores: query l % 16, keys rowAt(i).
    SmallVector<Value> scores;
    for (int64_t i = 0; i < results; ++i) {
      Value dot = vector::ExtractOp::create(b, loc, sT, i);
      FailureOr<Value> x = scoreAt(base, query, rowAt(key0, i), dot);
      if (failed(x))
        return loop.erase(), failure();
      scores.push_back(*x);
    }
    RowUpdate u = updateRow(scores, state[0], state[1], queryLanes, lanes);
    SmallVector<Value> next = {u.m, u.l};
    // P^T's B fragment, element e: the query's p at key kAt(e). On MFMA
    // the lane's own p as they stand; on WMMA the lane has the keys of
    // one parity (l / 16) and takes the others from lane l ^ 16.
    SmallVector<Value> pParts;
    Value odd;
    if (!mfma)
      odd = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, half, zero);
    for (int64_t e = 0; e < operands; ++e) {
      Value p = u.p[size_t(mfma ? e : e / 2)];
      if (!mfma) {
        Value other = shuffled(p, 16, lanes);
        p = e % 2 ? arith::SelectOp::create(b, loc, odd, p, other)
                  : arith::SelectOp::create(b, loc, odd, other, p);
      }
      pParts.push_back(arith::TruncFOp::create(b, loc, a.element, p));
    }
    Value pFrag = fragment({operands}, a.element, pParts);
    Value alphas = vector::BroadcastOp::create(b, loc, accType, u.alpha);
    // V^T's A fragment, element e: column 16 ct + l % 16, key kAt(e).
    for (int64_t ct = 0; ct < columnTiles; ++ct) {
      Value col = at(cst(16 * ct), q16, 0);
      SmallVector<Value> parts;
      for (int64_t e = 0; e < operands; ++e)
        parts.push_back(stagedValue(kAt(zero, e), col));
      Value acc = arith::MulFOp::create(b, loc, state[2 + size_t(ct)], alphas);
      next.push_back(
          instruction(fragment({operands}, a.element, parts), pFrag, acc));
    }
    scf::YieldOp::create(b, loc, next);
    closeKeyBlock(*skipped);
  }
  // l across the query's lanes, then O^T's elements: accumulator i of
  // tile ct is column 16 ct + rowAt(i).
  Value l = loop.getResult(1);
  for (int32_t mask : queryLanes)
    l = arith::AddFOp::create(b, loc, l, shuffled(l, mask, lanes));
  for (int64_t ct = 0; ct < columnTiles; ++ct) {
    Value acc = loop.getResult(2 + unsigned(ct));
    for (int64_t i = 0; i < results; ++i)
      if (failed(storeOutput(base, at(row0, q16, 0), rowAt(cst(16 * ct), i),
                             vector::ExtractOp::create(b, loc, acc, i), l)))
        return failure();
  }
  return success();
}

} // namespace

FailureOr<AttentionTensorCores>
mlir::lazy::matchAttentionTensorCores(SoftmaxSumOp op, ArrayRef<int64_t> shape,
                                      TensorCoreKind kind, std::string &why) {
  llvm::raw_string_ostream os(why);
  AttentionTensorCores a;
  a.op = op;
  a.kind = kind;
  if (op.getAxes().size() != 1) {
    os << "attention on tensor cores sums over one key axis";
    return failure();
  }
  a.keyAxis = size_t(op.getAxes().front());
  ArrayRef<int64_t> scores = op.getScores().getType().getShape();
  if (scores.size() != shape.size() || ShapedType::isDynamicShape(scores)) {
    os << "attention on tensor cores needs static scores of the output's rank";
    return failure();
  }
  a.keys = scores[a.keyAxis];
  // The head dim: the innermost output axis the scores are constant along;
  // the queries: the innermost other one the weights are constant along
  // and the scores are not.
  SmallVector<bool> scoresConstant = scoresConstantAxes(op);
  SmallVector<bool> weightsConstant = weightsConstantAxes(op);
  std::optional<size_t> head, query;
  for (size_t d = shape.size(); d-- > 0;) {
    if (d == a.keyAxis || shape[d] <= 1)
      continue;
    if (!head && scoresConstant[d]) {
      head = d;
      continue;
    }
    if (!query && weightsConstant[d] && !scoresConstant[d])
      query = d;
  }
  if (!head || !query) {
    os << "attention on tensor cores needs a head dim the scores are "
          "constant along and queries the weights are constant along";
    return failure();
  }
  a.headAxis = *head;
  a.queryAxis = *query;
  a.queries = shape[a.queryAxis];
  a.headDim = shape[a.headAxis];
  // Every other axis: neither the scores nor the weights may vary along
  // an axis both do not read at one element (a second query axis).
  std::optional<ScoresDotProduct> dot = scoresDotProductOf(op.getScores());
  if (!dot) {
    os << "attention on tensor cores needs scores of one dot product";
    return failure();
  }
  a.dot = dot->reduce;
  if (a.dot.getAxes().size() != 1) {
    os << "attention on tensor cores needs a dot product over one axis";
    return failure();
  }
  a.depthAxis = size_t(a.dot.getAxes().front());
  a.dotAxes = dot->scoresAxis;
  KernelSpace space;
  ArrayRef<int64_t> input = a.dot.getSrc().getType().getShape();
  if (ShapedType::isDynamicShape(input)) {
    os << "attention on tensor cores needs a dot product of static shape";
    return failure();
  }
  space.shape.assign(input.begin(), input.end());
  for (int64_t extent : input)
    space.dims.push_back(::lazy::st::SInt(extent));
  for (size_t d = 0; d < input.size(); ++d)
    space.reduced.push_back(d == a.depthAxis);
  space.reduces.push_back(a.dot);
  std::string productWhy;
  FailureOr<ProductReduce> product =
      matchProductReduce(space, a.depthAxis, "tensor-core", productWhy);
  if (failed(product)) {
    os << "attention's dot product: " << productWhy;
    return failure();
  }
  a.depth = input[a.depthAxis];
  auto axisOf = [&](size_t own) { return a.dotAxes[own]; };
  for (auto [operand, own] :
       {std::pair(product->a, product->m), std::pair(product->b, product->n)}) {
    if (axisOf(own) == int64_t(a.queryAxis))
      a.query = operand;
    else if (axisOf(own) == int64_t(a.keyAxis))
      a.key = operand;
  }
  for (int64_t axis : a.dotAxes)
    if (axis == int64_t(a.headAxis)) {
      os << "attention's dot product varies along the head dim";
      return failure();
    }
  a.element = getElementTypeOrSelf(product->a.getType());
  if (!a.query || !a.key || !isSixteenBitFloat(a.element)) {
    os << "attention on tensor cores needs q . k of f16 or bf16 operands, "
          "one along the queries and one along the keys";
    return failure();
  }
  a.values = op.getWeights();
  if (!holdsSixteenBitValues(a.values, a.element)) {
    os << "attention on tensor cores needs weights of the operands' type "
          "(or a float cast of them, perhaps through views)";
    return failure();
  }
  if (a.depth > kMaxAttentionHeadDim || a.headDim > kMaxAttentionHeadDim) {
    os << "attention on tensor cores keeps at most " << kMaxAttentionHeadDim
       << " of depth and head dim in registers";
    return failure();
  }
  Type result = elementOf(op.getResult());
  if (!isa<FloatType>(result)) {
    os << "attention on tensor cores needs a float result";
    return failure();
  }
  return a;
}

int64_t mlir::lazy::attentionWarps(const AttentionTensorCores &a) {
  return std::min(kAttentionWarps,
                  llvm::divideCeilSigned(a.queries, kTileRows));
}

int64_t mlir::lazy::attentionBlockThreads(const AttentionTensorCores &a) {
  return tensorCoreLanes(a.kind) * attentionWarps(a);
}

/// Block tiles per axis of the group's shape: attentionWarps x 16 rows of
/// the queries, one element of every other axis but the head dim and the
/// keys, which a tile takes whole.
static SmallVector<int64_t> attentionTrips(const AttentionTensorCores &a,
                                           ArrayRef<int64_t> shape) {
  int64_t rows = kTileRows * attentionWarps(a);
  SmallVector<int64_t> trips;
  for (size_t d = 0; d < shape.size(); ++d)
    trips.push_back(d == a.queryAxis ? llvm::divideCeilSigned(shape[d], rows)
                    : d == a.headAxis || d == a.keyAxis ? 1
                                                        : shape[d]);
  return trips;
}

int64_t mlir::lazy::attentionTileCount(const AttentionTensorCores &a,
                                       ArrayRef<int64_t> shape) {
  return ShapedType::getNumElements(attentionTrips(a, shape));
}

LogicalResult mlir::lazy::emitAttentionTensorCores(
    OpBuilder &b, Location loc, gpu::GPUFuncOp func, KernelEmitter &emitter,
    ArrayRef<StoreOp> stores, ArrayRef<int64_t> shape,
    const AttentionTensorCores &a, Value group, Value groups, Value tid) {
  int64_t lanes = tensorCoreLanes(a.kind);
  int64_t rows = kTileRows * attentionWarps(a);
  SmallVector<int64_t> trips = attentionTrips(a, shape);
  Value end =
      arith::ConstantIndexOp::create(b, loc, ShapedType::getNumElements(trips));
  // Every warp of a block runs every tile (the staging's barriers): a warp
  // whose rows are past the queries computes the last row's and stores
  // nothing.
  Value warp = arith::DivUIOp::create(
      b, loc, tid, arith::ConstantIndexOp::create(b, loc, lanes));
  Value warpRow = arith::MulIOp::create(
      b, loc, warp, arith::ConstantIndexOp::create(b, loc, kTileRows));
  AttentionTileBuilder builder(b, loc, emitter, stores, a, func, tid,
                               attentionBlockThreads(a));
  auto tiles = scf::ForOp::create(b, loc, group, end, groups);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(tiles.getBody());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<Value> base =
      delinearizeIndex(b, loc, tiles.getInductionVar(), trips, zero);
  base[a.queryAxis] = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, base[a.queryAxis],
                            arith::ConstantIndexOp::create(b, loc, rows)),
      warpRow);
  if (failed(builder.emitTile(base))) {
    tiles.erase();
    return failure();
  }
  return success();
}
