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
//          ops below it, none a reduce, reading no assign target nor a
//          buffer_view of one (whose readers lazy-toposort orders against
//          the assign);
//        - padding stays zero: when a consumer reads it through a masked
//          view, no op from it down is unsafe to pad (UnsafePads.cpp: the
//          padded elements would compute recip(0) and the like);
//        - it costs less, in bytes moved or their equivalent. With S(x)
//          the bytes of buffer x, B the base, L its distinct realized
//          leaves (consts are free) and n the consumers reading it (an
//          upper bound on the kernels that do), storing costs S(B) + ΣS(L)
//          to compute it and n·S(B) to read it back; recomputing costs
//          n·ΣS(L), plus the ops the consumers rerun: they compute B's
//          ops once per element of the views they read it through, R in
//          all, R - |B| of them extra, each priced kOpBytes per element,
//          or kDearOpBytes for a dear op (exp2, log2, sin, sqrt, recip,
//          integer division). Attention's probabilities, read by the
//          product with V, would run the exp2 of every score head-dim
//          times (12.6x slower than storing them); a layernorm's output
//          read by the next matmul, its ops once per output feature. Ops
//          on a smaller value that B broadcasts (a layernorm's 1/std) run
//          once per row and are not counted. Recompute when
//          n·ΣS(L) + (R - |B|)·P < S(B) + ΣS(L) + n·S(B), P the ops'
//          summed price.
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
//      and reaches no other reduce (nor does the reduce's own input), of a
//      rank that keeps every reduced axis once pushed through (else
//      tinygrad's push-through fails). It saves the reduce's store and
//      load.
//   4. Sibling reduces. Output groups whose single reduce has the same
//      input shape and axes and whose outputs have one shape (so that
//      they share one reduce space), none a row kernel (rule 5), and that
//      read a realized buffer in common become one
//      kernel, which reads that buffer once, when neither depends on the
//      other through any chain of kernels (the schedule stays acyclic) and
//      neither holds or reads anything an assign writes, directly or
//      through a buffer_view (whose ordering edges lazy-toposort adds).
//      Groups are merged greedily in group order; a merged group sits where
//      its first member was.
//   5. Row values. tinygrad stores a reduce's value (a softmax's max and
//      sum, a layernorm's mean and 1/std) in a kernel of its own, because
//      its readers expand it. A value B alone in its group, computed from
//      its leaves by elementwise ops and reduces of its own rank that read
//      each other without views (no meta op, no assign target or
//      buffer_view of one among its leaves: a row kernel reads a row
//      before writing it, but a GPU thread may read a row other threads
//      have written; no output, not forced or external), becomes a row value
//      (SchedulePlan::rowValues): a kernel computes it once per row at its
//      own shape and reads it through the view (a View node; the lowerings
//      run such a row kernel row by row, KernelEmitter.h's RowSplit).
//      Candidates are decided consumers first, in one of two forms:
//        a. computed in every kernel that reads it (at most
//           kMaxRowReaders), unrealized, when recomputing moves fewer
//           bytes: with L the leaves of B and n readers, the leaves each
//           reader does not read already cost less than storing, which
//           costs S(B) + ΣS(L) + n·S(B);
//        b. else stored by one reader whose outputs all have B's shape
//           (the next layer's matmul computes a layernorm's statistics it
//           reads and stores them for the backward kernels), when the
//           leaves of B it does not read already cost less than
//           ΣS(L) + S(B), and no other group lies between them (the
//           merge keeps the kernel graph acyclic).
//      Either way each reader's kernel, built with B as a row value, must
//      have values whose shapes agree (kernelShapesAgree) and be a row
//      kernel (isRowKernel): stores of one shape, the row values
//      it reads outside them varying only along row axes of the stores'
//      extent, no reduce of its own along a row axis, and every view a
//      reduce reads constant along that reduce's axes, so that no row
//      value is computed more than once per row.
//   6. Online softmax. tinygrad stores attention's scores, their softmax
//      probabilities and the softmax's max and sum (5 kernels, the scores
//      and probabilities S x S per head). A sum that OnlineSoftmax.h
//      matches (sum_j softmax_j(x) * w_j, whatever computes x and w) is
//      computed in one kernel: every realized node of its input, down to
//      the nodes that stay its leaves, is taken back when its consumers
//      all lie in that input and nothing else needs its buffer (rule 1's
//      conditions), and becomes a row value (read through a view, it is
//      computed at its own shape). The max, the sum and the probabilities
//      must be among them. The kernel AST built so must have shapes that
//      agree; lazy-online-softmax then rewrites the kernel's four reduces
//      and exponentials into one lazy.softmax_sum, which computes each
//      score once, so nothing is recomputed per output column and no
//      S x S value is stored. Runs first: the other rules see the scores
//      and probabilities no longer realized.
//
//===----------------------------------------------------------------------===//

