//===- IndexExpr.h - ShapeTracker index arithmetic in MLIR -------*- C++
//-*-===//
//
// Emits, as arith ops on `index` values, the buffer index and validity of an
// element of a ShapeTracker: the same function ShapeTracker::indexAndValid
// evaluates on constants.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_CONVERSION_KERNELCODEGEN_INDEXEXPR_H
#define LAZY_CONVERSION_KERNELCODEGEN_INDEXEXPR_H

#include "lazy/ShapeTracker/ShapeTracker.h"
#include "lazy/ShapeTracker/SymView.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::lazy {

struct IndexAndValid {
  Value index; // index-typed buffer index
  Value valid; // i1, or null when every element is valid
};

/// The buffer index and validity of the element at `idx` (one index value
/// per dimension of tracker.shape()). Views are applied from the outermost
/// inwards; an index into an earlier view is unflattened with floor
/// division and remainder by its shape.
IndexAndValid emitIndexAndValid(OpBuilder &b, Location loc,
                                const ::lazy::st::ShapeTracker &tracker,
                                ValueRange idx);

/// A tracker of several views whose index tinygrad's simplifier reduces to
/// one affine expression, `offset + sum strides[d] * idx[d]`, with its
/// validity a conjunction of affine conditions (realStrides(ignoreValid)
/// and affineValidity both defined): a convolution's padded input, a
/// reshaped transpose. Computing it directly skips the division and
/// remainder of each view below the outermost.
struct AffineIndex {
  std::vector<int64_t> strides;
  int64_t offset = 0;
  std::vector<::lazy::st::AffineCondition> valid;
};

/// The affine form of `tracker`, or nullopt for a single view (already
/// direct) or when the form is not defined. The form is checked against
/// ShapeTracker::indexAndValid on up to kAffineSamples elements (corners,
/// each axis's end, pseudo-random ones) and refused on any difference.
std::optional<AffineIndex>
affineIndexOf(const ::lazy::st::ShapeTracker &tracker);
constexpr int kAffineSamples = 64;

/// The element index and validity of `tracker` at `idx` as tinygrad's
/// symbolic algebra simplifies them (SymShapeTracker::exprAt), knowing the
/// range of each index: a constant, an scf.for or scf.parallel induction
/// variable with constant bounds, or sums and constant multiples of those
/// (a tile's lane is its base plus a constant). Within those ranges a
/// division or remainder of a view below the outermost often folds away, as
/// it does in tinygrad's own kernels. None when an index's range is not
/// known this way, when the algebra raises, or when the simplified form
/// keeps at least as many divisions and remainders as emitIndexAndValid
/// emits.
std::optional<IndexAndValid>
emitBoundedIndexAndValid(OpBuilder &b, Location loc,
                         const ::lazy::st::ShapeTracker &tracker,
                         ValueRange idx);

/// `constant + sum coeffs[d] * idx[d]` as index arithmetic.
Value emitAffine(OpBuilder &b, Location loc, ArrayRef<int64_t> coeffs,
                 int64_t constant, ValueRange idx);

/// emitIndexAndValid through an affine form.
IndexAndValid emitAffineIndexAndValid(OpBuilder &b, Location loc,
                                      const AffineIndex &form, ValueRange idx);

//===----------------------------------------------------------------------===//
// Symbolic shapes: kernels over tinygrad Variables
//===----------------------------------------------------------------------===//

/// The `index` value of each Variable a kernel reads, by the unbound
/// Variable's key (sym::Node::key(), `start_pos[1-8]`): the kernel's
/// arguments, which its launches set.
using VariableValues = llvm::StringMap<Value>;

/// `x` as index arithmetic over `vars`, with Python's floor division and
/// modulo (tinygrad's symbolic semantics); a comparison or conjunction is
/// 1 or 0. Every Variable of `x` must be in `vars`.
Value emitSInt(OpBuilder &b, Location loc, const ::lazy::st::SInt &x,
               const VariableValues &vars);

/// emitIndexAndValid for symbolic views: the same arithmetic with each
/// entry emitted by emitSInt, so that the result is the integer tracker's
/// at the Variables' values.
IndexAndValid emitSymIndexAndValid(OpBuilder &b, Location loc,
                                   const ::lazy::st::SymShapeTracker &tracker,
                                   ValueRange idx, const VariableValues &vars);

/// The affine form of a symbolic tracker whose index is affine with
/// integer coefficients: one view of integer strides and offset, each mask
/// range of integers or the whole dim (which the loops already keep to).
/// Nullopt otherwise.
std::optional<AffineIndex>
symbolicAffineForm(const ::lazy::st::SymShapeTracker &tracker);

/// The row-major index vector of `flat` in `shape`, whose dims may be
/// symbolic; axes of one element get `zero`.
SmallVector<Value> delinearizeSymIndex(OpBuilder &b, Location loc, Value flat,
                                       const ::lazy::st::SymShape &shape,
                                       const VariableValues &vars, Value zero);

} // namespace mlir::lazy

#endif // LAZY_CONVERSION_KERNELCODEGEN_INDEXEXPR_H
