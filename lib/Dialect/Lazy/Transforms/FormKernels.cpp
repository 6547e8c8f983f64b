//===- FormKernels.cpp - outline groups into kernels ----------------------===//
//
// lazy-form-kernels: tinygrad 0.9.2's _lower_lazybuffer (scheduler spec
// §2.7) over the groups lazy-group marked. Rules:
//   - copy, custom, empty and buffer_view groups become lazy.ext items that
//     read their sources' bases (a custom item keeps its callee and seed);
//   - every other group becomes a lazy.kernel whose AST KernelLowering
//     builds: movement ops on a reduce's output pushed into its input,
//     double reduces merged, reduce inputs padded to a common shape, stores
//     in reduce space (through an assign's view), outputs numbered first and
//     inputs in first-use order, assign targets read through their output;
//   - an assign that writes through a view that is not identity-like while
//     its kernel reads the target gets a warning: the kernel may read an
//     element after overwriting it (tinygrad only checks the read side);
//   - the items form an unordered lazy.schedule in group order, which
//     lazy-toposort orders; arguments and results become buffers, a result
//     that is a view keeps it as `lazy.result_view`.
// Structurally equal leaves (same buffer or const, same view) are emitted
// once, as tinygrad's LazyOp equality would merge them. Items whose kernels
// would be identical (same argument types, metadata and ops) launch one
// shared lazy.kernel, named after its first use: a training step repeats
// each layer's kernels, and tinygrad's method cache compiles such ASTs
// once too. A group described like an earlier one (the same walked ops,
// views and pattern of buffers; GroupLowering::describe) is not even
// lowered: it launches the earlier group's kernel on its own buffers.
// Kernels are built detached on the context's threads and inserted in
// order of first use.
//
// With `decide` (as lazy-schedule runs it), the realize and group decisions
// are made here by lazy-mark-realize's and lazy-group's rules instead of
// being read from their marks, and nothing is marked. With `fold-views` as
// well, a function not yet in LazyBuffer form is first folded by
// lazy-fold-views' rules.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/KernelLowering.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Dialect/Lazy/Transforms/Passes.h"
#include "SchedulerFlagOptions.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Threading.h"
#include "llvm/Support/xxhash.h"

#include <deque>

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYFORMKERNELS
#include "lazy/Dialect/Lazy/Transforms/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;

namespace {

/// The buffer a tensor of `type` lives in.
BufferType bufferTypeOf(RankedTensorType type) {
  return BufferType::get(type.getContext(), type.getNumElements(),
                         type.getElementType(),
                         dyn_cast_or_null<DeviceAttr>(type.getEncoding()));
}

RankedTensorType kernelTensor(ArrayRef<int64_t> shape, Type elementType) {
  return RankedTensorType::get(shape, elementType);
}

/// The ops a kernel is made of, decided before any is built: the live AST
/// nodes in emission order, structurally equal leaves merged. `key`
/// describes the kernel completely, so that kernels with equal keys are
/// equal but for locations.
struct KernelPlan {
  SmallVector<Type> argTypes;
  SmallVector<StringAttr> metadata;
  /// The AST nodes to build, in order.
  std::vector<int32_t> ops;
  /// By AST node: the index into `ops` of the op that computes it (a merged
  /// leaf's is its twin's), -1 for dead nodes. An op's operands are opOf
  /// of its AST sources.
  std::vector<int32_t> opOf;
  /// (index into `ops`, store tracker), one per output.
  std::vector<std::pair<int32_t, st::TrackerId>> stores;
  SmallVector<uint64_t, 0> key;
};

/// Outputs of a kernel (positions in `item.outputs`) that assign through a
/// view that is not identity-like while the kernel also loads the assign's
/// target: an element can then be read after the kernel wrote it, so the
/// result depends on the order the kernel runs in. tinygrad 0.9.2 schedules
/// these as they are; lazy-form-kernels warns. Only the plan's ops count:
/// lowering an assign also lowers its target, a load nothing uses.
SmallVector<unsigned> orderDependentAssigns(const LazyGraph &g,
                                            const ScheduleItem &item,
                                            const KernelPlan &plan) {
  SmallVector<unsigned> found;
  const st::TrackerPool &pool = g.trackers();
  for (auto [position, store] : llvm::enumerate(item.stores)) {
    if (g.node(item.outputs[position]).kind != NodeOp::Assign ||
        isIdentityLike(pool.get(store.second)))
      continue;
    // Loads of a target use its output's buffer number.
    if (llvm::any_of(plan.ops, [&](int32_t op) {
          const AstNode &node = item.nodes[op];
          return node.kind == AstNode::Kind::Load &&
                 node.buffer == int64_t(position);
        }))
      found.push_back(unsigned(position));
  }
  return found;
}

/// Outputs of a kernel item (positions in `outputs`) that assign to a
/// target the kernel also reads through a buffer_view of it (tinygrad's
/// same-size bitcast of a realized buffer shares its memory) in another
/// order than it writes it: as with orderDependentAssigns, the result then
/// depends on the kernel's loop order, and tinygrad's contiguity check does
/// not see the alias. An alias that is exact (no offset, equal item sizes)
/// read through the store's own view is safe. `kernelItem` and `plan` are
/// the kernel's AST; `outputs` and `inputs` this item's buffers.
SmallVector<unsigned> aliasedAssignReads(const LazyGraph &g,
                                         ArrayRef<NodeId> outputs,
                                         ArrayRef<NodeId> inputs,
                                         const ScheduleItem &kernelItem,
                                         const KernelPlan &plan) {
  SmallVector<unsigned> found;
  if (llvm::none_of(inputs, [&](NodeId in) {
        return g.node(in).kind == NodeOp::BufferView;
      }))
    return found;
  // Whether input `in` shares `target`'s memory, and element for element.
  auto aliasOf = [&](NodeId in, NodeId target, bool &exact) {
    exact = true;
    NodeId n = in;
    while (g.node(n).kind == NodeOp::BufferView) {
      NodeId src = g.node(n).srcs[0];
      exact = exact && g.node(src).isBase() &&
              g.node(src).itemSize == g.node(n).itemSize;
      n = g.baseOf(src);
    }
    return n == target && n != in;
  };
  for (auto [position, out] : llvm::enumerate(outputs)) {
    if (g.node(out).kind != NodeOp::Assign)
      continue;
    NodeId target = g.node(out).srcs[1];
    st::TrackerId storeView = plan.stores[position].second;
    if (llvm::any_of(plan.ops, [&](int32_t op) {
          const AstNode &node = kernelItem.nodes[op];
          int64_t input = node.buffer - int64_t(outputs.size());
          bool exact;
          return node.kind == AstNode::Kind::Load && input >= 0 &&
                 aliasOf(inputs[input], target, exact) &&
                 (!exact || node.view != storeView);
        }))
      found.push_back(unsigned(position));
  }
  return found;
}

/// Fails (at the op) when an output that needs computing is in no group.
/// Schedules are never returned with an output that nothing writes.
LogicalResult checkOutputsGrouped(const LazyGraph &g, ArrayRef<char> grouped);

/// Reads the decisions of lazy-mark-realize and lazy-group back from
/// their marks: the realizes set in order and the groups, each listing its
/// members in realize order.
LogicalResult collectGroups(const LazyGraph &g, NodeSet &realizes,
                            std::vector<std::vector<NodeId>> &groups);

class KernelFormer {
public:
  KernelFormer(ModuleOp module, func::FuncOp func, unsigned &kernelCounter)
      : module(module), func(func), kernelCounter(kernelCounter),
        bodyOps(module.getContext()) {}

