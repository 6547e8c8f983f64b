// RUN: lazy-opt %s --lazy-optimize-kernels=target=generic --split-input-file | FileCheck %s
// RUN: lazy-opt %s --lazy-optimize-kernels="target=generic vector-bits=512" --split-input-file | FileCheck %s --check-prefix=WIDE
// RUN: lazy-opt %s --lazy-optimize-kernels="target=generic l2-bytes=16777216" --split-input-file | FileCheck %s --check-prefix=BIGL2
// RUN: lazy-opt %s --lazy-optimize-kernels="target=generic force=mm:upcast:0:2,mm:unroll:2:4,rowsum:unroll:1:8,planned:none" | FileCheck %s --check-prefix=FORCE
// RUN: lazy-opt %s --lazy-optimize-kernels="target=generic force=planned:none" --lazy-optimize-kernels=target=generic | FileCheck %s --check-prefix=AGAIN
// One kernel per rule of lazy-optimize-kernels; the generic target has
// 256-bit vectors (8 f32 lanes) and a 1 MiB L2. The force run takes the
// file as one module (force names kernels of the whole module).

// A matmul (space (256, 1024, 1024), axis 2 reduced): the vector axis is 1
// (the output and %in1 contiguous, %in0 constant), upcast by two vectors;
// the row axis is 0 (%in1 varies along axis 1 and is constant along 0),
// %in1's panel (1024 x 4 bytes per column, 4 MiB) exceeds half the L2, so
// axis 1 is tiled by the widest fitting block (128), and (rule 3b, 256-bit
// vectors) each block packs %in1, which reads axis 1 contiguously and no
// other output axis (a 512 KiB panel); the rows are then upcast by 4 (a
// tile of 8 vectors, kPackedTileVectors).
// CHECK-LABEL: lazy.kernel @mm
// CHECK-SAME: opts = [#lazy.opt<upcast, 1, 16>, #lazy.opt<upcast, 0, 4>, #lazy.opt<tile, 1, 128>, #lazy.opt<pack, 1, 128>, #lazy.opt<lanes, 1, 8>]
// 512-bit vectors: two vectors are 32 lanes, and AVX-512's 32 registers
// hold a tile of 32 accumulators: 16 rows (no pack: not measured there).
// A 16 MiB L2 holds the whole panel: no tile and no pack, 8 rows (a tile of
// 16 vectors, one per AVX2 register).
// WIDE-LABEL: lazy.kernel @mm
// WIDE-SAME: opts = [#lazy.opt<upcast, 1, 32>, #lazy.opt<upcast, 0, 16>, #lazy.opt<tile, 1, 128>, #lazy.opt<lanes, 1, 16>]
// BIGL2-LABEL: lazy.kernel @mm
// BIGL2-SAME: opts = [#lazy.opt<upcast, 1, 16>, #lazy.opt<upcast, 0, 8>, #lazy.opt<lanes, 1, 8>]}
// A forced plan replaces the heuristic's.
// FORCE-LABEL: lazy.kernel @mm
// FORCE-SAME: opts = [#lazy.opt<upcast, 0, 2>, #lazy.opt<unroll, 2, 4>]}
lazy.kernel @mm(%out0: !lazy.buffer<262144xf32>, %in0: !lazy.buffer<262144xf32>, %in1: !lazy.buffer<1048576xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(256, 1024, 1024):(1024, 0, 1)]> : !lazy.buffer<262144xf32> -> tensor<256x1024x1024xf32>
  %1 = lazy.load %in1 as <[(256, 1024, 1024):(0, 1, 1024)]> : !lazy.buffer<1048576xf32> -> tensor<256x1024x1024xf32>
  %2 = lazy.mul %0, %1 : tensor<256x1024x1024xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<256x1024x1024xf32> -> tensor<256x1024x1xf32>
  lazy.store %3, %out0 as <[(256, 1024, 1):(1024, 1, 0)]> : tensor<256x1024x1xf32>, !lazy.buffer<262144xf32>
}

// -----