#include "ScheduleRules.h"
#include "lazy/Dialect/Lazy/Analysis/KernelAst.h"
#include "lazy/Dialect/Lazy/Analysis/OnlineSoftmax.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"

#include <queue>

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;

/// The most kernels that may each compute one row value (rule 5).
static constexpr size_t kMaxRowReaders = 8;

/// The most nodes rule 6 takes into one kernel.
static constexpr size_t kMaxOnlineNodes = 256;

/// The most unrealized ops a recomputed base may stand for.
static constexpr unsigned kMaxRecomputedOps = 16;

/// Rule 1's price of one more evaluation of an op per element, in bytes
/// moved: an add or multiply in vector lanes about as long as loading a
/// byte at copy bandwidth, a dear op (isDearOp: a vector exp2 of 8 lanes)
/// as long as loading 8.
static constexpr int64_t kOpBytes = 1;
static constexpr int64_t kDearOpBytes = 8;

namespace {

/// Bytes of a node's buffer.
int64_t bytesOf(const LazyNode &n) { return n.size * n.itemSize; }

/// An op that costs far more than a load: a transcendental or a division
/// (the ops unsafe to pad, and sin and sqrt).
bool isDearOp(const LazyNode &n) {
  return n.unsafePad || (n.op && isa<SinOp, SqrtOp>(n.op));
}

/// Rule 1's price of one more evaluation of `n` per element.
int64_t opPrice(const LazyNode &n) {
  return isDearOp(n) ? kDearOpBytes : kOpBytes;
}

/// How many elements of `b` its consumers compute when it is recomputed
/// in them: the elements of every view they read it through.
int64_t recomputedElements(const LazyGraph &g, const GraphWalk &w, NodeId b) {
  int64_t elements = 0;
  for (NodeId c : w.children[b])
    for (NodeId src : g.node(c).srcs)
      if (g.baseOf(src) == b)
        elements += g.node(src).size;
  return elements;
}

/// Whether realized buffer `base` is an assign target or shares one's
/// memory (a buffer_view of it, at any depth): a kernel that reads it
/// along other elements than it writes reads overwritten ones.
bool readsAssignTargetMemory(const LazyGraph &g, const GraphWalk &w,
                             NodeId base) {
  while (!w.assignTargets.count(base)) {
    const LazyNode &n = g.node(base);
    if (n.kind != NodeOp::BufferView)
      return false;
    base = g.baseOf(n.srcs[0]);
  }
  return true;
}

/// Whether a copy, a buffer_view or an assign reads `b`'s buffer, which
/// must then exist.
bool readAsBuffer(const LazyGraph &g, const GraphWalk &w, NodeId b) {
  return llvm::any_of(w.children[b], [&](NodeId c) {
    NodeOp kind = g.node(c).kind;
    return kind == NodeOp::Copy || kind == NodeOp::BufferView ||
           kind == NodeOp::Assign;
  });
}

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
  return !g.isOutputBase(b) && !readAsBuffer(g, w, b);
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
    // The end's kernel, r's input included, must reach no reduce but r
    // (a reduce under r would meet the pushed view: a double reduce that
    // tinygrad's merge does not take).
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
    // The price of one evaluation of B's ops at its own size (those on a
    // broadcast value, a layernorm's 1/std, run once per row).
    int64_t size = g.node(b).size;
    int64_t opBytes = opPrice(g.node(b));
    bool padded = readThroughMask(g, w, realizes, b);
    bool ok = !(padded && g.node(b).unsafePad);
    while (!stack.empty() && ok) {
      NodeId v = stack.pop_back_val();
      const LazyNode &n = g.node(v);
      if (n.kind == NodeOp::Const)
        continue;
      if (n.isRealized() || realizes.contains(v)) {
        ok = !readsAssignTargetMemory(g, w, v);
        leafBytes += bytesOf(n);
        continue;
      }
      if (n.isReduce() || (n.isMeta() && n.kind != NodeOp::Contiguous) ||
          (padded && n.unsafePad) || ++ops > kMaxRecomputedOps) {
        ok = false;
        break;
      }
      if (n.size >= size)
        opBytes += opPrice(n);
      for (NodeId src : n.srcs)
        if (seen.insert(g.baseOf(src)).second)
          stack.push_back(g.baseOf(src));
    }
    if (!ok)
      continue;
    int64_t consumers = int64_t(w.children[b].size());
    int64_t stored =
        bytesOf(g.node(b)) + leafBytes + consumers * bytesOf(g.node(b));
    int64_t recomputed =
        consumers * leafBytes +
        std::max<int64_t>(0, recomputedElements(g, w, b) - size) * opBytes;
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
      // A row kernel (rule 5) is no sibling: its row values' reduces run
      // per row, apart from any reduce space it could share.
      if (plan.rowValues.contains(v))
        f.hazard = true;
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
          f.hazard |= readsAssignTargetMemory(g, w, base);
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
  // Groups that read each other (a cycle: lazy-toposort reports it, as
  // tinygrad does) have no order to keep, so nothing is merged.
  std::vector<llvm::BitVector> reach(n, llvm::BitVector(n));
  {
    enum : char { New, Open, Done };
    std::vector<char> state(n, New);
    for (size_t root = 0; root < n; ++root) {
      if (state[root] == Done)
        continue;
      state[root] = Open;
      SmallVector<std::pair<size_t, size_t>> stack = {{root, 0}};
      while (!stack.empty()) {
        auto &[i, next] = stack.back();
        if (next < facts[i].leaves.size()) {
          int32_t j = groupOf[facts[i].leaves[next++]];
          if (j < 0 || size_t(j) == i || state[j] == Done)
            continue;
          if (state[j] == Open)
            return;
          state[j] = Open;
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
        state[i] = Done;
        stack.pop_back();
      }
    }
  }

  auto signature = [&](size_t group) {
    const LazyNode &r = g.node(facts[group].reduce);
    return std::make_tuple(g.node(r.srcs[0]).shape(), reduceAxesOf(r),
                           g.node(groups[group].front()).shape());
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
      if (signature(c) != signature(i))
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

bool mlir::lazy::kernelShapesAgree(const ScheduleItem &item,
                                   const st::TrackerPool &pool) {
  auto shapeOf = [&](int32_t i) -> const std::vector<int64_t> & {
    return pool.shape(item.nodes[i].shaped);
  };
  for (const AstNode &n : item.nodes) {
    const std::vector<int64_t> &shape = pool.shape(n.shaped);
    if (n.kind == AstNode::Kind::Compute &&
        llvm::any_of(n.srcs(), [&](int32_t s) { return shapeOf(s) != shape; }))
      return false;
    if (n.kind == AstNode::Kind::Reduce) {
      std::vector<int64_t> reduced = shapeOf(n.srcs()[0]);
      for (int64_t a : item.axesOf(n)) {
        if (a < 0 || a >= int64_t(reduced.size()))
          return false;
        reduced[size_t(a)] = 1;
      }
      if (reduced != shape)
        return false;
    }
  }
  return llvm::all_of(item.stores, [&](const auto &store) {
    return pool.shape(store.second) == shapeOf(store.first);
  });
}

//===----------------------------------------------------------------------===//
// Rule 5: row values
//===----------------------------------------------------------------------===//

namespace {

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
  /// Whether the kernel of `outputs`, with the plan's row values, is a row
  /// kernel the lowerings compute row by row (rowKernel).
  bool formsRowKernel(ArrayRef<NodeId> outputs, const NodeSet &realizes) const;
  /// Rule 5's second form: `b`'s group merges into reader `r`'s, which
  /// computes b per row for itself and stores it for the other readers.
  bool storeInReader(NodeId b, int32_t own, int32_t r,
                     ArrayRef<int32_t> readers);

  /// The groups group `y` waits on: the writers of what it reads and,
  /// for an assign it holds, the other readers of the target.
  SmallVector<int32_t> predecessors(int32_t y) const;
  /// Whether group `to` waits on group `from`, directly (unless
  /// `skipDirect`) or through others.
  bool dependsOn(int32_t to, int32_t from, bool skipDirect) const;

  /// Rule 5's first form: `b` computed in each of its readers.
  bool computeInReaders(NodeId b, int32_t own, ArrayRef<int32_t> readers);

  std::vector<RowGroup> groups;
  std::vector<int32_t> groupOf;
  std::vector<int64_t> realizePosition;
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
      w.assignTargets.count(b) || g.isOutputBase(b) || readAsBuffer(g, w, b))
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
        if (readsAssignTargetMemory(g, w, base))
          return false;
        continue;
      }
      if (!g.node(src).isBase())
        return false;
    }
  }
  return reduces;
}

