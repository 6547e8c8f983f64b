// RUN: lazy-opt %s --split-input-file --verify-diagnostics --convert-lazy-to-loops | FileCheck %s
// The plan is the whole decision: one kernel (out = in + in over 8 x 64)
// lowered under two hand-written plans, a row kernel under three and a
// matmul with a `pack` step. The
// lowering reads the plan and decides nothing: lanes only where the plan
// has a `lanes` step, rows only where it has a `row` step.

// Plan A: axis 1 eight elements per trip, as one vector of 8 lanes.
// CHECK-LABEL: func.func @double_lanes(
// CHECK: scf.parallel (%[[ROW:.+]]) = (%{{.+}}) to (%{{.+}}) step (%{{.+}}) {
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %[[C8:.+]] {
// CHECK: %[[V:.+]] = vector.load %{{.+}}[%{{.+}}] : memref<512xf32, strided<[1], offset: ?>>, vector<8xf32>
// CHECK: %[[SUM:.+]] = arith.addf %[[V]], %[[V]] : vector<8xf32>
// CHECK: vector.store %[[SUM]], %{{.+}}[%{{.+}}] : memref<512xf32, strided<[1], offset: ?>>, vector<8xf32>
// CHECK-NOT: memref.load
lazy.kernel @double_lanes(%out0: !lazy.buffer<512xf32>, %in0: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 8>, #lazy.opt<lanes, 1, 8>]} {
  %0 = lazy.load %in0 as <[(8, 64):(64, 1)]> : !lazy.buffer<512xf32> -> tensor<8x64xf32>
  %1 = lazy.add %0, %0 : tensor<8x64xf32>
  lazy.store %1, %out0 as <[(8, 64):(64, 1)]> : tensor<8x64xf32>, !lazy.buffer<512xf32>
}

// -----

// Plan B: two rows per trip of the parallel loop, scalar elements (no
// `lanes` step: no vector code at all).
// CHECK-LABEL: func.func @double_rows(
// CHECK: %[[C2:.+]] = arith.constant 2 : index
// CHECK: scf.parallel (%{{.+}}) = (%{{.+}}) to (%{{.+}}) step (%[[C2]]) {
// CHECK: %[[A:.+]] = memref.load
// CHECK: arith.addf %[[A]], %[[A]] : f32
// CHECK: %[[B:.+]] = memref.load
// CHECK: arith.addf %[[B]], %[[B]] : f32
// CHECK: memref.store
// CHECK: memref.store
// CHECK-NOT: vector.
// CHECK: return
lazy.kernel @double_rows(%out0: !lazy.buffer<512xf32>, %in0: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 0, 2>]} {
  %0 = lazy.load %in0 as <[(8, 64):(64, 1)]> : !lazy.buffer<512xf32> -> tensor<8x64xf32>
  %1 = lazy.add %0, %0 : tensor<8x64xf32>
  lazy.store %1, %out0 as <[(8, 64):(64, 1)]> : tensor<8x64xf32>, !lazy.buffer<512xf32>
}

// -----

// A plan that cannot be applied is a verifier error at the kernel: lanes
// wider than the axis's upcast.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: the lanes of axis 1 (8) do not divide its upcast (4)}}
lazy.kernel @too_wide(%out0: !lazy.buffer<512xf32>, %in0: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<lanes, 1, 8>]} {
  %0 = lazy.load %in0 as <[(8, 64):(64, 1)]> : !lazy.buffer<512xf32> -> tensor<8x64xf32>
  %1 = lazy.add %0, %0 : tensor<8x64xf32>
  lazy.store %1, %out0 as <[(8, 64):(64, 1)]> : tensor<8x64xf32>, !lazy.buffer<512xf32>
}

// -----

// The CPU lowering runs register-tile plans only: a GPU plan is an error
// at the kernel, never a kernel lowered without its plan.
// expected-error @+1 {{'lazy.kernel' op has a GPU plan (tc, local, group or block steps), which the CPU lowering cannot apply: plan it for the CPU (lazy-optimize-kernels target=host or generic)}}
lazy.kernel @rowsum(%out0: !lazy.buffer<8xf32>, %in0: !lazy.buffer<32768xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<group, 1, 64>]} {
  %0 = lazy.load %in0 as <[(8, 4096):(4096, 1)]> : !lazy.buffer<32768xf32> -> tensor<8x4096xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<8x4096xf32> -> tensor<8x1xf32>
  lazy.store %1, %out0 as <[(8, 1):(1, 0)]> : tensor<8x1xf32>, !lazy.buffer<8xf32>
}

