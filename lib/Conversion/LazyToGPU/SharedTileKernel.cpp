//===- SharedTileKernel.cpp - a local plan's kernel body ------------------===//
//
// convert-lazy-to-gpu's shared-memory mode, for a kernel whose plan has
// `local` steps (KernelSpace.h: a float sum over K of a plain product of
// operands A, varying along M, and B, along N). Rules:
//   1. a block of local(M) x local(N) threads computes one block tile at
//      a time, local times upcast elements of M and N and one element of
//      every other output axis; tiles in row-major order of the output
//      axes, grid-stride; thread t takes the register tile at row t /
//      local(N), column t % local(N) of the block's tiles;
//   2. K goes by chunks of unroll(K) elements: a barrier (the last chunk's
//      reads are done), every thread stages its share of both operands'
//      chunks into two workgroup buffers laid out [k][m] and [k][n], a
//      barrier, then each thread's multiply-adds read its tile's rows and
//      columns from them, one vector load each per step of K;
//   3. the staging evaluates each operand expression (KernelEmitter) in
//      runs of up to 16 bytes along the axis some load of it reads
//      contiguously (K or its own free axis, whichever is; a vector load
//      where the view allows), consecutive threads taking consecutive runs
//      so that a warp's loads coalesce;
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

} // namespace

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

