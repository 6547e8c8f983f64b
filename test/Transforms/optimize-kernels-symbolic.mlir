// RUN: lazy-opt --lazy-schedule --lazy-optimize-kernels %s | FileCheck %s
// RUN: not lazy-opt --lazy-schedule --lazy-optimize-kernels=force=matmul_k0:upcast:0:2 %s 2>&1 | FileCheck %s --check-prefix=FORCED
// A kernel over tinygrad Variables keeps no plan (the steps divide integer
// extents); forcing one is an error.
// CHECK-LABEL: lazy.kernel @matmul_k0
// CHECK-NOT: opts
// CHECK: lazy.reduce_sum
// FORCED: error: lazy-optimize-kernels: a kernel over symbolic shapes (tinygrad Variables) takes no plan yet
func.func @matmul(%a: tensor<3x3xf32> {lazy.buffer = 0 : i64}, %b: tensor<3x5xf32> {lazy.buffer = 1 : i64}) -> tensor<3x5xf32> {
  %0 = lazy.view %a as <[(3, 5, i[1:10=3]):(i[1:10=3], 0, 1)]> : tensor<3x3xf32> -> tensor<3x5x10xf32, #lazy.sym_shape<[3, 5, i[1:10=3]]>>
  %1 = lazy.view %b as <[(3, 5, i[1:10=3]):(0, 1, 5)]> : tensor<3x5xf32> -> tensor<3x5x10xf32, #lazy.sym_shape<[3, 5, i[1:10=3]]>>
  %2 = lazy.mul %0, %1 : tensor<3x5x10xf32, #lazy.sym_shape<[3, 5, i[1:10=3]]>>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<3x5x10xf32, #lazy.sym_shape<[3, 5, i[1:10=3]]>> -> tensor<3x5x1xf32>
  %4 = lazy.view %3 as <[(3, 5):(5, 1)]> : tensor<3x5x1xf32> -> tensor<3x5xf32>
  return %4 : tensor<3x5xf32>
}
