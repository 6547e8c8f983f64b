//===- AggressiveFusion.cpp - fusion=aggressive, beyond tinygrad 0.9.2 ----===//
//
// With the `fusion` flag set to "aggressive", these rules run after
// tinygrad's (ScheduleAnalysis.cpp, before the output groups are formed)
// and take back realizes that tinygrad's heuristics add. Every kernel still
// computes exactly the ops of the graph, so results equal the unfused
// graph's (bit for bit: the same ops in the same order per element).
//
//   1. Recompute instead of store. tinygrad realizes the base of every view
//      that expands it. An elementwise base realized for that reason alone
//      is computed inside each kernel that reads it instead, when
//        - nothing else needs its buffer: it is no output, not forced
//          (contiguous), not held from outside (external) or made by an
//          earlier schedule (seen), not stored with a reduce, not read by
//          a copy or buffer_view, and not a pad that UnsafePads.cpp checks;
//        - it is cheap to recompute: at most kMaxRecomputedOps unrealized
//          ops below it, none a reduce, reading no assign target (whose
//          readers lazy-toposort orders against the assign);
//        - padding stays zero: when a consumer reads it through a masked
//          view, no op from it down is unsafe to pad (UnsafePads.cpp: the
//          padded elements would compute recip(0) and the like);
//        - it moves fewer bytes. With S(x) the bytes of buffer x, B the
//          base, L its distinct realized leaves (consts are free) and n the
//          consumers reading it (an upper bound on the kernels that do),
//          storing costs S(B) + ΣS(L) to compute it and n·S(B) to read it
//          back; recomputing costs n·ΣS(L). Recompute when
//          n·ΣS(L) < S(B) + ΣS(L) + n·S(B).
//      Bases are decided consumers first; a pad reaches a base through
//      every unrealized node between it and the masked view.
//   2. Recompute instead of contiguous. tinygrad realizes every CONTIGUOUS
//      and every base that .contiguous() forced. One that is no output (an
//      optimizer's fresh zero state, a contiguous copy read by the next op)
//      is taken back under the conditions and cost model of rule 1; an
//      unrealized CONTIGUOUS is its source's value (KernelAst.cpp).
//   3. Epilogues through a view. tinygrad stores a reduce by itself when
//      the view its child reads it through is not contiguous (a transposed
//      matmul, a permuted sum): the child's kernel then loads it back. A
//      reduce that no output, other buffer of its group or assign needs is
//      computed inside that kernel instead (the view pushed into the
//      reduce's input, as tinygrad pushes views on a reduce's output),
//      when its one child reads it through one view of its own size
//      without a mask (no element is recomputed) and the chain from there
//      (single-child, unrealized elementwise ops, each read the same way)
//      ends at a realized elementwise buffer that is stored with no reduce
//      and reaches no other reduce, of a rank that keeps every reduced axis
//      once pushed through (else tinygrad's push-through fails). It saves
//      the reduce's store and load.
//   4. Sibling reduces. Output groups whose single reduce has the same
//      input shape and axes (so that their outputs share one reduce
//      space) and that read a realized buffer in common become one
//      kernel, which reads that buffer once, when neither depends on the
//      other through any chain of kernels (the schedule stays acyclic) and
//      neither holds or reads anything an assign writes (whose ordering
//      edges lazy-toposort adds). Groups are merged greedily in group
//      order; a merged group sits where its first member was.
//
//===----------------------------------------------------------------------===//

#include "ScheduleRules.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;

/// The most unrealized ops a recomputed base may stand for.
static constexpr unsigned kMaxRecomputedOps = 16;