/// Whether a kernel AST computes its row values once per row, as the
/// lowerings' RowSplit does: its stores of one shape; the views of row
/// values it reads outside them (the top-level ones) of that rank, varying
/// only along row axes, of the stores' extent there; its own reduces (not
/// inside a row value) along no row axis; and every view a reduce reads
/// constant along that reduce's axes (so that it is computed before the
/// reduce's loop).
static bool isRowKernel(const ScheduleItem &item, st::TrackerPool &pool) {
  if (!item.isKernel || item.stores.empty())
    return false;
  std::vector<int64_t> shape = pool.shape(item.stores.front().second);
  for (auto &store : item.stores)
    if (pool.shape(store.second) != shape)
      return false;
  auto isReduce = [](const AstNode &n) {
    return n.kind == AstNode::Kind::Reduce;
  };
  // The top-level nodes: reached from the stores without entering a View.
  std::vector<char> top(item.nodes.size(), 0);
  SmallVector<int32_t> stack;
  for (auto &store : item.stores)
    stack.push_back(store.first);
  while (!stack.empty()) {
    int32_t i = stack.pop_back_val();
    if (top[i])
      continue;
    top[i] = 1;
    if (item.nodes[i].kind != AstNode::Kind::View)
      llvm::append_range(stack, item.nodes[i].srcs());
  }
  // The axes each top-level view varies along (extent above 1, a stride
  // that is not 0). They must be the same for every view: one varying
  // along fewer axes would be computed again along the others.
  std::optional<SmallVector<bool>> rowAxes;
  for (auto [i, n] : llvm::enumerate(item.nodes)) {
    if (!top[i] || n.kind != AstNode::Kind::View)
      continue;
    const st::ShapeTracker &view = pool.get(n.view);
    if (view.shape().size() != shape.size())
      return false;
    std::vector<std::optional<int64_t>> strides = view.realStrides();
    SmallVector<bool> varies(shape.size(), false);
    for (size_t d = 0; d < shape.size(); ++d)
      varies[d] = view.shape()[d] > 1 && (!strides[d] || *strides[d] != 0);
    if (rowAxes && *rowAxes != varies)
      return false;
    rowAxes = varies;
  }
  if (!rowAxes)
    return false;
  const SmallVector<bool> &rowAxis = *rowAxes;
  for (auto [i, n] : llvm::enumerate(item.nodes)) {
    if (!top[i])
      continue;
    if (n.kind == AstNode::Kind::View) {
      for (size_t d = 0; d < shape.size(); ++d)
        if (rowAxis[d] && pool.shape(n.view)[d] != shape[d])
          return false;
    } else if (isReduce(n)) {
      const std::vector<int64_t> &in =
          pool.shape(item.nodes[n.srcs()[0]].shaped);
      if (in.size() != shape.size() ||
          llvm::any_of(item.axesOf(n),
                       [&](int64_t a) { return rowAxis[size_t(a)]; }))
        return false;
    }
  }
  // Every view a reduce's input reads (up to the next reduce or view) is
  // constant along the reduce's axes.
  for (const AstNode &r : item.nodes) {
    if (!isReduce(r))
      continue;
    const std::vector<int64_t> &in = pool.shape(item.nodes[r.srcs()[0]].shaped);
    SmallVector<int32_t> walk(r.srcs().begin(), r.srcs().end());
    llvm::SmallDenseSet<int32_t, 16> seen;
    while (!walk.empty()) {
      int32_t i = walk.pop_back_val();
      const AstNode &n = item.nodes[i];
      if (!seen.insert(i).second || isReduce(n))
        continue;
      if (n.kind == AstNode::Kind::View) {
        const st::ShapeTracker &view = pool.get(n.view);
        std::vector<std::optional<int64_t>> strides = view.realStrides();
        if (view.shape() != in || llvm::any_of(item.axesOf(r), [&](int64_t a) {
              return !strides[size_t(a)] || *strides[size_t(a)] != 0;
            }))
          return false;
        continue;
      }
      llvm::append_range(walk, n.srcs());
    }
  }
  return true;
}

