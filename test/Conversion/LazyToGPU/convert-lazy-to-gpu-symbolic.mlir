// RUN: lazy-opt %s --split-input-file --verify-diagnostics --convert-lazy-to-gpu="unroll=1 reduce-unroll=1" | FileCheck %s
// RUN: lazy-opt %s --split-input-file --lazy-optimize-kernels="target=gpu gpu-block-reduce-min=2" | FileCheck %s --check-prefix=PLAN
// GPU kernels over tinygrad Variables (symbolic shapes): each Variable is
// an `index` argument after the buffers, named by `lazy.variables`, and
// gpu.launch_func passes the launch's lazy.var_vals. A grid-stride loop
// runs over the element count at those values, delinearized by the
// symbolic dims; such kernels stay in thread mode, each thread's reduces
// in index order (block reductions are sized when the kernel is lowered).

// CHECK-LABEL: gpu.func @plus_one_k0(
// CHECK-SAME: %[[I:[^:]+]]: index) kernel attributes {known_block_size = array<i32: 32, 1, 1>, lazy.variables = ["i[1:10]"]}
// CHECK: %[[N:.+]] = arith.muli %{{.+}}, %[[I]] : index
// CHECK: scf.for %[[E:.+]] = %{{.+}} to %[[N]] step
// CHECK: arith.remsi %[[E]], %[[I]] : index
// CHECK: arith.floordivsi %[[E]], %[[I]] : index
// CHECK-LABEL: func.func @plus_one(
// CHECK: %[[THREE:.+]] = arith.constant 3 : index
// CHECK: gpu.launch_func @lazy_kernels::@plus_one_k0 {{.*}} args(%{{.+}} : memref<30xf32>, %{{.+}} : memref<9xf32>, %[[THREE]] : index)
lazy.kernel @plus_one_k0(%out0: !lazy.buffer<30xf32>, %in0: !lazy.buffer<9xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(3, i[1:10]):(3, 1)]> : !lazy.buffer<9xf32> -> tensor<3x10xf32, #lazy.sym_shape<[3, i[1:10]]>>
  %1 = lazy.const 1.000000e+00 : tensor<f32>
  %2 = lazy.view %1 as <[(3, i[1:10]):(0, 0)]> : tensor<f32> -> tensor<3x10xf32, #lazy.sym_shape<[3, i[1:10]]>>
  %3 = lazy.add %0, %2 : tensor<3x10xf32, #lazy.sym_shape<[3, i[1:10]]>>
  lazy.store %3, %out0 as <[(3, i[1:10]):(i[1:10], 1)]> : tensor<3x10xf32, #lazy.sym_shape<[3, i[1:10]]>>, !lazy.buffer<30xf32>
}
func.func @plus_one(%arg0: !lazy.buffer<9xf32> {lazy.buffer = 0 : i64}) -> !lazy.buffer<30xf32> {
  %0 = lazy.alloc : !lazy.buffer<30xf32>
  %1 = lazy.launch @plus_one_k0 outs(%0 : !lazy.buffer<30xf32>) ins(%arg0 : !lazy.buffer<9xf32>) {lazy.var_vals = {"i[1:10]" = 3 : i64}}
  return %1 : !lazy.buffer<30xf32>
}

// -----

// A sum over a symbolic axis, long enough for a block step at its
// largest (gpu-block-reduce-min=2), gets none (rule B skips kernels over
// Variables) and stays one thread per output element: no all_reduce, a
// loop to the argument.
// PLAN-LABEL: lazy.kernel @matmul_k1
// PLAN-SAME: attributes {num_outputs = 1 : i64} {
// CHECK-LABEL: gpu.func @matmul_k1(
// CHECK-SAME: %[[I:[^:]+]]: index) kernel
// CHECK-NOT: gpu.all_reduce
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[I]] step %{{.+}} iter_args
// CHECK-NOT: gpu.all_reduce
// CHECK: gpu.return
lazy.kernel @matmul_k1(%out0: !lazy.buffer<15xf32>, %in0: !lazy.buffer<9xf32>, %in1: !lazy.buffer<15xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(3, 5, i[1:10]):(i[1:10], 0, 1)]> : !lazy.buffer<9xf32> -> tensor<3x5x10xf32, #lazy.sym_shape<[3, 5, i[1:10]]>>
  %1 = lazy.load %in1 as <[(3, 5, i[1:10]):(0, 1, 5)]> : !lazy.buffer<15xf32> -> tensor<3x5x10xf32, #lazy.sym_shape<[3, 5, i[1:10]]>>
  %2 = lazy.mul %0, %1 : tensor<3x5x10xf32, #lazy.sym_shape<[3, 5, i[1:10]]>>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<3x5x10xf32, #lazy.sym_shape<[3, 5, i[1:10]]>> -> tensor<3x5x1xf32>
  lazy.store %3, %out0 as <[(3, 5, 1):(5, 1, 0)]> : tensor<3x5x1xf32>, !lazy.buffer<15xf32>
}

