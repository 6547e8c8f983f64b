// RUN: lazy-opt %s --lazy-group --split-input-file --verify-diagnostics
// A mark the dialect does not accept is reported before lazy-group runs.

func.func @bad_mark(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'lazy.realize' must be a non-negative i64 position}}
  %0 = lazy.exp2 %a {lazy.realize = -1 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
