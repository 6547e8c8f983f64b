//===- ScheduleAnalysis.cpp - tinygrad 0.9.2's scheduling decisions -------===//
//
// Ports of tinygrad 0.9.2's _recurse_lb, _is_padding_okay, _recursive_group,
// _get_isolated_children and the grouping loop of _graph_schedule (see
// docs/scheduler-spec.md §2.1-2.6). tinygrad recurses; here every walk keeps
// an explicit stack whose frames visit children in the same order, so each
// ordered set receives its members in exactly tinygrad's order.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/ScheduleAnalysis.h"
#include "lazy/Dialect/Lazy/Analysis/NodeViewMemo.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"

#include <unordered_map>

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;

namespace {

/// The distinct operands of `consumer` that read `base` (the base itself or
/// views of it), in operand order.
SmallVector<NodeId, 2> readsOf(const LazyGraph &g, NodeId consumer,
                               NodeId base) {
  SmallVector<NodeId, 2> reads;
  for (NodeId src : g.node(consumer).srcs)
    if (g.baseOf(src) == base && !llvm::is_contained(reads, src))
      reads.push_back(src);
  return reads;
}

} // namespace

NodeSet mlir::lazy::readRealizeMarks(const LazyGraph &g) {
  StringAttr name =
      StringAttr::get(g.function().getContext(), LazyDialect::kRealizeAttrName);
  SmallVector<std::pair<int64_t, NodeId>> marked;
  for (NodeId id = 0; id < NodeId(g.size()); ++id)
    if (Operation *op = g.node(id).op)
      if (auto position =
              dyn_cast_or_null<IntegerAttr>(op->getDiscardableAttr(name)))
        marked.push_back({position.getInt(), id});
  llvm::stable_sort(marked, llvm::less_first());
  NodeSet realizes;
  for (auto [position, id] : marked)
    realizes.insert(id);
  return realizes;
}

void mlir::lazy::writeScheduleMarks(const LazyGraph &g, const NodeSet &realizes,
                                    ArrayRef<std::vector<NodeId>> groups) {
  std::vector<int64_t> position(g.size(), -1), groupOf(g.size(), -1);
  for (auto [index, id] : llvm::enumerate(realizes))
    position[id] = int64_t(index);
  for (auto [index, members] : llvm::enumerate(groups))
    for (NodeId id : members)
      groupOf[id] = int64_t(index);

  MLIRContext *ctx = g.function().getContext();
  StringAttr realizeName = StringAttr::get(ctx, LazyDialect::kRealizeAttrName);
  StringAttr groupName = StringAttr::get(ctx, LazyDialect::kGroupAttrName);
  auto i64 = IntegerType::get(ctx, 64);
  for (NodeId id = 0; id < NodeId(g.size()); ++id) {
    Operation *op = g.node(id).op;
    if (!op)
      continue;
    // Rebuilding an op's attribute dictionary is the expensive part, so an
    // op whose marks are already right (most, when lazy-group keeps what
    // lazy-mark-realize decided) is left alone. The raw dictionary holds
    // exactly the discardable attributes (lazy ops keep inherent ones in
    // properties); getDiscardableAttrDictionary() would unique a new
    // dictionary for every op without properties.
    DictionaryAttr attrs = op->getRawDictionaryAttrs();
    auto holds = [&](StringAttr name, int64_t want) {
      Attribute have = attrs.get(name);
      if (want < 0)
        return !have;
      auto value = dyn_cast_or_null<IntegerAttr>(have);
      return value && value.getType() == i64 && value.getInt() == want;
    };
    if (holds(realizeName, position[id]) && holds(groupName, groupOf[id]))
      continue;
    NamedAttrList marks(attrs);
    for (auto [name, want] : {std::pair(realizeName, position[id]),
                              std::pair(groupName, groupOf[id])}) {
      if (holds(name, want))
        continue;
      if (want < 0)
        marks.erase(name);
      else
        marks.set(name, IntegerAttr::get(i64, want));
    }
    op->setDiscardableAttrs(marks.getDictionary(ctx));
  }
}