  /// Replaces the body of `func` (whose graph `g` is) by the schedule of
  /// `groups`, realizing `realizes`. With `report`, remarks on it.
  LogicalResult run(const LazyGraph &g, const NodeSet &realizes,
                    ArrayRef<std::vector<NodeId>> groups, bool report);

  /// With positions (record-nodes), each launch and ext gets `lazy.nodes`:
  /// the position of each output's graph op.
  void recordNodes(llvm::DenseMap<Operation *, int64_t> positions) {
    nodePositions = std::move(positions);
  }

private:
  KernelPlan planKernel(const LazyGraph &g, const ScheduleItem &item);
  /// The buffer a node lives in (an ASSIGN shares its target's), made
  /// once per node and once per tensor type.
  BufferType bufferType(const LazyGraph &g, NodeId id);
  /// Makes the attributes and types the kernels of `plans` use (plan k
  /// is that of items[firstUses[k]]), so that emitKernel only reads shared
  /// state.
  void prepareKernelAttrs(const LazyGraph &g, ArrayRef<ScheduleItem> items,
                          const std::deque<KernelPlan> &plans,
                          ArrayRef<size_t> firstUses);
  /// Builds the lazy.kernel of `item`, detached (not yet in the module).
  /// Safe to call from several threads at once.
  KernelOp emitKernel(const LazyGraph &g, const ScheduleItem &item,
                      const KernelPlan &plan, StringRef name) const;

  /// The names of the ops a kernel body is made of, resolved once: a
  /// generated create() looks its name up by string for every op.
  struct BodyOpNames {
    explicit BodyOpNames(MLIRContext *ctx)
        : load(LoadOp::getOperationName(), ctx),
          store(StoreOp::getOperationName(), ctx),
          constant(ConstOp::getOperationName(), ctx),
          view(ViewOp::getOperationName(), ctx),
          reduceSum(ReduceSumOp::getOperationName(), ctx),
          reduceMax(ReduceMaxOp::getOperationName(), ctx) {}
    OperationName load, store, constant, view, reduceSum, reduceMax;
  };

