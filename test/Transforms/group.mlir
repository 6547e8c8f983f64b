// RUN: lazy-opt %s --lazy-mark-realize --lazy-group --split-input-file --verify-diagnostics | FileCheck %s
// RUN: lazy-opt %s --lazy-mark-realize --lazy-group="multi-output=false fuse-conv-bw=true fuse-arange=true" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=FLAGS
// One function per rule of lazy-group (tinygrad 0.9.2's reduce grouping).
// `lazy.group = G` numbers the kernels in tinygrad's order; the default
// flags are tinygrad's (multi-output on, fuse-conv-bw and fuse-arange off).

// Rule 1: a reduce fuses into its elementwise, contiguous, same-size child.
// CHECK-LABEL: func.func @reduce_into_child
// FLAGS-LABEL: func.func @reduce_into_child
func.func @reduce_into_child(%a: tensor<4x4xf32>, %b: tensor<4x1xf32>) -> tensor<4x1xf32> {
  // CHECK: lazy.reduce_sum %{{.*}} axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  %0 = lazy.reduce_sum %a axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  // CHECK: lazy.add %{{.*}} {lazy.group = 0 : i64, lazy.realize = 0 : i64}
  %1 = lazy.add %0, %b : tensor<4x1xf32>
  return %1 : tensor<4x1xf32>
}

// -----

// Rule 1 with several outputs: buffers sharing a reduce share a kernel
// (multi-output); without it each output is its own kernel.
// CHECK-LABEL: func.func @multi_output
// FLAGS-LABEL: func.func @multi_output
func.func @multi_output(%a: tensor<4x4xf32>) -> (tensor<1x1xf32>, tensor<1x1xf32>) {
  %0 = lazy.reduce_sum %a axes [0, 1] : tensor<4x4xf32> -> tensor<1x1xf32>
  // CHECK: lazy.neg %{{.*}} {lazy.group = 0 : i64, lazy.realize = 0 : i64}
  // FLAGS: lazy.neg %{{.*}} {lazy.group = 0 : i64, lazy.realize = 0 : i64}
  %1 = lazy.neg %0 : tensor<1x1xf32>
  // CHECK: lazy.exp2 %{{.*}} {lazy.group = 0 : i64, lazy.realize = 1 : i64}
  // FLAGS: lazy.exp2 %{{.*}} {lazy.group = 1 : i64, lazy.realize = 1 : i64}
  %2 = lazy.exp2 %0 : tensor<1x1xf32>
  return %1, %2 : tensor<1x1xf32>, tensor<1x1xf32>
}

// -----

// Rule 1: a reduce whose path meets another reduce realizes itself, chased
// down its single contiguous child (the add), which stops before a reduce.
// CHECK-LABEL: func.func @reduce_of_reduce
func.func @reduce_of_reduce(%a: tensor<4x4x4xf32>, %c: tensor<1x4x4xf32>) -> tensor<1x1x4xf32> {
  %0 = lazy.reduce_sum %a axes [0] : tensor<4x4x4xf32> -> tensor<1x4x4xf32>
  // CHECK: lazy.add %{{.*}} {lazy.group = 1 : i64, lazy.realize = 1 : i64}
  %1 = lazy.add %0, %c : tensor<1x4x4xf32>
  // CHECK: lazy.reduce_sum %{{.*}} {lazy.group = 0 : i64, lazy.realize = 0 : i64}
  %2 = lazy.reduce_sum %1 axes [1] : tensor<1x4x4xf32> -> tensor<1x1x4xf32>
  return %2 : tensor<1x1x4xf32>
}

// -----

// Rule 1: a child reading the reduce through two different views cannot
// fuse: the reduce realizes itself, and chasing stops at once.
// CHECK-LABEL: func.func @two_views
func.func @two_views(%a: tensor<2x2x4xf32>) -> tensor<2x2x1xf32> {
  // CHECK: lazy.reduce_sum %{{.*}} {lazy.group = 1 : i64, lazy.realize = 1 : i64}
  %0 = lazy.reduce_sum %a axes [2] : tensor<2x2x4xf32> -> tensor<2x2x1xf32>
  %1 = lazy.view %0 as <[(2, 2, 1):(1, 2, 0)]> : tensor<2x2x1xf32> -> tensor<2x2x1xf32>
  // CHECK: lazy.add %{{.*}} {lazy.group = 0 : i64, lazy.realize = 0 : i64}
  %2 = lazy.add %0, %1 : tensor<2x2x1xf32>
  return %2 : tensor<2x2x1xf32>
}

