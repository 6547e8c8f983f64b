// RUN: lazy-opt %s --lazy-optimize-kernels="target=gpu shared-memory=false" --split-input-file | FileCheck %s
// RUN: lazy-opt %s --lazy-optimize-kernels="target=gpu gpu-min-tiles=1 shared-memory=false" --split-input-file | FileCheck %s --check-prefix=ALL
// RUN: lazy-opt %s --lazy-optimize-kernels=target=gpu --split-input-file | FileCheck %s --check-prefix=G4
// RUN: lazy-opt %s --lazy-optimize-kernels="target=gpu gpu-min-tiles=1" --split-input-file | FileCheck %s --check-prefix=G4ALL
// RUN: lazy-opt %s --lazy-optimize-kernels="target=gpu tensor-cores=mma-sync" --split-input-file | FileCheck %s --check-prefix=TC
// RUN: lazy-opt %s --lazy-optimize-kernels="target=gpu tensor-cores=mfma" --split-input-file | FileCheck %s --check-prefix=AMD
// One kernel per GPU rule of lazy-optimize-kernels (target=gpu: 128-bit
// vectors, a thread per register tile). By default a reduce kernel needs
// 16384 tiles; gpu-min-tiles=1 plans every one that fits (ALL). G4 (shared
// memory for matrix products) is on by default; the CHECK and ALL runs turn
// it off to show the register tiles of G2, the G4 and G4ALL runs keep it.

// G2: a matmul (space (512, 512, 512), axis 2 reduced): the vector axis 1
// takes one 128-bit vector (4 f32 lanes), the row axis 0 four rows: a 4x4
// tile, 16384 of them; the reduce axis is unrolled by 4, in index order.
// No cache tile (rule 3 is the CPU's).
// Rule G4 takes the same matmul, a float product of two operands, A
// varying along axis 0, B along axis 1: blocks of 16x16 threads, each a
// 4x4 tile (a 64x64 block tile), K staged in shared memory 16 at a time.
// G4-LABEL: lazy.kernel @mm
// G4-SAME: opts = [#lazy.opt<local, 0, 16>, #lazy.opt<local, 1, 16>, #lazy.opt<upcast, 0, 4>, #lazy.opt<upcast, 1, 4>, #lazy.opt<unroll, 2, 16>]}
// CHECK-LABEL: lazy.kernel @mm
// CHECK-SAME: opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<upcast, 0, 4>, #lazy.opt<unroll, 2, 4>, #lazy.opt<lanes, 1, 4>]}
lazy.kernel @mm(%out0: !lazy.buffer<262144xf32>, %in0: !lazy.buffer<262144xf32>, %in1: !lazy.buffer<262144xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(512, 512, 512):(512, 0, 1)]> : !lazy.buffer<262144xf32> -> tensor<512x512x512xf32>
  %1 = lazy.load %in1 as <[(512, 512, 512):(0, 1, 512)]> : !lazy.buffer<262144xf32> -> tensor<512x512x512xf32>
  %2 = lazy.mul %0, %1 : tensor<512x512x512xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<512x512x512xf32> -> tensor<512x512x1xf32>
  lazy.store %3, %out0 as <[(512, 512, 1):(512, 1, 0)]> : tensor<512x512x1xf32>, !lazy.buffer<262144xf32>
}

// -----

