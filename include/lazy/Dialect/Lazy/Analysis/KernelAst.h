//===- KernelAst.h - tinygrad's _lower_lazybuffer ----------------*- C++
//-*-===//
//
// Builds the AST of one schedule item from an output group (scheduler spec
// §2.7): movement ops pushed through reduces, double reduces merged, reduce
// inputs padded to a common shape, stores in reduce space, outputs numbered
// 0..n-1 and inputs n.. in first-use order, assign targets loaded through
// their output slot. The AST is plain data; lazy-form-kernels turns it into
// a lazy.kernel (KernelDedup.h says which groups share one).
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_ANALYSIS_KERNELAST_H
#define LAZY_DIALECT_LAZY_ANALYSIS_KERNELAST_H

#include "lazy/Dialect/Lazy/Analysis/ScheduleAnalysis.h"

#include <optional>

namespace mlir::lazy {

/// A uniqued MLIR object (type, attribute, op name) as one word of a
/// kernel key or a group description: equal objects have equal addresses.
inline uint64_t opaqueWord(const void *p) { return uint64_t(uintptr_t(p)); }

/// One node of a kernel AST (a tinygrad LazyOp). Nodes are stored in
/// post-order, so sources always precede their users. Plain data of 40
/// bytes: a kernel's nodes are one exact allocation, copied in one go (a
/// training step keeps hundreds of ASTs until their kernels are built, and
/// every page they first touch is a page fault).
struct AstNode {
  /// View: a computed node (the first source) read through `view`, a row
  /// value of fusion=aggressive (SchedulePlan::rowValues).
  enum class Kind : uint8_t { Load, Const, Compute, Reduce, View };
  /// Elementwise ops read at most three values (WHERE, MULACC); a reduce
  /// reads one.
  static constexpr unsigned kMaxSrcs = 3;
  Kind kind = Kind::Compute;
  uint8_t numSrcs = 0;
  /// The graph node this came from: the loaded buffer, the const, or the
  /// op computed (Compute, Reduce).
  NodeId source = -1;
  /// Load, Const and View: the ShapeTracker they read through (an id in
  /// the graph's TrackerPool, as are all trackers here).
  ::lazy::st::TrackerId view = 0;
  /// Load: the MemBuffer index (outputs first, then inputs).
  int32_t buffer = -1;
  int32_t srcSlots[kMaxSrcs] = {-1, -1, -1};
  /// A tracker whose shape is the node's value shape: the view of a leaf,
  /// the view a computed node is lowered through, the identity tracker of a
  /// reduce's output shape.
  ::lazy::st::TrackerId shaped = 0;
  /// Reduce: its axes, ScheduleItem::axesOf(node) (a merged double reduce
  /// lists the outer axes first).
  uint32_t axesBegin = 0;
  uint32_t numAxes = 0;

  /// The sources: indices of earlier nodes.
  ArrayRef<int32_t> srcs() const { return ArrayRef(srcSlots, numSrcs); }
};

/// A schedule item before ordering (tinygrad's LBScheduleItem).
struct ScheduleItem {
  /// False for EXT items (copy, custom, empty, buffer_view).
  bool isKernel = true;
  std::vector<NodeId> outputs;
  std::vector<NodeId> inputs;
  // Kernels only:
  std::vector<AstNode> nodes;
  /// The reduces' axes, AstNode::axesBegin.. (axesOf).
  std::vector<int64_t> axes;
  /// One store per output: the value node and the store's ShapeTracker.
  std::vector<std::pair<int32_t, ::lazy::st::TrackerId>> stores;
  /// Computed nodes in tinygrad's cache order (their locations are the
  /// kernel's metadata).
  std::vector<NodeId> computed;
  /// Nonzero for a USE_COPY_KERNEL copy: a kernel that loads and stores
  /// this many bytes as uint8 (`nodes` and `stores` stay empty).
  int64_t copyBytes = 0;
  /// The first reduce the kernel computes otherwise than the graph says, as
  /// tinygrad 0.9.2 does (lazy-form-kernels warns), if any:
  ///  - RenumberedMerge: merged into the reduce it reads (fuse-conv-bw)
  ///    through a reshape that renumbers the reduced axes, whose numbers
  ///    tinygrad applies to the inner reduce's input;
  ///  - PaddedUnsafeInput: read through a masked view that is pushed into
  ///    the reduce's input, where an op that is not zero on zeros (RECIP,
  ///    LOG2, EXP2, IDIV) then runs in the padding.
  enum class Miscompute { RenumberedMerge, PaddedUnsafeInput };
  struct MiscomputedReduce {
    NodeId reduce;
    Miscompute kind;
  };
  std::optional<MiscomputedReduce> miscomputed;

