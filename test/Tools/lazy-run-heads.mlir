// Attention heads merged back, then a linear layer: the merged input has
// no stride along the reduce axis but reads it in aligned runs of a head's
// 32 elements (ShapeTracker::contiguousRuns), so the kernel gets the
// dot-product plan and its vector loads; the result matches the reference
// interpreter whether the kernels compile on one thread or several
// (CpuProgram), and --profile / --timing report the run.
// RUN: lazy-opt %s --lazy-schedule --lazy-optimize-kernels=target=generic | FileCheck %s --check-prefix=PLAN
// RUN: lazy-run %s --check | FileCheck %s
// RUN: lazy-run %s --check --compile-threads=1 | FileCheck %s
// RUN: lazy-run %s --repeat=2 --profile --timing 2>&1 | FileCheck %s --check-prefix=PROFILE
// PLAN: lazy.kernel @heads_k0
// PLAN-SAME: opts = [#lazy.opt<upcast, 2, 4>, #lazy.opt<upcast, 1, 2>, #lazy.opt<unroll, 3, 8>]
// CHECK: out0: match
// CHECK: all outputs match
// PROFILE-DAG: lazy-run: time lower
// PROFILE-DAG: lazy-run: time compile
// PROFILE-DAG: lazy-run: time run
// PROFILE: time: median
// PROFILE: profile: 1 kernel calls, {{[0-9.]+}} ms in kernels
// PROFILE-NEXT: profile: {{ *[0-9.]+}} ms 100.0% x1 heads_k0 []
func.func @heads(%x: tensor<2x2x8x32xf32> {lazy.buffer = 0 : i64},
                 %w: tensor<16x64xf32> {lazy.buffer = 1 : i64}) -> tensor<2x8x16xf32> {
  %t = lazy.permute %x [0, 2, 1, 3] : tensor<2x2x8x32xf32> -> tensor<2x8x2x32xf32>
  %m = lazy.reshape %t : tensor<2x8x2x32xf32> -> tensor<2x8x64xf32>
  %mr = lazy.reshape %m : tensor<2x8x64xf32> -> tensor<2x8x1x64xf32>
  %me = lazy.expand %mr : tensor<2x8x1x64xf32> -> tensor<2x8x16x64xf32>
  %wr = lazy.reshape %w : tensor<16x64xf32> -> tensor<1x1x16x64xf32>
  %we = lazy.expand %wr : tensor<1x1x16x64xf32> -> tensor<2x8x16x64xf32>
  %p = lazy.mul %me, %we : tensor<2x8x16x64xf32>
  %s = lazy.reduce_sum %p axes [3] : tensor<2x8x16x64xf32> -> tensor<2x8x16x1xf32>
  %o = lazy.reshape %s : tensor<2x8x16x1xf32> -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}
