//===- LazyToLoops.cpp - lazy.kernel to scf loops over memrefs ------------===//
//
// convert-lazy-to-loops: every lazy.kernel becomes a func.func over
// memrefs, each group of consecutive stores of one shape an scf.parallel
// over that shape whose body computes one element of every store's value
// (KernelEmitter.h states the per-element rules), then stores each at the
// index its ShapeTracker gives, guarded by the view's mask.
// A kernel over Variables (symbolic shapes) takes each as an `index`
// argument after its buffers, in key order, named by `lazy.variables`: its
// loops run to the dims' values (a plan takes no step on a symbolic
// axis), a float sum over a symbolic axis reorders only where it is long
// at every value, and calls pass the launch's lazy.var_vals, so one
// kernel serves every value.
// A row kernel (lowerRows) runs its rows in the scf.parallel, each
// computing its row values, then its elements; with one inner axis that
// lanes divide, its passes are lane vectors (row reduces included), its
// second pass prefetches the next row and a dear value two passes compute
// is kept in a scratch row (Passes.td, rule 7).
// The scheduled function becomes byte allocations viewed per buffer (so
// buffer views of any offset and dtype are views of the same memory),
// calls, copies and fills (HostBuffers.h).
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/KernelCodegen/KernelEmitter.h"
#include "lazy/Conversion/KernelCodegen/PlannedTile.h"
#include "lazy/Conversion/KernelCodegen/SoftmaxSumTiling.h"
#include "lazy/Conversion/LazyToLoops/HostBuffers.h"
#include "lazy/Conversion/Passes.h"
#include "lazy/Dialect/Lazy/Analysis/KernelSpace.h"
#include "lazy/Dialect/Lazy/Analysis/PackedPanels.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Support/PassOptionHints.h"

#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/ScopeExit.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_CONVERTLAZYTOLOOPS
#include "lazy/Conversion/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using namespace mlir::lazy;

