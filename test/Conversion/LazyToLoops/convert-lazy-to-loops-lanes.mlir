// RUN: lazy-opt %s --convert-lazy-to-loops --split-input-file | FileCheck %s
// RUN: lazy-opt %s --convert-lazy-to-loops=nontemporal-min-bytes=256 --split-input-file | FileCheck %s --check-prefix=NT
// Lane mode: along a plan's vector axis each register-tile element is a
// vector of lanes (convert-lazy-to-loops' rule 1).

// A padded 1-D convolution, space (4, 16, 3), axis 2 reduced, lanes on
// axis 1 (16 wide): the padded input is contiguous along the lanes and
// masked at both ends, so it is a vector.maskedload whose mask is each
// lane's validity (x + k - 1 in [0, 16)); the weights are constant along
// the lanes, a scalar load broadcast; the output a vector.store per row.
// CHECK-LABEL: func.func @conv1d(
// CHECK: scf.for {{.+}} iter_args({{.+}}) -> (vector<16xf32>, vector<16xf32>)
// CHECK: %[[LANES:.+]] = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : vector<16xindex>
// CHECK: %[[AT:.+]] = arith.addi %{{.+}}, %[[LANES]] : vector<16xindex>
// CHECK: arith.cmpi slt, %[[AT]], %{{.+}} : vector<16xindex>
// CHECK: %[[MASK:.+]] = arith.andi %{{.+}}, %{{.+}} : vector<16xi1>
// CHECK: %[[X:.+]] = vector.maskedload %arg1[%{{.+}}], %[[MASK]], %{{.+}} : memref<16xf32, {{.+}}>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK: %[[W:.+]] = memref.load %arg2
// CHECK: %[[WV:.+]] = vector.broadcast %[[W]] : f32 to vector<16xf32>
// CHECK: arith.mulf %[[X]], %[[WV]] : vector<16xf32>
// CHECK-COUNT-2: vector.store {{.+}} vector<16xf32>
// CHECK-NOT: memref.store
// With nontemporal-min-bytes=256 the 256-byte output's vector stores
// bypass the cache where the call's output is cache-line aligned (x86's
// nontemporal vector stores need it): the plan is emitted twice, under a
// test of the output's first element's address; the 64-byte output of
// @divide's stores stay cached.
// NT-LABEL: func.func @conv1d(
// NT: %[[PTR:.+]] = memref.extract_aligned_pointer_as_index %arg0
// NT: %{{.+}}, %[[OFFSET:.+]], %{{.+}}, %{{.+}} = memref.extract_strided_metadata %arg0
// NT: %[[BYTES:.+]] = arith.muli %[[OFFSET]], %c4
// NT: %[[ADDRESS:.+]] = arith.addi %[[PTR]], %[[BYTES]]
// NT: %[[REM:.+]] = arith.remui %[[ADDRESS]], %c64
// NT: %[[ALIGNED:.+]] = arith.cmpi eq, %[[REM]], %c0
// NT: scf.if %[[ALIGNED]] {
// NT-COUNT-2: vector.store {{.+}} {alignment = 64 : i64, nontemporal = true}
// NT: } else {
// NT-COUNT-2: vector.store %{{[0-9#]+}}, %arg0[%{{[0-9]+}}] : memref<64xf32, {{.+}}>, vector<16xf32>
// NT-NOT: nontemporal
// NT-LABEL: func.func @divide(
// NT-NOT: nontemporal
// NT: return
lazy.kernel @conv1d(%out0: !lazy.buffer<64xf32>, %in0: !lazy.buffer<16xf32>, %in1: !lazy.buffer<12xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 16>, #lazy.opt<upcast, 0, 2>, #lazy.opt<unroll, 2, 3>, #lazy.opt<lanes, 1, 16>]} {
  %0 = lazy.load %in0 as <[(18):(1) offset -1 mask [(1, 17)], (4, 16, 3):(0, 1, 1)]> : !lazy.buffer<16xf32> -> tensor<4x16x3xf32>
  %1 = lazy.load %in1 as <[(4, 16, 3):(3, 0, 1)]> : !lazy.buffer<12xf32> -> tensor<4x16x3xf32>
  %2 = lazy.mul %0, %1 : tensor<4x16x3xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<4x16x3xf32> -> tensor<4x16x1xf32>
  lazy.store %3, %out0 as <[(4, 16, 1):(16, 1, 0)]> : tensor<4x16x1xf32>, !lazy.buffer<64xf32>
}


