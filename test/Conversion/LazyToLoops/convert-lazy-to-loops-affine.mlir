// RUN: lazy-opt %s --convert-lazy-to-loops --split-input-file | FileCheck %s
// A view of several views whose index tinygrad's simplifier makes affine
// is indexed directly (IndexExpr.h, affineIndexOf); others are unflattened
// view by view.

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

// A transpose read flat: index (i % 4) * 4 + i / 4 is not affine.
// CHECK-LABEL: func.func @flat_transpose(
// CHECK: arith.remsi
// CHECK: return
lazy.kernel @flat_transpose(%out0: !lazy.buffer<16xf32>, %in0: !lazy.buffer<16xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(4, 4):(1, 4), (16):(1)]> : !lazy.buffer<16xf32> -> tensor<16xf32>
  lazy.store %0, %out0 as <[(16):(1)]> : tensor<16xf32>, !lazy.buffer<16xf32>
}
