//===- KernelLowering.cpp - tinygrad's _lower_lazybuffer ------------------===//
//
// Ports _lower_lazybuffer, _recurse_reduceops and _recursive_lazyop of
// tinygrad 0.9.2 (scheduler spec §2.7). tinygrad recurses on (buffer, view)
// pairs; here both walks keep explicit stacks that visit sources in order,
// so reduce_info, the input numbering and the cache fill in tinygrad's
// order. Every tinygrad assertion on the way becomes a located error.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/KernelLowering.h"
#include "lazy/Dialect/Lazy/Analysis/NodeViewMemo.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"

#include <unordered_map>

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;

namespace {

struct ReduceInfo {
  st::TrackerId input;
  std::vector<int64_t> axes;
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
std::vector<int64_t> reduceShape(const std::vector<int64_t> &shape,
                                 ArrayRef<int64_t> axes) {
  std::vector<int64_t> out = shape;
  for (int64_t a : axes)
    if (a >= 0 && a < int64_t(out.size()))
      out[size_t(a)] = 1;
  return out;
}

std::vector<int64_t> axesOf(const LazyNode &n) {
  ArrayRef<int64_t> axes =
      n.kind == NodeOp::ReduceSum ? cast<ReduceSumOp>(n.op).getAxes()
                                  : cast<ReduceMaxOp>(n.op).getAxes();
  return std::vector<int64_t>(axes.begin(), axes.end());
}

/// How reducing `axes` of `shape` partitions the elements: runs of
/// (size, reduced) with size-1 dims dropped and neighbouring dims of one
/// kind multiplied together. Two shapes of a reshape reduce the same
/// elements together exactly when their runs are equal.
SmallVector<std::pair<int64_t, bool>> reduceRuns(ArrayRef<int64_t> shape,
                                                 ArrayRef<int64_t> axes) {
  SmallVector<std::pair<int64_t, bool>> runs;
  for (auto [i, size] : llvm::enumerate(shape)) {
    if (size == 1)
      continue;
    bool reduced = llvm::is_contained(axes, int64_t(i));
    if (!runs.empty() && runs.back().second == reduced)
      runs.back().first *= size;
    else
      runs.push_back({size, reduced});
  }
  return runs;
}

} // namespace

namespace mlir::lazy::detail {

class Lowering {
public:
  bool useCopyKernel = false;

  /// The device type of a tensor type: its device (the tensor encoding,
  /// else the module's default) up to the first ':' (`CUDA:1` -> `CUDA`).
  std::string deviceType(RankedTensorType type) const {
    std::string device = "CLANG";
    if (auto attr = dyn_cast_or_null<DeviceAttr>(type.getEncoding()))
      device = attr.getName().str();
    else if (auto module = g.function()->getParentOfType<ModuleOp>())
      if (auto d = module->getAttrOfType<StringAttr>(
              LazyDialect::kDefaultDeviceAttrName))
        device = d.getValue().str();
    return device.substr(0, device.find(':'));
  }

  Lowering(const LazyGraph &g, const NodeSet &realizes)
      : g(g), pool(g.trackers()), realizes(realizes), groupStamp(g.size(), 0),
        reduceMemo(g.size()), cache(g.size()) {}