// -----

// An op with no vector form (C division, which guards its divisor per
// element) is computed lane by lane from its vector operands, and its
// results gathered back into a vector.
// CHECK-LABEL: func.func @divide(
// CHECK: %[[B:.+]] = vector.load %arg2[%{{.+}}] : {{.+}}, vector<8xi32>
// CHECK: vector.extract %[[B]][0] : i32 from vector<8xi32>
// CHECK: arith.divsi
// CHECK: vector.extract %[[B]][7] : i32 from vector<8xi32>
// CHECK: arith.divsi
// CHECK: %[[Q:.+]] = vector.from_elements {{.+}} : vector<8xi32>
// CHECK: arith.addi %{{.+}}, %[[Q]] : vector<8xi32>
lazy.kernel @divide(%out0: !lazy.buffer<16xsi32>, %in0: !lazy.buffer<8xsi32>, %in1: !lazy.buffer<8xsi32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 8>, #lazy.opt<lanes, 1, 8>]} {
  %0 = lazy.load %in0 as <[(2, 8, 4):(4, 0, 1)]> : !lazy.buffer<8xsi32> -> tensor<2x8x4xsi32>
  %1 = lazy.load %in1 as <[(2, 8, 4):(0, 1, 0)]> : !lazy.buffer<8xsi32> -> tensor<2x8x4xsi32>
  %2 = lazy.idiv %0, %1 : tensor<2x8x4xsi32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<2x8x4xsi32> -> tensor<2x8x1xsi32>
  lazy.store %3, %out0 as <[(2, 8, 1):(8, 1, 0)]> : tensor<2x8x1xsi32>, !lazy.buffer<16xsi32>
}

// -----

// Bools are bytes in memory but bits in a vector: a bool load is read
// lane by lane even where it is contiguous; a const view masked along the
// lanes is a select between two splats.
// CHECK-LABEL: func.func @bools(
// CHECK-COUNT-4: memref.load %arg2[{{.+}}] : memref<4xi1
// CHECK: %[[M:.+]] = vector.from_elements {{.+}} : vector<4xi1>
// CHECK: %[[X:.+]] = vector.load %arg1[%{{.+}}] : {{.+}}, vector<4xf32>
// CHECK: %[[ONE:.+]] = arith.constant dense<1.000000e+00> : vector<4xf32>
// CHECK: %[[C:.+]] = arith.select %{{.+}}, %[[ONE]], %{{.+}} : vector<4xi1>, vector<4xf32>
// CHECK: arith.select %[[M]], %[[X]], %[[C]] : vector<4xi1>, vector<4xf32>
lazy.kernel @bools(%out0: !lazy.buffer<8xf32>, %in0: !lazy.buffer<16xf32>, %in1: !lazy.buffer<4xi1>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<lanes, 1, 4>]} {
  %0 = lazy.load %in1 as <[(2, 4, 2):(0, 1, 0)]> : !lazy.buffer<4xi1> -> tensor<2x4x2xi1>
  %1 = lazy.load %in0 as <[(2, 4, 2):(8, 1, 4)]> : !lazy.buffer<16xf32> -> tensor<2x4x2xf32>
  %2 = lazy.const 1.000000e+00 : tensor<f32>
  %3 = lazy.view %2 as <[(2, 4, 2):(0, 0, 0) mask [(0, 2), (0, 2), (0, 2)]]> : tensor<f32> -> tensor<2x4x2xf32>
  %4 = lazy.where %0, %1, %3 : tensor<2x4x2xi1>, tensor<2x4x2xf32>
  %5 = lazy.reduce_sum %4 axes [2] : tensor<2x4x2xf32> -> tensor<2x4x1xf32>
  lazy.store %5, %out0 as <[(2, 4, 1):(4, 1, 0)]> : tensor<2x4x1xf32>, !lazy.buffer<8xf32>
}

