//===- OptimizeKernels.cpp - choose each kernel's plan --------------------===//
//
// lazy-optimize-kernels: writes a plan (`opts`, #lazy.opt steps over the
// kernel's iteration space, KernelSpace.h) on every kernel that has a space
// and no plan. Rules (Passes.td states them with the options):
//   1. vector axis: the innermost output axis (> 1 element) along which the
//      output is contiguous and every load's address is contiguous (stride
//      1, or in aligned runs of a vector through every view, as a
//      reshaped transpose is) or constant (masks aside), some load
//      constant; upcast by two vectors
//      where that divides, else one, else the largest power of two from 4
//      that divides it;
//   2. row axis: the innermost other output axis along which some load that
//      varies along the vector axis is constant; upcast by 16 (rows two
//      vectors wide only), 8, 4 or 2, the most that keeps the tile within
//      kTileVectors vectors and its loads within kMaxLoadsPerTrip (2 and 4
//      times that with 512-bit vectors, whose AVX-512 has 32 registers)
//      and, with rule 4's window unrolled, the trip within
//      kMaxElementsPerTrip elements (which the plan's verifier enforces);
//   3. when the panel of loads constant along the row axis exceeds half of
//      L2, the vector axis is tiled by the widest fitting block;
//      3b. with 256-bit vectors, that block packs the loads that read it
//      contiguously and no other output axis (PackedPanels.h) where their
//      panels fit kMaxPanelBytes, and rule 2's rows then keep the tile
//      within kPackedTileVectors;
//   4. the innermost reduce axis, when it has at most kWindowUnroll
//      elements, is unrolled whole; without lanes and without rule 5's
//      tile, when it has at most kScalarWindowUnroll;
//   5. without a vector axis (or with one no lane count divides), the
//      dot-product form (every load reads the innermost reduce axis
//      contiguously, as in rule 1, or not at all): that axis is
//      unrolled by a vector (split accumulators), two output axes with
//      reuse upcast by 4 and 4 (512-bit vectors) or 2, the second one
//      reused by another load where there is one (an outer product);
//      5b. where a load reads that axis with a stride, the same tile over
//      the loads that vary along it, without the unroll;
//   6. a kernel without a reduce (and without 16-bit floats, which are
//      computed in software) gets its vector axis (as in rule 1, with
//      some load contiguous instead of some constant) upcast alone: its
//      loads and stores are then explicit vectors, which LLVM's loop
//      vectorizer left scalar in OpenMP's outlined loops (it cannot prove
//      the buffers distinct);
//   kernels without a vector axis get no plan (reduces: unless rule 5 or
//   4).
// target=gpu (convert-lazy-to-gpu's tile mode) instead: G1, an elementwise
// kernel's vector axis upcast by one 128-bit vector; G2, a reduce's 4-row
// tile of one vector (or 4x4 elements of two reused output axes), its
// reduce in index order but for rule 4's windows; G3, at least
// gpu-min-tiles tiles (gpuPlan); G4, before G2, a float matrix product's
// operands staged in shared memory: 16x16 (down to 32 in all) threads of
// 4x4 tiles, K in chunks of 16 (sharedPlan). Rule B, the GPU mapping
// of a kernel left without a register tile (GpuBlocks.h): a `block` step
// for each store group whose longest reduce reaches gpu-block-reduce-min
// elements, which then runs a block per output (or per row), its reduces
// split across the threads; other groups run a thread per element.
// A forced plan (the force option) replaces the heuristic for its kernel;
// target=host and generic refuse forced tc, local and group steps.
// Every register-tile plan, chosen or forced, then gets the `lanes` step
// its target's lowering runs (PlanLanes.h): the plan is the whole
// decision, which the lowerings only read.
// Rule R: a kernel without an iteration space whose store groups read row
// values (RowSplit.h) gets a `row` step per group that splits into rows,
// with vectors of the target's width (target=gpu: 1, scalar) where the
// group's rows have one inner axis; the lowerings run rows only so.
// A kernel over Variables (symbolic shapes) gets the CPU rules on its
// integer axes only (no rule takes a symbolic axis, rule 5 none at all),
// reading its views' strides at the Variables' largest values; target=gpu
// gives it no plan.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/GpuBlocks.h"
#include "lazy/Dialect/Lazy/Analysis/KernelSpace.h"
#include "lazy/Dialect/Lazy/Analysis/PackedPanels.h"
#include "lazy/Dialect/Lazy/Analysis/PlanLanes.h"
#include "lazy/Dialect/Lazy/Analysis/ProductReduce.h"
#include "lazy/Dialect/Lazy/Analysis/RowSplit.h"
#include "lazy/Dialect/Lazy/Analysis/TensorCores.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Dialect/Lazy/Transforms/Passes.h"
#include "lazy/Support/HostCpu.h"
#include "lazy/Support/PassOptionHints.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <unistd.h>

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYOPTIMIZEKERNELS
#include "lazy/Dialect/Lazy/Transforms/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using namespace mlir::lazy;

