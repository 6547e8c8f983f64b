// RUN: lazy-opt %s "--lazy-form-kernels=report=true" -verify-diagnostics | FileCheck %s
// Two consts of one value are realized (meta ops) and read as views of a
// const inside each kernel; the two kernels are described alike, so the
// second group launches the first one's kernel without being lowered.
// CHECK: lazy.kernel @computed_consts_k0
// CHECK: lazy.const 1.0{{.*}} : tensor<f32>
// CHECK-NOT: lazy.kernel
// CHECK: lazy.launch @computed_consts_k0
// CHECK: lazy.launch @computed_consts_k0
// expected-remark @+1 {{2 items, 1 distinct kernels: 1 groups lowered, 1 launched an earlier group's kernel unlowered; 2 launches fuse 2 ops and move 64 bytes; realized: 2 outputs, 2 meta or forced}}
func.func @computed_consts(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c1 = lazy.const 1.0 : tensor<f32>
  %v1 = lazy.view %c1 as <[(4):(0)]> : tensor<f32> -> tensor<4xf32>
  %0 = lazy.add %a, %v1 : tensor<4xf32>
  %c2 = lazy.const 1.0 : tensor<f32>
  %v2 = lazy.view %c2 as <[(4):(0)]> : tensor<f32> -> tensor<4xf32>
  %1 = lazy.add %b, %v2 : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
