// RUN: lazy-opt --lazy-fold-views -split-input-file %s | FileCheck %s
// RUN: not lazy-opt --lazy-schedule -split-input-file %s 2>&1 | FileCheck %s --check-prefix=ERR
// lazy-fold-views on views that hold tinygrad Variables: a view of a view
// becomes one view of the base, composed on sints; tinygrad's _view rules
// decide on sints (a contiguous view of its base's symbolic shape is the
// base). A movement op of a symbolic view is not taken yet.

// CHECK-LABEL: func.func @view_of_view
// CHECK-NEXT: %[[V:.*]] = lazy.view %arg0 as <[(i[1:3=2], 4):(4, 1) offset 4]> : tensor<16xf32> -> tensor<3x4xf32, #lazy.sym_shape<[i[1:3=2], 4]>>
// CHECK-NEXT: lazy.exp2 %[[V]]
func.func @view_of_view(%x: tensor<16xf32> {lazy.buffer = 0 : i64}) -> tensor<3x4xf32, #lazy.sym_shape<[i[1:3=2], 4]>> {
  %0 = lazy.view %x as <[(4, 4):(4, 1)]> : tensor<16xf32> -> tensor<4x4xf32>
  %1 = lazy.view %0 as <[(i[1:3=2], 4):(4, 1) offset 4]> : tensor<4x4xf32> -> tensor<3x4xf32, #lazy.sym_shape<[i[1:3=2], 4]>>
  %2 = lazy.exp2 %1 : tensor<3x4xf32, #lazy.sym_shape<[i[1:3=2], 4]>>
  return %2 : tensor<3x4xf32, #lazy.sym_shape<[i[1:3=2], 4]>>
}

// -----

// CHECK-LABEL: func.func @view_is_its_base
// CHECK-NEXT: %[[E:.*]] = lazy.exp2 %arg0
// CHECK-NEXT: lazy.neg %[[E]]
func.func @view_is_its_base(%x: tensor<4x3xf32, #lazy.sym_shape<[4, i[1:3=2]]>> {lazy.buffer = 0 : i64}) -> tensor<4x3xf32, #lazy.sym_shape<[4, i[1:3=2]]>> {
  %0 = lazy.exp2 %x : tensor<4x3xf32, #lazy.sym_shape<[4, i[1:3=2]]>>
  %1 = lazy.view %0 as <[(4, i[1:3=2]):(i[1:3=2], 1)]> : tensor<4x3xf32, #lazy.sym_shape<[4, i[1:3=2]]>> -> tensor<4x3xf32, #lazy.sym_shape<[4, i[1:3=2]]>>
  %2 = lazy.neg %1 : tensor<4x3xf32, #lazy.sym_shape<[4, i[1:3=2]]>>
  return %2 : tensor<4x3xf32, #lazy.sym_shape<[4, i[1:3=2]]>>
}

// -----

// A view that reads nothing (an empty mask) is tinygrad's const(0, shape),
// at the symbolic shape.
// CHECK-LABEL: func.func @reads_nothing
// CHECK-NEXT: %[[Z:.*]] = lazy.const 0.000000e+00 : tensor<f32>
// CHECK-NEXT: lazy.view %[[Z]] as <[(i[1:8=2]):(0)]> : tensor<f32> -> tensor<8xf32, #lazy.sym_shape<[i[1:8=2]]>>
func.func @reads_nothing(%x: tensor<4xf32> {lazy.buffer = 0 : i64}) -> tensor<8xf32, #lazy.sym_shape<[i[1:8=2]]>> {
  %0 = lazy.view %x as <[(i[1:8=2]):(0) mask [(0, 0)]]> : tensor<4xf32> -> tensor<8xf32, #lazy.sym_shape<[i[1:8=2]]>>
  return %0 : tensor<8xf32, #lazy.sym_shape<[i[1:8=2]]>>
}

// -----

// CHECK-LABEL: func.func @moved_symbolic_view
// CHECK: lazy.permute
// ERR: fold-views-symbolic.mlir:[[@LINE+3]]:8: error: 'lazy.permute' op moves a symbolic view (a view holding tinygrad Variables), which is not supported yet; write one lazy.view of the base
func.func @moved_symbolic_view(%x: tensor<16xf32> {lazy.buffer = 0 : i64}) -> tensor<4x4xf32> {
  %0 = lazy.view %x as <[(4, 4):(i[1:4=4], 1)]> : tensor<16xf32> -> tensor<4x4xf32>
  %1 = lazy.permute %0 [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  %2 = lazy.exp2 %1 : tensor<4x4xf32>
  return %2 : tensor<4x4xf32>
}