namespace {

/// Bytes of a node's buffer.
int64_t bytesOf(const LazyNode &n) { return n.size * n.itemSize; }

/// Whether a realized `b` may be taken back: rule 1's elementwise bases
/// (realized only because a view expands them) and rule 2's contiguous
/// ones, when nothing else needs their buffer.
bool mayTakeBack(const LazyGraph &g, const GraphWalk &w,
                 const SchedulePlan &plan, NodeId b) {
  const LazyNode &n = g.node(b);
  bool contiguous = n.kind == NodeOp::Contiguous ||
                    (n.kind == NodeOp::Elementwise && n.forcedRealize);
  if ((n.kind != NodeOp::Elementwise && !contiguous) || n.external || n.seen ||
      plan.reduceForOp.count(b) || w.simplePads.contains(b) ||
      w.assignTargets.count(b))
    return false;
  if (g.isOutputBase(b))
    return false;
  return llvm::none_of(w.children[b], [&](NodeId c) {
    NodeOp kind = g.node(c).kind;
    return kind == NodeOp::Copy || kind == NodeOp::BufferView ||
           kind == NodeOp::Assign;
  });
}

/// Whether `b`'s value reaches a kernel through a view with a mask (a
/// pad): read so by a consumer, or by a consumer of an unrealized node
/// that reads it (whose ops a kernel inlines, views composed).
bool readThroughMask(const LazyGraph &g, const GraphWalk &w,
                     const NodeSet &realizes, NodeId b) {
  SmallVector<NodeId> stack = {b};
  llvm::DenseSet<NodeId> visited = {b};
  while (!stack.empty()) {
    NodeId x = stack.pop_back_val();
    for (NodeId c : w.children[x]) {
      for (NodeId src : g.node(c).srcs)
        if (g.baseOf(src) == x && !g.node(src).isBase() &&
            g.tracker(src).masked())
          return true;
      if (!realizes.contains(c) && visited.insert(c).second)
        stack.push_back(c);
    }
  }
  return false;
}

} // namespace

/// Whether operand `src` reads each element of its base once: of its size,
/// no mask.
static bool readsEachOnce(const LazyGraph &g, NodeId src) {
  const LazyNode &n = g.node(src);
  if (n.isBase())
    return true;
  return n.size == g.node(n.base).size && !g.tracker(src).masked();
}

/// The one operand of `consumer` that reads `base`, or -1.
static NodeId onlyReadOf(const LazyGraph &g, NodeId consumer, NodeId base) {
  SmallVector<NodeId, 2> reads = readsOf(g, consumer, base);
  return reads.size() == 1 ? reads[0] : NodeId(-1);
}

void mlir::lazy::fuseReduceEpilogues(const LazyGraph &g, const GraphWalk &w,
                                     SchedulePlan &plan) {
  NodeSet &realizes = plan.realizes;
  SmallVector<NodeId> reduces;
  for (NodeId r : realizes) {
    const LazyNode &n = g.node(r);
    if (n.isReduce() && !n.forcedRealize && !n.external && !n.seen &&
        !w.assignTargets.count(r))
      reduces.push_back(r);
  }
  for (NodeId r : reduces) {
    if (g.isOutputBase(r))
      continue;
    // r alone in its group.
    if (llvm::any_of(plan.reduceForOp, [&](const auto &entry) {
          return entry.second == r && entry.first != r;
        }))
      continue;
    // Down the single-child chain to the realized buffer that would store.
    NodeId at = r, end = -1;
    while (true) {
      if (w.children[at].size() != 1)
        break;
      NodeId c = w.children[at][0];
      NodeId read = onlyReadOf(g, c, at);
      const LazyNode &cn = g.node(c);
      if (read < 0 || !readsEachOnce(g, read) ||
          cn.kind != NodeOp::Elementwise || cn.size != g.node(r).size)
        break;
      if (realizes.contains(c)) {
        end = c;
        break;
      }
      at = c;
    }
    if (end < 0 || plan.reduceForOp.count(end) || g.node(end).external ||
        g.node(end).seen || w.assignTargets.count(end))
      continue;
    // Pushed into r's input, the view from the end's shape gains r's
    // reduced dims; tinygrad's push-through fails when a reduced axis then
    // lies past that rank.
    ArrayRef<int64_t> axes = reduceAxesOf(g.node(r));
    if (axes.empty() || int64_t(g.node(end).shape().size() + axes.size()) <=
                            *llvm::max_element(axes))
      continue;
    // The end's kernel must reach no reduce but r.
    SmallVector<NodeId> stack = {end};
    llvm::DenseSet<NodeId> seen = {end};
    bool alone = true;
    while (!stack.empty() && alone) {
      const LazyNode &n = g.node(stack.pop_back_val());
      for (NodeId src : n.srcs) {
        NodeId base = g.baseOf(src);
        const LazyNode &b = g.node(base);
        if (b.isRealized() || (realizes.contains(base) && base != r) ||
            !seen.insert(base).second)
          continue;
        if (b.isReduce() && base != r) {
          alone = false;
          break;
        }
        if (base != r)
          stack.push_back(base);
      }
    }
    if (!alone)
      continue;
    realizes.remove(r);
    plan.reduceForOp.erase(r);
    plan.reduceForOp[end] = r;
  }
}

