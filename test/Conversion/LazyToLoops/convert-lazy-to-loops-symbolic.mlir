// RUN: lazy-opt %s --split-input-file --verify-diagnostics --convert-lazy-to-loops | FileCheck %s
// Kernels over tinygrad Variables (symbolic shapes): each Variable is an
// `index` argument after the buffers, named by `lazy.variables`; symbolic
// dims bound the loops, symbolic strides, offsets and masks become index
// arithmetic over the arguments, and the launch passes its lazy.var_vals.
// One kernel serves every value.

// Elementwise over (3, i): the inner loop runs to the argument, and the
// store's stride is the argument.
// CHECK-LABEL: func.func @plus_one_k0(
// CHECK-SAME: %[[OUT:[^:]+]]: memref<30xf32, {{.*}}>, %[[IN:[^:]+]]: memref<9xf32, {{.*}}>, %[[I:[^:]+]]: index)
// CHECK-SAME: attributes {lazy.variables = ["i[1:10]"]}
// CHECK: scf.parallel (%[[R:.+]]) =
// CHECK: scf.for %[[C:.+]] = %{{.+}} to %[[I]] step
// CHECK: memref.load %[[IN]]
// CHECK: %[[ROW:.+]] = arith.muli %[[R]], %[[I]] : index
// CHECK: %[[BASE:.+]] = arith.addi %{{.+}}, %[[ROW]] : index
// CHECK: %[[AT:.+]] = arith.addi %[[BASE]], %[[C]] : index
// CHECK: memref.store %{{.+}}, %[[OUT]][%[[AT]]]
// CHECK-LABEL: func.func @plus_one(
// CHECK: %[[THREE:.+]] = arith.constant 3 : index
// CHECK: call @plus_one_k0(%{{.+}}, %{{.+}}, %[[THREE]])
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

// A sum over a symbolic axis (test_symbolic_ops' matmul): the reduce loop
// runs to the argument, in index order (i[1:10] may be short: a short
// float sum keeps index order, as over integer axes).
// CHECK-LABEL: func.func @matmul_k1(
// CHECK-SAME: %[[I:[^:]+]]: index) attributes {lazy.variables = ["i[1:10]"]}
// CHECK: scf.for %[[K:.+]] = %{{.+}} to %[[I]] step %{{.+}} iter_args
// CHECK: arith.muli %{{.+}}, %[[I]] : index
// CHECK: arith.mulf
// CHECK: arith.addf %{{.+}}, %{{.+}} : f32
// CHECK-NOT: reassoc
// CHECK: scf.yield
lazy.kernel @matmul_k1(%out0: !lazy.buffer<15xf32>, %in0: !lazy.buffer<9xf32>, %in1: !lazy.buffer<15xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(3, 5, i[1:10]):(i[1:10], 0, 1)]> : !lazy.buffer<9xf32> -> tensor<3x5x10xf32, #lazy.sym_shape<[3, 5, i[1:10]]>>
  %1 = lazy.load %in1 as <[(3, 5, i[1:10]):(0, 1, 5)]> : !lazy.buffer<15xf32> -> tensor<3x5x10xf32, #lazy.sym_shape<[3, 5, i[1:10]]>>
  %2 = lazy.mul %0, %1 : tensor<3x5x10xf32, #lazy.sym_shape<[3, 5, i[1:10]]>>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<3x5x10xf32, #lazy.sym_shape<[3, 5, i[1:10]]>> -> tensor<3x5x1xf32>
  lazy.store %3, %out0 as <[(3, 5, 1):(5, 1, 0)]> : tensor<3x5x1xf32>, !lazy.buffer<15xf32>
}

// -----

// A float sum reorders (LLVM vectorizes it) only where it is long at every
// value: over n[64:128] it is, as over an integer axis of 64.
// CHECK-LABEL: func.func @long_sum_k0(
// CHECK-SAME: %[[N:[^:]+]]: index) attributes {lazy.variables = ["n[64:128]"]}
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[N]] step %{{.+}} iter_args
// CHECK: arith.addf %{{.+}}, %{{.+}} fastmath<reassoc> : f32
lazy.kernel @long_sum_k0(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(4, n[64:128]):(128, 1)]> : !lazy.buffer<512xf32> -> tensor<4x128xf32, #lazy.sym_shape<[4, n[64:128]]>>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<4x128xf32, #lazy.sym_shape<[4, n[64:128]]>> -> tensor<4x1xf32>
  lazy.store %1, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
}

