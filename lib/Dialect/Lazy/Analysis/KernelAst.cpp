//===- KernelAst.cpp - tinygrad's _lower_lazybuffer -----------------------===//
//
// Ports _lower_lazybuffer, _recurse_reduceops and _recursive_lazyop of
// tinygrad 0.9.2 (scheduler spec §2.7). tinygrad recurses on (buffer, view)
// pairs; here both walks keep explicit stacks that visit sources in order,
// so reduce_info, the input numbering and the cache fill in tinygrad's
// order. Every tinygrad assertion on the way becomes a located error.
//
//===----------------------------------------------------------------------===//

#include "KernelAstBuilderImpl.h"
#include "ScheduleRules.h"
#include "lazy/Dialect/Lazy/IR/LazyAttrs.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"

#include <unordered_map>

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;

namespace mlir::lazy::detail {

//===----------------------------------------------------------------------===//
// _recurse_reduceops
//===----------------------------------------------------------------------===//

namespace {

/// The dims [0, rank) with the reduced `axes` moved last, in their order.
std::vector<int64_t> reducedAxesLast(int64_t rank, ArrayRef<int64_t> axes) {
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i)
    if (!llvm::is_contained(axes, i))
      perm.push_back(i);
  perm.insert(perm.end(), axes.begin(), axes.end());
  return perm;
}

/// The axes [rank - count, rank): the reduced dims, last.
std::vector<int64_t> lastAxes(int64_t rank, size_t count) {
  std::vector<int64_t> axes;
  for (int64_t i = rank - int64_t(count); i < rank; ++i)
    axes.push_back(i);
  return axes;
}

/// Every view of `view` extended by the reduced dims (`rshape`, strides
/// `rstrides`, `prshape` elements): its strides and offset scale by
/// prshape, its mask covers the new dims whole. ShapeTracker or
/// SymShapeTracker.
template <typename TrackerT, typename ShapeT, typename DimT>
TrackerT extendWithReducedDims(const TrackerT &view, const ShapeT &rshape,
                               const ShapeT &rstrides, const DimT &prshape) {
  using ViewT = std::decay_t<decltype(view.views.back())>;
  TrackerT extended;
  for (const ViewT &v : view.views) {
    ShapeT shape = v.shape, strides;
    shape.insert(shape.end(), rshape.begin(), rshape.end());
    for (const DimT &s : v.strides)
      strides.push_back(s * prshape);
    strides.insert(strides.end(), rstrides.begin(), rstrides.end());
    auto mask = v.mask;
    if (mask)
      for (const DimT &s : rshape)
        mask->push_back({0, s});
    extended.views.push_back(
        ViewT::create(shape, strides, v.offset * prshape, mask));
  }
  return extended;
}

} // namespace

/// tinygrad finds the new reduced axes by permuting the extended input by
/// the old ones: when the view has so few dims that an old axis is past
/// the extended rank, that permute fails.
LogicalResult KernelAstBuilderImpl::checkExtendedRank(NodeId buf,
                                                      size_t viewRank,
                                                      size_t reducedRank,
                                                      ArrayRef<int64_t> axes) {
  size_t extendedRank = viewRank + reducedRank;
  if (axes.empty() || int64_t(extendedRank) > *llvm::max_element(axes))
    return success();
  return error(buf)
         << "cannot be lowered into a kernel (tinygrad fails here too): "
            "its output is read through a view of rank "
         << viewRank << "; pushed into its input, that gives "
         << "rank " << extendedRank << ", which has no reduced axis "
         << *llvm::max_element(axes) << " (invalid permutation)";
}

FailureOr<st::TrackerId>
KernelAstBuilderImpl::reshapeSym(NodeId at, st::TrackerId t,
                                 const st::SymShape &shape) {
  if (st::symEqual(pool.symShape(t), shape))
    return t;
  try {
    return pool.intern(pool.getSym(t).reshape(shape));
  } catch (const st::sym::Error &e) {
    return error(at) << "cannot be lowered into a kernel (tinygrad fails "
                        "here too): "
                     << e.what;
  }
}

