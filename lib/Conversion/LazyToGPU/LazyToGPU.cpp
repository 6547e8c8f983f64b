//===- LazyToGPU.cpp - kernels to gpu.func, the schedule to launches ------===//
//
// convert-lazy-to-gpu: every lazy.kernel becomes a `gpu.func` in the
// `gpu.module @lazy_kernels`, and every scheduled function a host function
// of gpu allocations, views, launches and copies. Rules:
//
//   - Kernel arguments are `memref<N x T>` with the identity layout, so that
//     with the bare-pointer calling convention a kernel takes one pointer
//     per buffer. Each element's value comes from KernelEmitter (the same
//     per-element code as the CPU).
//   - Consecutive stores of one shape share one loop and one evaluation per
//     element (tinygrad's multi-output kernels read their inputs once).
//   - Thread mode: each thread computes elements blockIdx*blockDim+tid,
//     striding by gridDim*blockDim; reduces inside run sequentially.
//   - The plan decides the mapping (lazy-optimize-kernels target=gpu, rule
//     B): this pass reads a store group's `row` and `block` steps and
//     chooses nothing itself; a group without a step runs in thread mode.
//   - Row mode, for a store group with a `row` step (fusion=aggressive's
//     row values): a block per row, its row values first (block
//     reductions with the group's `block` step, else computed by every
//     thread alone, in index order), then the row's elements split across
//     the threads (BlockReductions.cpp).
//   - Block mode, for a store group with a `block` step: one output element
//     per block at a time, striding by gridDim; the block's threads split
//     the reduced elements, each accumulating its share, and a
//     gpu.all_reduce (shuffles and shared memory on both vendors) combines
//     the partial results. Narrow types are reduced in 32 bits, which gives
//     the same bits for integers and bool. A float max is IEEE maximum
//     across the threads, rerun in index order by every thread where the
//     block's result is a NaN or a zero (the results the order decides).
//     Thread 0 stores (BlockReductions.cpp). A `group` plan puts its loop
//     in block mode with a block of its threads.
//   - Softmax-sum mode, for a kernel without a plan whose one store group
//     is a lazy.softmax_sum (attention under fusion=aggressive): each
//     thread takes the tiles SoftmaxSumTiling.h gives (a query row, its
//     head dim in 128-bit vectors), grid-stride, and computes each score
//     once for the whole tile (KernelEmitter::emitSoftmaxSumTile). With
//     tensor cores, a softmax_sum whose scores are one dot product of f16
//     or bf16 operands and whose weights are such values runs
//     FlashAttention-2's loop instead, blocks of up to 4 warps of 16 query
//     rows each sharing their keys in shared memory (AttentionTiles.h).
//   - Shared-memory mode, for a plan with `local` steps: a block per block
//     tile of a matrix product, its operands staged in workgroup memory
//     (SharedTiles.cpp).
//   - Tile mode, for a kernel with a plan (lazy-optimize-kernels
//     target=gpu): each thread takes register tiles, grid-stride, and
//     computes each with KernelEmitter::emitStoreTile as the CPU does
//     (PlannedTile.h); vector accesses state their alignment where every
//     launch's buffers and the view's index make it hold (alignmentOf).
//   - Every loop is grid-stride, so any grid size is correct; the block
//     size is fixed by the kernel's `known_block_size` (blocks of up to
//     `block-size` threads in thread mode; in block mode the step's
//     threads, a power of two from 32 to 1024). A kernel with a
//     block-mode loop always has a power-of-two block: the all_reduce
//     lowering combines its 32-lane partials with a shuffle whose width is
//     the number of warps, which ROCDL handles only for powers of two.
//   - Variables (symbolic shapes): each is an `index` argument after the
//     buffers, in key order, named by `lazy.variables`; gpu.launch_func
//     passes the launch's lazy.var_vals. Such a kernel runs in thread mode
//     over the element count at those values, delinearized by its
//     symbolic dims (block and row modes are sized when it is lowered).
//   - Host: each buffer is a `gpu.alloc` of bytes (or a function argument
//     of bytes) viewed as its dtype with `memref.view`, so buffer views at
//     any offset and of any dtype are views of the same memory. Copies are
//     `gpu.memcpy`, EMPTY a `gpu.memset` to 0, CUSTOM an error.
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/KernelCodegen/GPU/AttentionTiles.h"
#include "lazy/Conversion/KernelCodegen/GPU/BlockReductions.h"
#include "lazy/Conversion/KernelCodegen/GPU/SharedTiles.h"
#include "lazy/Conversion/KernelCodegen/GPU/TensorCores.h"
#include "lazy/Conversion/KernelCodegen/KernelEmitter.h"
#include "lazy/Conversion/KernelCodegen/PlannedTile.h"
#include "lazy/Conversion/KernelCodegen/SoftmaxSumTiling.h"
#include "lazy/Conversion/LazyToLoops/HostBuffers.h"
#include "lazy/Conversion/Passes.h"
#include "lazy/Dialect/Lazy/Analysis/GpuBlocks.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Support/PassOptionHints.h"

#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::lazy {
#define GEN_PASS_DEF_CONVERTLAZYTOGPU
#include "lazy/Conversion/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using namespace mlir::lazy;

