//===- SharedTiles.cpp - a local plan's kernel body -----------------------===//
//
// convert-lazy-to-gpu's shared-memory mode, for a kernel whose plan has
// `local` steps (KernelSpace.h: a float sum over the reduce axes K of a
// plain product of operands A and B, each varying along output axes of its
// own: a matmul's M and N, a convolution's output channels and its rows
// and columns). Rules:
//   1. a block of threads (the product of the locals) computes one block
//      tile at a time, local times upcast elements of each own axis and
//      one element of every other output axis; tiles in row-major order
//      of the output axes, grid-stride; the thread index splits row-major
//      over the local axes, A's then B's, so that neighbouring threads
//      take neighbouring register tiles along B's innermost axis;
//   2. K (flattened row-major) goes by chunks of sharedChunk elements (the
//      outermost reduce axis's unroll times the other axes' sizes): a
//      barrier (the last chunk's reads are done), every thread stages its
//      share of both operands' chunks into two workgroup buffers laid out
//      [k][A's block tile] and [k][B's], a barrier, then each thread's
//      multiply-adds read its tile's rows and columns from them (a vector
//      load where the upcast axis is its operand's innermost own axis);
//   3. the staging evaluates each operand expression (KernelEmitter) in
//      runs of up to 16 bytes along the axis some load of it reads
//      contiguously (its innermost own axis, or K where K is one axis; a
//      vector load where the view allows), consecutive threads taking
//      consecutive runs so that a warp's loads coalesce;
//   4. every sum adds its products in K order, as the unplanned kernel
//      does (a multiply-add may contract into an FMA); the thread's results
//      go through the rest of the kernel (emitStoresOfReduce).
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/KernelCodegen/GPU/SharedTiles.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::lazy;

namespace {

/// A thread's staging runs per chunk, at most, that are emitted one after
/// the other (no loop).
constexpr int64_t kMaxUnrolledRuns = 8;

/// Whether some load in `operand` reads contiguously along `axis`.
bool readsContiguouslyAlong(Value operand, size_t axis) {
  llvm::DenseSet<Operation *> seen;
  SmallVector<Value> stack{operand};
  while (!stack.empty()) {
    Operation *op = stack.pop_back_val().getDefiningOp();
    if (!op || !seen.insert(op).second)
      continue;
    if (auto load = dyn_cast<LoadOp>(op)) {
      std::vector<std::optional<int64_t>> strides =
          load.getView().getTracker().realStrides(/*ignoreValid=*/true);
      if (axis < strides.size() && strides[axis] == 1)
        return true;
      continue;
    }
    for (Value v : op->getOperands())
      stack.push_back(v);
  }
  return false;
}

/// The widest run of at most kGpuVectorBytes that divides `extent`.
int64_t runWidth(int64_t extent, int64_t elementBytes) {
  int64_t width = std::max<int64_t>(1, kGpuVectorBytes / elementBytes);
  while (width > 1 && extent % width != 0)
    width /= 2;
  return width;
}

/// A vector access's alignment in bytes: `lanes` elements from a multiple
/// of `lanes` of a buffer aligned to kGpuVectorBytes.
llvm::MaybeAlign vectorAlignment(int64_t lanes, int64_t elementBytes) {
  int64_t bytes = lanes * elementBytes;
  if (bytes > kGpuVectorBytes || !llvm::isPowerOf2_64(uint64_t(bytes)))
    return llvm::Align(uint64_t(elementBytes));
  return llvm::Align(uint64_t(bytes));
}

int64_t bytesOf(Type t) {
  return int64_t(llvm::divideCeil(t.getIntOrFloatBitWidth(), 8));
}

} // namespace

Value IndexMath::cst(OpBuilder &b, int64_t v) const {
  return arith::ConstantIndexOp::create(b, loc, v);
}
Value IndexMath::add(OpBuilder &b, Value x, Value y) const {
  return arith::AddIOp::create(b, loc, x, y);
}
Value IndexMath::mul(OpBuilder &b, Value x, int64_t c) const {
  return c == 1 ? x : arith::MulIOp::create(b, loc, x, cst(b, c)).getResult();
}