// -----

// A load with no affine form (heads merged back) whose lanes are one
// aligned run along the reduce axis (the dot-product plan's lanes): lane
// 0's index through both views (division and remainder, unsigned over the
// loops' ranges), then one
// vector.load of the run. The sum is long (64 elements, one that may
// reorder), so its products and additions may contract into fused
// multiply-adds (@conv1d's 3-element sum does not).
// CHECK-LABEL: func.func @merged_heads(
// CHECK: scf.for {{.+}} iter_args({{.+}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK: arith.remui
// CHECK: %[[ROW:.+]] = vector.load %arg1[%{{.+}}] : {{.+}}, vector<8xf32>
// CHECK: %[[W:.+]] = vector.load %arg2[%{{.+}}] : {{.+}}, vector<8xf32>
// CHECK: %[[P:.+]] = arith.mulf %[[ROW]], %[[W]] fastmath<contract> : vector<8xf32>
// CHECK: arith.addf %{{.+}}, %[[P]] fastmath<contract> : vector<8xf32>
// CHECK-NOT: vector.from_elements
// CHECK: scf.yield
lazy.kernel @merged_heads(%out0: !lazy.buffer<256xf32>, %in0: !lazy.buffer<1024xf32>, %in1: !lazy.buffer<1024xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 2, 4>, #lazy.opt<upcast, 1, 2>, #lazy.opt<unroll, 3, 8>]} {
  %0 = lazy.load %in0 as <[(2, 8, 2, 32):(512, 32, 256, 1), (2, 8, 16, 64):(512, 64, 0, 1)]> : !lazy.buffer<1024xf32> -> tensor<2x8x16x64xf32>
  %1 = lazy.load %in1 as <[(2, 8, 16, 64):(0, 0, 64, 1)]> : !lazy.buffer<1024xf32> -> tensor<2x8x16x64xf32>
  %2 = lazy.mul %0, %1 : tensor<2x8x16x64xf32>
  %3 = lazy.reduce_sum %2 axes [3] : tensor<2x8x16x64xf32> -> tensor<2x8x16x1xf32>
  lazy.store %3, %out0 as <[(2, 8, 16, 1):(128, 16, 1, 0)]> : tensor<2x8x16x1xf32>, !lazy.buffer<256xf32>
}

// -----

// Rule 3: a load strided along the only upcast output axis (attention's
// Q @ K^T, whose 16-element sums are too short to reorder, so no split
// accumulators) still gets lanes there: the accumulators and arithmetic
// are vectors, %in1 is read lane by lane and gathered, %in0 broadcast.
// CHECK-LABEL: func.func @strided_lanes(
// CHECK: scf.for {{.+}} iter_args({{.+}}) -> (vector<4xf32>, vector<4xf32>)
// CHECK: %[[Q:.+]] = memref.load %arg1
// CHECK-COUNT-4: memref.load %arg2
// CHECK: %[[K:.+]] = vector.from_elements {{.+}} : vector<4xf32>
// CHECK: %[[QV:.+]] = vector.broadcast %[[Q]] : f32 to vector<4xf32>
// CHECK: arith.mulf %[[QV]], %[[K]] : vector<4xf32>
// CHECK-COUNT-2: vector.store {{.+}} vector<4xf32>
lazy.kernel @strided_lanes(%out0: !lazy.buffer<32xf32>, %in0: !lazy.buffer<64xf32>, %in1: !lazy.buffer<128xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<upcast, 0, 2>, #lazy.opt<unroll, 2, 4>, #lazy.opt<lanes, 1, 4>]} {
  %0 = lazy.load %in0 as <[(4, 8, 16):(16, 0, 1)]> : !lazy.buffer<64xf32> -> tensor<4x8x16xf32>
  %1 = lazy.load %in1 as <[(4, 8, 16):(0, 16, 1)]> : !lazy.buffer<128xf32> -> tensor<4x8x16xf32>
  %2 = lazy.mul %0, %1 : tensor<4x8x16xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<4x8x16xf32> -> tensor<4x8x1xf32>
  lazy.store %3, %out0 as <[(4, 8, 1):(8, 1, 0)]> : tensor<4x8x1xf32>, !lazy.buffer<32xf32>
}

