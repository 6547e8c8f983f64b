// lazy-run --check-kernels checks each kernel call of the compiled CPU
// program on its own: the kernel evaluated by the interpreter on copies of
// the inputs the call was given, each output read through its store's view.
// RUN: lazy-run %s --entry=chain --seed=1 --check-kernels | FileCheck %s --check-prefix=CHAIN
// RUN: lazy-run %s --entry=assign_slice --seed=2 --check-kernels --check | FileCheck %s --check-prefix=SLICE
// RUN: lazy-run %s --entry=assign_self --seed=3 --check-kernels --check | FileCheck %s --check-prefix=SELF
// RUN: lazy-run %s --entry=kv_cache --check-kernels | FileCheck %s --check-prefix=SYMBOLIC
// RUN: not lazy-run %s --entry=chain --check-kernels --device=emulate 2>&1 | FileCheck %s --check-prefix=DEVICE

// Three kernels: a sum, a broadcast product (an input read twice) and a
// max with an add; every call matches.
// CHAIN: kernel call 0 @chain_k{{[0-9]+}}: out0 match, max abs error {{.*}} (float)
// CHAIN-NEXT: kernel call 1 @chain_k{{[0-9]+}}: out0 match
// CHAIN-NEXT: kernel call 2 @chain_k{{[0-9]+}}: out0 match
// CHAIN-NEXT: kernel calls: 3, checked 3, matching 3 ({{[0-9]+}} within rounding noise or nearer f64), differing 0, not checked 0
func.func @chain(%a: tensor<4x4xf32> {lazy.buffer = 0 : i64},
                 %b: tensor<4x1xf32> {lazy.buffer = 1 : i64}) -> (tensor<4x1xf32>, tensor<4x4xf32>) {
  %r = lazy.reduce_sum %a axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  %e = lazy.exp2 %r : tensor<4x1xf32>
  %x = lazy.expand %e : tensor<4x1xf32> -> tensor<4x4xf32>
  %y = lazy.mul %x, %a : tensor<4x4xf32>
  %r2 = lazy.reduce_max %y axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  %o = lazy.add %r2, %b : tensor<4x1xf32>
  return %o, %y : tensor<4x1xf32>, tensor<4x4xf32>
}

// An assign into a shrink of its target: the kernel's store view covers
// the middle four elements, which are read back through it.
// SLICE: kernel call 0 @assign_slice_k{{[0-9]+}}: out0 match, max abs error {{.*}} (float)
// SLICE: kernel calls: 1, checked 1, matching 1
// SLICE: all outputs match
func.func @assign_slice(%t: tensor<8xf32> {lazy.buffer = 0 : i64},
                        %u: tensor<4xf32> {lazy.buffer = 1 : i64}) -> tensor<4xf32> {
  %v = lazy.mul %u, %u : tensor<4xf32>
  %n = lazy.assign %v to %t view <[(4):(1) offset 2]> : tensor<4xf32>, tensor<8xf32>
  return %n : tensor<4xf32>
}

// An assign that reads its target: the kernel's output buffer is one of
// its inputs, and the copy made before the call is what it read.
// SELF: kernel call 0 @assign_self_k{{[0-9]+}}: out0 match, max abs error {{.*}} (float)
// SELF: kernel calls: 1, checked 1, matching 1
// SELF: all outputs match
func.func @assign_self(%t: tensor<8xf32> {lazy.buffer = 0 : i64}) -> tensor<8xf32> {
  %v = lazy.mul %t, %t : tensor<8xf32>
  %n = lazy.assign %v to %t : tensor<8xf32>, tensor<8xf32>
  return %n : tensor<8xf32>
}

// Kernels with Variables are not checked (the interpreter evaluates
// integer shapes), and say so.
// SYMBOLIC: kernel call 0 @kv_cache_k{{[0-9]+}}: not checked: {{.*}}has Variables (symbolic shapes)
// SYMBOLIC: kernel call 2 @kv_cache_k{{[0-9]+}}: out0 match
// SYMBOLIC: kernel calls: 3, checked 1, matching 1 (0 within rounding noise or nearer f64), differing 0, not checked 2
func.func @kv_cache(%cache: tensor<2x8x1x1xf32> {lazy.buffer = 0 : i64},
                    %xk: tensor<2x1x1x1xf32> {lazy.buffer = 1 : i64}) -> tensor<2x8x1x1xf32> {
  %0 = lazy.view %cache as <[(2, (start_pos[1:8=4] + 1), 1, 1):(8, 1, 0, 0) mask [(0, 2), (0, start_pos[1:8=4]), (0, 1), (0, 1)]]> : tensor<2x8x1x1xf32> -> tensor<2x9x1x1xf32, #lazy.sym_shape<[2, (start_pos[1:8=4] + 1), 1, 1]>>
  %1 = lazy.view %xk as <[(2, (start_pos[1:8=4] + 1), 1, 1):(1, 0, 0, 0) mask [(0, 2), (start_pos[1:8=4], (start_pos[1:8=4] + 1)), (0, 1), (0, 1)]]> : tensor<2x1x1x1xf32> -> tensor<2x9x1x1xf32, #lazy.sym_shape<[2, (start_pos[1:8=4] + 1), 1, 1]>>
  %2 = lazy.add %0, %1 {lazy.forced_realize} : tensor<2x9x1x1xf32, #lazy.sym_shape<[2, (start_pos[1:8=4] + 1), 1, 1]>>
  %3 = lazy.view %2 as <[(2, 8, 1, 1):((start_pos[1:8=4] + 1), 1, 0, 0) mask [(0, 2), (0, (start_pos[1:8=4] + 1)), (0, 1), (0, 1)]]> : tensor<2x9x1x1xf32, #lazy.sym_shape<[2, (start_pos[1:8=4] + 1), 1, 1]>> -> tensor<2x8x1x1xf32>
  %4 = lazy.contiguous %3 : tensor<2x8x1x1xf32>
  %5 = lazy.assign %4 to %cache : tensor<2x8x1x1xf32>, tensor<2x8x1x1xf32>
  return %5 : tensor<2x8x1x1xf32>
}

// DEVICE: lazy-run: error: --check-kernels checks the CPU program's kernel calls: it needs --device=cpu