namespace {

/// Nested scf.for loops, the first outermost, with `body` in the
/// innermost.
void forNest(OpBuilder &b, Location loc, ArrayRef<Value> lbs,
             ArrayRef<Value> ubs, ArrayRef<Value> steps,
             function_ref<void(OpBuilder &, ValueRange)> body) {
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Value> ivs;
  for (auto [lb, ub, step] : llvm::zip(lbs, ubs, steps)) {
    auto loop = scf::ForOp::create(b, loc, lb, ub, step);
    ivs.push_back(loop.getInductionVar());
    b.setInsertionPoint(loop.getBody()->getTerminator());
  }
  body(b, ivs);
}

/// An scf.parallel loop with `body` in it. The body is built after the
/// loop is in its block (not by the op's body builder), so that the code
/// it emits can read the loop's bounds from its induction variables
/// (emitBoundedIndexAndValid).
void parallelLoop(OpBuilder &b, Location loc, ValueRange lbs, ValueRange ubs,
                  ValueRange steps,
                  function_ref<void(OpBuilder &, ValueRange)> body) {
  OpBuilder::InsertionGuard guard(b);
  auto loop = scf::ParallelOp::create(b, loc, lbs, ubs, steps);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  body(b, loop.getInductionVars());
}

/// A parallel loop nest over `lbs..ubs` (`trips` iterations per dim):
/// scf.parallel over the dims before the innermost one of more than one
/// trip and scf.for inside, so that the innermost dim stays a plain loop
/// LLVM vectorizes (OpenMP collapses a multi-dim parallel loop into one,
/// whose indices come back through division and remainder); one
/// scf.parallel when no outer dim has more than one trip.
void parallelNest(OpBuilder &b, Location loc, ArrayRef<Value> lbs,
                  ArrayRef<Value> ubs, ArrayRef<Value> steps,
                  ArrayRef<int64_t> trips,
                  function_ref<void(OpBuilder &, ValueRange)> body) {
  size_t inner = trips.size();
  while (inner > 0 && trips[inner - 1] <= 1)
    --inner;
  bool outerWork = inner > 1 && llvm::any_of(trips.take_front(inner - 1),
                                             [](int64_t t) { return t > 1; });
  if (!outerWork) {
    parallelLoop(b, loc, lbs, ubs, steps, body);
    return;
  }
  size_t split = inner - 1;
  parallelLoop(b, loc, lbs.take_front(split), ubs.take_front(split),
               steps.take_front(split), [&](OpBuilder &pb, ValueRange outer) {
                 forNest(pb, loc, lbs.drop_front(split), ubs.drop_front(split),
                         steps.drop_front(split),
                         [&](OpBuilder &fb, ValueRange rest) {
                           SmallVector<Value> ivs(outer.begin(), outer.end());
                           ivs.append(rest.begin(), rest.end());
                           body(fb, ivs);
                         });
               });
}

/// A kernel's work: the elements of its largest store or reduce input.
int64_t workOf(KernelOp kernel) {
  int64_t work = 1;
  kernel.getBody().walk([&](Operation *op) {
    if (auto store = dyn_cast<StoreOp>(op))
      work = std::max(work,
                      ShapedType::getNumElements(store.getView().getShape()));
    else if (isa<ReduceSumOp, ReduceMaxOp, SoftmaxSumOp>(op))
      work = std::max(
          work,
          cast<RankedTensorType>(op->getOperand(0).getType()).getNumElements());
  });
  return work;
}

/// A kernel with a plan: the output axes' tile blocks in an scf.parallel
/// (or, without tiles, the point loops themselves), the point loops inside
/// stepping by their upcast, and each trip one register tile of elements
/// (every combination of the upcast offsets, the last axis fastest) whose
/// reduces share one loop nest.
LogicalResult lowerPlanned(OpBuilder &b, KernelEmitter &emitter,
                           StoreGroup &group, const KernelSpace &space,
                           const OptPlan &plan, bool parallel) {
  Location loc = group.stores.front().getLoc();
  size_t rank = space.shape.size();
  std::optional<LaneAxis> lanes = laneAxisOf(plan);
  TileLayout layout(space, plan, lanes);
  auto index = [&](OpBuilder &ib, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ib, loc, v);
  };
  SmallVector<size_t> outputAxes, tiledAxes;
  for (size_t d = 0; d < rank; ++d) {
    if (space.reduced[d])
      continue;
    outputAxes.push_back(d);
    if (plan.tile[d])
      tiledAxes.push_back(d);
  }
  LogicalResult status = success();
  // The point loops of the output axes, given each axis's start (the tile
  // block's first element, or 0).
  auto pointLoops = [&](OpBuilder &pb, ArrayRef<Value> starts, bool parallel) {
    SmallVector<Value> lbs, ubs, steps;
    for (auto [d, start] : llvm::zip(outputAxes, starts)) {
      int64_t extent = plan.tile[d] ? plan.tile[d] : space.shape[d];
      lbs.push_back(start);
      // A symbolic axis (no step of the plan) runs to its value.
      if (space.isSymbolicAxis(d))
        ubs.push_back(emitSInt(pb, loc, space.dims[d], emitter.getVariables()));
      else
        ubs.push_back(plan.tile[d] ? arith::AddIOp::create(pb, loc, start,
                                                           index(pb, extent))
                                         .getResult()
                                   : index(pb, extent));
      steps.push_back(index(pb, plan.upcast[d]));
    }
    auto trip = [&](OpBuilder &tb, ValueRange ivs) {
      SmallVector<SmallVector<Value>> elements =
          layout.elements(tb, loc, SmallVector<Value>(ivs), index(tb, 0));
      if (failed(emitter.emitStoreTileSplitAtMasks(tb, group.stores, elements,
                                                   space, plan, lanes)))
        status = failure();
    };
    if (lbs.empty()) {
      trip(pb, {});
    } else if (parallel) {
      SmallVector<int64_t> trips;
      for (size_t d : outputAxes)
        trips.push_back((plan.tile[d] ? plan.tile[d] : space.shape[d]) /
                        plan.upcast[d]);
      parallelNest(pb, loc, lbs, ubs, steps, trips, trip);
    } else {
      forNest(pb, loc, lbs, ubs, steps, trip);
    }
  };
  if (tiledAxes.empty()) {
    SmallVector<Value> zeros(outputAxes.size(), index(b, 0));
    pointLoops(b, zeros, parallel);
    return status;
  }
  SmallVector<Value> lbs, ubs, steps;
  for (size_t d : tiledAxes) {
    lbs.push_back(index(b, 0));
    ubs.push_back(index(b, space.shape[d]));
    steps.push_back(index(b, plan.tile[d]));
  }
  // A pack step's panels: copied per block before its point loops.
  SmallVector<PanelLoad> packed;
  if (plan.packAxis)
    packed = packedLoads(cast<KernelOp>(group.stores.front()->getParentOp()),
                         space, *plan.packAxis, plan.tile[*plan.packAxis]);
  SmallVector<Value> sequentialPanels;
  if (!parallel)
    sequentialPanels = KernelEmitter::allocatePanels(b, loc, packed);
  auto blockBody = [&](OpBuilder &pb, ValueRange ivs) {
    SmallVector<Value> starts;
    for (size_t d : outputAxes) {
      auto *it = llvm::find(tiledAxes, d);
      starts.push_back(it == tiledAxes.end()
                           ? index(pb, 0)
                           : ivs[size_t(it - tiledAxes.begin())]);
    }
    if (packed.empty())
      return pointLoops(pb, starts, /*parallel=*/false);
    // The panels live on the stack of the thread that runs the block: in
    // an alloca scope per block where blocks run in parallel, else
    // allocated once before the block loop (a scope inside an scf.for
    // would not survive lazy-to-cpu, as lowerRows says).
    SmallVector<Value> scratches = sequentialPanels;
    std::optional<OpBuilder> scoped;
    if (scratches.empty()) {
      auto scope = memref::AllocaScopeOp::create(pb, loc, TypeRange{});
      scoped.emplace(
          OpBuilder::atBlockEnd(&scope.getBodyRegion().emplaceBlock()));
      scratches = KernelEmitter::allocatePanels(*scoped, loc, packed);
    }
    OpBuilder &sb = scoped ? *scoped : pb;
    size_t axis = *plan.packAxis;
    // The block's first element: where every panel's index starts.
    SmallVector<Value> origin(rank, index(sb, 0));
    origin[axis] =
        starts[size_t(llvm::find(outputAxes, axis) - outputAxes.begin())];
    if (failed(emitter.packPanels(sb, loc, packed, scratches, origin, space,
                                  plan.tile[axis], *lanes)))
      status = failure();
    pointLoops(sb, starts, /*parallel=*/false);
    emitter.clearPackedPanels();
    if (scoped)
      memref::AllocaScopeReturnOp::create(sb, loc);
  };
  if (parallel) {
    parallelLoop(b, loc, lbs, ubs, steps, blockBody);
    return status;
  }
  forNest(b, loc, lbs, ubs, steps, blockBody);
  return status;
}

