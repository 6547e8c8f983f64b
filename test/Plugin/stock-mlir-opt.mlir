// The README's "In a stock mlir-opt" lines: both plugin flags and the
// passes inside --pass-pipeline schedule a graph; the pass plugin alone
// cannot parse the dialect, and the passes are no command-line flags.
// RUN: %mlir_opt --load-dialect-plugin=%lazy_libs/LazyPlugin%shlibext --load-pass-plugin=%lazy_libs/LazyPlugin%shlibext --pass-pipeline="builtin.module(lazy-schedule{fusion=aggressive},lazy-print-schedule)" %S/../../examples/sum_add.mlir -o /dev/null | FileCheck %s
// RUN: not %mlir_opt --load-pass-plugin=%lazy_libs/LazyPlugin%shlibext --pass-pipeline="builtin.module(lazy-schedule)" %S/../../examples/sum_add.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO-DIALECT
// RUN: not %mlir_opt --load-dialect-plugin=%lazy_libs/LazyPlugin%shlibext --load-pass-plugin=%lazy_libs/LazyPlugin%shlibext --lazy-schedule %S/../../examples/sum_add.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO-FLAG
// CHECK: schedule @step
// CHECK: moved: 1 kernels, 96 bytes
// NO-DIALECT: error: Dialect `lazy' not found
// NO-FLAG: Unknown command line argument '--lazy-schedule'
