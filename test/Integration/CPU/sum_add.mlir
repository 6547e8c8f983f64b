// The bundled example, scheduled, lowered to loops and run on the CPU with
// mlir-runner: out[i] = a[4+i] + a[8+i] + b[i].
// RUN: lazy-opt %S/../../../examples/sum_add.mlir --lazy-schedule --convert-lazy-to-loops -o %t.lowered.mlir
// RUN: (sed -e '/^module/d' -e '/^}$/d' %t.lowered.mlir; cat %S/Inputs/main_sum_add.mlir) > %t.full.mlir
// RUN: lazy-opt %t.full.mlir --lazy-to-cpu | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp | FileCheck %s
// CHECK: [12,  114,  216,  318]
