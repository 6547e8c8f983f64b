// RUN: lazy-opt %s --split-input-file --convert-lazy-to-gpu="tensor-cores=mfma" --verify-diagnostics -o /dev/null
// RUN: lazy-opt %s --split-input-file --convert-lazy-to-gpu="tensor-cores=mma-sync" | FileCheck %s
// A forced tc plan whose N (8) fits NVIDIA's 16x8 tile but not AMD's
// 16x16 ones: an error on AMD, an mma.sync kernel on NVIDIA.
// CHECK: nvgpu.mma.sync
// expected-error @+1 {{a tensor-core plan on this target needs N a multiple of 16; it is 8}}
lazy.kernel @narrow(%out0: !lazy.buffer<128xf16>, %in0: !lazy.buffer<512xf16>, %in1: !lazy.buffer<256xf16>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<tc, 2, 16>]} {
  %0 = lazy.load %in0 as <[(16, 8, 32):(32, 0, 1)]> : !lazy.buffer<512xf16> -> tensor<16x8x32xf16>
  %1 = lazy.load %in1 as <[(16, 8, 32):(0, 32, 1)]> : !lazy.buffer<256xf16> -> tensor<16x8x32xf16>
  %2 = lazy.mul %0, %1 : tensor<16x8x32xf16>
  %3 = lazy.cast %2 : tensor<16x8x32xf16> -> tensor<16x8x32xf32>
  %4 = lazy.reduce_sum %3 axes [2] : tensor<16x8x32xf32> -> tensor<16x8x1xf32>
  %5 = lazy.cast %4 : tensor<16x8x1xf32> -> tensor<16x8x1xf16>
  lazy.store %5, %out0 as <[(16, 8, 1):(8, 1, 0)]> : tensor<16x8x1xf16>, !lazy.buffer<128xf16>
}

// -----

// Block tiles: two instruction tiles per warp along N are 16 columns on
// NVIDIA (N = 16 holds one block tile) but 32 on AMD.
// CHECK: nvgpu.mma.sync
// expected-error @+1 {{a tensor-core plan's block tile of 32 columns on this target does not divide N (16)}}
lazy.kernel @narrow_blocks(%out0: !lazy.buffer<512xf32>, %in0: !lazy.buffer<1024xf16>, %in1: !lazy.buffer<512xf16>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<tc, 2, 16>, #lazy.opt<upcast, 1, 2>, #lazy.opt<unroll, 2, 32>]} {
  %0 = lazy.load %in0 as <[(32, 16, 32):(32, 0, 1)]> : !lazy.buffer<1024xf16> -> tensor<32x16x32xf16>
  %1 = lazy.load %in1 as <[(32, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf16> -> tensor<32x16x32xf16>
  %2 = lazy.mul %0, %1 : tensor<32x16x32xf16>
  %3 = lazy.cast %2 : tensor<32x16x32xf16> -> tensor<32x16x32xf32>
  %4 = lazy.reduce_sum %3 axes [2] : tensor<32x16x32xf32> -> tensor<32x16x1xf32>
  lazy.store %4, %out0 as <[(32, 16, 1):(16, 1, 0)]> : tensor<32x16x1xf32>, !lazy.buffer<512xf32>
}
