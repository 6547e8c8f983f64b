// RUN: not lazy-interp %s 2>&1 | FileCheck %s
// A CUSTOM op calls host code that has no MLIR form: a located error.
func.func @f() -> tensor<4xf32> {
  // CHECK: errors.mlir:[[@LINE+1]]:8: error: 'lazy.custom' op calls host function 'custom_random', which the reference interpreter cannot run
  %0 = lazy.custom "custom_random" tensor<4xf32>
  return %0 : tensor<4xf32>
}