void mlir::lazy::recomputeRealizedBases(const LazyGraph &g, const GraphWalk &w,
                                        SchedulePlan &plan) {
  NodeSet &realizes = plan.realizes;
  SmallVector<NodeId> candidates;
  for (NodeId b : realizes)
    if (mayTakeBack(g, w, plan, b))
      candidates.push_back(b);
  // Consumers first (node ids are topological): when a base is decided,
  // whether its consumers are inlined, and so the views that reach its
  // value, is known.
  llvm::sort(candidates, std::greater<NodeId>());
  for (NodeId b : candidates) {
    // Walk the ops below b down to realized buffers.
    SmallVector<NodeId> stack(
        llvm::map_range(g.node(b).srcs, [&](NodeId s) { return g.baseOf(s); }));
    llvm::DenseSet<NodeId> seen(stack.begin(), stack.end());
    int64_t leafBytes = 0;
    unsigned ops = 1;
    bool padded = readThroughMask(g, w, realizes, b);
    bool ok = !(padded && g.node(b).unsafePad);
    while (!stack.empty() && ok) {
      NodeId v = stack.pop_back_val();
      const LazyNode &n = g.node(v);
      if (n.kind == NodeOp::Const)
        continue;
      if (n.isRealized() || realizes.contains(v)) {
        ok = !w.assignTargets.count(v);
        leafBytes += bytesOf(n);
        continue;
      }
      if (n.isReduce() || (n.isMeta() && n.kind != NodeOp::Contiguous) ||
          (padded && n.unsafePad) || ++ops > kMaxRecomputedOps) {
        ok = false;
        break;
      }
      for (NodeId src : n.srcs)
        if (seen.insert(g.baseOf(src)).second)
          stack.push_back(g.baseOf(src));
    }
    if (!ok)
      continue;
    int64_t consumers = int64_t(w.children[b].size());
    int64_t stored =
        bytesOf(g.node(b)) + leafBytes + consumers * bytesOf(g.node(b));
    int64_t recomputed = consumers * leafBytes;
    if (recomputed < stored)
      realizes.remove(b);
  }
}

namespace {
/// What rule 4 needs of one output group.
struct GroupFacts {
  NodeId reduce = -1;         // its one reduce, -1 when it has none or several
  SmallVector<NodeId> leaves; // realized nodes it reads, each once
  bool hazard = false;        // holds an assign or reads an assign target
};
} // namespace