// A vector axis of 8 lanes takes one vector; a row axis of 6 (not a
// multiple of 4) is upcast by 2; a small panel needs no tile.
// CHECK-LABEL: lazy.kernel @narrow
// CHECK-SAME: opts = [#lazy.opt<upcast, 1, 8>, #lazy.opt<upcast, 0, 2>, #lazy.opt<lanes, 1, 8>]}
lazy.kernel @narrow(%out0: !lazy.buffer<48xf32>, %in0: !lazy.buffer<96xf32>, %in1: !lazy.buffer<128xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(6, 8, 16):(16, 0, 1)]> : !lazy.buffer<96xf32> -> tensor<6x8x16xf32>
  %1 = lazy.load %in1 as <[(6, 8, 16):(0, 1, 8)]> : !lazy.buffer<128xf32> -> tensor<6x8x16xf32>
  %2 = lazy.mul %0, %1 : tensor<6x8x16xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<6x8x16xf32> -> tensor<6x8x1xf32>
  lazy.store %3, %out0 as <[(6, 8, 1):(8, 1, 0)]> : tensor<6x8x1xf32>, !lazy.buffer<48xf32>
}

// -----

// Five loads: a 16x4 tile would read 320 values a trip, past the 256 that
// keep LLVM's code generation quick, so the row axis takes 2.
// CHECK-LABEL: lazy.kernel @five_loads
// CHECK-SAME: opts = [#lazy.opt<upcast, 1, 16>, #lazy.opt<upcast, 0, 2>, #lazy.opt<lanes, 1, 8>]}
lazy.kernel @five_loads(%out0: !lazy.buffer<256xf32>, %in0: !lazy.buffer<512xf32>, %in1: !lazy.buffer<2048xf32>, %in2: !lazy.buffer<512xf32>, %in3: !lazy.buffer<2048xf32>, %in4: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(8, 32, 64):(64, 0, 1)]> : !lazy.buffer<512xf32> -> tensor<8x32x64xf32>
  %1 = lazy.load %in1 as <[(8, 32, 64):(0, 1, 32)]> : !lazy.buffer<2048xf32> -> tensor<8x32x64xf32>
  %2 = lazy.load %in2 as <[(8, 32, 64):(64, 0, 1)]> : !lazy.buffer<512xf32> -> tensor<8x32x64xf32>
  %3 = lazy.load %in3 as <[(8, 32, 64):(0, 1, 32)]> : !lazy.buffer<2048xf32> -> tensor<8x32x64xf32>
  %4 = lazy.load %in4 as <[(8, 32, 64):(64, 0, 1)]> : !lazy.buffer<512xf32> -> tensor<8x32x64xf32>
  %5 = lazy.mul %0, %1 : tensor<8x32x64xf32>
  %6 = lazy.mul %2, %3 : tensor<8x32x64xf32>
  %7 = lazy.add %5, %6 : tensor<8x32x64xf32>
  %8 = lazy.add %7, %4 : tensor<8x32x64xf32>
  %9 = lazy.reduce_sum %8 axes [2] : tensor<8x32x64xf32> -> tensor<8x32x1xf32>
  lazy.store %9, %out0 as <[(8, 32, 1):(32, 1, 0)]> : tensor<8x32x1xf32>, !lazy.buffer<256xf32>
}

// -----

// A vector axis that no vector divides (12 of 8 lanes) takes the largest
// power of two from 4 that divides it; the row axis takes 4 (8 does not
// divide it).
// CHECK-LABEL: lazy.kernel @odd
// CHECK-SAME: opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<upcast, 0, 4>, #lazy.opt<lanes, 1, 4>]}
lazy.kernel @odd(%out0: !lazy.buffer<48xf32>, %in0: !lazy.buffer<64xf32>, %in1: !lazy.buffer<192xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(4, 12, 16):(16, 0, 1)]> : !lazy.buffer<64xf32> -> tensor<4x12x16xf32>
  %1 = lazy.load %in1 as <[(4, 12, 16):(0, 1, 12)]> : !lazy.buffer<192xf32> -> tensor<4x12x16xf32>
  %2 = lazy.mul %0, %1 : tensor<4x12x16xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<4x12x16xf32> -> tensor<4x12x1xf32>
  lazy.store %3, %out0 as <[(4, 12, 1):(12, 1, 0)]> : tensor<4x12x1xf32>, !lazy.buffer<48xf32>
}

// -----

