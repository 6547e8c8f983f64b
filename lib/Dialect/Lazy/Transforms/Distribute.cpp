//===- Distribute.cpp - one program per MPI rank --------------------------===//
//
// lazy-distribute splits an ordered multi-device schedule into one function
// per rank, a rank per device:
//   - ranks: the devices of the function's buffers, sorted by name then
//     number (`CLANG` is `CLANG:0`); `NPY` buffers are host arrays every
//     rank holds; any other device that is not a compute device (DISK) is
//     an error;
//   - each op goes to the rank of the device of the buffer it writes;
//     arguments and results to the rank of their device, marked with their
//     positions (lazy.argument, lazy.output);
//   - a copy between two ranks' devices becomes a lazy.send on the source
//     rank and a lazy.recv on the destination's, tagged with its position
//     among such copies (mod 32768, MPI's least tag bound: messages between
//     two ranks with one tag still meet in order);
//   - tinygrad's naive all-reduce (multi.py: device d adds copies of every
//     device's buffer, folding left in device order) becomes one
//     lazy.all_reduce per rank when every device's launch of it is a plain
//     left fold of one op over whole, contiguous loads of the N buffers,
//     the copies are read by that launch alone and MPI reduces the element
//     type (AllReduceRecognizer below); every rank's side goes where the
//     group's first launch is, its output allocated there if need be, so
//     that the ranks call the collectives in one order (which is why each
//     launch's output must be a buffer of its own: on a planned schedule
//     it may share memory with a buffer live in between).
// Every rank keeps the schedule's order of messages, each message and
// all-reduce one place in it, so the blocking sends, receives and
// collectives cannot deadlock: the earliest one any rank waits on is
// reached by every rank it needs, none of which has anything earlier to
// wait for. Local work (allocations, launches, local copies) moves ahead
// of the messages it does not need (runLocalWorkFirst), so that ranks
// reach each all-reduce having done the same work.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/IR/LazyAttrs.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Dialect/Lazy/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <map>
#include <optional>

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYDISTRIBUTE
#include "lazy/Dialect/Lazy/Transforms/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using namespace mlir::lazy;