BlockTileLoop mlir::lazy::emitBlockTileLoop(OpBuilder &b, Location loc,
                                            const KernelSpace &space,
                                            ArrayRef<int64_t> steps,
                                            Value group, Value groups) {
  IndexMath im{loc};
  size_t rank = space.shape.size();
  SmallVector<size_t> outputAxes;
  SmallVector<int64_t> tiles;
  for (size_t d = 0; d < rank; ++d)
    if (!space.reduced[d]) {
      outputAxes.push_back(d);
      tiles.push_back(space.shape[d] / steps[d]);
    }
  Value zero = im.cst(b, 0);
  auto loop = scf::ForOp::create(
      b, loc, group, im.cst(b, ShapedType::getNumElements(tiles)), groups);
  OpBuilder tb = OpBuilder::atBlockBegin(loop.getBody());
  SmallVector<Value> coords =
      delinearizeIndex(tb, loc, loop.getInductionVar(), tiles, zero);
  SmallVector<Value> base(rank, zero);
  for (auto [i, d] : llvm::enumerate(outputAxes))
    base[d] = im.mul(tb, coords[i], steps[d]);
  return {loop, std::move(base)};
}

int64_t StagedOperand::freeElements() const {
  return ShapedType::getNumElements(extents);
}

Value mlir::lazy::addWorkgroupBuffer(OpBuilder &b, Location loc,
                                     gpu::GPUFuncOp func, Type element,
                                     int64_t elements) {
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto type = MemRefType::get({elements}, element, MemRefLayoutAttrInterface(),
                              workgroup);
  BlockArgument buffer = func.addWorkgroupAttribution(type, loc);
  func.setWorkgroupAttributionAttr(func.getNumWorkgroupAttributions() - 1,
                                   LLVM::LLVMDialect::getAlignAttrName(),
                                   b.getI64IntegerAttr(kGpuVectorBytes));
  return buffer;
}

namespace {
/// How a chunk of an operand is staged: runs of `width` elements along K
/// or along its innermost free axis, `runs` of them, thread tid taking
/// runs tid, tid + threads, ...; each run's load (the operand evaluated)
/// and store (into the buffer) as separate steps, so that double
/// buffering can hold the loads across the multiply-adds.
class Staging {
public:
  Staging(Location loc, KernelEmitter &emitter, const StagedOperand &staged,
          ArrayRef<Value> base, ArrayRef<size_t> kAxes,
          ArrayRef<int64_t> kSizes, int64_t chunk, int64_t threads)
      : im{loc}, emitter(emitter), staged(staged), base(base), kAxes(kAxes),
        kSizes(kSizes), threads(threads) {
    bytes = bytesOf(signless(elementOf(staged.operand)));
    inner = staged.freeAxes.back();
    int64_t extent = staged.freeElements();
    // Runs along K need K to be one axis of the space.
    alongK = kAxes.size() == 1 &&
             readsContiguouslyAlong(staged.operand, kAxes.front()) &&
             !readsContiguouslyAlong(staged.operand, inner);
    width = runWidth(alongK ? chunk : staged.extents.back(), bytes);
    if (!alongK && !readsContiguouslyAlong(staged.operand, inner))
      width = 1;
    // Runs per line: a line is one kk (runs along the free axes) or one
    // free position (runs along K).
    runsPerLine = (alongK ? chunk : extent) / width;
    runs = chunk * extent / width;
  }

  int64_t runCount() const { return runs; }
  /// The run thread `tid` takes in round `r`.
  Value runOfRound(OpBuilder &b, Value tid, int64_t r) const {
    return r ? im.add(b, tid, im.cst(b, r * threads)) : tid;
  }
  /// Whether every thread takes the same few runs (straight-line code).
  bool evenRounds() const {
    return runs % threads == 0 && runs / threads <= kMaxUnrolledRuns;
  }

