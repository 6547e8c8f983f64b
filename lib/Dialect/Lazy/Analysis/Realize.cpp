//===- Realize.cpp - which bases must realize (A1) ------------------------===//
//
// tinygrad 0.9.2's _recurse_lb (scheduler spec §2.1): a depth-first walk
// from the outputs, sources in operand order, that realizes
//   1. the base of every output that is not already realized;
//   2. every base with forced_realize and every meta op (const, empty, copy,
//      contiguous, custom, assign, buffer_view);
//   3. the source base of a copy and of a buffer_view;
//   4. the base of every view that expands it (more elements than the
//      base), unless the view is one masked view whose valid box fits in the
//      base: a pad, which UnsafePads.cpp checks;
// and records what later rules need: the pre-order of unrealized bases,
// each base's children, the pads to check, the double reduces
// (DoubleReduceMerge.cpp) and the assign targets (AssignHazards.cpp).
// Errors, as tinygrad's assertions: an assign to anything but a realized
// buffer; a copy of a non-contiguous or partial view.
// tinygrad recurses; the walk keeps an explicit stack whose frames visit
// the sources in the same order, so each ordered set fills in tinygrad's
// order.
//
//===----------------------------------------------------------------------===//

#include "ScheduleRules.h"
#include "lazy/Dialect/Lazy/IR/LazyAttrs.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;

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
      if (!n.isBase() && (g.trackers().isSymbolic(n.tracker) ||
                          hasSymbolicShape(g.node(n.base).type))) {
        // The same rules on sints: a comparison of products holds when it
        // may hold, and a symbolic base shape never takes the first.
        const LazyNode &base = g.node(n.base);
        st::SymShapeTracker tracker = g.trackers().getSym(n.tracker);
        const st::SymView &last = tracker.views.back();
        st::SymShape baseShape = symbolicShapeOf(base.type);
        if (tracker.views.size() == 1 && last.mask &&
            !hasSymbolicShape(base.type) &&
            st::prodMayBeGreaterEq(baseShape, st::maskExtents(*last.mask)))
          w.simplePads.insert(n.base);
        else if (st::prodMayBeLess(baseShape, tracker.shape()))
          w.realizes.insert(n.base);
        else if (llvm::any_of(tracker.views, [](const st::SymView &v) {
                   return bool(v.mask);
                 }))
          w.simplePads.insert(n.base);
        buf = n.base;
        continue;
      }
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
        else if (tracker.masked())
          w.simplePads.insert(n.base);
        buf = n.base;
        continue;
      }
      if (isDoubleReduce(g, buf))
        w.doubleReduces.insert(buf);
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

RealizeReasons mlir::lazy::countRealizeReasons(const LazyGraph &g,
                                               const NodeSet &realizes) {
  // The bases some view expands, and the sources of copies and
  // buffer_views (rules 4 and 3), in one pass over the nodes.
  std::vector<char> expanded(g.size(), 0), copied(g.size(), 0);
  for (NodeId id = 0; id < NodeId(g.size()); ++id) {
    const LazyNode &n = g.node(id);
    if (!n.isBase() && g.node(n.base).size < n.size)
      expanded[n.base] = 1;
    if (n.kind == NodeOp::Copy || n.kind == NodeOp::BufferView)
      copied[g.baseOf(n.srcs[0])] = 1;
  }
  RealizeReasons reasons;
  for (NodeId id : realizes) {
    const LazyNode &n = g.node(id);
    if (g.isOutputBase(id))
      ++reasons.outputs;
    else if (n.forcedRealize || n.isMeta())
      ++reasons.metaOrForced;
    else if (copied[id])
      ++reasons.copySources;
    else if (expanded[id])
      ++reasons.expanded;
    else
      ++reasons.otherRules;
  }
  return reasons;
}