// A vector axis of 6 has no such divisor: rule 5b instead, a register
// tile of two reused axes (in1 constant along 0, in0 along 1) without an
// unroll, since in1 reads the reduce axis with a stride.
// CHECK-LABEL: lazy.kernel @six
// CHECK-SAME: opts = [#lazy.opt<upcast, 0, 4>, #lazy.opt<upcast, 1, 2>, #lazy.opt<lanes, 1, 2>]}
lazy.kernel @six(%out0: !lazy.buffer<24xf32>, %in0: !lazy.buffer<64xf32>, %in1: !lazy.buffer<96xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(4, 6, 16):(16, 0, 1)]> : !lazy.buffer<64xf32> -> tensor<4x6x16xf32>
  %1 = lazy.load %in1 as <[(4, 6, 16):(0, 1, 6)]> : !lazy.buffer<96xf32> -> tensor<4x6x16xf32>
  %2 = lazy.mul %0, %1 : tensor<4x6x16xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<4x6x16xf32> -> tensor<4x6x1xf32>
  lazy.store %3, %out0 as <[(4, 6, 1):(6, 1, 0)]> : tensor<4x6x1xf32>, !lazy.buffer<24xf32>
}

// -----

// A product reduce whose vector axis (axis 1, 16 elements) is one 512-bit
// vector: with 512-bit vectors its rows stop at 8 (16 rows only for rows
// two vectors wide); with 256-bit ones the axis is two vectors and the
// tile 8 rows (16 vectors).
// CHECK-LABEL: lazy.kernel @one_vector_rows
// CHECK-SAME: opts = [#lazy.opt<upcast, 1, 16>, #lazy.opt<upcast, 0, 8>, #lazy.opt<lanes, 1, 8>]}
// WIDE-LABEL: lazy.kernel @one_vector_rows
// WIDE-SAME: opts = [#lazy.opt<upcast, 1, 16>, #lazy.opt<upcast, 0, 8>, #lazy.opt<lanes, 1, 16>]}
lazy.kernel @one_vector_rows(%out0: !lazy.buffer<512xf32>, %in0: !lazy.buffer<2048xf32>, %in1: !lazy.buffer<1024xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(32, 16, 64):(64, 0, 1)]> : !lazy.buffer<2048xf32> -> tensor<32x16x64xf32>
  %1 = lazy.load %in1 as <[(32, 16, 64):(0, 1, 16)]> : !lazy.buffer<1024xf32> -> tensor<32x16x64xf32>
  %2 = lazy.mul %0, %1 : tensor<32x16x64xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<32x16x64xf32> -> tensor<32x16x1xf32>
  lazy.store %3, %out0 as <[(32, 16, 1):(16, 1, 0)]> : tensor<32x16x1xf32>, !lazy.buffer<512xf32>
}

// -----

// A 3x3 convolution, 8 channels in and out, over a zero-padded 8x8 image
// (tinygrad's two-view input; the mask only selects, the addresses are
// contiguous along the output width, axis 4). Width 8 takes one vector, the
// output channels (axis 2, constant in the image load) 8 rows, the 3-wide
// window axis is unrolled whole.
// CHECK-LABEL: lazy.kernel @conv
// CHECK-SAME: opts = [#lazy.opt<upcast, 4, 8>, #lazy.opt<upcast, 2, 8>, #lazy.opt<unroll, 7, 3>, #lazy.opt<lanes, 4, 8>]}
lazy.kernel @conv(%out0: !lazy.buffer<512xf32>, %in0: !lazy.buffer<512xf32>, %in1: !lazy.buffer<576xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(1, 1, 1, 8, 4, 10, 4, 10):(0, 0, 0, 64, 0, 8, 0, 1) offset -9 mask [(0, 1), (0, 1), (0, 1), (0, 8), (0, 4), (1, 9), (0, 4), (1, 9)], (1, 1, 8, 8, 8, 8, 3, 3):(0, 0, 0, 40, 1, 1600, 440, 11)]> : !lazy.buffer<512xf32> -> tensor<1x1x8x8x8x8x3x3xf32>
  %1 = lazy.load %in1 as <[(1, 1, 8, 8, 8, 8, 3, 3):(0, 0, 72, 0, 0, 9, 3, 1)]> : !lazy.buffer<576xf32> -> tensor<1x1x8x8x8x8x3x3xf32>
  %2 = lazy.mul %0, %1 : tensor<1x1x8x8x8x8x3x3xf32>
  %3 = lazy.reduce_sum %2 axes [5, 6, 7] : tensor<1x1x8x8x8x8x3x3xf32> -> tensor<1x1x8x8x8x1x1x1xf32>
  lazy.store %3, %out0 as <[(1, 1, 8, 8, 8, 1, 1, 1):(0, 0, 64, 8, 1, 0, 0, 0)]> : tensor<1x1x8x8x8x1x1x1xf32>, !lazy.buffer<512xf32>
}

