// RUN: lazy-opt %s --convert-lazy-to-loops --split-input-file | FileCheck %s
// RUN: lazy-opt %s --convert-lazy-to-loops=parallel-min-work=1000000 --split-input-file | FileCheck %s --check-prefix=SEQ
// How convert-lazy-to-loops follows a kernel's plan (opts).

// A matmul of space (4, 8, 3), axis 2 reduced, with upcast 2 on axes 0
// and 1 and a tile of 4 on axis 1: the tile blocks of axis 1 are the
// parallel loop; inside, the point loops step by their upcast (axis 0 over
// all of it, axis 1 over its block); each trip is a 2x2 register tile
// whose accumulators share one reduce loop, stored after it. Axis 1 is
// the vector axis (the output and %in1 contiguous, %in0 constant along
// it): each trip holds two rows of vector<2xf32>, %in0 read as a scalar
// and broadcast.
// CHECK-LABEL: func.func @mm(
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : index
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : index
// CHECK: scf.parallel (%[[JB:.+]]) = (%[[C0]]) to (%[[C8]]) step (%[[C4]])
// CHECK: %[[END:.+]] = arith.addi %[[JB]], %{{.+}} : index
// CHECK: scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK: scf.for %[[J:.+]] = %[[JB]] to %[[END]] step %{{.+}} {
// CHECK: %[[I1:.+]] = arith.addi %[[I]], %{{.+}} : index
// CHECK: %[[ACC:.+]]:2 = scf.for %[[K:.+]] = {{.+}} iter_args(%{{.+}} = %[[ZERO:.+]], %{{.+}} = %[[ZERO]]) -> (vector<2xf32>, vector<2xf32>)
// CHECK: %[[A0:.+]] = memref.load %arg1
// CHECK: %[[B0:.+]] = vector.load %arg2[%{{.+}}] : {{.+}}, vector<2xf32>
// CHECK: %[[A0V:.+]] = vector.broadcast %[[A0]] : f32 to vector<2xf32>
// CHECK: arith.mulf %[[A0V]], %[[B0]] : vector<2xf32>
// CHECK: arith.mulf {{.+}} : vector<2xf32>
// CHECK: scf.yield %{{.+}}, %{{.+}} : vector<2xf32>, vector<2xf32>
// CHECK-COUNT-2: vector.store
// CHECK-NOT: memref.store
// CHECK: return
// Below parallel-min-work the tile blocks are an scf.for.
// SEQ-LABEL: func.func @mm(
// SEQ-NOT: scf.parallel
// SEQ: scf.for
// SEQ-NOT: scf.parallel
// SEQ: return
lazy.kernel @mm(%out0: !lazy.buffer<32xf32>, %in0: !lazy.buffer<12xf32>, %in1: !lazy.buffer<24xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 2>, #lazy.opt<upcast, 0, 2>, #lazy.opt<tile, 1, 4>, #lazy.opt<lanes, 1, 2>]} {
  %0 = lazy.load %in0 as <[(4, 8, 3):(3, 0, 1)]> : !lazy.buffer<12xf32> -> tensor<4x8x3xf32>
  %1 = lazy.load %in1 as <[(4, 8, 3):(0, 1, 8)]> : !lazy.buffer<24xf32> -> tensor<4x8x3xf32>
  %2 = lazy.mul %0, %1 : tensor<4x8x3xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<4x8x3xf32> -> tensor<4x8x1xf32>
  lazy.store %3, %out0 as <[(4, 8, 1):(8, 1, 0)]> : tensor<4x8x1xf32>, !lazy.buffer<32xf32>
}

// -----

