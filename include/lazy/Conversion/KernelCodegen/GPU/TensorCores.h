//===- TensorCores.h - a tc plan's kernel body ------------------*- C++ -*-===//
//
// convert-lazy-to-gpu's tensor-core mode (TensorCores.cpp states its
// rules).
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_CONVERSION_KERNELCODEGEN_GPU_TENSORCORES_H
#define LAZY_CONVERSION_KERNELCODEGEN_GPU_TENSORCORES_H

#include "lazy/Conversion/KernelCodegen/KernelEmitter.h"
#include "lazy/Dialect/Lazy/Analysis/TensorCores.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::lazy {

/// The instruction tiles of a tensor-core kernel: 16 x
/// tensorCoreTileColumns outputs of (M, N), one element of every other
/// output axis.
/// One mma.sync m16n8k16 with f32 accumulators: `aFrag` vector<4x2xT>,
/// `bFrag` vector<2x2xT> (T f16 or bf16), `acc` vector<2x2xf32>, in PTX's
/// fragment layouts.
Value emitMmaSync(OpBuilder &b, Location loc, Value aFrag, Value bFrag,
                  Value acc);

int64_t tensorCoreTileCount(const KernelSpace &space,
                            const TensorCoreShape &shape, TensorCoreKind kind);

/// Emits at `b` the loop of a tensor-core kernel: block `group` (of
/// `groups`, a grid-stride step) takes instruction tiles group, group +
/// groups, ...; `lane` is the thread's lane in it.
LogicalResult
emitTensorCoreTiles(OpBuilder &b, Location loc, KernelEmitter &emitter,
                    ArrayRef<StoreOp> stores, const KernelSpace &space,
                    const TensorCoreShape &shape, TensorCoreKind kind,
                    Value group, Value groups, Value lane);

/// A block-tile tc plan's (hasTensorCoreBlocks) block tiles and threads.
int64_t tensorCoreBlockCount(const KernelSpace &space, const OptPlan &plan,
                             const TensorCoreShape &shape, TensorCoreKind kind);
int64_t tensorCoreBlockThreads(const OptPlan &plan,
                               const TensorCoreShape &shape,
                               TensorCoreKind kind);

/// Emits at `b` (in `func`, which gains two workgroup buffers) the loop of
/// a block-tile tc plan: block `group` (of `groups`) takes block tiles
/// group, group + groups, ...; `tid` is the thread's index in the block.
LogicalResult
emitTensorCoreBlocks(OpBuilder &b, Location loc, gpu::GPUFuncOp func,
                     KernelEmitter &emitter, ArrayRef<StoreOp> stores,
                     const KernelSpace &space, const OptPlan &plan,
                     const TensorCoreShape &shape, TensorCoreKind kind,
                     Value group, Value groups, Value tid);

} // namespace mlir::lazy

#endif // LAZY_CONVERSION_KERNELCODEGEN_GPU_TENSORCORES_H