// G3: a small matmul has 256 tiles of 4x4, too few threads: no register
// tile; rule B's block step spreads each output over a block instead. G3
// counts G4's threads the same way.
// G4-LABEL: lazy.kernel @small
// G4-SAME: opts = [#lazy.opt<block, 0, 32>]}
// G4ALL-LABEL: lazy.kernel @small
// G4ALL-SAME: opts = [#lazy.opt<local, 0, 16>, #lazy.opt<local, 1, 16>, #lazy.opt<upcast, 0, 4>, #lazy.opt<upcast, 1, 4>, #lazy.opt<unroll, 2, 16>]}
// CHECK-LABEL: lazy.kernel @small
// CHECK-SAME: opts = [#lazy.opt<block, 0, 32>]}
// ALL-LABEL: lazy.kernel @small
// ALL-SAME: opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<upcast, 0, 4>, #lazy.opt<unroll, 2, 4>, #lazy.opt<lanes, 1, 4>]}
lazy.kernel @small(%out0: !lazy.buffer<4096xf32>, %in0: !lazy.buffer<4096xf32>, %in1: !lazy.buffer<4096xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(64, 64, 64):(64, 0, 1)]> : !lazy.buffer<4096xf32> -> tensor<64x64x64xf32>
  %1 = lazy.load %in1 as <[(64, 64, 64):(0, 1, 64)]> : !lazy.buffer<4096xf32> -> tensor<64x64x64xf32>
  %2 = lazy.mul %0, %1 : tensor<64x64x64xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<64x64x64xf32> -> tensor<64x64x1xf32>
  lazy.store %3, %out0 as <[(64, 64, 1):(64, 1, 0)]> : tensor<64x64x1xf32>, !lazy.buffer<4096xf32>
}

// -----

// G2 without a vector axis: A @ B.T reads both operands along the reduce
// axis, so no output axis is contiguous for the loads; the two output
// axes each reused by a load are upcast by 4 (a 4x4 tile of scalars, its
// lanes on the store's contiguous axis), the reduce unrolled by 4 but
// kept in index order (one accumulator per element: split accumulators
// would reorder the sum). G4 takes it too: the operands' layout only
// changes how the block stages them.
// G4-LABEL: lazy.kernel @dot
// G4-SAME: opts = [#lazy.opt<local, 0, 16>, #lazy.opt<local, 1, 16>, #lazy.opt<upcast, 0, 4>, #lazy.opt<upcast, 1, 4>, #lazy.opt<unroll, 2, 16>]}
// CHECK-LABEL: lazy.kernel @dot
// CHECK-SAME: opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<upcast, 0, 4>, #lazy.opt<unroll, 2, 4>, #lazy.opt<lanes, 1, 4>]}
lazy.kernel @dot(%out0: !lazy.buffer<262144xf32>, %in0: !lazy.buffer<131072xf32>, %in1: !lazy.buffer<131072xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(512, 512, 256):(256, 0, 1)]> : !lazy.buffer<131072xf32> -> tensor<512x512x256xf32>
  %1 = lazy.load %in1 as <[(512, 512, 256):(0, 256, 1)]> : !lazy.buffer<131072xf32> -> tensor<512x512x256xf32>
  %2 = lazy.mul %0, %1 : tensor<512x512x256xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<512x512x256xf32> -> tensor<512x512x1xf32>
  lazy.store %3, %out0 as <[(512, 512, 1):(512, 1, 0)]> : tensor<512x512x1xf32>, !lazy.buffer<262144xf32>
}

// -----

// Rule 4 on the GPU: a convolution (tinygrad's padded 3x3 kernel, space
// (1,1,8,8,8,8,3,3), axes 5-7 reduced): output columns (axis 4) take one
// vector, output channels (axis 2) four rows, the window's innermost
// axis of 3 is unrolled whole. G4 takes it too: the weight (A) varies
// along the output channels (axis 2), the input (B) along rows and
// columns (3, 4); 2 threads by 4 channels, 8 rows and 2 threads by 4
// columns make a block of 32 threads, K staged one 3x3 window of an
// input channel (9 elements) at a time.
// G4ALL-LABEL: lazy.kernel @conv
// G4ALL-SAME: opts = [#lazy.opt<local, 2, 2>, #lazy.opt<local, 3, 8>, #lazy.opt<local, 4, 2>, #lazy.opt<upcast, 2, 4>, #lazy.opt<upcast, 4, 4>]}
// ALL-LABEL: lazy.kernel @conv
// ALL-SAME: opts = [#lazy.opt<upcast, 4, 4>, #lazy.opt<upcast, 2, 4>, #lazy.opt<unroll, 7, 3>, #lazy.opt<lanes, 4, 4>]}
lazy.kernel @conv(%out0: !lazy.buffer<512xf32>, %in0: !lazy.buffer<512xf32>, %in1: !lazy.buffer<576xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(1, 1, 1, 8, 4, 10, 4, 10):(0, 0, 0, 64, 0, 8, 0, 1) offset -9 mask [(0, 1), (0, 1), (0, 1), (0, 8), (0, 4), (1, 9), (0, 4), (1, 9)], (1, 1, 8, 8, 8, 8, 3, 3):(0, 0, 0, 40, 1, 1600, 440, 11)]> : !lazy.buffer<512xf32> -> tensor<1x1x8x8x8x8x3x3xf32>
  %1 = lazy.load %in1 as <[(1, 1, 8, 8, 8, 8, 3, 3):(0, 0, 72, 0, 0, 9, 3, 1)]> : !lazy.buffer<576xf32> -> tensor<1x1x8x8x8x8x3x3xf32>
  %2 = lazy.mul %0, %1 : tensor<1x1x8x8x8x8x3x3xf32>
  %3 = lazy.reduce_sum %2 axes [5, 6, 7] : tensor<1x1x8x8x8x8x3x3xf32> -> tensor<1x1x8x8x8x1x1x1xf32>
  lazy.store %3, %out0 as <[(1, 1, 8, 8, 8, 1, 1, 1):(0, 0, 64, 8, 1, 0, 0, 0)]> : tensor<1x1x8x8x8x1x1x1xf32>, !lazy.buffer<512xf32>
}

