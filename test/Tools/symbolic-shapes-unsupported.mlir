// Graphs with symbolic shapes (tinygrad Variables) parse and verify, but
// scheduling, lowering and running them is not built yet: every tool says
// so at the first op holding a Variable, exits non-zero and does not crash.
// RUN: not lazy-opt --lazy-schedule %s 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// RUN: not lazy-opt --lazy-fold-views %s 2>&1 | FileCheck %s --check-prefix=FOLD
// RUN: not lazy-opt --convert-lazy-to-loops %s 2>&1 | FileCheck %s --check-prefix=LOOPS
// RUN: not lazy-run %s 2>&1 | FileCheck %s --check-prefix=EXEC
// RUN: not lazy-interp %s 2>&1 | FileCheck %s --check-prefix=INTERP

// SCHEDULE: symbolic-shapes-unsupported.mlir:[[@LINE+6]]:{{[0-9]+}}: error: lazy-form-kernels does not take symbolic shapes (tinygrad Variables) yet
// FOLD: symbolic-shapes-unsupported.mlir:[[@LINE+5]]:{{[0-9]+}}: error: lazy-fold-views does not take symbolic shapes (tinygrad Variables) yet
// LOOPS: symbolic-shapes-unsupported.mlir:[[@LINE+4]]:{{[0-9]+}}: error: convert-lazy-to-loops does not take symbolic shapes (tinygrad Variables) yet
// EXEC: symbolic-shapes-unsupported.mlir:[[@LINE+3]]:{{[0-9]+}}: error: lazy-run does not take symbolic shapes (tinygrad Variables) yet
// INTERP: symbolic-shapes-unsupported.mlir:[[@LINE+2]]:{{[0-9]+}}: error: lazy-interp does not take symbolic shapes (tinygrad Variables) yet
func.func @plus_one(%x: tensor<3x4xf32> {lazy.buffer = 0 : i64}) -> tensor<3x4xf32, #lazy.sym_shape<[3, i[1:4=2]]>> {
  %0 = lazy.view %x as <[(3, i[1:4=2]):(4, 1)]> : tensor<3x4xf32> -> tensor<3x4xf32, #lazy.sym_shape<[3, i[1:4=2]]>>
  %1 = lazy.const 1.0 : tensor<f32>
  %2 = lazy.view %1 as <[(3, i[1:4=2]):(0, 0)]> : tensor<f32> -> tensor<3x4xf32, #lazy.sym_shape<[3, i[1:4=2]]>>
  %3 = lazy.add %0, %2 : tensor<3x4xf32, #lazy.sym_shape<[3, i[1:4=2]]>>
  return %3 : tensor<3x4xf32, #lazy.sym_shape<[3, i[1:4=2]]>>
}