void mlir::lazy::mergeSiblingReduces(const LazyGraph &g, const GraphWalk &w,
                                     SchedulePlan &plan) {
  std::vector<std::vector<NodeId>> &groups = plan.outputGroups;
  size_t n = groups.size();
  std::vector<int32_t> groupOf(g.size(), -1);
  for (auto [i, group] : llvm::enumerate(groups))
    for (NodeId id : group)
      groupOf[id] = int32_t(i);
  std::vector<GroupFacts> facts(n);
  for (auto [i, group] : llvm::enumerate(groups)) {
    GroupFacts &f = facts[i];
    SmallVector<NodeId> stack;
    llvm::DenseSet<NodeId> seen;
    unsigned reduces = 0;
    for (NodeId id : group) {
      NodeOp kind = g.node(id).kind;
      if (kind != NodeOp::Elementwise && !g.node(id).isReduce())
        f.hazard = true;
      if (seen.insert(id).second)
        stack.push_back(id);
    }
    while (!stack.empty()) {
      NodeId v = stack.pop_back_val();
      const LazyNode &node = g.node(v);
      if (node.isReduce()) {
        ++reduces;
        f.reduce = v;
      }
      for (NodeId src : node.srcs) {
        NodeId base = g.baseOf(src);
        if (!seen.insert(base).second)
          continue;
        const LazyNode &b = g.node(base);
        if (b.isRealized() || plan.realizes.contains(base)) {
          if (b.kind != NodeOp::Const)
            f.leaves.push_back(base);
          f.hazard |= w.assignTargets.count(base) != 0;
          continue;
        }
        if (b.isMeta())
          f.hazard = true;
        stack.push_back(base);
      }
    }
    if (reduces != 1)
      f.reduce = -1;
  }

  // reach[i]: the groups group i reads from, directly or through others.
  std::vector<llvm::BitVector> reach(n, llvm::BitVector(n));
  {
    std::vector<char> done(n, 0);
    for (size_t root = 0; root < n; ++root) {
      if (done[root])
        continue;
      SmallVector<std::pair<size_t, size_t>> stack = {{root, 0}};
      while (!stack.empty()) {
        auto &[i, next] = stack.back();
        if (next < facts[i].leaves.size()) {
          int32_t j = groupOf[facts[i].leaves[next++]];
          if (j >= 0 && size_t(j) != i && !done[j])
            stack.push_back({size_t(j), 0});
          continue;
        }
        for (NodeId leaf : facts[i].leaves) {
          int32_t j = groupOf[leaf];
          if (j >= 0 && size_t(j) != i) {
            reach[i].set(j);
            reach[i] |= reach[j];
          }
        }
        done[i] = 1;
        stack.pop_back();
      }
    }
  }

  auto signature = [&](NodeId r) {
    return std::make_pair(g.node(g.node(r).srcs[0]).shape(),
                          reduceAxesOf(g.node(r)));
  };
  // Clusters by their first group (a head); members as bits. A group
  // merged into a head has no members of its own.
  std::vector<llvm::BitVector> members(n, llvm::BitVector(n));
  SmallVector<size_t> heads;
  for (size_t i = 0; i < n; ++i) {
    members[i].set(i);
    const GroupFacts &fi = facts[i];
    if (fi.reduce < 0 || fi.hazard)
      continue;
    for (size_t c : heads) {
      const GroupFacts &fc = facts[c];
      if (signature(fc.reduce) != signature(fi.reduce))
        continue;
      bool shares = false;
      for (size_t m = members[c].find_first(); m != size_t(-1) && !shares;
           m = members[c].find_next(m))
        shares = llvm::any_of(facts[m].leaves, [&](NodeId leaf) {
          return llvm::is_contained(fi.leaves, leaf);
        });
      // Independent both ways: no member reaches i, i reaches no member.
      if (!shares || reach[c].test(i) || reach[i].anyCommon(members[c]))
        continue;
      // Contract i into c: whoever reached either reaches both.
      llvm::BitVector merged = reach[c];
      merged |= reach[i];
      members[c].set(i);
      members[i].reset();
      for (size_t u = 0; u < n; ++u)
        if (reach[u].anyCommon(members[c])) {
          reach[u] |= merged;
          reach[u] |= members[c];
        }
      for (size_t m = members[c].find_first(); m != size_t(-1);
           m = members[c].find_next(m))
        reach[m] = merged;
      break;
    }
    if (members[i].any())
      heads.push_back(i);
  }
  std::vector<std::vector<NodeId>> out;
  for (size_t i = 0; i < n; ++i) {
    if (members[i].none())
      continue;
    std::vector<NodeId> group;
    for (size_t m = members[i].find_first(); m != size_t(-1);
         m = members[i].find_next(m))
      group.insert(group.end(), groups[m].begin(), groups[m].end());
    out.push_back(std::move(group));
  }
  groups = std::move(out);
}

//===----------------------------------------------------------------------===//
// Rule 5: row values
//===----------------------------------------------------------------------===//

