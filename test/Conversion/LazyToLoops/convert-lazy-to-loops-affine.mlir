// RUN: lazy-opt %s --convert-lazy-to-loops --split-input-file | FileCheck %s
// A view of several views whose index tinygrad's simplifier makes affine
// is indexed directly (IndexExpr.h, affineIndexOf); others through
// tinygrad's expressions simplified over the loops' ranges
// (emitBoundedIndexAndValid) where those divide less, with unsigned
// division where the dividend is never negative; else view by view.

// A padded input read through two views (a 1-D convolution's window, as
// tinygrad builds it): index 2*i + k - 1, valid where 1 <= 2*i + k < 9.
// CHECK-LABEL: func.func @window(
// CHECK-NOT: arith.floordivsi
// CHECK-NOT: arith.remsi
// CHECK: return
lazy.kernel @window(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<8xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(10):(1) offset -1 mask [(1, 9)], (4, 3):(2, 1)]> : !lazy.buffer<8xf32> -> tensor<4x3xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<4x3xf32> -> tensor<4x1xf32>
  lazy.store %1, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
}

// -----

// A transpose read flat: index (i % 4) * 4 + i / 4 is not affine. Over
// i in [0, 15] it is one remainder and one division, not view by view's
// four.
// CHECK-LABEL: func.func @flat_transpose(
// CHECK: %[[R:.+]] = arith.remui %[[I:.+]], %c4
// CHECK: %[[M:.+]] = arith.muli %[[R]], %c4
// CHECK: %[[D:.+]] = arith.divui %[[I]], %c4
// CHECK: %[[X:.+]] = arith.addi %[[D]], %[[M]]
// CHECK: memref.load %arg1[%[[X]]]
// CHECK-NOT: arith.remsi
// CHECK-NOT: arith.floordivsi
// CHECK: return
lazy.kernel @flat_transpose(%out0: !lazy.buffer<16xf32>, %in0: !lazy.buffer<16xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(4, 4):(1, 4), (16):(1)]> : !lazy.buffer<16xf32> -> tensor<16xf32>
  lazy.store %0, %out0 as <[(16):(1)]> : tensor<16xf32>, !lazy.buffer<16xf32>
}

// -----

// A col2im (a convolution's input gradient, as tinygrad 0.9.2 builds it
// for a 4x4 input and a 2x2 kernel): each output sums a 3x3 window of a
// view of three views. With the window's inner axis unrolled its
// positions are constants, and over the loops' ranges the inner views'
// divisions fold: fewer than view by view, all unsigned.
// CHECK-LABEL: func.func @col2im(
// CHECK-NOT: arith.floordivsi
// CHECK-NOT: arith.remsi
// CHECK: return
lazy.kernel @col2im(%out0: !lazy.buffer<16xf32>, %in0: !lazy.buffer<36xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<unroll, 6, 3>]} {
  %0 = lazy.load %in0 as <[(1, 1, 2, 5, 2, 5):(0, 0, 2, 12, 1, 4) mask [(0, 1), (0, 1), (0, 2), (0, 3), (0, 2), (0, 3)], (1, 1, 12, 12):(0, 0, 10, 1) mask [(0, 1), (0, 1), (0, 10), (0, 10)], (1, 1, 1, 1, 3, 4, 3, 4):(0, 0, 0, 0, 48, 12, 4, 1)]> : !lazy.buffer<36xf32> -> tensor<1x1x1x1x3x4x3x4xf32>
  %1 = lazy.reduce_sum %0 axes [4, 6] : tensor<1x1x1x1x3x4x3x4xf32> -> tensor<1x1x1x1x1x4x1x4xf32>
  lazy.store %1, %out0 as <[(1, 1, 1, 1, 1, 4, 1, 4):(0, 0, 0, 0, 0, 4, 0, 1)]> : tensor<1x1x1x1x1x4x1x4xf32>, !lazy.buffer<16xf32>
}
