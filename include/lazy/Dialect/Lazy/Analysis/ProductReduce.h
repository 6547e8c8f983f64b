//===- ProductReduce.h - a kernel's reduce as a matrix product --*- C++ -*-===//
//
// The matrix-multiply shape that tensor-core plans (`tc`, TensorCores.h)
// and shared-memory plans (`local`) need: the kernel's one top-level reduce
// is a sum over one axis K of a product of two operands, one varying along
// an output axis M and not along N, the other along N and not along M. The
// operands are expressions of loads (no reduce, no computed view), so that
// a lowering may evaluate them anywhere in the space.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_ANALYSIS_PRODUCTREDUCE_H
#define LAZY_DIALECT_LAZY_ANALYSIS_PRODUCTREDUCE_H

#include "lazy/Dialect/Lazy/Analysis/KernelSpace.h"

#include <string>

namespace mlir::lazy {

/// Where the casts of a product reduce stand.
enum class ProductCasts {
  /// reduce_sum(mul(a, b)).
  None,
  /// reduce_sum(cast(mul(a, b))).
  OfProduct,
  /// reduce_sum(mul(cast(a), cast(b))).
  OfOperands,
};

/// A kernel's reduce as a matrix product, in the kernel's space.
struct ProductReduce {
  /// Axes of the space: rows, columns (output axes), and the reduce axis;
  /// with several, the innermost of aAxes, bAxes and kAxes.
  size_t m, n, k;
  /// The output axes `a` alone varies along, those `b` alone varies
  /// along, and the reduce's axes, outermost first.
  SmallVector<size_t> aAxes, bAxes, kAxes;
  /// The kernel's one top-level reduce (a reduce_sum).
  Operation *reduce;
  /// The operands (under the casts, if any): `a` varies along m and k,
  /// not n; `b` along n and k, not m. Of one element type.
  Value a, b;
  ProductCasts casts;
};

/// The product reduce of `space`'s kernel over axis `k`, or a failure with
/// `why`: one reduce_sum over axis k alone of one of ProductCasts' forms,
/// its operands of one element type, nothing inside them but loads and
/// elementwise ops, one output axis each operand alone varies along (M for
/// one, N for the other; N the one the output is contiguous along when
/// both could be). `what` names the plan in the messages.
FailureOr<ProductReduce> matchProductReduce(const KernelSpace &space, size_t k,
                                            StringRef what, std::string &why);
/// The same over any number of reduce axes (a convolution's channels and
/// window), each operand with one or more output axes of its own (a
/// convolution's input its rows and columns, its weight the output
/// channels); m, n and k the innermost of each.
FailureOr<ProductReduce> matchProductReduce(const KernelSpace &space,
                                            StringRef what, std::string &why);

/// A local plan's chunk of K, the elements of the flattened reduce axes
/// its block stages at a time: the outermost reduce axis's unroll times
/// the other reduce axes' sizes (whole windows).
int64_t localChunk(const KernelSpace &space, const OptPlan &plan,
                   const ProductReduce &product);

} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_ANALYSIS_PRODUCTREDUCE_H