// -----

// A 3x3 convolution 32 wide with 64 output channels (a ResNet block's):
// with 512-bit vectors the width is two vectors and 16 rows would fit the
// registers, but with the window unrolled a trip would compute 32 x 16 x 3
// elements, past the 512 a plan may have: 4 rows (8 would be 768).
// WIDE-LABEL: lazy.kernel @wide_conv
// WIDE-SAME: opts = [#lazy.opt<upcast, 4, 32>, #lazy.opt<upcast, 2, 4>, #lazy.opt<unroll, 7, 3>, #lazy.opt<lanes, 4, 16>]}
lazy.kernel @wide_conv(%out0: !lazy.buffer<65536xf32>, %in0: !lazy.buffer<65536xf32>, %in1: !lazy.buffer<36864xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(1, 1, 1, 64, 4, 34, 4, 34):(0, 0, 0, 1024, 0, 32, 0, 1) offset -33 mask [(0, 1), (0, 1), (0, 1), (0, 64), (0, 4), (1, 33), (0, 4), (1, 33)], (1, 1, 64, 32, 32, 64, 3, 3):(0, 0, 0, 136, 1, 18496, 4760, 35)]> : !lazy.buffer<65536xf32> -> tensor<1x1x64x32x32x64x3x3xf32>
  %1 = lazy.load %in1 as <[(1, 1, 64, 32, 32, 64, 3, 3):(0, 0, 576, 0, 0, 9, 3, 1)]> : !lazy.buffer<36864xf32> -> tensor<1x1x64x32x32x64x3x3xf32>
  %2 = lazy.mul %0, %1 : tensor<1x1x64x32x32x64x3x3xf32>
  %3 = lazy.reduce_sum %2 axes [5, 6, 7] : tensor<1x1x64x32x32x64x3x3xf32> -> tensor<1x1x64x32x32x1x1x1xf32>
  lazy.store %3, %out0 as <[(1, 1, 64, 32, 32, 1, 1, 1):(0, 0, 1024, 32, 1, 0, 0, 0)]> : tensor<1x1x64x32x32x1x1x1xf32>, !lazy.buffer<65536xf32>
}

// -----

// A row sum: its one output axis reads the input 64 elements apart, so no
// axis is a vector axis: no plan (LLVM vectorizes the reduce loop).
// CHECK-LABEL: lazy.kernel @rowsum
// CHECK-NOT: opts
// FORCE-LABEL: lazy.kernel @rowsum
// FORCE-SAME: opts = [#lazy.opt<unroll, 1, 8>]}
lazy.kernel @rowsum(%out0: !lazy.buffer<64xf32>, %in0: !lazy.buffer<4096xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(64, 64):(64, 1)]> : !lazy.buffer<4096xf32> -> tensor<64x64xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<64x64xf32> -> tensor<64x1xf32>
  lazy.store %1, %out0 as <[(64, 1):(1, 0)]> : tensor<64x1xf32>, !lazy.buffer<64xf32>
}

// -----

// A vector axis along which every load is contiguous reuses nothing
// across lanes (a column sum of a matrix, read row by row): no plan.
// CHECK-LABEL: lazy.kernel @colsum
// CHECK-NOT: opts
lazy.kernel @colsum(%out0: !lazy.buffer<64xf32>, %in0: !lazy.buffer<4096xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(64, 64):(1, 64)]> : !lazy.buffer<4096xf32> -> tensor<64x64xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<64x64xf32> -> tensor<64x1xf32>
  lazy.store %1, %out0 as <[(64, 1):(1, 0)]> : tensor<64x1xf32>, !lazy.buffer<64xf32>
}

// -----

