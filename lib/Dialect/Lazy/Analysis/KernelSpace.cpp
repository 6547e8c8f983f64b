//===- KernelSpace.cpp - a kernel's iteration space and its plan ----------===//

#include "lazy/Dialect/Lazy/Analysis/KernelSpace.h"
#include "lazy/Dialect/Lazy/Analysis/PackedPanels.h"
#include "lazy/Dialect/Lazy/Analysis/ProductReduce.h"
#include "lazy/Dialect/Lazy/Analysis/RowSplit.h"
#include "lazy/Dialect/Lazy/Analysis/TensorCores.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::lazy;

static ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

FailureOr<KernelSpace> mlir::lazy::kernelSpace(KernelOp kernel,
                                               std::string &why) {
  KernelSpace space;
  // A row kernel (fusion=aggressive): its reduces run per row, one after
  // another, which no plan describes yet.
  if (hasComputedViews(kernel.getBody().front())) {
    why = "it reads a computed value through a view";
    return failure();
  }
  SmallVector<Value> stack;
  bool first = true;
  for (auto store : kernel.getBody().front().getOps<StoreOp>()) {
    ArrayRef<int64_t> shape = store.getView().getShape();
    ::lazy::st::SymShape dims = symbolicShapeOf(store.getValue().getType());
    if (first) {
      space.shape.assign(shape.begin(), shape.end());
      space.dims.assign(dims.begin(), dims.end());
      first = false;
    } else if (ArrayRef<int64_t>(space.shape) != shape ||
               !::lazy::st::symEqual(dims,
                                     {space.dims.begin(), space.dims.end()})) {
      why = "its stores have different shapes";
      return failure();
    }
    stack.push_back(store.getValue());
  }
  space.reduced.assign(space.shape.size(), false);
  // The top-level reduces: reached from a store without passing a reduce.
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!stack.empty()) {
    Operation *op = stack.pop_back_val().getDefiningOp();
    if (!op || !seen.insert(op).second)
      continue;
    if (isa<ReduceSumOp, ReduceMaxOp>(op)) {
      space.reduces.push_back(op);
      continue;
    }
    for (Value operand : op->getOperands())
      if (isa<RankedTensorType>(operand.getType()))
        stack.push_back(operand);
  }
  llvm::sort(space.reduces,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  if (space.reduces.empty())
    return space;
  ArrayRef<int64_t> in = shapeOf(space.reduces.front()->getOperand(0));
  if (in.size() != space.shape.size()) {
    why = "its reduce reads another rank than it stores";
    return failure();
  }
  SmallVector<int64_t> full(in.begin(), in.end());
  ::lazy::st::SymShape fullDims =
      symbolicShapeOf(space.reduces.front()->getOperand(0).getType());
  SmallVector<bool> reduced(in.size(), false);
  auto axesOf = [](Operation *reduce) {
    if (auto sum = dyn_cast<ReduceSumOp>(reduce))
      return sum.getAxes();
    return cast<ReduceMaxOp>(reduce).getAxes();
  };
  for (int64_t axis : axesOf(space.reduces.front()))
    reduced[size_t(axis)] = true;
  for (Operation *reduce : space.reduces) {
    if (shapeOf(reduce->getOperand(0)) != ArrayRef<int64_t>(full) ||
        !::lazy::st::symEqual(symbolicShapeOf(reduce->getOperand(0).getType()),
                              fullDims) ||
        axesOf(reduce) != axesOf(space.reduces.front())) {
      why = "its reduces read different shapes or axes";
      return failure();
    }
  }
  for (size_t d = 0; d < full.size(); ++d) {
    if (reduced[d]
            ? space.shape[d] != 1
            : space.shape[d] != full[d] ||
                  !::lazy::st::symEqual({space.dims[d]}, {fullDims[d]})) {
      why = "its stores do not have the shape its reduce produces";
      return failure();
    }
  }
  space.shape = std::move(full);
  space.dims.assign(fullDims.begin(), fullDims.end());
  space.reduced = std::move(reduced);
  return space;
}

int64_t OptPlan::elementsPerTrip() const {
  return ShapedType::getNumElements(upcast);
}

bool OptPlan::hasLocals() const {
  return llvm::any_of(local, [](int64_t l) { return l > 1; });
}

int64_t OptPlan::threadsPerBlock() const {
  return ShapedType::getNumElements(local);
}

