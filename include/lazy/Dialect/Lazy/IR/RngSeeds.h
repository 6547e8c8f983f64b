//===- RngSeeds.h - tinygrad's custom_random seed counter -------*- C++ -*-===//
//
// tinygrad seeds the k-th custom_random it runs with Tensor._seed + k. A
// module carries Tensor._seed as `lazy.rng_seed`; every tool that gives a
// seedless draw its seed (the CPU lowering, lazy-run) counts with this one
// counter, in the order the schedule runs the draws.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_IR_RNGSEEDS_H
#define LAZY_DIALECT_LAZY_IR_RNGSEEDS_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

namespace mlir::lazy {

class RngSeedCounter {
public:
  /// Starts from the `lazy.rng_seed` of `op`'s module (or `op` itself when
  /// it is the module), 0 when there is none.
  explicit RngSeedCounter(Operation *op);
  /// The next seed (the last one given out plus one); fails, with an error
  /// at `at`, when that would pass the largest i64.
  FailureOr<int64_t> next(Operation *at);

private:
  int64_t last = 0; // tinygrad's Tensor._seed: the last seed given out
};

} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_IR_RNGSEEDS_H
