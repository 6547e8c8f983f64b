//===- AssignHazards.cpp - an assign's kernel and its target --------------===//
//
// The ASSIGN rules of tinygrad 0.9.2 that decide what fuses with an assign
// (scheduler spec §2.9; the others live where they act: Realize.cpp records
// the targets and checks that each is a realized buffer, KernelAst.cpp
// reads a group's own target through its output slot, lazy-toposort runs
// the target's readers before the assign):
//   1. grouping guard: a reduce whose group holds an assign is realized
//      alone, and not chased, when its kernel would read (walking up from
//      the reduce and the group to realized buffers) an assign target that
//      the group does not write;
//   2. (warnings, lazy-form-kernels) a kernel that writes its target
//      through a view that is not identity-like while it also reads the
//      target, or reads the target through a buffer_view (which shares its
//      memory) in another order than it writes it: an element can be read
//      after it was overwritten, so the result depends on the kernel's loop
//      order. tinygrad 0.9.2 schedules both as they are.
//
//===----------------------------------------------------------------------===//

#include "ScheduleRules.h"
#include "lazy/Dialect/Lazy/Analysis/KernelAst.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;

bool mlir::lazy::readsOtherAssignTarget(const LazyGraph &g, const GraphWalk &w,
                                        const NodeSet &realizes, NodeId r,
                                        const NodeSet &group) {
  SmallVector<NodeId> stack = {r};
  stack.append(group.begin(), group.end());
  llvm::DenseSet<NodeId> visited;
  while (!stack.empty()) {
    NodeId p = g.baseOf(stack.pop_back_val());
    if (!visited.insert(p).second)
      continue;
    if (g.node(p).isRealized() || realizes.contains(p)) {
      auto target = w.assignTargets.find(p);
      if (target != w.assignTargets.end() && !group.contains(target->second))
        return true;
      continue;
    }
    stack.append(g.node(p).srcs.begin(), g.node(p).srcs.end());
  }
  return false;
}

SmallVector<unsigned>
mlir::lazy::orderDependentAssigns(const LazyGraph &g, const ScheduleItem &item,
                                  ArrayRef<int32_t> liveOps) {
  SmallVector<unsigned> found;
  const st::TrackerPool &pool = g.trackers();
  for (auto [position, store] : llvm::enumerate(item.stores)) {
    if (g.node(item.outputs[position]).kind != NodeOp::Assign ||
        (pool.isSymbolic(store.second)
             ? ::lazy::st::isIdentityLike(pool.getSym(store.second))
             : isIdentityLike(pool.get(store.second))))
      continue;
    // Loads of a target use its output's buffer number.
    if (llvm::any_of(liveOps, [&](int32_t op) {
          const AstNode &node = item.nodes[op];
          return node.kind == AstNode::Kind::Load &&
                 node.buffer == int64_t(position);
        }))
      found.push_back(unsigned(position));
  }
  return found;
}

SmallVector<unsigned> mlir::lazy::aliasedAssignReads(
    const LazyGraph &g, ArrayRef<NodeId> outputs, ArrayRef<NodeId> inputs,
    const ScheduleItem &kernelItem, ArrayRef<int32_t> liveOps) {
  SmallVector<unsigned> found;
  if (llvm::none_of(inputs, [&](NodeId in) {
        return g.node(in).kind == NodeOp::BufferView;
      }))
    return found;
  // Whether input `in` shares `target`'s memory, and element for element.
  auto aliasOf = [&](NodeId in, NodeId target, bool &exact) {
    exact = true;
    NodeId n = in;
    while (g.node(n).kind == NodeOp::BufferView) {
      NodeId src = g.node(n).srcs[0];
      exact = exact && g.node(src).isBase() &&
              g.node(src).itemSize == g.node(n).itemSize;
      n = g.baseOf(src);
    }
    return n == target && n != in;
  };
  for (auto [position, out] : llvm::enumerate(outputs)) {
    if (g.node(out).kind != NodeOp::Assign)
      continue;
    NodeId target = g.node(out).srcs[1];
    st::TrackerId written = kernelItem.stores[position].second;
    if (llvm::any_of(liveOps, [&](int32_t op) {
          const AstNode &node = kernelItem.nodes[op];
          int64_t input = node.buffer - int64_t(outputs.size());
          bool exact;
          return node.kind == AstNode::Kind::Load && input >= 0 &&
                 aliasOf(inputs[input], target, exact) &&
                 (!exact || node.view != written);
        }))
      found.push_back(unsigned(position));
  }
  return found;
}

StringRef mlir::lazy::orderDependentAssignWarning() {
  return " op writes its target through a view other than the one the "
         "kernel reads it through: an element can be read after it "
         "was overwritten, so the result depends on the order the "
         "kernel runs in (tinygrad 0.9.2 schedules this too); read "
         "the target through .contiguous() to use its old values";
}

StringRef mlir::lazy::aliasedAssignReadWarning() {
  return " op reads its target through a buffer_view, which shares "
         "its memory, in another order than it writes it: an element "
         "can be read after it was overwritten, so the result depends "
         "on the order the kernel runs in (tinygrad 0.9.2 schedules "
         "this too; its contiguity check does not see the alias); "
         "read the target through .contiguous() to use its old values";
}