ScheduleFlags mlir::lazy::readModuleFlags(Operation *op) {
  ScheduleFlags flags;
  auto module = op->getParentOfType<ModuleOp>();
  if (!module)
    return flags;
  auto dict =
      module->getAttrOfType<DictionaryAttr>(LazyDialect::kFlagsAttrName);
  if (!dict)
    return flags;
  auto read = [&](StringRef name, bool &flag) {
    if (auto value = dict.getAs<BoolAttr>(name))
      flag = value.getValue();
  };
  read("multi_output", flags.multiOutput);
  read("fuse_conv_bw", flags.fuseConvBw);
  read("fuse_arange", flags.fuseArange);
  read("use_copy_kernel", flags.useCopyKernel);
  return flags;
}

//===----------------------------------------------------------------------===//
// A1: the walk
//===----------------------------------------------------------------------===//

FailureOr<GraphWalk> mlir::lazy::walkGraph(const LazyGraph &g) {
  GraphWalk w;
  w.children.resize(g.size());
  for (NodeId out : g.outputs())
    if (!g.node(g.baseOf(out)).isRealized())
      w.realizes.insert(g.baseOf(out));

  struct Frame {
    NodeId node;
    unsigned next;
  };
  std::vector<Frame> stack;

  // Visits `buf` the way one _recurse_lb call does before it loops over the
  // sources: view rules (then the base), or base rules and a new frame.
  auto enter = [&](NodeId buf) -> LogicalResult {
    while (true) {
      if (w.allbufs.contains(buf) || g.node(g.baseOf(buf)).isRealized())
        return success();
      const LazyNode &n = g.node(buf);
      if (!n.isBase()) {
        const LazyNode &base = g.node(n.base);
        const st::ShapeTracker &tracker = g.tracker(buf);
        const st::View &last = tracker.views.back();
        int64_t validSize = 1;
        if (last.mask)
          for (auto [b, e] : *last.mask)
            validSize *= e - b;
        if (tracker.views.size() == 1 && last.mask && base.size >= validSize)
          w.simplePads.insert(n.base); // a pad that may fuse
        else if (base.size < n.size)
          w.realizes.insert(n.base); // realize every expand
        else if (llvm::any_of(tracker.views,
                              [](const st::View &v) { return v.mask; }))
          w.simplePads.insert(n.base);
        buf = n.base;
        continue;
      }
      if (n.isReduce()) {
        const LazyNode &src = g.node(n.srcs[0]);
        if (!src.isBase() && g.node(src.base).kind == n.kind)
          w.doubleReduces.insert(buf);
      }
      w.allbufs.insert(buf);
      if (n.forcedRealize || n.isMeta())
        w.realizes.insert(buf);
      if (n.kind == NodeOp::Assign) {
        const LazyNode &target = g.node(n.srcs[1]);
        if (!target.isBase() || !target.isRealized())
          return n.op->emitOpError(
              "assigns to a value that is not a realized buffer (a function "
              "argument); tinygrad can only assign to realized tensors");
        w.assignTargets[n.srcs[1]] = buf;
      }
      if (n.kind == NodeOp::Copy) {
        const LazyNode &src = g.node(n.srcs[0]);
        if (!g.trackers().contiguous(src.tracker) ||
            src.size != g.node(src.base).size)
          return n.op->emitOpError(
              "copies a non-contiguous view; tinygrad can only copy a whole "
              "contiguous buffer (call .contiguous() first)");
        w.realizes.insert(src.base);
      }
      if (n.kind == NodeOp::BufferView)
        w.realizes.insert(g.baseOf(n.srcs[0]));
      stack.push_back({buf, 0});
      return success();
    }
  };

  for (NodeId out : g.outputs()) {
    if (failed(enter(g.baseOf(out))))
      return failure();
    while (!stack.empty()) {
      Frame &top = stack.back();
      const LazyNode &n = g.node(top.node);
      if (top.next == n.srcs.size()) {
        stack.pop_back();
        continue;
      }
      unsigned index = top.next++;
      NodeId consumer = top.node, src = n.srcs[index];
      NodeId srcBase = g.baseOf(src);
      // A consumer is visited once, so it is a duplicate child only when
      // an earlier operand of its own reads the same base.
      if (!g.node(srcBase).isRealized() &&
          llvm::none_of(ArrayRef<NodeId>(n.srcs).take_front(index),
                        [&](NodeId s) { return g.baseOf(s) == srcBase; }))
        w.children[srcBase].push_back(consumer);
      if (failed(enter(src)))
        return failure();
    }
  }
  return w;
}