// -----

// Stores of one largest shape but different symbolic shapes are two
// grid-stride loops, each over its own Variable's count.
// CHECK-LABEL: gpu.func @two_k0(
// CHECK-SAME: %[[A:[^:]+]]: memref<8xf32>, %[[B:[^:]+]]: memref<2xf32>, %{{[^:]+}}: memref<8xf32>, %[[I:[^:]+]]: index, %[[J:[^:]+]]: index)
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[I]] step
// CHECK: memref.store %{{.+}}, %[[A]]
// CHECK-NOT: memref.store %{{.+}}, %[[B]]
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[J]] step
// CHECK: memref.store %{{.+}}, %[[B]]
lazy.kernel @two_k0(%out0: !lazy.buffer<8xf32>, %out1: !lazy.buffer<2xf32>, %in0: !lazy.buffer<8xf32>) attributes {num_outputs = 2 : i64} {
  %0 = lazy.load %in0 as <[(i[1:8]):(1)]> : !lazy.buffer<8xf32> -> tensor<8xf32, #lazy.sym_shape<[i[1:8]]>>
  lazy.store %0, %out0 as <[(i[1:8]):(1)]> : tensor<8xf32, #lazy.sym_shape<[i[1:8]]>>, !lazy.buffer<8xf32>
  %1 = lazy.load %in0 as <[(j[1:8]):(1)]> : !lazy.buffer<8xf32> -> tensor<8xf32, #lazy.sym_shape<[j[1:8]]>>
  lazy.store %1, %out1 as <[(j[1:8]):(1)]> : tensor<8xf32, #lazy.sym_shape<[j[1:8]]>>, !lazy.buffer<2xf32>
}

// -----

// Each launch is checked at its values first: at i = 5 the (3, i) view
// of a 9-element buffer reaches element 10, and nothing is lowered.
lazy.kernel @reads_past(%out0: !lazy.buffer<30xf32>, %in0: !lazy.buffer<9xf32>) attributes {num_outputs = 1 : i64} {
  // expected-note @+1 {{the view}}
  %0 = lazy.load %in0 as <[(3, i[1:10]):(3, 1)]> : !lazy.buffer<9xf32> -> tensor<3x10xf32, #lazy.sym_shape<[3, i[1:10]]>>
  lazy.store %0, %out0 as <[(3, i[1:10]):(i[1:10], 1)]> : tensor<3x10xf32, #lazy.sym_shape<[3, i[1:10]]>>, !lazy.buffer<30xf32>
}
func.func @past_the_end(%arg0: !lazy.buffer<9xf32> {lazy.buffer = 0 : i64}) -> !lazy.buffer<30xf32> {
  %0 = lazy.alloc : !lazy.buffer<30xf32>
  // expected-error @+1 {{runs @reads_past at i=5, where a view of its lazy.load is invalid: it reaches elements [0, 10] of a buffer of 9}}
  %1 = lazy.launch @reads_past outs(%0 : !lazy.buffer<30xf32>) ins(%arg0 : !lazy.buffer<9xf32>) {lazy.var_vals = {"i[1:10]" = 5 : i64}}
  return %1 : !lazy.buffer<30xf32>
}

// -----

// A plan on the integer axes of a kernel over Variables is the CPU's: the
// GPU lowering runs such kernels without one.
// expected-error @+1 {{has a plan but reads through symbolic shapes (tinygrad Variables), which the GPU lowering runs without one}}
lazy.kernel @planned_rows(%out0: !lazy.buffer<256xf32>, %in0: !lazy.buffer<256xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 16>]} {
  %0 = lazy.load %in0 as <[(n[1:8], 32):(32, 1)]> : !lazy.buffer<256xf32> -> tensor<8x32xf32, #lazy.sym_shape<[n[1:8], 32]>>
  %1 = lazy.exp2 %0 : tensor<8x32xf32, #lazy.sym_shape<[n[1:8], 32]>>
  lazy.store %1, %out0 as <[(n[1:8], 32):(32, 1)]> : tensor<8x32xf32, #lazy.sym_shape<[n[1:8], 32]>>, !lazy.buffer<256xf32>
}