// -----

// A row sum: no output axis with a reused load, and 4096 outputs: no
// register tile, even with gpu-min-tiles=1; rule B: a block of 256
// threads reduces each row.
// CHECK-LABEL: lazy.kernel @rowsum
// CHECK-SAME: opts = [#lazy.opt<block, 0, 256>]}
// ALL-LABEL: lazy.kernel @rowsum
// ALL-SAME: opts = [#lazy.opt<block, 0, 256>]}
lazy.kernel @rowsum(%out0: !lazy.buffer<4096xf32>, %in0: !lazy.buffer<16777216xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(4096, 4096):(4096, 1)]> : !lazy.buffer<16777216xf32> -> tensor<4096x4096xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<4096x4096xf32> -> tensor<4096x1xf32>
  lazy.store %1, %out0 as <[(4096, 1):(1, 0)]> : tensor<4096x1xf32>, !lazy.buffer<4096xf32>
}

// -----

// G1: an elementwise kernel's vector axis takes one 128-bit vector: 4
// lanes of f32, whatever its size (no minimum of tiles).
// CHECK-LABEL: lazy.kernel @axpy
// CHECK-SAME: opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<lanes, 1, 4>]}
lazy.kernel @axpy(%out0: !lazy.buffer<96xf32>, %in0: !lazy.buffer<96xf32>, %in1: !lazy.buffer<32xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(3, 32):(32, 1)]> : !lazy.buffer<96xf32> -> tensor<3x32xf32>
  %1 = lazy.load %in1 as <[(3, 32):(0, 1)]> : !lazy.buffer<32xf32> -> tensor<3x32xf32>
  %2 = lazy.add %0, %1 : tensor<3x32xf32>
  lazy.store %2, %out0 as <[(3, 32):(32, 1)]> : tensor<3x32xf32>, !lazy.buffer<96xf32>
}

// -----

// G1 with 8-byte elements: a 128-bit vector is 2 lanes.
// CHECK-LABEL: lazy.kernel @double
// CHECK-SAME: opts = [#lazy.opt<upcast, 0, 2>, #lazy.opt<lanes, 0, 2>]}
lazy.kernel @double(%out0: !lazy.buffer<64xf64>, %in0: !lazy.buffer<64xf64>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(64):(1)]> : !lazy.buffer<64xf64> -> tensor<64xf64>
  %1 = lazy.add %0, %0 : tensor<64xf64>
  lazy.store %1, %out0 as <[(64):(1)]> : tensor<64xf64>, !lazy.buffer<64xf64>
}

// -----

