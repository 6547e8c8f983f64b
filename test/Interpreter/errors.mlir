// RUN: not lazy-interp %s --entry=f 2>&1 | FileCheck %s
// RUN: not lazy-interp %s --entry=unseeded 2>&1 | FileCheck %s --check-prefix=SEED
// RUN: not lazy-interp %s --entry=bf16 2>&1 | FileCheck %s --check-prefix=BF16
// A CUSTOM op other than custom_random calls host code that has no MLIR
// form: a located error.
func.func @f() -> tensor<4xf32> {
  // CHECK: errors.mlir:[[@LINE+1]]:8: error: 'lazy.custom' op calls host function 'fill', which the reference interpreter cannot run
  %0 = lazy.custom "fill" tensor<4xf32>
  return %0 : tensor<4xf32>
}

// custom_random draws from its seed; the interpreter does not know the
// schedule order tinygrad's counter follows, so it needs the seed written.
func.func @unseeded() -> tensor<4xf32> {
  // SEED: errors.mlir:[[@LINE+1]]:8: error: 'lazy.custom' op custom_random needs a 'seed' to be evaluated here (lazy-run gives each one its seed from the module's lazy.rng_seed)
  %0 = lazy.custom "custom_random" tensor<4xf32>
  return %0 : tensor<4xf32>
}

// numpy has no bfloat16: tinygrad's custom_random fails there too.
func.func @bf16() -> tensor<4xbf16> {
  // BF16: errors.mlir:[[@LINE+1]]:8: error: 'lazy.custom' op custom_random cannot fill bfloat16 (numpy has no such dtype; tinygrad fails too)
  %0 = lazy.custom "custom_random" {seed = 1 : i64} tensor<4xbf16>
  return %0 : tensor<4xbf16>
}
