// RUN: not lazy-opt --lazy-bind-variables %s --split-input-file 2>/dev/null | FileCheck %s --check-prefix=BOUND
// RUN: not lazy-opt --lazy-bind-variables %s --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=ERR

// lazy-bind-variables on a const of a Variable and a symbolic result type
// whose device stays its encoding; an unbound Variable with no value
// given is an error.
// BOUND-LABEL: func.func @consts
// BOUND: lazy.const 3 : tensor<si32>
// BOUND: -> tensor<3x2xf32, #lazy.device<"CUDA">>
func.func @consts(%x: tensor<3x3xf32, #lazy.device<"CUDA">> {lazy.buffer = 0 : i64}) -> (tensor<si32>, tensor<3x3xf32, #lazy.sym_shape<[3, j[1:3=2]], device = "CUDA">>) {
  %0 = lazy.const n[1:8=3] : tensor<si32>
  %1 = lazy.view %x as <[(3, j[1:3=2]):(3, 1)]> : tensor<3x3xf32, #lazy.device<"CUDA">> -> tensor<3x3xf32, #lazy.sym_shape<[3, j[1:3=2]], device = "CUDA">>
  return %0, %1 : tensor<si32>, tensor<3x3xf32, #lazy.sym_shape<[3, j[1:3=2]], device = "CUDA">>
}

// -----

// ERR: error: Variable n[1:8] has no value: give one (n=...) or bind it
func.func @unbound() -> tensor<si32> {
  %0 = lazy.const n[1:8] : tensor<si32>
  return %0 : tensor<si32>
}

// -----

// A value at which a view is not valid: a negative dim.
// ERR: error: 'lazy.view' op has no valid view at these values: view #0: dimensions must be non-negative
func.func @negative(%x: tensor<4xf32> {lazy.buffer = 0 : i64}) -> tensor<2xf32> {
  %0 = lazy.view %x as <[(((n[0:8=5] * -1) + 4)):(1), (2):(1)]> : tensor<4xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