// An axis that 4 does not divide, and 16-bit floats (computed one by one
// in software): no register tile (rule B's block step where a reduce is
// long).
// CHECK-LABEL: lazy.kernel @odd
// CHECK-SAME: attributes {num_outputs = 1 : i64} {
// CHECK-LABEL: lazy.kernel @half
// CHECK-SAME: attributes {num_outputs = 1 : i64} {
lazy.kernel @odd(%out0: !lazy.buffer<30xf32>, %in0: !lazy.buffer<30xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(30):(1)]> : !lazy.buffer<30xf32> -> tensor<30xf32>
  %1 = lazy.add %0, %0 : tensor<30xf32>
  lazy.store %1, %out0 as <[(30):(1)]> : tensor<30xf32>, !lazy.buffer<30xf32>
}
lazy.kernel @half(%out0: !lazy.buffer<64xf16>, %in0: !lazy.buffer<64xf16>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(64):(1)]> : !lazy.buffer<64xf16> -> tensor<64xf16>
  %1 = lazy.add %0, %0 : tensor<64xf16>
  lazy.store %1, %out0 as <[(64):(1)]> : tensor<64xf16>, !lazy.buffer<64xf16>
}

// -----

// G0: tinygrad's half matmul (the product of halves cast to f32 and
// summed): with tensor-cores, `tc` on the reduce axis, the whole plan;
// without, no register tile (16-bit floats; G4 takes no cast product),
// rule B's block step. An f32
// matmul keeps its shared-memory plan.
// G4-LABEL: lazy.kernel @hmm
// G4-SAME: opts = [#lazy.opt<block, 0, 32>]}
// CHECK-LABEL: lazy.kernel @hmm
// CHECK-SAME: opts = [#lazy.opt<block, 0, 32>]}
// TC-LABEL: lazy.kernel @hmm
// TC-SAME: opts = [#lazy.opt<tc, 2, 16>, #lazy.opt<local, 0, 2>, #lazy.opt<local, 1, 2>, #lazy.opt<upcast, 0, 2>, #lazy.opt<upcast, 1, 4>, #lazy.opt<unroll, 2, 32>]}
// TC-LABEL: lazy.kernel @mm
// TC-SAME: opts = [#lazy.opt<local, 0, 16>, #lazy.opt<local, 1, 16>, #lazy.opt<upcast, 0, 4>, #lazy.opt<upcast, 1, 4>, #lazy.opt<unroll, 2, 16>]}
lazy.kernel @hmm(%out0: !lazy.buffer<262144xf16>, %in0: !lazy.buffer<262144xf16>, %in1: !lazy.buffer<262144xf16>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(512, 512, 512):(512, 0, 1)]> : !lazy.buffer<262144xf16> -> tensor<512x512x512xf16>
  %1 = lazy.load %in1 as <[(512, 512, 512):(0, 1, 512)]> : !lazy.buffer<262144xf16> -> tensor<512x512x512xf16>
  %2 = lazy.mul %0, %1 : tensor<512x512x512xf16>
  %3 = lazy.cast %2 : tensor<512x512x512xf16> -> tensor<512x512x512xf32>
  %4 = lazy.reduce_sum %3 axes [2] : tensor<512x512x512xf32> -> tensor<512x512x1xf32>
  %5 = lazy.cast %4 : tensor<512x512x1xf32> -> tensor<512x512x1xf16>
  lazy.store %5, %out0 as <[(512, 512, 1):(512, 1, 0)]> : tensor<512x512x1xf16>, !lazy.buffer<262144xf16>
}
lazy.kernel @mm(%out0: !lazy.buffer<262144xf32>, %in0: !lazy.buffer<262144xf32>, %in1: !lazy.buffer<262144xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(512, 512, 512):(512, 0, 1)]> : !lazy.buffer<262144xf32> -> tensor<512x512x512xf32>
  %1 = lazy.load %in1 as <[(512, 512, 512):(0, 1, 512)]> : !lazy.buffer<262144xf32> -> tensor<512x512x512xf32>
  %2 = lazy.mul %0, %1 : tensor<512x512x512xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<512x512x512xf32> -> tensor<512x512x1xf32>
  lazy.store %3, %out0 as <[(512, 512, 1):(512, 1, 0)]> : tensor<512x512x1xf32>, !lazy.buffer<262144xf32>
}

// -----

