//===- KernelDedup.h - which groups share one kernel -------------*- C++
//-*-===//
//
// Kernel deduplication (KernelDedup.cpp states the rule): a plan of each
// kernel AST, keyed so that equal keys make equal kernels, and the tables
// that find an earlier group's kernel for a group, by its description
// before its AST is built or by its plan after.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_ANALYSIS_KERNELDEDUP_H
#define LAZY_DIALECT_LAZY_ANALYSIS_KERNELDEDUP_H

#include "lazy/Dialect/Lazy/Analysis/KernelAst.h"
#include "lazy/Dialect/Lazy/IR/LazyTypes.h"

#include "llvm/ADT/DenseMap.h"

#include <deque>

namespace mlir::lazy {

/// The ops a kernel is made of, decided before any is built: the live AST
/// nodes in emission order, structurally equal leaves merged. `key`
/// describes the kernel completely, so that kernels with equal keys are
/// equal but for locations.
struct KernelPlan {
  SmallVector<Type> argTypes;
  SmallVector<StringAttr> metadata;
  /// The AST nodes to build, in order.
  std::vector<int32_t> ops;
  /// By AST node: the index into `ops` of the op that computes it (a merged
  /// leaf's is its twin's), -1 for dead nodes. An op's operands are opOf
  /// of its AST sources.
  std::vector<int32_t> opOf;
  /// (index into `ops`, store tracker), one per output.
  std::vector<std::pair<int32_t, ::lazy::st::TrackerId>> stores;
  SmallVector<uint64_t, 0> key;
};

/// The plan of `item`'s kernel; `bufferType` gives each buffer's type.
KernelPlan planKernel(const LazyGraph &g, const ScheduleItem &item,
                      function_ref<BufferType(NodeId)> bufferType);

/// The dtype a kernel AST node computes in: that of the graph node.
inline Type elementTypeOf(const LazyGraph &g, const AstNode &node) {
  return g.node(node.source).elementType();
}

/// Keys of kernel plans and group descriptions: word arrays of a few
/// hundred words, hashed as bytes by xxh3 (several times faster on long
/// keys than hash_combine_range, DenseMapInfo<ArrayRef>'s hash).
struct WordsInfo : llvm::DenseMapInfo<ArrayRef<uint64_t>> {
  static unsigned getHashValue(ArrayRef<uint64_t> words);
};

/// The distinct kernels of one schedule, found as its groups come.
class KernelDedup {
public:
  /// A described group's kernel, and what building its AST found computed
  /// otherwise than the graph says.
  struct Described {
    size_t kernel = SIZE_MAX;
    std::optional<ScheduleItem::Miscompute> miscompute;
  };

  explicit KernelDedup(size_t expectedGroups);

  /// Describes `group` (KernelAstBuilder::describe). When a group with the
  /// same description had its kernel settled, returns that (with `inputs`
  /// the buffers this group's kernel reads); otherwise null, and the
  /// description waits for settleDescription or dropDescription.
  const Described *findDescribed(KernelAstBuilder &builder,
                                 ArrayRef<NodeId> group,
                                 std::vector<NodeId> &inputs);
  /// The waiting description's kernel, once built (no-op when none waits).
  void settleDescription(const Described &described);
  /// Forgets the waiting description (its group is not a kernel).
  void dropDescription();

  /// The kernel of `plan`: an earlier equal plan's (false), or a new one
  /// (true), which plans() keeps.
  std::pair<size_t, bool> addPlan(KernelPlan plan);
  const std::deque<KernelPlan> &plans() const { return planList; }

private:
  /// One plan per distinct kernel (a deque: the index keys point into it).
  std::deque<KernelPlan> planList;
  llvm::DenseMap<ArrayRef<uint64_t>, size_t, WordsInfo> planIndex;
  std::deque<SmallVector<uint64_t, 0>> descriptions; // owns the map's keys
  llvm::DenseMap<ArrayRef<uint64_t>, Described, WordsInfo> kernelOfDescription;
  SmallVector<uint64_t, 0> description; // scratch
  Described *waiting = nullptr;
};

} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_ANALYSIS_KERNELDEDUP_H