FailureOr<std::pair<st::TrackerId, std::vector<int64_t>>>
KernelAstBuilderImpl::pushViewIntoInputSym(NodeId buf, st::TrackerId viewId,
                                           st::TrackerId input,
                                           ArrayRef<int64_t> axes) {
  try {
    st::SymShapeTracker view = pool.getSym(viewId);
    st::SymShapeTracker permuted = pool.getSym(input).permute(
        reducedAxesLast(int64_t(pool.symShape(input).size()), axes));
    st::SymShape rshape(permuted.shape().end() - axes.size(),
                        permuted.shape().end());
    if (failed(
            checkExtendedRank(buf, view.shape().size(), rshape.size(), axes)))
      return failure();
    // tinygrad's prod and strides_for_shape of the reduced dims.
    st::SInt prshape = 1;
    for (const st::SInt &d : rshape)
      prshape = prshape * d;
    st::SymShape rstrides =
        st::SymShapeTracker::fromShape(rshape).views.back().strides;
    st::TrackerId newInput = pool.intern(
        permuted + extendWithReducedDims(view, rshape, rstrides, prshape));
    std::vector<int64_t> newAxes =
        lastAxes(int64_t(pool.symShape(newInput).size()), rshape.size());
    return std::make_pair(newInput, newAxes);
  } catch (const st::sym::Error &e) {
    return error(buf) << "cannot be lowered into a kernel (tinygrad fails "
                         "here too): "
                      << e.what;
  }
}

