// lazy-opt writes its -o file whole or not at all (a temporary file beside
// it, renamed on success).
// RUN: rm -rf %t && mkdir -p %t
// The input may be the output, even past 16 KB, where it is memory-mapped
// while it is read (mlir-opt's driver truncated it first: SIGBUS).
// RUN: cp %s %t/g.mlir && head -c 20000 /dev/zero | tr "\\0" " " >> %t/g.mlir
// RUN: lazy-opt %t/g.mlir --lazy-schedule -o %t/g.mlir
// RUN: FileCheck %s < %t/g.mlir
// A failing run leaves an existing output alone and creates none.
// RUN: cp %s %t/keep.mlir
// RUN: not lazy-opt %s --pass-pipeline='builtin.module(no-such-pass)' -o %t/keep.mlir 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: cmp %s %t/keep.mlir
// RUN: not lazy-opt %s --pass-pipeline='builtin.module(no-such-pass)' -o %t/none.mlir 2>/dev/null
// RUN: not test -e %t/none.mlir
// No temporary file is left behind.
// RUN: ls %t | FileCheck %s --check-prefix=FILES --implicit-check-not=tmp
// CHECK: lazy.kernel @sum_k0
// CHECK: func.func @sum
// ERR: no-such-pass
// FILES: g.mlir
// FILES: keep.mlir
func.func @sum(%a: tensor<4x4xf32> {lazy.buffer = 0 : i64}) -> tensor<4x1xf32> {
  %0 = lazy.reduce_sum %a axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}