  /// The run's value (a vector of its lanes, or a scalar) and its place in
  /// the buffer, for the chunk from `k0`.
  FailureOr<std::pair<Value, Value>> load(OpBuilder &b, Value run, Value k0) {
    Location loc = im.loc;
    Value line = arith::DivUIOp::create(b, loc, run, im.cst(b, runsPerLine));
    Value first = im.mul(
        b, arith::RemUIOp::create(b, loc, run, im.cst(b, runsPerLine)), width);
    // (kk, free) of the run's first element, and its place in the buffer.
    Value kk = alongK ? first : line, free = alongK ? line : first;
    SmallVector<Value> idx(base);
    SmallVector<Value> kIdx =
        delinearizeIndex(b, loc, im.add(b, k0, kk), kSizes);
    for (auto [axis, v] : llvm::zip(kAxes, kIdx))
      idx[axis] = v;
    SmallVector<Value> freeIdx = delinearizeIndex(b, loc, free, staged.extents);
    for (auto [axis, v] : llvm::zip(staged.freeAxes, freeIdx))
      idx[axis] = im.add(b, base[axis], v);
    Value at = staged.kFastest ? im.add(b, im.mul(b, free, staged.stride), kk)
                               : im.add(b, im.mul(b, kk, staged.stride), free);
    FailureOr<Value> v =
        width == 1 ? emitter.evaluateAt(b, staged.operand, idx)
                   : emitter.evaluateLanesAt(
                         b, staged.operand, idx,
                         LaneAxis{alongK ? kAxes.front() : inner, width});
    if (failed(v))
      return failure();
    return std::make_pair(*v, at);
  }

  /// Stores a loaded run at `at` (plus `offset`, if any).
  void store(OpBuilder &b, Value v, Value at, Value offset) {
    Location loc = im.loc;
    if (offset)
      at = im.add(b, at, offset);
    if (width == 1) {
      memref::StoreOp::create(b, loc, v, staged.buffer, ValueRange{at});
      return;
    }
    // A run along the buffer's fastest axis is one vector store; across
    // it, one store per element, a row apart.
    if (alongK == staged.kFastest) {
      vector::StoreOp::create(b, loc, v, staged.buffer, ValueRange{at},
                              /*nontemporal=*/false,
                              vectorAlignment(width, bytes));
      return;
    }
    for (int64_t w = 0; w < width; ++w) {
      Value part = vector::ExtractOp::create(b, loc, v, w);
      memref::StoreOp::create(
          b, loc, part, staged.buffer,
          ValueRange{im.add(b, at, im.cst(b, w * staged.stride))});
    }
  }

  IndexMath im;

private:
  KernelEmitter &emitter;
  const StagedOperand &staged;
  ArrayRef<Value> base;
  ArrayRef<size_t> kAxes;
  ArrayRef<int64_t> kSizes;
  int64_t threads, bytes, width, runsPerLine, runs;
  size_t inner;
  bool alongK;
};
} // namespace