// -----

// A matmul tile (space (8, 64, 128), axis 2 reduced; lanes on axis 1): %in1
// moves a row (256 bytes) per reduce step, a new cache line every step, so
// each of its vector loads is preceded by a prefetch 8 steps (8 rows, 512
// elements) ahead, clamped into the buffer; %in0, broadcast along the
// lanes, and the contiguous output are not prefetched.
// CHECK-LABEL: func.func @mm_prefetch(
// CHECK: scf.for
// CHECK: %[[AT:.+]] = arith.addi %{{.+}}, %c512 : index
// CHECK: %[[LOW:.+]] = arith.minsi %[[AT]], %c8191 : index
// CHECK: %[[CLAMPED:.+]] = arith.maxsi %[[LOW]], %c0{{.*}} : index
// CHECK: memref.prefetch %arg2[%[[CLAMPED]]], read, locality<3>, data
// CHECK: vector.load %arg2
// CHECK-NOT: memref.prefetch %arg1
// CHECK: scf.yield
lazy.kernel @mm_prefetch(%out0: !lazy.buffer<512xf32>, %in0: !lazy.buffer<1024xf32>, %in1: !lazy.buffer<8192xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 16>, #lazy.opt<upcast, 0, 2>, #lazy.opt<lanes, 1, 16>]} {
  %0 = lazy.load %in0 as <[(8, 64, 128):(128, 0, 1)]> : !lazy.buffer<1024xf32> -> tensor<8x64x128xf32>
  %1 = lazy.load %in1 as <[(8, 64, 128):(0, 1, 64)]> : !lazy.buffer<8192xf32> -> tensor<8x64x128xf32>
  %2 = lazy.mul %0, %1 : tensor<8x64x128xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x64x128xf32> -> tensor<8x64x1xf32>
  lazy.store %3, %out0 as <[(8, 64, 1):(64, 1, 0)]> : tensor<8x64x1xf32>, !lazy.buffer<512xf32>
}

// -----

// Split accumulators with lanes on an output axis (KernelFacts.h): the
// window's unroll by 2 splits the 64-element sum of a tile of 2 vectors
// into 4 vector partials, added pairwise after the loops; a tile of 8
// vectors (kLatencyAccumulators) already hides the FMA latency and keeps 8,
// where a split would spill.
// CHECK-LABEL: func.func @narrow_tile(
// CHECK: scf.for {{.+}} iter_args({{[^)]+}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// CHECK: scf.for
// CHECK: arith.addf %{{.+}}#0, %{{.+}}#1 : vector<4xf32>
// CHECK: arith.addf %{{.+}}#2, %{{.+}}#3 : vector<4xf32>
lazy.kernel @narrow_tile(%out0: !lazy.buffer<32xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<upcast, 0, 2>, #lazy.opt<unroll, 3, 2>, #lazy.opt<lanes, 1, 4>]} {
  %0 = lazy.load %in0 as <[(8, 4, 32, 2):(0, 1, 4, 128)]> : !lazy.buffer<256xf32> -> tensor<8x4x32x2xf32>
  %1 = lazy.load %in1 as <[(8, 4, 32, 2):(64, 0, 2, 1)]> : !lazy.buffer<512xf32> -> tensor<8x4x32x2xf32>
  %2 = lazy.mul %0, %1 : tensor<8x4x32x2xf32>
  %3 = lazy.reduce_sum %2 axes [2, 3] : tensor<8x4x32x2xf32> -> tensor<8x4x1x1xf32>
  lazy.store %3, %out0 as <[(8, 4, 1, 1):(4, 1, 0, 0)]> : tensor<8x4x1x1xf32>, !lazy.buffer<32xf32>
}

