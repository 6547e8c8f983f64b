// lazy-form-kernels makes the realize and group decisions itself (the
// scheduler's one decider, under its flag options over the module's
// lazy.flags) and reads no marks.
// RUN: lazy-opt %s --lazy-form-kernels --split-input-file --verify-diagnostics | FileCheck %s
// Under these flags one graph of lazy-group's test cannot be lowered (as in
// tinygrad): the others are.
// RUN: not lazy-opt %S/group.mlir --lazy-form-kernels="multi-output=false fuse-conv-bw=true fuse-arange=true" --split-input-file --mlir-print-op-on-diagnostic=false -o - > %t.flags 2> %t.flags.err
// RUN: FileCheck %s --check-prefix=FLAGS --input-file %t.flags
// RUN: FileCheck %s --check-prefix=FLAGS-ERR --input-file %t.flags.err
// FLAGS: lazy.kernel
// FLAGS-ERR: error: 'lazy.reduce_sum' op cannot be lowered into a kernel
// FLAGS-ERR-NOT: error:
// The errors of the decisions, each at its op:
// RUN: not lazy-opt %S/Inputs/form-kernels-decision-errors.mlir --lazy-form-kernels=fuse-conv-bw=true --split-input-file --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.errors
// RUN: FileCheck %S/Inputs/form-kernels-decision-errors.mlir --input-file %t.errors

// Nothing is marked: the reduce and its elementwise child form one kernel.
// CHECK-LABEL: lazy.kernel @unmarked_k0
// CHECK-SAME: metadata = ["sum", "exp2"], num_outputs = 1
// CHECK-NOT: lazy.realize
// CHECK-NOT: lazy.group
// CHECK: func.func @unmarked
// CHECK: lazy.launch @unmarked_k0
func.func @unmarked(%a: tensor<4x4xf32>) -> tensor<4x1xf32> {
  %0 = lazy.reduce_sum %a axes [1] : tensor<4x4xf32> -> tensor<4x1xf32> loc("sum")
  %1 = lazy.exp2 %0 : tensor<4x1xf32> loc("exp2")
  return %1 : tensor<4x1xf32>
}

// -----

// The flags still come from the module when no option gives them:
// fuse-arange recomputes the sum over a const inside its consumer.
// CHECK-LABEL: lazy.kernel @arange_k0
// CHECK: lazy.reduce_sum
// CHECK: lazy.add
// CHECK-NOT: lazy.kernel
// CHECK: func.func @arange
module attributes {lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = true, use_copy_kernel = false}} {
  func.func @arange(%b: tensor<4x1xf32>) -> tensor<4x1xf32> {
    %c = lazy.const 1.0 : tensor<f32>
    %cv = lazy.view %c as <[(4, 4):(0, 0)]> : tensor<f32> -> tensor<4x4xf32>
    %s = lazy.reduce_sum %cv axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
    %r = lazy.add %s, %b : tensor<4x1xf32>
    return %r : tensor<4x1xf32>
  }
}

// -----

// Marks in the input are not read: these (written by hand, as no pass would
// print them) would realize the sum on its own, yet it fuses with its child
// as the decision says. The marked ops are replaced with the graph.
// CHECK-LABEL: lazy.kernel @marks_not_read_k0
// CHECK-SAME: metadata = ["sum", "exp2"], num_outputs = 1
// CHECK-NOT: lazy.kernel
// CHECK-NOT: lazy.group
// CHECK: func.func @marks_not_read
// CHECK: lazy.launch @marks_not_read_k0
// CHECK-NOT: lazy.launch
func.func @marks_not_read(%a: tensor<4x4xf32>) -> tensor<4x1xf32> {
  %0 = lazy.reduce_sum %a axes [1] {lazy.realize = 0 : i64, lazy.group = 0 : i64} : tensor<4x4xf32> -> tensor<4x1xf32> loc("sum")
  %1 = lazy.exp2 %0 {lazy.realize = 1 : i64, lazy.group = 1 : i64} : tensor<4x1xf32> loc("exp2")
  return %1 : tensor<4x1xf32>
}