namespace {

/// Whether `view` (from `from`'s shape) only broadcasts it: one view, no
/// mask or offset, of the same rank, each axis either `from`'s own (same
/// extent, its contiguous stride) or an expanded axis of extent 1 there.
bool onlyExpands(const st::ShapeTracker &view, ArrayRef<int64_t> from) {
  if (view.views.size() != 1)
    return false;
  const st::View &v = view.views[0];
  if (v.mask || v.offset != 0 || v.shape.size() != from.size())
    return false;
  std::vector<int64_t> contiguous =
      st::stridesForShape(std::vector<int64_t>(from.begin(), from.end()));
  for (size_t d = 0; d < from.size(); ++d) {
    if (from[d] == 1 ? v.strides[d] != 0
                     : v.shape[d] != from[d] || v.strides[d] != contiguous[d])
      return false;
  }
  return true;
}

/// One output group as rule 5 sees it.
struct RowGroup {
  std::vector<NodeId> outputs;
  /// Realized nodes its kernel reads.
  llvm::SmallDenseSet<NodeId, 8> leaves;
  bool alive = true;
};

class RowFusion {
public:
  RowFusion(const LazyGraph &g, const GraphWalk &w, SchedulePlan &plan)
      : g(g), w(w), plan(plan) {}

  void run();

private:
  bool isLeaf(NodeId base) const {
    return g.node(base).isRealized() || plan.realizes.contains(base);
  }
  /// The unrealized nodes a kernel of `roots` computes, and the leaves it
  /// reads.
  void walk(ArrayRef<NodeId> roots, SmallVectorImpl<NodeId> &inner,
            llvm::SmallDenseSet<NodeId, 8> *leaves) const;
  /// Rule 5's conditions on a realized base `b` alone in its group.
  bool mayBeRowValue(NodeId b) const;
  /// Whether reader group `r`'s kernel can compute `b` per row: every read
  /// of `b` in it only expands `b`, at a node of the kernel's own shape
  /// (reached from an output or a row value without a view), along axes
  /// no reduce of the kernel runs on.
  bool readsPerRow(const RowGroup &r, NodeId b) const;

