// tinygrad's custom_random counter (lazy.rng_seed + k in schedule order)
// cannot pass the largest i64: a located error, nothing run.
// RUN: not lazy-run %s 2>&1 | FileCheck %s
// CHECK: lazy-run-seeds.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: 'lazy.ext' op numbers its custom_random seed past the largest i64 (the module's lazy.rng_seed is too large)
module attributes {lazy.rng_seed = 9223372036854775807 : i64} {
  func.func @main() -> tensor<4xf32> {
    %0 = lazy.custom "custom_random" tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
