//===- Interpreter.h - reference interpreter for graph-level IR --*- C++
//-*-===//
//
// Evaluates a graph-level `lazy` function op by op on the host, with no
// fusion: the golden answer that scheduled and compiled code is compared
// against, and the bridge to tinygrad's own numbers.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_INTERPRETER_INTERPRETER_H
#define LAZY_INTERPRETER_INTERPRETER_H

#include "lazy/Interpreter/HostTensor.h"
#include "lazy/ShapeTracker/ShapeTracker.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::lazy {

/// The tinygrad dtype of an MLIR element type, if it is one.
std::optional<::lazy::interp::DType> dtypeOf(Type elementType);

/// Bytes the host tools let their tensors take: half of the machine's
/// physical memory, or less under a process limit (RLIMIT_AS, `ulimit -v`):
/// half the address space left under it. Past it, a run would be killed
/// by the system, or abort in the allocator, instead of reporting an error.
uint64_t hostMemoryBudget();
/// Which of the two bounds hostMemoryBudget() took, for error messages.
std::string describeMemoryBudget();

/// Bytes of a tensor or buffer of `shape` with items of `itemBytes` bytes,
/// or nullopt when that overflows 64 bits or a dimension is negative.
std::optional<uint64_t> tensorBytes(ArrayRef<int64_t> shape, int64_t itemBytes);

/// Evaluates `func` on `inputs` (one per argument, matching its dtype and
/// shape) and returns one tensor per result. Errors (an op it cannot
/// evaluate, a mismatched input, a result that would take the tensors held
/// at once past `memoryBudget` bytes) are reported as diagnostics at the
/// offending location. Values are dropped after their last use and movement
/// ops only compose views, so memory follows the live set of computed
/// tensors; still, each op's result is materialized, so a graph whose fused
/// kernels are small can need more than the budget here.
FailureOr<std::vector<::lazy::interp::HostTensor>>
interpretFunction(func::FuncOp func,
                  ArrayRef<::lazy::interp::HostTensor> inputs,
                  uint64_t memoryBudget = hostMemoryBudget());

/// `func` evaluated with every float value held in f64: float arguments
/// widened, constants as f64, casts between float types identities, so
/// that each float result is near its exact value (exp2, log2 and sin as
/// the f64 functions). --check's second opinion on a float result the
/// compiled code and the interpreter round differently. Fails, with no
/// diagnostic, on graphs whose values depend on float bits or host code
/// (BITCAST, buffer views, CUSTOM) and when the evaluation fails.
FailureOr<std::vector<::lazy::interp::HostTensor>>
interpretInFloat64(func::FuncOp func,
                   ArrayRef<::lazy::interp::HostTensor> inputs);

/// `func` evaluated as interpretFunction does, but with rounding noise:
/// each float value an op rounds (arithmetic, sqrt/recip, narrowing casts,
/// sum steps), unless it came out exact, moves to a neighbour an eighth of
/// the time each way, and each exp2/log2/sin value, a 1-ulp function's (the
/// CPU's default exp2, libm's), to either neighbour a third of the time
/// each; a sum that cancels also moves
/// by up to a unit roundoff of its terms' magnitudes beyond its value, as
/// another order's partial sums would. Ops that round nothing keep their
/// values. The spread of a few such evaluations shows how much a result
/// depends on rounding: an element that is a cancellation (a softmax's max
/// gradient, mathematically 0) spreads as far as correct orders of its sums
/// take it. Deterministic for a `seed`; fails, with no diagnostic, where
/// interpretInFloat64 does.
FailureOr<std::vector<::lazy::interp::HostTensor>>
interpretWithRoundingNoise(func::FuncOp func,
                           ArrayRef<::lazy::interp::HostTensor> inputs,
                           uint64_t seed);

/// The `elements` items of `dtype` at `bytes` (a buffer) read through
/// `tracker`, whose first view indexes them: a tensor of the tracker's
/// shape, 0 where the view is masked or leaves the buffer. How a result
/// or a kernel's output is read through the view it was stored with.
::lazy::interp::HostTensor
readThroughView(const uint8_t *bytes, int64_t elements,
                ::lazy::interp::DType dtype,
                const ::lazy::st::ShapeTracker &tracker);

/// A float tensor's elements as doubles (for the f64 evaluation's results
/// and the compared outputs); empty for other dtypes.
std::vector<double> floatValues(const ::lazy::interp::HostTensor &tensor);

/// The least precise float element type that result `index` of `func` is
/// rounded to on its way from the arguments: the narrowest of the float
/// values that ops in its cone compute (movement ops, views, copies,
/// bitcasts, constants and EMPTY compute nothing), the result's own type
/// among them; null when none is a float. The cone ends at integer and
/// bool values (comparisons, casts to integers): their operands' rounding
/// reaches the result as a choice, not as a rounding error.
/// A compiled result is judged against the interpreter's at this type's
/// tolerance: an f64 result cast from f32 arithmetic carries that
/// arithmetic's rounding and reassociation error, not an f64 one.
Type roundingElementType(func::FuncOp func, unsigned index);

} // namespace mlir::lazy

#endif // LAZY_INTERPRETER_INTERPRETER_H
