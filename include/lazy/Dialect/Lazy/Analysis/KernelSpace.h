//===- KernelSpace.h - a kernel's iteration space and its plan --*- C++ -*-===//
//
// The axes a kernel plan (#lazy.opt) talks about. A kernel's iteration
// space is the shape its stores share, with every axis its reduces reduce
// at the size they read: a matmul storing (M, N, 1) from a reduce_sum over
// axis 2 of an (M, N, K) product has the space (M, N, K), axis 2 reduced.
// Only the top-level reduces count (those a store reaches without passing
// another reduce); a kernel whose stores differ in shape, or whose
// top-level reduces read different shapes or axes, has no space and takes
// no plan.
//
// A kernel over tinygrad Variables has a space too: `shape` holds each
// symbolic dim at its largest value and `dims` the dim itself. A plan
// takes no step on a symbolic axis (its steps divide integer extents),
// so such an axis keeps one loop to its value at the launch.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_ANALYSIS_KERNELSPACE_H
#define LAZY_DIALECT_LAZY_ANALYSIS_KERNELSPACE_H

#include "lazy/Dialect/Lazy/IR/LazyOps.h"

#include <string>

namespace mlir::lazy {

struct KernelSpace {
  SmallVector<int64_t> shape;
  /// Per axis: the dim, a plain int or a Variable expression.
  SmallVector<::lazy::st::SInt> dims;
  bool isSymbolicAxis(size_t d) const { return !dims[d].isInt(); }
  bool isSymbolic() const {
    return llvm::any_of(dims,
                        [](const ::lazy::st::SInt &d) { return !d.isInt(); });
  }
  /// One flag per axis: reduced by the kernel's top-level reduces.
  SmallVector<bool> reduced;
  /// The top-level reduces, in body order.
  SmallVector<Operation *> reduces;
};

/// The iteration space of `kernel`; on failure `why` says what prevents one.
FailureOr<KernelSpace> kernelSpace(KernelOp kernel, std::string &why);

/// A plan read per axis: how many elements each loop trip covers.
struct OptPlan {
  /// Per axis: elements per trip of an output axis (1: none).
  SmallVector<int64_t> upcast;
  /// Per axis: elements per trip of a reduce axis (1: none).
  SmallVector<int64_t> unroll;
  /// Per axis: the cache block of an output axis (0: none).
  SmallVector<int64_t> tile;
  /// Per axis: threads of a GPU block along an output axis (1: none;
  /// `local` steps, on the M and N axes of a product reduce).
  SmallVector<int64_t> local;
  /// Threads of a GPU block that split the kernel's reduce (`group`; 0:
  /// none).
  int64_t groupThreads = 0;
  /// The reduce axis a tensor-core plan (`tc`) computes on tensor cores,
  /// else none (TensorCores.h).
  std::optional<size_t> tensorCores;
  /// The output axis a register tile's elements are vectors along (`lanes`),
  /// and how many positions each vector holds; none: scalar elements.
  std::optional<size_t> laneAxis;
  int64_t laneWidth = 1;
  /// The tiled output axis whose blocks copy their loads into packed
  /// panels (`pack`, PackedPanels.h); none: no packing.
  std::optional<size_t> packAxis;
  /// A group plan (`row` and `block` steps, RowSplit.h; no space, no
  /// other step), per store group: 0 where it runs elementwise, else its
  /// vectors' bytes (`rows`); 0 where it runs a GPU thread per element,
  /// else its blocks' threads (`blocks`).
  SmallVector<int64_t> rows, blocks;

  /// A plan with `row` steps.
  bool isRowPlan() const;
  /// A plan of `row` or `block` steps.
  bool isGroupPlan() const;
  /// A plan with tc, local, group or block steps, which only the GPU
  /// lowering runs.
  bool isGpuOnly() const;

  /// A shared-memory plan: it has `local` steps.
  bool hasLocals() const;
  /// Threads of one block of a shared-memory plan.
  int64_t threadsPerBlock() const;
  /// Output elements one loop trip computes.
  int64_t elementsPerTrip() const;
  bool empty() const;
};

/// Reads `opts` against `space`; on failure `why` names the bad step.
/// Rules: an axis of the space; an amount of at least 1 that divides the
/// axis; upcast, tile and lanes on output axes, unroll on reduce axes;
/// each kind once per axis; lanes once per plan, a power of two from 2
/// that divides its axis's upcast, not beside tc, local or group; a tile a
/// multiple of its axis's upcast; at most kMaxElementsPerTrip elements (upcasts
/// times unrolls) per trip. With `tc`: only local (warps) and upcast
/// (instruction tiles per warp) on its M and N and unroll on its K (a multiple
/// of 16), the block tile dividing M x N, at most kMaxTensorCoreWarps warps.
/// Otherwise locals: on the operands' own axes of a float product reduce
/// (ProductReduce.h, no casts), each a multiple of its local times its upcast,
/// no other output axis local or upcast, at most one upcast axis per operand,
/// no tile, only the outermost reduce axis unrolled, kMinLocalThreads to
/// kMaxLocalThreads threads, at most kMaxSharedBytes of staged operands
/// per chunk of K. Group: a power
/// of two of threads from kMinLocalThreads to kMaxLocalThreads (it need not
/// divide the axis) on the innermost reduce axis, the whole plan.
FailureOr<OptPlan> readPlan(ArrayRef<Attribute> opts, const KernelSpace &space,
                            std::string &why);

/// A shared-memory plan's block: at least a warp, at most what every GPU
/// runs.
constexpr int64_t kMinLocalThreads = 32, kMaxLocalThreads = 1024;
/// A shared-memory plan's staged operands: what every GPU block may hold.
constexpr int64_t kMaxSharedBytes = 48 * 1024;
/// A shared-memory plan's chunk of K, whose steps the kernel unrolls.
constexpr int64_t kMaxLocalChunk = 64;
/// A tensor-core plan's block: at most 16 warps (1024 threads of 64-lane
/// waves).
constexpr int64_t kMaxTensorCoreWarps = 16;

/// Keeps unrolled code to a size the compiler handles quickly.
constexpr int64_t kMaxElementsPerTrip = 512;

/// `kernel`'s space and its plan `opts` read against it; on failure
/// `message` completes "'lazy.kernel' op ..." (no space, or the step that
/// does not read). A plan of `row` and `block` steps is read by
/// readGroupPlan instead (the space is then empty: a row kernel has none,
/// and a group plan does not need one), and so is an empty
/// plan (`[]`, which keeps lazy-optimize-kernels from planning the
/// kernel). The kernel verifier's check and the lowerings' reader.
FailureOr<std::pair<KernelSpace, OptPlan>>
readKernelPlan(KernelOp kernel, ArrayRef<Attribute> opts, std::string &message);

/// Attaches the kernel verifier's plan check (IR/KernelPlanVerifier.h:
/// kernelSpace, then readPlan) to the lazy dialect of every context made
/// from `registry`. registerAllDialects (InitAll.h) calls it.
void registerKernelPlanVerifier(DialectRegistry &registry);

} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_ANALYSIS_KERNELSPACE_H
