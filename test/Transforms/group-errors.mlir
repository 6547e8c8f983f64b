// RUN: lazy-opt %s --lazy-group --split-input-file --verify-diagnostics
// lazy-group works on lazy-mark-realize's decisions and refuses to guess.

func.func @unmarked(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'lazy.exp2' op is an output without a 'lazy.realize' mark; run lazy-mark-realize before lazy-group}}
  %0 = lazy.exp2 %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @bad_mark(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'lazy.realize' must be a non-negative i64 position}}
  %0 = lazy.exp2 %a {lazy.realize = -1 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