namespace {

/// A register tile holds at most this many vectors of accumulators with
/// 256-bit vectors (AVX2's 16 registers; twice that with AVX-512's 32).
/// The loads need a few more, which LLVM spills or reads from memory: an
/// AVX2 matmul's 8x16 tile (16 accumulators) ran 46-66 ms against 65-81
/// for 4x16 (8).
constexpr int64_t kTileVectors = 16;
/// A register tile that reads packed panels (rule 3b) holds at most this
/// many vectors of accumulators: an AVX2 matmul with B packed ran its 4x16
/// tile (8 accumulators) in 25-31 ms against 66 for 8x16, whose loads
/// from the panel spill.
constexpr int64_t kPackedTileVectors = 8;
/// A register tile's loads per trip (elements times the kernel's loads):
/// past this, LLVM's scheduler and SLP vectorizer spend seconds on the
/// block (a training step's fused backward kernels read 7 buffers).
constexpr int64_t kMaxLoadsPerTrip = 256;
/// Reduce axes of at most this many elements are unrolled whole.
constexpr int64_t kWindowUnroll = 4;
/// Without lanes a trip is one element, and a window of up to this many
/// is unrolled whole: the views' divisions by the window position fold
/// (beautiful_mnist's col2im, a 6x6 window: 45 ms to 9 ms).
constexpr int64_t kScalarWindowUnroll = 8;

/// What the heuristic knows of the machine.
struct TargetDescription {
  unsigned vectorBits = 256;
  uint64_t l2Bytes = 1 << 20;
  /// A GPU (convert-lazy-to-gpu's tile mode): a thread per register tile,
  /// vectors of its widest memory access.
  bool gpu = false;
  /// A GPU reduce kernel is planned only when its tiles give at least this
  /// many threads (by default 64 blocks of 256); fewer outputs keep the
  /// block-wide reduction of the unplanned lowering, which spreads each
  /// reduce over a block.
  int64_t gpuMinTiles = 16384;
  /// Rule G4: matrix products stage their operands in shared memory.
  bool gpuSharedMemory = true;
  /// The GPU's tensor-core instruction (rule G0), if any.
  std::optional<TensorCoreKind> tensorCores;
  /// Rule B: which store groups run in GPU blocks, and their threads.
  BlockTarget gpuBlocks;
};
/// Rule G4's threads per operand of a block, at most.
constexpr int64_t kSharedSideThreads = 16;
/// A tensor-core block tile's rows and columns (rule G0).
constexpr int64_t kTensorCoreBlock = 64;
/// A GPU register tile's rows and columns: 16 accumulators.
constexpr int64_t kGpuTileSide = 4;

TargetDescription hostDescription() {
  TargetDescription t;
  t.vectorBits = ::lazy::hostVectorBits();
#ifdef _SC_LEVEL2_CACHE_SIZE
  long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (l2 > 0)
    t.l2Bytes = uint64_t(l2);
#endif
  return t;
}

/// Per axis, the stride of a view's index along it; nullopt where the
/// axis is not a plain multiple (or, unless ignoring validity, takes part
/// in the mask).
using Strides = SmallVector<std::optional<int64_t>>;

/// The view's Strides. A load's mask only selects; its addresses are what
/// counts (`ignoreValid`).
Strides stridesOf(::lazy::st::ShapeTracker t, bool ignoreValid) {
  std::vector<std::optional<int64_t>> s = t.realStrides(ignoreValid);
  return Strides(s.begin(), s.end());
}

/// The largest power of two from 4 to `limit` that divides `size`, or 0.
int64_t powerOfTwoDivisor(int64_t size, int64_t limit) {
  int64_t best = 0;
  for (int64_t p = 4; p <= limit; p *= 2)
    if (size % p == 0)
      best = p;
  return best;
}

bool strideIs(const Strides &s, size_t d, int64_t v) {
  return s[d] && *s[d] == v;
}

/// The innermost reduce axis of more than one element, the one rules 4, 5
/// and G0 work on; none when every reduce axis has one element. A
/// symbolic axis takes no step, so it is never the one.
std::optional<size_t> innermostReduceAxis(const KernelSpace &space) {
  for (size_t d = space.shape.size(); d-- > 0;)
    if (space.reduced[d] && space.shape[d] > 1 && !space.isSymbolicAxis(d))
      return d;
  return std::nullopt;
}

/// The tracker the heuristic reads a view's strides from: the view's own,
/// or for a symbolic view its integer form at the Variables' largest
/// values (the plan's decisions are about speed; the lowering reads the
/// symbolic view itself). None where that form does not exist.
std::optional<::lazy::st::ShapeTracker> plannedTracker(ShapeTrackerAttr view) {
  if (!view.isSymbolic())
    return view.getTracker();
  std::map<std::string, int64_t> largest;
  for (auto &[key, node] : view.getSymTracker().vars())
    if (node->max.isInt())
      largest[node->name] = node->max.getInt();
  return ::lazy::st::trackerAt(view.getSymTracker(), largest);
}

/// Rule 5, for a kernel with no vector axis: the dot-product form, whose
/// innermost reduce axis every load reads contiguously or not at all
/// (A @ B.T). The lanes go on that axis (unrolled by a vector, split
/// accumulators in the lowering), and two output axes, each with a load
/// constant along it, are upcast into a register tile of rows by columns.
/// Rule 5b: where some load reads the reduce axis with a stride (a
/// convolution's input gradient, its channel sum), the same register tile
/// without the unroll: each element loaded once serves a row or a column.
SmallVector<Attribute>
dotPlan(const KernelSpace &space, ArrayRef<Strides> loads,
        ArrayRef<::lazy::st::ShapeTracker> trackers, int64_t lanes,
        const TargetDescription &target,
        function_ref<Attribute(OptKind, size_t, int64_t)> opt) {
  size_t rank = space.shape.size();
  std::optional<size_t> red = innermostReduceAxis(space);
  if (!red)
    return {};
  int64_t size = space.shape[*red];
  int64_t unroll = size % lanes == 0 ? lanes : powerOfTwoDivisor(size, lanes);
  // Loads read along the reduce axis in runs of the unroll (rule 5), or
  // at all (5b).
  SmallVector<bool> alongRed;
  for (auto [s, t] : llvm::zip(loads, trackers))
    alongRed.push_back(
        unroll && (strideIs(s, *red, 1) || t.contiguousRuns(*red, unroll)));
  bool fits = llvm::all_of(llvm::zip(loads, alongRed), [&](auto pair) {
    return strideIs(std::get<0>(pair), *red, 0) || std::get<1>(pair);
  });
  bool dot = fits && llvm::is_contained(alongRed, true);
  if (!dot)
    for (size_t i = 0; i < loads.size(); ++i)
      alongRed[i] = !strideIs(loads[i], *red, 0);
  if (!llvm::is_contained(alongRed, true))
    return {};
  // Output axes, innermost first, along which a load read along the
  // reduce axis is constant (reused across that axis's tile).
  SmallVector<size_t> reused;
  for (size_t d = rank; d-- > 0;) {
    if (space.reduced[d] || space.shape[d] == 1)
      continue;
    for (auto [s, runs] : llvm::zip(loads, alongRed))
      if (runs && strideIs(s, d, 0)) {
        reused.push_back(d);
        break;
      }
  }
  // Columns by rows, one vector accumulator each: 16 of 32 registers with
  // 512-bit vectors, 8 of 16 below. The innermost reused axis the columns
  // divide, then the innermost other one the rows divide, preferring one
  // along which another load is reused (an outer product: a weight
  // gradient's output and input channels, not its window's two axes).
  int64_t cols = 4, rows = target.vectorBits >= 512 ? 4 : 2;
  auto constantLoads = [&](size_t d) {
    SmallVector<bool> constant;
    for (auto [s, runs] : llvm::zip(loads, alongRed))
      constant.push_back(runs && strideIs(s, d, 0));
    return constant;
  };
  auto colIt = llvm::find_if(
      reused, [&](size_t d) { return space.shape[d] % cols == 0; });
  if (colIt == reused.end())
    return {};
  size_t col = *colIt;
  SmallVector<bool> reusedAlongCol = constantLoads(col);
  std::optional<size_t> row;
  for (bool wantOtherLoad : {true, false}) {
    for (size_t d : reused)
      if (d != col && space.shape[d] % rows == 0 &&
          (!wantOtherLoad || constantLoads(d) != reusedAlongCol)) {
        row = d;
        break;
      }
    if (row)
      break;
  }
  if (!row)
    return {};
  SmallVector<Attribute> plan{opt(OptKind::upcast, col, cols),
                              opt(OptKind::upcast, *row, rows)};
  if (dot)
    plan.push_back(opt(OptKind::unroll, *red, unroll));
  return plan;
}

/// Output elements over the plan's upcasts: the register tiles, which the
/// GPU gives a thread each.
int64_t tileCountOf(const KernelSpace &space, ArrayRef<Attribute> plan) {
  SmallVector<int64_t> upcast(space.shape.size(), 1);
  for (Attribute a : plan) {
    auto step = cast<OptAttr>(a);
    if (step.getKind() == OptKind::upcast)
      upcast[size_t(step.getAxis())] *= step.getAmount();
  }
  int64_t tiles = 1;
  for (size_t d = 0; d < space.shape.size(); ++d)
    if (!space.reduced[d])
      tiles *= space.shape[d] / upcast[d];
  return tiles;
}

/// GPU rule G4 (Passes.td): a float product reduce (a matmul, a
/// convolution, a weight gradient summed over batch and sequence) whose
/// operands' innermost own axes take kGpuTileSide elements per thread and
/// whose own axes take up to kSharedSideThreads threads per operand (the
/// most of 16, 8, 4, 2 on each, innermost first; at least
/// kMinLocalThreads in a block), its K (flattened) chunks of at least 4
/// elements: whole windows of the inner reduce axes times the most of 16,
/// 8, 4, 2 of the outermost that keeps the chunk within 16 elements (or
/// one window). Operands staged in shared memory (`local` steps); none
/// where that does not divide, gives fewer than `minTiles` threads, or
/// breaks readPlan's rules (48 KiB staged, a chunk of at most 64, f32 or
/// f64 operands).
SmallVector<Attribute>
sharedPlan(const KernelSpace &space, int64_t minTiles,
           function_ref<Attribute(OptKind, size_t, int64_t)> opt) {
  std::string why;
  FailureOr<ProductReduce> product = matchProductReduce(space, "local", why);
  if (failed(product) || product->casts != ProductCasts::None ||
      !isa<FloatType>(
          cast<RankedTensorType>(product->a.getType()).getElementType()))
    return {};
  SmallVector<int64_t> local(space.shape.size(), 1);
  // One operand's threads: its innermost own axis upcast, locals from the
  // innermost own axis outwards.
  auto side = [&](ArrayRef<size_t> axes) -> int64_t {
    size_t inner = axes.back();
    if (space.shape[inner] % kGpuTileSide != 0)
      return 0;
    int64_t budget = kSharedSideThreads, threads = 1;
    for (size_t d : llvm::reverse(axes)) {
      int64_t up = d == inner ? kGpuTileSide : 1;
      for (int64_t l : {16, 8, 4, 2})
        if (l <= budget && space.shape[d] % (l * up) == 0) {
          local[d] = l;
          budget /= l;
          threads *= l;
          break;
        }
    }
    return threads;
  };
  int64_t threadsA = side(product->aAxes), threadsB = side(product->bAxes);
  if (!threadsA || !threadsB || threadsA * threadsB < kMinLocalThreads)
    return {};
  size_t outer = product->kAxes.front();
  int64_t window = 1;
  for (size_t d : ArrayRef<size_t>(product->kAxes).drop_front())
    window *= space.shape[d];
  int64_t unroll = 1;
  for (int64_t c : {16, 8, 4, 2})
    if (space.shape[outer] % c == 0 &&
        c * window <= std::max<int64_t>(16, window)) {
      unroll = c;
      break;
    }
  if (unroll * window < 4)
    return {};
  int64_t threads = 1;
  for (size_t d = 0; d < space.shape.size(); ++d)
    if (!space.reduced[d])
      threads *= d == product->m || d == product->n
                     ? space.shape[d] / kGpuTileSide
                     : space.shape[d];
  if (threads < minTiles)
    return {};
  SmallVector<Attribute> plan;
  for (ArrayRef<size_t> axes :
       {ArrayRef<size_t>(product->aAxes), ArrayRef<size_t>(product->bAxes)})
    for (size_t d : axes)
      if (local[d] > 1)
        plan.push_back(opt(OptKind::local, d, local[d]));
  plan.push_back(opt(OptKind::upcast, product->m, kGpuTileSide));
  plan.push_back(opt(OptKind::upcast, product->n, kGpuTileSide));
  if (unroll > 1)
    plan.push_back(opt(OptKind::unroll, outer, unroll));
  // The kernel verifier's rules (shared bytes, the chunk's length, the
  // operands' type) decide the rest: a plan they refuse is none.
  if (failed(readPlan(plan, space, why)))
    return {};
  return plan;
}

/// GPU rules G1-G3 (Passes.td), given rule 1's vector axis (if any) with
/// `lanes` lanes: an elementwise kernel's vector axis upcast by one vector;
/// a reduce's register tile of kGpuTileSide rows of one vector (or, with no
/// vector axis, kGpuTileSide by kGpuTileSide elements of two output axes
/// each reused by a load), reduces in index order; and at least
/// gpuMinTiles tiles.
SmallVector<Attribute>
gpuPlan(const KernelSpace &space, ArrayRef<Strides> loads,
        const TargetDescription &target, std::optional<size_t> vec,
        int64_t lanes, bool elementwise,
        function_ref<bool(size_t, size_t)> contiguousAlong,
        function_ref<Attribute(OptKind, size_t, int64_t)> opt) {
  size_t rank = space.shape.size();
  auto isOutputAxis = [&](size_t d) {
    return !space.reduced[d] && space.shape[d] > 1;
  };
  int64_t minTiles = target.gpuMinTiles;
  if (!elementwise && target.gpuSharedMemory) {
    SmallVector<Attribute> shared = sharedPlan(space, minTiles, opt);
    if (!shared.empty())
      return shared;
  }
  SmallVector<Attribute> plan;
  if (vec) {
    if (space.shape[*vec] % lanes != 0)
      return {};
    plan.push_back(opt(OptKind::upcast, *vec, lanes));
    if (elementwise)
      return plan;
  }
  // G2: the rows, innermost first: output axes along which a load that
  // varies along the vector axis (or, without one, any load that varies)
  // is constant.
  SmallVector<size_t> reused;
  for (size_t d = rank; d-- > 0;) {
    if ((vec && d == *vec) || !isOutputAxis(d))
      continue;
    for (size_t i = 0; i < loads.size(); ++i) {
      bool varies = vec ? contiguousAlong(i, *vec)
                        : llvm::any_of(loads[i], [](auto s) { return s != 0; });
      if (varies && strideIs(loads[i], d, 0)) {
        reused.push_back(d);
        break;
      }
    }
  }
  size_t wanted = vec ? 1 : 2;
  for (size_t d : reused) {
    if (wanted == 0)
      break;
    if (space.shape[d] % kGpuTileSide == 0) {
      plan.push_back(opt(OptKind::upcast, d, kGpuTileSide));
      --wanted;
    }
  }
  if (plan.empty() || (!vec && wanted > 0))
    return {};
  // Rule 4: a short window unrolled whole; a longer innermost reduce axis
  // by kGpuTileSide where that divides it. Either stays in index order
  // (one accumulator per element), and a tile row's neighbouring loads
  // along the axis become one vector load where LLVM sees them aligned.
  if (std::optional<size_t> red = innermostReduceAxis(space)) {
    if (space.shape[*red] <= kWindowUnroll)
      plan.push_back(opt(OptKind::unroll, *red, space.shape[*red]));
    else if (space.shape[*red] % kGpuTileSide == 0)
      plan.push_back(opt(OptKind::unroll, *red, kGpuTileSide));
  }
  // G3: enough threads.
  if (tileCountOf(space, plan) < minTiles)
    return {};
  return plan;
}

/// The heuristic's plan for a kernel with iteration space `space`.
SmallVector<Attribute> choosePlan(KernelOp kernel, const KernelSpace &space,
                                  const TargetDescription &target) {
  MLIRContext *ctx = kernel.getContext();
  Block &body = kernel.getBody().front();
  // A kernel over Variables: plans on its integer axes, for the CPU (the
  // GPU's plans size their grids when the kernel is lowered).
  if (space.isSymbolic() && target.gpu)
    return {};
  SmallVector<Strides> loads;
  SmallVector<::lazy::st::ShapeTracker> trackers;
  SmallVector<int64_t> loadBytes;
  for (auto load : body.getOps<LoadOp>()) {
    std::optional<::lazy::st::ShapeTracker> tracker =
        plannedTracker(load.getView());
    if (!tracker)
      return {};
    trackers.push_back(*tracker);
    loads.push_back(stridesOf(trackers.back(), true));
    loadBytes.push_back(itemSize(load.getBuffer().getType().getElementType()));
  }
  SmallVector<Strides> stores;
  for (auto store : body.getOps<StoreOp>()) {
    std::optional<::lazy::st::ShapeTracker> tracker =
        plannedTracker(store.getView());
    if (!tracker)
      return {};
    stores.push_back(stridesOf(*tracker, false));
  }
  size_t rank = space.shape.size();
  auto isOutputAxis = [&](size_t d) {
    return !space.reduced[d] && space.shape[d] > 1 && !space.isSymbolicAxis(d);
  };

  bool elementwise = space.reduces.empty();
  // 16-bit floats are computed in software, one element at a time.
  auto sixteenBitFloats = [&] {
    bool found = false;
    body.walk([&](Operation *op) {
      for (Type t :
           llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
        if (auto tensor = dyn_cast<RankedTensorType>(t))
          found |= tensor.getElementType().isBF16() ||
                   tensor.getElementType().isF16();
    });
    return found;
  };
  if (elementwise && (stores.empty() || sixteenBitFloats()))
    return {};
  // G0: a matrix multiply of 16-bit floats on tensor cores.
  if (target.gpu && target.tensorCores && !elementwise)
    if (std::optional<size_t> red = innermostReduceAxis(space)) {
      std::string why;
      FailureOr<TensorCoreShape> shape = matchTensorCores(space, *red, why);
      if (succeeded(shape) &&
          space.shape[shape->n] % tensorCoreTileColumns(*target.tensorCores) ==
              0) {
        SmallVector<Attribute> plan{
            OptAttr::get(ctx, OptKind::tc, int64_t(*red), kTensorCoreK)};
        // Block tiles of 64x64: 2x2 warps, each 32 rows (2 instruction
        // tiles) by 32 columns (4 tiles of mma.sync's 8, 2 of AMD's 16),
        // K staged 32 (or 16) at a time.
        int64_t columns = tensorCoreTileColumns(*target.tensorCores);
        if (space.shape[shape->m] % kTensorCoreBlock == 0 &&
            space.shape[shape->n] % kTensorCoreBlock == 0) {
          auto step = [&](OptKind kind, size_t axis, int64_t amount) {
            plan.push_back(OptAttr::get(ctx, kind, int64_t(axis), amount));
          };
          step(OptKind::local, shape->m, 2);
          step(OptKind::local, shape->n, 2);
          step(OptKind::upcast, shape->m, kTensorCoreBlock / 2 / kTensorCoreM);
          step(OptKind::upcast, shape->n, kTensorCoreBlock / 2 / columns);
          step(OptKind::unroll, *red,
               space.shape[*red] % (2 * kTensorCoreK) == 0 ? 2 * kTensorCoreK
                                                           : kTensorCoreK);
        }
        return plan;
      }
    }
  // The GPU lowering reads 16-bit floats one by one (software bfloat16).
  if (target.gpu && sixteenBitFloats())
    return {};
  // The lanes' element type: the reduce's, or the first store's.
  Type element =
      elementwise ? cast<RankedTensorType>(
                        (*body.getOps<StoreOp>().begin()).getValue().getType())
                        .getElementType()
                  : cast<RankedTensorType>(
                        space.reduces.front()->getResult(0).getType())
                        .getElementType();
  int64_t lanes =
      std::max<int64_t>(1, target.vectorBits / (8 * itemSize(element)));
  // A load read contiguously along `d`: stride 1, or in runs of a vector
  // (a reshaped transpose, ShapeTracker::contiguousRuns).
  auto contiguousAlong = [&](size_t i, size_t d) {
    return strideIs(loads[i], d, 1) || trackers[i].contiguousRuns(d, lanes);
  };

  // 1. The vector axis.
  std::optional<size_t> vec;
  for (size_t d = rank; d-- > 0;) {
    if (!isOutputAxis(d))
      continue;
    bool outputContiguous =
        llvm::all_of(stores, [&](const auto &s) { return strideIs(s, d, 1); });
    bool loadsFit = true, someReused = false, someContiguous = false;
    for (size_t i = 0; i < loads.size(); ++i) {
      bool constant = strideIs(loads[i], d, 0);
      bool contiguous = !constant && contiguousAlong(i, d);
      loadsFit &= constant || contiguous;
      someReused |= constant;
      someContiguous |= contiguous;
    }
    if (outputContiguous && loadsFit &&
        (elementwise ? someContiguous : someReused)) {
      vec = d;
      break;
    }
  }
  auto opt = [&](OptKind kind, size_t axis, int64_t amount) -> Attribute {
    return OptAttr::get(ctx, kind, int64_t(axis), amount);
  };
  if (target.gpu)
    return gpuPlan(space, loads, target, vec, lanes, elementwise,
                   contiguousAlong, opt);
  // Rules 5 and 4 for a reduce without lanes: the register tile, else the
  // window unrolled alone (a col2im's, whose views' divisions then fold).
  auto withoutLanes = [&]() -> SmallVector<Attribute> {
    if (elementwise || space.isSymbolic())
      return {};
    SmallVector<Attribute> plan =
        dotPlan(space, loads, trackers, lanes, target, opt);
    std::optional<size_t> red = innermostReduceAxis(space);
    if (plan.empty() && red && space.shape[*red] > 1 &&
        space.shape[*red] <= kScalarWindowUnroll)
      plan.push_back(opt(OptKind::unroll, *red, space.shape[*red]));
    return plan;
  };
  if (!vec)
    return withoutLanes();
  int64_t vecSize = space.shape[*vec];
  int64_t vecUpcast = vecSize % (2 * lanes) == 0 ? 2 * lanes
                      : vecSize % lanes == 0
                          ? lanes
                          : powerOfTwoDivisor(vecSize, lanes);
  // A vector axis too short or odd for lanes (a 5x5 window's) leaves the
  // reduce to rule 5, as a kernel without one.
  if (!vecUpcast)
    return withoutLanes();
  SmallVector<Attribute> plan{opt(OptKind::upcast, *vec, vecUpcast)};
  // 6. An elementwise kernel is its vector axis's lanes alone.
  if (elementwise)
    return plan;

  // 2. The row axis: some load varying along the vector axis is constant
  // along it.
  std::optional<size_t> row;
  for (size_t d = rank; d-- > 0;) {
    if (d == *vec || !isOutputAxis(d))
      continue;
    bool reused = false;
    for (size_t i = 0; i < loads.size(); ++i)
      reused |= contiguousAlong(i, *vec) && strideIs(loads[i], d, 0);
    if (reused) {
      row = d;
      break;
    }
  }
  // 4's window unroll multiplies the tile's elements per trip.
  std::optional<size_t> red = innermostReduceAxis(space);
  int64_t window =
      red && space.shape[*red] <= kWindowUnroll ? space.shape[*red] : 1;
  if (row) {
    // 3. The panel the row tiles sweep: the loads constant along the row
    // axis, over the reduce and the vector axis.
    int64_t reduced = 1;
    for (size_t d = 0; d < rank; ++d)
      if (space.reduced[d])
        reduced *= space.shape[d];
    int64_t bytesPerColumn = 0;
    for (auto [s, bytes] : llvm::zip(loads, loadBytes))
      if (strideIs(s, *row, 0) && !strideIs(s, *vec, 0))
        bytesPerColumn += reduced * bytes;
    uint64_t budget = target.l2Bytes / 2;
    int64_t block = 0;
    if (bytesPerColumn > 0 &&
        uint64_t(bytesPerColumn) * uint64_t(vecSize) > budget) {
      for (int64_t b = vecUpcast; b < vecSize; b += vecUpcast)
        if (vecSize % b == 0 && uint64_t(b * bytesPerColumn) <= budget)
          block = b;
    }
    // 3b. With 256-bit vectors, the block's panels packed (PackedPanels.h)
    // where its loads allow.
    bool pack = false;
    if (block && target.vectorBits < 512) {
      SmallVector<PanelLoad> panels = packedLoads(kernel, space, *vec, block);
      pack = !panels.empty() && panelBytes(panels) <= kMaxPanelBytes;
    }
    // 2. As many rows as keep the tile within kTileVectors vectors
    // (kPackedTileVectors when packed), its loads within kMaxLoadsPerTrip
    // and, with the window unrolled, the trip within kMaxElementsPerTrip
    // elements.
    int64_t rowSize = space.shape[*row], rowUpcast = 1;
    int64_t loadCount = std::max<int64_t>(1, int64_t(loads.size()));
    // AVX-512's 32 registers hold twice the tile of AVX2's 16 (with the
    // broadcast operand read from memory by each FMA). 16 rows only for
    // rows two vectors wide (a matmul's 32 accumulators: 16.1 ms against
    // 23.7 with 8 rows); the conv's one-vector rows ran slower with 16
    // (4.0 against 2.5 ms).
    int64_t tileScale = target.vectorBits >= 512 ? 2 : 1;
    int64_t loadScale = target.vectorBits >= 512 ? 4 : 1;
    int64_t tileVectors = pack ? kPackedTileVectors : kTileVectors;
    for (int64_t r : {16, 8, 4, 2})
      if (rowSize % r == 0 &&
          vecUpcast * r <= tileScale * tileVectors * lanes &&
          vecUpcast * r * loadCount <= loadScale * kMaxLoadsPerTrip &&
          vecUpcast * r * window <= kMaxElementsPerTrip &&
          (r < 16 || vecUpcast >= 2 * lanes)) {
        rowUpcast = r;
        break;
      }
    if (rowUpcast > 1)
      plan.push_back(opt(OptKind::upcast, *row, rowUpcast));
    if (block)
      plan.push_back(opt(OptKind::tile, *vec, block));
    if (pack)
      plan.push_back(opt(OptKind::pack, *vec, block));
  }
  // 4. A short innermost reduce axis (a kernel window) is unrolled whole.
  if (window > 1)
    plan.push_back(opt(OptKind::unroll, *red, window));
  return plan;
}

/// Reads one force item, `KERNEL:KIND:AXIS:AMOUNT` (one step of the
/// kernel's plan) or `KERNEL:none` (no plan), into the kernel's name and
/// its step (null for none).
LogicalResult parseForced(MLIRContext *ctx, StringRef text, std::string &name,
                          Attribute &step, std::string &why) {
  SmallVector<StringRef, 4> parts;
  text.trim().split(parts, ':');
  if (parts.size() == 2 && parts[1] == "none" && !parts[0].empty()) {
    name = parts[0].str();
    step = {};
    return success();
  }
  int64_t axis = 0, amount = 0;
  std::optional<OptKind> kind =
      parts.size() == 4 ? symbolizeOptKind(parts[1]) : std::nullopt;
  if (parts.size() != 4 || parts[0].empty() || !kind ||
      parts[2].getAsInteger(10, axis) || parts[3].getAsInteger(10, amount)) {
    why = "'" + text.str() +
          "' is not KERNEL:KIND:AXIS:AMOUNT or KERNEL:none (kinds: upcast, "
          "unroll, tile, tc, local, group, lanes, row, block)";
    return failure();
  }
  name = parts[0].str();
  step = OptAttr::get(ctx, *kind, axis, amount);
  return success();
}

/// The lanes the target's lowering gives a register tile (PlanLanes.h).
LaneTarget laneTargetOf(KernelOp kernel, const TargetDescription &desc) {
  return desc.gpu ? gpuLaneTarget(kernel) : cpuLaneTarget(desc.vectorBits);
}

struct LazyOptimizeKernels final
    : mlir::lazy::WithOptionHints<
          mlir::lazy::impl::LazyOptimizeKernelsBase<LazyOptimizeKernels>> {
  using WithOptionHints::WithOptionHints;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    TargetDescription desc;
    if (target == "host") {
      desc = hostDescription();
    } else if (target == "gpu") {
      desc.gpu = true;
      desc.vectorBits = 128;
    } else if (target != "generic") {
      module.emitError() << "lazy-optimize-kernels: unknown target '" << target
                         << "' (host, generic or gpu)";
      return signalPassFailure();
    }
    if (vectorBits)
      desc.vectorBits = vectorBits;
    if (l2Bytes)
      desc.l2Bytes = l2Bytes;
    desc.gpuMinTiles = gpuMinTiles;
    if (gpuBlockSize < 32 || gpuBlockSize > 1024 ||
        !llvm::isPowerOf2_64(uint64_t(int64_t(gpuBlockSize)))) {
      module.emitError() << "lazy-optimize-kernels: gpu-block-size must be a "
                            "power of two from 32 to 1024, not "
                         << static_cast<int64_t>(gpuBlockSize);
      return signalPassFailure();
    }
    if (gpuReducePerThread < 1) {
      module.emitError() << "lazy-optimize-kernels: gpu-reduce-per-thread "
                            "must be at least 1, not "
                         << static_cast<int64_t>(gpuReducePerThread);
      return signalPassFailure();
    }
    desc.gpuBlocks =
        BlockTarget{gpuBlockReduceMin, gpuReducePerThread, gpuBlockSize};
    desc.gpuSharedMemory = sharedMemory;
    FailureOr<std::optional<TensorCoreKind>> cores =
        parseTensorCoreKind(tensorCores);
    if (failed(cores)) {
      module.emitError() << "lazy-optimize-kernels: tensor-cores must be "
                         << kTensorCoreKindNames << ", not '" << tensorCores
                         << "'";
      return signalPassFailure();
    }
    desc.tensorCores = *cores;

    // Each kernel's forced steps, in the order given.
    llvm::StringMap<SmallVector<Attribute>> forced;
    for (const std::string &text : force) {
      std::string name, why;
      Attribute step;
      if (failed(parseForced(ctx, text, name, step, why))) {
        module.emitError() << "lazy-optimize-kernels: force: " << why;
        return signalPassFailure();
      }
      SmallVector<Attribute> &steps = forced[name];
      if (step)
        steps.push_back(step);
    }
    llvm::StringSet<> used;
    for (KernelOp kernel : module.getOps<KernelOp>()) {
      auto it = forced.find(kernel.getSymName());
      if (it != forced.end()) {
        used.insert(kernel.getSymName());
        if (it->second.empty()) {
          // An empty plan, which a later run of this pass (lazy-to-cpu's)
          // keeps: without the attribute it would plan the kernel again.
          kernel.setOptsAttr(ArrayAttr::get(ctx, {}));
        } else {
          std::string why;
          bool groupPlan = holdsGroupSteps(it->second);
          FailureOr<KernelSpace> space = failure();
          FailureOr<OptPlan> plan = failure();
          FailureOr<GroupPlan> groups = failure();
          if (groupPlan
                  ? failed(groups = readGroupPlan(kernel, it->second, why))
                  : failed(space = kernelSpace(kernel, why)) ||
                        failed(plan = readPlan(it->second, *space, why))) {
            kernel.emitError() << "lazy-optimize-kernels: the forced plan "
                                  "does not fit this kernel: "
                               << why;
            return signalPassFailure();
          }
          bool gpuOnly =
              groupPlan ? llvm::any_of(groups->blocks,
                                       [](int64_t threads) { return threads; })
                        : plan->isGpuOnly();
          if (!desc.gpu && gpuOnly) {
            kernel.emitError() << "lazy-optimize-kernels: the forced plan "
                                  "has tc, local, group or block steps, "
                                  "which only target=gpu runs";
            return signalPassFailure();
          }
          if (desc.gpu && !groupPlan && plan->packAxis) {
            kernel.emitError() << "lazy-optimize-kernels: the forced plan "
                                  "has a pack step, which only the CPU "
                                  "runs";
            return signalPassFailure();
          }
          kernel.setOptsAttr(ArrayAttr::get(
              ctx, groupPlan ? SmallVector<Attribute>(it->second)
                             : withLaneStep(kernel, *space, it->second,
                                            laneTargetOf(kernel, desc))));
        }
        ++numPlanned;
        continue;
      }
      if (kernel.getOptsAttr())
        continue;
      std::string why;
      FailureOr<KernelSpace> space = kernelSpace(kernel, why);
      SmallVector<Attribute> plan;
      if (failed(space)) {
        // Rule R: a kernel without a space that reads row values runs
        // them row by row.
        plan =
            chooseRowSteps(kernel, desc.gpu ? 1 : int64_t(desc.vectorBits / 8));
      } else {
        plan = choosePlan(kernel, *space, desc);
      }
      if (desc.gpu && !holdsVariables(kernel) &&
          (plan.empty() || holdsGroupSteps(plan))) {
        // Rule B: the GPU mapping of a kernel without a register tile.
        SmallVector<Attribute> blocks =
            chooseBlockSteps(kernel, plan, desc.gpuBlocks);
        llvm::append_range(plan, blocks);
      }
      if (plan.empty())
        continue;
      if (failed(space) || holdsGroupSteps(plan)) {
        kernel.setOptsAttr(ArrayAttr::get(ctx, plan));
        ++numPlanned;
        continue;
      }
      kernel.setOptsAttr(ArrayAttr::get(
          ctx, withLaneStep(kernel, *space, plan, laneTargetOf(kernel, desc))));
      ++numPlanned;
    }
    for (const auto &entry : forced)
      if (!used.contains(entry.getKey())) {
        module.emitError() << "lazy-optimize-kernels: force names no kernel: '"
                           << entry.getKey() << "'";
        return signalPassFailure();
      }
  }
};

} // namespace
