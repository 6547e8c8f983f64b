//===- KernelAstBuilderImpl.h - the state of building kernel ASTs -*- C++
//-*-===//
//
// Private to the analysis library: KernelAstBuilder's state, shared by the
// AST building (KernelAst.cpp) and the group descriptions kernel
// deduplication compares (KernelDedup.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_LIB_DIALECT_LAZY_ANALYSIS_KERNELASTBUILDERIMPL_H
#define LAZY_LIB_DIALECT_LAZY_ANALYSIS_KERNELASTBUILDERIMPL_H

#include "lazy/Dialect/Lazy/Analysis/KernelAst.h"
#include "lazy/Dialect/Lazy/Analysis/NodeViewMemo.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::lazy::detail {

namespace st = ::lazy::st;

struct ReduceInfo {
  st::TrackerId input;
  std::vector<int64_t> axes;
  /// Below a row value: it runs per row, apart from the kernel's own
  /// reduce space (no output view, padding or merging with it).
  bool row = false;
};

/// tinygrad's reduce_info: an insertion-ordered map.
class ReduceInfoMap {
public:
  ReduceInfo *find(const NodeView &key) {
    auto it = index.find(key.key());
    return it == index.end() ? nullptr : &entries[it->second].second;
  }
  void set(const NodeView &key, ReduceInfo value) {
    auto [it, inserted] = index.insert({key.key(), entries.size()});
    if (inserted)
      entries.push_back({key, std::move(value)});
    else
      entries[it->second].second = std::move(value);
  }
  bool empty() const { return entries.empty(); }
  void clear() {
    entries.clear();
    index.clear();
  }
  std::vector<std::pair<NodeView, ReduceInfo>> entries;

private:
  llvm::DenseMap<uint64_t, size_t> index; // NodeView::key() -> entry
};

/// tinygrad's ShapeTracker.reduce: `shape` with the dims among `axes` set
/// to 1. An axis past the rank marks nothing (it happens once a reduce is
/// reshaped to the input shape of the reduce it reads, of another rank).
inline std::vector<int64_t> reduceShape(const std::vector<int64_t> &shape,
                                        ArrayRef<int64_t> axes) {
  std::vector<int64_t> out = shape;
  for (int64_t a : axes)
    if (a >= 0 && a < int64_t(out.size()))
      out[size_t(a)] = 1;
  return out;
}

class KernelAstBuilderImpl {
public:
  bool useCopyKernel = false;

  /// The device type of a tensor type: its device (the tensor encoding,
  /// else the module's default) up to the first ':' (`CUDA:1` -> `CUDA`).
  std::string deviceType(RankedTensorType type) const {
    std::string device = "CLANG";
    if (auto attr = dyn_cast_or_null<DeviceAttr>(deviceOf(type)))
      device = attr.getName().str();
    else if (auto module = g.function()->getParentOfType<ModuleOp>())
      if (auto d = module->getAttrOfType<StringAttr>(
              LazyDialect::kDefaultDeviceAttrName))
        device = d.getValue().str();
    return device.substr(0, device.find(':'));
  }

  KernelAstBuilderImpl(const LazyGraph &g, const NodeSet &realizes,
                       const NodeSet *rowValues)
      : g(g), pool(g.trackers()), realizes(realizes), rowValues(rowValues),
        groupStamp(g.size(), 0), reduceMemo(g.size()), cache(g.size()) {}

