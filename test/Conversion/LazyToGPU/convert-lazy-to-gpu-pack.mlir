// RUN: lazy-opt %s --convert-lazy-to-gpu --verify-diagnostics -o /dev/null
// RUN: not lazy-opt %s --lazy-optimize-kernels="target=gpu force=matmul_packed:upcast:1:4,matmul_packed:tile:1:8,matmul_packed:pack:1:8" 2>&1 | FileCheck %s --check-prefix=FORCE
// A `pack` step is a CPU plan step (PackedPanels.h): the GPU lowering
// refuses it with an error at the kernel, and lazy-optimize-kernels
// target=gpu refuses a forced one.

// FORCE: error: lazy-optimize-kernels: the forced plan has a pack step, which only the CPU runs

// expected-error @+1 {{'lazy.kernel' op has a pack step, which only the CPU lowering runs}}
lazy.kernel @matmul_packed(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<256xf32>, %in1: !lazy.buffer<512xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<upcast, 0, 2>, #lazy.opt<tile, 1, 8>, #lazy.opt<pack, 1, 8>, #lazy.opt<lanes, 1, 4>]} {
  %0 = lazy.load %in0 as <[(8, 16, 32):(32, 0, 1)]> : !lazy.buffer<256xf32> -> tensor<8x16x32xf32>
  %1 = lazy.load %in1 as <[(8, 16, 32):(0, 1, 16)]> : !lazy.buffer<512xf32> -> tensor<8x16x32xf32>
  %2 = lazy.mul %0, %1 : tensor<8x16x32xf32>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x16x32xf32> -> tensor<8x16x1xf32>
  lazy.store %3, %out0 as <[(8, 16, 1):(16, 1, 0)]> : tensor<8x16x1xf32>, !lazy.buffer<128xf32>
}