  const LazyGraph &g;
  const GraphWalk &w;
  SchedulePlan &plan;
};

void RowFusion::walk(ArrayRef<NodeId> roots, SmallVectorImpl<NodeId> &inner,
                     llvm::SmallDenseSet<NodeId, 8> *leaves) const {
  SmallVector<NodeId> stack(roots.begin(), roots.end());
  llvm::DenseSet<NodeId> seen(roots.begin(), roots.end());
  while (!stack.empty()) {
    NodeId v = stack.pop_back_val();
    inner.push_back(v);
    for (NodeId src : g.node(v).srcs) {
      NodeId base = g.baseOf(src);
      if (!seen.insert(base).second)
        continue;
      if (isLeaf(base)) {
        if (leaves && g.node(base).kind != NodeOp::Const)
          leaves->insert(base);
        continue;
      }
      stack.push_back(base);
    }
  }
}

bool RowFusion::mayBeRowValue(NodeId b) const {
  const LazyNode &n = g.node(b);
  if ((n.kind != NodeOp::Elementwise && !n.isReduce()) || n.external ||
      n.seen || n.forcedRealize || w.simplePads.contains(b) ||
      w.assignTargets.count(b) || g.isOutputBase(b))
    return false;
  if (llvm::any_of(w.children[b], [&](NodeId c) {
        NodeOp kind = g.node(c).kind;
        return kind == NodeOp::Copy || kind == NodeOp::BufferView ||
               kind == NodeOp::Assign;
      }))
    return false;
  // Its kernel: elementwise ops and reduces of its own rank, each reading
  // the unrealized ones without a view, at least one reduce, and no leaf
  // an assign writes.
  SmallVector<NodeId> inner;
  walk({b}, inner, nullptr);
  bool reduces = false;
  for (NodeId v : inner) {
    const LazyNode &node = g.node(v);
    if (node.isMeta())
      return false;
    if (node.isReduce()) {
      reduces = true;
      if (g.node(node.srcs[0]).shape().size() != n.shape().size())
        return false;
    }
    for (NodeId src : node.srcs) {
      NodeId base = g.baseOf(src);
      if (isLeaf(base)) {
        if (w.assignTargets.count(base))
          return false;
        continue;
      }
      if (!g.node(src).isBase())
        return false;
    }
  }
  return reduces;
}

bool RowFusion::readsPerRow(const RowGroup &r, NodeId b) const {
  ArrayRef<int64_t> shape = g.node(r.outputs.front()).shape();
  for (NodeId out : r.outputs) {
    NodeOp kind = g.node(out).kind;
    if ((kind != NodeOp::Elementwise && !g.node(out).isReduce()) ||
        g.node(out).shape() != shape)
      return false;
  }
  ArrayRef<int64_t> from = g.node(b).shape();
  if (from.size() != shape.size())
    return false;
  SmallVector<bool> rowAxis(shape.size());
  for (size_t d = 0; d < shape.size(); ++d)
    rowAxis[d] = from[d] > 1;
  // The nodes of the kernel's own shape: from the outputs and from the
  // row values (b among them) through edges without a view.
  SmallVector<NodeId> roots(r.outputs.begin(), r.outputs.end());
  roots.push_back(b);
  SmallVector<NodeId> inner;
  walk(roots, inner, nullptr);
  for (NodeId v : inner)
    if (plan.rowValues.contains(v))
      roots.push_back(v);
  llvm::DenseSet<NodeId> direct(roots.begin(), roots.end());
  SmallVector<NodeId> stack(roots.begin(), roots.end());
  while (!stack.empty()) {
    const LazyNode &n = g.node(stack.pop_back_val());
    for (NodeId src : n.srcs)
      if (g.node(src).isBase() && !isLeaf(src) && src != b &&
          direct.insert(src).second)
        stack.push_back(src);
  }
  for (NodeId v : inner) {
    const LazyNode &n = g.node(v);
    if (n.isReduce()) {
      if (g.node(n.srcs[0]).shape().size() != shape.size() ||
          llvm::any_of(reduceAxesOf(n),
                       [&](int64_t a) { return rowAxis[size_t(a)]; }))
        return false;
    }
    for (NodeId src : n.srcs) {
      if (g.baseOf(src) != b)
        continue;
      if (v == b)
        continue;
      // A read of b: an expand, at a node of the kernel's own rows.
      if (g.node(src).isBase() || !direct.contains(v) ||
          !onlyExpands(g.tracker(src), from))
        return false;
      ArrayRef<int64_t> at = g.node(src).shape();
      for (size_t d = 0; d < shape.size(); ++d)
        if (rowAxis[d] && at[d] != shape[d])
          return false;
    }
  }
  return true;
}

void RowFusion::run() {
  std::vector<RowGroup> groups;
  std::vector<int32_t> groupOf(g.size(), -1);
  for (auto [i, outputs] : llvm::enumerate(plan.outputGroups)) {
    RowGroup &r = groups.emplace_back();
    r.outputs = outputs;
    SmallVector<NodeId> inner;
    walk(outputs, inner, &r.leaves);
    for (NodeId out : outputs)
      groupOf[out] = int32_t(i);
  }
  SmallVector<NodeId> candidates;
  for (const RowGroup &r : groups)
    if (r.outputs.size() == 1 && mayBeRowValue(r.outputs.front()))
      candidates.push_back(r.outputs.front());
  // Consumers first: a value its reader absorbed is part of that reader
  // when the values it reads are decided.
  llvm::sort(candidates, std::greater<NodeId>());
  for (NodeId b : candidates) {
    int32_t own = groupOf[b];
    int32_t reader = -1;
    bool unique = true;
    for (auto [i, r] : llvm::enumerate(groups)) {
      if (!r.alive || int32_t(i) == own || !r.leaves.contains(b))
        continue;
      unique = reader < 0;
      reader = int32_t(i);
      if (!unique)
        break;
    }
    if (reader < 0 || !unique || !readsPerRow(groups[reader], b))
      continue;
    RowGroup &r = groups[reader];
    r.leaves.erase(b);
    for (NodeId leaf : groups[own].leaves)
      r.leaves.insert(leaf);
    groups[own].alive = false;
    plan.realizes.remove(b);
    plan.reduceForOp.erase(b);
    plan.rowValues.insert(b);
  }
  std::vector<std::vector<NodeId>> out;
  for (RowGroup &r : groups)
    if (r.alive)
      out.push_back(std::move(r.outputs));
  plan.outputGroups = std::move(out);
}

} // namespace

void mlir::lazy::fuseRowReduces(const LazyGraph &g, const GraphWalk &w,
                                SchedulePlan &plan) {
  RowFusion(g, w, plan).run();
}