// -----

// The same kernel with 8 rows: 8 vector accumulators, no partials.
// CHECK-LABEL: func.func @wide_tile(
// CHECK: scf.for {{.+}} -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// CHECK-NOT: arith.addf %{{.+}}#0, %{{.+}}#1
// CHECK: return
lazy.kernel @wide_tile(%out0: !lazy.buffer<32xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<upcast, 0, 8>, #lazy.opt<unroll, 3, 2>, #lazy.opt<lanes, 1, 4>]} {
  %0 = lazy.load %in0 as <[(8, 4, 32, 2):(0, 1, 4, 128)]> : !lazy.buffer<256xf32> -> tensor<8x4x32x2xf32>
  %1 = lazy.load %in1 as <[(8, 4, 32, 2):(64, 0, 2, 1)]> : !lazy.buffer<512xf32> -> tensor<8x4x32x2xf32>
  %2 = lazy.mul %0, %1 : tensor<8x4x32x2xf32>
  %3 = lazy.reduce_sum %2 axes [2, 3] : tensor<8x4x32x2xf32> -> tensor<8x4x1x1xf32>
  lazy.store %3, %out0 as <[(8, 4, 1, 1):(4, 1, 0, 0)]> : tensor<8x4x1x1xf32>, !lazy.buffer<32xf32>
}

// -----

// The same padded convolution over 64 positions, 4 tiles of 16 lanes
// (InteriorTiles.cpp): each tile first tests its largest corner against
// each mask condition (p = x + k >= 1 at its first lane and k = 0, and
// p < 65 at its last lane and k = 2); the tiles inside both read the input
// with plain vector loads, the two at the ends with masked ones. @conv1d's
// single tile of 16 lanes is never inside and is emitted once.
// CHECK-LABEL: func.func @conv1d_interior(
// CHECK: scf.for %[[X:.+]] = %c0 to %c64 step %c16 {
// CHECK: %[[LAST:.+]] = arith.addi %[[X]], %c15 : index
// CHECK: %[[NEG:.+]] = arith.muli %[[X]], %c-1 : index
// CHECK: arith.cmpi slt
// CHECK: %[[HI:.+]] = arith.addi %c-65{{.*}}, %[[LAST]] : index
// CHECK: arith.addi %[[HI]], %c2{{.*}} : index
// CHECK: %[[BOTH:.+]] = arith.andi %{{.+}}, %{{.+}} : i1
// CHECK: scf.if %[[BOTH]] {
// CHECK-NOT: vector.maskedload
// CHECK-COUNT-3: vector.load %arg1
// CHECK-NOT: vector.maskedload
// CHECK: } else {
// CHECK-COUNT-3: vector.maskedload %arg1
lazy.kernel @conv1d_interior(%out0: !lazy.buffer<256xf32>, %in0: !lazy.buffer<64xf32>, %in1: !lazy.buffer<12xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 16>, #lazy.opt<upcast, 0, 2>, #lazy.opt<unroll, 2, 3>, #lazy.opt<lanes, 1, 16>]} {
  %0 = lazy.load %in0 as <[(66):(1) offset -1 mask [(1, 65)], (4, 64, 3):(0, 1, 1)]> : !lazy.buffer<64xf32> -> tensor<4x64x3xf32>
  %1 = lazy.load %in1 as <[(4, 64, 3):(3, 0, 1)]> : !lazy.buffer<12xf32> -> tensor<4x64x3xf32>
  %2 = lazy.mul %0, %1 : tensor<4x64x3xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<4x64x3xf32> -> tensor<4x64x1xf32>
  lazy.store %3, %out0 as <[(4, 64, 1):(64, 1, 0)]> : tensor<4x64x1xf32>, !lazy.buffer<256xf32>
}