namespace {

constexpr StringLiteral kKernelModuleName = "lazy_kernels";

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// The largest element count the kernels' index arithmetic meets: every
/// tensor and buffer in a kernel and every view of every ShapeTracker.
int64_t largestExtent(ArrayRef<KernelOp> kernels) {
  int64_t largest = 0;
  auto see = [&](Type t) {
    if (auto tensor = dyn_cast<RankedTensorType>(t))
      largest = std::max(largest, numElements(tensor.getShape()));
    else if (auto buffer = dyn_cast<BufferType>(t))
      largest = std::max(largest, buffer.getSize());
  };
  for (KernelOp kernel : kernels)
    kernel.walk([&](Operation *op) {
      for (Type t : op->getOperandTypes())
        see(t);
      for (Type t : op->getResultTypes())
        see(t);
      for (Region &region : op->getRegions())
        for (Type t : region.getArgumentTypes())
          see(t);
      for (NamedAttribute attr : op->getAttrs())
        if (auto st = dyn_cast<ShapeTrackerAttr>(attr.getValue())) {
          if (!st.isSymbolic()) {
            for (const ::lazy::st::View &view : st.getTracker().views)
              largest = std::max(largest, ::lazy::st::prod(view.shape));
            continue;
          }
          // Symbolic dims at their largest values; a dim without an
          // integer bound needs 64-bit indices.
          for (const ::lazy::st::SymView &view : st.getSymTracker().views) {
            int64_t n = 1;
            for (const ::lazy::st::SInt &d : view.shape) {
              ::lazy::st::SInt most = d.max();
              if (!most.isInt() ||
                  __builtin_mul_overflow(n, most.getInt(), &n)) {
                n = INT64_MAX;
                break;
              }
            }
            largest = std::max(largest, n);
          }
        }
    });
  return largest;
}

/// The launch geometry of one kernel: blocks of `block` threads, `grid`
/// blocks, both along x.
struct Geometry {
  int64_t grid = 1, block = 32;
};

int64_t roundUp(int64_t n, int64_t to) { return (n + to - 1) / to * to; }

class KernelToGpu {
public:
  KernelToGpu(int64_t blockSize, int64_t maxGrid, int64_t unroll,
              int64_t reduceUnroll, bool fma,
              std::optional<TensorCoreKind> tensorCores, bool doubleBuffer)
      : blockSize(blockSize), maxGrid(maxGrid), unroll(unroll),
        reduceUnroll(reduceUnroll), fma(fma), doubleBuffer(doubleBuffer),
        tensorCores(tensorCores) {}

  /// Lowers `kernel` into a new gpu.func at `b`'s insertion point. Its
  /// arguments' bases are aligned to `alignment` bytes (one per argument;
  /// empty: unknown).
  FailureOr<std::pair<gpu::GPUFuncOp, Geometry>>
  lower(OpBuilder &b, KernelOp kernel, ArrayRef<int64_t> alignment);

private:
  /// Tile mode, for a kernel with a plan: thread i of the grid takes
  /// register tiles i, i + gridDim*blockDim, ... (the tiles in row-major
  /// order of the output axes, so that neighbouring threads take
  /// neighbouring tiles along the innermost axis) and computes each as
  /// the CPU computes one (emitStoreTile), its reduces in index order.
  FailureOr<std::pair<gpu::GPUFuncOp, Geometry>>
  lowerPlanned(OpBuilder &b, KernelOp kernel, const KernelSpace &space,
               const OptPlan &plan, ArrayRef<int64_t> alignment);
  /// A kernel's new gpu.func, a builder at its end, its thread and block
  /// ids and sizes along x, and the emitter over its buffers (with fma and
  /// the arguments' alignment).
  struct KernelFrame {
    gpu::GPUFuncOp func;
    OpBuilder builder;
    Value tid, bid, bdim, gdim;
    std::unique_ptr<GpuKernelEmitter> emitter;
  };
  /// The frame of a new gpu.func for `kernel` with `geometry`, whose
  /// arguments' bases are aligned to `alignment` bytes.
  KernelFrame beginKernel(OpBuilder &b, KernelOp kernel,
                          const Geometry &geometry,
                          ArrayRef<int64_t> alignment);
  /// The kernel's end: a gpu.return after the body when `body` succeeded,
  /// else the half-built gpu.func erased.
  static FailureOr<std::pair<gpu::GPUFuncOp, Geometry>>
  finishKernel(KernelFrame &frame, Location loc, const Geometry &geometry,
               LogicalResult body);

  /// Blocks of up to `block-size` threads, a tile per thread, enough
  /// blocks (up to the grid's limit) for `tileCount` tiles.
  Geometry threadTileGeometry(int64_t tileCount) const {
    Geometry geometry;
    geometry.block = std::clamp<int64_t>(roundUp(tileCount, 32), 32, blockSize);
    geometry.grid = std::clamp<int64_t>(
        llvm::divideCeil(tileCount, geometry.block), 1, maxGrid);
    return geometry;
  }
  /// The grid-stride loop over the tiles of `trips` (tiles per axis):
  /// thread i of the grid takes tiles i, i + gridDim*blockDim, ...; `body`
  /// gets each tile's row-major index vector (`zero` on axes of one tile).
  LogicalResult emitThreadTiles(
      KernelFrame &frame, Location loc, ArrayRef<int64_t> trips, Value zero,
      function_ref<LogicalResult(OpBuilder &, ArrayRef<Value>)> body);

