// Graphs with symbolic shapes (tinygrad Variables) schedule (see
// Transforms/schedule-symbolic.mlir), lower and run (lazy-run-var.mlir),
// but the aggressive fusion policy is not built for them yet: it says so
// at the first op holding a Variable, exits non-zero and does not crash.
// RUN: not lazy-opt --lazy-schedule=fusion=aggressive %s 2>&1 | FileCheck %s --check-prefix=AGGRESSIVE

// AGGRESSIVE: symbolic-shapes-unsupported.mlir:[[@LINE+5]]:{{[0-9]+}}: error: lazy-form-kernels{fusion=aggressive} does not take symbolic shapes (tinygrad Variables) yet
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