  /// Lowers `outputs`; the tables of the previous group are cleared, not
  /// freed.
  FailureOr<ScheduleItem> run(ArrayRef<NodeId> outputs);
  /// See GroupKernelAstBuilderImpl::describe.
  bool describe(ArrayRef<NodeId> outputs, SmallVectorImpl<uint64_t> &key,
                std::vector<NodeId> &inputsOut);
  void recycle(ScheduleItem &done) {
    if (done.nodes.capacity() > spare.nodes.capacity())
      std::swap(done.nodes, spare.nodes);
    if (done.stores.capacity() > spare.stores.capacity())
      std::swap(done.stores, spare.stores);
    if (done.computed.capacity() > spare.computed.capacity())
      std::swap(done.computed, spare.computed);
    if (done.axes.capacity() > spare.axes.capacity())
      std::swap(done.axes, spare.axes);
    // Whatever the swaps left in `done` is freed (assigning `{}` would
    // keep the capacity).
    done.nodes = decltype(done.nodes)();
    done.stores = decltype(done.stores)();
    done.computed = decltype(done.computed)();
    done.axes = decltype(done.axes)();
  }

private:
  bool inGroup(NodeId n) const { return groupStamp[n] == stamp; }
  /// Marks `outputs` as the current group and maps its assign targets to
  /// their output slots.
  void enterGroup(ArrayRef<NodeId> outputs) {
    group.assign(outputs.begin(), outputs.end());
    ++stamp;
    for (NodeId out : group)
      groupStamp[out] = stamp;
    assignTargets.clear();
    for (auto [i, out] : llvm::enumerate(group))
      if (g.node(out).kind == NodeOp::Assign)
        assignTargets[g.node(out).srcs[1]] = int64_t(i);
  }
  /// Whether a group of these outputs is an EXT item (no kernel AST).
  bool isExtGroup(const LazyNode &first) const {
    return first.kind == NodeOp::Custom || first.kind == NodeOp::Copy ||
           first.kind == NodeOp::Empty || first.kind == NodeOp::BufferView;
  }
  /// A leaf: realized, or realized by another item.
  bool isLeaf(NodeId base) const {
    return g.node(base).isRealized() ||
           (realizes.contains(base) && !inGroup(base));
  }
  /// A row value read through `view` (a base and a view resolved to it)
  /// other than its own shape's identity: computed at that identity and
  /// read through the view. (A stored row value is a leaf outside its
  /// group.)
  bool readsRowValue(NodeId base, st::TrackerId view) const {
    return rowValues && rowValues->contains(base) && view != identityOf(base);
  }
  /// The identity tracker of a node's shape: a base node's own tracker is
  /// that (LazyGraph::build), a view's is asked of the pool.
  st::TrackerId identityOf(NodeId n) const {
    const LazyNode &node = g.node(n);
    if (node.isBase())
      return node.tracker;
    return hasSymbolicShape(node.type)
               ? pool.fromSymShape(symbolicShapeOf(node.type))
               : pool.fromShape(node.shape().vec());
  }
  /// The error where a view pushed into a reduce's input leaves a reduced
  /// axis past the extended rank (tinygrad's failed permute).
  LogicalResult checkExtendedRank(NodeId buf, size_t viewRank,
                                  size_t reducedRank, ArrayRef<int64_t> axes);
  InFlightDiagnostic error(NodeId n) {
    const LazyNode &node = g.node(n);
    return node.op ? node.op->emitOpError() : g.function().emitError();
  }
  /// Reshapes `tracker` or reports that tinygrad would fail here.
  FailureOr<st::TrackerId> reshape(NodeId at, st::TrackerId t,
                                   const std::vector<int64_t> &shape) {
    if (pool.shape(t) == shape)
      return t;
    // Memoized by tracker and target shape (named by its identity
    // tracker): a training step reshapes the same views again and again.
    uint64_t key = uint64_t(t) << 32 | pool.fromShape(shape);
    if (auto known = reshapeMemo.find(key); known != reshapeMemo.end())
      return known->second;
    std::string problem = st::checkReshape(pool.shape(t), shape);
    if (!problem.empty())
      return error(at) << "cannot be lowered into a kernel (tinygrad fails "
                          "here too): "
                       << problem;
    st::TrackerId result = pool.intern(pool.get(t).reshape(shape));
    reshapeMemo[key] = result;
    return result;
  }

  /// reshape() to a symbolic shape (graphs with Variables).
  FailureOr<st::TrackerId> reshapeSym(NodeId at, st::TrackerId t,
                                      const st::SymShape &shape);
  /// The shape of tracker `t` with the dims among `axes` set to 1, on
  /// sints.
  st::SymShape reduceSymShape(st::TrackerId t, ArrayRef<int64_t> axes) const {
    st::SymShape out = pool.symShape(t);
    for (int64_t a : axes)
      if (a >= 0 && a < int64_t(out.size()))
        out[size_t(a)] = 1;
    return out;
  }
  /// The identity tracker of a reduce's output: its input's shape with the
  /// reduced dims set to 1 (on sints in a graph with Variables).
  st::TrackerId reduceOutput(st::TrackerId input, ArrayRef<int64_t> axes) {
    return pool.anySymbolic()
               ? pool.fromSymShape(reduceSymShape(input, axes))
               : pool.fromShape(reduceShape(pool.shape(input), axes));
  }
  /// finishReduce's pushing of a non-contiguous output view into the
  /// reduce's input, on sints: the new input and axes.
  FailureOr<std::pair<st::TrackerId, std::vector<int64_t>>>
  pushViewIntoInputSym(NodeId buf, st::TrackerId viewId, st::TrackerId input,
                       ArrayRef<int64_t> axes);

  /// Whether base node `root` is a reduce or reads one through nodes no
  /// other item realizes. It does not depend on the group: the answers are
  /// kept, and filled only as far as the nodes asked about.
  bool reachesReduce(NodeId root);

