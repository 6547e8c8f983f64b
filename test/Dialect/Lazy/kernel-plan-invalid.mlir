// RUN: lazy-opt %s -split-input-file -verify-diagnostics
// One failing plan per rule of readPlan (KernelSpace.h). The kernel is a
// matmul: iteration space (8, 16, 32), axis 2 reduced.

// expected-error @+1 {{'lazy.kernel' op has an invalid plan: step 0 (upcast) names axis 3, outside the kernel's 3 axes}}
lazy.kernel @axis_out_of_range(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 3, 2>]} {
  %0 = lazy.load %in0 as <[(8, 16, 32):(32, 0, 1)]> : !lazy.buffer<256xf32> -> tensor<8x16x32xf32>
  %1 = lazy.load %in1 as <[(8, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf32> -> tensor<8x16x32xf32>
  %2 = lazy.mul %0, %1 : tensor<8x16x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
  lazy.store %3, %out0 as <[(8, 16, 1):(16, 1, 0)]> : tensor<8x16x1xf32>, !lazy.buffer<128xf32>
}

// -----

// expected-error @+1 {{step 0 (upcast) takes 3 elements of axis 1, which has 16 (the amount must divide it)}}
lazy.kernel @not_dividing(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 3>]} {
  %0 = lazy.load %in0 as <[(8, 16, 32):(32, 0, 1)]> : !lazy.buffer<256xf32> -> tensor<8x16x32xf32>
  %1 = lazy.load %in1 as <[(8, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf32> -> tensor<8x16x32xf32>
  %2 = lazy.mul %0, %1 : tensor<8x16x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
  lazy.store %3, %out0 as <[(8, 16, 1):(16, 1, 0)]> : tensor<8x16x1xf32>, !lazy.buffer<128xf32>
}

// -----

// expected-error @+1 {{step 0 (upcast) takes 0 elements of axis 1}}
lazy.kernel @zero_amount(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 0>]} {
  %0 = lazy.load %in0 as <[(8, 16, 32):(32, 0, 1)]> : !lazy.buffer<256xf32> -> tensor<8x16x32xf32>
  %1 = lazy.load %in1 as <[(8, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf32> -> tensor<8x16x32xf32>
  %2 = lazy.mul %0, %1 : tensor<8x16x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
  lazy.store %3, %out0 as <[(8, 16, 1):(16, 1, 0)]> : tensor<8x16x1xf32>, !lazy.buffer<128xf32>
}

// -----

// expected-error @+1 {{step 0 (upcast) needs an output axis; axis 2 is a reduce axis}}
lazy.kernel @upcast_reduce_axis(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 2, 4>]} {
  %0 = lazy.load %in0 as <[(8, 16, 32):(32, 0, 1)]> : !lazy.buffer<256xf32> -> tensor<8x16x32xf32>
  %1 = lazy.load %in1 as <[(8, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf32> -> tensor<8x16x32xf32>
  %2 = lazy.mul %0, %1 : tensor<8x16x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
  lazy.store %3, %out0 as <[(8, 16, 1):(16, 1, 0)]> : tensor<8x16x1xf32>, !lazy.buffer<128xf32>
}

// -----

// expected-error @+1 {{step 1 (unroll) needs a reduce axis; axis 0 is an output axis}}
lazy.kernel @unroll_output_axis(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<unroll, 2, 4>, #lazy.opt<unroll, 0, 2>]} {
  %0 = lazy.load %in0 as <[(8, 16, 32):(32, 0, 1)]> : !lazy.buffer<256xf32> -> tensor<8x16x32xf32>
  %1 = lazy.load %in1 as <[(8, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf32> -> tensor<8x16x32xf32>
  %2 = lazy.mul %0, %1 : tensor<8x16x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
  lazy.store %3, %out0 as <[(8, 16, 1):(16, 1, 0)]> : tensor<8x16x1xf32>, !lazy.buffer<128xf32>
}

// -----

// expected-error @+1 {{step 1 repeats upcast on axis 1}}
lazy.kernel @repeated(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<upcast, 1, 2>]} {
  %0 = lazy.load %in0 as <[(8, 16, 32):(32, 0, 1)]> : !lazy.buffer<256xf32> -> tensor<8x16x32xf32>
  %1 = lazy.load %in1 as <[(8, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf32> -> tensor<8x16x32xf32>
  %2 = lazy.mul %0, %1 : tensor<8x16x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
  lazy.store %3, %out0 as <[(8, 16, 1):(16, 1, 0)]> : tensor<8x16x1xf32>, !lazy.buffer<128xf32>
}

// -----

// expected-error @+1 {{the tile of axis 1 (4) is not a multiple of its upcast (8)}}
lazy.kernel @tile_below_upcast(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<tile, 1, 4>, #lazy.opt<upcast, 1, 8>]} {
  %0 = lazy.load %in0 as <[(8, 16, 32):(32, 0, 1)]> : !lazy.buffer<256xf32> -> tensor<8x16x32xf32>
  %1 = lazy.load %in1 as <[(8, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf32> -> tensor<8x16x32xf32>
  %2 = lazy.mul %0, %1 : tensor<8x16x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
  lazy.store %3, %out0 as <[(8, 16, 1):(16, 1, 0)]> : tensor<8x16x1xf32>, !lazy.buffer<128xf32>
}

// -----

// expected-error @+1 {{the plan computes 1024 elements per loop trip; at most 512}}
lazy.kernel @too_many(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 16>, #lazy.opt<upcast, 0, 8>, #lazy.opt<unroll, 2, 8>]} {
  %0 = lazy.load %in0 as <[(8, 16, 32):(32, 0, 1)]> : !lazy.buffer<256xf32> -> tensor<8x16x32xf32>
  %1 = lazy.load %in1 as <[(8, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf32> -> tensor<8x16x32xf32>
  %2 = lazy.mul %0, %1 : tensor<8x16x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
  lazy.store %3, %out0 as <[(8, 16, 1):(16, 1, 0)]> : tensor<8x16x1xf32>, !lazy.buffer<128xf32>
}

// -----

// expected-error @+1 {{'lazy.kernel' op has a plan but no iteration space: its stores have different shapes}}
lazy.kernel @two_shapes(%out0: !lazy.buffer<4xf32>, %out1: !lazy.buffer<2xf32>, %in0: !lazy.buffer<4xf32>) attributes {num_outputs = 2 : i64, opts = [#lazy.opt<upcast, 0, 2>]} {
  %0 = lazy.load %in0 as <[(4):(1)]> : !lazy.buffer<4xf32> -> tensor<4xf32>
  lazy.store %0, %out0 as <[(4):(1)]> : tensor<4xf32>, !lazy.buffer<4xf32>
  %1 = lazy.load %in0 as <[(2):(1)]> : !lazy.buffer<4xf32> -> tensor<2xf32>
  lazy.store %1, %out1 as <[(2):(1)]> : tensor<2xf32>, !lazy.buffer<2xf32>
}

// -----

// expected-error @+1 {{has a plan but no iteration space: its reduces read different shapes or axes}}
lazy.kernel @two_reduces(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<16xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 0, 2>]} {
  %0 = lazy.load %in0 as <[(4, 4):(4, 1)]> : !lazy.buffer<16xf32> -> tensor<4x4xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  %2 = lazy.load %in0 as <[(4, 2):(4, 1)]> : !lazy.buffer<16xf32> -> tensor<4x2xf32>
  %3 = lazy.reduce_max %2 axes [1] : tensor<4x2xf32> -> tensor<4x1xf32>
  %4 = lazy.add %1, %3 : tensor<4x1xf32>
  lazy.store %4, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
}

// -----

// expected-error @+2 {{expected ::mlir::lazy::OptKind to be one of: upcast, unroll, tile, tc, local}}
// expected-error @+1 {{failed to parse Lazy_OptAttr parameter 'kind'}}
lazy.kernel @unknown_kind(%out0: !lazy.buffer<4xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<bogus, 0, 2>]} {
}

// -----

// A row kernel (it reads a value it computes through a view) has no
// iteration space: it takes only row steps.
// expected-error @+1 {{'lazy.kernel' op has a plan but no iteration space: it reads a computed value through a view}}
lazy.kernel @row_kernel_tiled(%out0: !lazy.buffer<32xf32>, %in0: !lazy.buffer<32xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 0, 2>]} {
  %0 = lazy.load %in0 as <[(4, 8):(8, 1)]> : !lazy.buffer<32xf32> -> tensor<4x8xf32>
  %1 = lazy.reduce_max %0 axes [1] : tensor<4x8xf32> -> tensor<4x1xf32>
  %2 = lazy.view %1 as <[(4, 8):(1, 0)]> : tensor<4x1xf32> -> tensor<4x8xf32>
  %3 = lazy.add %0, %2 : tensor<4x8xf32>
  lazy.store %3, %out0 as <[(4, 8):(8, 1)]> : tensor<4x8xf32>, !lazy.buffer<32xf32>
}

// -----

// expected-error @+1 {{'lazy.kernel' op has an invalid plan: step 1 is not a row or block step; a plan with one holds only row and block steps}}
lazy.kernel @row_and_upcast(%out0: !lazy.buffer<32xf32>, %in0: !lazy.buffer<32xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<row, 0, 32>, #lazy.opt<upcast, 0, 2>]} {
  %0 = lazy.load %in0 as <[(4, 8):(8, 1)]> : !lazy.buffer<32xf32> -> tensor<4x8xf32>
  %1 = lazy.reduce_max %0 axes [1] : tensor<4x8xf32> -> tensor<4x1xf32>
  %2 = lazy.view %1 as <[(4, 8):(1, 0)]> : tensor<4x1xf32> -> tensor<4x8xf32>
  %3 = lazy.add %0, %2 : tensor<4x8xf32>
  lazy.store %3, %out0 as <[(4, 8):(8, 1)]> : tensor<4x8xf32>, !lazy.buffer<32xf32>
}

// -----

// expected-error @+1 {{step 0 (row) names store group 1; the kernel has 1}}
lazy.kernel @row_group_out_of_range(%out0: !lazy.buffer<32xf32>, %in0: !lazy.buffer<32xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<row, 1, 32>]} {
  %0 = lazy.load %in0 as <[(4, 8):(8, 1)]> : !lazy.buffer<32xf32> -> tensor<4x8xf32>
  %1 = lazy.reduce_max %0 axes [1] : tensor<4x8xf32> -> tensor<4x1xf32>
  %2 = lazy.view %1 as <[(4, 8):(1, 0)]> : tensor<4x1xf32> -> tensor<4x8xf32>
  %3 = lazy.add %0, %2 : tensor<4x8xf32>
  lazy.store %3, %out0 as <[(4, 8):(8, 1)]> : tensor<4x8xf32>, !lazy.buffer<32xf32>
}

// -----

// expected-error @+1 {{step 1 (row) names store group 0 again}}
lazy.kernel @row_twice(%out0: !lazy.buffer<32xf32>, %in0: !lazy.buffer<32xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<row, 0, 32>, #lazy.opt<row, 0, 16>]} {
  %0 = lazy.load %in0 as <[(4, 8):(8, 1)]> : !lazy.buffer<32xf32> -> tensor<4x8xf32>
  %1 = lazy.reduce_max %0 axes [1] : tensor<4x8xf32> -> tensor<4x1xf32>
  %2 = lazy.view %1 as <[(4, 8):(1, 0)]> : tensor<4x1xf32> -> tensor<4x8xf32>
  %3 = lazy.add %0, %2 : tensor<4x8xf32>
  lazy.store %3, %out0 as <[(4, 8):(8, 1)]> : tensor<4x8xf32>, !lazy.buffer<32xf32>
}

// -----

// expected-error @+1 {{step 0 (row) has vectors of 12 bytes; 1 (scalar) or a power of two}}
lazy.kernel @row_odd_bytes(%out0: !lazy.buffer<32xf32>, %in0: !lazy.buffer<32xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<row, 0, 12>]} {
  %0 = lazy.load %in0 as <[(4, 8):(8, 1)]> : !lazy.buffer<32xf32> -> tensor<4x8xf32>
  %1 = lazy.reduce_max %0 axes [1] : tensor<4x8xf32> -> tensor<4x1xf32>
  %2 = lazy.view %1 as <[(4, 8):(1, 0)]> : tensor<4x1xf32> -> tensor<4x8xf32>
  %3 = lazy.add %0, %2 : tensor<4x8xf32>
  lazy.store %3, %out0 as <[(4, 8):(8, 1)]> : tensor<4x8xf32>, !lazy.buffer<32xf32>
}

// -----

// A group that reads no computed view does not split into rows.
// expected-error @+1 {{step 0 (row): store group 0 does not split into rows (it reads no computed view, or one that varies along a reduced or symbolic axis)}}
lazy.kernel @row_without_row_values(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<4xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<row, 0, 1>]} {
  %0 = lazy.load %in0 as <[(4):(1)]> : !lazy.buffer<4xf32> -> tensor<4xf32>
  lazy.store %0, %out0 as <[(4):(1)]> : tensor<4xf32>, !lazy.buffer<4xf32>
}

// -----

// One row value for the whole tensor: no row axis, two inner axes, so no
// vectors (1 byte, scalar, is the only width).
// expected-error @+1 {{step 0 (row): vectors run along a row's one inner axis; store group 0 has 2}}
lazy.kernel @row_vectors_two_inner_axes(%out0: !lazy.buffer<32xf32>, %in0: !lazy.buffer<32xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<row, 0, 32>]} {
  %0 = lazy.load %in0 as <[(4, 8):(8, 1)]> : !lazy.buffer<32xf32> -> tensor<4x8xf32>
  %1 = lazy.reduce_sum %0 axes [0, 1] : tensor<4x8xf32> -> tensor<1x1xf32>
  %2 = lazy.view %1 as <[(4, 8):(0, 0)]> : tensor<1x1xf32> -> tensor<4x8xf32>
  %3 = lazy.add %0, %2 : tensor<4x8xf32>
  lazy.store %3, %out0 as <[(4, 8):(8, 1)]> : tensor<4x8xf32>, !lazy.buffer<32xf32>
}
lazy.kernel @row_kernel(%out0: !lazy.buffer<32xf32>, %in0: !lazy.buffer<32xf32>) attributes {num_outputs = 1 : i64, opts = []} {
  %0 = lazy.load %in0 as <[(4, 8):(8, 1)]> : !lazy.buffer<32xf32> -> tensor<4x8xf32>
  %1 = lazy.reduce_max %0 axes [1] : tensor<4x8xf32> -> tensor<4x1xf32>
  %2 = lazy.view %1 as <[(4, 8):(1, 0)]> : tensor<4x1xf32> -> tensor<4x8xf32>
  %3 = lazy.add %0, %2 : tensor<4x8xf32>
  lazy.store %3, %out0 as <[(4, 8):(8, 1)]> : tensor<4x8xf32>, !lazy.buffer<32xf32>
}

// -----

// A tensor-core plan needs the sum of a product of two 16-bit floats: this
// kernel multiplies f32.
// expected-error @+1 {{step 0 (tc): a tensor-core plan needs the sum of a product of two f16 or two bf16 operands, cast to f32}}
lazy.kernel @tc_f32(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<tc, 2, 16>]} {
  %0 = lazy.load %in0 as <[(8, 16, 32):(32, 0, 1)]> : !lazy.buffer<256xf32> -> tensor<8x16x32xf32>
  %1 = lazy.load %in1 as <[(8, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf32> -> tensor<8x16x32xf32>
  %2 = lazy.mul %0, %1 : tensor<8x16x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
  lazy.store %3, %out0 as <[(8, 16, 1):(16, 1, 0)]> : tensor<8x16x1xf32>, !lazy.buffer<128xf32>
}

// -----

// Beside `tc` a plan takes local and upcast on M and N, unroll on K.
// expected-error @+1 {{step 0 (tile) on axis 1: a tensor-core plan takes only local and upcast on its M and N axes (0, 1) and unroll on K (2)}}
lazy.kernel @tc_and_tile(%out0: !lazy.buffer<256xf16>, %in0: !lazy.buffer<512xf16>, %in1: !lazy.buffer<512xf16>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<tile, 1, 8>, #lazy.opt<tc, 2, 16>]} {
  %0 = lazy.load %in0 as <[(16, 16, 32):(32, 0, 1)]> : !lazy.buffer<512xf16> -> tensor<16x16x32xf16>
  %1 = lazy.load %in1 as <[(16, 16, 32):(0, 32, 1)]> : !lazy.buffer<512xf16> -> tensor<16x16x32xf16>
  %2 = lazy.mul %0, %1 : tensor<16x16x32xf16>
  %3 = lazy.cast %2 : tensor<16x16x32xf16> -> tensor<16x16x32xf32>
  %4 = lazy.reduce_sum %3 axes [2] : tensor<16x16x32xf32> -> tensor<16x16x1xf32>
  %5 = lazy.cast %4 : tensor<16x16x1xf32> -> tensor<16x16x1xf16>
  lazy.store %5, %out0 as <[(16, 16, 1):(16, 1, 0)]> : tensor<16x16x1xf16>, !lazy.buffer<256xf16>
}

// -----

// expected-error @+1 {{step 0 (tc) takes 16 elements of its axis a trip, not 8}}
lazy.kernel @tc_k8(%out0: !lazy.buffer<256xf16>, %in0: !lazy.buffer<512xf16>, %in1: !lazy.buffer<512xf16>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<tc, 2, 8>]} {
  %0 = lazy.load %in0 as <[(16, 16, 32):(32, 0, 1)]> : !lazy.buffer<512xf16> -> tensor<16x16x32xf16>
  %1 = lazy.load %in1 as <[(16, 16, 32):(0, 32, 1)]> : !lazy.buffer<512xf16> -> tensor<16x16x32xf16>
  %2 = lazy.mul %0, %1 : tensor<16x16x32xf16>
  %3 = lazy.cast %2 : tensor<16x16x32xf16> -> tensor<16x16x32xf32>
  %4 = lazy.reduce_sum %3 axes [2] : tensor<16x16x32xf32> -> tensor<16x16x1xf32>
  %5 = lazy.cast %4 : tensor<16x16x1xf32> -> tensor<16x16x1xf16>
  lazy.store %5, %out0 as <[(16, 16, 1):(16, 1, 0)]> : tensor<16x16x1xf16>, !lazy.buffer<256xf16>
}

// -----

// M (12) is no multiple of 16.
// expected-error @+1 {{step 0 (tc): a tensor-core plan needs M a multiple of 16, N of 8 and K of 16; they are 12, 16 and 32}}
lazy.kernel @tc_rows(%out0: !lazy.buffer<192xf16>, %in0: !lazy.buffer<384xf16>, %in1: !lazy.buffer<512xf16>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<tc, 2, 16>]} {
  %0 = lazy.load %in0 as <[(12, 16, 32):(32, 0, 1)]> : !lazy.buffer<384xf16> -> tensor<12x16x32xf16>
  %1 = lazy.load %in1 as <[(12, 16, 32):(0, 32, 1)]> : !lazy.buffer<512xf16> -> tensor<12x16x32xf16>
  %2 = lazy.mul %0, %1 : tensor<12x16x32xf16>
  %3 = lazy.cast %2 : tensor<12x16x32xf16> -> tensor<12x16x32xf32>
  %4 = lazy.reduce_sum %3 axes [2] : tensor<12x16x32xf32> -> tensor<12x16x1xf32>
  %5 = lazy.cast %4 : tensor<12x16x1xf32> -> tensor<12x16x1xf16>
  lazy.store %5, %out0 as <[(12, 16, 1):(16, 1, 0)]> : tensor<12x16x1xf16>, !lazy.buffer<192xf16>
}

// -----

// Threads go only along the operands' own axes: the batch axis 0 (both
// operands vary along it) takes none.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: a local plan spreads only the operands' own axes over threads (A's 1; B's 2); axis 0 has local 2}}
lazy.kernel @local_shared_axis(%out0: !lazy.buffer<8192xf32>, %in0: !lazy.buffer<4096xf32>, %in1: !lazy.buffer<4096xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<local, 0, 2>, #lazy.opt<local, 1, 16>, #lazy.opt<local, 2, 16>]} {
  %0 = lazy.load %in0 as <[(2, 64, 64, 32):(2048, 32, 0, 1)]> : !lazy.buffer<4096xf32> -> tensor<2x64x64x32xf32>
  %1 = lazy.load %in1 as <[(2, 64, 64, 32):(2048, 0, 1, 64)]> : !lazy.buffer<4096xf32> -> tensor<2x64x64x32xf32>
  %2 = lazy.mul %0, %1 : tensor<2x64x64x32xf32>
  %3 = lazy.reduce_sum %2 axes [3] : tensor<2x64x64x32xf32> -> tensor<2x64x64x1xf32>
  lazy.store %3, %out0 as <[(2, 64, 64, 1):(4096, 64, 1, 0)]> : tensor<2x64x64x1xf32>, !lazy.buffer<8192xf32>
}

// -----

// A convolution-like product: A (axis 0) against B (axes 1 and 2) over
// the reduce axes 3 and 4. One upcast axis per operand.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: a local plan upcasts at most one own axis of each operand (A's 0; B's 1, 2)}}
lazy.kernel @local_two_upcasts(%out0: !lazy.buffer<4096xf32>, %in0: !lazy.buffer<576xf32>, %in1: !lazy.buffer<576xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<local, 0, 8>, #lazy.opt<local, 2, 4>, #lazy.opt<upcast, 1, 2>, #lazy.opt<upcast, 2, 2>]} {
  %0 = lazy.load %in0 as <[(64, 8, 8, 3, 3):(9, 0, 0, 3, 1)]> : !lazy.buffer<576xf32> -> tensor<64x8x8x3x3xf32>
  %1 = lazy.load %in1 as <[(64, 8, 8, 3, 3):(0, 8, 1, 8, 1)]> : !lazy.buffer<576xf32> -> tensor<64x8x8x3x3xf32>
  %2 = lazy.mul %0, %1 : tensor<64x8x8x3x3xf32>
  %3 = lazy.reduce_sum %2 axes [3, 4] : tensor<64x8x8x3x3xf32> -> tensor<64x8x8x1x1xf32>
  lazy.store %3, %out0 as <[(64, 8, 8, 1, 1):(64, 8, 1, 0, 0)]> : tensor<64x8x8x1x1xf32>, !lazy.buffer<4096xf32>
}

// -----

// Its chunk of K is whole windows of the inner reduce axes: only the
// outermost (3) unrolls.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: a local plan unrolls only the outermost reduce axis (3): its chunk of K is whole windows of the others; axis 4 has unroll 3}}
lazy.kernel @local_inner_unroll(%out0: !lazy.buffer<4096xf32>, %in0: !lazy.buffer<576xf32>, %in1: !lazy.buffer<576xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<local, 0, 4>, #lazy.opt<local, 2, 8>, #lazy.opt<unroll, 4, 3>]} {
  %0 = lazy.load %in0 as <[(64, 8, 8, 3, 3):(9, 0, 0, 3, 1)]> : !lazy.buffer<576xf32> -> tensor<64x8x8x3x3xf32>
  %1 = lazy.load %in1 as <[(64, 8, 8, 3, 3):(0, 8, 1, 8, 1)]> : !lazy.buffer<576xf32> -> tensor<64x8x8x3x3xf32>
  %2 = lazy.mul %0, %1 : tensor<64x8x8x3x3xf32>
  %3 = lazy.reduce_sum %2 axes [3, 4] : tensor<64x8x8x3x3xf32> -> tensor<64x8x8x1x1xf32>
  lazy.store %3, %out0 as <[(64, 8, 8, 1, 1):(64, 8, 1, 0, 0)]> : tensor<64x8x8x1x1xf32>, !lazy.buffer<4096xf32>
}

// -----

// A block tile (local times upcast) divides its axis.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: the block of axis 1 (local 8 times upcast 4) does not divide its 48 elements}}
lazy.kernel @local_block(%out0: !lazy.buffer<3072xf32>, %in0: !lazy.buffer<2048xf32>, %in1: !lazy.buffer<1536xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<local, 0, 8>, #lazy.opt<local, 1, 8>, #lazy.opt<upcast, 0, 4>, #lazy.opt<upcast, 1, 4>, #lazy.opt<unroll, 2, 16>]} {
  %0 = lazy.load %in0 as <[(64, 48, 32):(32, 0, 1)]> : !lazy.buffer<2048xf32> -> tensor<64x48x32xf32>
  %1 = lazy.load %in1 as <[(64, 48, 32):(0, 1, 48)]> : !lazy.buffer<1536xf32> -> tensor<64x48x32xf32>
  %2 = lazy.mul %0, %1 : tensor<64x48x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<64x48x32xf32> -> tensor<64x48x1xf32>
  lazy.store %3, %out0 as <[(64, 48, 1):(48, 1, 0)]> : tensor<64x48x1xf32>, !lazy.buffer<3072xf32>
}

// -----

// A block has 32 to 1024 threads.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: a local plan's block has 16 threads; it needs 32 to 1024}}
lazy.kernel @local_few(%out0: !lazy.buffer<4096xf32>, %in0: !lazy.buffer<2048xf32>, %in1: !lazy.buffer<2048xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<local, 0, 4>, #lazy.opt<local, 1, 4>]} {
  %0 = lazy.load %in0 as <[(64, 64, 32):(32, 0, 1)]> : !lazy.buffer<2048xf32> -> tensor<64x64x32xf32>
  %1 = lazy.load %in1 as <[(64, 64, 32):(0, 1, 64)]> : !lazy.buffer<2048xf32> -> tensor<64x64x32xf32>
  %2 = lazy.mul %0, %1 : tensor<64x64x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<64x64x32xf32> -> tensor<64x64x1xf32>
  lazy.store %3, %out0 as <[(64, 64, 1):(64, 1, 0)]> : tensor<64x64x1xf32>, !lazy.buffer<4096xf32>
}

// -----

// expected-error @+1 {{'lazy.kernel' op has an invalid plan: a local plan's block has 2048 threads; it needs 32 to 1024}}
lazy.kernel @local_many(%out0: !lazy.buffer<4096xf32>, %in0: !lazy.buffer<2048xf32>, %in1: !lazy.buffer<2048xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<local, 0, 64>, #lazy.opt<local, 1, 32>]} {
  %0 = lazy.load %in0 as <[(64, 64, 32):(32, 0, 1)]> : !lazy.buffer<2048xf32> -> tensor<64x64x32xf32>
  %1 = lazy.load %in1 as <[(64, 64, 32):(0, 1, 64)]> : !lazy.buffer<2048xf32> -> tensor<64x64x32xf32>
  %2 = lazy.mul %0, %1 : tensor<64x64x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<64x64x32xf32> -> tensor<64x64x1xf32>
  lazy.store %3, %out0 as <[(64, 64, 1):(64, 1, 0)]> : tensor<64x64x1xf32>, !lazy.buffer<4096xf32>
}

// -----

// The staged chunks fit in 48 KiB of shared memory: 128 + 128 elements
// of 64 rows of K in f32 are 64 KiB.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: a local plan stages 65536 bytes of operands per block; at most 49152}}
lazy.kernel @local_shared(%out0: !lazy.buffer<16384xf32>, %in0: !lazy.buffer<8192xf32>, %in1: !lazy.buffer<8192xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<local, 0, 16>, #lazy.opt<local, 1, 16>, #lazy.opt<upcast, 0, 8>, #lazy.opt<upcast, 1, 8>, #lazy.opt<unroll, 2, 64>]} {
  %0 = lazy.load %in0 as <[(128, 128, 64):(64, 0, 1)]> : !lazy.buffer<8192xf32> -> tensor<128x128x64xf32>
  %1 = lazy.load %in1 as <[(128, 128, 64):(0, 1, 128)]> : !lazy.buffer<8192xf32> -> tensor<128x128x64xf32>
  %2 = lazy.mul %0, %1 : tensor<128x128x64xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<128x128x64xf32> -> tensor<128x128x1xf32>
  lazy.store %3, %out0 as <[(128, 128, 1):(128, 1, 0)]> : tensor<128x128x1xf32>, !lazy.buffer<16384xf32>
}

// -----

// A local plan takes no cache tile.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: a local plan takes no tile step (axis 1)}}
lazy.kernel @local_tile(%out0: !lazy.buffer<4096xf32>, %in0: !lazy.buffer<2048xf32>, %in1: !lazy.buffer<2048xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<local, 0, 16>, #lazy.opt<local, 1, 16>, #lazy.opt<tile, 1, 16>]} {
  %0 = lazy.load %in0 as <[(64, 64, 32):(32, 0, 1)]> : !lazy.buffer<2048xf32> -> tensor<64x64x32xf32>
  %1 = lazy.load %in1 as <[(64, 64, 32):(0, 1, 64)]> : !lazy.buffer<2048xf32> -> tensor<64x64x32xf32>
  %2 = lazy.mul %0, %1 : tensor<64x64x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<64x64x32xf32> -> tensor<64x64x1xf32>
  lazy.store %3, %out0 as <[(64, 64, 1):(64, 1, 0)]> : tensor<64x64x1xf32>, !lazy.buffer<4096xf32>
}

// -----

// The product is plain: a cast product of halves is for tensor cores.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: a local plan needs the sum of a plain product of two f32 or two f64 operands}}
lazy.kernel @local_cast(%out0: !lazy.buffer<4096xf32>, %in0: !lazy.buffer<2048xf16>, %in1: !lazy.buffer<2048xf16>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<local, 0, 16>, #lazy.opt<local, 1, 16>]} {
  %0 = lazy.load %in0 as <[(64, 64, 32):(32, 0, 1)]> : !lazy.buffer<2048xf16> -> tensor<64x64x32xf16>
  %1 = lazy.load %in1 as <[(64, 64, 32):(0, 1, 64)]> : !lazy.buffer<2048xf16> -> tensor<64x64x32xf16>
  %2 = lazy.mul %0, %1 : tensor<64x64x32xf16>
  %3 = lazy.cast %2 : tensor<64x64x32xf16> -> tensor<64x64x32xf32>
  %4 = lazy.reduce_sum %3 axes [2] : tensor<64x64x32xf32> -> tensor<64x64x1xf32>
  lazy.store %4, %out0 as <[(64, 64, 1):(64, 1, 0)]> : tensor<64x64x1xf32>, !lazy.buffer<4096xf32>
}

// -----

// A local plan needs a product reduce: a row sum has none.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: a local plan needs the sum of a product of two operands of one type}}
lazy.kernel @local_rowsum(%out0: !lazy.buffer<64xf32>, %in0: !lazy.buffer<4096xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<local, 0, 32>]} {
  %0 = lazy.load %in0 as <[(64, 64):(64, 1)]> : !lazy.buffer<4096xf32> -> tensor<64x64xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<64x64xf32> -> tensor<64x1xf32>
  lazy.store %1, %out0 as <[(64, 1):(1, 0)]> : tensor<64x1xf32>, !lazy.buffer<64xf32>
}

// -----

// Only M and N take register tiles: the batch axis 0 stays one element
// per block tile.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: a local plan upcasts only the operands' own axes (A's 1; B's 2); axis 0 has upcast 2}}
lazy.kernel @local_batch(%out0: !lazy.buffer<8192xf32>, %in0: !lazy.buffer<4096xf32>, %in1: !lazy.buffer<4096xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<local, 1, 16>, #lazy.opt<local, 2, 16>, #lazy.opt<upcast, 0, 2>]} {
  %0 = lazy.load %in0 as <[(2, 64, 64, 32):(2048, 32, 0, 1)]> : !lazy.buffer<4096xf32> -> tensor<2x64x64x32xf32>
  %1 = lazy.load %in1 as <[(2, 64, 64, 32):(2048, 0, 1, 64)]> : !lazy.buffer<4096xf32> -> tensor<2x64x64x32xf32>
  %2 = lazy.mul %0, %1 : tensor<2x64x64x32xf32>
  %3 = lazy.reduce_sum %2 axes [3] : tensor<2x64x64x32xf32> -> tensor<2x64x64x1xf32>
  lazy.store %3, %out0 as <[(2, 64, 64, 1):(4096, 64, 1, 0)]> : tensor<2x64x64x1xf32>, !lazy.buffer<8192xf32>
}

// -----

// `local` is for output axes.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: step 0 (local) needs an output axis; axis 2 is a reduce axis}}
lazy.kernel @local_reduce_axis(%out0: !lazy.buffer<4096xf32>, %in0: !lazy.buffer<2048xf32>, %in1: !lazy.buffer<2048xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<local, 2, 16>]} {
  %0 = lazy.load %in0 as <[(64, 64, 32):(32, 0, 1)]> : !lazy.buffer<2048xf32> -> tensor<64x64x32xf32>
  %1 = lazy.load %in1 as <[(64, 64, 32):(0, 1, 64)]> : !lazy.buffer<2048xf32> -> tensor<64x64x32xf32>
  %2 = lazy.mul %0, %1 : tensor<64x64x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<64x64x32xf32> -> tensor<64x64x1xf32>
  lazy.store %3, %out0 as <[(64, 64, 1):(64, 1, 0)]> : tensor<64x64x1xf32>, !lazy.buffer<4096xf32>
}

// -----

// A group is a whole plan.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: step 1 (group) is a whole plan: it takes no other step}}
lazy.kernel @group_and_upcast(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<group, 2, 64>]} {
  %0 = lazy.load %in0 as <[(8, 16, 32):(32, 0, 1)]> : !lazy.buffer<256xf32> -> tensor<8x16x32xf32>
  %1 = lazy.load %in1 as <[(8, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf32> -> tensor<8x16x32xf32>
  %2 = lazy.mul %0, %1 : tensor<8x16x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
  lazy.store %3, %out0 as <[(8, 16, 1):(16, 1, 0)]> : tensor<8x16x1xf32>, !lazy.buffer<128xf32>
}

// -----

// A group is a power of two of threads, 32 to 1024 (it need not divide
// the axis: its threads stride over the reduced elements).
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: step 0 (group) takes a power of two of threads from 32 to 1024, not 48}}
lazy.kernel @group_48(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<group, 2, 48>]} {
  %0 = lazy.load %in0 as <[(8, 16, 32):(32, 0, 1)]> : !lazy.buffer<256xf32> -> tensor<8x16x32xf32>
  %1 = lazy.load %in1 as <[(8, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf32> -> tensor<8x16x32xf32>
  %2 = lazy.mul %0, %1 : tensor<8x16x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
  lazy.store %3, %out0 as <[(8, 16, 1):(16, 1, 0)]> : tensor<8x16x1xf32>, !lazy.buffer<128xf32>
}

// -----

// expected-error @+1 {{'lazy.kernel' op has an invalid plan: step 0 (group) takes a power of two of threads from 32 to 1024, not 2048}}
lazy.kernel @group_2048(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<group, 2, 2048>]} {
  %0 = lazy.load %in0 as <[(8, 16, 32):(32, 0, 1)]> : !lazy.buffer<256xf32> -> tensor<8x16x32xf32>
  %1 = lazy.load %in1 as <[(8, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf32> -> tensor<8x16x32xf32>
  %2 = lazy.mul %0, %1 : tensor<8x16x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
  lazy.store %3, %out0 as <[(8, 16, 1):(16, 1, 0)]> : tensor<8x16x1xf32>, !lazy.buffer<128xf32>
}

// -----

// A group is on a reduce axis.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: step 0 (group) needs a reduce axis; axis 1 is an output axis}}
lazy.kernel @group_output(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<group, 1, 64>]} {
  %0 = lazy.load %in0 as <[(8, 16, 32):(32, 0, 1)]> : !lazy.buffer<256xf32> -> tensor<8x16x32xf32>
  %1 = lazy.load %in1 as <[(8, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf32> -> tensor<8x16x32xf32>
  %2 = lazy.mul %0, %1 : tensor<8x16x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
  lazy.store %3, %out0 as <[(8, 16, 1):(16, 1, 0)]> : tensor<8x16x1xf32>, !lazy.buffer<128xf32>
}

// -----

// A group names the innermost reduce axis (the block splits them all).
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: step 0 (group) names axis 1; the innermost reduce axis is 2}}
lazy.kernel @group_outer_axis(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<256xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<group, 1, 32>]} {
  %0 = lazy.load %in0 as <[(4, 8, 8):(64, 8, 1)]> : !lazy.buffer<256xf32> -> tensor<4x8x8xf32>
  %1 = lazy.reduce_sum %0 axes [1, 2] : tensor<4x8x8xf32> -> tensor<4x1x1xf32>
  lazy.store %1, %out0 as <[(4, 1, 1):(1, 0, 0)]> : tensor<4x1x1xf32>, !lazy.buffer<4xf32>
}

// -----

// A tensor-core plan takes K in chunks of whole instructions.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: a tensor-core plan takes K in chunks of a multiple of 16, not 8}}
lazy.kernel @tc_chunk8(%out0: !lazy.buffer<4096xf32>, %in0: !lazy.buffer<4096xf16>, %in1: !lazy.buffer<4096xf16>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<tc, 2, 16>, #lazy.opt<unroll, 2, 8>]} {
  %0 = lazy.load %in0 as <[(64, 64, 64):(64, 0, 1)]> : !lazy.buffer<4096xf16> -> tensor<64x64x64xf16>
  %1 = lazy.load %in1 as <[(64, 64, 64):(0, 1, 64)]> : !lazy.buffer<4096xf16> -> tensor<64x64x64xf16>
  %2 = lazy.mul %0, %1 : tensor<64x64x64xf16>
  %3 = lazy.cast %2 : tensor<64x64x64xf16> -> tensor<64x64x64xf32>
  %4 = lazy.reduce_sum %3 axes [2] : tensor<64x64x64xf32> -> tensor<64x64x1xf32>
  lazy.store %4, %out0 as <[(64, 64, 1):(64, 1, 0)]> : tensor<64x64x1xf32>, !lazy.buffer<4096xf32>
}

// -----

// Its block tile (warps times tiles of 16 x 8 or more) divides M x N.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: a tensor-core plan's block tile (64 x 8 or more) does not divide M x N (96 x 64)}}
lazy.kernel @tc_block(%out0: !lazy.buffer<6144xf32>, %in0: !lazy.buffer<3072xf16>, %in1: !lazy.buffer<2048xf16>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<tc, 2, 16>, #lazy.opt<local, 0, 2>, #lazy.opt<upcast, 0, 2>]} {
  %0 = lazy.load %in0 as <[(96, 64, 32):(32, 0, 1)]> : !lazy.buffer<3072xf16> -> tensor<96x64x32xf16>
  %1 = lazy.load %in1 as <[(96, 64, 32):(0, 1, 64)]> : !lazy.buffer<2048xf16> -> tensor<96x64x32xf16>
  %2 = lazy.mul %0, %1 : tensor<96x64x32xf16>
  %3 = lazy.cast %2 : tensor<96x64x32xf16> -> tensor<96x64x32xf32>
  %4 = lazy.reduce_sum %3 axes [2] : tensor<96x64x32xf32> -> tensor<96x64x1xf32>
  lazy.store %4, %out0 as <[(96, 64, 1):(64, 1, 0)]> : tensor<96x64x1xf32>, !lazy.buffer<6144xf32>
}

// -----

// At most 16 warps in a block.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: a tensor-core plan's block has 32 warps; at most 16}}
lazy.kernel @tc_warps(%out0: !lazy.buffer<262144xf32>, %in0: !lazy.buffer<16384xf16>, %in1: !lazy.buffer<16384xf16>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<tc, 2, 16>, #lazy.opt<local, 0, 8>, #lazy.opt<local, 1, 4>]} {
  %0 = lazy.load %in0 as <[(512, 512, 32):(32, 0, 1)]> : !lazy.buffer<16384xf16> -> tensor<512x512x32xf16>
  %1 = lazy.load %in1 as <[(512, 512, 32):(0, 1, 512)]> : !lazy.buffer<16384xf16> -> tensor<512x512x32xf16>
  %2 = lazy.mul %0, %1 : tensor<512x512x32xf16>
  %3 = lazy.cast %2 : tensor<512x512x32xf16> -> tensor<512x512x32xf32>
  %4 = lazy.reduce_sum %3 axes [2] : tensor<512x512x32xf32> -> tensor<512x512x1xf32>
  lazy.store %4, %out0 as <[(512, 512, 1):(512, 1, 0)]> : tensor<512x512x1xf32>, !lazy.buffer<262144xf32>
}

// -----

// Its staged operands fit in 48 KiB: (256 + 256) rows of 64 + 8 halves.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: a tensor-core plan stages 73728 bytes of operands per block; at most 49152}}
lazy.kernel @tc_shared(%out0: !lazy.buffer<262144xf32>, %in0: !lazy.buffer<65536xf16>, %in1: !lazy.buffer<65536xf16>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<tc, 2, 16>, #lazy.opt<local, 0, 4>, #lazy.opt<local, 1, 2>, #lazy.opt<upcast, 0, 4>, #lazy.opt<upcast, 1, 8>, #lazy.opt<unroll, 2, 64>]} {
  %0 = lazy.load %in0 as <[(512, 512, 128):(128, 0, 1)]> : !lazy.buffer<65536xf16> -> tensor<512x512x128xf16>
  %1 = lazy.load %in1 as <[(512, 512, 128):(0, 1, 512)]> : !lazy.buffer<65536xf16> -> tensor<512x512x128xf16>
  %2 = lazy.mul %0, %1 : tensor<512x512x128xf16>
  %3 = lazy.cast %2 : tensor<512x512x128xf16> -> tensor<512x512x128xf32>
  %4 = lazy.reduce_sum %3 axes [2] : tensor<512x512x128xf32> -> tensor<512x512x1xf32>
  lazy.store %4, %out0 as <[(512, 512, 1):(512, 1, 0)]> : tensor<512x512x1xf32>, !lazy.buffer<262144xf32>
}

// -----

// A tensor-core plan's block tiles fit in 48 KiB even without locals: 64
// instruction tiles of M per warp stage (1024 + 16) rows of 16 + 8 halves.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: a tensor-core plan stages 49920 bytes of operands per block; at most 49152}}
lazy.kernel @tc_upcast_bytes(%out0: !lazy.buffer<8192xf32>, %in0: !lazy.buffer<16384xf16>, %in1: !lazy.buffer<128xf16>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<tc, 2, 16>, #lazy.opt<upcast, 0, 64>]} {
  %0 = lazy.load %in0 as <[(1024, 8, 16):(16, 0, 1)]> : !lazy.buffer<16384xf16> -> tensor<1024x8x16xf16>
  %1 = lazy.load %in1 as <[(1024, 8, 16):(0, 1, 8)]> : !lazy.buffer<128xf16> -> tensor<1024x8x16xf16>
  %2 = lazy.mul %0, %1 : tensor<1024x8x16xf16>
  %3 = lazy.cast %2 : tensor<1024x8x16xf16> -> tensor<1024x8x16xf32>
  %4 = lazy.reduce_sum %3 axes [2] : tensor<1024x8x16xf32> -> tensor<1024x8x1xf32>
  lazy.store %4, %out0 as <[(1024, 8, 1):(8, 1, 0)]> : tensor<1024x8x1xf32>, !lazy.buffer<8192xf32>
}

// -----

// A local plan's chunk of K is unrolled whole: a window of 100 is too long.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: a local plan's chunk of K (100 elements: the outermost reduce axis's unroll times the others' sizes) is unrolled whole; at most 64}}
lazy.kernel @local_long_chunk(%out0: !lazy.buffer<4096xf32>, %in0: !lazy.buffer<12800xf32>, %in1: !lazy.buffer<12800xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<local, 0, 16>, #lazy.opt<local, 2, 2>]} {
  %0 = lazy.load %in0 as <[(64, 8, 8, 2, 100):(200, 0, 0, 100, 1)]> : !lazy.buffer<12800xf32> -> tensor<64x8x8x2x100xf32>
  %1 = lazy.load %in1 as <[(64, 8, 8, 2, 100):(0, 1600, 200, 100, 1)]> : !lazy.buffer<12800xf32> -> tensor<64x8x8x2x100xf32>
  %2 = lazy.mul %0, %1 : tensor<64x8x8x2x100xf32>
  %3 = lazy.reduce_sum %2 axes [3, 4] : tensor<64x8x8x2x100xf32> -> tensor<64x8x8x1x1xf32>
  lazy.store %3, %out0 as <[(64, 8, 8, 1, 1):(64, 8, 1, 0, 0)]> : tensor<64x8x8x1x1xf32>, !lazy.buffer<4096xf32>
}

// -----

// A `lanes` step takes a power of two of positions.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: step 1 (lanes) takes a power of two of at least 2 positions, not 1}}
lazy.kernel @lanes_not_power_of_two(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<lanes, 1, 1>]} {
  %0 = lazy.load %in0 as <[(8, 16, 32):(32, 0, 1)]> : !lazy.buffer<256xf32> -> tensor<8x16x32xf32>
  %1 = lazy.load %in1 as <[(8, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf32> -> tensor<8x16x32xf32>
  %2 = lazy.mul %0, %1 : tensor<8x16x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
  lazy.store %3, %out0 as <[(8, 16, 1):(16, 1, 0)]> : tensor<8x16x1xf32>, !lazy.buffer<128xf32>
}

// -----

// A tile's elements are vectors along one axis.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: step 3 (lanes) is the plan's second lanes step; a tile's elements are vectors along one axis}}
lazy.kernel @lanes_twice(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<upcast, 0, 2>, #lazy.opt<lanes, 1, 4>, #lazy.opt<lanes, 0, 2>]} {
  %0 = lazy.load %in0 as <[(8, 16, 32):(32, 0, 1)]> : !lazy.buffer<256xf32> -> tensor<8x16x32xf32>
  %1 = lazy.load %in1 as <[(8, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf32> -> tensor<8x16x32xf32>
  %2 = lazy.mul %0, %1 : tensor<8x16x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
  lazy.store %3, %out0 as <[(8, 16, 1):(16, 1, 0)]> : tensor<8x16x1xf32>, !lazy.buffer<128xf32>
}

// -----

// Lanes go on an output axis.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: step 1 (lanes) needs an output axis; axis 2 is a reduce axis}}
lazy.kernel @lanes_on_reduce_axis(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<unroll, 2, 4>, #lazy.opt<lanes, 2, 4>]} {
  %0 = lazy.load %in0 as <[(8, 16, 32):(32, 0, 1)]> : !lazy.buffer<256xf32> -> tensor<8x16x32xf32>
  %1 = lazy.load %in1 as <[(8, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf32> -> tensor<8x16x32xf32>
  %2 = lazy.mul %0, %1 : tensor<8x16x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
  lazy.store %3, %out0 as <[(8, 16, 1):(16, 1, 0)]> : tensor<8x16x1xf32>, !lazy.buffer<128xf32>
}

// -----

// Lanes divide their axis's upcast: without one, there are none.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: the lanes of axis 1 (4) do not divide its upcast (1)}}
lazy.kernel @lanes_without_upcast(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<unroll, 2, 4>, #lazy.opt<lanes, 1, 4>]} {
  %0 = lazy.load %in0 as <[(8, 16, 32):(32, 0, 1)]> : !lazy.buffer<256xf32> -> tensor<8x16x32xf32>
  %1 = lazy.load %in1 as <[(8, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf32> -> tensor<8x16x32xf32>
  %2 = lazy.mul %0, %1 : tensor<8x16x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
  lazy.store %3, %out0 as <[(8, 16, 1):(16, 1, 0)]> : tensor<8x16x1xf32>, !lazy.buffer<128xf32>
}

// -----

// Of two store groups only the second reads a row value.
// expected-error @+1 {{step 0 (row): store group 0 does not split into rows}}
lazy.kernel @row_on_the_copy(%out0: !lazy.buffer<4xf32>, %out1: !lazy.buffer<512xf32>, %in0: !lazy.buffer<512xf32>) attributes {num_outputs = 2 : i64, opts = [#lazy.opt<row, 0, 32>]} {
  %0 = lazy.load %in0 as <[(4):(1)]> : !lazy.buffer<512xf32> -> tensor<4xf32>
  lazy.store %0, %out0 as <[(4):(1)]> : tensor<4xf32>, !lazy.buffer<4xf32>
  %1 = lazy.load %in0 as <[(8, 64):(64, 1)]> : !lazy.buffer<512xf32> -> tensor<8x64xf32>
  %2 = lazy.reduce_max %1 axes [1] : tensor<8x64xf32> -> tensor<8x1xf32>
  %3 = lazy.view %2 as <[(8, 64):(1, 0)]> : tensor<8x1xf32> -> tensor<8x64xf32>
  %4 = lazy.add %1, %3 : tensor<8x64xf32>
  lazy.store %4, %out1 as <[(8, 64):(64, 1)]> : tensor<8x64xf32>, !lazy.buffer<512xf32>
}

// -----

// Block steps (the GPU mapping) name store groups too: a power of two from
// 32 to 1024 threads, each group once, beside row steps only.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: step 0 (block) has 48 threads; a power of two from 32 to 1024}}
lazy.kernel @block_threads(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<4096xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<block, 0, 48>]} {
  %0 = lazy.load %in0 as <[(4, 1024):(1024, 1)]> : !lazy.buffer<4096xf32> -> tensor<4x1024xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<4x1024xf32> -> tensor<4x1xf32>
  lazy.store %1, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
}

// -----

// expected-error @+1 {{'lazy.kernel' op has an invalid plan: step 0 (block) has 2048 threads; a power of two from 32 to 1024}}
lazy.kernel @block_too_many(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<4096xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<block, 0, 2048>]} {
  %0 = lazy.load %in0 as <[(4, 1024):(1024, 1)]> : !lazy.buffer<4096xf32> -> tensor<4x1024xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<4x1024xf32> -> tensor<4x1xf32>
  lazy.store %1, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
}

// -----

// expected-error @+1 {{'lazy.kernel' op has an invalid plan: step 0 (block) names store group 1; the kernel has 1}}
lazy.kernel @block_group_out_of_range(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<4096xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<block, 1, 64>]} {
  %0 = lazy.load %in0 as <[(4, 1024):(1024, 1)]> : !lazy.buffer<4096xf32> -> tensor<4x1024xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<4x1024xf32> -> tensor<4x1xf32>
  lazy.store %1, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
}

// -----

// expected-error @+1 {{'lazy.kernel' op has an invalid plan: step 1 (block) names store group 0 again}}
lazy.kernel @block_twice(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<4096xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<block, 0, 64>, #lazy.opt<block, 0, 128>]} {
  %0 = lazy.load %in0 as <[(4, 1024):(1024, 1)]> : !lazy.buffer<4096xf32> -> tensor<4x1024xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<4x1024xf32> -> tensor<4x1xf32>
  lazy.store %1, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
}

// -----

// expected-error @+1 {{'lazy.kernel' op has an invalid plan: step 1 is not a row or block step; a plan with one holds only row and block steps}}
lazy.kernel @block_and_upcast(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<4096xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<block, 0, 64>, #lazy.opt<upcast, 0, 2>]} {
  %0 = lazy.load %in0 as <[(4, 1024):(1024, 1)]> : !lazy.buffer<4096xf32> -> tensor<4x1024xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<4x1024xf32> -> tensor<4x1xf32>
  lazy.store %1, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
}

// -----

// A kernel over Variables runs a thread per element on the GPU.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: step 0 (block): the kernel reads through symbolic shapes (tinygrad Variables), which run a thread per element}}
lazy.kernel @block_symbolic(%out0: !lazy.buffer<3xf32>, %in0: !lazy.buffer<30xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<block, 0, 32>]} {
  %0 = lazy.load %in0 as <[(3, i[1:10]):(10, 1)]> : !lazy.buffer<30xf32> -> tensor<3x10xf32, #lazy.sym_shape<[3, i[1:10]]>>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<3x10xf32, #lazy.sym_shape<[3, i[1:10]]>> -> tensor<3x1xf32>
  lazy.store %1, %out0 as <[(3, 1):(1, 0)]> : tensor<3x1xf32>, !lazy.buffer<3xf32>
}

// -----

// A `pack` step takes its axis's tile.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: pack on axis 1 takes the axis's tile (8), not 4}}
lazy.kernel @pack_not_the_tile(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<tile, 1, 8>, #lazy.opt<pack, 1, 4>, #lazy.opt<lanes, 1, 4>]} {
  %0 = lazy.load %in0 as <[(8, 16, 32):(32, 0, 1)]> : !lazy.buffer<256xf32> -> tensor<8x16x32xf32>
  %1 = lazy.load %in1 as <[(8, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf32> -> tensor<8x16x32xf32>
  %2 = lazy.mul %0, %1 : tensor<8x16x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
  lazy.store %3, %out0 as <[(8, 16, 1):(16, 1, 0)]> : tensor<8x16x1xf32>, !lazy.buffer<128xf32>
}

// -----

// expected-error @+1 {{'lazy.kernel' op has an invalid plan: pack on axis 1 takes the axis's tile (0), not 8: it has no tile}}
lazy.kernel @pack_without_tile(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<pack, 1, 8>, #lazy.opt<lanes, 1, 4>]} {
  %0 = lazy.load %in0 as <[(8, 16, 32):(32, 0, 1)]> : !lazy.buffer<256xf32> -> tensor<8x16x32xf32>
  %1 = lazy.load %in1 as <[(8, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf32> -> tensor<8x16x32xf32>
  %2 = lazy.mul %0, %1 : tensor<8x16x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
  lazy.store %3, %out0 as <[(8, 16, 1):(16, 1, 0)]> : tensor<8x16x1xf32>, !lazy.buffer<128xf32>
}

// -----

// The panels are read in lanes along the packed axis.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: pack on axis 1 needs the plan's lanes on that axis}}
lazy.kernel @pack_without_lanes(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<tile, 1, 8>, #lazy.opt<pack, 1, 8>]} {
  %0 = lazy.load %in0 as <[(8, 16, 32):(32, 0, 1)]> : !lazy.buffer<256xf32> -> tensor<8x16x32xf32>
  %1 = lazy.load %in1 as <[(8, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf32> -> tensor<8x16x32xf32>
  %2 = lazy.mul %0, %1 : tensor<8x16x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
  lazy.store %3, %out0 as <[(8, 16, 1):(16, 1, 0)]> : tensor<8x16x1xf32>, !lazy.buffer<128xf32>
}

// -----

// Packed on axis 0, nothing qualifies: %in0 reads axis 0 with stride 32,
// %in1 not at all.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: pack on axis 0: no load reads the axis contiguously and no other output axis (PackedPanels.h)}}
lazy.kernel @pack_nothing(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 0, 4>, #lazy.opt<tile, 0, 4>, #lazy.opt<pack, 0, 4>, #lazy.opt<lanes, 0, 4>]} {
  %0 = lazy.load %in0 as <[(8, 16, 32):(32, 0, 1)]> : !lazy.buffer<256xf32> -> tensor<8x16x32xf32>
  %1 = lazy.load %in1 as <[(8, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf32> -> tensor<8x16x32xf32>
  %2 = lazy.mul %0, %1 : tensor<8x16x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
  lazy.store %3, %out0 as <[(8, 16, 1):(16, 1, 0)]> : tensor<8x16x1xf32>, !lazy.buffer<128xf32>
}

// -----

// A block's panels take at most 1 MiB: %in1 over 1024 x 512 would take 2 MiB.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: pack on axis 1: its panels take 2097152 bytes a block, over 1048576}}
lazy.kernel @pack_too_large(%out0: !lazy.buffer<8192xf32>, %in0: !lazy.buffer<16384xf32>, %in1: !lazy.buffer<1048576xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 8>, #lazy.opt<tile, 1, 512>, #lazy.opt<pack, 1, 512>, #lazy.opt<lanes, 1, 8>]} {
  %0 = lazy.load %in0 as <[(8, 1024, 1024):(1024, 0, 1)]> : !lazy.buffer<16384xf32> -> tensor<8x1024x1024xf32>
  %1 = lazy.load %in1 as <[(8, 1024, 1024):(0, 1, 1024)]> : !lazy.buffer<1048576xf32> -> tensor<8x1024x1024xf32>
  %2 = lazy.mul %0, %1 : tensor<8x1024x1024xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x1024x1024xf32> -> tensor<8x1024x1xf32>
  lazy.store %3, %out0 as <[(8, 1024, 1):(1024, 1, 0)]> : tensor<8x1024x1xf32>, !lazy.buffer<8192xf32>
}