// G0's N: 8 columns fit mma.sync's 16x8 tile, not MFMA's or WMMA's 16x16.
// TC-LABEL: lazy.kernel @narrow_hmm
// TC-SAME: opts = [#lazy.opt<tc, 2, 16>]}
// AMD-LABEL: lazy.kernel @narrow_hmm
// AMD-SAME: attributes {num_outputs = 1 : i64} {
lazy.kernel @narrow_hmm(%out0: !lazy.buffer<512xf16>, %in0: !lazy.buffer<2048xf16>, %in1: !lazy.buffer<256xf16>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(64, 8, 32):(32, 0, 1)]> : !lazy.buffer<2048xf16> -> tensor<64x8x32xf16>
  %1 = lazy.load %in1 as <[(64, 8, 32):(0, 32, 1)]> : !lazy.buffer<256xf16> -> tensor<64x8x32xf16>
  %2 = lazy.mul %0, %1 : tensor<64x8x32xf16>
  %3 = lazy.cast %2 : tensor<64x8x32xf16> -> tensor<64x8x32xf32>
  %4 = lazy.reduce_sum %3 axes [2] : tensor<64x8x32xf32> -> tensor<64x8x1xf32>
  %5 = lazy.cast %4 : tensor<64x8x1xf32> -> tensor<64x8x1xf16>
  lazy.store %5, %out0 as <[(64, 8, 1):(8, 1, 0)]> : tensor<64x8x1xf16>, !lazy.buffer<512xf16>
}

// -----

// G4's sizes: K of 24 takes chunks of 8; M and N of 32 take 8 threads by
// 4 (a block of 64 threads); N of 48 takes 4 threads by 4 (16 by 4 on M);
// N of 36 (4 times 9) none, and keeps G2's tile.
// G4-LABEL: lazy.kernel @chunk8
// G4-SAME: opts = [#lazy.opt<local, 0, 16>, #lazy.opt<local, 1, 16>, #lazy.opt<upcast, 0, 4>, #lazy.opt<upcast, 1, 4>, #lazy.opt<unroll, 2, 8>]}
// G4ALL-LABEL: lazy.kernel @block8
// G4ALL-SAME: opts = [#lazy.opt<local, 0, 8>, #lazy.opt<local, 1, 8>, #lazy.opt<upcast, 0, 4>, #lazy.opt<upcast, 1, 4>, #lazy.opt<unroll, 2, 16>]}
// G4ALL-LABEL: lazy.kernel @narrow
// G4ALL-SAME: opts = [#lazy.opt<local, 0, 16>, #lazy.opt<local, 1, 4>, #lazy.opt<upcast, 0, 4>, #lazy.opt<upcast, 1, 4>, #lazy.opt<unroll, 2, 16>]}
// G4ALL-LABEL: lazy.kernel @odd_n
// G4ALL-SAME: opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<upcast, 0, 4>, #lazy.opt<unroll, 2, 4>, #lazy.opt<lanes, 1, 4>]}
lazy.kernel @chunk8(%out0: !lazy.buffer<262144xf32>, %in0: !lazy.buffer<12288xf32>, %in1: !lazy.buffer<12288xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(512, 512, 24):(24, 0, 1)]> : !lazy.buffer<12288xf32> -> tensor<512x512x24xf32>
  %1 = lazy.load %in1 as <[(512, 512, 24):(0, 1, 512)]> : !lazy.buffer<12288xf32> -> tensor<512x512x24xf32>
  %2 = lazy.mul %0, %1 : tensor<512x512x24xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<512x512x24xf32> -> tensor<512x512x1xf32>
  lazy.store %3, %out0 as <[(512, 512, 1):(512, 1, 0)]> : tensor<512x512x1xf32>, !lazy.buffer<262144xf32>
}
lazy.kernel @block8(%out0: !lazy.buffer<1024xf32>, %in0: !lazy.buffer<2048xf32>, %in1: !lazy.buffer<2048xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(32, 32, 64):(64, 0, 1)]> : !lazy.buffer<2048xf32> -> tensor<32x32x64xf32>
  %1 = lazy.load %in1 as <[(32, 32, 64):(0, 1, 32)]> : !lazy.buffer<2048xf32> -> tensor<32x32x64xf32>
  %2 = lazy.mul %0, %1 : tensor<32x32x64xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<32x32x64xf32> -> tensor<32x32x1xf32>
  lazy.store %3, %out0 as <[(32, 32, 1):(32, 1, 0)]> : tensor<32x32x1xf32>, !lazy.buffer<1024xf32>
}
lazy.kernel @narrow(%out0: !lazy.buffer<24576xf32>, %in0: !lazy.buffer<32768xf32>, %in1: !lazy.buffer<3072xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(512, 48, 64):(64, 0, 1)]> : !lazy.buffer<32768xf32> -> tensor<512x48x64xf32>
  %1 = lazy.load %in1 as <[(512, 48, 64):(0, 1, 48)]> : !lazy.buffer<3072xf32> -> tensor<512x48x64xf32>
  %2 = lazy.mul %0, %1 : tensor<512x48x64xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<512x48x64xf32> -> tensor<512x48x1xf32>
  lazy.store %3, %out0 as <[(512, 48, 1):(48, 1, 0)]> : tensor<512x48x1xf32>, !lazy.buffer<24576xf32>
}
lazy.kernel @odd_n(%out0: !lazy.buffer<18432xf32>, %in0: !lazy.buffer<32768xf32>, %in1: !lazy.buffer<2304xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(512, 36, 64):(64, 0, 1)]> : !lazy.buffer<32768xf32> -> tensor<512x36x64xf32>
  %1 = lazy.load %in1 as <[(512, 36, 64):(0, 1, 36)]> : !lazy.buffer<2304xf32> -> tensor<512x36x64xf32>
  %2 = lazy.mul %0, %1 : tensor<512x36x64xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<512x36x64xf32> -> tensor<512x36x1xf32>
  lazy.store %3, %out0 as <[(512, 36, 1):(36, 1, 0)]> : tensor<512x36x1xf32>, !lazy.buffer<18432xf32>
}