  /// Tensor-core mode, for a `tc` plan: a block of one warp per 16x8
  /// output tile at a time (TensorCores.h).
  FailureOr<std::pair<gpu::GPUFuncOp, Geometry>>
  lowerTensorCores(OpBuilder &b, KernelOp kernel, const KernelSpace &space,
                   const OptPlan &plan, ArrayRef<int64_t> alignment);

  /// Softmax-sum mode, for a kernel of one store group whose value is a
  /// lazy.softmax_sum (attention): each thread takes tiles of
  /// softmaxSumTiling (kGpuSoftmaxSumLimits), grid-stride, and computes
  /// each as the CPU computes one (emitSoftmaxSumTile): a query row's
  /// scores once for its whole head dim, instead of once per element.
  FailureOr<std::pair<gpu::GPUFuncOp, Geometry>>
  lowerSoftmaxSum(OpBuilder &b, KernelOp kernel, StoreGroup &group,
                  SoftmaxSumOp op, ArrayRef<int64_t> alignment);

  /// Shared-memory mode, for a plan with `local` steps: a block of
  /// local(M) x local(N) threads per block tile (SharedTiles.h).
  FailureOr<std::pair<gpu::GPUFuncOp, Geometry>>
  lowerShared(OpBuilder &b, KernelOp kernel, const KernelSpace &space,
              const OptPlan &plan, ArrayRef<int64_t> alignment);

  int64_t blockSize, maxGrid, unroll, reduceUnroll;
  bool fma, doubleBuffer;
  std::optional<TensorCoreKind> tensorCores;
};

/// Each of `func`'s memref arguments with its known alignment in bytes.
DenseMap<Value, int64_t> alignmentOfArguments(gpu::GPUFuncOp func,
                                              ArrayRef<int64_t> alignment) {
  DenseMap<Value, int64_t> known;
  for (auto [arg, bytes] : llvm::zip(func.getArguments(), alignment))
    known[arg] = bytes;
  return known;
}

KernelToGpu::KernelFrame KernelToGpu::beginKernel(OpBuilder &b, KernelOp kernel,
                                                  const Geometry &geometry,
                                                  ArrayRef<int64_t> alignment) {
  SmallVector<Type> argTypes;
  for (Type t : kernel.getArgumentTypes())
    argTypes.push_back(memrefOf(cast<BufferType>(t)));
  // Variables (symbolic shapes) are `index` arguments after the buffers,
  // named by an attribute; launches pass their values.
  SmallVector<::lazy::st::sym::NodeP> variables = kernelVariables(kernel);
  argTypes.append(variables.size(), b.getIndexType());
  auto func = gpu::GPUFuncOp::create(b, kernel.getLoc(), kernel.getSymName(),
                                     b.getFunctionType(argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  if (!variables.empty())
    func->setAttr(LazyDialect::kKernelVariablesAttrName,
                  kernelVariablesAttr(b, variables));
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(geometry.block), 1, 1}));
  if (auto metadata = kernel.getMetadataAttr())
    func->setAttr(LazyDialect::kMetadataAttrName, metadata);
  // The pointers' known alignment, for LLVM: it then merges a thread's
  // neighbouring scalar loads (a tile row's unrolled reduce steps) into
  // vector loads.
  for (auto [i, bytes] : llvm::enumerate(alignment)) {
    if (i >= kernel.getBody().getNumArguments())
      break;
    Type element = cast<MemRefType>(argTypes[i]).getElementType();
    if (bytes > int64_t(llvm::divideCeil(element.getIntOrFloatBitWidth(), 8)))
      func.setArgAttr(unsigned(i), LLVM::LLVMDialect::getAlignAttrName(),
                      b.getI64IntegerAttr(bytes));
  }
  Block *entry = &func.getBody().front();
  IRMapping buffers;
  for (auto [arg, memrefArg] :
       llvm::zip(kernel.getBody().getArguments(), entry->getArguments()))
    buffers.map(arg, memrefArg);
  Location loc = kernel.getLoc();
  KernelFrame frame{func, OpBuilder::atBlockEnd(entry), {}, {}, {}, {}, {}};
  OpBuilder &kb = frame.builder;
  frame.tid = gpu::ThreadIdOp::create(kb, loc, gpu::Dimension::x);
  frame.bid = gpu::BlockIdOp::create(kb, loc, gpu::Dimension::x);
  frame.bdim = gpu::BlockDimOp::create(kb, loc, gpu::Dimension::x);
  frame.gdim = gpu::GridDimOp::create(kb, loc, gpu::Dimension::x);
  frame.emitter = std::make_unique<GpuKernelEmitter>(
      std::move(buffers), frame.tid, frame.bdim, reduceUnroll);
  frame.emitter->setVariables(variableValues(
      variables,
      entry->getArguments().drop_front(kernel.getBody().getNumArguments())));
  frame.emitter->setContractSumOfProducts(fma);
  frame.emitter->setBufferAlignment(alignmentOfArguments(func, alignment));
  return frame;
}

FailureOr<std::pair<gpu::GPUFuncOp, Geometry>>
KernelToGpu::finishKernel(KernelFrame &frame, Location loc,
                          const Geometry &geometry, LogicalResult body) {
  if (failed(body)) {
    frame.func.erase();
    return failure();
  }
  gpu::ReturnOp::create(frame.builder, loc);
  return std::make_pair(frame.func, geometry);
}

