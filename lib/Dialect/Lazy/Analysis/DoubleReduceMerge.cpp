//===- DoubleReduceMerge.cpp - FUSE_CONV_BW (A4) --------------------------===//
//
// tinygrad 0.9.2's double-reduce merging (scheduler spec §2.4; default off,
// the `fuse_conv_bw` flag): a reduce that reads a view of a reduce of its
// own kind (a sum of a sum, as a convolution's weight gradient is) is a
// double reduce, which the walk records (Realize.cpp). Then:
//   1. with FUSE_CONV_BW, the inner reduce of a double reduce whose inner
//      reduce has no other child is no longer realized: both are computed by
//      one kernel;
//   2. building that kernel (KernelAst.cpp), the outer reduce merges into
//      the inner one: one reduce over the outer reduce's axes, then the
//      inner's, through the inner reduce's input;
//   3. tinygrad applies the outer axes' numbers to the inner reduce's
//      input. When the view between the two is a contiguous reshape that
//      renumbers the reduced axes, the merged kernel sums other elements
//      than the graph says; the kernel keeps tinygrad's AST and
//      lazy-form-kernels warns.
//
//===----------------------------------------------------------------------===//

#include "ScheduleRules.h"

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;

bool mlir::lazy::isDoubleReduce(const LazyGraph &g, NodeId reduce) {
  const LazyNode &n = g.node(reduce);
  if (!n.isReduce())
    return false;
  const LazyNode &src = g.node(n.srcs[0]);
  return !src.isBase() && g.node(src.base).kind == n.kind;
}

void mlir::lazy::mergeDoubleReduces(const LazyGraph &g, const GraphWalk &w,
                                    NodeSet &realizes) {
  for (NodeId reduce : w.doubleReduces) {
    NodeId inner = g.baseOf(g.node(reduce).srcs[0]);
    if (w.children[inner].size() == 1)
      realizes.remove(inner);
  }
}

/// How reducing `axes` of `shape` partitions the elements: runs of
/// (size, reduced) with size-1 dims dropped and neighbouring dims of one
/// kind multiplied together. Two shapes of a reshape reduce the same
/// elements together exactly when their runs are equal.
static SmallVector<std::pair<int64_t, bool>>
reduceRuns(ArrayRef<int64_t> shape, ArrayRef<int64_t> axes) {
  SmallVector<std::pair<int64_t, bool>> runs;
  for (auto [i, size] : llvm::enumerate(shape)) {
    if (size == 1)
      continue;
    bool reduced = llvm::is_contained(axes, int64_t(i));
    if (!runs.empty() && runs.back().second == reduced)
      runs.back().first *= size;
    else
      runs.push_back({size, reduced});
  }
  return runs;
}

bool mlir::lazy::mergeRenumbersAxes(const LazyGraph &g, NodeId inner,
                                    st::TrackerId between,
                                    ArrayRef<int64_t> axes) {
  // A view that is not contiguous is pushed into the inner input, where the
  // numbers are right; a contiguous one is a reshape.
  const st::TrackerPool &pool = g.trackers();
  return pool.contiguous(between) && reduceRuns(g.node(inner).shape(), axes) !=
                                         reduceRuns(pool.shape(between), axes);
}

std::vector<int64_t> mlir::lazy::mergedAxes(ArrayRef<int64_t> outer,
                                            ArrayRef<int64_t> inner) {
  std::vector<int64_t> axes(outer.begin(), outer.end());
  axes.insert(axes.end(), inner.begin(), inner.end());
  return axes;
}

StringRef mlir::lazy::renumberedMergeWarning() {
  return " is merged into the reduce it reads (fuse-conv-bw) "
         "through a reshape that renumbers the reduced axes, so the "
         "kernel sums other elements than the graph says (tinygrad "
         "0.9.2 computes the same); turn fuse-conv-bw off, or keep "
         "the inner reduce's dims (keepdim) so that the axes keep "
         "their numbers";
}