LogicalResult KernelAstBuilderImpl::finishReduce(
    NodeId buf, st::TrackerId viewId, st::TrackerId input,
    std::optional<NodeView> top, std::optional<NodeView> &result, bool row) {
  const LazyNode &n = g.node(buf);
  ArrayRef<int64_t> reduced = reduceAxesOf(n);
  std::vector<int64_t> axes(reduced.begin(), reduced.end());
  if (pool.anySymbolic()) {
    // The same steps on sints (tinygrad's _recurse_reduceops with
    // Variables in the shapes).
    if (!pool.contiguous(viewId)) {
      auto pushed = pushViewIntoInputSym(buf, viewId, input, axes);
      if (failed(pushed))
        return failure();
      std::tie(input, axes) = *pushed;
    } else if (top) {
      ReduceInfo topInfo = *reduceInfo.find(*top);
      if (isDoubleReduce(g, buf) && g.baseOf(n.srcs[0]) == top->node)
        return error(buf) << "merging a double reduce in a graph with "
                             "symbolic shapes is not supported yet";
      FailureOr<st::TrackerId> reshaped =
          reshapeSym(buf, input, reduceSymShape(topInfo.input, topInfo.axes));
      if (failed(reshaped))
        return failure();
      input = *reshaped;
    }
    FailureOr<st::TrackerId> key =
        reshapeSym(buf, viewId, reduceSymShape(input, axes));
    if (failed(key))
      return failure();
    reduceInfo.set({buf, *key}, {input, axes, row});
    result = NodeView{buf, *key};
    return success();
  }
  if (!pool.contiguous(viewId)) {
    const st::ShapeTracker &view = pool.get(viewId);
    // The view's padding ends up in the reduce's input: the ops there then
    // run on zeros, which only ops that are zero on zeros survive.
    if (padReachesUnsafeOp(g, view, buf,
                           [&](NodeId base) { return isLeaf(base); }))
      noteMiscompute(buf, ScheduleItem::Miscompute::PaddedUnsafeInput);
    // Push the movement op on the reduce's output into its input: permute
    // the reduced axes last and extend every view with them.
    st::ShapeTracker permuted = pool.get(input).permute(
        reducedAxesLast(int64_t(pool.shape(input).size()), axes));
    std::vector<int64_t> rshape(permuted.shape().end() - axes.size(),
                                permuted.shape().end());
    if (failed(
            checkExtendedRank(buf, view.shape().size(), rshape.size(), axes)))
      return failure();
    input = pool.intern(permuted +
                        extendWithReducedDims(view, rshape,
                                              st::stridesForShape(rshape),
                                              st::prod(rshape)));
    axes = lastAxes(int64_t(pool.shape(input).size()), rshape.size());
  } else if (top) {
    ReduceInfo topInfo = *reduceInfo.find(*top);
    NodeId src = n.srcs[0];
    if (isDoubleReduce(g, buf) && g.baseOf(src) == top->node) {
      // Merge this reduce into the one it reads (DoubleReduceMerge.cpp).
      if (mergeRenumbersAxes(g, top->node, g.node(src).tracker, axes))
        noteMiscompute(buf, ScheduleItem::Miscompute::RenumberedMerge);
      st::TrackerId merged = pool.compose(top->view, viewId);
      std::vector<int64_t> newAxes = mergedAxes(axes, topInfo.axes);
      FailureOr<st::TrackerId> key =
          reshape(buf, merged, reduceShape(pool.shape(topInfo.input), newAxes));
      if (failed(key))
        return failure();
      reduceInfo.set({top->node, *key}, {topInfo.input, newAxes, topInfo.row});
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
  reduceInfo.set({buf, *key}, {input, axes, row});
  result = NodeView{buf, *key};
  return success();
}

bool KernelAstBuilderImpl::reachesReduce(NodeId root) {
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

LogicalResult KernelAstBuilderImpl::recurseReduceops(NodeId out) {
  using Frame = ReduceFrame;
  std::vector<Frame> &stack = reduceStack;
  stack.clear();
  std::optional<NodeView> returned;

  // Starts a call; returns true when it pushed a frame, false when the
  // result is already in `returned`. A row value read through a view is
  // walked at its own shape, and its reduces stay hidden from its reader.
  auto call = [&](NodeId buf, st::TrackerId view, bool row) {
    returned.reset();
    if (isLeaf(g.baseOf(buf)))
      return false;
    if (!g.node(buf).isBase()) {
      view = pool.compose(g.node(buf).tracker, view);
      buf = g.baseOf(buf);
    }
    bool rowRoot = readsRowValue(buf, view);
    if (rowRoot) {
      view = identityOf(buf);
      row = true;
    }
    if (const std::optional<NodeView> *memo = reduceMemo.find({buf, view})) {
      if (!rowRoot)
        returned = *memo;
      return false;
    }
    const LazyNode &n = g.node(buf);
    st::TrackerId input = n.isReduce() ? identityOf(n.srcs[0]) : view;
    stack.push_back({buf, view, input, 0, {}, row, rowRoot});
    return true;
  };

  if (!call(out, g.node(out).tracker, false))
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
      if (call(src, f.input, f.row))
        continue; // stack grew; the child's result arrives later
      if (returned)
        stack.back().top = returned;
      continue;
    }
    Frame done = std::move(stack.back());
    stack.pop_back();
    std::optional<NodeView> result = done.top;
    if (n.isReduce()) {
      if (failed(finishReduce(done.buf, done.view, done.input, done.top, result,
                              done.row)))
        return failure();
    } else {
      reduceMemo.set({done.buf, done.view}, result);
    }
    if (done.rowRoot)
      result.reset();
    returned = result;
    pending = true;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Padding reduces to a common shape
//===----------------------------------------------------------------------===//

LogicalResult KernelAstBuilderImpl::padReduces() {
  // One reduce has nothing to be padded against; a row value's reduces
  // run apart.
  if (llvm::count_if(reduceInfo.entries,
                     [](const auto &entry) { return !entry.second.row; }) < 2)
    return success();
  size_t rank = SIZE_MAX;
  for (auto &[key, info] : reduceInfo.entries)
    if (!info.row)
      rank = std::min(rank, pool.shape(info.input).size());
  if (pool.anySymbolic()) {
    // With Variables, only inputs that already agree (tinygrad's `==`)
    // are taken: tinygrad sorts and compares the dims as sints.
    for (size_t i = 0; i < rank; ++i) {
      std::vector<st::SInt> dims;
      for (auto &[key, info] : reduceInfo.entries) {
        if (info.row)
          continue;
        st::SInt dim = pool.symShape(info.input)[i];
        if (!llvm::any_of(
                dims, [&](const st::SInt &d) { return st::sym::eq(d, dim); }))
          dims.push_back(dim);
      }
      bool one = llvm::any_of(
          dims, [](const st::SInt &d) { return st::sym::eq(d, 1); });
      if (dims.size() == 1 || (dims.size() == 2 && one))
        continue;
      return error(reduceInfo.entries.front().first.node)
             << "padding the reduce inputs of one kernel to a common "
                "symbolic shape is not supported yet";
    }
    return success();
  }
  for (size_t i = 0; i < rank; ++i) {
    std::vector<int64_t> dims;
    for (auto &[key, info] : reduceInfo.entries)
      if (!info.row && !llvm::is_contained(dims, pool.shape(info.input)[i]))
        dims.push_back(pool.shape(info.input)[i]);
    llvm::sort(dims);
    if (dims.size() == 1 || (dims.size() == 2 && dims[0] == 1))
      continue;
    int64_t max = dims.back();
    for (auto &[key, info] : reduceInfo.entries) {
      if (info.row)
        continue;
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

FailureOr<int32_t> KernelAstBuilderImpl::lowerValue(NodeId out,
                                                    st::TrackerId outView) {
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
    // A row value read through a view: its value at its own shape, then a
    // View node.
    // Tracker 0 is a real tracker: whether there is a view is its own flag.
    st::TrackerId rowView = 0;
    bool readThroughView = !isLeaf(buf) && readsRowValue(buf, view);
    if (readThroughView) {
      rowView = view;
      view = identityOf(buf);
      if (const int32_t *hit = cache.find({buf, view})) {
        returned = addViewNode(buf, *hit, rowView);
        return false;
      }
    }
    const LazyNode &n = g.node(buf);
    if (isLeaf(buf)) {
      st::TrackerId simpleId = pool.simplify(view);
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
        if (pool.isSymbolic(simpleId)
                ? !st::isIdentityLike(pool.getSym(simpleId))
                : !isIdentityLike(pool.get(simpleId))) {
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
    frame.rowView = rowView;
    frame.readThroughView = readThroughView;
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
        node.shaped = reduceOutput(done.rinfo->input, axes);
        result = addNode(node);
        cache.set({done.buf, done.view}, result);
        item.computed.push_back(done.buf);
      }
    } else if (n.kind == NodeOp::Contiguous || n.kind == NodeOp::Assign) {
      // A CONTIGUOUS that fusion=aggressive did not realize is its source's
      // value; an ASSIGN always writes its target.
      if (!inGroup(done.buf) && n.kind == NodeOp::Assign)
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
    if (done.readThroughView)
      result = addViewNode(done.buf, result, done.rowView);
    stack.pop_back();
    returned = result;
    pending = true;
  }
  return returned;
}

FailureOr<ScheduleItem> KernelAstBuilderImpl::run(ArrayRef<NodeId> outputs) {
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
  if (llvm::any_of(group, [&](NodeId out) { return reachesReduce(out); })) {
    for (NodeId out : group)
      if (failed(recurseReduceops(out)))
        return failure();
  }
  if (failed(padReduces()))
    return failure();

  // The last reduce's output shape (a row value's reduces aside).
  const ReduceInfo *lastReduce = nullptr;
  for (auto &[key, info] : reduceInfo.entries)
    if (!info.row)
      lastReduce = &info;
  for (NodeId out : group) {
    st::TrackerId outputView =
        !lastReduce ? identityOf(out)
                    : reduceOutput(lastReduce->input, lastReduce->axes);
    FailureOr<int32_t> value = lowerValue(out, outputView);
    if (failed(value))
      return failure();
    const LazyNode &n = g.node(out);
    ShapeTrackerAttr view = n.kind == NodeOp::Assign
                                ? cast<AssignOp>(n.op).getViewAttr()
                                : ShapeTrackerAttr();
    if (view && (view.isSymbolic() || pool.anySymbolic())) {
      // tinygrad: output_st = out.arg[0].reshape(output_st.shape), the
      // view having the output's shape, on sints.
      st::TrackerId assigned = pool.intern(view.getSymTracker());
      if (!st::symEqual(pool.symShape(assigned), symbolicShapeOf(n.type)))
        return error(out) << "its view must not change the output shape";
      FailureOr<st::TrackerId> reshaped =
          reshapeSym(out, assigned, pool.symShape(outputView));
      if (failed(reshaped))
        return failure();
      outputView = *reshaped;
    } else if (view) {
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

KernelAstBuilder::KernelAstBuilder(const LazyGraph &graph,
                                   const NodeSet &realizes, bool useCopyKernel,
                                   const NodeSet *rowValues)
    : state(std::make_unique<detail::KernelAstBuilderImpl>(graph, realizes,
                                                           rowValues)) {
  state->useCopyKernel = useCopyKernel;
}

KernelAstBuilder::~KernelAstBuilder() = default;

void KernelAstBuilder::recycle(ScheduleItem &item) { state->recycle(item); }

FailureOr<ScheduleItem> KernelAstBuilder::build(ArrayRef<NodeId> group) {
  return state->run(group);
}

StringRef mlir::lazy::miscomputeWarning(ScheduleItem::Miscompute kind) {
  return kind == ScheduleItem::Miscompute::RenumberedMerge
             ? renumberedMergeWarning()
             : paddedUnsafeInputWarning();
}