LogicalResult KernelToGpu::emitThreadTiles(
    KernelFrame &frame, Location loc, ArrayRef<int64_t> trips, Value zero,
    function_ref<LogicalResult(OpBuilder &, ArrayRef<Value>)> body) {
  OpBuilder &kb = frame.builder;
  Value start = arith::AddIOp::create(
      kb, loc, arith::MulIOp::create(kb, loc, frame.bid, frame.bdim),
      frame.tid);
  Value step = arith::MulIOp::create(kb, loc, frame.gdim, frame.bdim);
  Value end = arith::ConstantIndexOp::create(kb, loc, numElements(trips));
  FailureOr<SmallVector<Value>> done = emitUnrolledLoop(
      kb, loc, start, end, step, 1, ValueRange{},
      [&](OpBuilder &lb, ArrayRef<Value> flat,
          ValueRange) -> FailureOr<SmallVector<Value>> {
        if (failed(body(lb, delinearizeIndex(lb, loc, flat[0], trips, zero))))
          return failure();
        return SmallVector<Value>{};
      });
  return failure(failed(done));
}

FailureOr<std::pair<gpu::GPUFuncOp, Geometry>>
KernelToGpu::lowerPlanned(OpBuilder &b, KernelOp kernel,
                          const KernelSpace &space, const OptPlan &plan,
                          ArrayRef<int64_t> alignment) {
  Location loc = kernel.getLoc();
  Block &body = kernel.getBody().front();
  SmallVector<StoreGroup> groups = groupStores(body);
  StoreGroup &group = groups.front();
  std::optional<LaneAxis> lanes = laneAxisOf(plan);
  TileLayout layout(space, plan, lanes);
  // Tiles per output axis, and in all.
  SmallVector<int64_t> tiles;
  for (size_t d : layout.outputAxes)
    tiles.push_back(space.shape[d] / plan.upcast[d]);
  Geometry geometry = threadTileGeometry(numElements(tiles));
  KernelFrame frame = beginKernel(b, kernel, geometry, alignment);
  GpuKernelEmitter &emitter = *frame.emitter;
  Value zero = arith::ConstantIndexOp::create(frame.builder, loc, 0);
  LogicalResult status = emitThreadTiles(
      frame, loc, tiles, zero, [&](OpBuilder &lb, ArrayRef<Value> tile) {
        SmallVector<Value> bases(tile);
        for (auto [i, d] : llvm::enumerate(layout.outputAxes))
          if (plan.upcast[d] > 1)
            bases[i] = arith::MulIOp::create(
                lb, loc, bases[i],
                arith::ConstantIndexOp::create(lb, loc, plan.upcast[d]));
        return emitter.emitStoreTile(lb, group.stores,
                                     layout.elements(lb, loc, bases, zero),
                                     space.reduces, plan.unroll, lanes);
      });
  return finishKernel(frame, loc, geometry, status);
}

FailureOr<std::pair<gpu::GPUFuncOp, Geometry>>
KernelToGpu::lowerTensorCores(OpBuilder &b, KernelOp kernel,
                              const KernelSpace &space, const OptPlan &plan,
                              ArrayRef<int64_t> alignment) {
  Location loc = kernel.getLoc();
  std::string why;
  FailureOr<TensorCoreShape> shape =
      matchTensorCores(space, *plan.tensorCores, why);
  if (failed(shape))
    return kernel.emitOpError("tensor-core plan: ") << why;
  if (hasTensorCoreBlocks(plan)) {
    // Block tiles: warps of one block share staged operands.
    Geometry geometry;
    geometry.block = tensorCoreBlockThreads(plan, *shape, *tensorCores);
    geometry.grid = std::clamp<int64_t>(
        tensorCoreBlockCount(space, plan, *shape, *tensorCores), 1, maxGrid);
    KernelFrame frame = beginKernel(b, kernel, geometry, alignment);
    SmallVector<StoreGroup> groups = groupStores(kernel.getBody().front());
    LogicalResult status = emitTensorCoreBlocks(
        frame.builder, loc, frame.func, *frame.emitter, groups.front().stores,
        space, plan, *shape, *tensorCores, /*group=*/frame.bid,
        /*groups=*/frame.gdim, frame.tid);
    return finishKernel(frame, loc, geometry, status);
  }
  // One warp (wave) per block: the warps of a block would run through
  // different numbers of tiles.
  Geometry geometry;
  geometry.block = tensorCoreLanes(*tensorCores);
  geometry.grid = std::clamp<int64_t>(
      tensorCoreTileCount(space, *shape, *tensorCores), 1, maxGrid);
  KernelFrame frame = beginKernel(b, kernel, geometry, alignment);
  OpBuilder &kb = frame.builder;
  SmallVector<StoreGroup> groups = groupStores(kernel.getBody().front());
  // One warp per block: the block is the warp, its threads the lanes.
  LogicalResult status = emitTensorCoreTiles(
      kb, loc, *frame.emitter, groups.front().stores, space, *shape,
      *tensorCores, /*group=*/frame.bid, /*groups=*/frame.gdim,
      /*lane=*/frame.tid);
  return finishKernel(frame, loc, geometry, status);
}

/// A softmax_sum's tile on the GPU (SoftmaxSumTiling.h): a thread's
/// accumulators in 128-bit vectors along the head dim, up to 16 of them
/// (64 f32 registers: a head dim of 64 in one tile), no row blocks (the
/// threads are the rows).
constexpr SoftmaxSumLimits kGpuSoftmaxSumLimits{/*vectorBytes=*/16,
                                                /*maxVectors=*/16};

