//===- HostBuffers.h - lazy buffers as bytes seen through views -*- C++ -*-===//
//
// Host code of both lowerings keeps every buffer as the bytes of an
// allocation (or a function argument) plus a byte shift, and gives each use
// the `memref.view` of those bytes it needs. Buffer views at any offset and
// of any dtype, and kernels that read a buffer's bytes as another dtype
// (tinygrad's byte-copy kernels), are then views of the same memory.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_CONVERSION_LAZYTOLOOPS_HOSTBUFFERS_H
#define LAZY_CONVERSION_LAZYTOLOOPS_HOSTBUFFERS_H

#include "lazy/Conversion/KernelCodegen/KernelEmitter.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Dialect/Lazy/IR/LazyTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::lazy {

/// The memref a kernel or a host view sees a buffer as.
inline MemRefType memrefOf(BufferType buffer) {
  return MemRefType::get({buffer.getSize()}, signless(buffer.getElementType()));
}

/// The bytes of a buffer.
inline MemRefType bytesOf(BufferType buffer) {
  return MemRefType::get({buffer.getSizeInBytes()},
                         IntegerType::get(buffer.getContext(), 8));
}

/// A buffer on the host side: `bytes` (an i8 memref of a whole allocation
/// or argument), `shift` bytes in, seen as `view`.
struct HostBuffer {
  Value bytes;
  int64_t shift = 0;
  Value view;
};

/// `bytes`, `shift` bytes in, seen as `type` (a static identity memref).
inline Value viewOf(OpBuilder &b, Location loc, Value bytes, int64_t shift,
                    MemRefType type) {
  Value at = arith::ConstantIndexOp::create(b, loc, shift);
  return memref::ViewOp::create(b, loc, type, bytes, at, ValueRange{});
}

/// `buffer` as `type`: its own view when the types agree, else a new view
/// of the same bytes (a kernel reading the buffer's bytes as another dtype).
inline Value viewAs(OpBuilder &b, Location loc, const HostBuffer &buffer,
                    MemRefType type) {
  if (buffer.view.getType() == type)
    return buffer.view;
  return viewOf(b, loc, buffer.bytes, buffer.shift, type);
}

/// What a target does with the host side of a schedule.
class HostTarget {
public:
  virtual ~HostTarget() = default;
  /// "CPU" or "GPU", for diagnostics.
  virtual StringRef name() const = 0;
  /// A new allocation of `bytes`.
  virtual Value allocate(OpBuilder &b, Location loc, MemRefType bytes) = 0;
  /// Runs the kernel `launch` names on `operands` (outputs, then inputs).
  virtual LogicalResult launch(OpBuilder &b, LaunchOp launch,
                               ArrayRef<HostBuffer> operands) = 0;
  virtual void copy(OpBuilder &b, Location loc, Value dst, Value src) = 0;
  virtual void fillZero(OpBuilder &b, Location loc, Value dst) = 0;
  /// A custom_random item: fills `dst` (the item's output view) from
  /// `seed`; `dtype` is the output's interp::DType (checked by the caller).
  virtual void customRandom(OpBuilder &b, Location loc, Value dst, int64_t seed,
                            int32_t dtype) = 0;
  /// Before the return: the allocations no result lives in.
  virtual void release(OpBuilder &b, Location loc, ArrayRef<Value> unused) = 0;
  /// lazy-distribute's items: `bytes` (an i8 view of the buffer) sent or
  /// received, `in` reduced over the ranks into `out` (element views that
  /// share no bytes). A target without them reports the op.
  virtual LogicalResult send(OpBuilder &b, SendOp op, Value bytes);
  virtual LogicalResult receive(OpBuilder &b, RecvOp op, Value bytes);
  virtual LogicalResult allReduce(OpBuilder &b, AllReduceOp op, Value in,
                                  Value out);
};

/// The MPI implementation whose ABI the mpi dialect lowers to (a DLTI
/// entry on the module, read by MPIToLLVM): "OpenMPI" or "MPICH".
void setMpiImplementation(ModuleOp module, StringRef implementation);

/// A call of the runtime's `lazy_rt_custom_random` (HostFunctions.h) that
/// fills the host memref `view`: its address as an integer, the seed, the
/// dtype's number and the element count. Declares the function in the
/// module on first use.
void emitCustomRandomCall(OpBuilder &b, Location loc, Value view, int64_t seed,
                          int32_t dtype);

/// Rewrites a scheduled function into host code for `target`: buffer
/// arguments become `memref<B x i8>`, every buffer a view of bytes. A
/// custom_random item draws from its seed or, without one, from the
/// module's `lazy.rng_seed` plus k for the k-th such item of the function
/// (tinygrad's counter, in schedule order). Other CUSTOM items and copies
/// between buffers of different types are errors.
LogicalResult lowerHostFunction(func::FuncOp func, HostTarget &target);

/// lowerHostFunction on every scheduled function of `module` (those with
/// buffer arguments or results).
LogicalResult lowerHostFunctions(ModuleOp module, HostTarget &target);

} // namespace mlir::lazy

#endif // LAZY_CONVERSION_LAZYTOLOOPS_HOSTBUFFERS_H
