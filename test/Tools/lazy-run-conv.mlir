// A padded 3x3 convolution (tinygrad 0.9.2's graph of x.conv2d(w, padding=1)
// on a 1x8x8x8 image): its padded input has an affine index over two views
// (IndexExpr.h), and its heuristic plan upcasts width and channels and
// unrolls the window; the result matches the reference interpreter, and
// so does the GPU lowering with its GPU plan on the emulator: shared-memory
// tiles (rule G4), the padded input and the weights staged one 3x3 window
// of an input channel at a time (GPU); without them (shared-memory=false)
// a register tile per thread (tile mode).
// RUN: lazy-opt %s --lazy-schedule --lazy-optimize-kernels=target=generic | FileCheck %s --check-prefix=PLAN
// RUN: lazy-run %s --check | FileCheck %s
// RUN: lazy-run %s --check --device=emulate --plan-options=gpu-min-tiles=1 | FileCheck %s
// RUN: lazy-run %s --check --device=emulate "--plan-options=gpu-min-tiles=1 shared-memory=false" | FileCheck %s
// RUN: lazy-opt %s --lazy-schedule --lazy-optimize-kernels="target=gpu gpu-min-tiles=1" --convert-lazy-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: lazy-run %s --check --plan=graph_k0:upcast:3:4,graph_k0:upcast:4:2,graph_k0:unroll:6:3,graph_k0:tile:3:4 | FileCheck %s
// PLAN: opts = [#lazy.opt<upcast, 4, 8>, #lazy.opt<upcast, 2, 8>, #lazy.opt<unroll, 7, 3>, #lazy.opt<lanes, 4, 8>]
// GPU: gpu.func @graph_k0({{.*}} workgroup(%{{.+}} : memref<72xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.+}} : memref<576xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel attributes {known_block_size = array<i32: 32, 1, 1>}
// GPU: gpu.barrier
// GPU: gpu.barrier
// CHECK: out0: match
// CHECK: all outputs match
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
  func.func @graph(%arg0: tensor<1x8x8x8xf32> {lazy.buffer = 0 : i64}, %arg1: tensor<8x8x3x3xf32> {lazy.buffer = 1 : i64}) -> tensor<1x8x8x8xf32> {
    %0 = lazy.view %arg0 as <[(1, 1, 1, 8, 4, 10, 4, 10):(0, 0, 0, 64, 0, 8, 0, 1) offset -9 mask [(0, 1), (0, 1), (0, 1), (0, 8), (0, 4), (1, 9), (0, 4), (1, 9)], (1, 1, 8, 8, 8, 8, 3, 3):(0, 0, 0, 40, 1, 1600, 440, 11)]> : tensor<1x8x8x8xf32> -> tensor<1x1x8x8x8x8x3x3xf32>
    %1 = lazy.view %arg1 as <[(1, 1, 8, 8, 8, 8, 3, 3):(0, 0, 72, 0, 0, 9, 3, 1)]> : tensor<8x8x3x3xf32> -> tensor<1x1x8x8x8x8x3x3xf32>
    %2 = lazy.mul %0, %1 : tensor<1x1x8x8x8x8x3x3xf32>
    %3 = lazy.reduce_sum %2 axes [5, 6, 7] : tensor<1x1x8x8x8x8x3x3xf32> -> tensor<1x1x8x8x8x1x1x1xf32>
    %4 = lazy.view %3 as <[(1, 8, 8, 8):(0, 64, 8, 1)]> : tensor<1x1x8x8x8x1x1x1xf32> -> tensor<1x8x8x8xf32>
    return %4 : tensor<1x8x8x8xf32>
  }
}