namespace {

/// MPI_TAG_UB is at least this.
constexpr int64_t kTagBound = 32768;

/// The devices of a function and their ranks.
class RankMap {
public:
  /// Collects the devices of `func`'s buffers; an error on a device that
  /// cannot be a rank.
  LogicalResult collect(func::FuncOp func, StringRef defaultDevice) {
    this->defaultDevice = defaultDevice.str();
    std::map<std::pair<std::string, int64_t>, std::string> sorted;
    auto visit = [&](Value v, Location loc) -> LogicalResult {
      auto type = dyn_cast<BufferType>(v.getType());
      if (!type)
        return success();
      std::string device = nameOf(type);
      if (device == kHost)
        return success();
      auto [kind, number] = StringRef(device).split(':');
      int64_t index = 0;
      if (!number.empty() && number.getAsInteger(10, index))
        return emitError(loc) << "lazy-distribute: a buffer on " << device
                              << " cannot be given to a rank (only compute "
                                 "devices, KIND or KIND:N, and NPY arrays)";
      sorted[{kind.str(), index}] = device;
      return success();
    };
    for (BlockArgument arg : func.getArguments())
      if (failed(visit(arg, func.getLoc())))
        return failure();
    WalkResult walk = func.walk([&](Operation *op) {
      for (Value v : op->getResults())
        if (failed(visit(v, op->getLoc())))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    if (sorted.empty())
      sorted[{this->defaultDevice, 0}] = canonical(this->defaultDevice);
    for (auto &entry : sorted) {
      rankOf[entry.second] = int64_t(devices.size());
      devices.push_back(entry.second);
    }
    return success();
  }

  /// The rank `type`'s buffer lives on, or nullopt for a host array (NPY),
  /// which every rank holds.
  std::optional<int64_t> rank(Type type) const {
    std::string device = nameOf(cast<BufferType>(type));
    if (device == kHost)
      return std::nullopt;
    return rankOf.lookup(device);
  }

  ArrayRef<std::string> all() const { return devices; }

private:
  static constexpr StringLiteral kHost = "NPY";

  /// tinygrad's canonical device name: `KIND:0` is `KIND`.
  static std::string canonical(StringRef device) {
    if (device.ends_with(":0"))
      return device.drop_back(2).str();
    return device.str();
  }
  std::string nameOf(BufferType type) const {
    if (DeviceAttr device = type.getDevice())
      return canonical(device.getName());
    return canonical(defaultDevice);
  }

  std::string defaultDevice;
  std::vector<std::string> devices;
  llvm::StringMap<int64_t> rankOf;
};

/// One rank's side of a recognized all-reduce.
struct AllReduceSide {
  StringRef kind; // "sum" or "max"
  Value local;    // this rank's own buffer, reduced into the launch's output
};

/// Finds tinygrad's naive all-reduce in a scheduled function (see the file
/// comment): the launches it replaces and the copies it makes useless.
class AllReduceRecognizer {
public:
  AllReduceRecognizer(ModuleOp module, const RankMap &ranks)
      : kernels(module), ranks(ranks) {}

  void run(func::FuncOp func) {
    int64_t n = int64_t(ranks.all().size());
    if (n < 2)
      return;
    // Candidate launches by their sources (one value per device, in device
    // order) and kind.
    // (Iteration order does not matter: each group is decided alone.)
    std::map<std::pair<std::string, std::vector<const void *>>,
             SmallVector<std::pair<LaunchOp, Value>>>
        groups;
    func.walk([&](LaunchOp launch) {
      std::optional<Fold> fold = foldOf(launch);
      if (!fold || int64_t(fold->sources.size()) != n)
        return;
      std::optional<int64_t> own = ranks.rank(launch.getOuts()[0].getType());
      if (!own)
        return;
      Value local;
      for (auto [device, leaf] : llvm::enumerate(fold->leaves)) {
        Value source = fold->sources[device];
        std::optional<int64_t> at = ranks.rank(source.getType());
        if (!at || *at != int64_t(device))
          return;
        if (int64_t(device) == *own) {
          if (leaf != source) // its own buffer, read directly
            return;
          local = source;
        } else if (leaf == source) {
          return;
        }
      }
      std::vector<const void *> key;
      for (Value source : fold->sources)
        key.push_back(source.getAsOpaquePointer());
      groups[{fold->kind.str(), key}].push_back({launch, local});
    });
    for (auto &[key, launches] : groups) {
      if (int64_t(launches.size()) != n)
        continue;
      llvm::SmallDenseSet<int64_t> seen;
      for (auto &[launch, local] : launches)
        seen.insert(*ranks.rank(launch.getOuts()[0].getType()));
      if (int64_t(seen.size()) != n)
        continue;
      StringRef kind = key.first == "sum" ? "sum" : "max";
      // The group runs where its first launch is, on every rank.
      Operation *first = launches.front().first;
      for (auto &[launch, local] : launches)
        if (launch->isBeforeInBlock(first))
          first = launch;
      auto &members = groupAt[first];
      for (auto &[launch, local] : launches) {
        sides[launch] = {kind, local};
        members.push_back(launch);
        for (Value in : launch.getIns())
          if (auto copy = in.getDefiningOp<ExtOp>())
            if (copy.getKind() == "copy")
              droppedCopies.insert(copy);
      }
    }
  }

  /// The recognized launches and the copies that feed only them; each
  /// group's launches by the first of them.
  llvm::DenseMap<Operation *, AllReduceSide> sides;
  llvm::DenseMap<Operation *, SmallVector<Operation *>> groupAt;
  llvm::DenseSet<Operation *> droppedCopies;

private:
  struct Fold {
    StringRef kind;
    /// The launch operands the fold reads, in fold order, and what each
    /// is a copy of (the operand itself when it is no copy).
    SmallVector<Value> leaves, sources;
  };

  /// The fold `launch`'s kernel is, when it is one: a single store, whole
  /// and contiguous, of a left fold of one op (add or max) over whole,
  /// contiguous loads of distinct inputs, of an element type MPI reduces.
  /// Copies among the inputs must be read by this launch alone.
  std::optional<Fold> foldOf(LaunchOp launch) {
    auto kernel = kernels.lookup<KernelOp>(launch.getKernelAttr().getAttr());
    if (!kernel || launch.getOuts().size() != 1)
      return std::nullopt;
    Block &body = kernel.getBody().front();
    StoreOp store;
    for (Operation &op : body) {
      if (auto s = dyn_cast<StoreOp>(op)) {
        if (store)
          return std::nullopt;
        store = s;
      } else if (!isa<LoadOp, AddOp, MaxOp>(op)) {
        return std::nullopt;
      }
    }
    auto outType = cast<BufferType>(launch.getOuts()[0].getType());
    if (!store || !wholeAndContiguous(store.getView(), outType))
      return std::nullopt;
    // Every rank reduces where the group's first launch ran, maybe before
    // its own: its output must be a buffer of its own, not memory another
    // buffer uses in between (lazy-plan-memory's sharing).
    auto outAlloc = launch.getOuts()[0].getDefiningOp<AllocOp>();
    if (!outAlloc || !outAlloc->hasOneUse())
      return std::nullopt;
    Operation *root = store.getValue().getDefiningOp();
    StringRef kind = isa_and_nonnull<AddOp>(root)   ? "sum"
                     : isa_and_nonnull<MaxOp>(root) ? "max"
                                                    : "";
    if (kind.empty() || !AllReduceOp::reducible(outType.getElementType(), kind))
      return std::nullopt;
    // Walk down the left spine: op(op(op(l0, l1), l2), l3).
    SmallVector<Value> loads;
    Value at = store.getValue();
    while (Operation *op = at.getDefiningOp()) {
      if (op->getName() != root->getName())
        break;
      loads.push_back(op->getOperand(1));
      at = op->getOperand(0);
    }
    loads.push_back(at);
    std::reverse(loads.begin(), loads.end());
    Fold fold{kind, {}, {}};
    llvm::SmallDenseSet<Value> distinct;
    for (Value v : loads) {
      auto load = v.getDefiningOp<LoadOp>();
      auto arg = load ? dyn_cast<BlockArgument>(load.getBuffer()) : nullptr;
      if (!arg || !v.hasOneUse() ||
          int64_t(arg.getArgNumber()) < kernel.getNumOutputs())
        return std::nullopt;
      Value operand = launch->getOperand(arg.getArgNumber());
      auto type = cast<BufferType>(operand.getType());
      if (type.getElementType() != outType.getElementType() ||
          type.getSize() != outType.getSize() ||
          !wholeAndContiguous(load.getView(), type) ||
          !distinct.insert(operand).second)
        return std::nullopt;
      Value source = operand;
      if (auto copy = operand.getDefiningOp<ExtOp>();
          copy && copy.getKind() == "copy") {
        auto sourceType = cast<BufferType>(copy.getIns()[0].getType());
        if (!operand.hasOneUse() ||
            sourceType.getElementType() != type.getElementType() ||
            sourceType.getSize() != type.getSize())
          return std::nullopt;
        source = copy.getIns()[0];
      }
      fold.leaves.push_back(operand);
      fold.sources.push_back(source);
    }
    // Every load is a leaf of the fold, every op on its spine.
    size_t loadsInKernel =
        llvm::count_if(body, [](Operation &op) { return isa<LoadOp>(op); });
    if (loadsInKernel != loads.size() ||
        body.getOperations().size() != 2 * loads.size())
      return std::nullopt;
    return fold;
  }

  static bool wholeAndContiguous(ShapeTrackerAttr view, BufferType buffer) {
    if (view.isSymbolic())
      return false;
    ::lazy::st::ShapeTracker tracker = view.getTracker();
    return tracker.contiguous() && tracker.size() == buffer.getSize();
  }

  SymbolTable kernels;
  const RankMap &ranks;
};

/// Moves each receive and all-reduce after the local work that does not
/// need it, keeping the messages in their order (a send, which another
/// rank may be waiting for, takes the messages before it along): the
/// schedule interleaves the devices' items, so a rank would otherwise wait
/// in an all-reduce for another rank still running kernels it runs only
/// later. Local ops never wait, so moving them cannot deadlock; a local op
/// that touches a buffer a waiting message touches (its result, an assign
/// target it reads, a sub-buffer of either) first lets the messages up to
/// that one go.
void runLocalWorkFirst(Block &body) {
  auto isMessage = [](Operation &op) {
    return isa<SendOp, RecvOp, AllReduceOp>(op);
  };
  SmallVector<Operation *> order, waiting;
  // The position in `waiting` of the last message each buffer concerns
  // (by root: an assign target is one buffer under several values).
  llvm::DenseMap<Value, size_t> waitingOn;
  size_t sent = 0; // messages of `waiting` already placed
  auto flushThrough = [&](size_t last) {
    for (; sent <= last; ++sent)
      order.push_back(waiting[sent]);
  };
  for (Operation &op : body) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      if (!waiting.empty())
        flushThrough(waiting.size() - 1);
      order.push_back(&op);
      continue;
    }
    if (isMessage(op)) {
      for (Value v : op.getOperands())
        waitingOn[bufferRootOf(v)] = waiting.size();
      waiting.push_back(&op);
      // A send goes as soon as it can (with the messages before it):
      // another rank may be waiting for it.
      if (isa<SendOp>(op))
        flushThrough(waiting.size() - 1);
      continue;
    }
    std::optional<size_t> needs;
    for (Value v : op.getOperands())
      if (auto it = waitingOn.find(bufferRootOf(v));
          it != waitingOn.end() && it->second >= sent)
        needs = std::max(needs.value_or(0), it->second);
    if (needs)
      flushThrough(*needs);
    order.push_back(&op);
  }
  for (Operation *op : order)
    op->moveBefore(&body, body.end());
}

/// Builds one rank's function from the original, op by op.
class RankFunctionBuilder {
public:
  RankFunctionBuilder(func::FuncOp original, const RankMap &ranks,
                      const AllReduceRecognizer &allReduces, int64_t rank)
      : original(original), ranks(ranks), allReduces(allReduces), rank(rank) {}

