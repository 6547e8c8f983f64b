// RUN: lazy-opt %s | lazy-opt | FileCheck %s
// RUN: lazy-opt %s --mlir-print-op-generic | lazy-opt | FileCheck %s
// Symbolic shapes (tinygrad Variables): #lazy.st entries and tensor dims
// that are sints parse, verify and print stably. A sum prints its terms
// sorted, as tinygrad renders it; what is parsed is re-simplified.

// The kv-cache update of tinygrad 0.9.2's test_assign_kv_cache at
// start_pos = 4: the first start_pos rows of the cache and one new row.
// CHECK-LABEL: func.func @kv_cache_step
// CHECK: lazy.view %{{.*}} as <[(2, (1 + start_pos[1:8=4]), 1, 1):(8, 1, 0, 0) mask [(0, 2), (0, start_pos[1:8=4]), (0, 1), (0, 1)]]> : tensor<2x8x1x1xf32> -> tensor<2x9x1x1xf32, #lazy.sym_shape<[2, (1 + start_pos[1:8=4]), 1, 1]>>
// CHECK: lazy.view %{{.*}} mask [(0, 2), (start_pos[1:8=4], (1 + start_pos[1:8=4])), (0, 1), (0, 1)]]>
// CHECK: lazy.add %{{.*}} : tensor<2x9x1x1xf32, #lazy.sym_shape<[2, (1 + start_pos[1:8=4]), 1, 1]>>
// CHECK: lazy.view %{{.*}} as <[(2, 8, 1, 1):((1 + start_pos[1:8=4]), 1, 0, 0) mask [(0, 2), (0, (1 + start_pos[1:8=4])), (0, 1), (0, 1)]]>
func.func @kv_cache_step(%cache: tensor<2x8x1x1xf32> {lazy.buffer = 0 : i64},
                         %xk: tensor<2x1x1x1xf32> {lazy.buffer = 1 : i64}) -> tensor<2x8x1x1xf32> {
  %0 = lazy.view %cache as <[(2, (start_pos[1:8=4] + 1), 1, 1):(8, 1, 0, 0) mask [(0, 2), (0, start_pos[1:8=4]), (0, 1), (0, 1)]]> : tensor<2x8x1x1xf32> -> tensor<2x9x1x1xf32, #lazy.sym_shape<[2, (start_pos[1:8=4] + 1), 1, 1]>>
  %1 = lazy.view %xk as <[(2, (start_pos[1:8=4] + 1), 1, 1):(1, 0, 0, 0) mask [(0, 2), (start_pos[1:8=4], (start_pos[1:8=4] + 1)), (0, 1), (0, 1)]]> : tensor<2x1x1x1xf32> -> tensor<2x9x1x1xf32, #lazy.sym_shape<[2, (start_pos[1:8=4] + 1), 1, 1]>>
  %2 = lazy.add %0, %1 {lazy.forced_realize} : tensor<2x9x1x1xf32, #lazy.sym_shape<[2, (start_pos[1:8=4] + 1), 1, 1]>>
  %3 = lazy.view %2 as <[(2, 8, 1, 1):((start_pos[1:8=4] + 1), 1, 0, 0) mask [(0, 2), (0, (start_pos[1:8=4] + 1)), (0, 1), (0, 1)]]> : tensor<2x9x1x1xf32, #lazy.sym_shape<[2, (start_pos[1:8=4] + 1), 1, 1]>> -> tensor<2x8x1x1xf32>
  %4 = lazy.contiguous %3 : tensor<2x8x1x1xf32>
  %5 = lazy.assign %4 to %cache : tensor<2x8x1x1xf32>, tensor<2x8x1x1xf32>
  return %5 : tensor<2x8x1x1xf32>
}

// A reduce over a symbolic axis keeps the other symbolic dims; a device
// other than the default rides in the encoding.
// CHECK-LABEL: func.func @reduce_symbolic
// CHECK: lazy.reduce_sum %{{.*}} axes [1] : tensor<10x5xf32, #lazy.sym_shape<[i[1:10=3], 5]>> -> tensor<10x1xf32, #lazy.sym_shape<[i[1:10=3], 1]>>
// CHECK: tensor<3x10xf32, #lazy.sym_shape<[3, i[1:10=3]], device = "CUDA:1">>
func.func @reduce_symbolic(%x: tensor<10x5xf32, #lazy.sym_shape<[i[1:10=3], 5]>>,
                           %y: tensor<3x10xf32, #lazy.sym_shape<[3, i[1:10=3]], device = "CUDA:1">>)
    -> (tensor<10x1xf32, #lazy.sym_shape<[i[1:10=3], 1]>>, tensor<3x10xf32, #lazy.sym_shape<[3, i[1:10=3]], device = "CUDA:1">>) {
  %0 = lazy.reduce_sum %x axes [1] : tensor<10x5xf32, #lazy.sym_shape<[i[1:10=3], 5]>> -> tensor<10x1xf32, #lazy.sym_shape<[i[1:10=3], 1]>>
  %1 = lazy.exp2 %y : tensor<3x10xf32, #lazy.sym_shape<[3, i[1:10=3]], device = "CUDA:1">>
  return %0, %1 : tensor<10x1xf32, #lazy.sym_shape<[i[1:10=3], 1]>>, tensor<3x10xf32, #lazy.sym_shape<[3, i[1:10=3]], device = "CUDA:1">>
}

// Every kind of sint: products by ints and by Variables, floor division,
// modulo, unbound Variables; a parsed constant is an int.
// CHECK-LABEL: func.func private @sints
// CHECK-SAME: a = #lazy.st<[(x[0:5], 3):(3, 1) offset (x[0:5] * -3)]>
// CHECK-SAME: b = #lazy.st<[((x[0:5] * y[1:3])):(1)]>
// CHECK-SAME: c = #lazy.st<[((x[1:9] floordiv 2)):(1)]>
// CHECK-SAME: d = #lazy.st<[((x[1:9] mod 4)):(1)]>
// CHECK-SAME: e = #lazy.st<[(4):(1)]>
// CHECK-SAME: f = #lazy.st<[((-1 + x[1:9])):(1)]>
// CHECK-SAME: g = #lazy.st<[(n[1:4], 2):(2, 1) mask [((1 + n[1:4]), n[1:4]), (0, 2)]]>
func.func private @sints() attributes {
  a = #lazy.st<[(x[0:5], 3):(3, 1) offset (x[0:5] * -3)]>,
  b = #lazy.st<[((x[0:5] * y[1:3])):(1)]>,
  c = #lazy.st<[((x[1:9] floordiv 2)):(1)]>,
  d = #lazy.st<[((x[1:9] mod 4)):(1)]>,
  e = #lazy.st<[(((x[0:5] * 0) + 4)):(1)]>,
  f = #lazy.st<[((x[1:9] + -1)):(1)]>,
  // A range empty for every value, as tinygrad's pads and shrinks make.
  g = #lazy.st<[(n[1:4], 2):(2, 1) mask [((n[1:4] + 1), n[1:4]), (0, 2)]]>
}

// A const of a Variable (tinygrad's Tensor(Variable("n", 1, 8).bind(3))).
// CHECK-LABEL: func.func @variable_const
// CHECK: lazy.const n[1:8=3] : tensor<si32>
// CHECK: lazy.const n[1:8] : tensor<si64>
func.func @variable_const() -> (tensor<si32>, tensor<si64>) {
  %0 = lazy.const n[1:8=3] : tensor<si32>
  %1 = lazy.const n[1:8] : tensor<si64>
  return %0, %1 : tensor<si32>, tensor<si64>
}
