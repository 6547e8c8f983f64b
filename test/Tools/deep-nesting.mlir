// Deep nesting: the tools run on a large stack (MLIR's parser, verifier and
// printer recurse on nesting; stock mlir-opt-22 overflows its 8 MiB main
// stack on the 9,000-deep attribute below) and refuse, with a position,
// input nested deeper than 10,000 levels (the parser's time is quadratic in
// region nesting: 100,000 nested modules crashed, and would take minutes).
// RUN: printf 'module {\n%%.0s' $(seq 10001) > %t.mlir && printf '}\n%%.0s' $(seq 10001) >> %t.mlir
// RUN: not lazy-opt %t.mlir 2>&1 | FileCheck %s
// RUN: not lazy-run %t.mlir 2>&1 | FileCheck %s
// RUN: not lazy-interp %t.mlir 2>&1 | FileCheck %s
// CHECK: .mlir:10001:8: error: the input nests deeper than 10000 levels
// RUN: printf 'func.func @f() attributes {a = ' > %t2.mlir && printf '[%%.0s' $(seq 9000) >> %t2.mlir && printf ']%%.0s' $(seq 9000) >> %t2.mlir && printf '} {\n  return\n}\n' >> %t2.mlir
// RUN: lazy-opt %t2.mlir | FileCheck %s --check-prefix=DEEP
// DEEP: func.func @f() attributes {a = {{\[+}}