  FailureOr<func::FuncOp> build(OpBuilder &moduleBuilder, int64_t &sends) {
    MLIRContext *context = original.getContext();
    Builder attrs(context);
    // Arguments and results on this rank (or replicated host arrays).
    SmallVector<Type> argTypes, resultTypes;
    SmallVector<DictionaryAttr> argAttrs, resultAttrs;
    SmallVector<unsigned> keptArgs;
    for (BlockArgument arg : original.getArguments()) {
      if (!mine(arg.getType()))
        continue;
      keptArgs.push_back(arg.getArgNumber());
      argTypes.push_back(arg.getType());
      NamedAttrList list(original.getArgAttrDict(arg.getArgNumber()));
      list.set(LazyDialect::kArgumentAttrName,
               attrs.getI64IntegerAttr(arg.getArgNumber()));
      argAttrs.push_back(list.getDictionary(context));
    }
    auto ret = cast<func::ReturnOp>(original.getBody().front().getTerminator());
    SmallVector<unsigned> keptResults;
    for (OpOperand &operand : ret->getOpOperands()) {
      Type type = operand.get().getType();
      // A host array returned belongs to rank 0.
      bool onRank = isa<BufferType>(type) &&
                    (ranks.rank(type) ? *ranks.rank(type) == rank : rank == 0);
      if (!onRank)
        continue;
      keptResults.push_back(operand.getOperandNumber());
      resultTypes.push_back(type);
      NamedAttrList list(
          original.getResultAttrDict(operand.getOperandNumber()));
      list.set(LazyDialect::kOutputAttrName,
               attrs.getI64IntegerAttr(operand.getOperandNumber()));
      resultAttrs.push_back(list.getDictionary(context));
    }
    auto func = func::FuncOp::create(
        moduleBuilder, original.getLoc(),
        (original.getSymName() + "_rank" + Twine(rank)).str(),
        FunctionType::get(context, argTypes, resultTypes));
    func.setVisibility(original.getVisibility());
    func.setAllArgAttrs(argAttrs);
    func.setAllResultAttrs(resultAttrs);
    func->setAttr(LazyDialect::kRankAttrName, attrs.getI64IntegerAttr(rank));
    Block *body = func.addEntryBlock();
    for (auto [i, index] : llvm::enumerate(keptArgs))
      mapping.map(original.getArgument(index), body->getArgument(i));

    OpBuilder b = OpBuilder::atBlockEnd(body);
    int64_t copyIndex = 0;
    for (Operation &op : original.getBody().front()) {
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        SmallVector<Value> values;
        for (unsigned i : keptResults)
          values.push_back(mapped(ret.getOperand(i)));
        if (llvm::is_contained(values, Value()))
          return ret.emitOpError("returns a buffer rank ")
                 << rank << " does not hold";
        func::ReturnOp::create(b, ret.getLoc(), values);
        continue;
      }
      if (auto copy = dyn_cast<ExtOp>(op); copy && copy.getKind() == "copy") {
        if (failed(distributeCopy(b, copy, copyIndex, sends)))
          return failure();
        continue;
      }
      if (isa<AllocOp, SubAllocOp, LaunchOp, ExtOp>(op)) {
        if (op.getNumResults() == 0 && !isa<LaunchOp>(op))
          return op.emitOpError("lazy-distribute: an item without a result "
                                "has no device");
        // An all-reduce group: every rank's side where the first of its
        // launches is, so that all ranks call the collectives in one
        // order; nothing where the others are.
        if (auto group = allReduces.groupAt.find(&op);
            group != allReduces.groupAt.end()) {
          if (failed(emitAllReduce(b, group->second)))
            return failure();
          continue;
        }
        if (allReduces.sides.contains(&op))
          continue;
        Type written = isa<LaunchOp, ExtOp>(op) ? itemOuts(&op)[0].getType()
                                                : op.getResult(0).getType();
        if (!mine(written) || mapping.contains(op.getResult(0)))
          continue;
        for (Value operand : op.getOperands())
          if (!mapping.contains(operand))
            return op.emitOpError("lazy-distribute: uses a buffer of another "
                                  "device than the one it writes (")
                   << operand.getType() << ")";
        b.clone(op, mapping);
        continue;
      }
      return op.emitOpError("lazy-distribute: not an item of an ordered "
                            "schedule (run lazy-schedule first)");
    }
    // The buffers of copies an all-reduce replaced, and of other ranks'
    // items that reached this one as allocations only, go.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*body)))
      if (isa<AllocOp, SubAllocOp>(op) && op.use_empty())
        op.erase();
    runLocalWorkFirst(*body);
    return func;
  }

private:
  bool mine(Type type) const {
    if (!isa<BufferType>(type))
      return false;
    std::optional<int64_t> at = ranks.rank(type);
    return !at || *at == rank;
  }