// An elementwise kernel gets its vector axis alone (rule 6): two vectors.
// CHECK-LABEL: lazy.kernel @ew
// CHECK-SAME: opts = [#lazy.opt<upcast, 0, 16>, #lazy.opt<lanes, 0, 8>]}
lazy.kernel @ew(%out0: !lazy.buffer<64xf32>, %in0: !lazy.buffer<64xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(64):(1)]> : !lazy.buffer<64xf32> -> tensor<64xf32>
  %1 = lazy.mul %0, %0 : tensor<64xf32>
  lazy.store %1, %out0 as <[(64):(1)]> : tensor<64xf32>, !lazy.buffer<64xf32>
}

// -----

// ... but not one of 16-bit floats, nor one whose load is strided along
// its only axis.
// CHECK-LABEL: lazy.kernel @ew_half
// CHECK-NOT: opts
// CHECK-LABEL: lazy.kernel @ew_strided
// CHECK-NOT: opts
// CHECK: lazy.load
lazy.kernel @ew_half(%out0: !lazy.buffer<64xf16>, %in0: !lazy.buffer<64xf16>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(64):(1)]> : !lazy.buffer<64xf16> -> tensor<64xf16>
  %1 = lazy.mul %0, %0 : tensor<64xf16>
  lazy.store %1, %out0 as <[(64):(1)]> : tensor<64xf16>, !lazy.buffer<64xf16>
}
lazy.kernel @ew_strided(%out0: !lazy.buffer<64xf32>, %in0: !lazy.buffer<128xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(64):(2)]> : !lazy.buffer<128xf32> -> tensor<64xf32>
  lazy.store %0, %out0 as <[(64):(1)]> : tensor<64xf32>, !lazy.buffer<64xf32>
}

// -----

// Attention's output projection: %in1 is the heads merged back (a
// reshaped transpose, two views), which has no stride along the reduce
// axis 3 but reads it in aligned runs of 32 (one head's row), so a vector
// of 8 lanes is one load (ShapeTracker::contiguousRuns): the dot-product
// form applies, its lanes on axis 3.
// CHECK-LABEL: lazy.kernel @merged_heads
// CHECK-SAME: opts = [#lazy.opt<upcast, 2, 4>, #lazy.opt<upcast, 1, 2>, #lazy.opt<unroll, 3, 8>]}
lazy.kernel @merged_heads(%out0: !lazy.buffer<256xf32>, %in0: !lazy.buffer<1024xf32>, %in1: !lazy.buffer<1024xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(2, 8, 2, 32):(512, 32, 256, 1), (2, 8, 16, 64):(512, 64, 0, 1)]> : !lazy.buffer<1024xf32> -> tensor<2x8x16x64xf32>
  %1 = lazy.load %in1 as <[(2, 8, 16, 64):(0, 0, 64, 1)]> : !lazy.buffer<1024xf32> -> tensor<2x8x16x64xf32>
  %2 = lazy.mul %0, %1 : tensor<2x8x16x64xf32>
  %3 = lazy.reduce_sum %2 axes [3] : tensor<2x8x16x64xf32> -> tensor<2x8x16x1xf32>
  lazy.store %3, %out0 as <[(2, 8, 16, 1):(128, 16, 1, 0)]> : tensor<2x8x16x1xf32>, !lazy.buffer<256xf32>
}

// -----

// Heads of 4 elements: a run of 8 lanes would cross two heads, so the
// merged load is not read in runs: no lanes on the reduce axis, only rule
// 5b's register tile.
// CHECK-LABEL: lazy.kernel @narrow_heads
// CHECK-SAME: opts = [#lazy.opt<upcast, 2, 4>, #lazy.opt<upcast, 1, 2>, #lazy.opt<lanes, 2, 4>]}
// CHECK: lazy.load
lazy.kernel @narrow_heads(%out0: !lazy.buffer<256xf32>, %in0: !lazy.buffer<1024xf32>, %in1: !lazy.buffer<1024xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(2, 8, 16, 4):(512, 4, 32, 1), (2, 8, 16, 64):(512, 64, 0, 1)]> : !lazy.buffer<1024xf32> -> tensor<2x8x16x64xf32>
  %1 = lazy.load %in1 as <[(2, 8, 16, 64):(0, 0, 64, 1)]> : !lazy.buffer<1024xf32> -> tensor<2x8x16x64xf32>
  %2 = lazy.mul %0, %1 : tensor<2x8x16x64xf32>
  %3 = lazy.reduce_sum %2 axes [3] : tensor<2x8x16x64xf32> -> tensor<2x8x16x1xf32>
  lazy.store %3, %out0 as <[(2, 8, 16, 1):(128, 16, 1, 0)]> : tensor<2x8x16x1xf32>, !lazy.buffer<256xf32>
}