bool RowFusion::formsRowKernel(ArrayRef<NodeId> outputs,
                               const NodeSet &realizes) const {
  // A trial: its errors (tinygrad's assertions) only mean "no".
  ScopedDiagnosticHandler quiet(g.function().getContext(),
                                [](Diagnostic &) { return success(); });
  KernelAstBuilder builder(g, realizes, /*useCopyKernel=*/false,
                           &plan.rowValues);
  FailureOr<ScheduleItem> item = builder.build(outputs);
  // A trial AST whose shapes disagree would not verify as lazy ops: the
  // candidate is declined rather than scheduled into an error.
  return succeeded(item) && kernelShapesAgree(*item, g.trackers()) &&
         isRowKernel(*item, g.trackers());
}

SmallVector<int32_t> RowFusion::predecessors(int32_t y) const {
  SmallVector<int32_t> preds;
  for (NodeId leaf : groups[y].leaves)
    if (int32_t x = groupOf[leaf]; x >= 0 && x != y)
      preds.push_back(x);
  // An assign runs after every other kernel that reads its target's old
  // contents (lazy-toposort's ordering edges).
  for (NodeId out : groups[y].outputs) {
    if (g.node(out).kind != NodeOp::Assign)
      continue;
    NodeId target = g.baseOf(g.node(out).srcs[1]);
    for (auto [x, r] : llvm::enumerate(groups))
      if (r.alive && int32_t(x) != y && r.leaves.contains(target))
        preds.push_back(int32_t(x));
  }
  return preds;
}