FailureOr<std::pair<gpu::GPUFuncOp, Geometry>>
KernelToGpu::lowerSoftmaxSum(OpBuilder &b, KernelOp kernel, StoreGroup &group,
                             SoftmaxSumOp op, ArrayRef<int64_t> alignment) {
  Location loc = kernel.getLoc();
  if (tensorCores) {
    std::string why;
    FailureOr<AttentionTensorCores> attention =
        matchAttentionTensorCores(op, group.shape, *tensorCores, why);
    if (succeeded(attention)) {
      Geometry geometry;
      geometry.block = attentionBlockThreads(*attention);
      geometry.grid = std::clamp<int64_t>(
          attentionTileCount(*attention, group.shape), 1, maxGrid);
      KernelFrame frame = beginKernel(b, kernel, geometry, alignment);
      LogicalResult status = emitAttentionTensorCores(
          frame.builder, loc, frame.func, *frame.emitter, group.stores,
          group.shape, *attention, /*group=*/frame.bid, /*groups=*/frame.gdim,
          frame.tid);
      return finishKernel(frame, loc, geometry, status);
    }
  }
  SoftmaxSumTiling tiling =
      softmaxSumTiling(op, group.shape, kGpuSoftmaxSumLimits);
  Geometry geometry = threadTileGeometry(tiling.tileCount());
  KernelFrame frame = beginKernel(b, kernel, geometry, alignment);
  GpuKernelEmitter &emitter = *frame.emitter;
  Value zero = arith::ConstantIndexOp::create(frame.builder, loc, 0);
  LogicalResult status = emitThreadTiles(
      frame, loc, tiling.trips, zero, [&](OpBuilder &lb, ArrayRef<Value> tile) {
        SmallVector<Value> first(tile);
        for (auto [d, s] : llvm::enumerate(tiling.steps))
          if (s > 1)
            first[d] = arith::MulIOp::create(
                lb, loc, first[d], arith::ConstantIndexOp::create(lb, loc, s));
        return emitter.emitSoftmaxSumTile(lb, group.stores,
                                          tiling.elementsAt(lb, loc, first), op,
                                          tiling.lanes);
      });
  return finishKernel(frame, loc, geometry, status);
}

FailureOr<std::pair<gpu::GPUFuncOp, Geometry>>
KernelToGpu::lowerShared(OpBuilder &b, KernelOp kernel,
                         const KernelSpace &space, const OptPlan &plan,
                         ArrayRef<int64_t> alignment) {
  Location loc = kernel.getLoc();
  std::string why;
  FailureOr<ProductReduce> product = matchProductReduce(space, "local", why);
  if (failed(product))
    return kernel.emitOpError("local plan: ") << why;
  Geometry geometry;
  geometry.block = plan.threadsPerBlock();
  geometry.grid = std::clamp<int64_t>(sharedTileCount(space, plan), 1, maxGrid);
  KernelFrame frame = beginKernel(b, kernel, geometry, alignment);
  SmallVector<StoreGroup> groups = groupStores(kernel.getBody().front());
  LogicalResult status = emitSharedTiles(
      frame.builder, loc, frame.func, *frame.emitter, groups.front().stores,
      space, plan, *product, /*group=*/frame.bid, /*groups=*/frame.gdim,
      frame.tid, fma, doubleBuffer);
  return finishKernel(frame, loc, geometry, status);
}