LogicalResult
mlir::lazy::stageOperand(OpBuilder &b, Location loc, KernelEmitter &emitter,
                         const StagedOperand &staged, ArrayRef<Value> base,
                         ArrayRef<size_t> kAxes, ArrayRef<int64_t> kSizes,
                         Value k0, int64_t chunk, Value tid, int64_t threads,
                         Value offset) {
  Staging staging(loc, emitter, staged, base, kAxes, kSizes, chunk, threads);
  IndexMath &im = staging.im;
  int64_t runs = staging.runCount();
  auto emitRun = [&](OpBuilder &lb, Value run) -> LogicalResult {
    FailureOr<std::pair<Value, Value>> v = staging.load(lb, run, k0);
    if (failed(v))
      return failure();
    staging.store(lb, v->first, v->second, offset);
    return success();
  };
  // A few runs per thread: straight-line code, all of the thread's loads
  // in flight at once (the last round guarded where the runs do not fill
  // it). Otherwise a strided loop.
  int64_t rounds = llvm::divideCeil(runs, threads);
  if (rounds <= kMaxUnrolledRuns) {
    for (int64_t r = 0; r < rounds; ++r) {
      Value run = staging.runOfRound(b, tid, r);
      if ((r + 1) * threads <= runs) {
        if (failed(emitRun(b, run)))
          return failure();
        continue;
      }
      auto inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           run, im.cst(b, runs));
      auto guard = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
      OpBuilder gb = OpBuilder::atBlockBegin(guard.thenBlock());
      if (failed(emitRun(gb, run)))
        return failure();
    }
    return success();
  }
  auto loop =
      scf::ForOp::create(b, loc, tid, im.cst(b, runs), im.cst(b, threads));
  OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
  if (failed(emitRun(lb, loop.getInductionVar()))) {
    loop.erase();
    return failure();
  }
  return success();
}

bool mlir::lazy::canHoldStaged(Location loc, KernelEmitter &emitter,
                               const StagedOperand &staged,
                               ArrayRef<size_t> kAxes, ArrayRef<int64_t> kSizes,
                               int64_t chunk, int64_t threads) {
  return Staging(loc, emitter, staged, {}, kAxes, kSizes, chunk, threads)
      .evenRounds();
}

FailureOr<StagedValues>
mlir::lazy::loadStaged(OpBuilder &b, Location loc, KernelEmitter &emitter,
                       const StagedOperand &staged, ArrayRef<Value> base,
                       ArrayRef<size_t> kAxes, ArrayRef<int64_t> kSizes,
                       Value k0, int64_t chunk, Value tid, int64_t threads) {
  Staging staging(loc, emitter, staged, base, kAxes, kSizes, chunk, threads);
  StagedValues values;
  for (int64_t r = 0; r < staging.runCount() / threads; ++r) {
    FailureOr<std::pair<Value, Value>> v =
        staging.load(b, staging.runOfRound(b, tid, r), k0);
    if (failed(v))
      return failure();
    values.push_back(*v);
  }
  return values;
}

void mlir::lazy::storeStaged(OpBuilder &b, Location loc, KernelEmitter &emitter,
                             const StagedOperand &staged,
                             ArrayRef<size_t> kAxes, ArrayRef<int64_t> kSizes,
                             int64_t chunk, int64_t threads,
                             const StagedValues &values, Value offset) {
  Staging staging(loc, emitter, staged, {}, kAxes, kSizes, chunk, threads);
  for (const auto &[v, at] : values)
    staging.store(b, v, at, offset);
}

int64_t mlir::lazy::blockTileCount(const KernelSpace &space,
                                   ArrayRef<int64_t> steps) {
  int64_t tiles = 1;
  for (size_t d = 0; d < space.shape.size(); ++d)
    if (!space.reduced[d])
      tiles *= space.shape[d] / steps[d];
  return tiles;
}

SmallVector<int64_t> mlir::lazy::sharedTileSteps(const OptPlan &plan) {
  SmallVector<int64_t> steps;
  for (auto [local, upcast] : llvm::zip(plan.local, plan.upcast))
    steps.push_back(local * upcast);
  return steps;
}

int64_t mlir::lazy::sharedTileCount(const KernelSpace &space,
                                    const OptPlan &plan) {
  return blockTileCount(space, sharedTileSteps(plan));
}