bool RowFusion::dependsOn(int32_t to, int32_t from, bool skipDirect) const {
  SmallVector<int32_t> stack;
  llvm::DenseSet<int32_t> seen = {to};
  for (int32_t x : predecessors(to)) {
    if (skipDirect && x == from)
      continue;
    if (x == from)
      return true;
    if (seen.insert(x).second)
      stack.push_back(x);
  }
  while (!stack.empty()) {
    for (int32_t y : predecessors(stack.pop_back_val())) {
      if (y == from)
        return true;
      if (seen.insert(y).second)
        stack.push_back(y);
    }
  }
  return false;
}

bool RowFusion::storeInReader(NodeId b, int32_t own, int32_t r,
                              ArrayRef<int32_t> readers) {
  RowGroup &reader = groups[r];
  // Merged, r's kernel writes b: the other readers then wait on r, so r
  // may not wait on any of them, nor on b's group through another group
  // (assign ordering edges included).
  if (dependsOn(r, own, /*skipDirect=*/true) ||
      llvm::any_of(readers, [&](int32_t x) {
        return x != r && dependsOn(r, x, /*skipDirect=*/false);
      }))
    return false;
  ArrayRef<int64_t> shape = g.node(b).shape();
  if (llvm::any_of(reader.outputs, [&](NodeId out) {
        const LazyNode &n = g.node(out);
        return n.shape() != shape ||
               (n.kind != NodeOp::Elementwise && !n.isReduce());
      }))
    return false;
  // Bytes: b's kernel (its leaves and b) and the reader's load of b go;
  // the reader reads the leaves of b it did not read.
  int64_t leafBytes = 0, extra = 0;
  for (NodeId leaf : groups[own].leaves) {
    leafBytes += bytesOf(g.node(leaf));
    if (!reader.leaves.contains(leaf))
      extra += bytesOf(g.node(leaf));
  }
  if (extra >= leafBytes + bytesOf(g.node(b)))
    return false;
  std::vector<NodeId> outputs = reader.outputs;
  outputs.push_back(b);
  // In realize order, as lazy-group's marks list a group's members.
  llvm::sort(outputs, [&](NodeId x, NodeId y) {
    return realizePosition[x] < realizePosition[y];
  });
  plan.rowValues.insert(b);
  if (!formsRowKernel(outputs, plan.realizes)) {
    plan.rowValues.remove(b);
    return false;
  }
  reader.outputs = std::move(outputs);
  reader.leaves.erase(b);
  for (NodeId leaf : groups[own].leaves)
    reader.leaves.insert(leaf);
  groups[own].alive = false;
  groupOf[b] = r;
  return true;
}