/// The most bytes of scratch rows (rowCacheValues) a row keeps: with the
/// row's input, well inside a 48 KiB first-level cache.
constexpr int64_t kRowCacheMaxBytes = 16 << 10;

/// A row kernel's store group (RowSplit), as its plan's `row` step says:
/// the row axes in a parallel nest (or loops), each row's computed views
/// first, then the other axes in sequential loops inside (one inner axis
/// in vectors of `rowVectorBytes`, 0 for none, where they divide it); axes
/// of one element use the emitter's zero.
LogicalResult lowerRows(OpBuilder &b, KernelEmitter &emitter, StoreGroup &group,
                        const RowSplit &split, bool parallel,
                        int64_t rowVectorBytes) {
  Location loc = group.stores.front().getLoc();
  auto index = [&](OpBuilder &ib, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ib, loc, v);
  };
  Value zero = emitter.zeroIndex(b, loc);
  // The inner axes as readGroupPlan counts them (vector bytes only where
  // there is one).
  SmallVector<size_t> rowAxes, innerAxes = innerAxesOf(split, group.shape);
  for (auto [d, extent] : llvm::enumerate(group.shape))
    if (extent > 1 && split.rowAxis[d])
      rowAxes.push_back(d);
  auto bounds = [&](OpBuilder &ib, ArrayRef<size_t> axes,
                    SmallVector<Value> &lbs, SmallVector<Value> &ubs,
                    SmallVector<Value> &steps, SmallVector<int64_t> &trips) {
    for (size_t d : axes) {
      lbs.push_back(index(ib, 0));
      ubs.push_back(index(ib, group.shape[d]));
      steps.push_back(index(ib, 1));
      trips.push_back(group.shape[d]);
    }
  };
  // The row's elements as vectors along its one inner axis, where the
  // lanes divide it and the stores read no reduce of their own (the row's
  // reduces are its row values, computed before).
  std::optional<LaneAxis> laneAxis;
  if (innerAxes.size() == 1 && !split.elementReduces) {
    Type element = group.stores.front().getValue().getType();
    int64_t bytes =
        int64_t(cast<ShapedType>(element).getElementTypeBitWidth() / 8);
    int64_t width = bytes > 0 ? rowVectorBytes / bytes : 0;
    if (width > 1 && group.shape[innerAxes.front()] % width == 0)
      laneAxis = LaneAxis{innerAxes.front(), width};
  }
  // Values more than one pass over a row computes, kept in scratch rows.
  SmallVector<Value> cached;
  if (laneAxis)
    cached = rowCacheValues(group.stores, *laneAxis, rowVectorBytes,
                            kRowCacheMaxBytes);
  LogicalResult status = success();
  auto rowBody = [&](OpBuilder &rb, ValueRange rowIvs) {
    SmallVector<Value> rowIdx(group.shape.size(), zero);
    for (auto [d, iv] : llvm::zip(rowAxes, rowIvs))
      rowIdx[d] = iv;
    if (failed(emitter.beginRow(rb, split, rowIdx))) {
      status = failure();
      return;
    }
    auto element = [&](OpBuilder &eb, ValueRange innerIvs) {
      SmallVector<Value> idx = rowIdx;
      for (auto [d, iv] : llvm::zip(innerAxes, innerIvs))
        idx[d] = iv;
      LogicalResult stored =
          laneAxis ? emitter.emitStoreTile(eb, group.stores, {idx}, {}, {},
                                           *laneAxis)
                   : emitter.emitStoreGroup(eb, group.stores, idx);
      if (failed(stored))
        status = failure();
    };
    SmallVector<Value> lbs, ubs, steps;
    SmallVector<int64_t> trips;
    bounds(rb, innerAxes, lbs, ubs, steps, trips);
    if (laneAxis)
      steps.back() = index(rb, laneAxis->width);
    emitter.beginRowPass();
    if (lbs.empty())
      element(rb, {});
    else
      forNest(rb, loc, lbs, ubs, steps, element);
    emitter.endRowPass();
    emitter.endRow();
  };
  // The scratch rows live on the stack: allocated once before sequential
  // rows, or per row in an alloca scope where rows run in parallel (on
  // several threads). A scope inside an scf.for would not survive
  // lazy-to-cpu: the memref lowering splits it into blocks before the
  // loops become branches, where the OpenMP lowering has already taken
  // the parallel loop's body out of it.
  auto allocateScratch = [&](OpBuilder &ab) {
    DenseMap<Value, Value> scratch;
    for (Value v : cached) {
      auto type = MemRefType::get({group.shape[laneAxis->axis]},
                                  signless(elementOf(v)));
      scratch[v] = memref::AllocaOp::create(
          ab, loc, type, ValueRange{}, ab.getI64IntegerAttr(kCacheLineBytes));
    }
    emitter.setRowCache(std::move(scratch));
  };
  auto row = [&](OpBuilder &rb, ValueRange rowIvs) {
    if (cached.empty() || !parallel)
      return rowBody(rb, rowIvs);
    auto scope = memref::AllocaScopeOp::create(rb, loc, TypeRange{});
    OpBuilder sb = OpBuilder::atBlockEnd(&scope.getBodyRegion().emplaceBlock());
    allocateScratch(sb);
    rowBody(sb, rowIvs);
    memref::AllocaScopeReturnOp::create(sb, loc);
  };
  if (!cached.empty() && !parallel)
    allocateScratch(b);
  // The row values' reduces along the one inner axis in lanes too (the
  // plan's verifier allows vector bytes only where the row has one), and
  // the next row prefetched along the innermost row axis.
  emitter.setRowReduceLanes(rowVectorBytes);
  if (!rowAxes.empty())
    emitter.setRowAxis(rowAxes.back(), group.shape[rowAxes.back()]);
  llvm::scope_exit reset([&] {
    emitter.setRowReduceLanes(0);
    emitter.setRowAxis(std::nullopt);
    emitter.setRowCache(DenseMap<Value, Value>());
  });
  SmallVector<Value> lbs, ubs, steps;
  SmallVector<int64_t> trips;
  bounds(b, rowAxes, lbs, ubs, steps, trips);
  if (lbs.empty())
    row(b, {});
  else if (!parallel)
    forNest(b, loc, lbs, ubs, steps, row);
  else
    parallelLoop(b, loc, lbs, ubs, steps, row);
  return status;
}