//===----------------------------------------------------------------------===//
// A2: padding safety
//===----------------------------------------------------------------------===//

NodeSet mlir::lazy::computeRealizes(const LazyGraph &g, const GraphWalk &w) {
  NodeSet realizes = w.realizes;
  // tinygrad's check recurses without a memo. A node found safe stays safe
  // as realizes only grows (more walks stop early), so safety is cached;
  // an unsafe answer is not, since a later realize can make it safe.
  std::vector<char> knownSafe(g.size(), 0);
  for (NodeId pad : w.simplePads) {
    SmallVector<NodeId> stack = {pad}, visited;
    llvm::DenseSet<NodeId> seen = {pad};
    bool ok = true;
    while (!stack.empty() && ok) {
      NodeId v = stack.pop_back_val();
      const LazyNode &n = g.node(v);
      if (realizes.contains(v) || n.isRealized() || knownSafe[v])
        continue;
      if (n.unsafePad) {
        ok = false;
        break;
      }
      visited.push_back(v);
      for (NodeId src : n.srcs)
        if (seen.insert(g.baseOf(src)).second)
          stack.push_back(g.baseOf(src));
    }
    if (ok) {
      for (NodeId v : visited)
        knownSafe[v] = 1;
    } else {
      realizes.insert(pad);
    }
  }
  return realizes;
}

//===----------------------------------------------------------------------===//
// A3-A6: grouping
//===----------------------------------------------------------------------===//

namespace {

class Grouper {
public:
  Grouper(const LazyGraph &g, const GraphWalk &w, Grouping &out)
      : memo(g.size()), g(g), w(w), pool(g.trackers()),
        realizes(out.realizes), reduceForOp(out.reduceForOp) {
    computeFrontiers();
  }

  /// tinygrad's _recursive_group: collects into `group` the realized
  /// buffers reachable from `start` through elementwise children (adding
  /// `r` when a path cannot fuse).
  void recursiveGroup(NodeId start, st::TrackerId startView, NodeId r,
                      NodeSet &group);

  /// tinygrad's _get_isolated_children.
  NodeSet isolatedChildren(NodeId r, const NodeSet &group);

  /// The reduces an upward walk from a node meets first (walking through
  /// unrealized bases, stopping at reduces): none, exactly one, or many.
  struct Frontier {
    enum Kind { None, One, Many } kind = None;
    NodeId reduce = -1;
    void merge(const Frontier &o) {
      if (o.kind == None || kind == Many)
        return;
      if (kind == None) {
        *this = o;
        return;
      }
      if (o.kind == Many || o.reduce != reduce)
        kind = Many;
    }
  };
  std::vector<Frontier> frontier;

  /// Fills `frontier` (node ids are topologically ordered: sources first).
  void computeFrontiers() {
    frontier.assign(g.size(), Frontier());
    for (NodeId v = 0; v < NodeId(g.size()); ++v) {
      const LazyNode &n = g.node(v);
      if (!n.isBase() || n.isRealized())
        continue;
      for (NodeId src : n.srcs) {
        NodeId base = g.baseOf(src);
        const LazyNode &b = g.node(base);
        if (b.isRealized())
          continue;
        if (b.isReduce())
          frontier[v].merge(Frontier{Frontier::One, base});
        else
          frontier[v].merge(frontier[base]);
      }
    }
  }

