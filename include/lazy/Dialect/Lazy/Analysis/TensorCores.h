//===- TensorCores.h - which kernels a tensor-core plan fits ---*- C++ -*-===//
//
// A `tc` plan step (#lazy.opt<tc, K, 16>) computes a kernel's one reduce as
// matrix multiply-adds of 16-bit float tiles with f32 accumulation: the
// kernel is a sum over axis K of a product of two 16-bit float operands,
// one varying along an output axis M and K but not along N, the other
// along N and K but not M, accumulated in f32 (tinygrad's
// `a.matmul(b, acc_dtype=dtypes.float)` on halves: the product cast to
// f32, or each operand cast before the product). Under tensor cores every
// product is exact (as the hardware computes it, and tinygrad's TC
// kernels): where the graph rounds the product to 16 bits first, the
// results differ by that rounding.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_ANALYSIS_TENSORCORES_H
#define LAZY_DIALECT_LAZY_ANALYSIS_TENSORCORES_H

#include "lazy/Dialect/Lazy/Analysis/ProductReduce.h"

#include <optional>
#include <string>

namespace mlir::lazy {

/// The matrix multiply a tensor-core plan computes, in the kernel's space:
/// `a` and `b` are its 16-bit float operands.
using TensorCoreShape = ProductReduce;

/// The smallest tile of the tensor-core instructions: m16n8k16 (NVIDIA's;
/// AMD's are 16x16x16).
constexpr int64_t kTensorCoreM = 16, kTensorCoreN = 8, kTensorCoreK = 16;

/// The matrix instruction a target computes a tc plan with (f16 operands,
/// f32 accumulators; K 16 each).
enum class TensorCoreKind {
  /// NVIDIA sm_80+: mma.sync m16n8k16, a warp of 32 lanes.
  MmaSync,
  /// AMD CDNA (gfx908, gfx90a, gfx94x): v_mfma_f32_16x16x16f16, a wave
  /// of 64 lanes.
  Mfma,
  /// AMD RDNA3 (gfx11): v_wmma_f32_16x16x16_f16, a wave of 32 lanes.
  Wmma,
};

/// A tensor-core plan's chunk of K staged at a time: its unroll of K, or
/// one instruction's 16.
int64_t tensorCoreChunk(const OptPlan &plan, size_t k);
/// A staged row of K is padded by this many 16-bit elements (16 bytes):
/// rows then start in different shared-memory banks, and stay 16-byte
/// aligned.
constexpr int64_t kTensorCoreRowPad = 8;
/// Whether a tc plan computes block tiles (it has steps beside `tc`):
/// several warps, several instruction tiles each, operands staged in
/// shared memory.
bool hasTensorCoreBlocks(const OptPlan &plan);

/// The spellings the tensor-cores options take, for their messages.
constexpr StringLiteral kTensorCoreKindNames = "none, mma-sync, mfma or wmma";

/// `none` (no kind), `mma-sync`, `mfma` or `wmma`; a failure otherwise.
FailureOr<std::optional<TensorCoreKind>> parseTensorCoreKind(StringRef name);
/// The spelling parseTensorCoreKind reads back.
StringRef tensorCoreKindName(std::optional<TensorCoreKind> kind);

/// A GPU chip's instruction for f16 with f32 accumulators: mma.sync on
/// NVIDIA sm_80 and later (`sm_XY`), MFMA on AMD CDNA (gfx908, gfx90a,
/// gfx94x), WMMA on RDNA3 (gfx11); none on other chips.
std::optional<TensorCoreKind> tensorCoreKindOfChip(StringRef chip);

/// The lanes that execute one instruction together (one block).
int64_t tensorCoreLanes(TensorCoreKind kind);
/// The instruction's output tile: 16 rows by this many columns.
int64_t tensorCoreTileColumns(TensorCoreKind kind);

/// The matrix multiply of `space`'s kernel over reduce axis `k`, or a
/// failure with `why`: one reduce_sum to f32 over axis k alone, of
/// cast(mul(x, y)) or mul(cast(x), cast(y)) with x and y both f16 or both
/// bf16 (nothing else inside the product: no nested reduce), one output
/// axis each operand alone varies along (M for x or y, N for the other;
/// N the one the output is contiguous along when both could be), M a
/// multiple of 16, N of 8, K of 16.
FailureOr<TensorCoreShape> matchTensorCores(const KernelSpace &space, size_t k,
                                            std::string &why);

} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_ANALYSIS_TENSORCORES_H