/// How many reduce steps ahead a register tile prefetches loads that move
/// a cache line or more per step (KernelEmitter::setPrefetchSteps).
constexpr int64_t kPrefetchSteps = 8;

/// The memrefs of `kernel`'s outputs of at least `minBytes` bytes (none
/// when minBytes is 0), in `entry`'s arguments.
SmallVector<Value> largeOutputsOf(KernelOp kernel, Block *entry,
                                  int64_t minBytes) {
  SmallVector<Value> large;
  if (minBytes <= 0)
    return large;
  for (uint64_t i = 0; i < kernel.getNumOutputs(); ++i) {
    auto type = cast<MemRefType>(entry->getArgument(i).getType());
    if (type.hasStaticShape() &&
        type.getNumElements() * int64_t(type.getElementTypeBitWidth() / 8) >=
            minBytes)
      large.push_back(entry->getArgument(i));
  }
  return large;
}

/// Whether each of `memrefs`' first elements (aligned pointer plus offset)
/// is at a multiple of kCacheLineBytes, as an i1.
Value cacheLineAligned(OpBuilder &b, Location loc, ArrayRef<Value> memrefs) {
  Value all;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value line = arith::ConstantIndexOp::create(b, loc, kCacheLineBytes);
  for (Value m : memrefs) {
    auto type = cast<MemRefType>(m.getType());
    Value base =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, m).getResult();
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, m);
    Value bytes =
        arith::MulIOp::create(b, loc, metadata.getOffset(),
                              arith::ConstantIndexOp::create(
                                  b, loc, type.getElementTypeBitWidth() / 8));
    Value address = arith::AddIOp::create(b, loc, base, bytes);
    Value isAligned = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(b, loc, address, line), zero);
    all = all ? arith::AndIOp::create(b, loc, all, isAligned).getResult()
              : isAligned;
  }
  return all;
}

/// A store group that is neither planned nor a row kernel: every element
/// computes its own values, in a parallel nest (or loops) over its shape;
/// symbolic dims loop to their values at the launch.
LogicalResult lowerElementwise(OpBuilder &b, KernelEmitter &emitter,
                               StoreGroup &group, bool parallel) {
  Location loc = group.stores.front().getLoc();
  ShapeTrackerAttr view = group.stores.front().getView();
  ::lazy::st::SymShape dims;
  if (view.isSymbolic())
    dims = view.getSymTracker().shape();
  SmallVector<Value> lbs, ubs, steps;
  for (auto [d, dim] : llvm::enumerate(group.shape)) {
    lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    ubs.push_back(dims.empty()
                      ? arith::ConstantIndexOp::create(b, loc, dim)
                      : emitSInt(b, loc, dims[d], emitter.getVariables()));
    steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
  }
  LogicalResult status = success();
  auto storeAt = [&](OpBuilder &pb, ValueRange ivs) {
    if (failed(emitter.emitStoreGroup(pb, group.stores, ivs)))
      status = failure();
  };
  if (lbs.empty())
    storeAt(b, {});
  else if (!parallel)
    forNest(b, loc, lbs, ubs, steps, storeAt);
  else
    parallelNest(b, loc, lbs, ubs, steps, group.shape, storeAt);
  return status;
}