void RowFusion::run() {
  groupOf.assign(g.size(), -1);
  realizePosition.assign(g.size(), -1);
  for (auto [i, id] : llvm::enumerate(plan.realizes))
    realizePosition[id] = int64_t(i);
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
    SmallVector<int32_t> readers;
    for (auto [i, r] : llvm::enumerate(groups))
      if (r.alive && int32_t(i) != own && r.leaves.contains(b))
        readers.push_back(int32_t(i));
    if (readers.empty())
      continue;
    if (!computeInReaders(b, own, readers))
      for (int32_t r : readers)
        if (storeInReader(b, own, r, readers))
          break;
  }
  std::vector<std::vector<NodeId>> out;
  for (RowGroup &r : groups)
    if (r.alive)
      out.push_back(std::move(r.outputs));
  plan.outputGroups = std::move(out);
}

bool RowFusion::computeInReaders(NodeId b, int32_t own,
                                 ArrayRef<int32_t> readers) {
  if (readers.size() > kMaxRowReaders)
    return false;
  // Bytes: storing b costs its kernel (its leaves and b) and each
  // reader's read of b; recomputing it costs each reader the leaves of
  // b it does not read already.
  const RowGroup &source = groups[own];
  int64_t leafBytes = 0, extra = 0;
  for (NodeId leaf : source.leaves)
    leafBytes += bytesOf(g.node(leaf));
  for (int32_t r : readers)
    for (NodeId leaf : source.leaves)
      if (!groups[r].leaves.contains(leaf))
        extra += bytesOf(g.node(leaf));
  int64_t stored = bytesOf(g.node(b)) * int64_t(1 + readers.size()) + leafBytes;
  if (extra >= stored)
    return false;
  // Each reader's kernel, built with b as an unrealized row value, must
  // be a row kernel.
  NodeSet trial = plan.realizes;
  trial.remove(b);
  plan.rowValues.insert(b);
  if (!llvm::all_of(readers, [&](int32_t r) {
        return formsRowKernel(groups[r].outputs, trial);
      })) {
    plan.rowValues.remove(b);
    return false;
  }
  for (int32_t i : readers) {
    RowGroup &r = groups[i];
    r.leaves.erase(b);
    for (NodeId leaf : source.leaves)
      r.leaves.insert(leaf);
  }
  groups[own].alive = false;
  plan.realizes.remove(b);
  plan.reduceForOp.erase(b);
  return true;
}

} // namespace

void mlir::lazy::fuseRowReduces(const LazyGraph &g, const GraphWalk &w,
                                SchedulePlan &plan) {
  RowFusion(g, w, plan).run();
}