  ModuleOp module;
  func::FuncOp func;
  unsigned &kernelCounter;
  /// Set with record-nodes.
  std::optional<llvm::DenseMap<Operation *, int64_t>> nodePositions;
  BodyOpNames bodyOps;
  /// Attributes and kernel tensor types of the pool's trackers, made once
  /// each.
  llvm::DenseMap<st::TrackerId, ShapeTrackerAttr> trackerAttrs;
  llvm::DenseMap<std::pair<st::TrackerId, Type>, RankedTensorType> tensorTypes;
  std::vector<BufferType> bufferTypes; // by node; null until asked for
  llvm::DenseMap<Type, BufferType> bufferTypeOfTensor;
};

BufferType KernelFormer::bufferType(const LazyGraph &g, NodeId id) {
  if (bufferTypes.empty())
    bufferTypes.resize(g.size());
  BufferType &type = bufferTypes[id];
  if (!type) {
    const LazyNode &n = g.node(id);
    RankedTensorType tensor =
        (n.kind == NodeOp::Assign ? g.node(n.srcs[1]) : n).type;
    BufferType &known = bufferTypeOfTensor[tensor];
    if (!known)
      known = bufferTypeOf(tensor);
    type = known;
  }
  return type;
}

LogicalResult checkOutputsGrouped(const LazyGraph &g,
                                  ArrayRef<char> grouped) {
  for (NodeId out : g.outputs()) {
    NodeId base = g.baseOf(out);
    const LazyNode &n = g.node(base);
    if (n.isRealized())
      continue;
    // tinygrad schedules nothing for a const output (nor for one already
    // scheduled, in `seen`).
    if (!grouped[base] && !n.seen && n.kind != NodeOp::Const)
      return n.op->emitOpError(
          "is an output but belongs to no kernel: fuse-conv-bw merged it "
          "into the reduce that reads it, or lazy-mark-realize and "
          "lazy-group have not marked it");
  }
  return success();
}

LogicalResult collectGroups(const LazyGraph &g, NodeSet &realizes,
                            std::vector<std::vector<NodeId>> &groups) {
  func::FuncOp func = g.function();
  realizes = readRealizeMarks(g);
  std::vector<int64_t> position(g.size(), -1);
  for (auto [index, id] : llvm::enumerate(realizes))
    position[id] = int64_t(index);
  // (group, realize position, node) for every marked node; sorted, these
  // are the groups in order, each listing its members in realize order.
  StringAttr groupName =
      StringAttr::get(func.getContext(), LazyDialect::kGroupAttrName);
  std::vector<std::tuple<int64_t, int64_t, NodeId>> members;
  std::vector<char> grouped(g.size(), 0);
  for (NodeId id = 0; id < NodeId(g.size()); ++id) {
    Operation *op = g.node(id).op;
    if (!op)
      continue;
    Attribute mark = op->getDiscardableAttr(groupName);
    if (!mark)
      continue;
    auto group = cast<IntegerAttr>(mark); // the dialect verifies marks
    if (position[id] < 0)
      return op->emitOpError("has a 'lazy.group' but no 'lazy.realize' "
                             "mark; run lazy-mark-realize and lazy-group");
    members.push_back({group.getInt(), position[id], id});
    grouped[id] = 1;
  }
  if (failed(checkOutputsGrouped(g, grouped)))
    return failure();
  llvm::sort(members);
  for (size_t i = 0; i < members.size();) {
    std::vector<NodeId> group;
    int64_t index = std::get<0>(members[i]);
    for (; i < members.size() && std::get<0>(members[i]) == index; ++i)
      group.push_back(std::get<2>(members[i]));
    groups.push_back(std::move(group));
  }
  return success();
}

/// The dtype a kernel AST node computes in: that of the graph node.
static Type elementTypeOf(const LazyGraph &g, const AstNode &node) {
  return g.node(node.source).elementType();
}

KernelPlan KernelFormer::planKernel(const LazyGraph &g,
                                    const ScheduleItem &item) {
  MLIRContext *ctx = g.function().getContext();
  KernelPlan plan;
  // A byte-copy kernel sees its buffers as uint8 (the launch passes them
  // as they are: a kernel argument only has to match a buffer's bytes).
  auto bytesOf = [&](BufferType t) {
    return BufferType::get(ctx, item.copyBytes,
                           IntegerType::get(ctx, 8, IntegerType::Unsigned),
                           t.getDevice());
  };
  for (NodeId id : llvm::concat<const NodeId>(item.outputs, item.inputs))
    plan.argTypes.push_back(item.copyBytes ? bytesOf(bufferType(g, id))
                                           : bufferType(g, id));
  // Metadata: the names of the computed ops, first occurrence first.
  for (NodeId id : item.computed)
    if (StringAttr name = g.node(id).metadata)
      if (!llvm::is_contained(plan.metadata, name))
        plan.metadata.push_back(name);

  SmallVector<uint64_t, 0> &key = plan.key;
  key.reserve(8 + plan.argTypes.size() + plan.metadata.size() +
              4 * item.nodes.size() + item.stores.size());
  plan.ops.reserve(item.nodes.size());
  key.push_back(item.outputs.size());
  key.push_back(uint64_t(item.copyBytes));
  key.push_back(plan.argTypes.size());
  for (Type t : plan.argTypes)
    key.push_back(opaqueWord(t.getAsOpaquePointer()));
  key.push_back(plan.metadata.size());
  for (StringAttr name : plan.metadata)
    key.push_back(opaqueWord(name.getAsOpaquePointer()));
  if (item.copyBytes)
    return plan;

  // Only nodes the stores reach are emitted (an assign also lowers its
  // target, whose load nothing uses).
  std::vector<char> live(item.nodes.size(), 0);
  for (auto &store : item.stores)
    live[store.first] = 1;
  for (size_t i = item.nodes.size(); i-- > 0;)
    if (live[i])
      for (int32_t src : item.nodes[i].srcs())
        live[src] = 1;

  // The planned op of each AST node; structurally equal loads and consts
  // (kind, buffer or const node, view) share one.
  std::vector<int32_t> &opOf = plan.opOf;
  opOf.assign(item.nodes.size(), -1);
  // Keyed by (load or const, buffer or const node, view), packed.
  llvm::DenseMap<uint64_t, int32_t> leaves;
  for (auto [i, node] : llvm::enumerate(item.nodes)) {
    if (!live[i])
      continue;
    const LazyNode &src = g.node(node.source);
    bool isLeaf =
        node.kind == AstNode::Kind::Load || node.kind == AstNode::Kind::Const;
    if (isLeaf) {
      int64_t leaf =
          node.kind == AstNode::Kind::Load ? node.buffer : int64_t(node.source);
      assert(leaf >= 0 && leaf <= INT32_MAX);
      uint64_t leafKey = uint64_t(node.kind == AstNode::Kind::Load) << 63 |
                         uint64_t(leaf) << 32 | node.view;
      auto [it, inserted] =
          leaves.try_emplace(leafKey, int32_t(plan.ops.size()));
      if (!inserted) {
        opOf[i] = it->second;
        continue;
      }
    }
    opOf[i] = int32_t(plan.ops.size());
    plan.ops.push_back(int32_t(i));

    // Packed, a few words per op (a 10^5-node kernel has a 10^5-op key):
    // kind, operand count and shape; dtype; the kind's fields; operands,
    // two to a word. Lengths come first, so keys cannot alias.
    key.push_back(uint64_t(node.kind) | uint64_t(node.numSrcs) << 8 |
                  uint64_t(node.shaped) << 32);
    key.push_back(opaqueWord(elementTypeOf(g, node).getAsOpaquePointer()));
    switch (node.kind) {
    case AstNode::Kind::Load:
      assert(node.buffer >= 0 && node.buffer <= UINT32_MAX);
      key.push_back(uint64_t(node.view) | uint64_t(node.buffer) << 32);
      break;
    case AstNode::Kind::Const: {
      ArrayRef<int64_t> shape = src.shape();
      key.push_back(uint64_t(node.view) | uint64_t(shape.size()) << 32);
      key.push_back(
          opaqueWord(cast<ConstOp>(src.op).getValue().getAsOpaquePointer()));
      key.insert(key.end(), shape.begin(), shape.end());
      break;
    }
    case AstNode::Kind::Reduce:
      key.push_back(uint64_t(src.kind) | uint64_t(node.numAxes) << 32);
      llvm::append_range(key, item.axesOf(node));
      break;
    case AstNode::Kind::Compute:
      key.push_back(opaqueWord(src.opName));
      // An op with properties is never shared: they have no cheap
      // equality here (no lazy op in a kernel AST has any today).
      if (OperationName::getFromOpaquePointer(src.opName)
              .getOpPropertyByteSize())
        key.push_back(opaqueWord(src.op));
      break;
    }
    ArrayRef<int32_t> srcs = node.srcs();
    for (size_t k = 0; k < srcs.size(); k += 2) {
      uint64_t second =
          k + 1 < srcs.size() ? uint64_t(uint32_t(opOf[srcs[k + 1]])) : 0;
      key.push_back(uint64_t(uint32_t(opOf[srcs[k]])) | second << 32);
    }
  }
  for (auto &store : item.stores) {
    plan.stores.push_back({opOf[store.first], store.second});
    key.push_back(uint64_t(uint32_t(opOf[store.first])) |
                  uint64_t(store.second) << 32);
  }
  return plan;
}

void KernelFormer::prepareKernelAttrs(const LazyGraph &g,
                                      ArrayRef<ScheduleItem> items,
                                      const std::deque<KernelPlan> &plans,
                                      ArrayRef<size_t> firstUses) {
  MLIRContext *ctx = func.getContext();
  st::TrackerPool &pool = g.trackers();
  auto addTracker = [&](st::TrackerId id) {
    ShapeTrackerAttr &attr = trackerAttrs[id];
    if (!attr)
      attr = ShapeTrackerAttr::get(ctx, pool.get(id));
  };
  for (auto [k, plan] : llvm::enumerate(plans)) {
    const ScheduleItem &item = items[firstUses[k]];
    for (int32_t op : plan.ops) {
      const AstNode &node = item.nodes[op];
      if (node.kind == AstNode::Kind::Load || node.kind == AstNode::Kind::Const)
        addTracker(node.view);
      RankedTensorType &type =
          tensorTypes[{node.shaped, elementTypeOf(g, node)}];
      if (!type)
        type = kernelTensor(pool.shape(node.shaped), elementTypeOf(g, node));
    }
    for (auto &store : plan.stores)
      addTracker(store.second);
  }
}

/// Appends an op of the resolved `name` with inherent attributes `props`
/// (its Properties struct, or nullptr for an op without) and no
/// discardable ones, at `b`'s insertion point. The generated create()
/// would look the name up by string and fill an OperationState first.
template <typename Props>
static Operation *appendOp(OpBuilder &b, OperationName name, Location loc,
                           TypeRange types, ValueRange operands, Props *props,
                           DictionaryAttr noAttrs) {
  Operation *op = Operation::create(loc, name, types, operands, noAttrs,
                                    OpaqueProperties(props),
                                    /*successors=*/{}, /*numRegions=*/0);
  return b.insert(op);
}

KernelOp KernelFormer::emitKernel(const LazyGraph &g, const ScheduleItem &item,
                                  const KernelPlan &plan,
                                  StringRef name) const {
  MLIRContext *ctx = g.function().getContext();
  OpBuilder moduleBuilder(ctx); // no insertion point: the kernel is detached
  Location loc = g.node(item.outputs.front()).op->getLoc();
  auto kernel = KernelOp::create(
      moduleBuilder, loc, moduleBuilder.getStringAttr(name),
      TypeAttr::get(FunctionType::get(ctx, plan.argTypes, {})),
      /*sym_visibility=*/StringAttr(), /*arg_attrs=*/ArrayAttr(),
      /*res_attrs=*/ArrayAttr(),
      moduleBuilder.getI64IntegerAttr(int64_t(item.outputs.size())),
      /*metadata=*/ArrayAttr(), /*opts=*/ArrayAttr());
  if (!plan.metadata.empty())
    kernel.setMetadataAttr(moduleBuilder.getArrayAttr(SmallVector<Attribute>(
        plan.metadata.begin(), plan.metadata.end())));

  Block *body = new Block();
  kernel.getBody().push_back(body);
  for (Type t : plan.argTypes)
    body->addArgument(t, loc);
  OpBuilder b = OpBuilder::atBlockEnd(body);

  if (item.copyBytes) {
    auto bytes = RankedTensorType::get(
        {item.copyBytes}, IntegerType::get(ctx, 8, IntegerType::Unsigned));
    auto view =
        ShapeTrackerAttr::get(ctx, st::ShapeTracker::fromShape({item.copyBytes}));
    Value value = LoadOp::create(b, loc, bytes, body->getArgument(1), view);
    StoreOp::create(b, loc, value, body->getArgument(0), view);
    return kernel;
  }

  // Made by prepareKernelAttrs; only read here.
  auto trackerAttr = [&](st::TrackerId id) {
    ShapeTrackerAttr attr = trackerAttrs.lookup(id);
    assert(attr && "tracker attribute not prepared");
    return attr;
  };
  // The kernel tensor type of a node: its shape with the source's dtype.
  auto typeOf = [&](st::TrackerId shaped, Type elementType) {
    RankedTensorType type = tensorTypes.lookup({shaped, elementType});
    assert(type && "kernel tensor type not prepared");
    return type;
  };
  auto noAttrs = DictionaryAttr::get(ctx);
  std::vector<Value> values(plan.ops.size());
  for (auto [i, nodeIndex] : llvm::enumerate(plan.ops)) {
    const AstNode &node = item.nodes[nodeIndex];
    const LazyNode &src = g.node(node.source);
    Location nodeLoc = src.op ? src.op->getLoc() : loc;
    Type elementType = elementTypeOf(g, node);
    switch (node.kind) {
    case AstNode::Kind::Load: {
      LoadOp::Properties props;
      props.view = trackerAttr(node.view);
      values[i] = appendOp(b, bodyOps.load, nodeLoc,
                           typeOf(node.shaped, elementType),
                           body->getArgument(node.buffer), &props, noAttrs)
                      ->getResult(0);
      break;
    }
    case AstNode::Kind::Const: {
      ConstOp::Properties constProps;
      constProps.value = cast<ConstOp>(src.op).getValue();
      Value c = appendOp(b, bodyOps.constant, nodeLoc,
                         kernelTensor(src.shape(), elementType), {},
                         &constProps, noAttrs)
                    ->getResult(0);
      ViewOp::Properties viewProps;
      viewProps.tracker = trackerAttr(node.view);
      values[i] = appendOp(b, bodyOps.view, nodeLoc,
                           typeOf(node.shaped, elementType), c, &viewProps,
                           noAttrs)
                      ->getResult(0);
      break;
    }
    case AstNode::Kind::Reduce: {
      Value input = values[plan.opOf[node.srcs()[0]]];
      Type type = typeOf(node.shaped, elementType);
      DenseI64ArrayAttr axes = b.getDenseI64ArrayAttr(item.axesOf(node));
      if (src.kind == NodeOp::ReduceSum) {
        ReduceSumOp::Properties props;
        props.axes = axes;
        values[i] = appendOp(b, bodyOps.reduceSum, nodeLoc, type, input,
                             &props, noAttrs)
                        ->getResult(0);
      } else {
        ReduceMaxOp::Properties props;
        props.axes = axes;
        values[i] = appendOp(b, bodyOps.reduceMax, nodeLoc, type, input,
                             &props, noAttrs)
                        ->getResult(0);
      }
      break;
    }
    case AstNode::Kind::Compute: {
      // The graph op's properties (its inherent attributes) without its
      // scheduling marks, on the kernel's values, in the kernel's shape.
      SmallVector<Value, 3> operands;
      for (int32_t s : node.srcs())
        operands.push_back(values[plan.opOf[s]]);
      Operation *op = Operation::create(
          nodeLoc, src.op->getName(), {typeOf(node.shaped, elementType)},
          operands, noAttrs, src.op->getPropertiesStorage(), /*successors=*/{},
          /*numRegions=*/0);
      b.insert(op);
      values[i] = op->getResult(0);
      break;
    }
    }
  }
  for (auto [i, store] : llvm::enumerate(plan.stores)) {
    StoreOp::Properties props;
    props.view = trackerAttr(store.second);
    appendOp(b, bodyOps.store, loc, {},
             ValueRange{values[store.first], body->getArgument(i)}, &props,
             noAttrs);
  }
  return kernel;
}

namespace {
/// Keys of kernel plans and group descriptions: word arrays of a few
/// hundred words, hashed as bytes by xxh3 (several times faster on long
/// keys than hash_combine_range, DenseMapInfo<ArrayRef>'s hash).
struct WordsInfo : llvm::DenseMapInfo<ArrayRef<uint64_t>> {
  static unsigned getHashValue(ArrayRef<uint64_t> words) {
    return unsigned(llvm::xxh3_64bits(
        ArrayRef(reinterpret_cast<const uint8_t *>(words.data()),
                 words.size() * sizeof(uint64_t))));
  }
};
} // namespace

LogicalResult KernelFormer::run(const LazyGraph &g, const NodeSet &realizes,
                                ArrayRef<std::vector<NodeId>> groups,
                                bool report) {
  std::vector<ScheduleItem> items;
  items.reserve(groups.size()); // a ScheduleItem's move may copy
  // Each item is planned right after it is lowered, while its AST is in
  // cache. Each distinct kernel is built once, by the first item that
  // needs it; later items with the same plan launch that one and drop
  // their AST at once, so that the next item reuses its memory.
  GroupLowering lowering(g, realizes, readModuleFlags(func).useCopyKernel);
  // One plan per distinct kernel (a deque: the index keys point into the
  // plans), the item that first needs it, and each kernel item's kernel.
  std::deque<KernelPlan> plans;
  std::vector<size_t> firstUses;
  std::vector<size_t> kernelOf(groups.size(), SIZE_MAX);
  llvm::DenseMap<ArrayRef<uint64_t>, size_t, WordsInfo> planIndex;
  // A group described like an earlier one (GroupLowering::describe)
  // launches that one's kernel on its own buffers without being lowered:
  // a training step's layers repeat the same groups over other weights.
  std::deque<SmallVector<uint64_t, 0>> descriptions; // owns the map's keys
  // Each description's kernel, and what its lowering found computed
  // otherwise than the graph says (see warnMiscomputed).
  using Miscompute = ScheduleItem::Miscompute;
  using DescribedKernel = std::pair<size_t, std::optional<Miscompute>>;
  llvm::DenseMap<ArrayRef<uint64_t>, DescribedKernel, WordsInfo>
      kernelOfDescription;
  planIndex.reserve(groups.size());
  kernelOfDescription.reserve(groups.size());
  SmallVector<uint64_t, 0> description;
  std::vector<NodeId> describedInputs;
  unsigned lowered = 0, repeats = 0; // kernel groups, for the report
  // Per kernel: outputs that assign in an order-dependent way (equal
  // descriptions and equal plans share them).
  std::vector<SmallVector<unsigned>> orderDependent;
  auto warnOrderDependent = [&](ArrayRef<NodeId> group, size_t kernel) {
    for (unsigned position : orderDependent[kernel])
      if (Operation *op = g.node(group[position]).op)
        op->emitWarning()
            << "'" << op->getName()
            << "' op writes its target through a view other than the one the "
               "kernel reads it through: an element can be read after it "
               "was overwritten, so the result depends on the order the "
               "kernel runs in (tinygrad 0.9.2 schedules this too); read "
               "the target through .contiguous() to use its old values";
  };
  // Reduces tinygrad's kernels compute otherwise than the graph says
  // (ScheduleItem::Miscompute). The schedule stays tinygrad's; the warning
  // is at the reduce when this group was lowered, else at the group's
  // first output.
  auto warnMiscomputed = [&](ArrayRef<NodeId> group, NodeId reduce,
                             Miscompute kind) {
    Operation *op = g.node(reduce >= 0 ? reduce : group.front()).op;
    if (!op)
      return;
    InFlightDiagnostic warning = op->emitWarning();
    if (reduce < 0)
      warning << "'" << op->getName() << "' op is computed by a kernel "
              << "where a reduce";
    else
      warning << "'" << op->getName() << "' op";
    if (kind == Miscompute::RenumberedMerge)
      warning << " is merged into the reduce it reads (fuse-conv-bw) "
                 "through a reshape that renumbers the reduced axes, so the "
                 "kernel sums other elements than the graph says (tinygrad "
                 "0.9.2 computes the same); turn fuse-conv-bw off, or keep "
                 "the inner reduce's dims (keepdim) so that the axes keep "
                 "their numbers";
    else
      warning << " is read through a padded view that the kernel moves "
                 "into the reduce's input, where an op that is not zero on "
                 "zeros (recip, log2, exp2 or idiv) then runs in the "
                 "padding: the padded elements do not read as 0 (recip(0) "
                 "is inf, log2(0) -inf, exp2(0) 1, an idiv divides by zero; "
                 "tinygrad 0.9.2 computes the same); realize the reduce "
                 "first (.contiguous())";
  };
  for (const std::vector<NodeId> &group : groups) {
    // A meta op no kernel computes (a buffer_view, EMPTY, CUSTOM) is its
    // own schedule item; a reduce's multi-output group can still take one
    // in (found by
    // scripts/fuzz_compare.py: x.sum() / ... then .bitcast(), next to
    // another output of the sum). tinygrad 0.9.2 schedules that kernel
    // and then fails to run it: the meta op's buffer is never allocated.
    // A COPY too (seed 913248: a log_softmax sent to another device and
    // back, grouped with the sum it reads): tinygrad puts the copy inside
    // the kernel's AST, which no device can run, and here reports a cycle.
    if (group.size() > 1)
      for (NodeId id : group) {
        NodeOp kind = g.node(id).kind;
        if (kind != NodeOp::Copy && kind != NodeOp::BufferView &&
            kind != NodeOp::Empty && kind != NodeOp::Custom)
          continue;
        return g.node(id).op->emitOpError()
               << "is grouped into one kernel with " << group.size() - 1
               << " other output(s), but no kernel computes it: tinygrad "
               << "0.9.2 schedules this too"
               << (kind == NodeOp::Copy
                       ? ", as a copy inside the kernel that no device runs"
                       : " and then cannot run it (the op's buffer is never "
                         "allocated)")
               << "; realize its source first, or schedule without "
                  "multi-output";
      }
    size_t i = items.size();
    // A copy of the description joins the map at once (one hash of it): a
    // repeat drops the copy, a new one gets its kernel below.
    DescribedKernel *kernelOfThis = nullptr;
    if (lowering.describe(group, description, describedInputs)) {
      descriptions.push_back(description);
      auto [known, isNew] = kernelOfDescription.try_emplace(
          descriptions.back(), DescribedKernel{SIZE_MAX, std::nullopt});
      if (!isNew) {
        descriptions.pop_back();
        ScheduleItem &item = items.emplace_back();
        item.outputs = group;
        item.inputs = describedInputs;
        kernelOf[i] = known->second.first;
        warnOrderDependent(group, kernelOf[i]);
        if (known->second.second)
          warnMiscomputed(group, -1, *known->second.second);
        ++repeats;
        continue;
      }
      kernelOfThis = &known->second;
    }
    FailureOr<ScheduleItem> loweredItem = lowering.lower(group);
    if (failed(loweredItem))
      return failure();
    items.push_back(std::move(*loweredItem));
    ScheduleItem &item = items.back();
    if (!item.isKernel) {
      // describe() leaves these out; were one described, its entry must
      // not be found by a later group.
      if (kernelOfThis) {
        kernelOfDescription.erase(descriptions.back());
        descriptions.pop_back();
      }
      continue;
    }
    ++lowered;
    if (item.miscomputed)
      warnMiscomputed(group, item.miscomputed->reduce, item.miscomputed->kind);
    KernelPlan plan = planKernel(g, item);
    auto known = planIndex.find(plan.key);
    if (known != planIndex.end()) {
      kernelOf[i] = known->second;
      lowering.recycle(item);
    } else {
      kernelOf[i] = plans.size();
      firstUses.push_back(i);
      orderDependent.push_back(orderDependentAssigns(g, item, plan));
      plans.push_back(std::move(plan));
      planIndex[plans.back().key] = kernelOf[i];
    }
    warnOrderDependent(group, kernelOf[i]);
    if (kernelOfThis)
      *kernelOfThis = {kernelOf[i], item.miscomputed
                                        ? std::optional(item.miscomputed->kind)
                                        : std::nullopt};
  }

  for (auto [i, item] : llvm::enumerate(items)) {
    if (kernelOf[i] == SIZE_MAX)
      continue;
    size_t k = kernelOf[i];
    for (unsigned position : aliasedAssignReads(g, item.outputs, item.inputs,
                                                items[firstUses[k]], plans[k]))
      if (Operation *op = g.node(item.outputs[position]).op)
        op->emitWarning()
            << "'" << op->getName()
            << "' op reads its target through a buffer_view, which shares "
               "its memory, in another order than it writes it: an element "
               "can be read after it was overwritten, so the result depends "
               "on the order the kernel runs in (tinygrad 0.9.2 schedules "
               "this too; its contiguity check does not see the alias); "
               "read the target through .contiguous() to use its old values";
  }

  if (report)
    func.emitRemark() << items.size() << " items, " << plans.size()
                      << " distinct kernels: " << lowered
                      << " groups lowered, " << repeats
                      << " launched an earlier group's kernel unlowered";

  // Kernels are built in parallel (when the context allows threads), each
  // detached, then inserted before the function in order of first use:
  // the same module as building them one by one.
  prepareKernelAttrs(g, items, plans, firstUses);
  std::vector<KernelOp> kernels(plans.size());
  std::vector<std::string> names(plans.size());
  for (std::string &name : names)
    name = (func.getSymName() + "_k" + Twine(kernelCounter++)).str();
  (void)failableParallelForEachN(
      func.getContext(), 0, plans.size(), [&](size_t k) {
        kernels[k] =
            emitKernel(g, items[firstUses[k]], plans[k], names[k]);
        return success();
      });
  for (KernelOp kernel : kernels)
    module.getBody()->getOperations().insert(Block::iterator(func), kernel);

  // Buffers Python still references after scheduling (tinygrad's
  // lb_refcount > 0), which the memory planner must not reuse: nodes marked
  // `lazy.external` (held from outside the graph) and what they keep alive,
  // their bases and, for nodes this schedule does not realize (tinygrad
  // drops the sources of those it does), their sources.
  std::vector<char> external(g.size(), 0);
  {
    SmallVector<NodeId> stack;
    for (NodeId id = 0; id < NodeId(g.size()); ++id)
      if (g.node(id).external)
        stack.push_back(id);
    while (!stack.empty()) {
      NodeId id = stack.pop_back_val();
      if (external[id])
        continue;
      external[id] = 1;
      const LazyNode &n = g.node(id);
      if (!n.isBase())
        stack.push_back(n.base);
      else if (!n.isRealized() && !realizes.contains(id))
        stack.append(n.srcs.begin(), n.srcs.end());
    }
  }

  MLIRContext *ctx = func.getContext();
  Block &oldBody = func.getBody().front();
  Location loc = func.getLoc();

  // The new body: buffer arguments, one lazy.schedule, a return. It joins
  // the function's region now and replaces the old body at the end.
  Block *body = new Block();
  func.getBody().push_back(body);
  std::vector<Value> bufferOf(g.size()); // by node, once produced
  for (BlockArgument arg : oldBody.getArguments()) {
    NodeId id = g.idOf(arg);
    bufferOf[id] = body->addArgument(bufferType(g, id), arg.getLoc());
  }
  SmallVector<Type> resultTypes;
  for (NodeId out : g.outputs())
    resultTypes.push_back(bufferType(g, g.baseOf(out)));

  OpBuilder b = OpBuilder::atBlockEnd(body);
  auto schedule = ScheduleOp::create(b, loc, resultTypes);
  Block *items_block = new Block();
  schedule.getBody().push_back(items_block);
  OpBuilder sb = OpBuilder::atBlockEnd(items_block);

  // Thousands of allocations and launches: their op names are resolved
  // once, not looked up by string for each op, and each kernel's symbol
  // reference is made once.
  OperationName allocName(AllocOp::getOperationName(), ctx);
  OperationName launchName(LaunchOp::getOperationName(), ctx);
  auto noAttrs = DictionaryAttr::get(ctx);
  // With record-nodes, an allocation made for a node carries its position
  // too, so that the owner of a buffer the memory planner shares is known.
  auto createAlloc = [&](OpBuilder &at, Location allocLoc, BufferType type,
                         NodeId owner) {
    auto alloc = cast<AllocOp>(appendOp<AllocOp::Properties>(
        at, allocName, allocLoc, type, {}, nullptr, noAttrs));
    if (nodePositions && g.node(owner).op)
      alloc->setAttr(LazyDialect::kNodesAttrName,
                     DenseI64ArrayAttr::get(
                         ctx, {nodePositions->lookup(g.node(owner).op)}));
    return alloc;
  };
  std::vector<FlatSymbolRefAttr> kernelRefs;
  for (KernelOp kernel : kernels)
    kernelRefs.push_back(SymbolRefAttr::get(kernel));

  // An item may read a buffer a later item produces (the region is a
  // graph): such reads go through placeholders replaced at the end.
  std::vector<Value> placeholderOf(g.size());
  std::vector<NodeId> placeheld; // in order of creation
  auto valueOf = [&](NodeId id) -> Value {
    if (Value v = bufferOf[id])
      return v;
    Value &p = placeholderOf[id];
    if (!p) {
      placeheld.push_back(id);
      OpBuilder pb = OpBuilder::atBlockBegin(items_block);
      p = createAlloc(pb, loc, bufferType(g, id), id);
    }
    return p;
  };

  for (auto [index, item] : llvm::enumerate(items)) {
    const LazyNode &first = g.node(item.outputs.front());
    Location itemLoc = first.op->getLoc();
    SmallVector<Value> outs, ins;
    for (NodeId out : item.outputs) {
      const LazyNode &n = g.node(out);
      if (n.kind == NodeOp::Assign) {
        outs.push_back(bufferOf[n.srcs[1]]); // writes its target
      } else if (n.kind == NodeOp::BufferView) {
        // MetaOps.VIEW: a sub-buffer of its source's buffer at the source
        // view's offset.
        const LazyNode &src = g.node(n.srcs[0]);
        int64_t offset =
            g.tracker(n.srcs[0]).views.front().offset * src.itemSize;
        outs.push_back(SubAllocOp::create(
            sb, n.op->getLoc(), bufferType(g, out), valueOf(src.base),
            sb.getI64IntegerAttr(offset)));
      } else {
        auto alloc = createAlloc(sb, n.op->getLoc(), bufferType(g, out), out);
        if (external[out])
          alloc->setAttr(LazyDialect::kExternalAttrName, sb.getUnitAttr());
        outs.push_back(alloc);
      }
    }
    for (NodeId in : item.inputs)
      ins.push_back(valueOf(in));
    Operation *op;
    if (item.isKernel) {
      LaunchOp::Properties props;
      props.kernel = kernelRefs[kernelOf[index]];
      props.num_outs = int64_t(outs.size());
      SmallVector<Value> operands(outs);
      operands.append(ins);
      op = appendOp(sb, launchName, itemLoc, ValueRange(outs).getTypes(),
                    operands, &props, noAttrs);
    } else {
      StringRef kind;
      Attribute arg;
      IntegerAttr seed;
      switch (first.kind) {
      case NodeOp::Copy: {
        kind = "copy";
        const LazyNode &src = g.node(first.srcs[0]);
        arg = sb.getI64IntegerAttr(src.size * src.itemSize); // nbytes
        break;
      }
      case NodeOp::Custom:
        kind = "custom";
        arg = cast<CustomOp>(first.op).getCalleeAttr();
        seed = cast<CustomOp>(first.op).getSeedAttr();
        break;
      case NodeOp::Empty:
        kind = "empty";
        break;
      default:
        kind = "view";
        break;
      }
      auto ext = ExtOp::create(sb, itemLoc, sb.getStringAttr(kind), outs, ins,
                               arg, seed);
      op = ext;
    }
    if (nodePositions) {
      SmallVector<int64_t> positions;
      for (NodeId out : item.outputs)
        positions.push_back(nodePositions->lookup(g.node(out).op));
      op->setAttr(LazyDialect::kNodesAttrName,
                  DenseI64ArrayAttr::get(ctx, positions));
    }
    for (auto [out, result] : llvm::zip(item.outputs, op->getResults()))
      bufferOf[out] = result;
  }

  // An output no item produces (a const, or a buffer scheduled earlier)
  // is returned as a buffer that nothing writes, as in tinygrad.
  SmallVector<Value> yielded;
  for (NodeId out : g.outputs()) {
    NodeId base = g.baseOf(out);
    Value v = bufferOf[base];
    if (!v) {
      v = createAlloc(sb, g.node(base).op->getLoc(), bufferType(g, base),
                      base);
      bufferOf[base] = v;
    }
    yielded.push_back(v);
  }
  YieldOp::create(sb, loc, yielded);
  for (NodeId id : placeheld) {
    Value placeholder = placeholderOf[id];
    Value real = bufferOf[id];
    if (!real && g.node(id).seen) {
      // An earlier schedule produces it (tinygrad's `seen`): the kernel
      // reads that buffer, which the `seen` set keeps referenced, so the
      // memory planner leaves it alone.
      Operation *alloc = placeholder.getDefiningOp();
      alloc->setAttr(LazyDialect::kExternalAttrName, UnitAttr::get(ctx));
      alloc->setLoc(g.node(id).op->getLoc());
      continue;
    }
    if (!real)
      return g.node(id).op->emitOpError(
          "is read by a kernel but no schedule item produces it");
    placeholder.replaceAllUsesWith(real);
    placeholder.getDefiningOp()->erase();
  }
  func::ReturnOp::create(b, loc, schedule.getResults());

  // Results that are views of their buffer keep the view.
  SmallVector<Attribute> resultAttrs;
  for (NodeId out : g.outputs()) {
    NamedAttrList attrs;
    if (!g.node(out).isBase())
      attrs.set(LazyDialect::kResultViewAttrName,
                ShapeTrackerAttr::get(ctx, g.tracker(out)));
    resultAttrs.push_back(attrs.getDictionary(ctx));
  }

  // Swap in the new body and signature.
  SmallVector<Type> argTypes(body->getArgumentTypes());
  // Nothing outside the old body uses its values, and erasing a block
  // drops every reference within it before deleting its ops.
  oldBody.erase();
  func.setFunctionType(FunctionType::get(ctx, argTypes, resultTypes));
  func.setAllResultAttrs(resultAttrs);
  return success();
}

struct LazyFormKernels final
    : mlir::lazy::impl::LazyFormKernelsBase<LazyFormKernels> {
  using LazyFormKernelsBase::LazyFormKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Graph-level functions: tensors in and out, no schedule yet.
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (isGraphFunction(func))
        funcs.push_back(func);
    // Deciding here, every function is built and walked before any is
    // lowered, as lazy-mark-realize walks them all before lazy-form-kernels
    // runs: the same error comes first. With fold-views, a function not in
    // LazyBuffer form is folded first, as lazy-fold-views would; one already
    // folded (what the exporter writes) is only checked, while the graph is
    // built.
    // Positions are taken before folding, which erases movement ops.
    std::vector<llvm::DenseMap<Operation *, int64_t>> positions;
    if (recordNodes)
      for (func::FuncOp func : funcs)
        positions.push_back(opPositions(func));
    std::vector<std::pair<LazyGraph, GraphWalk>> decided;
    if (decide)
      for (func::FuncOp func : funcs) {
        bool notFolded = false;
        FailureOr<LazyGraph> graph =
            LazyGraph::build(func, foldViewsFirst ? &notFolded : nullptr);
        if (failed(graph) && notFolded) {
          foldViews(func);
          graph = LazyGraph::build(func);
        }
        if (failed(graph))
          return signalPassFailure();
        FailureOr<GraphWalk> walk = walkGraph(*graph);
        if (failed(walk))
          return signalPassFailure();
        decided.emplace_back(std::move(*graph), std::move(*walk));
      }
    unsigned counter = 0;
    for (auto [index, func] : llvm::enumerate(funcs))
      if (failed(decide ? formDecided(func, decided[index].first,
                                      decided[index].second, counter,
                                      positionsOf(positions, index))
                        : formKernels(func, counter,
                                      positionsOf(positions, index))))
        return signalPassFailure();
  }