// -----

// A plan already on a kernel is kept; force with no steps leaves an empty
// plan, which a later run of the pass keeps (lazy-to-cpu runs it again).
// CHECK-LABEL: lazy.kernel @planned
// CHECK-SAME: opts = [#lazy.opt<upcast, 0, 2>]}
// FORCE-LABEL: lazy.kernel @planned
// FORCE-SAME: opts = []}
// AGAIN-LABEL: lazy.kernel @planned
// AGAIN-SAME: opts = []}
lazy.kernel @planned(%out0: !lazy.buffer<64xf32>, %in0: !lazy.buffer<64xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 0, 2>]} {
  %0 = lazy.load %in0 as <[(64):(1)]> : !lazy.buffer<64xf32> -> tensor<64xf32>
  lazy.store %0, %out0 as <[(64):(1)]> : tensor<64xf32>, !lazy.buffer<64xf32>
}

// -----

// A convolution's weight gradient (beautiful_mnist's 5x5 conv, reduced
// over batch and position): its vector axis (kx, 5) has no lanes, so rule
// 5 takes it. The columns go on the input channels (axis 5, where the
// output gradient is reused), the rows on the output channels (axis 2,
// where the input is): an outer product, not the window's two axes.
// CHECK-LABEL: lazy.kernel @weight_gradient
// CHECK-SAME: opts = [#lazy.opt<upcast, 5, 4>, #lazy.opt<upcast, 2, 2>, #lazy.opt<unroll, 4, 4>]}
// WIDE-LABEL: lazy.kernel @weight_gradient
// WIDE-SAME: opts = [#lazy.opt<upcast, 5, 4>, #lazy.opt<upcast, 2, 4>, #lazy.opt<unroll, 4, 4>]}
lazy.kernel @weight_gradient(%out0: !lazy.buffer<25600xf32>, %in0: !lazy.buffer<147456xf32>, %in1: !lazy.buffer<102400xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(8, 1, 32, 20, 20, 32, 5, 5):(18432, 0, 0, 24, 1, 576, 24, 1)]> : !lazy.buffer<147456xf32> -> tensor<8x1x32x20x20x32x5x5xf32>
  %1 = lazy.load %in1 as <[(8, 1, 32, 20, 20, 32, 5, 5):(12800, 0, 400, 20, 1, 0, 0, 0)]> : !lazy.buffer<102400xf32> -> tensor<8x1x32x20x20x32x5x5xf32>
  %2 = lazy.mul %0, %1 : tensor<8x1x32x20x20x32x5x5xf32>
  %3 = lazy.reduce_sum %2 axes [0, 3, 4] : tensor<8x1x32x20x20x32x5x5xf32> -> tensor<1x1x32x1x1x32x5x5xf32>
  lazy.store %3, %out0 as <[(1, 1, 32, 1, 1, 32, 5, 5):(0, 0, 800, 0, 0, 25, 5, 1)]> : tensor<1x1x32x1x1x32x5x5xf32>, !lazy.buffer<25600xf32>
}

// -----

