// RUN: lazy-opt %s --lazy-fold-views --split-input-file | FileCheck %s
// One function per rule of lazy-fold-views. Expected trackers are the ones
// tinygrad 0.9.2's ShapeTracker computes for the same movement ops.

// Rule 2: a movement op on a base becomes a view of that base.
// CHECK-LABEL: func.func @movement_on_base
// CHECK-SAME: (%[[A:.+]]: tensor<4x4xf32>
func.func @movement_on_base(%a: tensor<4x4xf32>, %b: tensor<4x1xf32>)
    -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<6x5xf32>, tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x8xf32>) {
  // CHECK: %[[P:.+]] = lazy.view %[[A]] as <[(4, 4):(1, 4)]>
  %p = lazy.permute %a [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  // CHECK: %[[E:.+]] = lazy.view %{{.+}} as <[(4, 4):(1, 0)]>
  %e = lazy.expand %b : tensor<4x1xf32> -> tensor<4x4xf32>
  // CHECK: %[[PAD:.+]] = lazy.view %[[A]] as <[(6, 5):(4, 1) offset -5 mask [(1, 5), (1, 5)]]>
  %pad = lazy.pad %a [(1, 1), (1, 0)] : tensor<4x4xf32> -> tensor<6x5xf32>
  // CHECK: %[[S:.+]] = lazy.view %[[A]] as <[(2, 3):(4, 1) offset 5]>
  %s = lazy.shrink %a [(1, 3), (1, 4)] : tensor<4x4xf32> -> tensor<2x3xf32>
  // CHECK: %[[ST:.+]] = lazy.view %[[A]] as <[(2, 4):(8, -1) offset 3]>
  %st = lazy.stride %a [2, -1] : tensor<4x4xf32> -> tensor<2x4xf32>
  // CHECK: %[[R:.+]] = lazy.view %[[A]] as <[(2, 8):(8, 1)]>
  %r = lazy.reshape %a : tensor<4x4xf32> -> tensor<2x8xf32>
  // CHECK: return %[[P]], %[[E]], %[[PAD]], %[[S]], %[[ST]], %[[R]]
  return %p, %e, %pad, %s, %st, %r : tensor<4x4xf32>, tensor<4x4xf32>, tensor<6x5xf32>, tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x8xf32>
}

// -----

// Rule 2: a chain of movement ops composes into one view of the base; the
// intermediate ops disappear.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[A:.+]]: tensor<4x4xf32>)
func.func @chain(%a: tensor<4x4xf32>) -> tensor<2x2xf32> {
  %0 = lazy.permute %a [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = lazy.shrink %0 [(0, 2), (2, 4)] : tensor<4x4xf32> -> tensor<2x2xf32>
  // CHECK-NEXT: %[[V:.+]] = lazy.view %[[A]] as <[(2, 2):(1, 4) offset 8]>
  // CHECK-NEXT: return %[[V]]
  return %1 : tensor<2x2xf32>
}

// -----

// Rule 2: a lazy.view of a view composes the two trackers.
// CHECK-LABEL: func.func @view_of_view
// CHECK-SAME: (%[[A:.+]]: tensor<16xf32>)
func.func @view_of_view(%a: tensor<16xf32>) -> tensor<2x2xf32> {
  %0 = lazy.view %a as <[(4, 4):(4, 1)]> : tensor<16xf32> -> tensor<4x4xf32>
  %1 = lazy.view %0 as <[(2, 2):(1, 4)]> : tensor<4x4xf32> -> tensor<2x2xf32>
  // CHECK-NEXT: %[[V:.+]] = lazy.view %[[A]] as <[(2, 2):(1, 4)]>
  // CHECK-NEXT: return %[[V]]
  return %1 : tensor<2x2xf32>
}

// -----

// Rule 2: a reshape that cannot merge into the last view appends a view.
// CHECK-LABEL: func.func @multi_view
// CHECK-SAME: (%[[A:.+]]: tensor<4x4xf32>)
func.func @multi_view(%a: tensor<4x4xf32>) -> tensor<16xf32> {
  %0 = lazy.permute %a [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = lazy.reshape %0 : tensor<4x4xf32> -> tensor<16xf32>
  // CHECK-NEXT: %[[V:.+]] = lazy.view %[[A]] as <[(4, 4):(1, 4), (16):(1)]>
  // CHECK-NEXT: return %[[V]]
  return %1 : tensor<16xf32>
}

// -----

// Rule 3: a contiguous tracker with the base's shape is the base itself.
// CHECK-LABEL: func.func @identity
// CHECK-SAME: (%[[A:.+]]: tensor<4x4xf32>)
func.func @identity(%a: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %0 = lazy.permute %a [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  %1 = lazy.permute %0 [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  %2 = lazy.reshape %a : tensor<4x4xf32> -> tensor<16xf32>
  %3 = lazy.reshape %2 : tensor<16xf32> -> tensor<4x4xf32>
  // CHECK-NEXT: return %[[A]], %[[A]]
  return %1, %3 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Rule 3 needs the base's shape: a contiguous reshape stays a view.
// CHECK-LABEL: func.func @contiguous_other_shape
// CHECK-SAME: (%[[A:.+]]: tensor<4x4xf32>)
func.func @contiguous_other_shape(%a: tensor<4x4xf32>) -> tensor<16xf32> {
  // CHECK-NEXT: %[[V:.+]] = lazy.view %[[A]] as <[(16):(1)]>
  %0 = lazy.reshape %a : tensor<4x4xf32> -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// Rule 4: a view with a zero-sized dimension reads nothing and becomes a
// rank-0 const 0 viewed as the result shape.
// CHECK-LABEL: func.func @zero_size
func.func @zero_size(%a: tensor<4x4xf32>) -> tensor<0x4xf32> {
  // CHECK-NEXT: %[[C:.+]] = lazy.const 0.000000e+00 : tensor<f32>
  // CHECK-NEXT: %[[V:.+]] = lazy.view %[[C]] as <[(0, 4):(0, 0)]> : tensor<f32> -> tensor<0x4xf32>
  // CHECK-NEXT: return %[[V]]
  %0 = lazy.shrink %a [(2, 2), (0, 4)] : tensor<4x4xf32> -> tensor<0x4xf32>
  return %0 : tensor<0x4xf32>
}

// -----

// Rule 4: shrinking into the padding leaves an empty mask; the const keeps
// the dtype and device.
// CHECK-LABEL: func.func @empty_mask
func.func @empty_mask(%a: tensor<4xsi32, #lazy.device<"CLANG">>) -> tensor<2xsi32, #lazy.device<"CLANG">> {
  %0 = lazy.pad %a [(2, 0)] : tensor<4xsi32, #lazy.device<"CLANG">> -> tensor<6xsi32, #lazy.device<"CLANG">>
  %1 = lazy.shrink %0 [(0, 2)] : tensor<6xsi32, #lazy.device<"CLANG">> -> tensor<2xsi32, #lazy.device<"CLANG">>
  // CHECK-NEXT: %[[C:.+]] = lazy.const 0 : tensor<si32, #lazy.device<"CLANG">>
  // CHECK-NEXT: %[[V:.+]] = lazy.view %[[C]] as <[(2):(0)]>
  // CHECK-NEXT: return %[[V]]
  return %1 : tensor<2xsi32, #lazy.device<"CLANG">>
}

// -----

// Views that are already a view of a base are kept; consumers see the base
// and view they read, and unused movement ops are erased.
// CHECK-LABEL: func.func @consumers
// CHECK-SAME: (%[[A:.+]]: tensor<4x4xf32>)
func.func @consumers(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // CHECK-NEXT: %[[V:.+]] = lazy.view %[[A]] as <[(4, 4):(1, 4)]>
  %0 = lazy.view %a as <[(4, 4):(1, 4)]> : tensor<4x4xf32> -> tensor<4x4xf32>
  %unused = lazy.stride %a [1, -1] : tensor<4x4xf32> -> tensor<4x4xf32>
  // CHECK-NEXT: %[[E:.+]] = lazy.exp2 %[[V]]
  %1 = lazy.exp2 %0 : tensor<4x4xf32>
  // CHECK-NEXT: %[[T:.+]] = lazy.view %[[E]] as <[(4, 4):(1, 4)]>
  %2 = lazy.permute %1 [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  // CHECK-NEXT: %[[S:.+]] = lazy.add %[[T]], %[[A]]
  %3 = lazy.add %2, %a : tensor<4x4xf32>
  // CHECK-NEXT: return %[[S]]
  return %3 : tensor<4x4xf32>
}

// -----

// A view of a base keeps its tracker as written (exported graphs carry
// tinygrad's own trackers), but the _view rules still apply to it.
// CHECK-LABEL: func.func @view_of_base
// CHECK-SAME: (%[[A:.+]]: tensor<2x3xf32>)
func.func @view_of_base(%a: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  // CHECK-NEXT: %[[V:.+]] = lazy.view %[[A]] as <[(2, 3):(3, 1), (3, 2):(1, 3)]>
  %0 = lazy.view %a as <[(2, 3):(3, 1), (3, 2):(1, 3)]> : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = lazy.view %a as <[(2, 3):(3, 1)]> : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK-NEXT: return %[[V]], %[[A]]
  return %0, %1 : tensor<3x2xf32>, tensor<2x3xf32>
}

// -----

// With nothing to fold, a view of a base that nothing reads is still erased
// (the pass's only change to such a function).
// CHECK-LABEL: func.func @unused_view_only
// CHECK-SAME: (%[[A:.+]]: tensor<4x4xf32>)
func.func @unused_view_only(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %unused = lazy.view %a as <[(4, 4):(1, 4)]> : tensor<4x4xf32> -> tensor<4x4xf32>
  // CHECK-NEXT: %[[N:.+]] = lazy.neg %[[A]]
  %0 = lazy.neg %a : tensor<4x4xf32>
  // CHECK-NEXT: return %[[N]]
  return %0 : tensor<4x4xf32>
}