bool OptPlan::isRowPlan() const {
  return llvm::any_of(rows, [](int64_t bytes) { return bytes != 0; });
}

bool OptPlan::isGroupPlan() const {
  return isRowPlan() ||
         llvm::any_of(blocks, [](int64_t threads) { return threads != 0; });
}

bool OptPlan::isGpuOnly() const {
  return tensorCores || hasLocals() || groupThreads ||
         llvm::any_of(blocks, [](int64_t threads) { return threads != 0; });
}

bool OptPlan::empty() const {
  return !isGroupPlan() && !tensorCores && !hasLocals() && !groupThreads &&
         llvm::all_of(upcast, [](int64_t u) { return u == 1; }) &&
         llvm::all_of(unroll, [](int64_t u) { return u == 1; }) &&
         llvm::all_of(tile, [](int64_t t) { return t == 0; });
}

namespace {
/// readPlan's rules for `local` steps (KernelSpace.h).
LogicalResult checkLocals(const OptPlan &plan, const KernelSpace &space,
                          llvm::raw_ostream &os) {
  size_t rank = space.shape.size();
  std::string why;
  FailureOr<ProductReduce> product = matchProductReduce(space, "local", why);
  if (failed(product)) {
    os << why;
    return failure();
  }
  Type element = cast<RankedTensorType>(product->a.getType()).getElementType();
  // 16-bit floats are computed in software, one element at a time: the
  // shared-memory kernel's vector arithmetic is for 32 and 64 bits.
  if (product->casts != ProductCasts::None ||
      !(element.isF32() || element.isF64())) {
    os << "a local plan needs the sum of a plain product of two f32 or two "
          "f64 operands";
    return failure();
  }

  auto isOwn = [&](ArrayRef<size_t> axes, size_t d) {
    return llvm::is_contained(axes, d);
  };
  auto ownAxes = [&] {
    std::string text;
    llvm::raw_string_ostream ts(text);
    ts << "A's ";
    llvm::interleaveComma(product->aAxes, ts);
    ts << "; B's ";
    llvm::interleaveComma(product->bAxes, ts);
    return text;
  };
  for (size_t d = 0; d < rank; ++d) {
    bool own = isOwn(product->aAxes, d) || isOwn(product->bAxes, d);
    if (!own && plan.local[d] > 1) {
      os << "a local plan spreads only the operands' own axes over threads ("
         << ownAxes() << "); axis " << d << " has local " << plan.local[d];
      return failure();
    }
    if (!own && !space.reduced[d] && plan.upcast[d] > 1) {
      os << "a local plan upcasts only the operands' own axes (" << ownAxes()
         << "); axis " << d << " has upcast " << plan.upcast[d];
      return failure();
    }
    if (plan.tile[d]) {
      os << "a local plan takes no tile step (axis " << d << ")";
      return failure();
    }
    int64_t block = plan.local[d] * plan.upcast[d];
    if (own && space.shape[d] % block != 0) {
      os << "the block of axis " << d << " (local " << plan.local[d]
         << " times upcast " << plan.upcast[d] << ") does not divide its "
         << space.shape[d] << " elements";
      return failure();
    }
  }
  for (ArrayRef<size_t> axes :
       {ArrayRef<size_t>(product->aAxes), ArrayRef<size_t>(product->bAxes)})
    if (llvm::count_if(axes, [&](size_t d) { return plan.upcast[d] > 1; }) >
        1) {
      os << "a local plan upcasts at most one own axis of each operand ("
         << ownAxes() << ")";
      return failure();
    }
  for (size_t d : ArrayRef<size_t>(product->kAxes).drop_front())
    if (plan.unroll[d] > 1) {
      os << "a local plan unrolls only the outermost reduce axis ("
         << product->kAxes.front() << "): its chunk of K is whole windows of "
         << "the others; axis " << d << " has unroll " << plan.unroll[d];
      return failure();
    }
  int64_t threads = plan.threadsPerBlock();
  if (threads < kMinLocalThreads || threads > kMaxLocalThreads) {
    os << "a local plan's block has " << threads << " threads; it needs "
       << kMinLocalThreads << " to " << kMaxLocalThreads;
    return failure();
  }
  // The chunk of K staged at a time (the outermost reduce axis's unroll
  // times the others' sizes) of both operands' block tiles.
  int64_t chunk = localChunk(space, plan, *product);
  // Each step of the chunk is unrolled in the kernel.
  if (chunk > kMaxLocalChunk) {
    os << "a local plan's chunk of K (" << chunk << " elements: the "
       << "outermost reduce axis's unroll times the others' sizes) is "
       << "unrolled whole; at most " << kMaxLocalChunk;
    return failure();
  }
  int64_t staged = 0;
  for (ArrayRef<size_t> axes :
       {ArrayRef<size_t>(product->aAxes), ArrayRef<size_t>(product->bAxes)}) {
    int64_t tile = 1;
    for (size_t d : axes)
      tile *= plan.local[d] * plan.upcast[d];
    staged += tile;
  }
  int64_t bytes = staged * chunk *
                  int64_t(llvm::divideCeil(element.getIntOrFloatBitWidth(), 8));
  if (bytes > kMaxSharedBytes) {
    os << "a local plan stages " << bytes << " bytes of operands per block; "
       << "at most " << kMaxSharedBytes;
    return failure();
  }
  return success();
}
/// readPlan's rules for the steps beside `tc` (KernelSpace.h).
LogicalResult checkTensorCoreBlocks(const OptPlan &plan,
                                    const KernelSpace &space,
                                    ArrayRef<Attribute> opts,
                                    llvm::raw_ostream &os) {
  std::string why;
  FailureOr<TensorCoreShape> shape =
      matchTensorCores(space, *plan.tensorCores, why);
  size_t m = shape->m, n = shape->n, k = shape->k;
  for (auto [i, attr] : llvm::enumerate(opts)) {
    auto opt = cast<OptAttr>(attr);
    size_t axis = size_t(opt.getAxis());
    bool allowed = opt.getKind() == OptKind::tc ||
                   ((opt.getKind() == OptKind::local ||
                     opt.getKind() == OptKind::upcast) &&
                    (axis == m || axis == n)) ||
                   (opt.getKind() == OptKind::unroll && axis == k);
    if (!allowed) {
      os << "step " << i << " (" << stringifyOptKind(opt.getKind())
         << ") on axis " << axis << ": a tensor-core plan takes only local "
         << "and upcast on its M and N axes (" << m << ", " << n
         << ") and unroll on K (" << k << ")";
      return failure();
    }
  }
  if (plan.unroll[k] > 1 && plan.unroll[k] % kTensorCoreK != 0) {
    os << "a tensor-core plan takes K in chunks of a multiple of "
       << kTensorCoreK << ", not " << plan.unroll[k];
    return failure();
  }
  // Block tiles: warps times instruction tiles of 16 rows and (at least)
  // kTensorCoreN columns.
  int64_t blockM = plan.local[m] * plan.upcast[m] * kTensorCoreM;
  int64_t blockN = plan.local[n] * plan.upcast[n] * kTensorCoreN;
  if (space.shape[m] % blockM != 0 || space.shape[n] % blockN != 0) {
    os << "a tensor-core plan's block tile (" << blockM << " x " << blockN
       << " or more) does not divide M x N (" << space.shape[m] << " x "
       << space.shape[n] << ")";
    return failure();
  }
  // The staged rows of K, padded (tensorCoreChunk), 16-bit elements; N's
  // tiles at their widest (16 columns).
  int64_t bytes = (blockM + plan.local[n] * plan.upcast[n] * 16) *
                  (tensorCoreChunk(plan, k) + kTensorCoreRowPad) * 2;
  if (hasTensorCoreBlocks(plan) && bytes > kMaxSharedBytes) {
    os << "a tensor-core plan stages " << bytes << " bytes of operands per "
       << "block; at most " << kMaxSharedBytes;
    return failure();
  }
  int64_t warps = plan.threadsPerBlock();
  if (warps > kMaxTensorCoreWarps) {
    os << "a tensor-core plan's block has " << warps << " warps; at most "
       << kMaxTensorCoreWarps;
    return failure();
  }
  return success();
}

} // namespace

