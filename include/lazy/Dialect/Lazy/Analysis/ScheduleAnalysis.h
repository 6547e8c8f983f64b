//===- ScheduleAnalysis.h - tinygrad 0.9.2's scheduling decisions -*- C++
//-*-===//
//
// The scheduler's one decision route, on a LazyGraph (phases A1-A6 of
// docs/scheduler-spec.md). Analysis first, IR change second: these
// functions only compute; lazy-form-kernels materializes planSchedule's
// result, lazy-mark-realize and lazy-group print it as marks (which no pass
// reads).
//
//   walkGraph        A1  the realize rule (Realize.cpp)
//   computeRealizes  A2  + the unsafe-pad rule (UnsafePads.cpp)
//   computeGroups    A3  reduce grouping and chasing (ReduceGrouping.cpp)
//                        with the assign guard (AssignHazards.cpp)
//                    A4  double-reduce merging (DoubleReduceMerge.cpp)
//                    A5  arange folding (ArangeFolding.cpp)
//                    A6  multi-output groups (MultiOutput.cpp)
//   planSchedule     all of the above, checked: what lazy-form-kernels
//                    builds (each group then becomes one item: KernelAst.h)
//
// Every "ordered set" keeps first-insertion order, as Python dicts do in
// tinygrad, so that kernel order and buffer numbering match exactly. Nothing
// recurses on graph depth.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_ANALYSIS_SCHEDULEANALYSIS_H
#define LAZY_DIALECT_LAZY_ANALYSIS_SCHEDULEANALYSIS_H

#include "lazy/Dialect/Lazy/Analysis/LazyGraph.h"
#include "lazy/Dialect/Lazy/IR/ScheduleFlags.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::lazy {

/// A node seen through a ShapeTracker: tinygrad's (LazyBuffer, st) memo
/// key. Trackers are ids in the graph's TrackerPool, so the pair packs into
/// one integer.
struct NodeView {
  NodeId node;
  ::lazy::st::TrackerId view;
  uint64_t key() const { return uint64_t(uint32_t(node)) << 32 | view; }
  static NodeView fromKey(uint64_t key) {
    return {NodeId(uint32_t(key >> 32)), ::lazy::st::TrackerId(key)};
  }
  bool operator==(const NodeView &o) const {
    return node == o.node && view == o.view;
  }
};

/// Makes the scheduling marks of the graph's ops exactly these: on each
/// member of `realizes`, `lazy.realize = <position>`; on each member of
/// `groups[i]`, `lazy.group = i`; `lazy.row_value` on each row value; no
/// mark elsewhere.
void writeScheduleMarks(const LazyGraph &graph, const NodeSet &realizes,
                        ArrayRef<std::vector<NodeId>> groups = {},
                        const NodeSet *rowValues = nullptr);

/// Structural facts from tinygrad's _recurse_lb walk.
struct GraphWalk {
  NodeSet allbufs; // unrealized bases in DFS pre-order
  /// Per base: its consumer bases, each once, in first-use order.
  std::vector<llvm::SmallVector<NodeId, 2>> children;
  NodeSet simplePads;    // bases whose padded views need checking
  NodeSet doubleReduces; // reduces reading a view of a same-op reduce
  llvm::MapVector<NodeId, NodeId> assignTargets; // target base -> ASSIGN
  NodeSet realizes; // what the walk itself must realize
};

/// Realized bases by the first of the realize rule's reasons that holds
/// (Realize.cpp's rules 1-4), the rest realized by the later rules (unsafe
/// pads, reduce grouping, fusion=aggressive's stored row values): what
/// lazy-form-kernels' statistics and report give.
struct RealizeReasons {
  int64_t outputs = 0, metaOrForced = 0, copySources = 0, expanded = 0,
          otherRules = 0;
};
RealizeReasons countRealizeReasons(const LazyGraph &graph,
                                   const NodeSet &realizes);

/// Runs the walk from the graph's outputs. Fails (with a diagnostic at the
/// offending op) on an ASSIGN to something other than a realized base or a
/// COPY of a non-contiguous view, which tinygrad asserts against.
FailureOr<GraphWalk> walkGraph(const LazyGraph &graph);

/// The LazyGraph of a graph-level function and its walk, as an MLIR
/// analysis: built once and kept by the pass manager through the passes
/// that only print marks (lazy-mark-realize, then lazy-group), instead of
/// being rebuilt by each. Neither the graph nor the walk reads the marks
/// those passes write.
struct ScheduleGraphAnalysis {
  explicit ScheduleGraphAnalysis(Operation *op);
  /// Empty when the function is not schedulable (a diagnostic was emitted
  /// when the analysis was built).
  std::optional<LazyGraph> graph;
  std::optional<GraphWalk> walk;
  bool valid() const { return graph && walk; }
};

/// A1 + A2: the walk's realizes plus every simple pad whose padded area
/// reaches an op in UNSAFE_PAD_OPS before a realized buffer.
NodeSet computeRealizes(const LazyGraph &graph, const GraphWalk &walk);

/// The decisions: the final realizes set and the output groups, each one
/// future schedule item, in tinygrad's order.
struct SchedulePlan {
  NodeSet realizes;
  llvm::MapVector<NodeId, NodeId> reduceForOp; // realized buffer -> reduce
  std::vector<std::vector<NodeId>> outputGroups;
  /// fusion=aggressive, rule 5: unrealized nodes (reduces and the values
  /// computed from them) that their one reading kernel computes once per
  /// row and reads through the expanding view (a row kernel).
  NodeSet rowValues;
  /// fusion=aggressive, rule 6: the softmax-weighted sums whose kernels
  /// lazy-online-softmax rewrites.
  NodeSet onlineSums;
};

/// A3-A6, starting from `realizes`.
SchedulePlan computeGroups(const LazyGraph &graph, const GraphWalk &walk,
                           NodeSet realizes, const ScheduleFlags &flags);

/// Fails (at the op) when an output that needs computing is in no group of
/// `groups`: a schedule never returns an output that nothing writes.
LogicalResult checkOutputsGrouped(const LazyGraph &graph,
                                  ArrayRef<std::vector<NodeId>> groups);

/// Fails (at the op) when `group` has several outputs and one of them is an
/// op no kernel computes (MultiOutput.cpp).
LogicalResult checkGroupComputable(const LazyGraph &graph,
                                   ArrayRef<NodeId> group);

/// The whole decision: computeRealizes, computeGroups and the check that
/// every output is grouped.
FailureOr<SchedulePlan> planSchedule(const LazyGraph &graph,
                                     const GraphWalk &walk,
                                     const ScheduleFlags &flags);

} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_ANALYSIS_SCHEDULEANALYSIS_H