/// A softmax_sum's tile on the CPU (SoftmaxSumTiling.h): AVX2 vectors, up
/// to 8 of them (AVX2 has 16 registers; m, l and the step's scalars take
/// some), and blocks of up to 64 query rows (1x8x1024x64 attention, one
/// core: 4 rows 63 ms, as one row; 16 rows 54; 64 and 128 rows 51). An
/// axis of fewer than 8 rows keeps one row per tile, whose next block's
/// scores are software-pipelined; so do keys in blocks shorter than 8
/// (1x8x100x64 in blocks of 4 keys: 0.96 ms in rows, 0.78 in one).
constexpr SoftmaxSumLimits kCpuSoftmaxSumLimits{/*vectorBytes=*/32,
                                                /*maxVectors=*/8,
                                                /*maxRows=*/64,
                                                /*minRows=*/8,
                                                /*minKeys=*/8};

/// A store group whose value is a softmax_sum, in the tiles
/// softmaxSumTiling gives: each tile one pass over the sum's axes that
/// computes each score once for all its elements
/// (KernelEmitter::emitSoftmaxSumTile), the tiles in an scf.parallel nest.
/// A tile of a block of rows (KernelEmitter::emitSoftmaxSumRows: the keys
/// outside, the rows inside, each row's state in a stack scratch) lets the
/// rows share each block of keys and values while it is in L1: one row per
/// tile streamed them from L2 for every row (bench/RESULTS.md).
LogicalResult lowerSoftmaxSum(OpBuilder &b, KernelEmitter &emitter,
                              StoreGroup &group, SoftmaxSumOp op,
                              bool parallel) {
  Location loc = op.getLoc();
  ArrayRef<int64_t> shape = group.shape;
  SoftmaxSumTiling tiling = softmaxSumTiling(op, shape, kCpuSoftmaxSumLimits);
  std::optional<size_t> rowAxis = tiling.rowAxis;
  int64_t rows = tiling.rows;
  Type stateType =
      elementOf(op.getResult()).isF64() ? b.getF64Type() : b.getF32Type();
  auto allocateState = [&](OpBuilder &ab) -> Value {
    return memref::AllocaOp::create(
        ab, loc,
        MemRefType::get(
            {KernelEmitter::softmaxRowStateSize(
                rows, tiling.vectors, tiling.lanes ? tiling.lanes->width : 1)},
            stateType),
        ValueRange{}, ab.getI64IntegerAttr(kCacheLineBytes));
  };
  // Sequential tiles share one state, allocated before their loops (a
  // scope inside an scf.for would not survive lazy-to-cpu, as lowerRows
  // says); parallel ones each allocate theirs in an alloca scope.
  Value sequentialState;
  if (rowAxis && !parallel)
    sequentialState = allocateState(b);
  SmallVector<Value> lbs, ubs, steps;
  for (size_t d = 0; d < shape.size(); ++d) {
    lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    ubs.push_back(arith::ConstantIndexOp::create(b, loc, shape[d]));
    steps.push_back(arith::ConstantIndexOp::create(b, loc, tiling.steps[d]));
  }
  LogicalResult status = success();
  auto tile = [&](OpBuilder &tb, ValueRange ivs) {
    SmallVector<SmallVector<Value>> elements = tiling.elementsAt(tb, loc, ivs);
    if (!rowAxis) {
      if (failed(emitter.emitSoftmaxSumTile(tb, group.stores, elements, op,
                                            tiling.lanes)))
        status = failure();
      return;
    }
    // The rows of this tile: all of the block's, or the axis's rest.
    auto rowsHere = [&](OpBuilder &rb) -> Value {
      Value all = arith::ConstantIndexOp::create(rb, loc, rows);
      if (shape[*rowAxis] % rows == 0)
        return all;
      Value rest = arith::SubIOp::create(
          rb, loc, arith::ConstantIndexOp::create(rb, loc, shape[*rowAxis]),
          ivs[*rowAxis]);
      return arith::MinSIOp::create(rb, loc, all, rest);
    };
    if (sequentialState) {
      if (failed(emitter.emitSoftmaxSumRows(
              tb, group.stores, elements, op, tiling.lanes,
              {*rowAxis, rows, rowsHere(tb), sequentialState})))
        status = failure();
      return;
    }
    auto scope = memref::AllocaScopeOp::create(tb, loc, TypeRange{});
    OpBuilder sb = OpBuilder::atBlockEnd(&scope.getBodyRegion().emplaceBlock());
    if (failed(emitter.emitSoftmaxSumRows(
            sb, group.stores, elements, op, tiling.lanes,
            {*rowAxis, rows, rowsHere(sb), allocateState(sb)})))
      status = failure();
    memref::AllocaScopeReturnOp::create(sb, loc);
  };
  if (!parallel)
    forNest(b, loc, lbs, ubs, steps, tile);
  else if (rowAxis)
    // Every axis parallel: each tile's alloca scope must sit in the
    // parallel loop's body itself (parallelNest would put the innermost
    // axis in an scf.for).
    parallelLoop(b, loc, lbs, ubs, steps, tile);
  else
    parallelNest(b, loc, lbs, ubs, steps, tiling.trips, tile);
  return status;
}