FailureOr<OptPlan> mlir::lazy::readPlan(ArrayRef<Attribute> opts,
                                        const KernelSpace &space,
                                        std::string &why) {
  size_t rank = space.shape.size();
  OptPlan plan;
  plan.upcast.assign(rank, 1);
  plan.unroll.assign(rank, 1);
  plan.tile.assign(rank, 0);
  plan.local.assign(rank, 1);
  SmallVector<bool> given((getMaxEnumValForOptKind() + 1) * rank, false);
  // A pack step's amount, checked against its axis's tile after every step.
  int64_t packAmount = 0;
  llvm::raw_string_ostream os(why);
  for (auto [i, attr] : llvm::enumerate(opts)) {
    auto opt = dyn_cast<OptAttr>(attr);
    if (!opt) {
      os << "step " << i << " is not a #lazy.opt";
      return failure();
    }
    int64_t axis = opt.getAxis(), amount = opt.getAmount();
    StringRef kind = stringifyOptKind(opt.getKind());
    if (opt.getKind() == OptKind::row || opt.getKind() == OptKind::block) {
      os << "step " << i << " (" << kind << ") names a store group: it "
         << "belongs to a plan of row and block steps only";
      return failure();
    }
    if (axis < 0 || axis >= int64_t(rank)) {
      os << "step " << i << " (" << kind << ") names axis " << axis
         << ", outside the kernel's " << rank << " axes";
      return failure();
    }
    if (space.isSymbolicAxis(size_t(axis))) {
      os << "step " << i << " (" << kind << ") names axis " << axis
         << ", whose extent is symbolic (tinygrad Variables): plans divide "
            "integer extents only";
      return failure();
    }
    int64_t size = space.shape[size_t(axis)];
    // A group's threads stride over the reduced elements: any count.
    bool mustDivide = opt.getKind() != OptKind::group;
    if (amount < 1 || (mustDivide && size % amount != 0)) {
      os << "step " << i << " (" << kind << ") takes " << amount
         << " elements of axis " << axis << ", which has " << size
         << " (the amount must divide it)";
      return failure();
    }
    bool wantsReduce = opt.getKind() == OptKind::unroll ||
                       opt.getKind() == OptKind::tc ||
                       opt.getKind() == OptKind::group;
    if (space.reduced[size_t(axis)] != wantsReduce) {
      os << "step " << i << " (" << kind << ") needs "
         << (wantsReduce ? "a reduce" : "an output") << " axis; axis " << axis
         << " is " << (wantsReduce ? "an output" : "a reduce") << " axis";
      return failure();
    }
    size_t slot = size_t(opt.getKind()) * rank + size_t(axis);
    if (given[slot]) {
      os << "step " << i << " repeats " << kind << " on axis " << axis;
      return failure();
    }
    given[slot] = true;
    switch (opt.getKind()) {
    case OptKind::upcast:
      plan.upcast[size_t(axis)] = amount;
      break;
    case OptKind::unroll:
      plan.unroll[size_t(axis)] = amount;
      break;
    case OptKind::tile:
      plan.tile[size_t(axis)] = amount;
      break;
    case OptKind::local:
      plan.local[size_t(axis)] = amount;
      break;
    case OptKind::lanes:
      if (plan.laneAxis) {
        os << "step " << i << " (lanes) is the plan's second lanes step; "
           << "a tile's elements are vectors along one axis";
        return failure();
      }
      if (amount < 2 || !llvm::isPowerOf2_64(uint64_t(amount))) {
        os << "step " << i << " (lanes) takes a power of two of at least 2 "
           << "positions, not " << amount;
        return failure();
      }
      plan.laneAxis = size_t(axis);
      plan.laneWidth = amount;
      break;
    case OptKind::pack:
      plan.packAxis = size_t(axis);
      packAmount = amount;
      break;
    case OptKind::row:
    case OptKind::block:
      llvm_unreachable("row and block steps were refused above");
    case OptKind::group: {
      if (opts.size() != 1) {
        os << "step " << i << " (group) is a whole plan: it takes no other "
           << "step";
        return failure();
      }
      if (amount < kMinLocalThreads || amount > kMaxLocalThreads ||
          !llvm::isPowerOf2_64(uint64_t(amount))) {
        os << "step " << i << " (group) takes a power of two of threads "
           << "from " << kMinLocalThreads << " to " << kMaxLocalThreads
           << ", not " << amount;
        return failure();
      }
      size_t innermost = 0;
      for (size_t d = 0; d < rank; ++d)
        if (space.reduced[d])
          innermost = d;
      if (size_t(axis) != innermost) {
        os << "step " << i << " (group) names axis " << axis
           << "; the innermost reduce axis is " << innermost;
        return failure();
      }
      plan.groupThreads = amount;
      break;
    }
    case OptKind::tc: {
      if (amount != kTensorCoreK) {
        os << "step " << i << " (tc) takes " << kTensorCoreK
           << " elements of its axis a trip, not " << amount;
        return failure();
      }
      std::string mismatch;
      if (failed(matchTensorCores(space, size_t(axis), mismatch))) {
        os << "step " << i << " (tc): " << mismatch;
        return failure();
      }
      plan.tensorCores = size_t(axis);
      break;
    }
    }
  }
  if (plan.laneAxis) {
    size_t d = *plan.laneAxis;
    if (plan.upcast[d] % plan.laneWidth != 0) {
      os << "the lanes of axis " << d << " (" << plan.laneWidth
         << ") do not divide its upcast (" << plan.upcast[d] << ")";
      return failure();
    }
    if (plan.isGpuOnly()) {
      os << "lanes are for register-tile plans, not beside tc, local or "
            "group";
      return failure();
    }
  }
  if (plan.packAxis) {
    size_t d = *plan.packAxis;
    if (!plan.tile[d] || packAmount != plan.tile[d]) {
      os << "pack on axis " << d << " takes the axis's tile (" << plan.tile[d]
         << "), not " << packAmount << (plan.tile[d] ? "" : ": it has no tile");
      return failure();
    }
  }
  for (size_t d = 0; d < rank; ++d) {
    if (plan.tile[d] && plan.tile[d] % plan.upcast[d] != 0) {
      os << "the tile of axis " << d << " (" << plan.tile[d]
         << ") is not a multiple of its upcast (" << plan.upcast[d] << ")";
      return failure();
    }
  }
  if (plan.tensorCores) {
    if (failed(checkTensorCoreBlocks(plan, space, opts, os)))
      return failure();
  } else if (plan.hasLocals() && failed(checkLocals(plan, space, os))) {
    return failure();
  }
  int64_t perTrip = plan.elementsPerTrip();
  for (int64_t u : plan.unroll)
    perTrip *= u;
  if (perTrip > kMaxElementsPerTrip) {
    os << "the plan computes " << perTrip << " elements per loop trip; at most "
       << kMaxElementsPerTrip;
    return failure();
  }
  return plan;
}