// -----

// A plan on the integer axes of a kernel over Variables (a decode step's
// weighted sum of values, upcast 32 along d): register tiles of two
// vectors along d, the reduce over the first start_pos + 1 keys a loop to
// the argument; v is read with vector loads, p (a symbolic stride along
// the heads, constant along d) with one scalar load broadcast.
// CHECK-LABEL: func.func @weighted_sum(
// CHECK-SAME: %[[SP:[^:]+]]: index) attributes {lazy.variables = ["start_pos[1:1023]"]}
// CHECK: scf.for %[[D:.+]] = %{{.+}} to %{{.+}} step %c32
// CHECK: %[[KEYS:.+]] = arith.addi %[[SP]], %{{.+}} : index
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[KEYS]] step %{{.+}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>)
// CHECK: %[[P:.+]] = memref.load
// CHECK: %[[V:.+]] = vector.load {{.*}} vector<16xf32>
// CHECK: %[[PV:.+]] = vector.broadcast %[[P]] : f32 to vector<16xf32>
// CHECK: arith.mulf %[[PV]], %[[V]] : vector<16xf32>
// CHECK-NOT: memref.load
// CHECK: vector.load {{.*}} vector<16xf32>
// CHECK: scf.yield
// CHECK: vector.store
lazy.kernel @weighted_sum(%out0: !lazy.buffer<512xf32>, %in0: !lazy.buffer<8192xf32>, %in1: !lazy.buffer<524288xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 32>, #lazy.opt<lanes, 1, 16>]} {
  %0 = lazy.load %in0 as <[(8, 64, (1 + start_pos[1:1023])):((1 + start_pos[1:1023]), 0, 1)]> : !lazy.buffer<8192xf32> -> tensor<8x64x1024xf32, #lazy.sym_shape<[8, 64, (1 + start_pos[1:1023])]>>
  %1 = lazy.load %in1 as <[(8, 64, (1 + start_pos[1:1023])):(64, 1, 512)]> : !lazy.buffer<524288xf32> -> tensor<8x64x1024xf32, #lazy.sym_shape<[8, 64, (1 + start_pos[1:1023])]>>
  %2 = lazy.mul %0, %1 : tensor<8x64x1024xf32, #lazy.sym_shape<[8, 64, (1 + start_pos[1:1023])]>>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x64x1024xf32, #lazy.sym_shape<[8, 64, (1 + start_pos[1:1023])]>> -> tensor<8x64x1xf32>
  lazy.store %3, %out0 as <[(8, 64, 1):(64, 1, 0)]> : tensor<8x64x1xf32>, !lazy.buffer<512xf32>
}

// -----

// A planned kernel whose symbolic axis is an output axis: the point loop
// over it runs to the argument, step 1.
// CHECK-LABEL: func.func @planned_rows(
// CHECK-SAME: %[[N:[^:]+]]: index) attributes {lazy.variables = ["n[1:8]"]}
// CHECK: scf.parallel (%{{.+}}) = (%{{.+}}) to (%[[N]]) step (%c1)
// CHECK: scf.for %{{.+}} = %{{.+}} to %c32 step %c16
// CHECK: vector.load {{.*}} vector<16xf32>
// CHECK: vector.store
lazy.kernel @planned_rows(%out0: !lazy.buffer<256xf32>, %in0: !lazy.buffer<256xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 16>, #lazy.opt<lanes, 1, 16>]} {
  %0 = lazy.load %in0 as <[(n[1:8], 32):(32, 1)]> : !lazy.buffer<256xf32> -> tensor<8x32xf32, #lazy.sym_shape<[n[1:8], 32]>>
  %1 = lazy.exp2 %0 : tensor<8x32xf32, #lazy.sym_shape<[n[1:8], 32]>>
  lazy.store %1, %out0 as <[(n[1:8], 32):(32, 1)]> : tensor<8x32xf32, #lazy.sym_shape<[n[1:8], 32]>>, !lazy.buffer<256xf32>
}

