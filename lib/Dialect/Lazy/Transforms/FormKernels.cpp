//===- FormKernels.cpp - materialize a schedule plan ----------------------===//
//
// lazy-form-kernels: turns the schedule analysis's plan (planSchedule in
// ScheduleAnalysis.h, the scheduler's one decider) into IR; it decides
// nothing itself, and reads no marks (lazy-mark-realize's and lazy-group's
// marks are a printout of the same plan). Rules:
//   - each group becomes one item of an unordered lazy.schedule, in group
//     order, which lazy-toposort orders: a lazy.ext for copy, custom, empty
//     and buffer_view groups (a custom item keeps its callee and seed), a
//     lazy.launch of a lazy.kernel for the others, whose AST KernelAst.h
//     builds (tinygrad's _lower_lazybuffer);
//   - kernels are shared between items as KernelDedup.cpp says, built
//     detached on the context's threads, and inserted in order of first use
//     named `<function>_k<N>`;
//   - warnings from the AST: assigns whose result depends on the kernel's
//     loop order (AssignHazards.cpp), reduces computed otherwise than the
//     graph says (DoubleReduceMerge.cpp, UnsafePads.cpp);
//   - arguments and results become buffers, a result that is a view keeps
//     it as `lazy.result_view`; buffers held from outside the graph are
//     marked `lazy.external` for the memory planner.
// With `fold-views`, a function not yet in LazyBuffer form is first folded
// by lazy-fold-views' rules.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/KernelDedup.h"
#include "lazy/Dialect/Lazy/Analysis/LaunchTraffic.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Dialect/Lazy/Transforms/Passes.h"
#include "lazy/Support/PassOptionHints.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Threading.h"

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
                         dyn_cast_or_null<DeviceAttr>(deviceOf(type)));
}

/// The kernel tensor type of a value of tracker `id`'s shape: a symbolic
/// shape keeps its (unbound) Variables in a #lazy.sym_shape.
RankedTensorType kernelTensorOf(const st::TrackerPool &pool, st::TrackerId id,
                                Type elementType) {
  if (pool.isSymbolic(id)) {
    st::SymShape dims = st::unbindShape(pool.symShape(id));
    if (llvm::any_of(dims, [](const st::SInt &d) { return d.isNode(); }))
      return RankedTensorType::get(
          pool.shape(id), elementType,
          SymShapeAttr::get(elementType.getContext(), dims, DeviceAttr()));
  }
  return RankedTensorType::get(pool.shape(id), elementType);
}

RankedTensorType kernelTensor(ArrayRef<int64_t> shape, Type elementType) {
  return RankedTensorType::get(shape, elementType);
}

/// The items of a schedule and their kernels, before any IR is built.
struct FormedItems {
  explicit FormedItems(size_t groups)
      : dedup(groups), kernelOf(groups, SIZE_MAX) {
    items.reserve(groups); // a ScheduleItem's move may copy
  }
  std::vector<ScheduleItem> items;
  KernelDedup dedup; // the distinct kernels' plans
  /// Per item: its kernel (an index into dedup.plans()), SIZE_MAX for EXT.
  std::vector<size_t> kernelOf;
  /// Per kernel: the item that first needs it (whose AST it is built from).
  std::vector<size_t> firstUses;
  unsigned built = 0, repeats = 0; // kernel groups built or repeated
};

class KernelFormer {
public:
  KernelFormer(ModuleOp module, func::FuncOp func, const ScheduleFlags &flags,
               unsigned &kernelCounter)
      : module(module), func(func), flags(flags), kernelCounter(kernelCounter),
        bodyOps(module.getContext()) {}

  /// What one function's schedule holds: the figures of the pass's
  /// statistics and of its report.
  struct Figures {
    int64_t items = 0, kernels = 0, launches = 0, opsFused = 0, bytes = 0;
    unsigned built = 0, repeats = 0;
    RealizeReasons realizes;
  };

  /// Replaces the body of `func` (whose graph `g` is) by the schedule of
  /// `plan`, and says what it holds in `figures`.
  LogicalResult run(const LazyGraph &g, const SchedulePlan &plan,
                    Figures &figures);