  /// Forgets the memoized walks that may pass through `x`, which just joined
  /// realizes: those of x and of its ancestors up to realized buffers
  /// (walks stop there) and reduces (walks start at, never pass through,
  /// a reduce).
  void invalidate(NodeId x) {
    SmallVector<NodeId> stack = {x};
    llvm::DenseSet<NodeId> seen = {x};
    while (!stack.empty()) {
      NodeId v = stack.pop_back_val();
      forget(v);
      const LazyNode &n = g.node(v);
      if (v != x && (realizes.contains(v) || n.isReduce()))
        continue;
      for (NodeId src : n.srcs) {
        NodeId base = g.baseOf(src);
        if (!g.node(base).isRealized() && seen.insert(base).second)
          stack.push_back(base);
      }
    }
  }
  /// What visiting a (node, view) contributes to a group: a realized
  /// buffer reached through `view` (node >= 0), or "the reduce must
  /// realize" (node == -1).
  using GroupEvent = NodeView;
  /// The memoized walks: (node, view) -> a slot of memoLists. A forgotten
  /// walk's slot is reused; a pointer into memoLists is only held until
  /// the next memoize().
  NodeViewMemo<uint32_t> memo;
  std::vector<std::vector<GroupEvent>> memoLists;
  std::vector<uint32_t> freeLists;
  const std::vector<GroupEvent> *recall(NodeView key) const {
    const uint32_t *list = memo.find(key);
    return list ? &memoLists[*list] : nullptr;
  }
  const std::vector<GroupEvent> &memoize(NodeView key,
                                         std::vector<GroupEvent> &events) {
    uint32_t list;
    if (freeLists.empty()) {
      list = uint32_t(memoLists.size());
      memoLists.emplace_back();
    } else {
      list = freeLists.back();
      freeLists.pop_back();
    }
    memoLists[list].swap(events);
    memo.set(key, list);
    return memoLists[list];
  }
  /// Forgets every walk that starts at `node`.
  void forget(NodeId node) {
    memo.forget(node, [&](uint32_t list) {
      memoLists[list].clear();
      freeLists.push_back(list);
    });
  }

  /// recursiveGroup's walk stack (a member, so that its buffer is kept
  /// from one call to the next).
  struct Frame {
    NodeView key;
    unsigned next = 0;
    bool memoize = true;
    std::vector<GroupEvent> events;
    /// The events' keys, once there are too many to search `events`.
    llvm::DenseSet<uint64_t> seen;
    void add(const GroupEvent &e) {
      static constexpr size_t kLinear = 16;
      if (events.size() < kLinear) {
        if (llvm::is_contained(events, e))
          return;
        events.push_back(e);
        if (events.size() == kLinear)
          for (const GroupEvent &x : events)
            seen.insert(x.key());
        return;
      }
      if (seen.insert(e.key()).second)
        events.push_back(e);
    }
  };
  std::vector<Frame> frames;