// -----

// A block step (the GPU mapping of a store group) is the GPU's too.
// expected-error @+1 {{'lazy.kernel' op has a GPU plan (tc, local, group or block steps), which the CPU lowering cannot apply: plan it for the CPU (lazy-optimize-kernels target=host or generic)}}
lazy.kernel @rowsum_block(%out0: !lazy.buffer<8xf32>, %in0: !lazy.buffer<32768xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<block, 0, 256>]} {
  %0 = lazy.load %in0 as <[(8, 4096):(4096, 1)]> : !lazy.buffer<32768xf32> -> tensor<8x4096xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<8x4096xf32> -> tensor<8x1xf32>
  lazy.store %1, %out0 as <[(8, 1):(1, 0)]> : tensor<8x1xf32>, !lazy.buffer<8xf32>
}

// -----

// A row kernel (x + max(x) along each row of 64) under three hand-written
// plans. Row plan, 32-byte vectors: each row computes its max once, in
// four partial vectors of 8 lanes, then its elements in vectors.
// CHECK-LABEL: func.func @add_max_rows_vectors(
// CHECK: scf.parallel
// CHECK: scf.for {{.+}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK: vector.reduction <maximumf>
// CHECK: scf.for
// CHECK: arith.addf %{{.+}}, %{{.+}} : vector<8xf32>
// CHECK: return
lazy.kernel @add_max_rows_vectors(%out0: !lazy.buffer<512xf32>, %in0: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<row, 0, 32>]} {
  %0 = lazy.load %in0 as <[(8, 64):(64, 1)]> : !lazy.buffer<512xf32> -> tensor<8x64xf32>
  %1 = lazy.reduce_max %0 axes [1] : tensor<8x64xf32> -> tensor<8x1xf32>
  %2 = lazy.view %1 as <[(8, 64):(1, 0)]> : tensor<8x1xf32> -> tensor<8x64xf32>
  %3 = lazy.add %0, %2 : tensor<8x64xf32>
  lazy.store %3, %out0 as <[(8, 64):(64, 1)]> : tensor<8x64xf32>, !lazy.buffer<512xf32>
}

// -----

// Row plan, scalars (1 byte): the max once per row, element by element.
// CHECK-LABEL: func.func @add_max_rows_scalar(
// CHECK: scf.parallel
// CHECK-NOT: scf.for
// CHECK: scf.for {{.+}} -> (f32) {
// CHECK: scf.for
// CHECK: arith.addf %{{.+}}, %{{.+}} : f32
// CHECK-NOT: vector.
// CHECK: return
lazy.kernel @add_max_rows_scalar(%out0: !lazy.buffer<512xf32>, %in0: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<row, 0, 1>]} {
  %0 = lazy.load %in0 as <[(8, 64):(64, 1)]> : !lazy.buffer<512xf32> -> tensor<8x64xf32>
  %1 = lazy.reduce_max %0 axes [1] : tensor<8x64xf32> -> tensor<8x1xf32>
  %2 = lazy.view %1 as <[(8, 64):(1, 0)]> : tensor<8x1xf32> -> tensor<8x64xf32>
  %3 = lazy.add %0, %2 : tensor<8x64xf32>
  lazy.store %3, %out0 as <[(8, 64):(64, 1)]> : tensor<8x64xf32>, !lazy.buffer<512xf32>
}

// -----

// No row step (an empty plan): every element computes the max of its row
// again, the max's loop inside the element's.
// CHECK-LABEL: func.func @add_max_no_rows(
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK-NOT: -> (f32)
// CHECK: memref.load
// CHECK: scf.for {{.+}} -> (f32) {
// CHECK: arith.addf %{{.+}}, %{{.+}} : f32
// CHECK-NOT: vector.
// CHECK: return
lazy.kernel @add_max_no_rows(%out0: !lazy.buffer<512xf32>, %in0: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = []} {
  %0 = lazy.load %in0 as <[(8, 64):(64, 1)]> : !lazy.buffer<512xf32> -> tensor<8x64xf32>
  %1 = lazy.reduce_max %0 axes [1] : tensor<8x64xf32> -> tensor<8x1xf32>
  %2 = lazy.view %1 as <[(8, 64):(1, 0)]> : tensor<8x1xf32> -> tensor<8x64xf32>
  %3 = lazy.add %0, %2 : tensor<8x64xf32>
  lazy.store %3, %out0 as <[(8, 64):(64, 1)]> : tensor<8x64xf32>, !lazy.buffer<512xf32>
}

