// A value of 2^62 floats is 2^64 bytes: the byte count wrapped to 0, the
// memory budget was skipped and lazy-run wrote past a malloc(0) (SIGSEGV).
// The type is now refused with a located error, on every device.
// RUN: not lazy-run %s 2>&1 | FileCheck %s
// RUN: not lazy-run %s --device=emulate 2>&1 | FileCheck %s
// RUN: not lazy-interp %s 2>&1 | FileCheck %s
// CHECK: lazy-run-sizes.mlir:[[@LINE+3]]:8: error: 'lazy.view' op result #0 must be statically shaped tensor of a tinygrad dtype (at most 2^63 - 1 bytes)
func.func @graph() -> tensor<4611686018427387904xf32> {
  %c = lazy.const 1.0 : tensor<f32>
  %v = lazy.view %c as <[(4611686018427387904):(0)]> : tensor<f32> -> tensor<4611686018427387904xf32>
  %e = lazy.exp2 %v : tensor<4611686018427387904xf32>
  return %e : tensor<4611686018427387904xf32>
}