namespace {
/// Rule 6's region of one softmax-weighted sum: the nodes its kernel
/// computes and the realized ones among them it takes back.
struct OnlineRegion {
  llvm::DenseSet<NodeId> nodes;
  SmallVector<NodeId> takenBack;
};

/// The region under `sum` (rule 6), or none where a node it must compute
/// may not be computed there.
std::optional<OnlineRegion> onlineRegion(const LazyGraph &g, const GraphWalk &w,
                                         const SchedulePlan &plan, NodeId sum) {
  OnlineRegion r;
  // Consumers first (ids are topological): a realized node is decided
  // after every consumer of it that the region holds.
  std::priority_queue<NodeId> heap;
  llvm::DenseSet<NodeId> queued;
  auto push = [&](NodeId src) {
    NodeId base = g.baseOf(src);
    if (queued.insert(base).second)
      heap.push(base);
  };
  for (NodeId src : g.node(sum).srcs)
    push(src);
  while (!heap.empty()) {
    NodeId b = heap.top();
    heap.pop();
    const LazyNode &n = g.node(b);
    if (n.isRealized() || n.kind == NodeOp::Const)
      continue;
    if (plan.realizes.contains(b)) {
      bool inside = llvm::all_of(w.children[b], [&](NodeId c) {
        return c == sum || r.nodes.contains(c);
      });
      if (!inside || (n.kind != NodeOp::Elementwise && !n.isReduce()) ||
          n.external || n.seen || n.forcedRealize || w.simplePads.contains(b) ||
          w.assignTargets.count(b) || g.isOutputBase(b) ||
          readAsBuffer(g, w, b)) {
        // A leaf the kernel loads.
        if (readsAssignTargetMemory(g, w, b))
          return std::nullopt;
        continue;
      }
      r.takenBack.push_back(b);
    } else if (n.isMeta()) {
      return std::nullopt;
    }
    r.nodes.insert(b);
    if (r.nodes.size() > kMaxOnlineNodes)
      return std::nullopt;
    for (NodeId src : n.srcs)
      push(src);
  }
  return r;
}
} // namespace

void mlir::lazy::fuseOnlineSoftmax(const LazyGraph &g, const GraphWalk &w,
                                   SchedulePlan &plan) {
  SmallVector<std::pair<NodeId, OnlineSoftmaxMatch>> matches;
  for (NodeId id = NodeId(g.size()) - 1; id >= 0; --id) {
    const LazyNode &n = g.node(id);
    if (n.kind != NodeOp::ReduceSum)
      continue;
    if (std::optional<OnlineSoftmaxMatch> m =
            matchOnlineSoftmax(cast<ReduceSumOp>(n.op)))
      matches.emplace_back(id, std::move(*m));
  }
  if (matches.empty())
    return;
  llvm::DenseMap<Operation *, NodeId> idOf;
  for (NodeId id = 0; id < NodeId(g.size()); ++id)
    if (Operation *op = g.node(id).op)
      idOf[op] = id;
  for (auto &[sum, m] : matches) {
    // The group that stores the sum: the sum itself, or the buffer its
    // reduce group realizes.
    NodeId stored = plan.realizes.contains(sum) ? sum : NodeId(-1);
    for (auto &[buffer, reduce] : plan.reduceForOp)
      if (stored < 0 && reduce == sum)
        stored = buffer;
    if (stored < 0)
      continue;
    std::optional<OnlineRegion> region = onlineRegion(g, w, plan, sum);
    if (!region)
      continue;
    auto inRegion = [&](Operation *op) {
      auto it = idOf.find(op);
      return it != idOf.end() && region->nodes.contains(it->second);
    };
    if (!inRegion(m.max) || !inRegion(m.norm) || !inRegion(m.exp) ||
        !inRegion(m.probs.getDefiningOp()))
      continue;
    NodeSet realizes = plan.realizes, rowValues = plan.rowValues;
    for (NodeId b : region->takenBack) {
      realizes.remove(b);
      rowValues.insert(b);
    }
    // Every reduce of the region, read through a view, is a value of its
    // own shape (a score's sum read through a reshape would otherwise
    // merge into the sum that reads it, a double reduce).
    for (NodeId b : region->nodes)
      if (g.node(b).isReduce())
        rowValues.insert(b);
    {
      // A trial: its errors (tinygrad's assertions) only mean "no".
      ScopedDiagnosticHandler quiet(g.function().getContext(),
                                    [](Diagnostic &) { return success(); });
      KernelAstBuilder builder(g, realizes, /*useCopyKernel=*/false,
                               &rowValues);
      FailureOr<ScheduleItem> item = builder.build({stored});
      if (failed(item) || !kernelShapesAgree(*item, g.trackers()))
        continue;
    }
    for (NodeId b : region->takenBack)
      plan.reduceForOp.erase(b);
    plan.realizes = std::move(realizes);
    plan.rowValues = std::move(rowValues);
    plan.onlineSums.insert(sum);
  }
}