  Value mapped(Value v) const { return mapping.lookupOrNull(v); }

  /// This rank's side of an all-reduce group: its launch's own buffer
  /// reduced into its output, allocated here if the schedule allocates it
  /// later (just before this rank's launch).
  LogicalResult emitAllReduce(OpBuilder &b, ArrayRef<Operation *> group) {
    for (Operation *member : group) {
      auto launch = cast<LaunchOp>(member);
      if (!mine(launch.getOuts()[0].getType()))
        continue;
      const AllReduceSide &side = allReduces.sides.lookup(member);
      Value out = launch.getOuts()[0];
      if (!mapped(out))
        b.clone(*out.getDefiningOp(), mapping);
      Value in = mapped(side.local);
      if (!in)
        return launch.emitOpError("lazy-distribute: reduces a buffer rank ")
               << rank << " does not hold";
      auto reduce =
          AllReduceOp::create(b, launch.getLoc(), in, mapped(out), side.kind);
      mapping.map(launch.getResult(0), reduce.getResult());
    }
    return success();
  }

  /// A copy: kept when it stays on this rank, a send or a receive when it
  /// crosses ranks, nothing when it is not this rank's or an all-reduce
  /// made it useless.
  LogicalResult distributeCopy(OpBuilder &b, ExtOp copy, int64_t &copyIndex,
                               int64_t &sends) {
    Value src = copy.getIns()[0], dst = copy.getOuts()[0];
    std::optional<int64_t> from = ranks.rank(src.getType());
    std::optional<int64_t> to = ranks.rank(dst.getType());
    if (!to)
      return copy.emitOpError("lazy-distribute: a copy to a host array has "
                              "no rank to run on");
    if (allReduces.droppedCopies.contains(copy))
      return success();
    bool crosses = from && *from != *to;
    int64_t tag = crosses ? copyIndex++ % kTagBound : 0;
    if (!crosses) {
      if (*to == rank)
        b.clone(*copy, mapping);
      return success();
    }
    if (*from == rank) {
      SendOp::create(b, copy.getLoc(), mapped(src), *to, tag);
      ++sends;
    }
    if (*to == rank) {
      Value buffer = mapped(dst);
      if (!buffer)
        return copy.emitOpError("lazy-distribute: receives into a buffer "
                                "rank ")
               << rank << " does not hold";
      auto recv = RecvOp::create(b, copy.getLoc(), buffer, *from, tag);
      mapping.map(copy.getResult(0), recv.getResult());
    }
    return success();
  }