FailureOr<std::pair<gpu::GPUFuncOp, Geometry>>
KernelToGpu::lower(OpBuilder &b, KernelOp kernel, ArrayRef<int64_t> alignment) {
  auto plannedOr = kernelPlanOf(kernel);
  if (failed(plannedOr))
    return failure();
  auto &planned = *plannedOr;
  if (planned && planned->first.isSymbolic())
    return kernel.emitOpError(
        "has a plan but reads through symbolic shapes (tinygrad Variables), "
        "which the GPU lowering runs without one (lazy-optimize-kernels "
        "target=gpu gives such kernels none)");
  if (planned && planned->second.packAxis)
    return kernel.emitOpError(
        "has a pack step, which only the CPU lowering runs (shared-memory "
        "plans stage the GPU's operands: lazy-optimize-kernels target=gpu)");
  // A group step is block mode with its block size for every store group
  // (below); a group plan's row and block steps name the store groups
  // that run a row per block and in blocks.
  int64_t groupThreads = planned ? planned->second.groupThreads : 0;
  bool groupPlan = planned && planned->second.isGroupPlan();
  if (planned && !groupThreads && !groupPlan) {
    if (planned->second.tensorCores) {
      if (!tensorCores)
        return kernel.emitOpError(
            "has a tensor-core plan (tc), which this target does not run "
            "(convert-lazy-to-gpu tensor-cores: mma-sync, mfma or wmma)");
      return lowerTensorCores(b, kernel, planned->first, planned->second,
                              alignment);
    }
    if (planned->second.hasLocals())
      return lowerShared(b, kernel, planned->first, planned->second, alignment);
    return lowerPlanned(b, kernel, planned->first, planned->second, alignment);
  }
  Block &body = kernel.getBody().front();
  Location loc = kernel.getLoc();
  if (!planned && !holdsVariables(kernel)) {
    SmallVector<StoreGroup> all = groupStores(body);
    if (all.size() == 1)
      if (SoftmaxSumOp online = topSoftmaxSum(all.front()))
        return lowerSoftmaxSum(b, kernel, all.front(), online, alignment);
  }

  // Groups of consecutive stores of one shape, and each group's mode, as
  // the plan's steps say.
  struct Group : StoreGroup {
    bool blockMode = false;
    /// The threads of its blocks (a `block` or `group` step); 0: none.
    int64_t blockThreads = 0;
    /// Row mode (the plan's `row` step): a row kernel's rows (RowSplit),
    /// one per block at a time;
    /// the row's reduces are block reductions, its elements split across
    /// the threads.
    std::optional<RowSplit> rows;
    SmallVector<int64_t> rowShape, innerShape;
    /// Row mode: the row values' outermost reduces are block reductions.
    bool blockReduces = false;
  };
  // A kernel over Variables runs in thread mode, each thread's reduces in
  // index order over their extents at the launch (block reductions and
  // rows are sized when the kernel is lowered).
  bool symbolic = holdsVariables(kernel);
  SmallVector<Group, 2> groups;
  for (auto [i, group] : llvm::enumerate(groupStores(body))) {
    Group &g = groups.emplace_back();
    if (groupPlan && planned->second.rows[i])
      g.rows = rowSplitOf(group.stores);
    if (groupPlan)
      g.blockThreads = planned->second.blocks[i];
    if (groupThreads)
      g.blockThreads = groupThreads;
    static_cast<StoreGroup &>(g) = std::move(group);
    if (g.rows)
      for (auto [d, extent] : llvm::enumerate(g.shape))
        (g.rows->rowAxis[d] ? g.rowShape : g.innerShape).push_back(extent);
  }
  Geometry geometry;
  int64_t maxBlock = 32;
  for (Group &g : groups) {
    int64_t n = numElements(g.shape);
    if (g.rows) {
      // A block per row; its threads split the row's elements. With a
      // block step its reduces are block reductions; without, every thread
      // computes them alone, in index order as the CPU does.
      g.blockMode = true;
      g.blockReduces = g.blockThreads > 0;
      int64_t threads = g.blockReduces
                            ? g.blockThreads
                            : std::clamp<int64_t>(
                                  llvm::PowerOf2Ceil(numElements(g.innerShape)),
                                  32, blockSize);
      maxBlock = std::max(maxBlock, threads);
      geometry.grid = std::max(geometry.grid, numElements(g.rowShape));
      continue;
    }
    g.blockMode = !symbolic && g.blockThreads > 0;
    if (g.blockMode) {
      // A block per output, its threads splitting the reduces.
      maxBlock = std::max(maxBlock, g.blockThreads);
      geometry.grid = std::max(geometry.grid, n);
    } else {
      int64_t threads = std::clamp<int64_t>(roundUp(n, 32), 32, blockSize);
      maxBlock = std::max(maxBlock, threads);
    }
  }
  bool anyBlockMode =
      llvm::any_of(groups, [](const Group &g) { return g.blockMode; });
  geometry.block =
      anyBlockMode ? int64_t(llvm::PowerOf2Ceil(maxBlock)) : maxBlock;
  for (Group &g : groups)
    if (!g.blockMode)
      geometry.grid =
          std::max(geometry.grid, (numElements(g.shape) + geometry.block - 1) /
                                      geometry.block);
  geometry.grid = std::clamp<int64_t>(geometry.grid, 1, maxGrid);

  KernelFrame frame = beginKernel(b, kernel, geometry, alignment);
  OpBuilder &kb = frame.builder;
  Value tid = frame.tid, bid = frame.bid, bdim = frame.bdim, gdim = frame.gdim;
  GpuKernelEmitter &emitter = *frame.emitter;
  if (hasComputedViews(body))
    emitter.setZeroIndex(arith::ConstantIndexOp::create(kb, loc, 0));
  for (Group &g : groups) {
    Location gloc = g.stores.front().getLoc();
    if (g.rows) {
      if (failed(lowerRows(kb, emitter, g, *g.rows, g.rowShape, g.innerShape,
                           g.blockReduces, tid, bid, bdim, gdim)))
        return finishKernel(frame, loc, geometry, failure());
      continue;
    }
    // Symbolic dims: the element count at the launch's values.
    ShapeTrackerAttr view = g.stores.front().getView();
    ::lazy::st::SymShape dims;
    if (view.isSymbolic())
      dims = view.getSymTracker().shape();
    Value n;
    for (const ::lazy::st::SInt &d : dims) {
      Value extent = emitSInt(kb, gloc, d, emitter.getVariables());
      n = n ? arith::MulIOp::create(kb, gloc, n, extent).getResult() : extent;
    }
    if (!n)
      n = arith::ConstantIndexOp::create(kb, gloc, numElements(g.shape));
    Value start, step, storeGuard;
    if (g.blockMode) {
      start = bid;
      step = gdim;
      storeGuard =
          arith::CmpIOp::create(kb, gloc, arith::CmpIPredicate::eq, tid,
                                arith::ConstantIndexOp::create(kb, gloc, 0));
    } else {
      start = arith::AddIOp::create(
          kb, gloc, arith::MulIOp::create(kb, gloc, bid, bdim), tid);
      step = arith::MulIOp::create(kb, gloc, gdim, bdim);
    }
    emitter.blockMode = g.blockMode;
    // Thread mode unrolls the element loop unless its elements hold
    // sequential reduces (their loops would run one after another anyway);
    // block mode unrolls inside the reduce instead.
    bool holdsReduce = !outerReduces(g.stores).empty();
    int64_t factor = g.blockMode || holdsReduce ? 1 : unroll;
    FailureOr<SmallVector<Value>> done = emitUnrolledLoop(
        kb, gloc, start, n, step, factor, ValueRange{},
        [&](OpBuilder &lb, ArrayRef<Value> flat,
            ValueRange) -> FailureOr<SmallVector<Value>> {
          SmallVector<SmallVector<Value>> elements;
          for (Value f : flat)
            elements.push_back(dims.empty()
                                   ? delinearizeIndex(lb, gloc, f, g.shape)
                                   : delinearizeSymIndex(lb, gloc, f, dims,
                                                         emitter.getVariables(),
                                                         Value()));
          if (failed(
                  emitter.emitStoreGroups(lb, g.stores, elements, storeGuard)))
            return failure();
          return SmallVector<Value>{};
        });
    if (failed(done))
      return finishKernel(frame, loc, geometry, failure());
  }
  return finishKernel(frame, loc, geometry, success());
}