/// Lowers one kernel into `func`: one scf.parallel per group of
/// consecutive stores of one shape, or the kernel's plan (lowerPlanned).
LogicalResult lowerKernel(KernelOp kernel, func::FuncOp func,
                          ArrayRef<::lazy::st::sym::NodeP> variables,
                          int64_t parallelMinWork,
                          int64_t nontemporalMinBytes) {
  bool parallel = workOf(kernel) >= parallelMinWork;
  Block &body = kernel.getBody().front();
  Block *entry = func.addEntryBlock();
  IRMapping buffers;
  for (auto [arg, memrefArg] :
       llvm::zip(body.getArguments(), entry->getArguments()))
    buffers.map(arg, memrefArg);
  auto variableArgs = variableValues(
      variables, entry->getArguments().drop_front(body.getNumArguments()));
  OpBuilder b = OpBuilder::atBlockEnd(entry);
  Value zeroIndex;
  if (hasComputedViews(body))
    zeroIndex = arith::ConstantIndexOp::create(b, kernel.getLoc(), 0);
  // A sum over a symbolic axis reorders only if it is long at every value
  // (reducedElementCount counts the smallest).
  auto configure = [&](KernelEmitter &e) {
    e.setPrefetchSteps(kPrefetchSteps);
    e.setVariables(variableArgs);
    if (zeroIndex)
      e.setZeroIndex(zeroIndex);
  };
  KernelEmitter emitter(buffers, /*reassociateSums=*/true);
  configure(emitter);
  SmallVector<StoreGroup> groups = groupStores(body);
  // The plan decides the loops; the CPU runs register-tile plans only.
  auto plannedOr = kernelPlanOf(kernel);
  if (failed(plannedOr))
    return failure();
  auto &planned = *plannedOr;
  if (planned && planned->second.isGpuOnly())
    return kernel.emitOpError(
        "has a GPU plan (tc, local, group or block steps), which the CPU "
        "lowering "
        "cannot apply: plan it for the CPU (lazy-optimize-kernels "
        "target=host or generic)");
  // A planned kernel's stores form one group (the verifier checked).
  // Planned kernels and row kernels store their outputs in lane vectors,
  // large ones nontemporal, which needs addresses aligned to the vector;
  // only the call knows its buffers' addresses, so such a kernel is
  // emitted twice, with nontemporal aligned stores where every large
  // output's first element is cache-line aligned, with cached stores
  // otherwise (a nontemporal store LLVM cannot prove aligned becomes
  // 8-byte pieces, slower than a cached one).
  // A row plan names the groups that run row by row (and their vectors'
  // bytes); each group's split is found once (a versioned kernel lowers
  // twice).
  bool rowPlan = planned && planned->second.isRowPlan();
  SmallVector<std::optional<RowSplit>> splits(groups.size());
  SmallVector<int64_t> rowBytes(groups.size(), 0);
  if (rowPlan)
    for (auto [i, group] : llvm::enumerate(groups))
      if (int64_t bytes = planned->second.rows[i]) {
        splits[i] = rowSplitOf(group.stores);
        rowBytes[i] = bytes > 1 ? bytes : 0;
      }
  auto lowerGroups = [&](OpBuilder &gb, KernelEmitter &e) -> LogicalResult {
    if (planned && !rowPlan)
      return lowerPlanned(gb, e, groups.front(), planned->first,
                          planned->second, parallel);
    for (auto [i, group] : llvm::enumerate(groups)) {
      if (SoftmaxSumOp online =
              splits[i] ? SoftmaxSumOp() : topSoftmaxSum(group)) {
        if (failed(lowerSoftmaxSum(gb, e, group, online, parallel)))
          return failure();
        continue;
      }
      if (failed(splits[i] ? lowerRows(gb, e, group, *splits[i], parallel,
                                       rowBytes[i])
                           : lowerElementwise(gb, e, group, parallel)))
        return failure();
    }
    return success();
  };
  Location loc = kernel.getLoc();
  bool laneStores =
      planned || llvm::any_of(splits, [](const std::optional<RowSplit> &s) {
        return s.has_value();
      });
  SmallVector<Value> largeOutputs =
      laneStores ? largeOutputsOf(kernel, entry, nontemporalMinBytes)
                 : SmallVector<Value>();
  if (largeOutputs.empty()) {
    if (failed(lowerGroups(b, emitter)))
      return failure();
    func::ReturnOp::create(b, loc);
    return success();
  }
  Value aligned = cacheLineAligned(b, loc, largeOutputs);
  LogicalResult status = success();
  auto version = [&](OpBuilder &vb, bool nontemporal) {
    KernelEmitter versioned(buffers, /*reassociateSums=*/true);
    configure(versioned);
    if (nontemporal) {
      DenseMap<Value, int64_t> alignment;
      for (Value out : largeOutputs)
        alignment[out] = kCacheLineBytes;
      versioned.setBufferAlignment(std::move(alignment));
      versioned.setNontemporalBuffers(
          DenseSet<Value>(largeOutputs.begin(), largeOutputs.end()));
    }
    if (failed(lowerGroups(vb, versioned)))
      status = failure();
    scf::YieldOp::create(vb, loc);
  };
  scf::IfOp::create(
      b, loc, aligned,
      [&](OpBuilder &tb, Location) { version(tb, /*nontemporal=*/true); },
      [&](OpBuilder &eb, Location) { version(eb, /*nontemporal=*/false); });
  if (failed(status))
    return failure();
  func::ReturnOp::create(b, loc);
  return success();
}

/// Kernels take any rank-1 unit-stride memref.
MemRefType kernelMemrefOf(Type bufferType) {
  MemRefType plain = memrefOf(cast<BufferType>(bufferType));
  return MemRefType::get(
      plain.getShape(), plain.getElementType(),
      StridedLayoutAttr::get(plain.getContext(), ShapedType::kDynamic, {1}));
}