  func::FuncOp original;
  const RankMap &ranks;
  const AllReduceRecognizer &allReduces;
  int64_t rank;
  IRMapping mapping;
};

/// The module's default device (tinygrad's Device.DEFAULT when exported).
StringRef defaultDeviceOf(Operation *op) {
  auto module = op->getParentOfType<ModuleOp>();
  if (auto attr = module ? module->getAttrOfType<StringAttr>(
                               LazyDialect::kDefaultDeviceAttrName)
                         : StringAttr())
    return attr.getValue();
  return "CLANG";
}

struct LazyDistribute
    : public mlir::lazy::impl::LazyDistributeBase<LazyDistribute> {
  using LazyDistributeBase::LazyDistributeBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto isBuffer = [](Type t) { return isa<BufferType>(t); };
    SmallVector<func::FuncOp> scheduled;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() &&
          (llvm::any_of(func.getArgumentTypes(), isBuffer) ||
           llvm::any_of(func.getResultTypes(), isBuffer)))
        scheduled.push_back(func);
    if (scheduled.size() > 1) {
      scheduled[1].emitError("lazy-distribute: the module has more than one "
                             "scheduled function; ranks run one");
      return signalPassFailure();
    }
    if (scheduled.empty())
      return;
    func::FuncOp func = scheduled.front();
    if (func.getBody().getBlocks().size() != 1) {
      func.emitError("lazy-distribute: a scheduled function is one block");
      return signalPassFailure();
    }
    RankMap ranks;
    if (failed(ranks.collect(func, defaultDeviceOf(func))))
      return signalPassFailure();
    int64_t numRanks = int64_t(ranks.all().size());
    if (rank >= numRanks) {
      func.emitError() << "lazy-distribute: rank " << int64_t(rank)
                       << " asked for, but the schedule has " << numRanks
                       << " device(s)";
      return signalPassFailure();
    }
    AllReduceRecognizer allReduces(module, ranks);
    allReduces.run(func);

    OpBuilder moduleBuilder(func);
    moduleBuilder.setInsertionPointAfter(func);
    SmallVector<func::FuncOp> made;
    int64_t sends = 0;
    for (int64_t r = 0; r < numRanks; ++r) {
      if (rank >= 0 && r != rank)
        continue;
      RankFunctionBuilder builder(func, ranks, allReduces, r);
      FailureOr<func::FuncOp> rankFunc = builder.build(moduleBuilder, sends);
      if (failed(rankFunc)) {
        for (func::FuncOp f : made)
          f.erase();
        return signalPassFailure();
      }
      made.push_back(*rankFunc);
    }
    numSends += sends;
    numAllReduces += allReduces.sides.size() / std::max<int64_t>(numRanks, 1);
    func.erase();

    SmallVector<Attribute> devices;
    for (const std::string &device : ranks.all())
      devices.push_back(StringAttr::get(&getContext(), device));
    module->setAttr(LazyDialect::kRankDevicesAttrName,
                    ArrayAttr::get(&getContext(), devices));
    dropUnlaunchedKernels(module);
  }

  /// Kernels an all-reduce replaced, and with `rank` those other ranks
  /// launch, are not this module's to compile.
  static void dropUnlaunchedKernels(ModuleOp module) {
    llvm::DenseSet<StringAttr> launched;
    module.walk([&](LaunchOp launch) {
      launched.insert(launch.getKernelAttr().getAttr());
    });
    for (auto kernel : llvm::make_early_inc_range(module.getOps<KernelOp>()))
      if (!launched.contains(kernel.getSymNameAttr()))
        kernel.erase();
  }
};

} // namespace

FailureOr<std::vector<std::string>>
mlir::lazy::rankDevicesOf(func::FuncOp func) {
  RankMap ranks;
  if (failed(ranks.collect(func, defaultDeviceOf(func))))
    return failure();
  return std::vector<std::string>(ranks.all().begin(), ranks.all().end());
}
