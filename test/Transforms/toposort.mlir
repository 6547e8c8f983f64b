// RUN: lazy-opt %s --lazy-form-kernels --lazy-toposort --split-input-file --verify-diagnostics | FileCheck %s
// lazy-toposort: tinygrad's BFS over data and assign edges.

// Data edges: a kernel runs after the one producing its input even when it
// comes first in group order; the schedule is inlined into the function.
// CHECK-LABEL: func.func @data_edges
// CHECK-NOT: lazy.schedule
// CHECK: %[[E:.+]] = lazy.launch @data_edges_k1
// CHECK: lazy.launch @data_edges_k0 {{.*}} ins(%[[E]]
func.func @data_edges(%a: tensor<4x1xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = lazy.exp2 %a : tensor<4x1xf32>
  %1 = lazy.view %0 as <[(4, 4):(1, 0)]> : tensor<4x1xf32> -> tensor<4x4xf32>
  %2 = lazy.add %1, %b : tensor<4x4xf32>
  return %2 : tensor<4x4xf32>
}

// -----

// Assign edges: a kernel reading the old contents of an assigned buffer
// runs before the assign, though the assign comes first in group order.
// CHECK-LABEL: func.func @reader_before_assign
// CHECK-SAME: (%[[A:[^:]+]]: !lazy.buffer<4xf32>, %[[B:[^:]+]]: !lazy.buffer<4xf32>)
// CHECK: lazy.launch @reader_before_assign_k1 {{.*}} ins(%[[A]]
// CHECK: lazy.launch @reader_before_assign_k0 outs(%[[A]]
func.func @reader_before_assign(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = lazy.exp2 %b : tensor<4xf32>
  %1 = lazy.assign %0 to %a : tensor<4xf32>, tensor<4xf32>
  %2 = lazy.neg %a : tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A kernel that reads both the new and the old contents of a buffer needs
// edges both ways: a cycle, reported with the kernels involved.
// expected-error @+1 {{cycle detected in graph, prescheduled 2 but only scheduled 0}}
func.func @cycle(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = lazy.exp2 %a : tensor<4xf32>
  // expected-note @+1 {{@cycle_k0 is on the cycle}}
  %1 = lazy.assign %0 to %a : tensor<4xf32>, tensor<4xf32>
  // expected-note @+1 {{@cycle_k1 is on the cycle}}
  %2 = lazy.add %1, %a : tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A kernel after the cycle (it reads the looping kernel's result) is
// counted, not named: only the kernels on the cycle are.
// expected-error @+2 {{cycle detected in graph, prescheduled 3 but only scheduled 0}}
// expected-note @+1 {{1 other item waits on the cycle}}
func.func @cycle_and_after(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = lazy.exp2 %a : tensor<4xf32>
  // expected-note @+1 {{@cycle_and_after_k0 is on the cycle}}
  %1 = lazy.assign %0 to %a : tensor<4xf32>, tensor<4xf32>
  // expected-note @+1 {{@cycle_and_after_k1 is on the cycle}}
  %2 = lazy.add %1, %a : tensor<4xf32>
  %3 = lazy.const 2.0 : tensor<f32>
  %4 = lazy.view %3 as <[(4):(0)]> : tensor<f32> -> tensor<4xf32>
  %5 = lazy.mul %2, %4 : tensor<4xf32>
  %6 = lazy.contiguous %5 : tensor<4xf32>
  return %1, %2, %6 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A kernel reading a buffer_view of an assign target (it shares the
// target's memory) has no assign edge: tinygrad only orders readers of the
// target itself before its assign. Here it is ordered after the assign and
// sees the new contents, where the graph viewed the old ones: the order
// stays tinygrad's, with a warning. (Found by scripts/fuzz_compare.py
// --check-run on the emulator.)
// CHECK-LABEL: func.func @alias_read_after_assign(
// CHECK: lazy.launch @alias_read_after_assign_k0 outs(%arg0
// CHECK: lazy.launch @alias_read_after_assign_k1
func.func @alias_read_after_assign(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = lazy.buffer_view %a : tensor<4xf32> -> tensor<4xsi32>
  %1 = lazy.buffer_view %0 : tensor<4xsi32> -> tensor<4xf32>
  %c = lazy.const 0.0 : tensor<4xf32>
  %2 = lazy.assign %c to %a : tensor<4xf32>, tensor<4xf32>
  // expected-warning @+1 {{'lazy.launch' op reads a buffer_view of a buffer that @alias_read_after_assign_k0 assigns to earlier in the schedule: it sees the new contents, not the ones the graph viewed (tinygrad 0.9.2 orders the readers of an assign target before the assign but does not see the alias); read the target through .contiguous() to use its old values}}
  %3 = lazy.neg %1 : tensor<4xf32>
  return %2, %3 : tensor<4xf32>, tensor<4xf32>
}