  static llvm::DenseMap<Operation *, int64_t> opPositions(func::FuncOp func) {
    llvm::DenseMap<Operation *, int64_t> positions;
    int64_t position = 0;
    for (Operation &op : func.getBody().front())
      positions[&op] = position++;
    return positions;
  }

  static llvm::DenseMap<Operation *, int64_t> *
  positionsOf(std::vector<llvm::DenseMap<Operation *, int64_t>> &positions,
              size_t index) {
    return index < positions.size() ? &positions[index] : nullptr;
  }

  /// lazy-mark-realize's decision, then lazy-group's, then the kernels.
  LogicalResult formDecided(func::FuncOp func, const LazyGraph &graph,
                            const GraphWalk &walk, unsigned &counter,
                            llvm::DenseMap<Operation *, int64_t> *positions) {
    KernelFormer former(getOperation(), func, counter);
    if (positions)
      former.recordNodes(std::move(*positions));
    ScheduleFlags flags =
        scheduleFlags(func, multiOutput, fuseConvBw, fuseArange);
    NodeSet realizes = computeRealizes(graph, walk);
    Grouping grouping = computeGroups(graph, walk, std::move(realizes), flags);
    std::vector<char> grouped(graph.size(), 0);
    for (const std::vector<NodeId> &group : grouping.outputGroups)
      for (NodeId id : group)
        grouped[id] = 1;
    if (failed(checkOutputsGrouped(graph, grouped)))
      return failure();
    return former.run(graph, grouping.realizes, grouping.outputGroups, report);
  }

  LogicalResult formKernels(func::FuncOp func, unsigned &counter,
                            llvm::DenseMap<Operation *, int64_t> *positions) {
    KernelFormer former(getOperation(), func, counter);
    if (positions)
      former.recordNodes(std::move(*positions));
    // The graph lazy-mark-realize built, when the pass manager still holds
    // it; otherwise it is built here.
    const LazyGraph *graph = nullptr;
    if (auto analysis = getCachedChildAnalysis<ScheduleGraphAnalysis>(func))
      if (analysis->get().valid())
        graph = &*analysis->get().graph;
    FailureOr<LazyGraph> built = failure();
    if (!graph) {
      built = LazyGraph::build(func);
      if (failed(built))
        return failure();
      graph = &*built;
    }
    NodeSet realizes;
    std::vector<std::vector<NodeId>> groups;
    if (failed(collectGroups(*graph, realizes, groups)))
      return failure();
    return former.run(*graph, realizes, groups, report);
  }
};

} // namespace
