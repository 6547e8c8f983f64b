// On an NVIDIA GPU: the schedule compiled by lazy-to-nvvm and run through
// the CUDA driver equals the reference interpreter: an elementwise kernel,
// block-wide reductions (sum, max of int32) and a copy-free view.
// REQUIRES: cuda-gpu
// RUN: lazy-run %s --device=cuda --seed=3 --check | FileCheck %s
// RUN: lazy-run %s --device=cuda --seed=3 --check --chip=sm_90 --entry=softmax | FileCheck %s --check-prefix=SOFTMAX
// Each kernel also run on the emulator and compared (--lockstep).
// RUN: lazy-run %s --device=cuda --seed=3 --check --lockstep --entry=softmax 2>&1 | FileCheck %s --check-prefix=LOCKSTEP
// LOCKSTEP: lockstep: 3 launches,

// CHECK: out0: match
// CHECK: out1: match, max abs error 0
// CHECK: out2: match
// CHECK: all outputs match
func.func @graph(%a: tensor<64x300xf32> {lazy.buffer = 0 : i64}, %b: tensor<1000xsi32> {lazy.buffer = 1 : i64}) -> (tensor<64x1xf32>, tensor<1xsi32>, tensor<64x300xf32>) {
  %s = lazy.reduce_sum %a axes [1] : tensor<64x300xf32> -> tensor<64x1xf32>
  %m = lazy.reduce_max %b axes [0] : tensor<1000xsi32> -> tensor<1xsi32>
  %e = lazy.exp2 %a : tensor<64x300xf32>
  return %s, %m, %e : tensor<64x1xf32>, tensor<1xsi32>, tensor<64x300xf32>
}

// SOFTMAX: out0: match
// SOFTMAX: all outputs match
func.func @softmax(%x: tensor<4x512xf32> {lazy.buffer = 0 : i64}) -> tensor<4x512xf32> {
  %m = lazy.reduce_max %x axes [1] : tensor<4x512xf32> -> tensor<4x1xf32>
  %mb = lazy.expand %m : tensor<4x1xf32> -> tensor<4x512xf32>
  %n = lazy.neg %mb : tensor<4x512xf32>
  %d = lazy.add %x, %n : tensor<4x512xf32>
  %e = lazy.exp2 %d : tensor<4x512xf32>
  %s = lazy.reduce_sum %e axes [1] : tensor<4x512xf32> -> tensor<4x1xf32>
  %sb = lazy.expand %s : tensor<4x1xf32> -> tensor<4x512xf32>
  %r = lazy.recip %sb : tensor<4x512xf32>
  %o = lazy.mul %e, %r : tensor<4x512xf32>
  return %o : tensor<4x512xf32>
}