// A convolution's input gradient before col2im: a sum over output
// channels, which both loads read with a stride (800 and 400). Rule 5b:
// the register tile of positions (axis 5, the weights reused) by input
// channels (axis 2, the gradient reused), no unroll.
// CHECK-LABEL: lazy.kernel @input_gradient
// CHECK-SAME: opts = [#lazy.opt<upcast, 5, 4>, #lazy.opt<upcast, 2, 2>]}
// WIDE-LABEL: lazy.kernel @input_gradient
// WIDE-SAME: opts = [#lazy.opt<upcast, 5, 4>, #lazy.opt<upcast, 2, 4>]}
lazy.kernel @input_gradient(%out0: !lazy.buffer<2560000xf32>, %in0: !lazy.buffer<25600xf32>, %in1: !lazy.buffer<102400xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(8, 1, 32, 32, 20, 20, 5, 5):(0, 0, 25, 800, 0, 0, 5, 1)]> : !lazy.buffer<25600xf32> -> tensor<8x1x32x32x20x20x5x5xf32>
  %1 = lazy.load %in1 as <[(8, 1, 32, 32, 20, 20, 5, 5):(12800, 0, 0, 400, 20, 1, 0, 0)]> : !lazy.buffer<102400xf32> -> tensor<8x1x32x32x20x20x5x5xf32>
  %2 = lazy.mul %0, %1 : tensor<8x1x32x32x20x20x5x5xf32>
  %3 = lazy.reduce_sum %2 axes [3] : tensor<8x1x32x32x20x20x5x5xf32> -> tensor<8x1x32x1x20x20x5x5xf32>
  lazy.store %3, %out0 as <[(8, 1, 32, 1, 20, 20, 5, 5):(320000, 0, 10000, 0, 500, 25, 5, 1)]> : tensor<8x1x32x1x20x20x5x5xf32>, !lazy.buffer<2560000xf32>
}

// -----

// A col2im (tinygrad's for a 4x4 input and a 2x2 kernel): no lanes and
// no register tile (its one load varies along every axis), so its window's
// inner axis (3) is unrolled whole: the positions become constants, and
// the divisions of its three views fold (convert-lazy-to-loops-affine).
// CHECK-LABEL: lazy.kernel @col2im
// CHECK-SAME: opts = [#lazy.opt<unroll, 6, 3>]}
lazy.kernel @col2im(%out0: !lazy.buffer<16xf32>, %in0: !lazy.buffer<36xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(1, 1, 2, 5, 2, 5):(0, 0, 2, 12, 1, 4) mask [(0, 1), (0, 1), (0, 2), (0, 3), (0, 2), (0, 3)], (1, 1, 12, 12):(0, 0, 10, 1) mask [(0, 1), (0, 1), (0, 10), (0, 10)], (1, 1, 1, 1, 3, 4, 3, 4):(0, 0, 0, 0, 48, 12, 4, 1)]> : !lazy.buffer<36xf32> -> tensor<1x1x1x1x3x4x3x4xf32>
  %1 = lazy.reduce_sum %0 axes [4, 6] : tensor<1x1x1x1x3x4x3x4xf32> -> tensor<1x1x1x1x1x4x1x4xf32>
  lazy.store %1, %out0 as <[(1, 1, 1, 1, 1, 4, 1, 4):(0, 0, 0, 0, 0, 4, 0, 1)]> : tensor<1x1x1x1x1x4x1x4xf32>, !lazy.buffer<16xf32>
}

// -----

// Rule R, per store group: the copy (group 0) reads no row value and gets
// no row step; the rows of group 1 (a max read back through an expand) get
// one, with vectors of the target's width along their one inner axis.
// CHECK-LABEL: lazy.kernel @copy_then_rows
// CHECK-SAME: opts = [#lazy.opt<row, 1, 32>]
// WIDE-LABEL: lazy.kernel @copy_then_rows
// WIDE-SAME: opts = [#lazy.opt<row, 1, 64>]
lazy.kernel @copy_then_rows(%out0: !lazy.buffer<4xf32>, %out1: !lazy.buffer<512xf32>, %in0: !lazy.buffer<512xf32>) attributes {num_outputs = 2 : i64} {
  %0 = lazy.load %in0 as <[(4):(1)]> : !lazy.buffer<512xf32> -> tensor<4xf32>
  lazy.store %0, %out0 as <[(4):(1)]> : tensor<4xf32>, !lazy.buffer<4xf32>
  %1 = lazy.load %in0 as <[(8, 64):(64, 1)]> : !lazy.buffer<512xf32> -> tensor<8x64xf32>
  %2 = lazy.reduce_max %1 axes [1] : tensor<8x64xf32> -> tensor<8x1xf32>
  %3 = lazy.view %2 as <[(8, 64):(1, 0)]> : tensor<8x1xf32> -> tensor<8x64xf32>
  %4 = lazy.add %1, %3 : tensor<8x64xf32>
  lazy.store %4, %out1 as <[(8, 64):(64, 1)]> : tensor<8x64xf32>, !lazy.buffer<512xf32>
}