// -----

// G4 checks its plan as the verifier will: a window of 100 makes a chunk
// of K longer than 64, so no shared-memory plan (G2's tile instead).
// G4ALL-LABEL: lazy.kernel @wide_window
// G4ALL-NOT: #lazy.opt<local
lazy.kernel @wide_window(%out0: !lazy.buffer<4096xf32>, %in0: !lazy.buffer<12800xf32>, %in1: !lazy.buffer<12800xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(64, 8, 8, 2, 100):(200, 0, 0, 100, 1)]> : !lazy.buffer<12800xf32> -> tensor<64x8x8x2x100xf32>
  %1 = lazy.load %in1 as <[(64, 8, 8, 2, 100):(0, 1600, 200, 100, 1)]> : !lazy.buffer<12800xf32> -> tensor<64x8x8x2x100xf32>
  %2 = lazy.mul %0, %1 : tensor<64x8x8x2x100xf32>
  %3 = lazy.reduce_sum %2 axes [3, 4] : tensor<64x8x8x2x100xf32> -> tensor<64x8x8x1x1xf32>
  lazy.store %3, %out0 as <[(64, 8, 8, 1, 1):(64, 8, 1, 0, 0)]> : tensor<64x8x8x1x1xf32>, !lazy.buffer<4096xf32>
}

// -----

// Rule R: a row kernel (its max read back through an expand) runs a row
// per block; target=gpu gives its row step scalar width (the GPU lowering
// splits a row's elements across threads, not lanes).
// CHECK-LABEL: lazy.kernel @row_max
// CHECK-SAME: opts = [#lazy.opt<row, 0, 1>, #lazy.opt<block, 0, 32>]
lazy.kernel @row_max(%out0: !lazy.buffer<512xf32>, %in0: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(8, 64):(64, 1)]> : !lazy.buffer<512xf32> -> tensor<8x64xf32>
  %1 = lazy.reduce_max %0 axes [1] : tensor<8x64xf32> -> tensor<8x1xf32>
  %2 = lazy.view %1 as <[(8, 64):(1, 0)]> : tensor<8x1xf32> -> tensor<8x64xf32>
  %3 = lazy.add %0, %2 : tensor<8x64xf32>
  lazy.store %3, %out0 as <[(8, 64):(64, 1)]> : tensor<8x64xf32>, !lazy.buffer<512xf32>
}

