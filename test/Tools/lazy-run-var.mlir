// lazy-run schedules a graph with Variables once, compiles kernels that
// take the Variables as arguments, and runs them at the bound values or
// at those given with --var; --check compares with the interpreter's
// integer graph at the same values (lazy-bind-variables).
// RUN: lazy-run %s --entry=kv_cache --check | FileCheck %s
// RUN: lazy-run %s --entry=kv_cache --check --var start_pos=1 | FileCheck %s
// RUN: lazy-run %s --entry=kv_cache --check --var start_pos=7 | FileCheck %s
// RUN: lazy-run %s --entry=kv_cache --check --var start_pos=7 --device=emulate | FileCheck %s
// A GPU plan on an integer iteration space read through a symbolic view
// (kv_cache_k1's (2, 8) view with rows 1 + start_pos apart, upcast 4):
// RUN: lazy-run %s --entry=kv_cache --check --var start_pos=6 --device=emulate --plan-options=gpu-min-tiles=1 | FileCheck %s
// RUN: lazy-run %s --entry=pad_reshape --check --var i=1 | FileCheck %s
// RUN: lazy-run %s --entry=pad_reshape --check --var i=4 | FileCheck %s
// RUN: lazy-run %s --entry=pad_reshape --check --var i=2 --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=floor_offset --check --var i=1 | FileCheck %s
// RUN: lazy-run %s --entry=floor_offset --check --var i=8 | FileCheck %s
// RUN: lazy-run %s --entry=floor_offset --check --var i=5 --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=pad_zero --check --var a=0 | FileCheck %s
// RUN: lazy-run %s --entry=pad_zero --check --var a=0 --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=pad_zero --check --var a=3 | FileCheck %s
// RUN: not lazy-run %s --entry=kv_cache --var start_pos=0 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not lazy-run %s --entry=kv_cache --var end=3 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not lazy-run %s --entry=kv_cache --var start_pos 2>&1 | FileCheck %s --check-prefix=FORM
// RUN: not lazy-run %s --entry=kv_cache --var start_pos=x 2>&1 | FileCheck %s --check-prefix=FORM
// RUN: not lazy-run %s --entry=kv_cache --var start_pos=8 2>&1 | FileCheck %s --check-prefix=VIEW
// CHECK: out0: match
// CHECK: all outputs match
// RANGE: error: value 0 is outside the range of start_pos[1:8=4]
// NAME: error: lazy-bind-variables: no Variable is named 'end'
// FORM: lazy-run: error: --var takes NAME=VALUE (an integer), not 'start_pos{{(=x)?}}'
// At start_pos = 8 the padded view of the new rows needs a ninth row the
// cache does not have: the graph is refused, nothing runs.
// VIEW: error: {{.*}}'lazy.view' op has no valid view at these values

// tinygrad's test_assign_kv_cache, as in lazy-interp-var.mlir.
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

// A padded (i, 4) view of a (4, 3) buffer read as (2, 2i): two views, the
// outer one's index unflattened by the inner one's symbolic shape; the
// result has a symbolic shape, written at the values given.
func.func @pad_reshape(%x: tensor<4x3xf32> {lazy.buffer = 0 : i64}) -> tensor<2x8xf32, #lazy.sym_shape<[2, (i[1:4=3] * 2)]>> {
  %0 = lazy.view %x as <[(i[1:4=3], 4):(3, 1) mask [(0, i[1:4=3]), (0, 3)], (2, (i[1:4=3] * 2)):((i[1:4=3] * 2), 1)]> : tensor<4x3xf32> -> tensor<2x8xf32, #lazy.sym_shape<[2, (i[1:4=3] * 2)]>>
  %1 = lazy.exp2 %0 : tensor<2x8xf32, #lazy.sym_shape<[2, (i[1:4=3] * 2)]>>
  return %1 : tensor<2x8xf32, #lazy.sym_shape<[2, (i[1:4=3] * 2)]>>
}

// An offset of Python floor division and modulo of the Variable
// (emitSInt's Div and Mod nodes): (i // 2) + (i % 3).
func.func @floor_offset(%x: tensor<16xf32> {lazy.buffer = 0 : i64}) -> tensor<8xf32, #lazy.sym_shape<[i[1:8=5]]>> {
  %0 = lazy.view %x as <[(i[1:8=5]):(1) offset ((i[1:8=5] floordiv 2) + (i[1:8=5] mod 3))]> : tensor<16xf32> -> tensor<8xf32, #lazy.sym_shape<[i[1:8=5]]>>
  %1 = lazy.exp2 %0 : tensor<8xf32, #lazy.sym_shape<[i[1:8=5]]>>
  return %1 : tensor<8xf32, #lazy.sym_shape<[i[1:8=5]]>>
}

// A Variable that can be 0: at a = 0 the (a, 4) view below has no element
// and the two padded positions read 0 (unflattening divides by at least 1).
func.func @pad_zero(%x: tensor<4x3xf32> {lazy.buffer = 0 : i64}) -> tensor<18xf32, #lazy.sym_shape<[((a[0:4=2] * 4) + 2)]>> {
  %0 = lazy.view %x as <[(a[0:4=2], 4):(3, 1) mask [(0, a[0:4=2]), (0, 3)], (((a[0:4=2] * 4) + 2)):(1) offset -1 mask [(1, ((a[0:4=2] * 4) + 1))]]> : tensor<4x3xf32> -> tensor<18xf32, #lazy.sym_shape<[((a[0:4=2] * 4) + 2)]>>
  %1 = lazy.exp2 %0 : tensor<18xf32, #lazy.sym_shape<[((a[0:4=2] * 4) + 2)]>>
  return %1 : tensor<18xf32, #lazy.sym_shape<[((a[0:4=2] * 4) + 2)]>>
}
