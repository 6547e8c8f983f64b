// lazy-interp evaluates a graph with Variables at their bound values, or
// at the values given with --var (through lazy-bind-variables): the
// kv-cache update of test_assign_kv_cache keeps the first start_pos rows
// of each batch of the cache, appends the new row and zeroes the rest.
// RUN: lazy-interp %s --print --seed=1 | FileCheck %s --check-prefix=BOUND
// RUN: lazy-interp %s --print --seed=1 --var start_pos=7 | FileCheck %s --check-prefix=SEVEN
// RUN: not lazy-interp %s --var start_pos=0 2>&1 | FileCheck %s --check-prefix=RANGE
// The new row (-0.406517953, the first input of %xk) lands at start_pos.
// BOUND: out0: float (2, 8, 1, 1) [-1.45437181, -1.91590309, 1.64543223, -1.70229983, -0.406517953, 0, 0, 0, 1.21294534, -0.920242012, 0.995963097, -0.775253296, 0.387962997, 0, 0, 0]
// SEVEN: out0: float (2, 8, 1, 1) [-1.45437181, -1.91590309, 1.64543223, -1.70229983, 0.540924847, 0.22471559, -1.11346531, -0.406517953, 1.21294534, -0.920242012, 0.995963097, -0.775253296, -1.54730368, -1.72352421, 0.591186881, 0.387962997]
// RANGE: error: value 0 is outside the range of start_pos[1:8=4]
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
