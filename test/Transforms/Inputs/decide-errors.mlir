// Errors that lazy-form-kernels{decide=true} must report exactly as
// lazy-mark-realize, lazy-group and lazy-form-kernels in a row do (run by
// form-kernels-decide.mlir, with fuse-conv-bw on).

// fuse-conv-bw merges the inner reduce into the one that reads it, but the
// inner one is also an output: no kernel would write it.
// CHECK: decide-errors.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: 'lazy.reduce_sum' op is an output but belongs to no kernel: fuse-conv-bw merged it into the reduce that reads it
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
// CHECK: decide-errors.mlir:[[# @LINE + 11]]:{{[0-9]+}}: error: 'lazy.assign' op assigns to a value that is not a realized buffer
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
