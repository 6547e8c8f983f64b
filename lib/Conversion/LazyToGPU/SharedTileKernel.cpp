//===- SharedTileKernel.cpp - a local plan's kernel body ------------------===//
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

#include "SharedTileKernel.h"

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

LogicalResult
mlir::lazy::stageOperand(OpBuilder &b, Location loc, KernelEmitter &emitter,
                         const StagedOperand &staged, ArrayRef<Value> base,
                         ArrayRef<size_t> kAxes, ArrayRef<int64_t> kSizes,
                         Value k0, int64_t chunk, Value tid, int64_t threads) {
  IndexMath im{loc};
  auto cst = [&](OpBuilder &ib, int64_t v) { return im.cst(ib, v); };
  auto add = [&](OpBuilder &ib, Value x, Value y) { return im.add(ib, x, y); };
  auto mul = [&](OpBuilder &ib, Value x, int64_t c) {
    return im.mul(ib, x, c);
  };
  int64_t bytes = bytesOf(signless(elementOf(staged.operand)));
  size_t inner = staged.freeAxes.back();
  int64_t extent = staged.freeElements();
  // Runs along K need K to be one axis of the space.
  bool alongK = kAxes.size() == 1 &&
                readsContiguouslyAlong(staged.operand, kAxes.front()) &&
                !readsContiguouslyAlong(staged.operand, inner);
  int64_t runExtent = alongK ? chunk : staged.extents.back();
  int64_t width = runWidth(runExtent, bytes);
  if (!alongK && !readsContiguouslyAlong(staged.operand, inner))
    width = 1;
  // Runs per line: a line is one kk (runs along the free axes) or one free
  // position (runs along K).
  int64_t runsPerLine = (alongK ? chunk : extent) / width;
  int64_t runs = chunk * extent / width;
  // One run: the operand's elements from run's first on, into the buffer.
  auto emitRun = [&](OpBuilder &lb, Value run) -> LogicalResult {
    Value line = arith::DivUIOp::create(lb, loc, run, cst(lb, runsPerLine));
    Value first = mul(
        lb, arith::RemUIOp::create(lb, loc, run, cst(lb, runsPerLine)), width);
    // (kk, free) of the run's first element, and its place in the buffer.
    Value kk = alongK ? first : line, free = alongK ? line : first;
    SmallVector<Value> idx(base);
    SmallVector<Value> kIdx =
        delinearizeIndex(lb, loc, add(lb, k0, kk), kSizes);
    for (auto [axis, v] : llvm::zip(kAxes, kIdx))
      idx[axis] = v;
    SmallVector<Value> freeIdx =
        delinearizeIndex(lb, loc, free, staged.extents);
    for (auto [axis, v] : llvm::zip(staged.freeAxes, freeIdx))
      idx[axis] = add(lb, base[axis], v);
    Value at = staged.kFastest ? add(lb, mul(lb, free, staged.stride), kk)
                               : add(lb, mul(lb, kk, staged.stride), free);
    if (width == 1) {
      FailureOr<Value> v = emitter.evaluateAt(lb, staged.operand, idx);
      if (failed(v))
        return failure();
      memref::StoreOp::create(lb, loc, *v, staged.buffer, ValueRange{at});
      return success();
    }
    FailureOr<Value> v = emitter.evaluateLanesAt(
        lb, staged.operand, idx,
        LaneAxis{alongK ? kAxes.front() : inner, width});
    if (failed(v))
      return failure();
    // A run along the buffer's fastest axis is one vector store; across
    // it, one store per element, a row apart.
    if (alongK == staged.kFastest) {
      vector::StoreOp::create(lb, loc, *v, staged.buffer, ValueRange{at},
                              /*nontemporal=*/false,
                              vectorAlignment(width, bytes));
      return success();
    }
    for (int64_t w = 0; w < width; ++w) {
      Value part = vector::ExtractOp::create(lb, loc, *v, w);
      memref::StoreOp::create(
          lb, loc, part, staged.buffer,
          ValueRange{add(lb, at, cst(lb, w * staged.stride))});
    }
    return success();
  };
  // A few runs per thread: straight-line code, all of the thread's loads
  // in flight at once (the last round guarded where the runs do not fill
  // it). Otherwise a strided loop.
  int64_t rounds = llvm::divideCeil(runs, threads);
  if (rounds <= kMaxUnrolledRuns) {
    for (int64_t r = 0; r < rounds; ++r) {
      Value run = r ? add(b, tid, cst(b, r * threads)) : tid;
      if ((r + 1) * threads <= runs) {
        if (failed(emitRun(b, run)))
          return failure();
        continue;
      }
      auto inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           run, cst(b, runs));
      auto guard = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
      OpBuilder gb = OpBuilder::atBlockBegin(guard.thenBlock());
      if (failed(emitRun(gb, run)))
        return failure();
    }
    return success();
  }
  auto loop = scf::ForOp::create(b, loc, tid, cst(b, runs), cst(b, threads));
  OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
  if (failed(emitRun(lb, loop.getInductionVar()))) {
    loop.erase();
    return failure();
  }
  return success();
}