  /// Lowers `outputs`; the tables of the previous group are cleared, not
  /// freed.
  FailureOr<ScheduleItem> run(ArrayRef<NodeId> outputs);
  /// See GroupLowering::describe.
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
  /// The identity tracker of a node's shape: a base node's own tracker is
  /// that (LazyGraph::build), a view's is asked of the pool.
  st::TrackerId identityOf(NodeId n) const {
    const LazyNode &node = g.node(n);
    return node.isBase() ? node.tracker
                         : pool.fromShape(node.shape().vec());
  }
  InFlightDiagnostic error(NodeId n) {
    const LazyNode &node = g.node(n);
    return node.op ? node.op->emitOpError()
                   : g.function().emitError();
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

  /// Whether base node `root` is a reduce or reads one through nodes no
  /// other item realizes. It does not depend on the group: the answers are
  /// kept, and filled only as far as the nodes asked about.
  bool reachesReduce(NodeId root);

  LogicalResult recurseReduceops(NodeId out);
  /// Whether an op that is not zero on zeros (LazyNode::unsafePad) computes
  /// part of `reduce`'s input in this kernel.
  bool inputHasUnsafePad(NodeId reduce);
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
                             std::optional<NodeView> &result);
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
  };
  /// 40 bytes: a chain of 10^5 fused ops is 10^5 frames deep.
  struct ValueFrame {
    NodeId buf;
    st::TrackerId view;    // resolved to the base
    st::TrackerId srcView; // what the sources are lowered with
    uint8_t next = 0;      // the next source to lower
    uint8_t numSrcs = 0;   // the sources lowered so far
    const ReduceInfo *rinfo = nullptr;
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

//===----------------------------------------------------------------------===//
// _recurse_reduceops
//===----------------------------------------------------------------------===//

LogicalResult Lowering::finishReduce(NodeId buf, st::TrackerId viewId,
                                     st::TrackerId input,
                                     std::optional<NodeView> top,
                                     std::optional<NodeView> &result) {
  const LazyNode &n = g.node(buf);
  std::vector<int64_t> axes = axesOf(n);
  if (!pool.contiguous(viewId)) {
    const st::ShapeTracker &view = pool.get(viewId);
    // The view's padding ends up in the reduce's input: the ops there then
    // run on zeros, which only ops that are zero on zeros survive.
    if (llvm::any_of(view.views,
                     [](const st::View &v) { return bool(v.mask); }) &&
        inputHasUnsafePad(buf))
      noteMiscompute(buf, ScheduleItem::Miscompute::PaddedUnsafeInput);
    // Push the movement op on the reduce's output into its input: permute
    // the reduced axes last and extend every view with them.
    std::vector<int64_t> perm;
    for (int64_t i = 0; i < int64_t(pool.shape(input).size()); ++i)
      if (!llvm::is_contained(axes, i))
        perm.push_back(i);
    perm.insert(perm.end(), axes.begin(), axes.end());
    st::ShapeTracker permuted = pool.get(input).permute(perm);
    std::vector<int64_t> rshape(permuted.shape().end() - axes.size(),
                                permuted.shape().end());
    // tinygrad then finds the new axes by permuting the extended input by
    // the old ones: when the view has so few dims that an old axis is past
    // the extended rank, that permute fails.
    size_t extendedRank = view.shape().size() + rshape.size();
    if (int64_t(extendedRank) <= *llvm::max_element(axes))
      return error(buf)
             << "cannot be lowered into a kernel (tinygrad fails here too): "
                "its output is read through a view of rank "
             << view.shape().size() << "; pushed into its input, that gives "
             << "rank " << extendedRank << ", which has no reduced axis "
             << *llvm::max_element(axes) << " (invalid permutation)";
    int64_t prshape = st::prod(rshape);
    std::vector<int64_t> rstrides = st::stridesForShape(rshape);
    st::ShapeTracker extended;
    for (const st::View &v : view.views) {
      std::vector<int64_t> shape = v.shape, strides;
      shape.insert(shape.end(), rshape.begin(), rshape.end());
      for (int64_t s : v.strides)
        strides.push_back(s * prshape);
      strides.insert(strides.end(), rstrides.begin(), rstrides.end());
      std::optional<st::Mask> mask;
      if (v.mask) {
        mask = *v.mask;
        for (int64_t s : rshape)
          mask->push_back({0, s});
      }
      extended.views.push_back(
          st::View::create(shape, strides, v.offset * prshape, mask));
    }
    input = pool.intern(permuted + extended);
    int64_t rank = int64_t(pool.shape(input).size());
    axes.clear();
    for (int64_t i = rank - int64_t(rshape.size()); i < rank; ++i)
      axes.push_back(i);
  } else if (top) {
    ReduceInfo topInfo = *reduceInfo.find(*top);
    NodeId src = n.srcs[0];
    if (!g.node(src).isBase() && g.baseOf(src) == top->node &&
        g.node(top->node).kind == n.kind) {
      // Merge this reduce into the one it reads (a double reduce). Its
      // axes keep their numbers in the inner reduce's input: right when
      // the view between the two is pushed into that input (not
      // contiguous) or reduces the same elements together, else the
      // kernel sums others (tinygrad 0.9.2 does the same; recorded so
      // that lazy-form-kernels warns).
      st::TrackerId between = g.node(src).tracker;
      if (pool.contiguous(between) &&
          reduceRuns(g.node(top->node).shape(), axes) !=
              reduceRuns(pool.shape(between), axes))
        noteMiscompute(buf, ScheduleItem::Miscompute::RenumberedMerge);
      st::TrackerId merged = pool.compose(top->view, viewId);
      std::vector<int64_t> newAxes = axes;
      newAxes.insert(newAxes.end(), topInfo.axes.begin(), topInfo.axes.end());
      FailureOr<st::TrackerId> key =
          reshape(buf, merged, reduceShape(pool.shape(topInfo.input), newAxes));
      if (failed(key))
        return failure();
      reduceInfo.set({top->node, *key}, {topInfo.input, newAxes});
      result.reset();
      return success();
    }
    std::vector<int64_t> shape =
        reduceShape(pool.shape(topInfo.input), topInfo.axes);
    FailureOr<st::TrackerId> reshaped = reshape(buf, input, shape);
    if (failed(reshaped))
      return failure();
    input = *reshaped;
  }
  FailureOr<st::TrackerId> key =
      reshape(buf, viewId, reduceShape(pool.shape(input), axes));
  if (failed(key))
    return failure();
  reduceInfo.set({buf, *key}, {input, axes});
  result = NodeView{buf, *key};
  return success();
}

bool Lowering::inputHasUnsafePad(NodeId reduce) {
  SmallVector<NodeId> stack = {g.baseOf(g.node(reduce).srcs[0])};
  llvm::DenseSet<NodeId> seen;
  while (!stack.empty()) {
    NodeId base = stack.pop_back_val();
    if (isLeaf(base) || !seen.insert(base).second)
      continue;
    const LazyNode &n = g.node(base);
    if (n.unsafePad)
      return true;
    for (NodeId src : n.srcs)
      stack.push_back(g.baseOf(src));
  }
  return false;
}

bool Lowering::reachesReduce(NodeId root) {
  // Node ids are topological (sources first), so the flags are filled in
  // id order, up to the largest node asked about so far.
  if (reach.empty())
    reach.assign(g.size(), 0);
  for (; reachFilled <= root; ++reachFilled) {
    const LazyNode &n = g.node(reachFilled);
    if (!n.isBase() || n.isRealized())
      continue;
    bool reaches = n.isReduce();
    for (NodeId src : n.srcs) {
      NodeId base = g.baseOf(src);
      reaches = reaches || (!g.node(base).isRealized() &&
                            !realizes.contains(base) && reach[base]);
    }
    reach[reachFilled] = reaches;
  }
  return reach[root];
}

LogicalResult Lowering::recurseReduceops(NodeId out) {
  using Frame = ReduceFrame;
  std::vector<Frame> &stack = reduceStack;
  stack.clear();
  std::optional<NodeView> returned;

  // Starts a call; returns true when it pushed a frame, false when the
  // result is already in `returned`.
  auto call = [&](NodeId buf, st::TrackerId view) {
    returned.reset();
    if (isLeaf(g.baseOf(buf)))
      return false;
    if (!g.node(buf).isBase()) {
      view = pool.compose(g.node(buf).tracker, view);
      buf = g.baseOf(buf);
    }
    if (const std::optional<NodeView> *memo = reduceMemo.find({buf, view})) {
      returned = *memo;
      return false;
    }
    const LazyNode &n = g.node(buf);
    st::TrackerId input = n.isReduce() ? identityOf(n.srcs[0]) : view;
    stack.push_back({buf, view, input, 0, {}});
    return true;
  };

  if (!call(out, g.node(out).tracker))
    return success();
  bool pending = false; // a child frame just returned into `returned`
  while (!stack.empty()) {
    Frame &f = stack.back();
    if (pending) {
      if (returned)
        f.top = returned;
      pending = false;
    }
    const LazyNode &n = g.node(f.buf);
    if (f.next < n.srcs.size()) {
      NodeId src = n.srcs[f.next++];
      if (call(src, f.input))
        continue; // stack grew; the child's result arrives later
      if (returned)
        stack.back().top = returned;
      continue;
    }
    Frame done = std::move(stack.back());
    stack.pop_back();
    std::optional<NodeView> result = done.top;
    if (n.isReduce()) {
      if (failed(finishReduce(done.buf, done.view, done.input, done.top,
                              result)))
        return failure();
    } else {
      reduceMemo.set({done.buf, done.view}, result);
    }
    returned = result;
    pending = true;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Padding reduces to a common shape
//===----------------------------------------------------------------------===//

LogicalResult Lowering::padReduces() {
  // One reduce has nothing to be padded against.
  if (reduceInfo.entries.size() < 2)
    return success();
  size_t rank = SIZE_MAX;
  for (auto &[key, info] : reduceInfo.entries)
    rank = std::min(rank, pool.shape(info.input).size());
  for (size_t i = 0; i < rank; ++i) {
    std::vector<int64_t> dims;
    for (auto &[key, info] : reduceInfo.entries)
      if (!llvm::is_contained(dims, pool.shape(info.input)[i]))
        dims.push_back(pool.shape(info.input)[i]);
    llvm::sort(dims);
    if (dims.size() == 1 || (dims.size() == 2 && dims[0] == 1))
      continue;
    int64_t max = dims.back();
    for (auto &[key, info] : reduceInfo.entries) {
      int64_t dim = pool.shape(info.input)[i];
      if (dim <= 1 || dim == max)
        continue;
      // tinygrad pads with i + 1 (begin, end) pairs, which only fits when
      // this is the input's last dimension; otherwise it fails an assert.
      if (pool.shape(info.input).size() != i + 1)
        return error(key.node) << "cannot pad the reduce inputs of one "
                                  "kernel to a common shape (tinygrad fails "
                                  "here too)";
      st::Mask pad(i + 1, {0, 0});
      pad[i] = {0, max - dim};
      info.input = pool.intern(pool.get(info.input).pad(pad));
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// _recursive_lazyop
//===----------------------------------------------------------------------===//

FailureOr<int32_t> Lowering::lowerValue(NodeId out, st::TrackerId outView) {
  using Frame = ValueFrame;
  std::vector<Frame> &stack = valueStack;
  stack.clear();
  int32_t returned = -1;

  // Starts lowering (buf, view); returns true if a frame was pushed,
  // otherwise sets `returned` (or fails).
  auto call = [&](NodeId buf, st::TrackerId view) -> FailureOr<bool> {
    if (!g.node(buf).isBase()) {
      view = pool.compose(g.node(buf).tracker, view);
      buf = g.baseOf(buf);
    }
    if (const int32_t *hit = cache.find({buf, view})) {
      returned = *hit;
      return false;
    }
    const LazyNode &n = g.node(buf);
    if (isLeaf(buf)) {
      st::TrackerId simpleId = pool.simplify(view);
      const st::ShapeTracker &simple = pool.get(simpleId);
      AstNode leaf;
      leaf.source = buf;
      leaf.view = simpleId;
      leaf.shaped = simpleId;
      if (n.kind == NodeOp::Const) {
        leaf.kind = AstNode::Kind::Const;
        returned = addNode(leaf);
        return false;
      }
      leaf.kind = AstNode::Kind::Load;
      auto target = assignTargets.find(buf);
      if (target != assignTargets.end()) {
        // The old contents of an assign target meet the new ones only
        // through an identity-like view.
        if (!isIdentityLike(simple)) {
          error(group[target->second])
              << "self operand of augmented assign must be contiguous; "
                 "help: read it through .contiguous() (a += a.T becomes "
                 "a += a.T.contiguous())";
          return failure();
        }
        leaf.buffer = target->second;
      } else {
        auto [it, inserted] = inputs.insert({buf, int64_t(inputs.size())});
        leaf.buffer = int32_t(group.size() + it->second);
      }
      returned = addNode(leaf);
      return false;
    }
    const ReduceInfo *rinfo =
        n.isReduce() ? reduceInfo.find({buf, view}) : nullptr;
    st::TrackerId srcView = rinfo ? rinfo->input : view;
    // No op of the dialect that a kernel computes reads more (WHERE and
    // MULACC read three).
    if (n.srcs.size() > AstNode::kMaxSrcs) {
      error(buf) << "reads " << n.srcs.size()
                 << " values; a kernel op reads at most " << AstNode::kMaxSrcs;
      return failure();
    }
    Frame frame;
    frame.buf = buf;
    frame.view = view;
    frame.srcView = srcView;
    frame.rinfo = rinfo;
    stack.push_back(frame);
    return true;
  };

  FailureOr<bool> started = call(out, outView);
  if (failed(started))
    return failure();
  if (!*started)
    return returned;
  bool pending = false;
  while (!stack.empty()) {
    Frame &f = stack.back();
    if (pending) {
      f.push(returned);
      pending = false;
    }
    const LazyNode &n = g.node(f.buf);
    if (f.next < n.srcs.size()) {
      NodeId src = n.srcs[f.next++];
      FailureOr<bool> pushed = call(src, f.srcView);
      if (failed(pushed))
        return failure();
      if (!*pushed)
        stack.back().push(returned);
      continue;
    }
    // Read in place and popped at the end.
    Frame &done = stack.back();
    int32_t result;
    if (n.isReduce()) {
      if (!done.rinfo) {
        // Merged into the reduce below: its source must be that reduce.
        const AstNode &below = nodes[done.srcs()[0]];
        if (below.kind != AstNode::Kind::Reduce ||
            g.node(below.source).kind != n.kind)
          return error(done.buf) << "cannot merge this reduce into the one "
                                    "it reads (tinygrad fails here too)";
        result = done.srcs()[0];
      } else {
        AstNode node;
        node.kind = AstNode::Kind::Reduce;
        node.source = done.buf;
        setSrcs(node, done.srcs());
        ArrayRef<int64_t> axes = done.rinfo->axes;
        node.axesBegin = uint32_t(item.axes.size());
        node.numAxes = uint32_t(axes.size());
        item.axes.insert(item.axes.end(), axes.begin(), axes.end());
        node.shaped =
            pool.fromShape(reduceShape(pool.shape(done.rinfo->input), axes));
        result = addNode(node);
        cache.set({done.buf, done.view}, result);
        item.computed.push_back(done.buf);
      }
    } else if (n.kind == NodeOp::Contiguous || n.kind == NodeOp::Assign) {
      if (!inGroup(done.buf))
        return error(done.buf) << "must be an output of its kernel";
      result = done.srcs()[0];
    } else {
      AstNode node;
      node.kind = AstNode::Kind::Compute;
      node.source = done.buf;
      setSrcs(node, done.srcs());
      node.shaped = done.view;
      result = addNode(node);
      cache.set({done.buf, done.view}, result);
      item.computed.push_back(done.buf);
    }
    stack.pop_back();
    returned = result;
    pending = true;
  }
  return returned;
}

//===----------------------------------------------------------------------===//
// Describing a group's kernel up to renaming
//===----------------------------------------------------------------------===//

/// The inherent attributes of a walked op that lowering and planning read,
/// as one word; an op whose properties are not known here is described by
/// its own address, which no other op shares (as planKernel keys such an
/// op, a const computed inside a kernel among them).
static uint64_t propertiesWord(const LazyNode &n) {
  if (!OperationName::getFromOpaquePointer(n.opName).getOpPropertyByteSize())
    return 0;
  switch (n.kind) {
  case NodeOp::ReduceSum:
    return opaqueWord(
        cast<ReduceSumOp>(n.op).getAxesAttr().getAsOpaquePointer());
  case NodeOp::ReduceMax:
    return opaqueWord(
        cast<ReduceMaxOp>(n.op).getAxesAttr().getAsOpaquePointer());
  case NodeOp::Assign:
    return opaqueWord(cast<AssignOp>(n.op).getViewAttr().getAsOpaquePointer());
  default:
    return opaqueWord(n.op);
  }
}

/// The most nodes (ops and leaves) describe() numbers before giving up on
/// a group.
static constexpr int32_t kMaxDescribedNodes = 2048;

bool Lowering::describe(ArrayRef<NodeId> outputs,
                        SmallVectorImpl<uint64_t> &key,
                        std::vector<NodeId> &inputsOut) {
  key.clear();
  inputsOut.clear();
  // A copy is an EXT item or a byte-copy kernel: neither is described.
  if (isExtGroup(g.node(outputs.front())))
    return false;
  enterGroup(outputs);
  if (describedStamp.empty()) {
    describedStamp.assign(g.size(), 0);
    describedAs.assign(g.size(), -1);
  }
  ++describeEpoch;
  describeStack.clear();
  int32_t next = 0;
  auto numberOf = [&](NodeId n) {
    return describedStamp[n] == describeEpoch ? describedAs[n] : -1;
  };
  auto number = [&](NodeId n) {
    describedStamp[n] = describeEpoch;
    describedAs[n] = next++;
  };
  // Word tags: a leaf (its kind in the tag), a walked op, the outputs.
  enum : uint64_t { kConstLeaf = 1, kLoadLeaf, kTargetLeaf, kOp, kOutputs };

  // Leaves at their first use, ops once their sources are numbered: the
  // order lowerValue meets them in, so that loads are numbered as it
  // numbers its inputs.
  auto leaf = [&](NodeId base) {
    number(base);
    const LazyNode &n = g.node(base);
    if (n.kind == NodeOp::Const) {
      key.append(
          {kConstLeaf, opaqueWord(n.type.getAsOpaquePointer()),
           opaqueWord(cast<ConstOp>(n.op).getValue().getAsOpaquePointer())});
      return;
    }
    if (auto target = assignTargets.find(base); target != assignTargets.end()) {
      key.append({kTargetLeaf | uint64_t(target->second) << 8,
                  opaqueWord(n.type.getAsOpaquePointer())});
      return;
    }
    // A realized ASSIGN lives in its target's buffer (the kernel's argument
    // type).
    RankedTensorType buffer =
        n.kind == NodeOp::Assign ? g.node(n.srcs[1]).type : n.type;
    key.append({kLoadLeaf, opaqueWord(n.type.getAsOpaquePointer()),
                opaqueWord(buffer.getAsOpaquePointer())});
    inputsOut.push_back(base);
  };
  for (NodeId out : group) {
    if (numberOf(out) >= 0)
      continue; // walked from an earlier output
    if (next > kMaxDescribedNodes)
      break;
    describeStack.assign(1, {out, 0});
    while (!describeStack.empty()) {
      auto &[node, nextSrc] = describeStack.back();
      const LazyNode &n = g.node(node);
      if (nextSrc < n.srcs.size()) {
        NodeId base = g.baseOf(n.srcs[nextSrc++]);
        if (numberOf(base) >= 0)
          continue;
        if (isLeaf(base))
          leaf(base);
        else if (next + int32_t(describeStack.size()) > kMaxDescribedNodes)
          break; // too large: see below
        else
          describeStack.push_back({base, 0});
        continue;
      }
      key.append({kOp | uint64_t(n.kind) << 8 | uint64_t(n.srcs.size()) << 16,
                  opaqueWord(n.opName), opaqueWord(n.type.getAsOpaquePointer()),
                  opaqueWord(n.metadata.getAsOpaquePointer()),
                  propertiesWord(n)});
      for (NodeId src : n.srcs) {
        const LazyNode &s = g.node(src);
        // The source's number (below kMaxDescribedNodes), bit 31 set for
        // an edge through a view, whose tracker fills the high half.
        uint64_t edge = uint64_t(uint32_t(numberOf(g.baseOf(src))));
        if (!s.isBase())
          edge |= uint64_t(1) << 31 | uint64_t(s.tracker) << 32;
        key.push_back(edge);
      }
      number(node);
      describeStack.pop_back();
    }
    if (!describeStack.empty())
      break;
  }
  if (!describeStack.empty() || next > kMaxDescribedNodes) {
    // A group this large is lowered once and rarely met again; walking,
    // keeping, copying and hashing its description would cost more than
    // it saves (a 20,000-op chain: 2.6 ms of 14 ms).
    key.clear();
    inputsOut.clear();
    return false;
  }
  key.push_back(kOutputs | uint64_t(group.size()) << 8);
  for (NodeId out : group)
    key.push_back(uint64_t(uint32_t(numberOf(out))));
  return true;
}

FailureOr<ScheduleItem> Lowering::run(ArrayRef<NodeId> outputs) {
  enterGroup(outputs);
  reduceInfo.clear();
  reduceMemo.clear();
  cache.clear();
  inputs.clear();
  item = ScheduleItem();
  item.nodes = std::move(spare.nodes);
  item.stores = std::move(spare.stores);
  item.computed = std::move(spare.computed);
  item.axes = std::move(spare.axes);
  item.nodes.clear();
  item.stores.clear();
  item.computed.clear();
  item.axes.clear();
  spare = ScheduleItem();
  nodes.clear();

  item.outputs = group;
  const LazyNode &first = g.node(group.front());
  if (first.kind == NodeOp::Copy && useCopyKernel &&
      deviceType(first.type) == deviceType(g.node(first.srcs[0]).type)) {
    const LazyNode &src = g.node(first.srcs[0]);
    item.copyBytes = src.size * src.itemSize; // tinygrad's COPY arg, nbytes
    item.inputs.push_back(g.baseOf(first.srcs[0]));
    return std::move(item);
  }
  if (isExtGroup(first)) {
    item.isKernel = false;
    for (NodeId src : first.srcs)
      item.inputs.push_back(g.baseOf(src));
    return std::move(item);
  }

  // A group none of whose outputs reaches a reduce has no reduce_info to
  // collect. (A walk passes through another output of its group, which
  // reachesReduce treats as realized; but that output's own answer covers
  // what lies below it. Once one output reaches a reduce, all are walked
  // as tinygrad does: the views a reduce is reached through depend on the
  // path.)
  if (llvm::any_of(group, [&](NodeId out) { return reachesReduce(out); }))
    for (NodeId out : group)
      if (failed(recurseReduceops(out)))
        return failure();
  if (failed(padReduces()))
    return failure();

  for (NodeId out : group) {
    st::TrackerId outputView =
        reduceInfo.empty()
            ? identityOf(out)
            : pool.fromShape(reduceShape(
                  pool.shape(reduceInfo.entries.back().second.input),
                  reduceInfo.entries.back().second.axes));
    FailureOr<int32_t> value = lowerValue(out, outputView);
    if (failed(value))
      return failure();
    const LazyNode &n = g.node(out);
    if (n.kind == NodeOp::Assign)
      if (ShapeTrackerAttr view = cast<AssignOp>(n.op).getViewAttr()) {
        st::TrackerId assigned = pool.intern(view.getTracker());
        if (ArrayRef<int64_t>(pool.shape(assigned)) != n.shape())
          return error(out) << "its view must not change the output shape";
        FailureOr<st::TrackerId> reshaped =
            reshape(out, assigned, pool.shape(outputView));
        if (failed(reshaped))
          return failure();
        outputView = *reshaped;
      }
    item.stores.push_back({*value, pool.simplify(outputView)});
  }
  if (nodes.size() > kMoveAst) {
    item.nodes = std::move(nodes);
    nodes = std::vector<AstNode>();
  } else {
    item.nodes.assign(nodes.begin(), nodes.end());
  }
  item.inputs.reserve(inputs.size());
  for (auto &[buf, number] : inputs)
    item.inputs.push_back(buf);
  return std::move(item);
}

} // namespace mlir::lazy::detail

bool mlir::lazy::isIdentityLike(const st::ShapeTracker &view) {
  if (view.contiguous())
    return true;
  if (view.views.size() != 1 || !view.views[0].mask)
    return false;
  const st::Mask &mask = *view.views[0].mask;
  return st::ShapeTracker::fromShape(view.shape()).shrink(mask) ==
         view.shrink(mask);
}

GroupLowering::GroupLowering(const LazyGraph &graph, const NodeSet &realizes,
                             bool useCopyKernel)
    : state(std::make_unique<detail::Lowering>(graph, realizes)) {
  state->useCopyKernel = useCopyKernel;
}

GroupLowering::~GroupLowering() = default;

void GroupLowering::recycle(ScheduleItem &item) { state->recycle(item); }

FailureOr<ScheduleItem> GroupLowering::lower(ArrayRef<NodeId> group) {
  return state->run(group);
}

bool GroupLowering::describe(ArrayRef<NodeId> group,
                             SmallVectorImpl<uint64_t> &key,
                             std::vector<NodeId> &inputs) {
  return state->describe(group, key, inputs);
}