  const LazyGraph &g;
  const GraphWalk &w;
  st::TrackerPool &pool;
  NodeSet &realizes;
  llvm::MapVector<NodeId, NodeId> &reduceForOp;
};

void Grouper::recursiveGroup(NodeId start, st::TrackerId startView, NodeId r,
                             NodeSet &group) {
  // tinygrad's walk visits every (node, view) below `start` once per call,
  // which is quadratic when many reduces share a long unrealized
  // descendant chain. The events a (node, view) produces do not depend on
  // the reduce (only replaying them does), so they are memoized across
  // calls until a node they pass through is realized. Within an event list
  // each event appears once, at its first position: replaying a repeat is a
  // no-op, exactly as tinygrad's per-call cache skips a repeated visit.
  std::vector<Frame> &stack = frames;
  stack.clear();
  const std::vector<GroupEvent> *result = nullptr;
  std::vector<GroupEvent> single;

  // Starts visiting (tr, view): either the events are known at once
  // (`result`) or a frame is pushed.
  auto enter = [&](NodeId tr, st::TrackerId view, bool isRoot) {
    if (realizes.contains(tr) && tr != r) {
      single.assign(1, GroupEvent{tr, view});
      result = &single;
      return;
    }
    NodeView key{tr, view};
    if ((result = recall(key)))
      return;
    Frame &frame = stack.emplace_back();
    frame.memoize = !(isRoot && realizes.contains(tr));
    frame.key = key;
  };

  std::vector<GroupEvent> rootEvents;
  enter(start, startView, /*isRoot=*/true);
  if (result)
    rootEvents = *result;
  while (!stack.empty()) {
    Frame &top = stack.back();
    const auto &kids = w.children[top.key.node];
    bool done = top.next == kids.size();
    if (!done) {
      NodeId next = kids[top.next++];
      SmallVector<NodeId, 2> reads;
      if (!g.node(next).isReduce())
        reads = readsOf(g, next, top.key.node);
      if (g.node(next).isReduce() || reads.size() > 1) {
        // Max one reduce per kernel; a child reading this node through two
        // views cannot fuse: the reduce must realize, and this node's
        // remaining children are not visited.
        top.add(GroupEvent{-1, {}});
        done = true;
      } else {
        enter(next, pool.compose(top.key.view, g.node(reads[0]).tracker),
              false);
        if (!result)
          continue; // a child frame was pushed
        for (const GroupEvent &e : *result)
          stack.back().add(e);
        continue;
      }
    }
    // The frame is complete: memoize it and hand its events up.
    Frame &finished = stack.back();
    const std::vector<GroupEvent> *events = &finished.events;
    if (finished.memoize)
      events = &memoize(finished.key, finished.events);
    if (stack.size() == 1)
      rootEvents = *events;
    else
      for (const GroupEvent &e : *events)
        stack[stack.size() - 2].add(e);
    stack.pop_back();
  }

  for (const GroupEvent &e : rootEvents) {
    if (e.node < 0) {
      group.insert(r);
      continue;
    }
    // Can only fuse contiguous, same-size buffers, one reduce per kernel.
    if (!pool.contiguous(e.view) || pool.size(e.view) != g.node(r).size ||
        reduceForOp.count(e.node))
      group.insert(r);
    group.insert(e.node);
  }
}

NodeSet Grouper::isolatedChildren(NodeId r, const NodeSet &group) {
  // tinygrad walks every unrealized ancestor of the members (not entering
  // r) and gives up at the first reduce. That walk stops at reduces, so it
  // finds a reduce other than r exactly when a member is a reduce or its
  // reduce frontier holds one besides r: answered in O(1) per member.
  for (NodeId member : group) {
    if (g.node(member).isReduce())
      return {};
    const Frontier &f = frontier[member];
    if (f.kind == Frontier::Many || (f.kind == Frontier::One && f.reduce != r))
      return {};
  }
  NodeSet descendants;
  for (NodeId tr : group)
    recursiveGroup(tr, g.node(tr).tracker, tr, descendants);
  NodeSet merged = group;
  if (llvm::none_of(group, [&](NodeId tr) { return descendants.contains(tr); }))
    merged.insert(descendants.begin(), descendants.end());
  return merged;
}

} // namespace

