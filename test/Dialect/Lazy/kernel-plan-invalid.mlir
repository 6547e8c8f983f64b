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
lazy.kernel @two_shapes(%out0: !lazy.buffer<4xf32>, %out1: !lazy.buffer<2xf32>, %in0: !lazy.buffer<4xf32>) attributes {num_outputs = 2 : i64, opts = []} {
  %0 = lazy.load %in0 as <[(4):(1)]> : !lazy.buffer<4xf32> -> tensor<4xf32>
  lazy.store %0, %out0 as <[(4):(1)]> : tensor<4xf32>, !lazy.buffer<4xf32>
  %1 = lazy.load %in0 as <[(2):(1)]> : !lazy.buffer<4xf32> -> tensor<2xf32>
  lazy.store %1, %out1 as <[(2):(1)]> : tensor<2xf32>, !lazy.buffer<2xf32>
}

// -----

// expected-error @+1 {{has a plan but no iteration space: its reduces read different shapes or axes}}
lazy.kernel @two_reduces(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<16xf32>) attributes {num_outputs = 1 : i64, opts = []} {
  %0 = lazy.load %in0 as <[(4, 4):(4, 1)]> : !lazy.buffer<16xf32> -> tensor<4x4xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  %2 = lazy.load %in0 as <[(4, 2):(4, 1)]> : !lazy.buffer<16xf32> -> tensor<4x2xf32>
  %3 = lazy.reduce_max %2 axes [1] : tensor<4x2xf32> -> tensor<4x1xf32>
  %4 = lazy.add %1, %3 : tensor<4x1xf32>
  lazy.store %4, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
}

// -----

// expected-error @+2 {{expected ::mlir::lazy::OptKind to be one of: upcast, unroll, tile}}
// expected-error @+1 {{failed to parse Lazy_OptAttr parameter 'kind'}}
lazy.kernel @unknown_kind(%out0: !lazy.buffer<4xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<local, 0, 2>]} {
}

// -----

// A row kernel (it reads a value it computes through a view) takes no plan.
// expected-error @+1 {{'lazy.kernel' op has a plan but no iteration space: it reads a computed value through a view}}
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

// expected-error @+1 {{step 1 (tc) is a whole plan: it takes no other step}}
lazy.kernel @tc_and_upcast(%out0: !lazy.buffer<256xf16>, %in0: !lazy.buffer<512xf16>, %in1: !lazy.buffer<512xf16>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 2>, #lazy.opt<tc, 2, 16>]} {
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
