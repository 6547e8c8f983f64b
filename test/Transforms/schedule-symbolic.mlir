// RUN: lazy-opt --lazy-schedule %s | FileCheck %s
// RUN: lazy-opt --lazy-schedule --lazy-print-schedule %s -o /dev/null | FileCheck %s --check-prefix=TEXT
// Graphs with symbolic shapes (tinygrad Variables) schedule as tinygrad
// 0.9.2's create_schedule_with_vars does: kernels read and write through
// unbound Variables, so that one kernel serves every value, and each
// launch carries the values (var_vals); buffers of a symbolic shape are
// sized for the Variables' largest values.

// tinygrad's test_assign_kv_cache at start_pos = 4: the cache's first
// start_pos rows and the new row are concatenated (a symbolic buffer of
// 2 x (start_pos + 1) rows, 18 floats at most), padded back to 8 rows and
// assigned to the cache: three kernels, as tinygrad schedules them.
// CHECK-LABEL: lazy.kernel @kv_cache_k0
// CHECK: lazy.load %{{.*}} as <[(2, 8, 1, 1):(8, 1, 0, 0)]>
// CHECK-LABEL: lazy.kernel @kv_cache_k1(%out0: !lazy.buffer<16xf32>, %in0: !lazy.buffer<18xf32>)
// CHECK: lazy.load %in0 as <[(2, 8, 1, 1):((1 + start_pos[1:8]), 1, 0, 0) mask [(0, 2), (0, (1 + start_pos[1:8])), (0, 1), (0, 1)]]> : !lazy.buffer<18xf32> -> tensor<2x8x1x1xf32>
// CHECK-LABEL: lazy.kernel @kv_cache_k2(%out0: !lazy.buffer<18xf32>, %in0: !lazy.buffer<16xf32>, %in1: !lazy.buffer<2xf32>)
// CHECK: lazy.load %in0 as <[(2, (1 + start_pos[1:8]), 1, 1):(8, 1, 0, 0) mask [(0, 2), (0, start_pos[1:8]), (0, 1), (0, 1)]]> : !lazy.buffer<16xf32> -> tensor<2x9x1x1xf32, #lazy.sym_shape<[2, (1 + start_pos[1:8]), 1, 1]>>
// CHECK: lazy.add %{{.*}} : tensor<2x9x1x1xf32, #lazy.sym_shape<[2, (1 + start_pos[1:8]), 1, 1]>>
// CHECK: lazy.store %{{.*}}, %out0 as <[(2, (1 + start_pos[1:8]), 1, 1):((1 + start_pos[1:8]), 1, 0, 0)]>
// CHECK-LABEL: func.func @kv_cache
// CHECK: %[[KEYS:.*]] = lazy.alloc : !lazy.buffer<18xf32>
// CHECK: lazy.launch @kv_cache_k2 outs(%[[KEYS]] : !lazy.buffer<18xf32>) {{.*}} {lazy.var_vals = {"start_pos[1:8]" = 4 : i64}}
// CHECK: lazy.launch @kv_cache_k1 {{.*}} {lazy.var_vals = {"start_pos[1:8]" = 4 : i64}}
// CHECK: lazy.launch @kv_cache_k0
// CHECK-NOT: var_vals
// CHECK: return

// TEXT-LABEL: schedule @kv_cache
// TEXT: item 0 KERNEL outs=1 ins=2
// TEXT-NEXT: n0 = LOAD 1 float [(2, (1 + start_pos[1:8]), 1, 1):(8, 1, 0, 0) mask [(0, 2), (0, start_pos[1:8]), (0, 1), (0, 1)]]
// TEXT-NEXT: n1 = LOAD 2 float [(2, (1 + start_pos[1:8]), 1, 1):(1, 0, 0, 0) mask [(0, 2), (start_pos[1:8], (1 + start_pos[1:8])), (0, 1), (0, 1)]]
// TEXT-NEXT: n2 = ADD n0 n1
// TEXT-NEXT: STORE 0 float [(2, (1 + start_pos[1:8]), 1, 1):((1 + start_pos[1:8]), 1, 0, 0)] n2
// TEXT: moved: 3 kernels, 408 bytes
// TEXT-NEXT: var_vals: start_pos[1:8]=4
func.func @kv_cache(%cache: tensor<2x8x1x1xf32> {lazy.buffer = 0 : i64},
                    %xk: tensor<2x1x1x1xf32> {lazy.buffer = 1 : i64}) -> tensor<2x8x1x1xf32> {
  %0 = lazy.view %cache as <[(2, (start_pos[1:8=4] + 1), 1, 1):(8, 1, 0, 0) mask [(0, 2), (0, start_pos[1:8=4]), (0, 1), (0, 1)]]> : tensor<2x8x1x1xf32> -> tensor<2x9x1x1xf32, #lazy.sym_shape<[2, (start_pos[1:8=4] + 1), 1, 1]>>
  %1 = lazy.view %xk as <[(2, (start_pos[1:8=4] + 1), 1, 1):(1, 0, 0, 0) mask [(0, 2), (start_pos[1:8=4], (start_pos[1:8=4] + 1)), (0, 1), (0, 1)]]> : tensor<2x1x1x1xf32> -> tensor<2x9x1x1xf32, #lazy.sym_shape<[2, (start_pos[1:8=4] + 1), 1, 1]>>
  %2 = lazy.add %0, %1 {lazy.forced_realize} : tensor<2x9x1x1xf32, #lazy.sym_shape<[2, (start_pos[1:8=4] + 1), 1, 1]>>
  %3 = lazy.view %2 as <[(2, 8, 1, 1):((start_pos[1:8=4] + 1), 1, 0, 0) mask [(0, 2), (0, (start_pos[1:8=4] + 1)), (0, 1), (0, 1)]]> : tensor<2x9x1x1xf32, #lazy.sym_shape<[2, (start_pos[1:8=4] + 1), 1, 1]>> -> tensor<2x8x1x1xf32>
  %4 = lazy.contiguous %3 : tensor<2x8x1x1xf32>
  %5 = lazy.assign %4 to %cache : tensor<2x8x1x1xf32>, tensor<2x8x1x1xf32>
  return %5 : tensor<2x8x1x1xf32>
}

