//===- ReduceGrouping.cpp - what a reduce's kernel takes in (A3) ----------===//
//
// tinygrad 0.9.2's reduce grouping (scheduler spec §2.3: reduce_for_op,
// _recursive_group, chasing). For each unrealized reduce, in walk order:
//   1. collect the realized buffers reachable from it through elementwise
//      children. The reduce must realize itself instead when a path meets
//      another reduce or reads one base through two views (one reduce per
//      kernel), or reaches a buffer through a view that is not contiguous
//      or not of the reduce's size, or a buffer already grouped with
//      another reduce;
//   2. several buffers form a group only when they are isolated
//      (MultiOutput.cpp);
//   3. a group holding an assign must pass the assign guard
//      (AssignHazards.cpp);
//   4. a reduce that must realize itself is chased, when no buffer it
//      reaches is grouped with another reduce, down its single-child chain
//      while the view stays contiguous and of the same size and no reduce
//      is met; the chain's end realizes in its place and stores the reduce
//      (never after a widening cast: the narrower source is stored).
// tinygrad's walk visits every (node, view) below a reduce once per call;
// here the events a walk produces are memoized across reduces until a node
// they pass through is realized, and chase ends are remembered: the same
// answers, without the quadratic cost on long shared chains.
//
//===----------------------------------------------------------------------===//

#include "ReduceGrouping.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;

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

std::vector<NodeId> mlir::lazy::groupReduces(const LazyGraph &g,
                                             const GraphWalk &w,
                                             SchedulePlan &plan,
                                             bool collectAranges) {
  Grouper grouper(g, w, plan);
  NodeSet &realizes = plan.realizes;
  auto &reduceForOp = plan.reduceForOp;
  std::vector<NodeId> aranges;
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

    // Fuse an ASSIGN only if the kernel reads no other assign target
    // (AssignHazards.cpp).
    if (!forcedRealize &&
        llvm::any_of(
            group,
            [&](NodeId tr) { return g.node(tr).kind == NodeOp::Assign; }) &&
        readsOtherAssignTarget(g, w, realizes, r, group)) {
      forcedRealize = true;
      canChase = false;
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
    if (collectAranges && isArangeReduce(g, r))
      aranges.push_back(r);
  }

  return aranges;
}
