// Errors of lazy-form-kernels' decisions, each at its op (run by
// form-kernels-decisions.mlir, with fuse-conv-bw on).

// fuse-conv-bw merges the inner reduce into the one that reads it, but the
// inner one is also an output: no kernel would write it.
// CHECK: form-kernels-decision-errors.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: 'lazy.reduce_sum' op is an output but belongs to no kernel: fuse-conv-bw merged it into the reduce that reads it
func.func @merged_output(%x: tensor<4x4x4xf32>) -> (tensor<4x4x1xf32>, tensor<4x1xf32>) {
  %a = lazy.reduce_sum %x axes [2] : tensor<4x4x4xf32> -> tensor<4x4x1xf32>
  %v = lazy.view %a as <[(4, 4):(4, 1)]> : tensor<4x4x1xf32> -> tensor<4x4xf32>
  %b = lazy.reduce_sum %v axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  return %a, %b : tensor<4x4x1xf32>, tensor<4x1xf32>
}

// -----

// Two functions: the second one's walk fails (an assign to a computed
// value), the first one's lowering would fail. Every function is walked
// before any is lowered, so only the walk error is reported.
// CHECK-NOT: augmented assign
// CHECK: form-kernels-decision-errors.mlir:[[# @LINE + 11]]:{{[0-9]+}}: error: 'lazy.assign' op assigns to a value that is not a realized buffer
// CHECK-NOT: augmented assign
module {
  func.func @lowering_fails(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %t = lazy.view %a as <[(4, 4):(1, 4)]> : tensor<4x4xf32> -> tensor<4x4xf32>
    %0 = lazy.add %a, %t : tensor<4x4xf32>
    %1 = lazy.assign %0 to %a : tensor<4x4xf32>, tensor<4x4xf32>
    return %1 : tensor<4x4xf32>
  }
  func.func @walk_fails(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = lazy.exp2 %a : tensor<4xf32>
    %1 = lazy.assign %a to %0 : tensor<4xf32>, tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}

// -----

// A fused arange reshaped into a reduce over more dims: the outer reduce is
// reshaped to the arange's rank-2 input shape, where its axes (1, 2) name a
// dim past the rank, which marks nothing (as tinygrad's ShapeTracker.reduce;
// it was a write past the shape), and that reshape fails as tinygrad's does
// ("size mismatched").
// CHECK: form-kernels-decision-errors.mlir:[[# @LINE + 8]]:{{[0-9]+}}: error: 'lazy.reduce_sum' op cannot be lowered into a kernel (tinygrad fails here too): reshape must preserve the number of elements: (1,1,1) has 1, (6,1) has 6
module attributes {lazy.flags = {fuse_arange = true}} {
  func.func @reduce_past_rank(%a: tensor<1x3x2xsi32>) -> tensor<1xsi32> {
    %0 = lazy.const 1 : tensor<si32>
    %1 = lazy.view %0 as <[(7, 11):(0, 0) mask [(0, 7), (5, 11)], (6, 6):(1, 12)]> : tensor<si32> -> tensor<6x6xsi32>
    %2 = lazy.reduce_sum %1 axes [1] : tensor<6x6xsi32> -> tensor<6x1xsi32>
    %3 = lazy.view %2 as <[(1, 3, 2):(0, 2, 1)]> : tensor<6x1xsi32> -> tensor<1x3x2xsi32>
    %4 = lazy.mul %3, %a : tensor<1x3x2xsi32>
    %5 = lazy.reduce_sum %4 axes [1, 2] : tensor<1x3x2xsi32> -> tensor<1x1x1xsi32>
    %6 = lazy.view %5 as <[(1):(0)]> : tensor<1x1x1xsi32> -> tensor<1xsi32>
    return %6 : tensor<1xsi32>
  }
}

// -----

// A reduce read through a view of lower rank than its input (here a
// cumsum's window sum, rank 6, read as rank 3 by a second sum, which
// fuse-conv-bw keeps in the kernel): pushing the view into the input gives
// rank 3 + 1, where tinygrad's permute by the old axis 4 fails (found by
// scripts/fuzz_compare.py).
// CHECK: form-kernels-decision-errors.mlir:[[# @LINE + 5]]:{{[0-9]+}}: error: 'lazy.reduce_sum' op cannot be lowered into a kernel (tinygrad fails here too): its output is read through a view of rank 3; pushed into its input, that gives rank 4, which has no reduced axis 4 (invalid permutation)
module attributes {lazy.flags = {fuse_conv_bw = true}} {
  func.func @view_below_reduce_rank() -> tensor<2x3xf32> {
    %0 = lazy.const 1.000000e+00 : tensor<f32>
    %1 = lazy.view %0 as <[(3, 2, 3, 6):(0, 0, 0, 0) mask [(0, 3), (0, 2), (0, 3), (0, 3)], (3, 2, 20):(36, 18, 1) mask [(0, 3), (0, 2), (0, 18)], (1, 3, 1, 2, 4, 5):(0, 40, 0, 20, 5, 1)]> : tensor<f32> -> tensor<1x3x1x2x4x5xf32>
    %2 = lazy.reduce_sum %1 axes [4] : tensor<1x3x1x2x4x5xf32> -> tensor<1x3x1x2x1x5xf32>
    %3 = lazy.view %2 as <[(3, 2, 3):(1, 5, 10) offset 2]> : tensor<1x3x1x2x1x5xf32> -> tensor<3x2x3xf32>
    %4 = lazy.reduce_sum %3 axes [0] : tensor<3x2x3xf32> -> tensor<1x2x3xf32>
    %5 = lazy.view %4 as <[(2, 3):(3, 1)]> : tensor<1x2x3xf32> -> tensor<2x3xf32>
    return %5 : tensor<2x3xf32>
  }
}