// unroll: the reduce loop steps by 4 and adds four elements per trip, in
// index order; without tiles the point loop is the parallel loop.
// CHECK-LABEL: func.func @rowmax(
// CHECK: scf.parallel (%[[R:.+]]) =
// CHECK: %[[MAX:.+]] = scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step %[[C4:.+]] iter_args(%[[ACC:.+]] = %{{.+}}) -> (f32)
// CHECK: %[[X0:.+]] = memref.load
// CHECK: %[[GT0:.+]] = arith.cmpf ogt, %[[ACC]], %[[X0]]
// CHECK: %[[M0:.+]] = arith.select %[[GT0]], %[[ACC]], %[[X0]]
// CHECK: %[[K1:.+]] = arith.addi %[[K]], %{{.+}} : index
// CHECK: %[[X1:.+]] = memref.load
// CHECK: arith.cmpf ogt, %[[M0]], %[[X1]]
// CHECK-COUNT-2: memref.load
// CHECK-NOT: memref.load
// CHECK: scf.yield
// CHECK: memref.store %[[MAX]]
lazy.kernel @rowmax(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<64xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<unroll, 1, 4>]} {
  %0 = lazy.load %in0 as <[(4, 16):(16, 1)]> : !lazy.buffer<64xf32> -> tensor<4x16xf32>
  %1 = lazy.reduce_max %0 axes [1] : tensor<4x16xf32> -> tensor<4x1xf32>
  lazy.store %1, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
}

// -----

// An elementwise kernel with a plan: two elements per trip, no reduce,
// as one vector of two lanes.
// CHECK-LABEL: func.func @scale(
// CHECK: scf.parallel (%[[I:.+]]) = (%{{.+}}) to (%{{.+}}) step (%[[C2:.+]])
// CHECK: %[[AT:.+]] = arith.addi %{{.+}}, %[[I]] : index
// CHECK: %[[X:.+]] = vector.load %arg1[%[[AT]]] : {{.+}}, vector<2xf32>
// CHECK: %[[Y:.+]] = arith.addf %[[X]], %[[X]] : vector<2xf32>
// CHECK: vector.store %[[Y]], %arg0
// CHECK-NOT: memref.store
lazy.kernel @scale(%out0: !lazy.buffer<8xf32>, %in0: !lazy.buffer<8xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 0, 2>, #lazy.opt<lanes, 0, 2>]} {
  %0 = lazy.load %in0 as <[(8):(1)]> : !lazy.buffer<8xf32> -> tensor<8xf32>
  %1 = lazy.add %0, %0 : tensor<8xf32>
  lazy.store %1, %out0 as <[(8):(1)]> : tensor<8xf32>, !lazy.buffer<8xf32>
}

// -----

// unroll on the innermost reduce axis of a long float sum (64 elements):
// one partial sum per unrolled step, each in index order, carried by the
// loop as the lanes of one vector (a vector.load per trip) and added in
// step order after it.
// CHECK-LABEL: func.func @split(
// CHECK: %[[P:.+]] = scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %{{.+}}) -> (vector<4xf32>)
// CHECK: %[[X:.+]] = vector.load %arg1[%{{.+}}] : {{.+}}, vector<4xf32>
// CHECK: %[[NEXT:.+]] = arith.addf %[[ACC]], %[[X]] : vector<4xf32>
// CHECK: scf.yield %[[NEXT]]
// CHECK: %[[P0:.+]] = vector.extract %[[P]][0]
// CHECK: %[[P1:.+]] = vector.extract %[[P]][1]
// CHECK: %[[S01:.+]] = arith.addf %[[P0]], %[[P1]] : f32
// CHECK: %[[P2:.+]] = vector.extract %[[P]][2]
// CHECK: %[[S012:.+]] = arith.addf %[[S01]], %[[P2]] : f32
// CHECK: %[[P3:.+]] = vector.extract %[[P]][3]
// CHECK: %[[S:.+]] = arith.addf %[[S012]], %[[P3]] : f32
// CHECK: memref.store %[[S]]
lazy.kernel @split(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<256xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<unroll, 1, 4>]} {
  %0 = lazy.load %in0 as <[(4, 64):(64, 1)]> : !lazy.buffer<256xf32> -> tensor<4x64xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<4x64xf32> -> tensor<4x1xf32>
  lazy.store %1, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
}
