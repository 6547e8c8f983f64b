// RUN: not lazy-opt %s --lazy-optimize-kernels="target=generic force=nosuch:upcast:0:2" 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not lazy-opt %s --lazy-optimize-kernels="target=generic force=k:upcast:0" 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not lazy-opt %s --lazy-optimize-kernels="target=generic force=k:spread:0:2" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not lazy-opt %s --lazy-optimize-kernels="target=generic force=k:0:2:3:4" 2>&1 | FileCheck %s --check-prefix=PARTS
// RUN: not lazy-opt %s --lazy-optimize-kernels="target=generic force=k:upcast:0:3" 2>&1 | FileCheck %s --check-prefix=FIT
// RUN: not lazy-opt %s --lazy-optimize-kernels="target=generic force=k:row:0:32" 2>&1 | FileCheck %s --check-prefix=ROW
// RUN: not lazy-opt %s --lazy-optimize-kernels=target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not lazy-opt %s --lazy-optimize-kernels="target=gpu tensor-cores=tpu" 2>&1 | FileCheck %s --check-prefix=CORES
// Each bad option of lazy-optimize-kernels is an error that names it; the
// module is not changed.

// NAME: error: lazy-optimize-kernels: force names no kernel: 'nosuch'
// SYNTAX: error: lazy-optimize-kernels: force: 'k:upcast:0' is not KERNEL:KIND:AXIS:AMOUNT or KERNEL:none (kinds: upcast, unroll, tile, tc, local, group, lanes, row, block)
// UNKNOWN: error: lazy-optimize-kernels: force: 'k:spread:0:2' is not KERNEL:KIND:AXIS:AMOUNT
// PARTS: error: lazy-optimize-kernels: force: 'k:0:2:3:4' is not KERNEL:KIND:AXIS:AMOUNT
// FIT: optimize-kernels-errors.mlir:[[@LINE+5]]:1: error: lazy-optimize-kernels: the forced plan does not fit this kernel: step 0 (upcast) takes 3 elements of axis 0, which has 64 (the amount must divide it)
// ROW: optimize-kernels-errors.mlir:[[@LINE+4]]:1: error: lazy-optimize-kernels: the forced plan does not fit this kernel: step 0 (row): store group 0 does not split into rows
// TARGET: error: lazy-optimize-kernels: unknown target 'tpu' (host, generic or gpu)
// CORES: error: lazy-optimize-kernels: tensor-cores must be none, mma-sync, mfma or wmma, not 'tpu'

lazy.kernel @k(%out0: !lazy.buffer<64xf32>, %in0: !lazy.buffer<64xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(64):(1)]> : !lazy.buffer<64xf32> -> tensor<64xf32>
  lazy.store %0, %out0 as <[(64):(1)]> : tensor<64xf32>, !lazy.buffer<64xf32>
}
