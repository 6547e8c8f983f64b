//===- ReduceGrouping.h - what a reduce's kernel takes in --------*- C++
//-*-===//
//
// Private to the analysis library: the grouping walk of ReduceGrouping.cpp,
// whose multi-output half (isolatedChildren) is in MultiOutput.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_LIB_DIALECT_LAZY_ANALYSIS_REDUCEGROUPING_H
#define LAZY_LIB_DIALECT_LAZY_ANALYSIS_REDUCEGROUPING_H

#include "ScheduleRules.h"
#include "lazy/Dialect/Lazy/Analysis/NodeViewMemo.h"

#include "llvm/ADT/DenseSet.h"

namespace mlir::lazy {

class Grouper {
public:
  Grouper(const LazyGraph &g, const GraphWalk &w, SchedulePlan &out)
      : memo(g.size()), g(g), w(w), pool(g.trackers()), realizes(out.realizes),
        reduceForOp(out.reduceForOp) {
    computeFrontiers();
  }

  /// tinygrad's _recursive_group: collects into `group` the realized
  /// buffers reachable from `start` through elementwise children (adding
  /// `r` when a path cannot fuse).
  void recursiveGroup(NodeId start, ::lazy::st::TrackerId startView, NodeId r,
                      NodeSet &group);

  /// tinygrad's _get_isolated_children (MultiOutput.cpp).
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
  ::lazy::st::TrackerPool &pool;
  NodeSet &realizes;
  llvm::MapVector<NodeId, NodeId> &reduceForOp;
};

/// A3: groups every unrealized reduce of the walk, in walk order, into
/// `plan` (realizes and reduceForOp). Returns the aranges met
/// (ArangeFolding.cpp), in order, when `collectAranges`.
std::vector<NodeId> groupReduces(const LazyGraph &g, const GraphWalk &w,
                                 SchedulePlan &plan, bool collectAranges);

} // namespace mlir::lazy

#endif // LAZY_LIB_DIALECT_LAZY_ANALYSIS_REDUCEGROUPING_H