LogicalResult mlir::lazy::emitSharedTiles(
    OpBuilder &b, Location loc, gpu::GPUFuncOp func, KernelEmitter &emitter,
    ArrayRef<StoreOp> stores, const KernelSpace &space, const OptPlan &plan,
    const ProductReduce &product, Value group, Value groups, Value tid,
    bool contract, bool doubleBuffer) {
  IndexMath im{loc};
  auto cst = [&](OpBuilder &ib, int64_t v) { return im.cst(ib, v); };
  auto add = [&](OpBuilder &ib, Value x, Value y) { return im.add(ib, x, y); };
  auto mul = [&](OpBuilder &ib, Value x, int64_t c) {
    return im.mul(ib, x, c);
  };
  auto sub = [&](OpBuilder &ib, Value x, Value y) -> Value {
    return arith::SubIOp::create(ib, loc, x, y);
  };
  int64_t chunk = localChunk(space, plan, product);
  int64_t threads = plan.threadsPerBlock();
  Type t = signless(elementOf(product.a));
  int64_t bytes = bytesOf(t);
  SmallVector<int64_t> kSizes;
  int64_t reduced = 1;
  for (size_t axis : product.kAxes) {
    kSizes.push_back(space.shape[axis]);
    reduced *= space.shape[axis];
  }

  // Each operand's block tile and workgroup buffer, [k][its block tile].
  auto stagedOf = [&](Value operand, ArrayRef<size_t> axes) {
    StagedOperand staged{operand, SmallVector<size_t>(axes), {}, {}, false, 0};
    for (size_t d : axes)
      staged.extents.push_back(plan.local[d] * plan.upcast[d]);
    staged.stride = staged.freeElements();
    return staged;
  };
  StagedOperand stagedA = stagedOf(product.a, product.aAxes);
  StagedOperand stagedB = stagedOf(product.b, product.bAxes);
  // Double buffering where each thread's staging is a few loads it can
  // hold (and there is a next chunk to load).
  doubleBuffer = doubleBuffer && reduced > chunk &&
                 canHoldStaged(loc, emitter, stagedA, product.kAxes, kSizes,
                               chunk, threads) &&
                 canHoldStaged(loc, emitter, stagedB, product.kAxes, kSizes,
                               chunk, threads);
  // A chunk's elements of each buffer (a half of a double buffer).
  int64_t sizeA = chunk * stagedA.freeElements();
  int64_t sizeB = chunk * stagedB.freeElements();
  // Twice the validated bytes must still fit.
  doubleBuffer = doubleBuffer && 2 * (sizeA + sizeB) * bytes <= kMaxSharedBytes;
  int64_t halves = doubleBuffer ? 2 : 1;
  stagedA.buffer = addWorkgroupBuffer(b, loc, func, t, halves * sizeA);
  stagedB.buffer = addWorkgroupBuffer(b, loc, func, t, halves * sizeB);

  // The thread's coordinates over the local axes (A's, then B's), and its
  // register tile's first element along each own axis.
  SmallVector<size_t> localAxes;
  SmallVector<int64_t> localSizes;
  for (ArrayRef<size_t> axes :
       {ArrayRef<size_t>(product.aAxes), ArrayRef<size_t>(product.bAxes)})
    for (size_t d : axes)
      if (plan.local[d] > 1) {
        localAxes.push_back(d);
        localSizes.push_back(plan.local[d]);
      }
  Value zero = cst(b, 0);
  DenseMap<size_t, Value> threadOffset;
  for (auto [d, coord] :
       llvm::zip(localAxes, delinearizeIndex(b, loc, tid, localSizes, zero)))
    threadOffset[d] = mul(b, coord, plan.upcast[d]);
  // The side's upcast axis (at most one) and its register tile's extent.
  auto upcastAxis = [&](ArrayRef<size_t> axes) -> std::optional<size_t> {
    for (size_t d : axes)
      if (plan.upcast[d] > 1)
        return d;
    return std::nullopt;
  };
  std::optional<size_t> upAxisA = upcastAxis(product.aAxes);
  std::optional<size_t> upAxisB = upcastAxis(product.bAxes);
  int64_t upM = upAxisA ? plan.upcast[*upAxisA] : 1;
  int64_t upN = upAxisB ? plan.upcast[*upAxisB] : 1;
  // The thread's first element in a side's flattened block tile, and the
  // flattened stride of its upcast axis.
  auto flatStart = [&](OpBuilder &ib, const StagedOperand &staged) {
    Value at = cst(ib, 0);
    int64_t stride = 1;
    for (size_t i = staged.freeAxes.size(); i-- > 0;) {
      if (Value off = threadOffset.lookup(staged.freeAxes[i]))
        at = add(ib, at, mul(ib, off, stride));
      stride *= staged.extents[i];
    }
    return at;
  };
  auto flatStride = [&](const StagedOperand &staged, std::optional<size_t> d) {
    int64_t stride = 1;
    for (size_t i = staged.freeAxes.size(); i-- > 0;) {
      if (d && staged.freeAxes[i] == *d)
        return stride;
      stride *= staged.extents[i];
    }
    return int64_t(1);
  };
  Value rowStart = flatStart(b, stagedA), colStart = flatStart(b, stagedB);
  int64_t rowStride = flatStride(stagedA, upAxisA);
  int64_t colStride = flatStride(stagedB, upAxisB);

  BlockTileLoop tiles =
      emitBlockTileLoop(b, loc, space, sharedTileSteps(plan), group, groups);
  scf::ForOp tileLoop = tiles.loop;
  SmallVector<Value> base = tiles.base;
  // The body's ops follow the base's arithmetic.
  OpBuilder tb(tileLoop.getBody()->getTerminator());

  auto accType = VectorType::get({upN}, t);
  Value init = arith::ConstantOp::create(
      tb, loc, DenseElementsAttr::get(accType, zeroAttr(tb, t)));
  SmallVector<Value> inits(size_t(upM), init);
  LogicalResult status = success();
  // Double buffering: the first chunk staged before the loop.
  auto load = [&](OpBuilder &ib, const StagedOperand &staged, Value k0) {
    return loadStaged(ib, loc, emitter, staged, base, product.kAxes, kSizes, k0,
                      chunk, tid, threads);
  };
  auto store = [&](OpBuilder &ib, const StagedOperand &staged,
                   const StagedValues &values, Value offset) {
    storeStaged(ib, loc, emitter, staged, product.kAxes, kSizes, chunk, threads,
                values, offset);
  };
  if (doubleBuffer) {
    FailureOr<StagedValues> firstA = load(tb, stagedA, cst(tb, 0));
    FailureOr<StagedValues> firstB = load(tb, stagedB, cst(tb, 0));
    if (failed(firstA) || failed(firstB)) {
      tileLoop.erase();
      return failure();
    }
    store(tb, stagedA, *firstA, Value());
    store(tb, stagedB, *firstB, Value());
    gpu::BarrierOp::create(tb, loc);
  }
  auto kLoop = scf::ForOp::create(tb, loc, cst(tb, 0), cst(tb, reduced),
                                  cst(tb, chunk), inits);
  {
    OpBuilder kb = OpBuilder::atBlockBegin(kLoop.getBody());
    Value k0 = kLoop.getInductionVar();
    // Where this chunk is read (a half of each double buffer).
    Value readA, readB;
    FailureOr<StagedValues> nextA, nextB;
    if (doubleBuffer) {
      // The next chunk's loads go out before this chunk's multiply-adds;
      // the last trip reloads its own chunk (the loads stay uniform).
      Value parity = arith::RemUIOp::create(
          kb, loc, arith::DivUIOp::create(kb, loc, k0, cst(kb, chunk)),
          cst(kb, 2));
      readA = mul(kb, parity, sizeA);
      readB = mul(kb, parity, sizeB);
      Value next = arith::MinUIOp::create(kb, loc, add(kb, k0, cst(kb, chunk)),
                                          cst(kb, reduced - chunk));
      nextA = load(kb, stagedA, next);
      nextB = load(kb, stagedB, next);
      if (failed(nextA) || failed(nextB))
        status = failure();
    } else {
      gpu::BarrierOp::create(kb, loc);
      if (failed(stageOperand(kb, loc, emitter, stagedA, base, product.kAxes,
                              kSizes, k0, chunk, tid, threads)) ||
          failed(stageOperand(kb, loc, emitter, stagedB, base, product.kAxes,
                              kSizes, k0, chunk, tid, threads)))
        status = failure();
      else
        gpu::BarrierOp::create(kb, loc);
    }
    if (succeeded(status)) {
      SmallVector<Value> accs(kLoop.getRegionIterArgs());
      auto flags = contract ? arith::FastMathFlags::contract
                            : arith::FastMathFlags::none;
      // `count` elements `stride` apart from `start` of row kk: one vector
      // load where they are adjacent.
      auto readTile = [&](const StagedOperand &staged, Value start,
                          int64_t count, int64_t stride, int64_t kk,
                          Value half) {
        Value first = add(kb, cst(kb, kk * staged.stride), start);
        if (half)
          first = add(kb, first, half);
        auto type = VectorType::get({count}, t);
        if (stride == 1 || count == 1)
          return vector::LoadOp::create(
                     kb, loc, type, staged.buffer, ValueRange{first},
                     /*nontemporal=*/false, vectorAlignment(count, bytes))
              .getResult();
        SmallVector<Value> parts;
        for (int64_t e = 0; e < count; ++e)
          parts.push_back(memref::LoadOp::create(
              kb, loc, staged.buffer,
              ValueRange{add(kb, first, cst(kb, e * stride))}));
        return vector::FromElementsOp::create(kb, loc, type, parts).getResult();
      };
      for (int64_t kk = 0; kk < chunk; ++kk) {
        Value rows = readTile(stagedA, rowStart, upM, rowStride, kk, readA);
        Value cols = readTile(stagedB, colStart, upN, colStride, kk, readB);
        for (int64_t i = 0; i < upM; ++i) {
          Value a = vector::ExtractOp::create(kb, loc, rows, i);
          Value splat = vector::BroadcastOp::create(kb, loc, accType, a);
          Value prod = arith::MulFOp::create(kb, loc, splat, cols, flags);
          accs[size_t(i)] =
              arith::AddFOp::create(kb, loc, accs[size_t(i)], prod, flags);
        }
      }
      if (doubleBuffer) {
        // The next chunk into the other halves; the barrier keeps them
        // from the next trip's reads until all have stored, and this
        // trip's halves from the next trip's stores until all have read.
        store(kb, stagedA, *nextA, sub(kb, cst(kb, sizeA), readA));
        store(kb, stagedB, *nextB, sub(kb, cst(kb, sizeB), readB));
        gpu::BarrierOp::create(kb, loc);
      }
      scf::YieldOp::create(kb, loc, accs);
    }
  }
  if (succeeded(status)) {
    // The thread's first output element, then its tile's.
    SmallVector<Value> first = base;
    for (size_t d : localAxes)
      first[d] = add(tb, base[d], threadOffset.lookup(d));
    SmallVector<SmallVector<Value>> elements;
    SmallVector<Value> values;
    for (int64_t i = 0; i < upM; ++i)
      for (int64_t j = 0; j < upN; ++j) {
        SmallVector<Value> idx = first;
        if (upAxisA)
          idx[*upAxisA] = add(tb, first[*upAxisA], cst(tb, i));
        if (upAxisB)
          idx[*upAxisB] = add(tb, first[*upAxisB], cst(tb, j));
        elements.push_back(std::move(idx));
        values.push_back(
            vector::ExtractOp::create(tb, loc, kLoop.getResult(unsigned(i)), j)
                .getResult());
      }
    if (failed(emitter.emitStoresOfReduce(tb, stores, elements, product.reduce,
                                          values)))
      status = failure();
  }
  if (failed(status))
    tileLoop.erase();
  return status;
}