// -----

// Stores of one largest shape but different symbolic shapes, (i) and (j),
// are two loops, each to its own Variable: one loop to i would write i
// elements of the j-sized output.
// CHECK-LABEL: func.func @two_k0(
// CHECK-SAME: %[[A:[^:]+]]: memref<8xf32, {{.*}}>, %[[B:[^:]+]]: memref<2xf32, {{.*}}>, %{{[^:]+}}: memref<8xf32, {{.*}}>, %[[I:[^:]+]]: index, %[[J:[^:]+]]: index)
// CHECK: scf.parallel (%{{.+}}) = (%{{.+}}) to (%[[I]])
// CHECK: memref.store %{{.+}}, %[[A]]
// CHECK: scf.parallel (%{{.+}}) = (%{{.+}}) to (%[[J]])
// CHECK: memref.store %{{.+}}, %[[B]]
lazy.kernel @two_k0(%out0: !lazy.buffer<8xf32>, %out1: !lazy.buffer<2xf32>, %in0: !lazy.buffer<8xf32>) attributes {num_outputs = 2 : i64} {
  %0 = lazy.load %in0 as <[(i[1:8]):(1)]> : !lazy.buffer<8xf32> -> tensor<8xf32, #lazy.sym_shape<[i[1:8]]>>
  lazy.store %0, %out0 as <[(i[1:8]):(1)]> : tensor<8xf32, #lazy.sym_shape<[i[1:8]]>>, !lazy.buffer<8xf32>
  %1 = lazy.load %in0 as <[(j[1:8]):(1)]> : !lazy.buffer<8xf32> -> tensor<8xf32, #lazy.sym_shape<[j[1:8]]>>
  lazy.store %1, %out1 as <[(j[1:8]):(1)]> : tensor<8xf32, #lazy.sym_shape<[j[1:8]]>>, !lazy.buffer<2xf32>
}

// -----

// Unflattening by a dim that can be 0 (a[0:4]) divides by at least 1: at
// a = 0 the padded positions still run through it, masked out.
// CHECK-LABEL: func.func @pad_zero_k0(
// CHECK-SAME: %[[A:[^:]+]]: index) attributes {lazy.variables = ["a[0:4]"]}
// CHECK: %[[D:.+]] = arith.maxsi %[[A]], %{{.+}} : index
// CHECK: arith.remsi %{{.+}}, %[[D]] : index
lazy.kernel @pad_zero_k0(%out0: !lazy.buffer<18xf32>, %in0: !lazy.buffer<12xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(a[0:4], 4):(3, 1) mask [(0, a[0:4]), (0, 3)], (((a[0:4] * 4) + 2)):(1) offset -1 mask [(1, ((a[0:4] * 4) + 1))]]> : !lazy.buffer<12xf32> -> tensor<18xf32, #lazy.sym_shape<[((a[0:4] * 4) + 2)]>>
  lazy.store %0, %out0 as <[(((a[0:4] * 4) + 2)):(1)]> : tensor<18xf32, #lazy.sym_shape<[((a[0:4] * 4) + 2)]>>, !lazy.buffer<18xf32>
}

// -----

