//===- LazyGraph.cpp - tinygrad's LazyBuffer graph over lazy IR -----------===//

#include "lazy/Dialect/Lazy/Analysis/LazyGraph.h"
#include "ScheduleRules.h"
#include "lazy/Dialect/Lazy/IR/LazyAttrs.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;

namespace {
/// What the graph needs to know of an op, which depends on its name only.
struct OpClass {
  NodeOp kind = NodeOp::Elementwise;
  bool isLazy = false;
  bool isMovement = false;
  bool unsafePad = false;
};
} // namespace

static OpClass classify(Operation *op) {
  OpClass info;
  info.isLazy = isa_and_present<LazyDialect>(op->getDialect());
  info.isMovement =
      isa<ReshapeOp, PermuteOp, ExpandOp, PadOp, ShrinkOp, StrideOp>(op);
  info.unsafePad = isUnsafePadOp(op);
  info.kind = llvm::TypeSwitch<Operation *, NodeOp>(op)
                  .Case([](ReduceSumOp) { return NodeOp::ReduceSum; })
                  .Case([](ReduceMaxOp) { return NodeOp::ReduceMax; })
                  .Case([](ConstOp) { return NodeOp::Const; })
                  .Case([](EmptyOp) { return NodeOp::Empty; })
                  .Case([](CopyOp) { return NodeOp::Copy; })
                  .Case([](ContiguousOp) { return NodeOp::Contiguous; })
                  .Case([](CustomOp) { return NodeOp::Custom; })
                  .Case([](AssignOp) { return NodeOp::Assign; })
                  .Case([](BufferViewOp) { return NodeOp::BufferView; })
                  .Case([](ViewOp) { return NodeOp::View; })
                  .Default([](Operation *) { return NodeOp::Elementwise; });
  return info;
}

bool mlir::lazy::readsNothing(const st::ShapeTracker &tracker) {
  if (tracker.size() == 0)
    return true;
  const st::View &last = tracker.views.back();
  return last.mask && llvm::any_of(*last.mask, [](const auto &range) {
           return range.first >= range.second;
         });
}

bool mlir::lazy::viewIsItsBase(const st::ShapeTracker &tracker,
                               ArrayRef<int64_t> baseShape) {
  return tracker.contiguous() &&
         ArrayRef<int64_t>(tracker.shape()) == baseShape;
}

bool mlir::lazy::symbolicViewFoldsAway(const st::SymShapeTracker &tracker,
                                       Type baseType) {
  // tinygrad's rules with its `==` on sints.
  return st::readsNothing(tracker) ||
         (tracker.contiguous() &&
          st::symEqual(tracker.shape(), symbolicShapeOf(baseType)));
}

bool mlir::lazy::viewFoldsAway(const st::ShapeTracker &tracker,
                               ArrayRef<int64_t> baseShape) {
  return readsNothing(tracker) || viewIsItsBase(tracker, baseShape);
}

bool mlir::lazy::isGraphFunction(func::FuncOp func) {
  if (func.isExternal())
    return false;
  auto isTensor = [](Type t) { return isa<RankedTensorType>(t); };
  if (!llvm::all_of(func.getArgumentTypes(), isTensor) ||
      !llvm::all_of(func.getResultTypes(), isTensor))
    return false;
  return !func.getArgumentTypes().empty() || !func.getResultTypes().empty() ||
         llvm::any_of(func.getBody().front(), [](Operation &op) {
           return isa<LazyDialect>(op.getDialect());
         });
}

/// A bitcast that changes the item size rescales the last dimension, which
/// tinygrad 0.9.2 allows only on DISK tensors ("shape changing bitcast only
/// supported on DISK right now") and which no kernel here computes: an
/// element of the result is part of, or several of, the source's.
static LogicalResult checkItemSizeChange(BitcastOp bitcast) {
  auto itemBytes = [](Type type) {
    return itemSize(cast<RankedTensorType>(type).getElementType());
  };
  int64_t from = itemBytes(bitcast.getSrc().getType());
  int64_t to = itemBytes(bitcast.getType());
  if (from == to)
    return success();
  return bitcast.emitOpError()
         << "changes the item size from " << from << " to " << to
         << " bytes, which no kernel computes (tinygrad 0.9.2 allows it "
         << "only on DISK tensors); a buffer_view reinterprets bytes";
}