Grouping mlir::lazy::computeGroups(const LazyGraph &g, const GraphWalk &w,
                                   NodeSet realizesIn,
                                   const ScheduleFlags &flags) {
  Grouping out;
  out.realizes = std::move(realizesIn);
  Grouper grouper(g, w, out);
  NodeSet &realizes = out.realizes;
  auto &reduceForOp = out.reduceForOp;
  SmallVector<NodeId> reduceOfConst;
  st::TrackerPool &pool = g.trackers();
  llvm::DenseMap<uint64_t, NodeId> chaseEnd; // keyed by NodeView::key()

  for (NodeId r : w.allbufs) {
    const LazyNode &rn = g.node(r);
    if (!rn.isReduce() || realizes.contains(r))
      continue;
    NodeSet group;
    grouper.recursiveGroup(r, rn.tracker, r, group);
    bool canChase = llvm::none_of(
        group, [&](NodeId tr) { return reduceForOp.count(tr) != 0; });
    bool forcedRealize = group.contains(r);
    if (!forcedRealize && group.size() > 1)
      group = grouper.isolatedChildren(r, group);

    // Fuse an ASSIGN only if the kernel reads no other assign target.
    if (!forcedRealize && llvm::any_of(group, [&](NodeId tr) {
          return g.node(tr).kind == NodeOp::Assign;
        })) {
      SmallVector<NodeId> stack = {r};
      stack.append(group.begin(), group.end());
      llvm::DenseSet<NodeId> visited;
      while (!stack.empty() && !forcedRealize) {
        NodeId p = g.baseOf(stack.pop_back_val());
        if (!visited.insert(p).second)
          continue;
        if (g.node(p).isRealized() || realizes.contains(p)) {
          auto target = w.assignTargets.find(p);
          if (target != w.assignTargets.end() &&
              !group.contains(target->second)) {
            forcedRealize = true;
            canChase = false;
          }
          continue;
        }
        stack.append(g.node(p).srcs.begin(), g.node(p).srcs.end());
      }
    }

    if (forcedRealize || group.empty()) {
      NodeId tr = r;
      if (canChase) {
        // Chase down to a contiguous child. Where a chase ends depends only
        // on the graph (not on realizes), so every (node, view) it passes
        // remembers the end: chains shared by many reduces are walked once.
        st::TrackerId view = rn.tracker;
        SmallVector<uint64_t> passed;
        while (w.children[tr].size() == 1) {
          uint64_t key = NodeView{tr, view}.key();
          if (auto known = chaseEnd.find(key); known != chaseEnd.end()) {
            tr = known->second;
            break;
          }
          passed.push_back(key);
          NodeId next = w.children[tr][0];
          SmallVector<NodeId, 2> reads = readsOf(g, next, tr);
          if (reads.size() > 1 || pool.size(view) != g.node(reads[0]).size)
            break;
          view = pool.compose(view, g.node(reads[0]).tracker);
          if (!pool.contiguous(view) || g.node(next).isReduce())
            break;
          tr = next;
        }
        for (uint64_t key : passed)
          chaseEnd[key] = tr;
        // Store the narrower dtype rather than cast up before the store.
        const LazyNode &tn = g.node(tr);
        if (tn.op && isa<CastOp>(tn.op) &&
            tn.itemSize > g.node(tn.srcs[0]).itemSize)
          tr = g.baseOf(tn.srcs[0]);
        reduceForOp[tr] = r;
      }
      // A walk never passes through a reduce (it stops at a reduce child),
      // so realizing one leaves the memoized walks valid.
      if (realizes.insert(tr) && !g.node(tr).isReduce())
        grouper.invalidate(tr);
    } else {
      for (NodeId tr : group)
        reduceForOp[tr] = r;
    }
    if (flags.fuseArange && rn.kind == NodeOp::ReduceSum &&
        g.node(g.baseOf(rn.srcs[0])).kind == NodeOp::Const)
      reduceOfConst.push_back(r);
  }

  // FUSE_CONV_BW: a double reduce whose inner reduce has no other child
  // computes both in one kernel.
  if (flags.fuseConvBw)
    for (NodeId reduce : w.doubleReduces) {
      NodeId top = g.baseOf(g.node(reduce).srcs[0]);
      if (w.children[top].size() == 1)
        realizes.remove(top);
    }

  // FUSE_ARANGE: a sum over a const is recomputed inside its consumers.
  for (NodeId r : reduceOfConst) {
    SmallVector<NodeId> group;
    for (auto [tr, rop] : reduceForOp)
      if (rop == r)
        group.push_back(tr);
    bool keep = llvm::any_of(group, [&](NodeId tr) {
      return g.node(tr).forcedRealize ||
             llvm::any_of(g.outputs(),
                          [&](NodeId o) { return g.baseOf(o) == tr; });
    });
    if (keep)
      continue;
    bool hasKernelChild = llvm::any_of(group, [&](NodeId tr) {
      return llvm::any_of(w.children[tr], [&](NodeId c) {
        return g.node(c).kind != NodeOp::Copy &&
               g.node(c).kind != NodeOp::BufferView;
      });
    });
    if (!hasKernelChild)
      continue;
    for (NodeId tr : group)
      realizes.remove(tr);
  }

  llvm::MapVector<NodeId, std::vector<NodeId>> groups;
  for (NodeId buf : realizes) {
    const LazyNode &n = g.node(buf);
    if (n.isRealized() || n.kind == NodeOp::Const || n.seen)
      continue;
    auto it = reduceForOp.find(buf);
    NodeId key = it != reduceForOp.end() && flags.multiOutput ? it->second
                                                              : buf;
    groups[key].push_back(buf);
  }
  for (auto &entry : groups)
    out.outputGroups.push_back(std::move(entry.second));
  return out;
}

ScheduleGraphAnalysis::ScheduleGraphAnalysis(Operation *op) {
  FailureOr<LazyGraph> built = LazyGraph::build(cast<func::FuncOp>(op));
  if (failed(built))
    return;
  FailureOr<GraphWalk> walked = walkGraph(*built);
  if (failed(walked))
    return;
  graph = std::move(*built);
  walk = std::move(*walked);
}
