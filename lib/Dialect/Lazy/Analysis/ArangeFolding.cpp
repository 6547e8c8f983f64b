//===- ArangeFolding.cpp - FUSE_ARANGE (A5) -------------------------------===//
//
// tinygrad 0.9.2's arange folding (scheduler spec §2.5; default off, the
// `fuse_arange` flag): an arange is a sum over a const (Tensor.arange
// builds one). With FUSE_ARANGE, after grouping, the buffers grouped with
// each arange (in grouping order) stop being realized, so that every kernel
// reading them recomputes the arange inline, unless
//   1. one of them is an output of the graph or forced to realize; or
//   2. none of them has a child that is computed by a kernel (a copy or a
//      buffer_view child reads a buffer, so it needs the arange realized).
//
//===----------------------------------------------------------------------===//

#include "ScheduleRules.h"

using namespace mlir;
using namespace mlir::lazy;

bool mlir::lazy::isArangeReduce(const LazyGraph &g, NodeId reduce) {
  const LazyNode &n = g.node(reduce);
  return n.kind == NodeOp::ReduceSum &&
         g.node(g.baseOf(n.srcs[0])).kind == NodeOp::Const;
}

void mlir::lazy::foldAranges(const LazyGraph &g, const GraphWalk &w,
                             ArrayRef<NodeId> aranges,
                             const llvm::MapVector<NodeId, NodeId> &reduceForOp,
                             NodeSet &realizes) {
  for (NodeId r : aranges) {
    SmallVector<NodeId> group;
    for (auto [tr, rop] : reduceForOp)
      if (rop == r)
        group.push_back(tr);
    bool keep = llvm::any_of(group, [&](NodeId tr) {
      return g.node(tr).forcedRealize || g.isOutputBase(tr);
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
}