// A const of a Variable: the argument, converted to the const's type.
// CHECK-LABEL: func.func @variable_const_k0(
// CHECK-SAME: %[[OUT:[^:]+]]: memref<1xi32, {{.*}}>, %[[A:[^:]+]]: index) attributes {lazy.variables = ["a[0:10]"]}
// CHECK: %[[WIDE:.+]] = arith.index_cast %[[A]] : index to i64
// CHECK: %[[V:.+]] = arith.trunci %[[WIDE]] : i64 to i32
// CHECK: arith.addi %[[V]], %{{.+}} : i32
// CHECK-LABEL: func.func @variable_const(
// CHECK: %[[SEVEN:.+]] = arith.constant 7 : index
// CHECK: call @variable_const_k0(%{{.+}}, %[[SEVEN]])
lazy.kernel @variable_const_k0(%out0: !lazy.buffer<1xsi32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.const a[0:10] : tensor<si32>
  %1 = lazy.view %0 as <[():()]> : tensor<si32> -> tensor<si32>
  %2 = lazy.const 3 : tensor<si32>
  %3 = lazy.view %2 as <[():()]> : tensor<si32> -> tensor<si32>
  %4 = lazy.add %1, %3 : tensor<si32>
  lazy.store %4, %out0 as <[():()]> : tensor<si32>, !lazy.buffer<1xsi32>
}
func.func @variable_const() -> !lazy.buffer<1xsi32> {
  %0 = lazy.alloc : !lazy.buffer<1xsi32>
  %1 = lazy.launch @variable_const_k0 outs(%0 : !lazy.buffer<1xsi32>) {lazy.var_vals = {"a[0:10]" = 7 : i64}}
  return %1 : !lazy.buffer<1xsi32>
}

// -----

// Symbolic masks, offsets and a view below another: the mask bounds are
// index comparisons with the arguments, and an index into the view below
// is unflattened by its symbolic shape. Two Variables are two arguments,
// in key order.
// CHECK-LABEL: func.func @cat_k0(
// CHECK-SAME: %[[I:[^:]+]]: index, %[[J:[^:]+]]: index) attributes {lazy.variables = ["i[1:10]", "j[1:10]"]}
// CHECK: %[[ROWS:.+]] = arith.addi %[[I]], %[[J]] : index
// CHECK: scf.parallel (%[[R:.+]]) = (%{{.+}}) to (%[[ROWS]])
// CHECK: arith.cmpi slt, %[[R]], %[[I]] : index
// CHECK: arith.cmpi sge, %[[R]], %[[I]] : index
lazy.kernel @cat_k0(%out0: !lazy.buffer<60xf32>, %in0: !lazy.buffer<9xf32>, %in1: !lazy.buffer<12xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[((i[1:10] + j[1:10]), 3):(3, 1) mask [(0, i[1:10]), (0, 3)]]> : !lazy.buffer<9xf32> -> tensor<20x3xf32, #lazy.sym_shape<[(i[1:10] + j[1:10]), 3]>>
  %1 = lazy.load %in1 as <[((i[1:10] + j[1:10]), 3):(3, 1) offset (i[1:10] * -3) mask [(i[1:10], (i[1:10] + j[1:10])), (0, 3)]]> : !lazy.buffer<12xf32> -> tensor<20x3xf32, #lazy.sym_shape<[(i[1:10] + j[1:10]), 3]>>
  %2 = lazy.add %0, %1 : tensor<20x3xf32, #lazy.sym_shape<[(i[1:10] + j[1:10]), 3]>>
  lazy.store %2, %out0 as <[((i[1:10] + j[1:10]), 3):(3, 1)]> : tensor<20x3xf32, #lazy.sym_shape<[(i[1:10] + j[1:10]), 3]>>, !lazy.buffer<60xf32>
}

// -----

// A padded (i, 4) view read as (2, 2i): the flat index of the outer view
// is unflattened into (i, 4) by remainder and division.
// CHECK-LABEL: func.func @pad_reshape_k0(
// CHECK-SAME: %[[I:[^:]+]]: index) attributes {lazy.variables = ["i[1:4]"]}
// CHECK: arith.remsi %[[FLAT:.+]], %c4 : index
// CHECK: %[[Q:.+]] = arith.floordivsi %[[FLAT]], %c4 : index
// CHECK: arith.remsi %[[Q]], %[[I]] : index
lazy.kernel @pad_reshape_k0(%out0: !lazy.buffer<16xf32>, %in0: !lazy.buffer<12xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(i[1:4], 4):(3, 1) mask [(0, i[1:4]), (0, 3)], (2, (i[1:4] * 2)):((i[1:4] * 2), 1)]> : !lazy.buffer<12xf32> -> tensor<2x8xf32, #lazy.sym_shape<[2, (i[1:4] * 2)]>>
  %1 = lazy.exp2 %0 : tensor<2x8xf32, #lazy.sym_shape<[2, (i[1:4] * 2)]>>
  lazy.store %1, %out0 as <[(2, (i[1:4] * 2)):((i[1:4] * 2), 1)]> : tensor<2x8xf32, #lazy.sym_shape<[2, (i[1:4] * 2)]>>, !lazy.buffer<16xf32>
}

