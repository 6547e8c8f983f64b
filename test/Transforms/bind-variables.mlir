// RUN: lazy-opt --lazy-bind-variables %s | FileCheck %s --check-prefix=BOUND
// RUN: lazy-opt --lazy-bind-variables=values=start_pos=7 %s | FileCheck %s --check-prefix=SEVEN
// RUN: not lazy-opt --lazy-bind-variables=values=start_pos=9 %s 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not lazy-opt --lazy-bind-variables=values=nope=1 %s 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not lazy-opt --lazy-bind-variables=values=start_pos %s 2>&1 | FileCheck %s --check-prefix=SYNTAX
// lazy-bind-variables: the integer graph at a value of each Variable (the
// one given, else the bound one): views re-created, symbolic tensor shapes
// made integer, consts of Variables made integer consts.

// The kv-cache update at start_pos = 4 (bound) and at 7 (given).
// BOUND-LABEL: func.func @kv_cache
// BOUND: lazy.view %arg0 as <[(2, 5, 1, 1):(8, 1, 0, 0) mask [(0, 2), (0, 4), (0, 1), (0, 1)]]> : tensor<2x8x1x1xf32> -> tensor<2x5x1x1xf32>
// BOUND: lazy.add %{{.*}} : tensor<2x5x1x1xf32>
// BOUND: lazy.view %{{.*}} as <[(2, 8, 1, 1):(5, 1, 0, 0) mask [(0, 2), (0, 5), (0, 1), (0, 1)]]> : tensor<2x5x1x1xf32> -> tensor<2x8x1x1xf32>
// SEVEN-LABEL: func.func @kv_cache
// SEVEN: lazy.view %arg0 as <[(2, 8, 1, 1):(8, 1, 0, 0) mask [(0, 2), (0, 7), (0, 1), (0, 1)]]>
// SEVEN: lazy.view %arg1 as <[(2, 8, 1, 1):(1, 0, 0, 0) mask [(0, 2), (7, 8), (0, 1), (0, 1)]]>
// RANGE: error: value 9 is outside the range of start_pos[1:8=4]
// NAME: error: lazy-bind-variables: no Variable is named 'nope'
// SYNTAX: error: lazy-bind-variables: 'start_pos' is not NAME=VALUE
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
