//===- ScalarOps.h - tinygrad's elementwise ops as arith/math ---*- C++ -*-===//
//
// The types and scalar helpers every part of kernel code generation uses:
// the signless type arith computes with, constants, and the accumulation
// steps (add, multiply, max) with tinygrad's semantics per dtype.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_CONVERSION_KERNELCODEGEN_SCALAROPS_H
#define LAZY_CONVERSION_KERNELCODEGEN_SCALAROPS_H

#include "lazy/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace mlir::lazy {

/// The signless type arith computes with.
Type signless(Type t);
/// Unsigned integers and bool, which compare and extend as unsigned.
bool isUnsignedInt(Type t);
/// 0 of the signless form of `t`.
TypedAttr zeroAttr(Builder &b, Type t);
/// The accumulator's start: 0 for sum, the dtype's lowest value for max.
TypedAttr reduceInit(Builder &b, Type t, bool isSum);
/// The element type of a lazy tensor value.
Type elementOf(Value v);
/// The value of a const op as an attribute of the signless type.
TypedAttr constAttr(Builder &b, ConstOp c);
/// A constant of `scalar`'s value, splat to `shape` when it is a vector.
Value constantLike(OpBuilder &b, Location loc, TypedAttr scalar,
                   VectorType shape);

/// tinygrad's ADD, MUL and MAX of dtype `t` on scalars or vectors: bool
/// ADD/MUL are or/and, MAX is `a > c ? a : c` (unsigned compare for
/// unsigned dtypes). Float adds round on their own unless `flags` allow
/// contraction or reassociation.
Value addOf(OpBuilder &b, Location loc, Value a, Value c, Type t,
            arith::FastMathFlags flags = arith::FastMathFlags::none);
Value mulOf(OpBuilder &b, Location loc, Value a, Value c, Type t);
Value maxOf(OpBuilder &b, Location loc, Value a, Value c, Type t);

/// Whether KernelEmitter::scalarOp has a vector form of `op`: not for the
/// ops whose expansion builds scalar constants or branches on values
/// (division, shifts, THREEFRY, float to integer casts), nor for 16-bit
/// floats (their software lowering is scalar).
bool vectorizableOp(Operation *op);

} // namespace mlir::lazy

#endif // LAZY_CONVERSION_KERNELCODEGEN_SCALAROPS_H