// -----

// A launch must give a value for each of its kernel's Variables.
lazy.kernel @needs_i(%out0: !lazy.buffer<30xf32>, %in0: !lazy.buffer<9xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(3, i[1:10]):(3, 1)]> : !lazy.buffer<9xf32> -> tensor<3x10xf32, #lazy.sym_shape<[3, i[1:10]]>>
  lazy.store %0, %out0 as <[(3, i[1:10]):(i[1:10], 1)]> : tensor<3x10xf32, #lazy.sym_shape<[3, i[1:10]]>>, !lazy.buffer<30xf32>
}
func.func @no_values(%arg0: !lazy.buffer<9xf32> {lazy.buffer = 0 : i64}) -> !lazy.buffer<30xf32> {
  %0 = lazy.alloc : !lazy.buffer<30xf32>
  // expected-error @+1 {{gives no value for the kernel's Variable i[1:10] (its lazy.var_vals attribute)}}
  %1 = lazy.launch @needs_i outs(%0 : !lazy.buffer<30xf32>) ins(%arg0 : !lazy.buffer<9xf32>) {lazy.var_vals = {"j[1:10]" = 3 : i64}}
  return %1 : !lazy.buffer<30xf32>
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

// At a value where a view's mask is out of order, the view has no
// integer form that tinygrad's View.create accepts.
lazy.kernel @bad_mask(%out0: !lazy.buffer<16xf32>, %in0: !lazy.buffer<16xf32>) attributes {num_outputs = 1 : i64} {
  // expected-note @+1 {{the view}}
  %0 = lazy.load %in0 as <[(2, 8):(8, 1) mask [(0, 2), (0, (1 + n[1:8]))]]> : !lazy.buffer<16xf32> -> tensor<2x8xf32>
  lazy.store %0, %out0 as <[(2, 8):(8, 1)]> : tensor<2x8xf32>, !lazy.buffer<16xf32>
}
func.func @mask_past_the_shape(%arg0: !lazy.buffer<16xf32> {lazy.buffer = 0 : i64}) -> !lazy.buffer<16xf32> {
  %0 = lazy.alloc : !lazy.buffer<16xf32>
  // expected-error @+1 {{runs @bad_mask at n=8, where a view of its lazy.load is invalid: view #0: mask range (0, 9) of dimension 1 must satisfy 0 <= begin <= end <= 8}}
  %1 = lazy.launch @bad_mask outs(%0 : !lazy.buffer<16xf32>) ins(%arg0 : !lazy.buffer<16xf32>) {lazy.var_vals = {"n[1:8]" = 8 : i64}}
  return %1 : !lazy.buffer<16xf32>
}

// -----

// A launch's value must lie in its Variable's range.
lazy.kernel @in_range(%out0: !lazy.buffer<30xf32>, %in0: !lazy.buffer<9xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(3, i[1:10]):(3, 1)]> : !lazy.buffer<9xf32> -> tensor<3x10xf32, #lazy.sym_shape<[3, i[1:10]]>>
  lazy.store %0, %out0 as <[(3, i[1:10]):(i[1:10], 1)]> : tensor<3x10xf32, #lazy.sym_shape<[3, i[1:10]]>>, !lazy.buffer<30xf32>
}
func.func @below_the_range(%arg0: !lazy.buffer<9xf32> {lazy.buffer = 0 : i64}) -> !lazy.buffer<30xf32> {
  %0 = lazy.alloc : !lazy.buffer<30xf32>
  // expected-error @+1 {{gives i[1:10] the value 0, outside its range}}
  %1 = lazy.launch @in_range outs(%0 : !lazy.buffer<30xf32>) ins(%arg0 : !lazy.buffer<9xf32>) {lazy.var_vals = {"i[1:10]" = 0 : i64}}
  return %1 : !lazy.buffer<30xf32>
}
