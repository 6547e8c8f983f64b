// RUN: lazy-opt %s "--lazy-form-kernels=report=true" -verify-diagnostics | FileCheck %s
// With marks written by hand, a const nothing realizes is computed inside
// its kernel. An op with properties inside a kernel never shares it (a
// kernel's key holds such an op by identity), and its description says
// the same: both groups are lowered, to two kernels.
// CHECK: lazy.kernel @computed_consts_k0
// CHECK: lazy.const 1.0{{.*}} : tensor<4xf32>
// CHECK: lazy.kernel @computed_consts_k1
// CHECK: lazy.launch @computed_consts_k0
// CHECK: lazy.launch @computed_consts_k1
// expected-remark @+1 {{2 items, 2 distinct kernels: 2 groups lowered, 0 launched an earlier group's kernel unlowered}}
func.func @computed_consts(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c1 = lazy.const 1.0 : tensor<f32>
  %v1 = lazy.view %c1 as <[(4):(0)]> : tensor<f32> -> tensor<4xf32>
  %0 = lazy.add %a, %v1 {lazy.realize = 0 : i64, lazy.group = 0 : i64} : tensor<4xf32>
  %c2 = lazy.const 1.0 : tensor<f32>
  %v2 = lazy.view %c2 as <[(4):(0)]> : tensor<f32> -> tensor<4xf32>
  %1 = lazy.add %b, %v2 {lazy.realize = 1 : i64, lazy.group = 1 : i64} : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