/// What every buffer's base is aligned to, as the host code passes it: a
/// gpu.alloc (cudaMalloc, hipMalloc and the emulator give 256 bytes) or a
/// function argument (callers pass such memory).
constexpr int64_t kBaseAlignment = 16;

/// The alignment in bytes `buffer`'s first byte is known to have: its
/// base's, kept by a sub-buffer's byte offset as far as the offset's
/// lowest set bit.
int64_t alignmentOf(Value buffer) {
  int64_t align = kBaseAlignment;
  while (Operation *def = buffer.getDefiningOp()) {
    if (auto sub = dyn_cast<SubAllocOp>(def)) {
      if (uint64_t offset = sub.getOffset())
        align = std::min<int64_t>(align, int64_t(offset & -offset));
      buffer = sub.getBase();
    } else if (auto launch = dyn_cast<LaunchOp>(def)) {
      buffer = launch.getOuts()[cast<OpResult>(buffer).getResultNumber()];
    } else if (auto ext = dyn_cast<ExtOp>(def)) {
      buffer = ext.getOuts()[0];
    } else if (isa<AllocOp>(def)) {
      break;
    } else {
      return 1;
    }
  }
  return align;
}

/// Per kernel, per argument: the alignment every launch of it gives.
llvm::StringMap<SmallVector<int64_t>> argumentAlignments(ModuleOp module) {
  llvm::StringMap<SmallVector<int64_t>> alignments;
  module.walk([&](LaunchOp launch) {
    auto [it, first] = alignments.try_emplace(launch.getKernel());
    SmallVector<int64_t> &known = it->second;
    for (auto [i, operand] : llvm::enumerate(launch->getOperands())) {
      int64_t align = alignmentOf(operand);
      if (first)
        known.push_back(align);
      else if (i < known.size())
        known[i] = std::min(known[i], align);
    }
  });
  return alignments;
}

/// The GPU side of a schedule: gpu.alloc (the runtime frees allocations
/// after reading the results), gpu.launch_func with each kernel's
/// geometry, gpu.memcpy, gpu.memset to zero, custom_random into a host
/// buffer copied to the device.
class GpuHost final : public HostTarget {
public:
  explicit GpuHost(
      const llvm::StringMap<std::pair<gpu::GPUFuncOp, Geometry>> &kernels)
      : kernels(kernels) {}

  StringRef name() const override { return "GPU"; }
  Value allocate(OpBuilder &b, Location loc, MemRefType bytes) override {
    return gpu::AllocOp::create(b, loc, bytes, Type(), ValueRange{},
                                ValueRange{}, ValueRange{}, false)
        .getMemref();
  }
  LogicalResult launch(OpBuilder &b, LaunchOp launch,
                       ArrayRef<HostBuffer> operands) override {
    auto it = kernels.find(launch.getKernel());
    if (it == kernels.end())
      return launch.emitOpError("launches a kernel that was not lowered");
    auto [kernel, geometry] = it->second;
    Location loc = launch.getLoc();
    SmallVector<Value> args;
    for (auto [buffer, param] : llvm::zip(operands, kernel.getArgumentTypes()))
      args.push_back(viewAs(b, loc, buffer, cast<MemRefType>(param)));
    auto cst = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v).getResult();
    };
    FailureOr<SmallVector<int64_t>> values =
        launchVariableValues(launch, kernel);
    if (failed(values))
      return failure();
    for (int64_t v : *values)
      args.push_back(cst(v));
    Value one = cst(1);
    gpu::LaunchFuncOp::create(b, loc, kernel,
                              gpu::KernelDim3{cst(geometry.grid), one, one},
                              gpu::KernelDim3{cst(geometry.block), one, one},
                              /*dynamicSharedMemorySize=*/Value(), args);
    return success();
  }
  void copy(OpBuilder &b, Location loc, Value dst, Value src) override {
    gpu::MemcpyOp::create(b, loc, Type(), ValueRange{}, dst, src);
  }
  void fillZero(OpBuilder &b, Location loc, Value dst) override {
    Type element = cast<MemRefType>(dst.getType()).getElementType();
    Value zero = arith::ConstantOp::create(b, loc, zeroAttr(b, element));
    gpu::MemsetOp::create(b, loc, Type(), ValueRange{}, dst, zero);
  }
  void release(OpBuilder &, Location, ArrayRef<Value>) override {}
  /// As tinygrad does: the host fills a host buffer, which is copied in.
  void customRandom(OpBuilder &b, Location loc, Value dst, int64_t seed,
                    int32_t dtype) override {
    auto type = cast<MemRefType>(dst.getType());
    Value host = memref::AllocOp::create(b, loc, type);
    emitCustomRandomCall(b, loc, host, seed, dtype);
    gpu::MemcpyOp::create(b, loc, Type(), ValueRange{}, dst, host);
    memref::DeallocOp::create(b, loc, host);
  }