LogicalResult mlir::lazy::stageOperand(OpBuilder &b, Location loc,
                                       KernelEmitter &emitter,
                                       const StagedOperand &staged,
                                       ArrayRef<Value> base, size_t k, Value k0,
                                       int64_t chunk, Value tid,
                                       int64_t threads) {
  auto cst = [&](OpBuilder &ib, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ib, loc, v);
  };
  auto add = [&](OpBuilder &ib, Value x, Value y) -> Value {
    return arith::AddIOp::create(ib, loc, x, y);
  };
  auto mul = [&](OpBuilder &ib, Value x, int64_t c) -> Value {
    return c == 1 ? x : arith::MulIOp::create(ib, loc, x, cst(ib, c));
  };
  Type t = signless(elementOf(staged.operand));
  int64_t bytes = int64_t(llvm::divideCeil(t.getIntOrFloatBitWidth(), 8));
  size_t axis = staged.freeAxis;
  int64_t extent = staged.extent;
  bool alongK = readsContiguouslyAlong(staged.operand, k) &&
                !readsContiguouslyAlong(staged.operand, axis);
  int64_t runExtent = alongK ? chunk : extent;
  int64_t width = runWidth(runExtent, bytes);
  int64_t runsPerLine = runExtent / width;
  int64_t runs = chunk * extent / width;
  // One run: the operand's elements from run's first on, into the buffer.
  auto emitRun = [&](OpBuilder &lb, Value run) -> LogicalResult {
    Value line = arith::DivUIOp::create(lb, loc, run, cst(lb, runsPerLine));
    Value first = mul(
        lb, arith::RemUIOp::create(lb, loc, run, cst(lb, runsPerLine)), width);
    // (kk, free) of the run's first element, and its place in the buffer.
    Value kk = alongK ? first : line, free = alongK ? line : first;
    SmallVector<Value> idx(base);
    idx[k] = add(lb, k0, kk);
    idx[axis] = add(lb, base[axis], free);
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
        lb, staged.operand, idx, LaneAxis{alongK ? k : axis, width});
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
  // Every thread the same number of runs, a few: straight-line code, all
  // of the thread's loads in flight at once. Otherwise a strided loop.
  if (runs % threads == 0 && runs / threads <= kMaxUnrolledRuns) {
    for (int64_t r = 0; r < runs / threads; ++r)
      if (failed(emitRun(b, r ? add(b, tid, cst(b, r * threads)) : tid)))
        return failure();
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
  auto cst = [&](OpBuilder &ib, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ib, loc, v);
  };
  auto add = [&](OpBuilder &ib, Value x, Value y) -> Value {
    return arith::AddIOp::create(ib, loc, x, y);
  };
  auto mul = [&](OpBuilder &ib, Value x, int64_t c) -> Value {
    return c == 1 ? x : arith::MulIOp::create(ib, loc, x, cst(ib, c));
  };
  size_t rank = space.shape.size();
  size_t m = product.m, n = product.n, k = product.k;
  int64_t localM = plan.local[m], localN = plan.local[n];
  int64_t upM = plan.upcast[m], upN = plan.upcast[n];
  int64_t blockM = localM * upM, blockN = localN * upN;
  int64_t chunk = plan.unroll[k];
  Type t = signless(elementOf(product.a));
  int64_t bytes = int64_t(llvm::divideCeil(t.getIntOrFloatBitWidth(), 8));

  // The workgroup buffers, [k][m] and [k][n].
  StagedOperand stagedA{product.a,
                        m,
                        blockM,
                        addWorkgroupBuffer(b, loc, func, t, chunk * blockM),
                        /*kFastest=*/false,
                        blockM};
  StagedOperand stagedB{product.b,
                        n,
                        blockN,
                        addWorkgroupBuffer(b, loc, func, t, chunk * blockN),
                        /*kFastest=*/false,
                        blockN};
  Value sharedA = stagedA.buffer, sharedB = stagedB.buffer;

  // The thread's register tile in the block.
  Value rowThread = arith::DivUIOp::create(b, loc, tid, cst(b, localN));
  Value colThread = arith::RemUIOp::create(b, loc, tid, cst(b, localN));
  Value rowOffset = mul(b, rowThread, upM), colOffset = mul(b, colThread, upN);

  SmallVector<size_t> outputAxes;
  SmallVector<int64_t> tiles, steps;
  for (size_t d = 0; d < rank; ++d)
    if (!space.reduced[d]) {
      outputAxes.push_back(d);
      steps.push_back(d == m ? blockM : d == n ? blockN : 1);
      tiles.push_back(space.shape[d] / steps.back());
    }
  Value zero = cst(b, 0);
  auto tileLoop = scf::ForOp::create(
      b, loc, group, cst(b, ShapedType::getNumElements(tiles)), groups);
  OpBuilder tb = OpBuilder::atBlockBegin(tileLoop.getBody());
  SmallVector<Value> coords =
      delinearizeIndex(tb, loc, tileLoop.getInductionVar(), tiles, zero);
  // The block tile's first element; reduce axes 0.
  SmallVector<Value> base(rank, zero);
  for (auto [i, d] : llvm::enumerate(outputAxes))
    base[d] = mul(tb, coords[i], steps[i]);

  auto accType = VectorType::get({upN}, t);
  Value init = arith::ConstantOp::create(
      tb, loc, DenseElementsAttr::get(accType, zeroAttr(tb, t)));
  SmallVector<Value> inits(size_t(upM), init);
  auto kLoop = scf::ForOp::create(tb, loc, cst(tb, 0), cst(tb, space.shape[k]),
                                  cst(tb, chunk), inits);
  LogicalResult status = success();
  {
    OpBuilder kb = OpBuilder::atBlockBegin(kLoop.getBody());
    Value k0 = kLoop.getInductionVar();
    gpu::BarrierOp::create(kb, loc);
    if (failed(stageOperand(kb, loc, emitter, stagedA, base, k, k0, chunk, tid,
                            localM * localN)) ||
        failed(stageOperand(kb, loc, emitter, stagedB, base, k, k0, chunk, tid,
                            localM * localN))) {
      status = failure();
    } else {
      gpu::BarrierOp::create(kb, loc);
      SmallVector<Value> accs(kLoop.getRegionIterArgs());
      auto flags = contract ? arith::FastMathFlags::contract
                            : arith::FastMathFlags::none;
      for (int64_t kk = 0; kk < chunk; ++kk) {
        Value rows = vector::LoadOp::create(
            kb, loc, VectorType::get({upM}, t), sharedA,
            ValueRange{add(kb, cst(kb, kk * blockM), rowOffset)},
            /*nontemporal=*/false, vectorAlignment(upM, bytes));
        Value cols = vector::LoadOp::create(
            kb, loc, accType, sharedB,
            ValueRange{add(kb, cst(kb, kk * blockN), colOffset)},
            /*nontemporal=*/false, vectorAlignment(upN, bytes));
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
    SmallVector<SmallVector<Value>> elements;
    SmallVector<Value> values;
    for (int64_t i = 0; i < upM; ++i)
      for (int64_t j = 0; j < upN; ++j) {
        SmallVector<Value> idx = base;
        idx[m] = add(tb, add(tb, base[m], rowOffset), cst(tb, i));
        idx[n] = add(tb, add(tb, base[n], colOffset), cst(tb, j));
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