FailureOr<std::pair<KernelSpace, OptPlan>>
mlir::lazy::readKernelPlan(KernelOp kernel, ArrayRef<Attribute> opts,
                           std::string &message) {
  std::string why;
  if (opts.empty())
    return std::make_pair(KernelSpace(), OptPlan());
  if (holdsGroupSteps(opts)) {
    FailureOr<GroupPlan> groups = readGroupPlan(kernel, opts, why);
    if (failed(groups)) {
      message = "has an invalid plan: " + why;
      return failure();
    }
    OptPlan plan;
    plan.rows = std::move(groups->rows);
    plan.blocks = std::move(groups->blocks);
    return std::make_pair(KernelSpace(), std::move(plan));
  }
  FailureOr<KernelSpace> space = kernelSpace(kernel, why);
  if (failed(space)) {
    message = "has a plan but no iteration space: " + why;
    return failure();
  }
  FailureOr<OptPlan> plan = readPlan(opts, *space, why);
  if (failed(plan)) {
    message = "has an invalid plan: " + why;
    return failure();
  }
  if (plan->packAxis) {
    size_t d = *plan->packAxis;
    // (Checked here, not in readPlan: lazy-optimize-kernels adds the lanes
    // step to a forced plan after reading it.)
    if (plan->laneAxis != d) {
      message = "has an invalid plan: pack on axis " + std::to_string(d) +
                " needs the plan's lanes on that axis";
      return failure();
    }
    SmallVector<PanelLoad> panels =
        packedLoads(kernel, *space, d, plan->tile[d]);
    int64_t bytes = panelBytes(panels);
    if (panels.empty()) {
      message = "has an invalid plan: pack on axis " + std::to_string(d) +
                ": no load reads the axis contiguously and no other output "
                "axis (PackedPanels.h)";
      return failure();
    }
    if (bytes > kMaxPanelBytes) {
      message = "has an invalid plan: pack on axis " + std::to_string(d) +
                ": its panels take " + std::to_string(bytes) +
                " bytes a block, over " + std::to_string(kMaxPanelBytes);
      return failure();
    }
  }
  return std::make_pair(std::move(*space), std::move(*plan));
}
