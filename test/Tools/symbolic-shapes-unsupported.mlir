// Graphs with symbolic shapes (tinygrad Variables) schedule (see
// Transforms/schedule-symbolic.mlir) and evaluate (lazy-interp, through
// lazy-bind-variables), but the aggressive fusion policy, the lowerings
// and lazy-run are not built for them yet: each says so at the first op holding a
// Variable, exits non-zero and does not crash.
// RUN: not lazy-opt --lazy-schedule=fusion=aggressive %s 2>&1 | FileCheck %s --check-prefix=AGGRESSIVE
// RUN: not lazy-opt --convert-lazy-to-loops %s 2>&1 | FileCheck %s --check-prefix=LOOPS
// RUN: not lazy-run %s 2>&1 | FileCheck %s --check-prefix=EXEC

// AGGRESSIVE: symbolic-shapes-unsupported.mlir:[[@LINE+7]]:{{[0-9]+}}: error: lazy-form-kernels{fusion=aggressive} does not take symbolic shapes (tinygrad Variables) yet
// LOOPS: symbolic-shapes-unsupported.mlir:[[@LINE+6]]:{{[0-9]+}}: error: convert-lazy-to-loops does not take symbolic shapes (tinygrad Variables) yet
// EXEC: symbolic-shapes-unsupported.mlir:[[@LINE+5]]:{{[0-9]+}}: error: lazy-run does not take symbolic shapes (tinygrad Variables) yet
module attributes {lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
// The sum over a symbolic axis of test_symbolic_ops' matmul, in small:
// a (3, i) view of a realized buffer, summed over i.
func.func @row_sums(%x: tensor<3x3xf32> {lazy.buffer = 0 : i64}) -> tensor<3x1xf32> {
  %0 = lazy.view %x as <[(3, i[1:4=2]):(3, 1)]> : tensor<3x3xf32> -> tensor<3x4xf32, #lazy.sym_shape<[3, i[1:4=2]]>>
  %1 = lazy.exp2 %0 : tensor<3x4xf32, #lazy.sym_shape<[3, i[1:4=2]]>>
  %2 = lazy.reduce_sum %1 axes [1] : tensor<3x4xf32, #lazy.sym_shape<[3, i[1:4=2]]>> -> tensor<3x1xf32>
  return %2 : tensor<3x1xf32>
}
}