  /// With positions (record-nodes), each launch and ext gets `lazy.nodes`:
  /// the position of each output's graph op.
  void recordNodes(llvm::DenseMap<Operation *, int64_t> positions) {
    nodePositions = std::move(positions);
  }

private:
  /// Builds each group's AST (or launches an earlier group's kernel),
  /// plans the distinct kernels and warns about their hazards.
  LogicalResult formItems(const LazyGraph &g, const SchedulePlan &plan,
                          FormedItems &formed);
  /// Builds the distinct kernels on the context's threads and inserts them
  /// before the function in order of first use.
  std::vector<KernelOp> emitKernels(const LazyGraph &g,
                                    const FormedItems &formed);
  /// Replaces the function's body by the lazy.schedule of the items.
  FailureOr<ScheduleOp> emitSchedule(const LazyGraph &g,
                                     const NodeSet &realizes,
                                     const FormedItems &formed,
                                     ArrayRef<KernelOp> kernels);

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
  const ScheduleFlags &flags;
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

void KernelFormer::prepareKernelAttrs(const LazyGraph &g,
                                      ArrayRef<ScheduleItem> items,
                                      const std::deque<KernelPlan> &plans,
                                      ArrayRef<size_t> firstUses) {
  MLIRContext *ctx = func.getContext();
  st::TrackerPool &pool = g.trackers();
  // A kernel reads and writes through unbound Variables (tinygrad's
  // st.unbind()): one kernel serves every value; the values go to the
  // launch.
  auto addTracker = [&](st::TrackerId id) {
    ShapeTrackerAttr &attr = trackerAttrs[id];
    if (!attr)
      attr = pool.isSymbolic(id)
                 ? ShapeTrackerAttr::get(
                       ctx, st::unbindOrKeep(pool.getSym(id)).first)
                 : ShapeTrackerAttr::get(ctx, pool.get(id));
  };
  for (auto [k, plan] : llvm::enumerate(plans)) {
    const ScheduleItem &item = items[firstUses[k]];
    for (int32_t op : plan.ops) {
      const AstNode &node = item.nodes[op];
      if (node.kind == AstNode::Kind::Load ||
          node.kind == AstNode::Kind::Const || node.kind == AstNode::Kind::View)
        addTracker(node.view);
      RankedTensorType &type =
          tensorTypes[{node.shaped, elementTypeOf(g, node)}];
      if (!type)
        type = kernelTensorOf(pool, node.shaped, elementTypeOf(g, node));
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

/// A const's value in a kernel: a Variable unbound (its value goes to the
/// launch, as tinygrad's ConstBuffer holds the unbound Variable).
static TypedAttr kernelConstValue(TypedAttr value) {
  auto sym = dyn_cast<SymIntAttr>(value);
  if (!sym)
    return value;
  st::SInt unbound = st::unbindShape({sym.getValue()}).front();
  return SymIntAttr::get(value.getContext(), unbound, sym.getType());
}

/// Whether a graph holds a Variable: in a tracker or a const.
static bool hasVariables(const LazyGraph &g) {
  if (g.trackers().anySymbolic())
    return true;
  for (NodeId id = 0; id < NodeId(g.size()); ++id)
    if (g.node(id).kind == NodeOp::Const &&
        isa<SymIntAttr>(cast<ConstOp>(g.node(id).op).getValue()))
      return true;
  return false;
}

/// The values of the Variables a kernel item reads and writes through
/// (tinygrad's var_vals: its stores', loads' and consts' trackers and its
/// outputs' shapes, unbound), keyed by the unbound Variable
/// (`start_pos[1:8]`); null when there are none.
static DictionaryAttr varValuesOf(const LazyGraph &g,
                                  const ScheduleItem &item) {
  const st::TrackerPool &pool = g.trackers();
  // verifyVariableBindings has checked that every Variable is bound, with
  // one value: its unbound key takes its bound value.
  st::VarVals values;
  auto addVariable = [&](const st::sym::NodeP &var) {
    if (var->bound)
      values.emplace(st::sym::unboundVar(var)->key(), *var->bound);
  };
  auto add = [&](st::TrackerId id) {
    if (pool.isSymbolic(id))
      for (auto &entry : pool.getSym(id).vars())
        addVariable(entry.second);
  };
  for (const AstNode &node : item.nodes) {
    if (node.kind == AstNode::Kind::Load || node.kind == AstNode::Kind::Const ||
        node.kind == AstNode::Kind::View)
      add(node.view);
    // A const of a Variable (a ConstBuffer of the unbound Variable).
    if (node.kind == AstNode::Kind::Const)
      if (auto sym = dyn_cast<SymIntAttr>(
              cast<ConstOp>(g.node(node.source).op).getValue()))
        addVariable(sym.getValue().getNode());
  }
  for (auto &store : item.stores)
    add(store.second);
  for (NodeId out : item.outputs)
    add(g.node(out).tracker);
  if (values.empty())
    return {};
  MLIRContext *ctx = g.function().getContext();
  SmallVector<NamedAttribute> entries;
  for (auto &[key, value] : values)
    entries.push_back(
        NamedAttribute(StringAttr::get(ctx, st::variableText(key)),
                       IntegerAttr::get(IntegerType::get(ctx, 64), value)));
  return DictionaryAttr::get(ctx, entries);
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
    kernel.setMetadataAttr(moduleBuilder.getArrayAttr(
        SmallVector<Attribute>(plan.metadata.begin(), plan.metadata.end())));

  Block *body = new Block();
  kernel.getBody().push_back(body);
  for (Type t : plan.argTypes)
    body->addArgument(t, loc);
  OpBuilder b = OpBuilder::atBlockEnd(body);

  if (item.copyBytes) {
    auto bytes = RankedTensorType::get(
        {item.copyBytes}, IntegerType::get(ctx, 8, IntegerType::Unsigned));
    auto view = ShapeTrackerAttr::get(
        ctx, st::ShapeTracker::fromShape({item.copyBytes}));
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
      values[i] =
          appendOp(b, bodyOps.load, nodeLoc, typeOf(node.shaped, elementType),
                   body->getArgument(node.buffer), &props, noAttrs)
              ->getResult(0);
      break;
    }
    case AstNode::Kind::Const: {
      ConstOp::Properties constProps;
      constProps.value = kernelConstValue(cast<ConstOp>(src.op).getValue());
      Value c = appendOp(b, bodyOps.constant, nodeLoc,
                         kernelTensor(src.shape(), elementType), {},
                         &constProps, noAttrs)
                    ->getResult(0);
      ViewOp::Properties viewProps;
      viewProps.tracker = trackerAttr(node.view);
      values[i] =
          appendOp(b, bodyOps.view, nodeLoc, typeOf(node.shaped, elementType),
                   c, &viewProps, noAttrs)
              ->getResult(0);
      break;
    }
    case AstNode::Kind::View: {
      ViewOp::Properties viewProps;
      viewProps.tracker = trackerAttr(node.view);
      values[i] =
          appendOp(b, bodyOps.view, nodeLoc, typeOf(node.shaped, elementType),
                   values[plan.opOf[node.srcs()[0]]], &viewProps, noAttrs)
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
        values[i] = appendOp(b, bodyOps.reduceSum, nodeLoc, type, input, &props,
                             noAttrs)
                        ->getResult(0);
      } else {
        ReduceMaxOp::Properties props;
        props.axes = axes;
        values[i] = appendOp(b, bodyOps.reduceMax, nodeLoc, type, input, &props,
                             noAttrs)
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

LogicalResult KernelFormer::formItems(const LazyGraph &g,
                                      const SchedulePlan &plan,
                                      FormedItems &formed) {
  const NodeSet &realizes = plan.realizes;
  ArrayRef<std::vector<NodeId>> groups = plan.outputGroups;
  std::vector<ScheduleItem> &items = formed.items;
  // Each item is planned right after its AST is built, while the AST is in
  // cache. Each distinct kernel is built once, by the first item that
  // needs it; later items with the same plan launch that one and drop
  // their AST at once, so that the next item reuses its memory.
  KernelAstBuilder builder(g, realizes, flags.useCopyKernel, &plan.rowValues);
  KernelDedup &dedup = formed.dedup;
  std::vector<size_t> &firstUses = formed.firstUses;
  std::vector<size_t> &kernelOf = formed.kernelOf;
  std::vector<NodeId> describedInputs;
  unsigned &built = formed.built, &repeats = formed.repeats;
  // Per kernel: outputs that assign in an order-dependent way (equal
  // descriptions and equal plans share them).
  std::vector<SmallVector<unsigned>> orderDependent;
  auto warnOrderDependent = [&](ArrayRef<NodeId> group, size_t kernel) {
    for (unsigned position : orderDependent[kernel])
      if (Operation *op = g.node(group[position]).op)
        op->emitWarning() << "'" << op->getName() << "'"
                          << orderDependentAssignWarning();
  };
  // Reduces tinygrad's kernels compute otherwise than the graph says
  // (ScheduleItem::Miscompute). The schedule stays tinygrad's; the warning
  // is at the reduce when this group's AST was built, else at the group's
  // first output.
  auto warnMiscomputed = [&](ArrayRef<NodeId> group, NodeId reduce,
                             ScheduleItem::Miscompute kind) {
    Operation *op = g.node(reduce >= 0 ? reduce : group.front()).op;
    if (!op)
      return;
    InFlightDiagnostic warning = op->emitWarning();
    if (reduce < 0)
      warning << "'" << op->getName() << "' op is computed by a kernel "
              << "where a reduce";
    else
      warning << "'" << op->getName() << "' op";
    warning << miscomputeWarning(kind);
  };
  for (const std::vector<NodeId> &group : groups) {
    if (failed(checkGroupComputable(g, group)))
      return failure();
    size_t i = items.size();
    if (const KernelDedup::Described *known =
            dedup.findDescribed(builder, group, describedInputs)) {
      ScheduleItem &item = items.emplace_back();
      item.outputs = group;
      item.inputs = describedInputs;
      kernelOf[i] = known->kernel;
      warnOrderDependent(group, kernelOf[i]);
      if (known->miscompute)
        warnMiscomputed(group, -1, *known->miscompute);
      ++repeats;
      continue;
    }
    FailureOr<ScheduleItem> builtItem = builder.build(group);
    if (failed(builtItem))
      return failure();
    items.push_back(std::move(*builtItem));
    ScheduleItem &item = items.back();
    if (!item.isKernel) {
      dedup.dropDescription();
      continue;
    }
    ++built;
    if (item.miscomputed)
      warnMiscomputed(group, item.miscomputed->reduce, item.miscomputed->kind);
    KernelPlan kernelPlan =
        planKernel(g, item, [&](NodeId id) { return bufferType(g, id); });
    auto [kernel, isNew] = dedup.addPlan(std::move(kernelPlan));
    kernelOf[i] = kernel;
    if (isNew) {
      firstUses.push_back(i);
      orderDependent.push_back(
          orderDependentAssigns(g, item, dedup.plans().back().ops));
    } else {
      builder.recycle(item);
    }
    warnOrderDependent(group, kernelOf[i]);
    dedup.settleDescription(
        {kernelOf[i], item.miscomputed ? std::optional(item.miscomputed->kind)
                                       : std::nullopt});
  }
  const std::deque<KernelPlan> &plans = dedup.plans();

  for (auto [i, item] : llvm::enumerate(items)) {
    if (kernelOf[i] == SIZE_MAX)
      continue;
    size_t k = kernelOf[i];
    for (unsigned position : aliasedAssignReads(
             g, item.outputs, item.inputs, items[firstUses[k]], plans[k].ops))
      if (Operation *op = g.node(item.outputs[position]).op)
        op->emitWarning() << "'" << op->getName() << "'"
                          << aliasedAssignReadWarning();
  }
  return success();
}

std::vector<KernelOp> KernelFormer::emitKernels(const LazyGraph &g,
                                                const FormedItems &formed) {
  const std::vector<ScheduleItem> &items = formed.items;
  const std::deque<KernelPlan> &plans = formed.dedup.plans();
  ArrayRef<size_t> firstUses = formed.firstUses;
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
        kernels[k] = emitKernel(g, items[firstUses[k]], plans[k], names[k]);
        return success();
      });
  for (KernelOp kernel : kernels)
    module.getBody()->getOperations().insert(Block::iterator(func), kernel);
  return kernels;
}

/// Buffers Python still references after scheduling (tinygrad's
/// lb_refcount > 0), which the memory planner must not reuse: nodes marked
/// `lazy.external` (held from outside the graph) and what they keep alive,
/// their bases and, for nodes this schedule does not realize (tinygrad
/// drops the sources of those it does), their sources.
static std::vector<char> externalNodes(const LazyGraph &g,
                                       const NodeSet &realizes) {
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
  return external;
}

FailureOr<ScheduleOp> KernelFormer::emitSchedule(const LazyGraph &g,
                                                 const NodeSet &realizes,
                                                 const FormedItems &formed,
                                                 ArrayRef<KernelOp> kernels) {
  const std::vector<ScheduleItem> &items = formed.items;
  ArrayRef<size_t> kernelOf = formed.kernelOf;
  std::vector<char> external = externalNodes(g, realizes);
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
  const bool withVariables = hasVariables(g);
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
        if (g.trackers().isSymbolic(g.node(n.srcs[0]).tracker))
          return n.op->emitOpError("a buffer view of a symbolic view is not "
                                   "supported yet"),
                 failure();
        int64_t offset =
            g.tracker(n.srcs[0]).views.front().offset * src.itemSize;
        outs.push_back(SubAllocOp::create(sb, n.op->getLoc(),
                                          bufferType(g, out), valueOf(src.base),
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
      if (DictionaryAttr values =
              withVariables ? varValuesOf(g, item) : DictionaryAttr())
        op->setAttr(LazyDialect::kVarValuesAttrName, values);
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
      v = createAlloc(sb, g.node(base).op->getLoc(), bufferType(g, base), base);
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
    if (!real) {
      g.node(id).op->emitOpError(
          "is read by a kernel but no schedule item produces it");
      return failure();
    }
    placeholder.replaceAllUsesWith(real);
    placeholder.getDefiningOp()->erase();
  }
  func::ReturnOp::create(b, loc, schedule.getResults());

  // Results that are views of their buffer keep the view.
  SmallVector<Attribute> resultAttrs;
  for (NodeId out : g.outputs()) {
    NamedAttrList attrs;
    if (!g.node(out).isBase()) {
      st::TrackerId id = g.node(out).tracker;
      attrs.set(LazyDialect::kResultViewAttrName,
                g.trackers().isSymbolic(id)
                    ? ShapeTrackerAttr::get(ctx, g.trackers().getSym(id))
                    : ShapeTrackerAttr::get(ctx, g.tracker(out)));
    }
    resultAttrs.push_back(attrs.getDictionary(ctx));
  }

  // Swap in the new body and signature.
  SmallVector<Type> argTypes(body->getArgumentTypes());
  // Nothing outside the old body uses its values, and erasing a block
  // drops every reference within it before deleting its ops.
  oldBody.erase();
  func.setFunctionType(FunctionType::get(ctx, argTypes, resultTypes));
  func.setAllResultAttrs(resultAttrs);
  return schedule;
}

LogicalResult KernelFormer::run(const LazyGraph &g, const SchedulePlan &plan,
                                Figures &figures) {
  FormedItems formed(plan.outputGroups.size());
  if (failed(formItems(g, plan, formed)))
    return failure();
  std::vector<KernelOp> kernels = emitKernels(g, formed);
  FailureOr<ScheduleOp> schedule =
      emitSchedule(g, plan.realizes, formed, kernels);
  if (failed(schedule))
    return failure();
  Block &items = schedule->getBody().front();
  LaunchTraffic traffic = launchTraffic(items);
  figures.items = int64_t(formed.items.size());
  figures.kernels = int64_t(formed.dedup.plans().size());
  figures.built = formed.built;
  figures.repeats = formed.repeats;
  figures.launches = traffic.launches;
  figures.bytes = traffic.bytes;
  figures.realizes = countRealizeReasons(g, plan.realizes);
  // The graph ops each launch's kernel computes (its loads, stores and
  // const views aside), counted once per kernel.
  llvm::DenseMap<Attribute, int64_t> opsOf;
  SymbolTable symbols(module);
  for (auto launch : items.getOps<LaunchOp>()) {
    auto [it, inserted] = opsOf.try_emplace(launch.getKernelAttr(), 0);
    if (inserted)
      if (auto kernel = symbols.lookup<KernelOp>(launch.getKernel()))
        for (Operation &op : kernel.getBody().front())
          it->second += isFusedOp(op);
    figures.opsFused += it->second;
  }
  return success();
}

struct LazyFormKernels final
    : mlir::lazy::WithOptionHints<
          mlir::lazy::impl::LazyFormKernelsBase<LazyFormKernels>> {
  using WithOptionHints::WithOptionHints;
  friend struct mlir::lazy::ScheduleFlagOverrides; // reads the flag options

  /// What createLazyFormKernels(config, flags) sets.
  void configure(const FormKernelsConfig &config,
                 const ScheduleFlagOverrides &flags) {
    foldViewsFirst = config.foldViews;
    recordNodes = config.recordNodes;
    preset = flags;
  }

  /// Flags set by configure(); the pass's own options, when given, override
  /// them.
  ScheduleFlagOverrides preset;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Read once for the whole run.
    ScheduleFlags flags = readScheduleFlags(
        module, preset.overriddenBy(ScheduleFlagOverrides::givenIn(*this)));
    // Symbolic shapes are scheduled as tinygrad 0.9.2 does; the aggressive
    // policy takes integer shapes only. It composes views tinygrad never
    // composes, where tinygrad's symbolic comparisons ("true when it may
    // be true") give wrong masks: a cat of three Variable-sized parts
    // fused whole gets the empty mask ((i+j+k), (i+j)) for its middle one.
    if (flags.fusion != FusionPolicy::Tinygrad &&
        failed(rejectSymbolicShapes(module,
                                    "lazy-form-kernels{fusion=aggressive}")))
      return signalPassFailure();
    // Graph-level functions: tensors in and out, no schedule yet.
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (isGraphFunction(func))
        funcs.push_back(func);
    for (func::FuncOp func : funcs)
      if (failed(verifyVariableBindings(func)))
        return signalPassFailure();
    // Positions are taken before folding, which erases movement ops.
    std::vector<llvm::DenseMap<Operation *, int64_t>> positions;
    if (recordNodes)
      for (func::FuncOp func : funcs)
        positions.push_back(opPositions(func));
    // Every function is built and walked before any is formed, so that a
    // walk error comes before any lowering error. With fold-views, a
    // function not in LazyBuffer form is folded first, as lazy-fold-views
    // would; one already folded (what the exporter writes) is only checked,
    // while the graph is built.
    std::vector<std::pair<LazyGraph, GraphWalk>> walked;
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
      walked.emplace_back(std::move(*graph), std::move(*walk));
    }
    unsigned counter = 0;
    bool onlineSums = false;
    for (auto [index, func] : llvm::enumerate(funcs)) {
      KernelFormer former(module, func, flags, counter);
      if (index < positions.size())
        former.recordNodes(std::move(positions[index]));
      const auto &[graph, walk] = walked[index];
      FailureOr<SchedulePlan> plan = planSchedule(graph, walk, flags);
      if (failed(plan) || failed(materialize(former, graph, *plan)))
        return signalPassFailure();
      onlineSums |= !plan->onlineSums.empty();
    }
    // fusion=aggressive, rule 6: the kernels it formed hold a softmax-
    // weighted sum in its four-op form; lazy-online-softmax's rewrite makes
    // it one pass.
    if (onlineSums)
      for (auto kernel : module.getOps<KernelOp>())
        rewriteOnlineSoftmax(kernel);
  }

  static llvm::DenseMap<Operation *, int64_t> opPositions(func::FuncOp func) {
    llvm::DenseMap<Operation *, int64_t> positions;
    int64_t position = 0;
    for (Operation &op : func.getBody().front())
      positions[&op] = position++;
    return positions;
  }

  /// Runs the former, then counts what it made into the statistics and,
  /// with `report`, a remark on the function.
  LogicalResult materialize(KernelFormer &former, const LazyGraph &graph,
                            const SchedulePlan &plan) {
    KernelFormer::Figures f;
    if (failed(former.run(graph, plan, f)))
      return failure();
    numItems += f.items;
    numKernels += f.kernels;
    numLaunches += f.launches;
    numOpsFused += f.opsFused;
    numBytesMoved += f.bytes;
    numRealizeOutputs += f.realizes.outputs;
    numRealizeMeta += f.realizes.metaOrForced;
    numRealizeCopies += f.realizes.copySources;
    numRealizeExpanded += f.realizes.expanded;
    numRealizeOther += f.realizes.otherRules;
    if (report)
      graph.function().emitRemark()
          << f.items << " items, " << f.kernels
          << " distinct kernels: " << f.built << " groups lowered, "
          << f.repeats << " launched an earlier group's kernel unlowered; "
          << f.launches << " launches fuse " << f.opsFused << " ops and move "
          << f.bytes << " bytes; realized: " << f.realizes.outputs
          << " outputs, " << f.realizes.metaOrForced << " meta or forced, "
          << f.realizes.copySources << " copy sources, " << f.realizes.expanded
          << " expanded, " << f.realizes.otherRules << " by later rules";
    return success();
  }
};

} // namespace

std::unique_ptr<Pass>
mlir::lazy::createLazyFormKernels(const FormKernelsConfig &config,
                                  const ScheduleFlagOverrides &flags) {
  auto pass = std::make_unique<LazyFormKernels>();
  pass->configure(config, flags);
  return pass;
}