// -----

// A row step names its store group: the copy (group 0) keeps its plain
// loop, group 1 runs row by row in 32-byte vectors.
// CHECK-LABEL: func.func @copy_then_rows(
// CHECK: scf.parallel (%{{.+}}) = (%{{.+}}) to (%c4)
// CHECK: memref.store
// CHECK: scf.parallel (%{{.+}}) = (%{{.+}}) to (%c8)
// CHECK: scf.for {{.+}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK: vector.reduction <maximumf>
// CHECK: vector.store %{{.+}}, %{{.+}}[%{{.+}}] : memref<512xf32, strided<[1], offset: ?>>, vector<8xf32>
lazy.kernel @copy_then_rows(%out0: !lazy.buffer<4xf32>, %out1: !lazy.buffer<512xf32>, %in0: !lazy.buffer<512xf32>) attributes {num_outputs = 2 : i64, opts = [#lazy.opt<row, 1, 32>]} {
  %0 = lazy.load %in0 as <[(4):(1)]> : !lazy.buffer<512xf32> -> tensor<4xf32>
  lazy.store %0, %out0 as <[(4):(1)]> : tensor<4xf32>, !lazy.buffer<4xf32>
  %1 = lazy.load %in0 as <[(8, 64):(64, 1)]> : !lazy.buffer<512xf32> -> tensor<8x64xf32>
  %2 = lazy.reduce_max %1 axes [1] : tensor<8x64xf32> -> tensor<8x1xf32>
  %3 = lazy.view %2 as <[(8, 64):(1, 0)]> : tensor<8x1xf32> -> tensor<8x64xf32>
  %4 = lazy.add %1, %3 : tensor<8x64xf32>
  lazy.store %4, %out1 as <[(8, 64):(64, 1)]> : tensor<8x64xf32>, !lazy.buffer<512xf32>
}

// -----

// A `pack` step (PackedPanels.h): per block of 8 elements of axis 1, %in1
// (which reads axis 1 contiguously and axis 0 not at all) is copied into a
// panel on the block's thread's stack, the block's lanes innermost and the
// reduce axis (32) outside: 256 floats. The register tiles' reduce loop
// reads the panel, not %in1's buffer.
// CHECK-LABEL: func.func @matmul_packed(
// CHECK-SAME: %[[OUT:[^:]+]]: memref<128xf32{{.*}}>, %[[A:[^:]+]]: memref<256xf32{{.*}}>, %[[B:[^:]+]]: memref<512xf32{{.*}}>)
// CHECK: scf.parallel
// CHECK: memref.alloca_scope
// CHECK: %[[PANEL:.+]] = memref.alloca() {alignment = 64 : i64} : memref<256xf32>
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step
// CHECK: %[[ROW:.+]] = vector.load %[[B]][%{{.+}}] : memref<512xf32{{.*}}>, vector<4xf32>
// CHECK: vector.store %[[ROW]], %[[PANEL]][%{{.+}}] : memref<256xf32>, vector<4xf32>
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK-NOT: vector.load %[[B]]
// CHECK: vector.load %[[PANEL]][%{{.+}}] : memref<256xf32>, vector<4xf32>
// CHECK-NOT: vector.load %[[B]]
// CHECK: vector.store %{{.+}}, %[[OUT]]
lazy.kernel @matmul_packed(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<upcast, 0, 2>, #lazy.opt<tile, 1, 8>, #lazy.opt<pack, 1, 8>, #lazy.opt<lanes, 1, 4>]} {
  %0 = lazy.load %in0 as <[(8, 16, 32):(32, 0, 1)]> : !lazy.buffer<256xf32> -> tensor<8x16x32xf32>
  %1 = lazy.load %in1 as <[(8, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf32> -> tensor<8x16x32xf32>
  %2 = lazy.mul %0, %1 : tensor<8x16x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
  lazy.store %3, %out0 as <[(8, 16, 1):(16, 1, 0)]> : tensor<8x16x1xf32>, !lazy.buffer<128xf32>
}
