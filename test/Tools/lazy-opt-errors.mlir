// Bad input: a located diagnostic, a non-zero exit status, no crash, and no
// output file left behind.
// RUN: rm -f %t.out
// RUN: not lazy-opt %s -o %t.out 2>&1 | FileCheck %s
// RUN: test ! -e %t.out
// RUN: not lazy-opt %s --lazy-fold-views 2>&1 | FileCheck %s
// RUN: echo 'func.func @f(%a: tensor<4xf32>) { %0 = lazy.reshape %a : tensor<4xf32> -> tensor<5xf32> return }' | not lazy-opt 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: echo '#lazy.st<[(4):(1)' | not lazy-opt 2>&1 | FileCheck %s --check-prefix=SYNTAX

// CHECK: lazy-opt-errors.mlir:[[@LINE+2]]:8: error: 'lazy.add' op all non-scalar operands/results must have the same shape and base type
func.func @f(%a: tensor<4xf32>, %b: tensor<5xf32>) {
  %0 = "lazy.add"(%a, %b) : (tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32>
  return
}

// VERIFY: <stdin>:1:40: error: 'lazy.reshape' op reshape must preserve the number of elements
// SYNTAX: <stdin>:1:{{[0-9]+}}: error:
