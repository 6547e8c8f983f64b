// RUN: lazy-opt %s --lazy-schedule "--lazy-print-schedule=format=dot" -o /dev/null | FileCheck %s
// RUN: not lazy-opt %s --lazy-schedule "--lazy-print-schedule=format=svg" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FORMAT
// lazy-print-schedule{format=dot}: the schedule as a Graphviz digraph.

// A kernel that assigns into argument 1 (yellow, a dashed red edge from
// the argument whose contents it overwrites, and reads through its output
// slot); a copy to another device (a blue folder) read by a kernel;
// results as houses.
// CHECK-LABEL: digraph "schedule @graph" {
// CHECK: a0 [shape=invhouse, label="argument 0"];
// CHECK: a1 [shape=invhouse, label="argument 1"];
// CHECK: i0 [shape=box, style=filled, fillcolor=lightyellow, label="@graph_k0\nitem 0\nSUM ADD"];
// CHECK-NEXT: a0 -> i0 [label="16xf32, 64 B"];
// CHECK-NEXT: a1 -> i0 [style=dashed, color=red, label="assign 4xf32, 16 B"];
// CHECK-NEXT: a2 [shape=invhouse, label="argument 2"];
// CHECK-NEXT: i1 [shape=folder, style=filled, fillcolor=lightblue, label="COPY\nitem 1"];
// CHECK-NEXT: a2 -> i1 [label="4xf32, 16 B"];
// CHECK-NEXT: i2 [shape=box, label="@graph_k1\nitem 2\nMUL"];
// CHECK-NEXT: i1 -> i2 [label="4xf32, 16 B"];
// CHECK-NEXT: r0 [shape=house, label="result 0"];
// CHECK-NEXT: i0 -> r0;
// CHECK-NEXT: r1 [shape=house, label="result 1"];
// CHECK-NEXT: i2 -> r1;
// CHECK-NEXT: }
// FORMAT: error: lazy-print-schedule: unknown format 'svg' (expected 'canonical', 'bridge' or 'dot')
func.func @graph(%a: tensor<4x4xf32>, %b: tensor<4x1xf32>, %e: tensor<4xf32>) -> (tensor<4x1xf32>, tensor<4xf32, #lazy.device<"CUDA">>) {
  %r = lazy.reduce_sum %a axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  %s = lazy.add %r, %b : tensor<4x1xf32>
  %x = lazy.assign %s to %b : tensor<4x1xf32>, tensor<4x1xf32>
  %c = lazy.copy %e : tensor<4xf32> -> tensor<4xf32, #lazy.device<"CUDA">>
  %d = lazy.mul %c, %c : tensor<4xf32, #lazy.device<"CUDA">>
  return %x, %d : tensor<4x1xf32>, tensor<4xf32, #lazy.device<"CUDA">>
}
