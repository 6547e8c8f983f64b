// Inputs: generated ones are written to in<i>.npy and reading them back
// gives the same results; .npy and argument mismatches are clear errors.
// RUN: rm -rf %t && mkdir -p %t
// RUN: lazy-interp %s --seed=3 --output-dir=%t/gen --print > %t/gen.txt
// RUN: lazy-interp %s --input=0=%t/gen/in0.npy --input=1=%t/gen/in1.npy --print > %t/read.txt
// RUN: diff %t/gen.txt %t/read.txt
// RUN: FileCheck %s --check-prefix=OUT < %t/gen.txt
// RUN: not lazy-interp %s --input=0=%t/gen/in1.npy 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not lazy-interp %s --input=0=%t/missing.npy 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: echo garbage > %t/bad.npy
// RUN: not lazy-interp %s --input=0=%t/bad.npy 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not lazy-interp %s --input=7=%t/gen/in0.npy 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not lazy-interp %s --input=x 2>&1 | FileCheck %s --check-prefix=SPEC
// RUN: not lazy-interp %s --entry=nope 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: lazy-interp --help | FileCheck %s --check-prefix=HELP --implicit-check-not=--amdgpu --implicit-check-not=--nvptx

func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xsi8>) -> (tensor<3x2xf32>, tensor<3xsi8>) {
  %t = lazy.permute %a [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %n = lazy.neg %b : tensor<3xsi8>
  return %t, %n : tensor<3x2xf32>, tensor<3xsi8>
}
// HELP: lazy-interp options:
// HELP: --input=
// OUT: out0: float (3, 2) [
// OUT: out1: char (3) [
// MISMATCH: error: input #0 has dtype char and shape (3,); the argument is 'tensor<2x3xf32>'
// MISSING: lazy-interp: error: {{.*}}missing.npy: cannot open
// BAD: lazy-interp: error: {{.*}}bad.npy: not a valid .npy file: missing the \x93NUMPY magic
// RANGE: lazy-interp: error: --input 7: the function has only 2 arguments
// SPEC: lazy-interp: error: --input expects I=PATH.npy, got 'x'
// ENTRY: lazy-interp: error: no function named 'nope'
