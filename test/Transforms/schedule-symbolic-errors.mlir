// RUN: lazy-opt --lazy-schedule -split-input-file -verify-diagnostics %s
// tinygrad's scheduler takes bound Variables, one value each
// (create_schedule_with_vars unbinds them and merge_dicts asserts).

func.func @two_values(%a: tensor<8xf32> {lazy.buffer = 0 : i64}, %b: tensor<8xf32> {lazy.buffer = 1 : i64}) -> tensor<8xf32> {
  // expected-note @+1 {{bound here}}
  %0 = lazy.view %a as <[(8):(1) mask [(0, n[1:8=3])]]> : tensor<8xf32> -> tensor<8xf32>
  // expected-error @+1 {{Variable n is bound to 5 here and to 3 elsewhere (tinygrad's merge_dicts asserts one value)}}
  %1 = lazy.view %b as <[(8):(1) mask [(0, n[1:8=5])]]> : tensor<8xf32> -> tensor<8xf32>
  %2 = lazy.add %0, %1 : tensor<8xf32>
  return %2 : tensor<8xf32>
}

// -----

func.func @unbound(%a: tensor<8xf32> {lazy.buffer = 0 : i64}) -> tensor<8xf32> {
  // expected-error @+1 {{Variable n[1:8] is not bound; tinygrad's scheduler takes bound Variables only}}
  %0 = lazy.view %a as <[(8):(1) mask [(0, n[1:8])]]> : tensor<8xf32> -> tensor<8xf32>
  %1 = lazy.exp2 %0 : tensor<8xf32>
  return %1 : tensor<8xf32>
}
