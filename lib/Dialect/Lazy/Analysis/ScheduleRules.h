//===- ScheduleRules.h - the scheduler's rules, one file each ----*- C++
//-*-===//
//
// Private to the analysis library: the entry points of the rule files that
// ScheduleAnalysis.cpp (the one decision route) and KernelAst.cpp call.
// Each rule's file states the rule in its header:
//
//   Realize.cpp            which bases must realize (A1, the walk)
//   UnsafePads.cpp         padded views that reach an op unsafe to pad (A2)
//   ReduceGrouping.cpp     what a reduce's kernel takes in; chasing (A3)
//   AssignHazards.cpp      an assign's kernel must not read another target
//   DoubleReduceMerge.cpp  FUSE_CONV_BW (A4)
//   ArangeFolding.cpp      FUSE_ARANGE (A5)
//   MultiOutput.cpp        buffers sharing a reduce share a kernel (A6)
//   AggressiveFusion.cpp   fusion=aggressive: realizes taken back
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_LIB_DIALECT_LAZY_ANALYSIS_SCHEDULERULES_H
#define LAZY_LIB_DIALECT_LAZY_ANALYSIS_SCHEDULERULES_H

#include "lazy/Dialect/Lazy/Analysis/ScheduleAnalysis.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"

namespace mlir::lazy {

struct ScheduleItem;

/// The axes a reduce node reduces.
inline ArrayRef<int64_t> reduceAxesOf(const LazyNode &n) {
  return n.kind == NodeOp::ReduceSum ? cast<ReduceSumOp>(n.op).getAxes()
                                     : cast<ReduceMaxOp>(n.op).getAxes();
}

/// The distinct operands of `consumer` that read `base` (the base itself or
/// views of it), in operand order.
inline SmallVector<NodeId, 2> readsOf(const LazyGraph &g, NodeId consumer,
                                      NodeId base) {
  SmallVector<NodeId, 2> reads;
  for (NodeId src : g.node(consumer).srcs)
    if (g.baseOf(src) == base && !llvm::is_contained(reads, src))
      reads.push_back(src);
  return reads;
}

//===- UnsafePads.cpp -----------------------------------------------------===//

/// Whether an elementwise op is unsafe to pad (UNSAFE_PAD_OPS): not zero on
/// zeros, or undefined there (recip, log2, exp2, idiv).
bool isUnsafePadOp(Operation *op);
/// A2: adds to `realizes` every simple pad of the walk whose padded area
/// reaches an unsafe op before a realized buffer.
void realizeUnsafePads(const LazyGraph &g, const GraphWalk &w,
                       NodeSet &realizes);
/// Whether a view of a reduce's output that a kernel pushes into the
/// reduce's input (`view`, not contiguous) pads it while an unsafe op
/// computes part of that input (walking bases until `isLeaf`): the padding
/// then does not read as zero, as in tinygrad 0.9.2.
bool padReachesUnsafeOp(const LazyGraph &g,
                        const ::lazy::st::ShapeTracker &view, NodeId reduce,
                        function_ref<bool(NodeId)> isLeaf);
/// The warning text for such a reduce.
StringRef paddedUnsafeInputWarning();

//===- AssignHazards.cpp --------------------------------------------------===//

/// Whether the kernel of reduce `r` with `group` would read an assign
/// target other than those its own assigns write (walking up from r and
/// the group to realized buffers).
bool readsOtherAssignTarget(const LazyGraph &g, const GraphWalk &w,
                            const NodeSet &realizes, NodeId r,
                            const NodeSet &group);

//===- DoubleReduceMerge.cpp ----------------------------------------------===//

/// Whether `reduce` reads a view of a reduce of its own kind.
bool isDoubleReduce(const LazyGraph &g, NodeId reduce);
/// FUSE_CONV_BW: un-realizes the inner reduce of each double reduce when it
/// has no other child.
void mergeDoubleReduces(const LazyGraph &g, const GraphWalk &w,
                        NodeSet &realizes);
/// In a kernel that merges the reduce over `axes` into the inner reduce
/// it reads through `between`: whether the merged reduce sums other
/// elements than the graph says (a contiguous reshape that renumbers the
/// reduced axes, whose numbers tinygrad applies to the inner input).
bool mergeRenumbersAxes(const LazyGraph &g, NodeId inner,
                        ::lazy::st::TrackerId between, ArrayRef<int64_t> axes);
/// The axes of the merged reduce: the outer reduce's, then the inner's.
std::vector<int64_t> mergedAxes(ArrayRef<int64_t> outer,
                                ArrayRef<int64_t> inner);
/// The warning text for a merge that renumbers.
StringRef renumberedMergeWarning();

//===- ArangeFolding.cpp --------------------------------------------------===//

/// Whether `reduce` is an arange: a sum over a const.
bool isArangeReduce(const LazyGraph &g, NodeId reduce);
/// FUSE_ARANGE: un-realizes the buffers of each arange of `aranges` (in
/// grouping order) that feed a kernel and are not an output or forced.
void foldAranges(const LazyGraph &g, const GraphWalk &w,
                 ArrayRef<NodeId> aranges,
                 const llvm::MapVector<NodeId, NodeId> &reduceForOp,
                 NodeSet &realizes);

//===- MultiOutput.cpp ----------------------------------------------------===//

/// A6: the output groups of the realized buffers: one per reduce (with
/// multi-output) or per buffer; realized inputs, consts and buffers an
/// earlier schedule made (`seen`) are in none.
std::vector<std::vector<NodeId>>
formOutputGroups(const LazyGraph &g, const NodeSet &realizes,
                 const llvm::MapVector<NodeId, NodeId> &reduceForOp,
                 const ScheduleFlags &flags);

//===- AggressiveFusion.cpp -----------------------------------------------===//

/// fusion=aggressive, rules 1 and 2: un-realizes the elementwise bases
/// tinygrad realizes only because a view expands them, and the contiguous
/// ones no output needs, where recomputing them in their consumers is
/// cheap and moves fewer bytes.
void recomputeRealizedBases(const LazyGraph &g, const GraphWalk &w,
                            SchedulePlan &plan);
/// fusion=aggressive, rule 3: computes a reduce stored only because its
/// child reads it through a non-contiguous view inside the child's kernel.
void fuseReduceEpilogues(const LazyGraph &g, const GraphWalk &w,
                         SchedulePlan &plan);
/// fusion=aggressive, rule 4: merges the output groups of independent
/// sibling reduces that read a buffer in common.
void mergeSiblingReduces(const LazyGraph &g, const GraphWalk &w,
                         SchedulePlan &plan);
/// fusion=aggressive, rule 5: computes a realized reduce value (a max, a
/// sum, a mean) once per row inside the kernels that read it through an
/// expand (softmax, layernorm: row kernels), or inside one of them that
/// stores it for the others.
void fuseRowReduces(const LazyGraph &g, const GraphWalk &w, SchedulePlan &plan);
/// fusion=aggressive, rule 6: computes a softmax-weighted sum
/// (OnlineSoftmax.h: attention's softmax(QK^T)V) in one kernel, its
/// scores, maximum, normalizer and probabilities unrealized (rows values
/// where read through a view), for lazy-online-softmax to rewrite into
/// one pass.
void fuseOnlineSoftmax(const LazyGraph &g, const GraphWalk &w,
                       SchedulePlan &plan);
/// Whether a kernel AST's values have the shapes its ops imply: an
/// elementwise op's sources its own shape, a reduce's source its shape
/// with the reduced axes 1, a store its value's (rule 5's trials).
bool kernelShapesAgree(const ScheduleItem &item,
                       const ::lazy::st::TrackerPool &pool);

} // namespace mlir::lazy

#endif // LAZY_LIB_DIALECT_LAZY_ANALYSIS_SCHEDULERULES_H