/// The CPU side of a schedule: memref allocations (freed before the
/// return unless a result lives in them), calls of the lowered kernels,
/// memref.copy, a zero-filling loop for EMPTY.
class CpuHost final : public HostTarget {
public:
  /// `module` receives the static buffers' globals when `staticBuffers`.
  CpuHost(ModuleOp module, bool staticBuffers, bool profileCalls,
          bool poisonBuffers, bool checkCalls)
      : symbols(module), staticBuffers(staticBuffers),
        profileCalls(profileCalls), poisonBuffers(poisonBuffers),
        checkCalls(checkCalls) {}
  StringRef name() const override { return "CPU"; }
  /// A heap allocation, or with static buffers a private uninitialized
  /// global: allocated once when the program is loaded, reused by every
  /// run (no allocation or first-touch page faults after the first).
  Value allocate(OpBuilder &b, Location loc, MemRefType bytes) override {
    Value buffer = allocateBytes(b, loc, bytes);
    if (poisonBuffers)
      fill(b, loc, buffer, b.getI8IntegerAttr(int8_t(0xFF)));
    return buffer;
  }
  Value allocateBytes(OpBuilder &b, Location loc, MemRefType bytes) {
    if (!staticBuffers)
      return memref::AllocOp::create(b, loc, bytes);
    OpBuilder gb(symbols.getOp()->getContext());
    auto global = memref::GlobalOp::create(
        gb, loc, "__lazy_buffer", gb.getStringAttr("private"), bytes,
        gb.getUnitAttr(), /*constant=*/false,
        gb.getI64IntegerAttr(kCacheLineBytes));
    symbols.insert(global); // renames __lazy_buffer_N uniquely
    return memref::GetGlobalOp::create(b, loc, bytes, global.getSymName());
  }
  LogicalResult launch(OpBuilder &b, LaunchOp launch,
                       ArrayRef<HostBuffer> operands) override {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        launch, launch.getKernelAttr());
    if (!callee)
      return launch.emitOpError("calls a kernel that was not lowered");
    Location loc = launch.getLoc();
    SmallVector<Value> args;
    for (auto [buffer, param] :
         llvm::zip(operands, callee.getArgumentTypes())) {
      auto paramType = cast<MemRefType>(param);
      Value m = viewAs(
          b, loc, buffer,
          MemRefType::get(paramType.getShape(), paramType.getElementType()));
      args.push_back(memref::CastOp::create(b, loc, param, m));
    }
    FailureOr<SmallVector<int64_t>> values =
        launchVariableValues(launch, callee);
    if (failed(values))
      return failure();
    for (int64_t v : *values)
      args.push_back(arith::ConstantIndexOp::create(b, loc, v));
    if (checkCalls) {
      // Each buffer's aligned address, offset and size, for the checker
      // to read its contents before and after the call.
      for (auto [index, arg] : llvm::enumerate(args)) {
        if (!isa<MemRefType>(arg.getType()))
          continue;
        auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, arg);
        Value address =
            memref::ExtractAlignedPointerAsIndexOp::create(b, loc, arg);
        hostCall(b, loc, "lazy_rt_check_arg",
                 {i64Constant(b, loc, calls), i64Constant(b, loc, index),
                  asI64(b, loc, address), asI64(b, loc, metadata.getOffset()),
                  asI64(b, loc, metadata.getSizes()[0])});
      }
      hostCall(b, loc, "lazy_rt_check_begin", {i64Constant(b, loc, calls)});
    }
    if (profileCalls)
      hostCall(b, loc, "lazy_rt_kernel_begin", {i64Constant(b, loc, calls)});
    func::CallOp::create(b, loc, launch.getKernel(), TypeRange{}, args);
    if (profileCalls)
      hostCall(b, loc, "lazy_rt_kernel_end", {i64Constant(b, loc, calls)});
    if (checkCalls)
      hostCall(b, loc, "lazy_rt_check_end", {i64Constant(b, loc, calls)});
    ++calls;
    return success();
  }
  void copy(OpBuilder &b, Location loc, Value dst, Value src) override {
    memref::CopyOp::create(b, loc, src, dst);
  }
  void fillZero(OpBuilder &b, Location loc, Value dst) override {
    auto type = cast<MemRefType>(dst.getType());
    fill(b, loc, dst, zeroAttr(b, type.getElementType()));
  }
  /// A loop storing `value` in every element of `dst` (LLVM makes it a
  /// memset).
  void fill(OpBuilder &b, Location loc, Value dst, TypedAttr value) {
    auto type = cast<MemRefType>(dst.getType());
    Value constant = arith::ConstantOp::create(b, loc, value);
    Value lo = arith::ConstantIndexOp::create(b, loc, 0);
    Value hi = arith::ConstantIndexOp::create(b, loc, type.getDimSize(0));
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    scf::ForOp::create(b, loc, lo, hi, one, ValueRange{},
                       [&](OpBuilder &fb, Location, Value iv, ValueRange) {
                         memref::StoreOp::create(fb, loc, constant, dst, iv);
                         scf::YieldOp::create(fb, loc);
                       });
  }
  void release(OpBuilder &b, Location loc, ArrayRef<Value> unused) override {
    if (staticBuffers)
      return;
    for (Value bytes : unused)
      memref::DeallocOp::create(b, loc, bytes);
  }
  /// lazy-distribute's items on the upstream mpi dialect (MPIToLLVM makes
  /// them MPI_Send, MPI_Recv and MPI_Allreduce calls on MPI_COMM_WORLD).
  LogicalResult send(OpBuilder &b, SendOp op, Value bytes) override {
    Location loc = op.getLoc();
    mpi::SendOp::create(b, loc, Type(), bytes, i32Constant(b, loc, op.getTag()),
                        i32Constant(b, loc, op.getRank()), commWorld(b, loc));
    return success();
  }
  LogicalResult receive(OpBuilder &b, RecvOp op, Value bytes) override {
    Location loc = op.getLoc();
    mpi::RecvOp::create(b, loc, Type(), bytes, i32Constant(b, loc, op.getTag()),
                        i32Constant(b, loc, op.getRank()), commWorld(b, loc));
    return success();
  }
  LogicalResult allReduce(OpBuilder &b, AllReduceOp op, Value in,
                          Value out) override {
    Location loc = op.getLoc();
    mpi::MPI_ReductionOpEnum kind = op.getKind() == "sum"
                                        ? mpi::MPI_ReductionOpEnum::MPI_SUM
                                        : mpi::MPI_ReductionOpEnum::MPI_MAX;
    mpi::AllReduceOp::create(b, loc, Type(), in, out, kind, commWorld(b, loc));
    return success();
  }
  /// Whether the host code calls MPI (lazy-distribute's items).
  bool emittedMpi() const { return mpiOps; }
  /// A call of lazy_rt_custom_random (HostFunctions.h) on the output's
  /// address, which the JIT resolves in the running process.
  void customRandom(OpBuilder &b, Location loc, Value dst, int64_t seed,
                    int32_t dtype) override {
    emitCustomRandomCall(b, loc, dst, seed, dtype);
  }

