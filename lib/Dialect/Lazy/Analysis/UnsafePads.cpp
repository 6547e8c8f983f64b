//===- UnsafePads.cpp - pads that must not fuse (A2) ----------------------===//
//
// tinygrad 0.9.2's UNSAFE_PAD_OPS rule (scheduler spec §2.2): a pad fuses
// into its consumers by reading zeros in the padded area, which is only
// right when every op between the padded base and the buffers it reads is
// zero on zeros. recip, log2, exp2 and idiv are not (recip(0) is inf,
// log2(0) -inf, exp2(0) 1, idiv divides by zero), so:
//   1. a base the walk found read through a pad (Realize.cpp) realizes when
//      an unsafe op lies between it and the nearest realized buffer
//      (_is_padding_okay);
//   2. the same hazard inside one kernel, which tinygrad does not check: a
//      padded view of a reduce's output that the kernel pushes into the
//      reduce's input, where an unsafe op computes part of it. The kernel
//      keeps tinygrad's AST; lazy-form-kernels warns.
//
//===----------------------------------------------------------------------===//

#include "ScheduleRules.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;

bool mlir::lazy::isUnsafePadOp(Operation *op) {
  return isa<RecipOp, Log2Op, Exp2Op, IdivOp>(op);
}

void mlir::lazy::realizeUnsafePads(const LazyGraph &g, const GraphWalk &w,
                                   NodeSet &realizes) {
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
}

bool mlir::lazy::padReachesUnsafeOp(const LazyGraph &g,
                                    const st::ShapeTracker &view, NodeId reduce,
                                    function_ref<bool(NodeId)> isLeaf) {
  if (!view.masked())
    return false;
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

StringRef mlir::lazy::paddedUnsafeInputWarning() {
  return " is read through a padded view that the kernel moves "
         "into the reduce's input, where an op that is not zero on "
         "zeros (recip, log2, exp2 or idiv) then runs in the "
         "padding: the padded elements do not read as 0 (recip(0) "
         "is inf, log2(0) -inf, exp2(0) 1, an idiv divides by zero; "
         "tinygrad 0.9.2 computes the same); realize the reduce "
         "first (.contiguous())";
}