// An elementwise op over a Variable-shaped view of a realized buffer
// (test_symbolic_ops' plus one): one kernel; the output buffer is sized
// for i = 10.
// CHECK-LABEL: lazy.kernel @plus_one_k{{[0-9]+}}(%out0: !lazy.buffer<30xf32>, %in0: !lazy.buffer<9xf32>)
// CHECK: lazy.load %in0 as <[(3, i[1:10]):(3, 1)]> : !lazy.buffer<9xf32> -> tensor<3x10xf32, #lazy.sym_shape<[3, i[1:10]]>>
// CHECK: lazy.store %{{.*}}, %out0 as <[(3, i[1:10]):(i[1:10], 1)]>
// CHECK-LABEL: func.func @plus_one
// CHECK: lazy.launch @plus_one_k{{[0-9]+}} {{.*}} {lazy.var_vals = {"i[1:10]" = 3 : i64}}
func.func @plus_one(%a: tensor<3x3xf32> {lazy.buffer = 0 : i64}) -> tensor<3x10xf32, #lazy.sym_shape<[3, i[1:10=3]]>> {
  %0 = lazy.view %a as <[(3, i[1:10=3]):(3, 1)]> : tensor<3x3xf32> -> tensor<3x10xf32, #lazy.sym_shape<[3, i[1:10=3]]>>
  %1 = lazy.const 1.0 : tensor<f32>
  %2 = lazy.view %1 as <[(3, i[1:10=3]):(0, 0)]> : tensor<f32> -> tensor<3x10xf32, #lazy.sym_shape<[3, i[1:10=3]]>>
  %3 = lazy.add %0, %2 : tensor<3x10xf32, #lazy.sym_shape<[3, i[1:10=3]]>>
  return %3 : tensor<3x10xf32, #lazy.sym_shape<[3, i[1:10=3]]>>
}

// A const of a bound Variable (test_tensor_variable's Tensor(a) + 3): the
// kernel holds the unbound Variable, the launch its value.
// CHECK-LABEL: lazy.kernel @variable_const_k{{[0-9]+}}
// CHECK: lazy.const a[0:10] : tensor<si32>
// CHECK-LABEL: func.func @variable_const
// CHECK: lazy.launch {{.*}} {lazy.var_vals = {"a[0:10]" = 1 : i64}}
// TEXT-LABEL: schedule @variable_const
// TEXT: n0 = CONST a[0:10] int [():()]
// TEXT: var_vals: a[0:10]=1
func.func @variable_const() -> tensor<si32> {
  %0 = lazy.const a[0:10=1] : tensor<si32>
  %1 = lazy.const 3 : tensor<si32>
  %2 = lazy.add %0, %1 : tensor<si32>
  return %2 : tensor<si32>
}

// test_symbolic_ops' matmul: (3, i) @ (i, 5), a sum over the Variable's
// axis; the kernel's output has integer dims.
// TEXT-LABEL: schedule @matmul
// TEXT: item 0 KERNEL outs=1 ins=2
// TEXT-NEXT: n0 = LOAD 1 float [(3, 5, i[1:10]):(i[1:10], 0, 1)]
// TEXT-NEXT: n1 = LOAD 2 float [(3, 5, i[1:10]):(0, 1, 5)]
// TEXT-NEXT: n2 = MUL n0 n1
// TEXT-NEXT: n3 = SUM (2,) n2
// TEXT-NEXT: STORE 0 float [(3, 5, 1):(5, 1, 0)] n3
// TEXT: var_vals: i[1:10]=3
func.func @matmul(%a: tensor<3x3xf32> {lazy.buffer = 0 : i64}, %b: tensor<3x5xf32> {lazy.buffer = 1 : i64}) -> tensor<3x5xf32> {
  %0 = lazy.view %a as <[(3, 5, i[1:10=3]):(i[1:10=3], 0, 1)]> : tensor<3x3xf32> -> tensor<3x5x10xf32, #lazy.sym_shape<[3, 5, i[1:10=3]]>>
  %1 = lazy.view %b as <[(3, 5, i[1:10=3]):(0, 1, 5)]> : tensor<3x5xf32> -> tensor<3x5x10xf32, #lazy.sym_shape<[3, 5, i[1:10=3]]>>
  %2 = lazy.mul %0, %1 : tensor<3x5x10xf32, #lazy.sym_shape<[3, 5, i[1:10=3]]>>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<3x5x10xf32, #lazy.sym_shape<[3, 5, i[1:10=3]]>> -> tensor<3x5x1xf32>
  %4 = lazy.view %3 as <[(3, 5):(5, 1)]> : tensor<3x5x1xf32> -> tensor<3x5xf32>
  return %4 : tensor<3x5xf32>
}
