// RUN: lazy-opt %s --lazy-schedule --lazy-print-schedule -o /dev/null | FileCheck %s
// RUN: lazy-opt %s --lazy-schedule=record-nodes=true --lazy-print-schedule=format=bridge -o /dev/null | FileCheck %s --check-prefix=BRIDGE
// RUN: lazy-opt %s --lazy-schedule | FileCheck %s --check-prefix=KERNEL

// A float const crosses every stage as the Python float tinygrad holds:
// tinygrad folds `1.0 + 0.8` in double precision and renders 1.8f, so a
// schedule that carried float32's 0.800000011920929 would render 1.8000001f
// and compute another number. Both schedule texts print the double exactly.

module attributes {lazy.default_device = "CLANG"} {
  func.func @scaled(%x: tensor<4xf32> {lazy.buffer = 0 : i64},
                    %h: tensor<4xf16> {lazy.buffer = 1 : i64}) -> (tensor<4xf32>, tensor<4xf16>) {
    %c = lazy.const 0.8 : tensor<f32>
    %cs = lazy.view %c as <[(4):(0)]> : tensor<f32> -> tensor<4xf32>
    %m = lazy.mul %x, %cs : tensor<4xf32>
    %a = lazy.add %x, %m : tensor<4xf32>
    %t = lazy.const 0.1 : tensor<f16>
    %ts = lazy.view %t as <[(4):(0)]> : tensor<f16> -> tensor<4xf16>
    %b = lazy.add %h, %ts : tensor<4xf16>
    return %a, %b : tensor<4xf32>, tensor<4xf16>
  }
}

// CHECK-DAG: CONST 0.8 float [(4):(0)]
// CHECK-DAG: CONST 0.1 half [(4):(0)]
// BRIDGE-DAG: = CONST 0.8 float [(4):(0)]
// BRIDGE-DAG: = CONST 0.1 half [(4):(0)]
// KERNEL-DAG: lazy.const 8.000000e-01 : tensor<f32>
// KERNEL-DAG: lazy.const 1.000000e-01 : tensor<f16>
