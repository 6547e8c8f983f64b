// lazy-form-kernels{decide=true} (how lazy-schedule runs it) must give
// exactly what lazy-mark-realize, lazy-group and lazy-form-kernels give in a
// row, errors included: the graphs of their own tests, under tinygrad's
// flags and under the others.
// RUN: lazy-opt %S/mark-realize.mlir --lazy-mark-realize --lazy-group --lazy-form-kernels --split-input-file --verify-diagnostics -o %t.mark.staged
// RUN: lazy-opt %S/mark-realize.mlir --lazy-form-kernels=decide=true --split-input-file --verify-diagnostics -o %t.mark.decided
// RUN: diff %t.mark.staged %t.mark.decided
// RUN: lazy-opt %S/group.mlir --lazy-mark-realize --lazy-group --lazy-form-kernels --split-input-file --verify-diagnostics -o %t.group.staged
// RUN: lazy-opt %S/group.mlir --lazy-form-kernels=decide=true --split-input-file --verify-diagnostics -o %t.group.decided
// RUN: diff %t.group.staged %t.group.decided
// With fold-views as well (how lazy-schedule runs it), lazy-fold-views'
// rewrites come first: the graphs of its own test, with movement ops, views
// of views, views the _view rules replace and views nothing reads.
// RUN: lazy-opt %S/fold-views.mlir --lazy-fold-views --lazy-mark-realize --lazy-group --lazy-form-kernels --split-input-file -o %t.fold.staged
// RUN: lazy-opt %S/fold-views.mlir "--lazy-form-kernels=decide=true fold-views=true" --split-input-file -o %t.fold.decided
// RUN: diff %t.fold.staged %t.fold.decided
// Under these flags one graph cannot be lowered (as in tinygrad): the
// diagnostics must match too (without the op they print, whose marks
// differ).
// RUN: not lazy-opt %S/group.mlir --lazy-mark-realize --lazy-group="multi-output=false fuse-conv-bw=true fuse-arange=true" --lazy-form-kernels --split-input-file --mlir-print-op-on-diagnostic=false -o - > %t.flags.staged 2> %t.flags.staged.err
// RUN: not lazy-opt %S/group.mlir --lazy-form-kernels="decide=true multi-output=false fuse-conv-bw=true fuse-arange=true" --split-input-file --mlir-print-op-on-diagnostic=false -o - > %t.flags.decided 2> %t.flags.decided.err
// RUN: diff %t.flags.staged %t.flags.decided
// RUN: diff %t.flags.staged.err %t.flags.decided.err
// RUN: FileCheck %s --check-prefix=FLAGS --input-file %t.flags.decided
// RUN: FileCheck %s --check-prefix=FLAGS-ERR --input-file %t.flags.decided.err
// FLAGS: lazy.kernel
// FLAGS-ERR: error: 'lazy.reduce_sum' op cannot be lowered into a kernel
// RUN: lazy-opt %S/form-kernels.mlir --lazy-mark-realize --lazy-group --lazy-form-kernels --split-input-file --verify-diagnostics -o %t.kernels.staged
// RUN: lazy-opt %S/form-kernels.mlir --lazy-form-kernels=decide=true --split-input-file --verify-diagnostics -o %t.kernels.decided
// RUN: diff %t.kernels.staged %t.kernels.decided
// RUN: lazy-opt %s --lazy-form-kernels=decide=true --split-input-file --verify-diagnostics | FileCheck %s
// RUN: not lazy-opt %S/Inputs/decide-errors.mlir --lazy-mark-realize --lazy-group=fuse-conv-bw=true --lazy-form-kernels --split-input-file --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.errors.staged
// RUN: not lazy-opt %S/Inputs/decide-errors.mlir --lazy-form-kernels="decide=true fuse-conv-bw=true" --split-input-file --mlir-print-op-on-diagnostic=false -o /dev/null 2> %t.errors.decided
// RUN: diff %t.errors.staged %t.errors.decided
// RUN: FileCheck %S/Inputs/decide-errors.mlir --input-file %t.errors.decided

// Decided here, nothing is marked: the reduce and its elementwise child
// form one kernel.
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
