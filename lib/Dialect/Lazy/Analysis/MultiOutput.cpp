//===- MultiOutput.cpp - buffers sharing a reduce share a kernel (A6) -----===//
//
// tinygrad 0.9.2's multi-output rules (scheduler spec §2.3 and §2.6):
//   1. several realized buffers that a reduce reaches (ReduceGrouping.cpp)
//      form one group only when they are isolated: no member is a reduce
//      or has a reduce other than this one among its unrealized ancestors
//      (_get_isolated_children, which gives up at the first other reduce).
//      The group then takes in its members' own fusable descendants, unless
//      one of those is a member;
//   2. the output groups: every realized buffer that a kernel or an EXT
//      item must write (not a realized input, a const, or a buffer an
//      earlier schedule made), grouped by the reduce it is stored with when
//      MULTIOUTPUT is on (the `multi_output` flag, default on), else alone;
//      groups in realize order;
//   3. a group of several outputs can only hold ops a kernel computes: a
//      copy, buffer_view, empty or custom in one is an error (tinygrad 0.9.2
//      schedules it and cannot run it).
//
//===----------------------------------------------------------------------===//

#include "ReduceGrouping.h"

using namespace mlir;
using namespace mlir::lazy;

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

std::vector<std::vector<NodeId>>
mlir::lazy::formOutputGroups(const LazyGraph &g, const NodeSet &realizes,
                             const llvm::MapVector<NodeId, NodeId> &reduceForOp,
                             const ScheduleFlags &flags) {
  llvm::MapVector<NodeId, std::vector<NodeId>> groups;
  for (NodeId buf : realizes) {
    const LazyNode &n = g.node(buf);
    if (n.isRealized() || n.kind == NodeOp::Const || n.seen)
      continue;
    auto it = reduceForOp.find(buf);
    NodeId key =
        it != reduceForOp.end() && flags.multiOutput ? it->second : buf;
    groups[key].push_back(buf);
  }
  std::vector<std::vector<NodeId>> out;
  for (auto &entry : groups)
    out.push_back(std::move(entry.second));
  return out;
}

LogicalResult mlir::lazy::checkGroupComputable(const LazyGraph &g,
                                               ArrayRef<NodeId> group) {
  // Found by scripts/fuzz_compare.py: x.sum() / ... then .bitcast(), next
  // to another output of the sum; and (seed 913248) a log_softmax sent to
  // another device and back, grouped with the sum it reads, where tinygrad
  // puts the copy inside the kernel's AST, which no device can run.
  if (group.size() < 2)
    return success();
  for (NodeId id : group) {
    NodeOp kind = g.node(id).kind;
    if (kind != NodeOp::Copy && kind != NodeOp::BufferView &&
        kind != NodeOp::Empty && kind != NodeOp::Custom)
      continue;
    return g.node(id).op->emitOpError()
           << "is grouped into one kernel with " << group.size() - 1
           << " other output(s), but no kernel computes it: tinygrad "
           << "0.9.2 schedules this too"
           << (kind == NodeOp::Copy
                   ? ", as a copy inside the kernel that no device runs"
                   : " and then cannot run it (the op's buffer is never "
                     "allocated)")
           << "; realize its source first, or schedule without "
              "multi-output";
  }
  return success();
}
