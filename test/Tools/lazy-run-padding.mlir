// Outputs whose view reads nothing (all padding, or padding of a size-0
// tensor) are tinygrad's const(0): lazy-run folds views before it makes
// const outputs contiguous, so a kernel writes their zeros. With --check
// fresh buffers are poisoned (0xFF bytes, NaN in every float dtype) on
// every target, so an output no kernel writes fails the check (it did on
// these two graphs before the fold).
// RUN: lazy-run %s --entry=empty_source --check | FileCheck %s
// RUN: lazy-run %s --entry=all_padding --check | FileCheck %s
// RUN: lazy-run %s --entry=empty_source --check --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=all_padding --check --device=emulate | FileCheck %s
// CHECK: out0: match, max abs error 0
// CHECK: all outputs match
// The poison is a fill of every allocation in the host function.
// RUN: lazy-opt %s --lazy-to-cpu=poison-buffers=true | FileCheck %s --check-prefix=POISON
// RUN: lazy-opt %s --lazy-to-cpu | FileCheck %s --check-prefix=PLAIN
// POISON: llvm.mlir.constant(-1 : i8) : i8
// PLAIN-NOT: llvm.mlir.constant(-1 : i8) : i8
func.func @empty_source(%arg0: tensor<0xf32> {lazy.buffer = 0 : i64}) -> tensor<1xf32> {
  %0 = lazy.pad %arg0 [(1, 0)] : tensor<0xf32> -> tensor<1xf32>
  return %0 : tensor<1xf32>
}
func.func @all_padding(%arg0: tensor<1x3xf32> {lazy.buffer = 1 : i64}) -> tensor<1x1xf32> {
  %0 = lazy.pad %arg0 [(0, 3), (0, 3)] : tensor<1x3xf32> -> tensor<4x6xf32>
  %1 = lazy.shrink %0 [(1, 2), (3, 4)] : tensor<4x6xf32> -> tensor<1x1xf32>
  return %1 : tensor<1x1xf32>
}