private:
  const llvm::StringMap<std::pair<gpu::GPUFuncOp, Geometry>> &kernels;
};

struct ConvertLazyToGpu final
    : mlir::lazy::WithOptionHints<
          mlir::lazy::impl::ConvertLazyToGpuBase<ConvertLazyToGpu>> {
  using WithOptionHints::WithOptionHints;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (blockSize < 32 || blockSize > 1024 ||
        !llvm::isPowerOf2_64(uint64_t(int64_t(blockSize)))) {
      module.emitError("convert-lazy-to-gpu: block-size must be a power of "
                       "two from 32 to 1024, not ")
          << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    if (maxGrid < 1 || maxGrid > int64_t(INT32_MAX)) {
      module.emitError("convert-lazy-to-gpu: max-grid must be from 1 to ")
          << INT32_MAX << ", not " << static_cast<int64_t>(maxGrid);
      return signalPassFailure();
    }
    for (auto [name, value] : {std::pair<StringRef, int64_t>{"unroll", unroll},
                               {"reduce-unroll", reduceUnroll}})
      if (value < 1 || value > 16) {
        module.emitError("convert-lazy-to-gpu: ")
            << name << " must be from 1 to 16, not " << value;
        return signalPassFailure();
      }
    if (indexBits != 0 && indexBits != 32 && indexBits != 64) {
      module.emitError("convert-lazy-to-gpu: index-bits must be 0, 32 or "
                       "64, not ")
          << static_cast<int64_t>(indexBits);
      return signalPassFailure();
    }
    if (failed(verifyLaunchValues(module)))
      return signalPassFailure();
    SmallVector<KernelOp> kernelOps(module.getOps<KernelOp>());
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToStart(module.getBody());
    auto gpuModule =
        gpu::GPUModuleOp::create(b, module.getLoc(), kKernelModuleName);
    // 32-bit index arithmetic where every index, and a grid-stride loop's
    // reach (grid x block x unroll past the end), stays below 2^30: half
    // the registers of 64-bit indices, so more threads fit on a core.
    constexpr int64_t kIndexLimit = int64_t(1) << 30;
    bool narrow =
        indexBits == 32 ||
        (indexBits == 0 && largestExtent(kernelOps) < kIndexLimit &&
         maxGrid * blockSize * std::max(unroll, reduceUnroll) <= kIndexLimit);
    if (narrow)
      gpuModule->setAttr(
          DLTIDialect::kDataLayoutAttrName,
          DataLayoutSpecAttr::get(
              &getContext(), {DataLayoutEntryAttr::get(
                                 b.getIndexType(), b.getI64IntegerAttr(32))}));
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    b.getUnitAttr());
    OpBuilder kb = OpBuilder::atBlockBegin(gpuModule.getBody());
    FailureOr<std::optional<TensorCoreKind>> cores =
        parseTensorCoreKind(tensorCores);
    if (failed(cores)) {
      module.emitError("convert-lazy-to-gpu: tensor-cores must be ")
          << kTensorCoreKindNames << ", not '" << tensorCores << "'";
      return signalPassFailure();
    }
    KernelToGpu lowering(blockSize, maxGrid, unroll, reduceUnroll, fma, *cores,
                         doubleBuffer);
    llvm::StringMap<std::pair<gpu::GPUFuncOp, Geometry>> kernels;
    llvm::StringMap<SmallVector<int64_t>> alignments =
        argumentAlignments(module);
    for (KernelOp kernel : kernelOps) {
      kb.setInsertionPointToEnd(gpuModule.getBody());
      auto lowered =
          lowering.lower(kb, kernel, alignments.lookup(kernel.getSymName()));
      if (failed(lowered))
        return signalPassFailure();
      kernels[kernel.getSymName()] = *lowered;
      kernel.erase();
    }
    // Correctly rounded square roots (see the pass description). The
    // intrinsic is called by name: the GPU conversions turn llvm.intr.sqrt
    // back into libdevice.
    gpuModule.walk([](math::SqrtOp sqrt) {
      Type t = sqrt.getType();
      Type element = getElementTypeOrSelf(t);
      if (!element.isF32() && !element.isF64())
        return;
      std::string name = element.isF32() ? "f32" : "f64";
      if (auto vector = dyn_cast<VectorType>(t))
        name = "v" + std::to_string(vector.getNumElements()) + name;
      OpBuilder sb(sqrt);
      auto call = LLVM::CallIntrinsicOp::create(
          sb, sqrt.getLoc(), t, sb.getStringAttr("llvm.sqrt." + name),
          ValueRange{sqrt.getOperand()});
      sqrt.replaceAllUsesWith(call.getResult(0));
      sqrt.erase();
    });
    GpuHost host(kernels);
    if (failed(lowerHostFunctions(module, host)))
      return signalPassFailure();
  }
};

} // namespace