  ArrayRef<int64_t> axesOf(const AstNode &node) const {
    return ArrayRef(axes).slice(node.axesBegin, node.numAxes);
  }
};

/// Whether `view` reads or writes each element of its shape where an
/// identity view would (tinygrad's test for the self operand of an
/// augmented assign): contiguous, or one masked view equal to the identity
/// inside its mask (masked elements are not read).
bool isIdentityLike(const ::lazy::st::ShapeTracker &view);

/// Outputs of a kernel (positions in `item.outputs`) that assign through a
/// view that is not identity-like while the kernel also loads the assign's
/// target, among the AST nodes `liveOps` (AssignHazards.cpp).
SmallVector<unsigned> orderDependentAssigns(const LazyGraph &g,
                                            const ScheduleItem &item,
                                            ArrayRef<int32_t> liveOps);
/// Outputs of an item launching `kernelItem`'s kernel (with its live nodes
/// `liveOps`) on `outputs` and `inputs` that assign to a target the kernel
/// also reads through a buffer_view of it in another order than it writes
/// it (AssignHazards.cpp).
SmallVector<unsigned> aliasedAssignReads(const LazyGraph &g,
                                         ArrayRef<NodeId> outputs,
                                         ArrayRef<NodeId> inputs,
                                         const ScheduleItem &kernelItem,
                                         ArrayRef<int32_t> liveOps);
/// The warnings for those two, after the op's quoted name.
StringRef orderDependentAssignWarning();
StringRef aliasedAssignReadWarning();
/// The warning for a reduce computed otherwise than the graph says, after
/// the op's name (DoubleReduceMerge.cpp, UnsafePads.cpp).
StringRef miscomputeWarning(ScheduleItem::Miscompute kind);

namespace detail {
class KernelAstBuilderImpl;
} // namespace detail

/// Builds the ASTs of the output groups of one graph, one after another. Errors
/// (tinygrad's assertions and the "self operand of augmented assign must be
/// contiguous" error) are reported at the offending op. With
/// `useCopyKernel` (USE_COPY_KERNEL), a COPY between devices of one type
/// (`CUDA:0` to `CUDA:1`) is a byte-copy kernel instead of an EXT item.
/// The walks' tables are kept from one group to the next, so that lowering
/// thousands of small groups does not allocate them thousands of times.
class KernelAstBuilder {
public:
  /// `rowValues`: unrealized nodes that kernels compute once at their own
  /// shape and read through views (SchedulePlan::rowValues).
  KernelAstBuilder(const LazyGraph &graph, const NodeSet &realizes,
                   bool useCopyKernel = false,
                   const NodeSet *rowValues = nullptr);
  ~KernelAstBuilder();
  FailureOr<ScheduleItem> build(ArrayRef<NodeId> group);
  /// Describes what build(group) would compute, up to which graph nodes it
  /// reads: the walked subgraph (ops, types, properties, metadata, the
  /// views on its edges, which leaves are the same buffer) and its outputs.
  /// Groups with equal descriptions lower to the same AST over other
  /// buffers. Fills `key`, and `inputs` with the buffers the AST would
  /// load, in the order build() numbers them. Returns false, describing
  /// nothing, for a group that is not a kernel AST (an EXT item or a
  /// byte-copy kernel) and for one of thousands of ops, whose description
  /// would cost more than a repeat saves.
  bool describe(ArrayRef<NodeId> group, SmallVectorImpl<uint64_t> &key,
                std::vector<NodeId> &inputs);
  /// Takes back the AST of an item the caller no longer needs (a kernel
  /// another item already built): the next build() fills its vectors
  /// instead of allocating new ones.
  void recycle(ScheduleItem &item);

private:
  std::unique_ptr<detail::KernelAstBuilderImpl> state;
};

} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_ANALYSIS_KERNELAST_H