private:
  static Value i32Constant(OpBuilder &b, Location loc, int64_t value) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), value);
  }
  Value commWorld(OpBuilder &b, Location loc) {
    mpiOps = true;
    return mpi::CommWorldOp::create(b, loc, mpi::CommType::get(b.getContext()));
  }
  bool mpiOps = false;
  /// A call of the host function `entry` on i64 `values`, declared on
  /// first use.
  void hostCall(OpBuilder &b, Location loc, StringRef entry,
                ValueRange values) {
    auto callee = symbols.lookup<func::FuncOp>(entry);
    if (!callee) {
      OpBuilder mb(symbols.getOp()->getContext());
      SmallVector<Type> params(values.size(), mb.getI64Type());
      callee =
          func::FuncOp::create(mb, loc, entry, mb.getFunctionType(params, {}));
      callee.setPrivate();
      symbols.insert(callee);
    }
    func::CallOp::create(b, loc, callee, values);
  }
  static Value i64Constant(OpBuilder &b, Location loc, int64_t value) {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), value);
  }
  static Value asI64(OpBuilder &b, Location loc, Value index) {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  }

  SymbolTable symbols;
  bool staticBuffers;
  bool profileCalls;
  bool poisonBuffers;
  bool checkCalls;
  /// Kernel calls emitted so far.
  int64_t calls = 0;
};

struct ConvertLazyToLoops final
    : mlir::lazy::WithOptionHints<
          mlir::lazy::impl::ConvertLazyToLoopsBase<ConvertLazyToLoops>> {
  using WithOptionHints::WithOptionHints;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(verifyLaunchValues(module)))
      return signalPassFailure();
    SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
    for (KernelOp kernel : kernels) {
      SmallVector<Type> argTypes;
      for (Type t : kernel.getArgumentTypes())
        argTypes.push_back(kernelMemrefOf(t));
      // Variables (symbolic shapes) are `index` arguments after the
      // buffers, named by an attribute; launches pass their values.
      SmallVector<::lazy::st::sym::NodeP> variables = kernelVariables(kernel);
      OpBuilder b(kernel);
      argTypes.append(variables.size(), b.getIndexType());
      auto func = func::FuncOp::create(b, kernel.getLoc(), kernel.getSymName(),
                                       b.getFunctionType(argTypes, {}));
      if (auto metadata = kernel.getMetadataAttr())
        func->setAttr(LazyDialect::kMetadataAttrName, metadata);
      if (!variables.empty())
        func->setAttr(LazyDialect::kKernelVariablesAttrName,
                      kernelVariablesAttr(b, variables));
      if (failed(lowerKernel(kernel, func, variables, parallelMinWork,
                             nontemporalMinBytes))) {
        func.erase();
        return signalPassFailure();
      }
      kernel.erase();
    }
    CpuHost host(module, staticBuffers, profileCalls, poisonBuffers,
                 checkCalls);
    if (failed(lowerHostFunctions(module, host)))
      return signalPassFailure();
    // MPIToLLVM lowers to the ABI the module names, MPICH's by default;
    // Debian ships OpenMPI (a module may name another first).
    if (host.emittedMpi() && !module->hasAttr("dlti.map"))
      setMpiImplementation(module, "OpenMPI");
  }
};

} // namespace
