// RUN: lazy-opt %s --lazy-form-kernels --split-input-file --verify-diagnostics | FileCheck %s
// lazy-form-kernels outlines the groups lazy-group marked; inconsistent
// marks are reported at the op instead of being guessed around.

func.func @group_without_realize(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'lazy.exp2' op has a 'lazy.group' but no 'lazy.realize' mark; run lazy-mark-realize and lazy-group}}
  %0 = lazy.exp2 %a {lazy.group = 0 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @output_in_no_group(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'lazy.exp2' op is an output but belongs to no kernel: fuse-conv-bw merged it into the reduce that reads it, or lazy-mark-realize and lazy-group have not marked it}}
  %0 = lazy.exp2 %a {lazy.realize = 0 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Groups numbered out of op order: kernels follow the group numbers, and a
// group's outputs follow the realize order.
// CHECK-LABEL: lazy.kernel @group_order_k0
// CHECK:         lazy.sqrt
// CHECK-LABEL: lazy.kernel @group_order_k1
// CHECK-DAG:     %[[NEG:.*]] = lazy.neg
// CHECK-DAG:     %[[EXP:.*]] = lazy.exp2
// CHECK:         lazy.store %[[NEG]], %out0
// CHECK:         lazy.store %[[EXP]], %out1
// CHECK-LABEL: func.func @group_order
// CHECK:         %[[K0:.*]] = lazy.launch @group_order_k0
// CHECK:         %[[K1:.*]]:2 = lazy.launch @group_order_k1
// CHECK:         lazy.yield %[[K1]]#1, %[[K0]], %[[K1]]#0
func.func @group_order(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = lazy.exp2 %a {lazy.realize = 2 : i64, lazy.group = 1 : i64} : tensor<4xf32>
  %1 = lazy.sqrt %a {lazy.realize = 0 : i64, lazy.group = 0 : i64} : tensor<4xf32>
  %2 = lazy.neg %a {lazy.realize = 1 : i64, lazy.group = 1 : i64} : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