// -----

// Rule B, the GPU mapping: a store group whose longest reduce reaches
// gpu-block-reduce-min elements gets a block step, its threads the
// reduce's elements over gpu-reduce-per-thread (4096 / 16 = 256), a power
// of two up to gpu-block-size; the elementwise group (store group 1) runs
// a thread per element and gets none.
// RUN: lazy-opt %s --lazy-optimize-kernels="target=gpu gpu-reduce-per-thread=64" --split-input-file | FileCheck %s --check-prefix=PERTHREAD
// RUN: lazy-opt %s --lazy-optimize-kernels="target=gpu gpu-block-size=128" --split-input-file | FileCheck %s --check-prefix=SMALLBLOCK
// RUN: lazy-opt %s --lazy-optimize-kernels="target=gpu gpu-block-reduce-min=8192" --split-input-file | FileCheck %s --check-prefix=LONGMIN
// RUN: lazy-opt %s --lazy-optimize-kernels=target=host --split-input-file | FileCheck %s --check-prefix=HOST
// CHECK-LABEL: lazy.kernel @two_groups
// CHECK-SAME: opts = [#lazy.opt<block, 0, 256>]}
// PERTHREAD-LABEL: lazy.kernel @two_groups
// PERTHREAD-SAME: opts = [#lazy.opt<block, 0, 64>]}
// SMALLBLOCK-LABEL: lazy.kernel @two_groups
// SMALLBLOCK-SAME: opts = [#lazy.opt<block, 0, 128>]}
// LONGMIN-LABEL: lazy.kernel @two_groups
// LONGMIN-SAME: attributes {num_outputs = 2 : i64} {
// HOST-LABEL: lazy.kernel @two_groups
// HOST-NOT: block
lazy.kernel @two_groups(%out0: !lazy.buffer<8xf32>, %out1: !lazy.buffer<70xf32>, %in0: !lazy.buffer<32768xf32>, %in1: !lazy.buffer<70xf32>) attributes {num_outputs = 2 : i64} {
  %0 = lazy.load %in0 as <[(8, 4096):(4096, 1)]> : !lazy.buffer<32768xf32> -> tensor<8x4096xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<8x4096xf32> -> tensor<8x1xf32>
  lazy.store %1, %out0 as <[(8, 1):(1, 0)]> : tensor<8x1xf32>, !lazy.buffer<8xf32>
  %2 = lazy.load %in1 as <[(70):(1)]> : !lazy.buffer<70xf32> -> tensor<70xf32>
  lazy.store %2, %out1 as <[(70):(1)]> : tensor<70xf32>, !lazy.buffer<70xf32>
}

// -----

// RUN: not lazy-opt %s --split-input-file --lazy-optimize-kernels="target=gpu gpu-block-size=100" 2>&1 | FileCheck %s --check-prefix=BADBLOCK
// BADBLOCK: error: lazy-optimize-kernels: gpu-block-size must be a power of two from 32 to 1024, not 100
// RUN: not lazy-opt %s --split-input-file --lazy-optimize-kernels="target=gpu gpu-reduce-per-thread=0" 2>&1 | FileCheck %s --check-prefix=BADPER
// BADPER: error: lazy-optimize-kernels: gpu-reduce-per-thread must be at least 1, not 0
// A forced block step is the GPU's: target=host refuses it.
// RUN: not lazy-opt %s --split-input-file --lazy-optimize-kernels="target=host force=sum_k0:block:0:64" 2>&1 | FileCheck %s --check-prefix=HOSTBLOCK
// HOSTBLOCK: error: lazy-optimize-kernels: the forced plan has tc, local, group or block steps, which only target=gpu runs
lazy.kernel @sum_k0(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<4096xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(4, 1024):(1024, 1)]> : !lazy.buffer<4096xf32> -> tensor<4x1024xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<4x1024xf32> -> tensor<4x1xf32>
  lazy.store %1, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
}