FailureOr<LazyGraph> LazyGraph::build(func::FuncOp func, bool *notFolded) {
  LazyGraph graph;
  graph.func = func;
  graph.pool = std::make_unique<st::TrackerPool>();
  st::TrackerPool &pool = *graph.pool;
  // Types and attributes are uniqued, so equal shapes and views are found
  // by pointer before the pool hashes anything.
  llvm::DenseMap<Type, st::TrackerId> identityOf;
  llvm::DenseMap<Attribute, st::TrackerId> viewOf;
  // With `notFolded`, a function lazy-fold-views would change stops the
  // build quietly, for the caller to fold it and build again.
  auto stopToFold = [&]() -> FailureOr<LazyGraph> {
    *notFolded = true;
    return failure();
  };
  // With `notFolded`: whether lazy-fold-views would replace a view of a base,
  // by tracker and base type (all the verdict depends on).
  llvm::DenseMap<std::pair<Attribute, Type>, bool> foldsAway;
  auto identity = [&](Type type, ArrayRef<int64_t> shape) {
    auto [it, isNew] = identityOf.try_emplace(type, 0);
    if (isNew)
      it->second = hasSymbolicShape(type)
                       ? pool.fromSymShape(symbolicShapeOf(type))
                       : pool.fromShape(
                             std::vector<int64_t>(shape.begin(), shape.end()));
    return it->second;
  };
  if (func.isExternal())
    return func.emitError("cannot schedule a function without a body");
  Block &body = func.getBody().front();
  // Reserved up front: nodes point into srcStorage, which must not move.
  // (One walk counts both: a block does not know its size.)
  size_t numOps = 0, numOperands = 0;
  for (Operation &op : body) {
    ++numOps;
    numOperands += op.getNumOperands();
  }
  graph.srcStorage.reserve(numOperands);
  graph.nodes.reserve(body.getNumArguments() + numOps);
  // Values hash by address: an op's operands were mostly defined just
  // before it, close by in memory, so lookups stay in cache. (A mixing
  // hash sends each to a random bucket, a cache miss per operand once the
  // table outgrows the cache.) Bits from 128 KiB up are folded in: the
  // allocator places ops at the same offsets in each of its pages, so
  // addresses that differ only in high bits shared buckets. On a 12-layer
  // transformer step (5,574 nodes) probing cost 2.1 M instructions with
  // the address alone, 0.6 M with the fold. The table is only needed
  // while building.
  struct AddressOrderInfo : llvm::DenseMapInfo<Value> {
    static unsigned getHashValue(Value v) {
      auto address = reinterpret_cast<uintptr_t>(v.getAsOpaquePointer());
      return unsigned((address >> 4) ^ (address >> 17));
    }
  };
  llvm::DenseMap<Value, NodeId, AddressOrderInfo> ids;
  ids.reserve(graph.nodes.capacity());

  // Item sizes by dtype: a graph has few dtypes and many nodes.
  llvm::SmallDenseMap<Type, int64_t, 8> itemSizes;
  auto itemSizeOf = [&](Type elementType) {
    auto [it, isNew] = itemSizes.try_emplace(elementType, 0);
    if (isNew)
      it->second = itemSize(elementType);
    return it->second;
  };

  // Classified once per op name: a graph has a few dozen kinds of op and
  // thousands of ops, and each isa<> test is an out-of-line TypeID call.
  llvm::SmallDenseMap<const void *, OpClass, 32> classes;
  auto classOf = [&](Operation &op) {
    auto [it, isNew] =
        classes.try_emplace(op.getName().getAsOpaquePointer(), OpClass());
    if (isNew)
      it->second = classify(&op);
    return it->second;
  };

  auto addNode = [&](LazyNode node, Value value) {
    NodeId id = NodeId(graph.nodes.size());
    ids[value] = id;
    graph.nodes.push_back(std::move(node));
    return id;
  };

  for (BlockArgument arg : body.getArguments()) {
    if (!isa<RankedTensorType>(arg.getType()))
      return func.emitError()
             << "argument #" << arg.getArgNumber() << " is not a tensor";
    LazyNode node;
    node.type = cast<RankedTensorType>(arg.getType());
    node.kind = NodeOp::Realized;
    node.tracker = identity(node.type, node.shape());
    node.size = pool.size(node.tracker);
    node.itemSize = itemSizeOf(node.elementType());
    NodeId id = addNode(std::move(node), arg);
    graph.nodes[id].base = id;
  }

  for (Operation &op : body) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (Value v : ret.getOperands())
        graph.outs.push_back(ids.lookup(v));
      break;
    }
    OpClass opClass = classOf(op);
    if (!opClass.isLazy || op.getNumResults() != 1)
      return op.emitOpError("is not a lazy graph op; the scheduler only "
                            "accepts lazy ops and a return");
    if (opClass.isMovement) {
      if (auto src = op.getOperand(0).getDefiningOp<ViewOp>();
          src && src.getTracker().isSymbolic())
        return op.emitOpError("moves a symbolic view (a view holding tinygrad "
                              "Variables), which is not supported yet; "
                              "write one lazy.view of the base");
      if (notFolded)
        return stopToFold();
      return op.emitOpError("is a movement op; run lazy-fold-views before "
                            "scheduling");
    }
    LazyNode node;
    Value value = op.getResult(0);
    node.type = dyn_cast<RankedTensorType>(value.getType());
    if (!node.type)
      return op.emitOpError("does not produce a ranked tensor; the "
                            "scheduler only accepts lazy tensor ops");
    if (auto bitcast = dyn_cast<BitcastOp>(op))
      if (failed(checkItemSizeChange(bitcast)))
        return failure();
    node.op = &op;
    node.kind = opClass.kind;
    node.itemSize = itemSizeOf(node.elementType());
    if (auto name = dyn_cast<NameLoc>(op.getLoc()))
      node.metadata = name.getName();
    node.opName = op.getName().getAsOpaquePointer();
    // Marks set from outside the scheduler; most ops have none. They are
    // discardable (dialect-prefixed) names, so the raw dictionary holds them
    // whether or not the op stores inherent attributes as properties; asking
    // for getDiscardableAttrDictionary() instead uniques a new dictionary
    // for every op without properties (most elementwise ops).
    DictionaryAttr marks = op.getRawDictionaryAttrs();
    bool marked = !marks.empty();
    node.external = marked && marks.contains(LazyDialect::kExternalAttrName);
    if (opClass.kind == NodeOp::View) {
      auto view = cast<ViewOp>(op);
      NodeId src = ids.lookup(view.getSrc());
      if (!graph.nodes[src].isBase()) {
        if (notFolded)
          return stopToFold();
        return op.emitOpError("views a view; run lazy-fold-views before "
                              "scheduling");
      }
      node.base = src;
      auto [it, isNew] = viewOf.try_emplace(view.getTracker(), 0);
      if (isNew)
        it->second = view.getTracker().isSymbolic()
                         ? pool.intern(view.getTracker().getSymTracker())
                         : pool.intern(view.getTracker().getTracker());
      node.tracker = it->second;
      if (notFolded) {
        // lazy-fold-views erases a view that nothing reads, and replaces one
        // the _view rules replace.
        if (value.use_empty())
          return stopToFold();
        auto [verdict, isNewPair] =
            foldsAway.try_emplace({view.getTracker(), view.getSrc().getType()});
        if (isNewPair)
          verdict->second =
              pool.isSymbolic(node.tracker) ||
                      hasSymbolicShape(graph.nodes[src].type)
                  ? symbolicViewFoldsAway(pool.getSym(node.tracker),
                                          graph.nodes[src].type)
                  : viewFoldsAway(pool.get(node.tracker),
                                  graph.nodes[src].shape());
        if (verdict->second)
          return stopToFold();
      }
      node.size = pool.size(node.tracker);
      addNode(std::move(node), value);
      continue;
    }
    node.tracker = identity(node.type, node.shape());
    node.size = pool.size(node.tracker);
    node.forcedRealize =
        marked && marks.contains(LazyDialect::kForcedRealizeAttrName);
    node.seen = marked && marks.contains(LazyDialect::kSeenAttrName);
    node.unsafePad = opClass.unsafePad;
    size_t first = graph.srcStorage.size();
    for (Value operand : op.getOperands())
      graph.srcStorage.push_back(ids.lookup(operand));
    node.srcs = ArrayRef<NodeId>(graph.srcStorage).drop_front(first);
    NodeId id = addNode(std::move(node), value);
    graph.nodes[id].base = id;
  }
  return graph;
}