  LogicalResult recurseReduceops(NodeId out);
  void noteMiscompute(NodeId reduce, ScheduleItem::Miscompute kind) {
    if (!item.miscomputed)
      item.miscomputed = {reduce, kind};
  }
  LogicalResult padReduces();
  FailureOr<int32_t> lowerValue(NodeId out, st::TrackerId view);
  /// Records the reduce's info; `result` becomes the reduce's (buffer,
  /// view) key, or none when it merged into the reduce below.
  LogicalResult finishReduce(NodeId buf, st::TrackerId view,
                             st::TrackerId input, std::optional<NodeView> top,
                             std::optional<NodeView> &result, bool row);
  /// A View node reading the computed node `value` of row value `base`
  /// through `view`, kept in the cache under (base, view).
  int32_t addViewNode(NodeId base, int32_t value, st::TrackerId view) {
    AstNode node;
    node.kind = AstNode::Kind::View;
    node.source = base;
    setSrcs(node, {value});
    node.view = pool.simplify(view);
    node.shaped = node.view;
    int32_t index = addNode(node);
    cache.set({base, view}, index);
    return index;
  }
  int32_t addNode(const AstNode &node) {
    nodes.push_back(node);
    return int32_t(nodes.size() - 1);
  }
  static void setSrcs(AstNode &node, ArrayRef<int32_t> srcs) {
    llvm::copy(srcs, node.srcSlots);
    node.numSrcs = uint8_t(srcs.size());
  }

  const LazyGraph &g;
  st::TrackerPool &pool;
  const NodeSet &realizes;
  const NodeSet *rowValues;
  llvm::DenseMap<uint64_t, st::TrackerId> reshapeMemo; // see reshape()
  /// By node: the stamp of the group it is an output of; `stamp` is the
  /// current group's.
  std::vector<uint32_t> groupStamp;
  uint32_t stamp = 0;
  /// reachesReduce's answers by node, filled for ids below reachFilled.
  std::vector<char> reach;
  NodeId reachFilled = 0;
  /// describe()'s walk: by node, its number in the description (valid
  /// where describedStamp equals describeEpoch), and the DFS stack of
  /// (node, next source).
  std::vector<uint32_t> describedStamp;
  std::vector<int32_t> describedAs;
  uint32_t describeEpoch = 0;
  std::vector<std::pair<NodeId, unsigned>> describeStack;
  std::vector<NodeId> group;
  llvm::DenseMap<NodeId, int64_t> assignTargets; // target -> output index
  ReduceInfoMap reduceInfo;
  /// The frames of recurseReduceops and lowerValue: one (buffer, view)
  /// call each. The stacks are members to keep their capacity.
  struct ReduceFrame {
    NodeId buf;
    st::TrackerId view;  // resolved to the base
    st::TrackerId input; // what the sources are read with
    unsigned next = 0;
    std::optional<NodeView> top;
    /// Below a row value (ReduceInfo::row); `rowRoot`: the row value itself,
    /// whose reduces its reader does not see.
    bool row = false, rowRoot = false;
  };
  /// 48 bytes: a chain of 10^5 fused ops is 10^5 frames deep.
  struct ValueFrame {
    NodeId buf;
    st::TrackerId view;    // resolved to the base
    st::TrackerId srcView; // what the sources are lowered with
    uint8_t next = 0;      // the next source to lower
    uint8_t numSrcs = 0;   // the sources lowered so far
    const ReduceInfo *rinfo = nullptr;
    /// A row value's frame read through a view (readThroughView): its
    /// reader's view, the result a View node on the value. (Tracker 0 is a
    /// real tracker, so the flag says whether there is one.)
    st::TrackerId rowView = 0;
    bool readThroughView = false;
    int32_t srcSlots[AstNode::kMaxSrcs];
    void push(int32_t src) { srcSlots[numSrcs++] = src; }
    ArrayRef<int32_t> srcs() const { return ArrayRef(srcSlots, numSrcs); }
  };
  std::vector<ReduceFrame> reduceStack;
  std::vector<ValueFrame> valueStack;
  // By (node, view), emptied for each group.
  NodeViewMemo<std::optional<NodeView>> reduceMemo;
  NodeViewMemo<int32_t> cache;
  llvm::MapVector<NodeId, int64_t> inputs;
  ScheduleItem item;
  /// The AST being built. At the end the item gets an exact copy and this
  /// keeps its capacity for the next group, or, past kMoveAst nodes, the
  /// vector itself (a copy would touch as much memory again).
  std::vector<AstNode> nodes;
  static constexpr size_t kMoveAst = 4096;
  /// AST vectors handed back by recycle(), reused by the next item.
  ScheduleItem spare;
};

} // namespace mlir::lazy::detail

#endif // LAZY_LIB_DIALECT_LAZY_ANALYSIS_KERNELASTBUILDERIMPL_H