int64_t mlir::lazy::sharedChunk(const KernelSpace &space, const OptPlan &plan,
                                const ProductReduce &product) {
  int64_t chunk = plan.unroll[product.kAxes.front()];
  for (size_t axis : ArrayRef<size_t>(product.kAxes).drop_front())
    chunk *= space.shape[axis];
  return chunk;
}

int64_t mlir::lazy::sharedTileCount(const KernelSpace &space,
                                    const OptPlan &plan) {
  int64_t tiles = 1;
  for (size_t d = 0; d < space.shape.size(); ++d)
    if (!space.reduced[d])
      tiles *= space.shape[d] / (plan.local[d] * plan.upcast[d]);
  return tiles;
}

LogicalResult
mlir::lazy::emitSharedTiles(OpBuilder &b, Location loc, gpu::GPUFuncOp func,
                            KernelEmitter &emitter, ArrayRef<StoreOp> stores,
                            const KernelSpace &space, const OptPlan &plan,
                            const ProductReduce &product, Value group,
                            Value groups, Value tid, bool contract) {
  IndexMath im{loc};
  auto cst = [&](OpBuilder &ib, int64_t v) { return im.cst(ib, v); };
  auto add = [&](OpBuilder &ib, Value x, Value y) { return im.add(ib, x, y); };
  auto mul = [&](OpBuilder &ib, Value x, int64_t c) {
    return im.mul(ib, x, c);
  };
  size_t rank = space.shape.size();
  int64_t chunk = sharedChunk(space, plan, product);
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
    staged.buffer =
        addWorkgroupBuffer(b, loc, func, t, chunk * staged.freeElements());
    return staged;
  };
  StagedOperand stagedA = stagedOf(product.a, product.aAxes);
  StagedOperand stagedB = stagedOf(product.b, product.bAxes);

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

  SmallVector<int64_t> steps;
  for (size_t d = 0; d < rank; ++d)
    steps.push_back(plan.local[d] * plan.upcast[d]);
  BlockTileLoop tiles = emitBlockTileLoop(b, loc, space, steps, group, groups);
  scf::ForOp tileLoop = tiles.loop;
  SmallVector<Value> base = tiles.base;
  // The body's ops follow the base's arithmetic.
  OpBuilder tb(tileLoop.getBody()->getTerminator());

  auto accType = VectorType::get({upN}, t);
  Value init = arith::ConstantOp::create(
      tb, loc, DenseElementsAttr::get(accType, zeroAttr(tb, t)));
  SmallVector<Value> inits(size_t(upM), init);
  auto kLoop = scf::ForOp::create(tb, loc, cst(tb, 0), cst(tb, reduced),
                                  cst(tb, chunk), inits);
  LogicalResult status = success();
  {
    OpBuilder kb = OpBuilder::atBlockBegin(kLoop.getBody());
    Value k0 = kLoop.getInductionVar();
    gpu::BarrierOp::create(kb, loc);
    if (failed(stageOperand(kb, loc, emitter, stagedA, base, product.kAxes,
                            kSizes, k0, chunk, tid, threads)) ||
        failed(stageOperand(kb, loc, emitter, stagedB, base, product.kAxes,
                            kSizes, k0, chunk, tid, threads))) {
      status = failure();
    } else {
      gpu::BarrierOp::create(kb, loc);
      SmallVector<Value> accs(kLoop.getRegionIterArgs());
      auto flags = contract ? arith::FastMathFlags::contract
                            : arith::FastMathFlags::none;
      // `count` elements `stride` apart from `start` of row kk: one vector
      // load where they are adjacent.
      auto readTile = [&](const StagedOperand &staged, Value start,
                          int64_t count, int64_t stride, int64_t kk) {
        Value first = add(kb, cst(kb, kk * staged.stride), start);
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
        Value rows = readTile(stagedA, rowStart, upM, rowStride, kk);
        Value cols = readTile(stagedB, colStart, upN, colStride, kk);
        for (int64_t i = 0; i < upM; ++i) {
          Value a = vector::ExtractOp::create(kb, loc, rows, i);
          Value splat = vector::BroadcastOp::create(kb, loc, accType, a);
          Value prod = arith::MulFOp::create(kb, loc, splat, cols, flags);
          accs[size_t(i)] =
              arith::AddFOp::create(kb, loc, accs[size_t(i)], prod, flags);
        }
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