// -----

// Rule 1: one reduce per kernel. The second reduce finds the output
// already claimed by the first and realizes itself.
// CHECK-LABEL: func.func @claimed
func.func @claimed(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x1xf32> {
  %0 = lazy.reduce_sum %a axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  // CHECK: lazy.reduce_max %{{.*}} {lazy.group = 1 : i64, lazy.realize = 1 : i64}
  %1 = lazy.reduce_max %b axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  // CHECK: lazy.add %{{.*}} {lazy.group = 0 : i64, lazy.realize = 0 : i64}
  %2 = lazy.add %0, %1 : tensor<4x1xf32>
  return %2 : tensor<4x1xf32>
}

// -----

// Rule 2: a multi-output group is kept only if no member has a reduce among
// its unrealized ancestors. Here the second output also reads another
// reduce, so the first reduce realizes alone and is not chased (it has two
// children).
// CHECK-LABEL: func.func @not_isolated
func.func @not_isolated(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> (tensor<4x1xf32>, tensor<4x1xf32>) {
  // CHECK: lazy.reduce_sum %{{.*}} {lazy.group = 2 : i64, lazy.realize = 2 : i64}
  %0 = lazy.reduce_sum %a axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  // CHECK: lazy.reduce_sum %{{.*}} : tensor<4x4xf32> -> tensor<4x1xf32>
  %1 = lazy.reduce_sum %b axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  // CHECK: lazy.neg %{{.*}} {lazy.group = 0 : i64, lazy.realize = 0 : i64}
  %2 = lazy.neg %0 : tensor<4x1xf32>
  // CHECK: lazy.add %{{.*}} {lazy.group = 1 : i64, lazy.realize = 1 : i64}
  %3 = lazy.add %0, %1 : tensor<4x1xf32>
  return %2, %3 : tensor<4x1xf32>, tensor<4x1xf32>
}

// -----

// Rule 3: an assign joins a reduce's kernel only if the kernel reads no
// other assign target. @assign_fuses reads only its own target; in
// @assign_guard the reduce also reads %c, which another assign overwrites,
// so the reduce realizes alone (unchased) and runs before that assign.
// CHECK-LABEL: func.func @assign_fuses
func.func @assign_fuses(%a: tensor<4x4xf32>, %b: tensor<4x1xf32>) -> tensor<4x1xf32> {
  %0 = lazy.reduce_sum %a axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  %1 = lazy.add %0, %b : tensor<4x1xf32>
  // CHECK: lazy.assign %{{.*}} {lazy.group = 0 : i64, lazy.realize = 0 : i64}
  %2 = lazy.assign %1 to %b : tensor<4x1xf32>, tensor<4x1xf32>
  return %2 : tensor<4x1xf32>
}

// CHECK-LABEL: func.func @assign_guard
func.func @assign_guard(%a: tensor<4x4xf32>, %b: tensor<4x1xf32>, %c: tensor<4x1xf32>) -> (tensor<4x1xf32>, tensor<4x1xf32>) {
  %cv = lazy.view %c as <[(4, 4):(1, 0)]> : tensor<4x1xf32> -> tensor<4x4xf32>
  %d = lazy.add %a, %cv : tensor<4x4xf32>
  // CHECK: lazy.reduce_sum %{{.*}} {lazy.group = 2 : i64, lazy.realize = 2 : i64}
  %0 = lazy.reduce_sum %d axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  %1 = lazy.add %0, %b : tensor<4x1xf32>
  // CHECK: lazy.assign %{{.*}} to %{{.*}} {lazy.group = 0 : i64, lazy.realize = 0 : i64}
  %2 = lazy.assign %1 to %b : tensor<4x1xf32>, tensor<4x1xf32>
  %n = lazy.neg %c : tensor<4x1xf32>
  // CHECK: lazy.assign %{{.*}} to %{{.*}} {lazy.group = 1 : i64, lazy.realize = 1 : i64}
  %3 = lazy.assign %n to %c : tensor<4x1xf32>, tensor<4x1xf32>
  return %2, %3 : tensor<4x1xf32>, tensor<4x1xf32>
}

// -----

// Rule 4: chasing never stores the result of a widening cast: the half sum
// is stored, not its float copy. A narrowing cast is stored.
// CHECK-LABEL: func.func @widening_cast
func.func @widening_cast(%a: tensor<4x4xf16>) -> tensor<1x1xf32> {
  // CHECK: lazy.reduce_sum %{{.*}} {lazy.group = 1 : i64, lazy.realize = 1 : i64}
  %0 = lazy.reduce_sum %a axes [1] : tensor<4x4xf16> -> tensor<4x1xf16>
  // CHECK: lazy.cast %{{.*}} : tensor<4x1xf16> -> tensor<4x1xf32>
  %1 = lazy.cast %0 : tensor<4x1xf16> -> tensor<4x1xf32>
  %2 = lazy.reduce_sum %1 axes [0] : tensor<4x1xf32> -> tensor<1x1xf32>
  return %2 : tensor<1x1xf32>
}

// CHECK-LABEL: func.func @narrowing_cast
func.func @narrowing_cast(%a: tensor<4x4xf32>) -> tensor<1x1xf16> {
  // CHECK: lazy.reduce_sum %{{.*}} : tensor<4x4xf32> -> tensor<4x1xf32>
  %0 = lazy.reduce_sum %a axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  // CHECK: lazy.cast %{{.*}} {lazy.group = 1 : i64, lazy.realize = 1 : i64}
  %1 = lazy.cast %0 : tensor<4x1xf32> -> tensor<4x1xf16>
  %2 = lazy.reduce_sum %1 axes [0] : tensor<4x1xf16> -> tensor<1x1xf16>
  return %2 : tensor<1x1xf16>
}

// -----

// fuse-conv-bw: the inner reduce of a double reduce with a single child
// stops being a kernel of its own.
// CHECK-LABEL: func.func @double_reduce
// FLAGS-LABEL: func.func @double_reduce
func.func @double_reduce(%a: tensor<2x4x4xf32>) -> tensor<1xf32> {
  // CHECK: lazy.reduce_sum %{{.*}} {lazy.group = 1 : i64, lazy.realize = 1 : i64}
  // FLAGS: lazy.reduce_sum %{{.*}} axes [2] : tensor<2x4x4xf32> -> tensor<2x4x1xf32>
  %0 = lazy.reduce_sum %a axes [2] : tensor<2x4x4xf32> -> tensor<2x4x1xf32>
  %1 = lazy.view %0 as <[(8):(1)]> : tensor<2x4x1xf32> -> tensor<8xf32>
  // CHECK: lazy.reduce_sum %{{.*}} {lazy.group = 0 : i64, lazy.realize = 0 : i64}
  // FLAGS: lazy.reduce_sum %{{.*}} {lazy.group = 0 : i64, lazy.realize = 0 : i64}
  %2 = lazy.reduce_sum %1 axes [0] : tensor<8xf32> -> tensor<1xf32>
  return %2 : tensor<1xf32>
}

// -----

// fuse-arange: a sum over a const (tinygrad's arange, here `arange(4) + b`
// read through a reshape into another reduce) is recomputed inside its
// consumer instead of being stored.
// CHECK-LABEL: func.func @arange
// FLAGS-LABEL: func.func @arange
func.func @arange(%b: tensor<4x4xf32>) -> tensor<1x4xf32> {
  %0 = lazy.const 1 : tensor<si32>
  %1 = lazy.view %0 as <[(5, 7):(0, 0) mask [(0, 5), (3, 7)], (4, 4):(1, 8)]> : tensor<si32> -> tensor<4x4xsi32>
  %2 = lazy.reduce_sum %1 axes [1] : tensor<4x4xsi32> -> tensor<4x1xsi32>
  // CHECK: lazy.cast %{{.*}} {lazy.group = 1 : i64, lazy.realize = 1 : i64}
  // FLAGS: lazy.cast %{{.*}} : tensor<4x1xsi32> -> tensor<4x1xf32>
  %3 = lazy.cast %2 : tensor<4x1xsi32> -> tensor<4x1xf32>
  %4 = lazy.view %3 as <[(4, 4):(1, 0)]> : tensor<4x1xf32> -> tensor<4x4xf32>
  %5 = lazy.mul %4, %b : tensor<4x4xf32>
  // CHECK: lazy.reduce_sum %{{.*}} {lazy.group = 0 : i64, lazy.realize = 0 : i64}
  // FLAGS: lazy.reduce_sum %{{.*}} {lazy.group = 0 : i64, lazy.realize = 0 : i64}
  %6 = lazy.reduce_sum %5 axes [0] : tensor<4x4xf32> -> tensor<1x4xf32>
  return %6 : tensor<1x4xf32>
}
