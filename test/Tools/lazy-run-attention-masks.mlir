// Masked attention under fusion=aggressive with online_softmax: the masks
// the scores carry (scoreMasksOf, Analysis/OnlineSoftmax.h) are computed
// ahead of each block of 16 keys, a block whose keys are all masked is not
// computed and its update is skipped, and the result still matches the
// reference interpreter. Four masks, each a different form:
//   causal_blocks  tinygrad's causal tril (an additive where over a padded,
//                  reshaped const: affine since ShapeTracker::affineValidity
//                  derives it), 2 heads x 64 keys: rows 0-15 skip three
//                  blocks; enough work for parallel tiles, each a block of
//                  64 rows with its state in an alloca scope;
//   key_padding    a bool key mask read from a buffer (additive);
//   lengths        keys below a length, from an arange (additive), 48 keys:
//                  the last block is masked for every row;
//   where_masked   where(keys < 10, scores, -inf), written by hand: the
//                  condition masks, the block of keys 16-31 is skipped;
//   ragged_rows    causal over 72 queries and keys: a block of 64 rows,
//                  then one of 8 (the rows loop's bound a min), keys in
//                  blocks of 8;
//   odd_keys       causal over 37: a block of 37 rows, keys in two blocks
//                  of 16, then the tail of 5 as blocks of 4 and 1;
//   cross_keys     4 queries against 37 keys: one pipelined row per tile,
//                  then the same tail blocks, carrying m, l and the
//                  accumulator.
// RUN: lazy-opt %s --lazy-schedule --lazy-print-schedule -o /dev/null | FileCheck %s --check-prefix=SCHED
// RUN: lazy-run %s --entry=causal_blocks --seed=1 --check | FileCheck %s
// RUN: lazy-run %s --entry=causal_blocks --seed=1 --check --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=causal_blocks --seed=7 --check-kernels | FileCheck %s --check-prefix=KERNEL
// RUN: lazy-run %s --entry=key_padding --seed=2 --check | FileCheck %s
// RUN: lazy-run %s --entry=key_padding --seed=2 --check --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=lengths --seed=3 --check | FileCheck %s
// RUN: lazy-run %s --entry=lengths --seed=3 --check --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=where_masked --seed=4 --check | FileCheck %s
// RUN: lazy-run %s --entry=where_masked --seed=4 --check --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=ragged_rows --seed=5 --check | FileCheck %s
// RUN: lazy-run %s --entry=ragged_rows --seed=5 --check --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=odd_keys --seed=6 --check | FileCheck %s
// RUN: lazy-run %s --entry=odd_keys --seed=6 --check --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=cross_keys --seed=7 --check | FileCheck %s
// RUN: lazy-run %s --entry=cross_keys --seed=7 --check --device=emulate | FileCheck %s
// Each kernel computes a block's scores only where a key is not masked
// (else -inf), and updates m, l and the accumulators only where a score
// is above -inf; the causal mask needs no division or remainder:
// RUN: lazy-opt %s --lazy-schedule | lazy-opt --lazy-optimize-kernels --convert-lazy-to-loops | FileCheck %s --check-prefix=LOOPS

// SCHED-LABEL: schedule @causal_blocks
// SCHED: SOFTMAX_SUM
// SCHED: moved: 1 kernels
// SCHED-LABEL: schedule @key_padding
// SCHED: SOFTMAX_SUM
// SCHED: moved: 1 kernels
// SCHED-LABEL: schedule @lengths
// SCHED: SOFTMAX_SUM
// SCHED: moved: 1 kernels
// SCHED-LABEL: schedule @where_masked
// SCHED: SOFTMAX_SUM
// SCHED: moved: 1 kernels
// SCHED-LABEL: schedule @ragged_rows
// SCHED: SOFTMAX_SUM
// SCHED: moved: 1 kernels

// CHECK: out0: match
// CHECK-NEXT: all outputs match
// KERNEL: kernel calls: 1, checked 1, matching 1

// LOOPS-LABEL: func.func @causal_blocks_k0
// LOOPS-NOT: arith.remsi
// LOOPS-NOT: arith.floordivsi
// LOOPS: scf.parallel
// LOOPS-SAME: step (%{{.*}}, %{{.*}}, %c64
// LOOPS-NEXT: memref.alloca_scope
// LOOPS: memref.alloca() {alignment = 64 : i64} : memref<1536xf32>
// LOOPS: %[[NEG:.*]] = vector.broadcast %{{.*}} : f32 to vector<16xf32>
// LOOPS: scf.if %{{.*}} -> (vector<16xf32>) {
// LOOPS-NEXT: scf.yield %[[NEG]] : vector<16xf32>
// LOOPS: scf.for
// LOOPS: vector.reduction <or>, %{{.*}} : vector<16xi1> into i1
// LOOPS-NEXT: scf.if %{{.*}} -> (f32, f32, vector<8xf32>) {
// LOOPS-LABEL: func.func @causal_blocks(
// LOOPS-LABEL: func.func @key_padding_k1
// LOOPS: scf.if %{{.*}} -> (vector<16xf32>) {
// LOOPS: vector.reduction <or>
// LOOPS-NEXT: scf.if %{{.*}} -> (f32, f32, vector<8xf32>) {
// LOOPS-LABEL: func.func @lengths_k2
// LOOPS: scf.if %{{.*}} -> (vector<16xf32>) {
// LOOPS: vector.reduction <or>
// LOOPS-NEXT: scf.if %{{.*}} -> (f32, f32, vector<8xf32>) {
// LOOPS-LABEL: func.func @where_masked_k3
// LOOPS: scf.if %{{.*}} -> (vector<16xf32>) {
// LOOPS: vector.reduction <or>
// LOOPS-NEXT: scf.if %{{.*}} -> (f32, f32, vector<8xf32>) {
// LOOPS-LABEL: func.func @ragged_rows_k4
// LOOPS: %[[ROWS:.*]] = arith.minsi %c64{{.*}}, %{{.*}} : index
// LOOPS: scf.for %{{.*}} = %{{.*}} to %[[ROWS]] step
// LOOPS-LABEL: func.func @odd_keys_k5
// LOOPS: scf.for %{{.*}} = %c0{{.*}} to %c32 step %c16
// LOOPS-NOT: = %c32 to %c37
// LOOPS: vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// LOOPS: vector.from_elements %{{.*}} : vector<1xf32>
// LOOPS-LABEL: func.func @cross_keys_k6
// LOOPS: scf.for %{{.*}} = %c0{{.*}} to %c32 step %c16{{.*}} iter_args
// LOOPS-NOT: = %c32 to %c37
// LOOPS: vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// LOOPS: vector.from_elements %{{.*}} : vector<1xf32>
// LOOPS-LABEL: func.func @cross_keys(

module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false, online_softmax = true, fusion = "aggressive"}} {
  func.func @causal_blocks(%arg0: tensor<1x2x64x8xf32> {lazy.buffer = 0 : i64}, %arg1: tensor<1x2x64x8xf32> {lazy.buffer = 1 : i64}, %arg2: tensor<1x2x64x8xf32> {lazy.buffer = 2 : i64}) -> tensor<1x2x64x8xf32> {
    %0 = lazy.view %arg0 as <[(1, 2, 64, 64, 8):(0, 512, 8, 0, 1)]> : tensor<1x2x64x8xf32> -> tensor<1x2x64x64x8xf32>
    %1 = lazy.view %arg1 as <[(1, 2, 64, 64, 8):(0, 512, 0, 8, 1)]> : tensor<1x2x64x8xf32> -> tensor<1x2x64x64x8xf32>
    %2 = lazy.mul %0, %1 : tensor<1x2x64x64x8xf32>
    %3 = lazy.reduce_sum %2 axes [4] : tensor<1x2x64x64x8xf32> -> tensor<1x2x64x64x1xf32>
    %4 = lazy.view %3 as <[(1, 2, 64, 64):(0, 4096, 64, 1)]> : tensor<1x2x64x64x1xf32> -> tensor<1x2x64x64xf32>
    %5 = lazy.const 0.3535533845424652 : tensor<f32>
    %6 = lazy.view %5 as <[(1, 2, 64, 64):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x64x64xf32>
    %7 = lazy.mul %4, %6 : tensor<1x2x64x64xf32>
    %8 = lazy.const true : tensor<i1>
    %9 = lazy.view %8 as <[(127, 254):(0, 0) mask [(0, 127), (0, 127)], (64, 64):(253, 1) offset 253]> : tensor<i1> -> tensor<64x64xi1>
    %10 = lazy.const 0.0 : tensor<f32>
    %11 = lazy.view %10 as <[(64, 64):(0, 0)]> : tensor<f32> -> tensor<64x64xf32>
    %12 = lazy.const 1.0 : tensor<f32>
    %13 = lazy.view %12 as <[(64, 64):(0, 0)]> : tensor<f32> -> tensor<64x64xf32>
    %14 = lazy.where %9, %11, %13 : tensor<64x64xi1>, tensor<64x64xf32>
    %15 = lazy.cast %14 : tensor<64x64xf32> -> tensor<64x64xi1>
    %16 = lazy.cast %15 : tensor<64x64xi1> -> tensor<64x64xsi32>
    %17 = lazy.const 0 : tensor<si32>
    %18 = lazy.view %17 as <[(64, 64):(0, 0)]> : tensor<si32> -> tensor<64x64xsi32>
    %19 = lazy.cmpne %16, %18 : tensor<64x64xsi32> -> tensor<64x64xi1>
    %20 = lazy.view %8 as <[(64, 64):(0, 0)]> : tensor<i1> -> tensor<64x64xi1>
    %21 = lazy.cmpne %19, %20 : tensor<64x64xi1> -> tensor<64x64xi1>
    %22 = lazy.const -inf : tensor<f32>
    %23 = lazy.view %22 as <[(64, 64):(0, 0)]> : tensor<f32> -> tensor<64x64xf32>
    %24 = lazy.const 0.0 : tensor<64x64xf32>
    %25 = lazy.where %21, %23, %24 : tensor<64x64xi1>, tensor<64x64xf32>
    %26 = lazy.view %25 as <[(1, 2, 64, 64):(0, 0, 64, 1)]> : tensor<64x64xf32> -> tensor<1x2x64x64xf32>
    %27 = lazy.add %7, %26 : tensor<1x2x64x64xf32>
    %28 = lazy.reduce_max %27 axes [3] : tensor<1x2x64x64xf32> -> tensor<1x2x64x1xf32>
    %29 = lazy.view %28 as <[(1, 2, 64, 64):(0, 64, 1, 0)]> : tensor<1x2x64x1xf32> -> tensor<1x2x64x64xf32>
    %30 = lazy.neg %29 : tensor<1x2x64x64xf32>
    %31 = lazy.add %27, %30 : tensor<1x2x64x64xf32>
    %32 = lazy.const 1.4426950408889634 : tensor<f32>
    %33 = lazy.view %32 as <[(1, 2, 64, 64):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x64x64xf32>
    %34 = lazy.mul %31, %33 : tensor<1x2x64x64xf32>
    %35 = lazy.exp2 %34 : tensor<1x2x64x64xf32>
    %36 = lazy.reduce_sum %35 axes [3] : tensor<1x2x64x64xf32> -> tensor<1x2x64x1xf32>
    %37 = lazy.view %36 as <[(1, 2, 64, 64):(0, 64, 1, 0)]> : tensor<1x2x64x1xf32> -> tensor<1x2x64x64xf32>
    %38 = lazy.recip %37 : tensor<1x2x64x64xf32>
    %39 = lazy.mul %35, %38 : tensor<1x2x64x64xf32>
    %40 = lazy.view %39 as <[(1, 2, 64, 8, 64):(0, 4096, 64, 0, 1)]> : tensor<1x2x64x64xf32> -> tensor<1x2x64x8x64xf32>
    %41 = lazy.view %arg2 as <[(1, 2, 64, 8, 64):(0, 512, 0, 1, 8)]> : tensor<1x2x64x8xf32> -> tensor<1x2x64x8x64xf32>
    %42 = lazy.mul %40, %41 : tensor<1x2x64x8x64xf32>
    %43 = lazy.reduce_sum %42 axes [4] : tensor<1x2x64x8x64xf32> -> tensor<1x2x64x8x1xf32>
    %44 = lazy.view %43 as <[(1, 2, 64, 8):(0, 512, 8, 1)]> : tensor<1x2x64x8x1xf32> -> tensor<1x2x64x8xf32>
    return %44 : tensor<1x2x64x8xf32>
  }
  func.func @key_padding(%arg0: tensor<1x2x48x8xf32> {lazy.buffer = 0 : i64}, %arg1: tensor<1x2x48x8xf32> {lazy.buffer = 1 : i64}, %arg2: tensor<48xi1> {lazy.buffer = 2 : i64}, %arg3: tensor<1x2x48x8xf32> {lazy.buffer = 3 : i64}) -> tensor<1x2x48x8xf32> {
    %0 = lazy.view %arg0 as <[(1, 2, 48, 48, 8):(0, 384, 8, 0, 1)]> : tensor<1x2x48x8xf32> -> tensor<1x2x48x48x8xf32>
    %1 = lazy.view %arg1 as <[(1, 2, 48, 48, 8):(0, 384, 0, 8, 1)]> : tensor<1x2x48x8xf32> -> tensor<1x2x48x48x8xf32>
    %2 = lazy.mul %0, %1 : tensor<1x2x48x48x8xf32>
    %3 = lazy.reduce_sum %2 axes [4] : tensor<1x2x48x48x8xf32> -> tensor<1x2x48x48x1xf32>
    %4 = lazy.view %3 as <[(1, 2, 48, 48):(0, 2304, 48, 1)]> : tensor<1x2x48x48x1xf32> -> tensor<1x2x48x48xf32>
    %5 = lazy.const 0.3535533845424652 : tensor<f32>
    %6 = lazy.view %5 as <[(1, 2, 48, 48):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x48x48xf32>
    %7 = lazy.mul %4, %6 : tensor<1x2x48x48xf32>
    %8 = lazy.view %arg2 as <[(1, 1, 1, 48):(0, 0, 0, 1)]> : tensor<48xi1> -> tensor<1x1x1x48xi1>
    %9 = lazy.cast %8 : tensor<1x1x1x48xi1> -> tensor<1x1x1x48xsi32>
    %10 = lazy.const 0 : tensor<si32>
    %11 = lazy.view %10 as <[(1, 1, 1, 48):(0, 0, 0, 0)]> : tensor<si32> -> tensor<1x1x1x48xsi32>
    %12 = lazy.cmpne %9, %11 : tensor<1x1x1x48xsi32> -> tensor<1x1x1x48xi1>
    %13 = lazy.const true : tensor<i1>
    %14 = lazy.view %13 as <[(1, 1, 1, 48):(0, 0, 0, 0)]> : tensor<i1> -> tensor<1x1x1x48xi1>
    %15 = lazy.cmpne %12, %14 : tensor<1x1x1x48xi1> -> tensor<1x1x1x48xi1>
    %16 = lazy.const -inf : tensor<f32>
    %17 = lazy.view %16 as <[(1, 1, 1, 48):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x1x1x48xf32>
    %18 = lazy.const 0.0 : tensor<1x1x1x48xf32>
    %19 = lazy.where %15, %17, %18 : tensor<1x1x1x48xi1>, tensor<1x1x1x48xf32>
    %20 = lazy.view %19 as <[(1, 2, 48, 48):(0, 0, 0, 1)]> : tensor<1x1x1x48xf32> -> tensor<1x2x48x48xf32>
    %21 = lazy.add %7, %20 : tensor<1x2x48x48xf32>
    %22 = lazy.reduce_max %21 axes [3] : tensor<1x2x48x48xf32> -> tensor<1x2x48x1xf32>
    %23 = lazy.view %22 as <[(1, 2, 48, 48):(0, 48, 1, 0)]> : tensor<1x2x48x1xf32> -> tensor<1x2x48x48xf32>
    %24 = lazy.neg %23 : tensor<1x2x48x48xf32>
    %25 = lazy.add %21, %24 : tensor<1x2x48x48xf32>
    %26 = lazy.const 1.4426950408889634 : tensor<f32>
    %27 = lazy.view %26 as <[(1, 2, 48, 48):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x48x48xf32>
    %28 = lazy.mul %25, %27 : tensor<1x2x48x48xf32>
    %29 = lazy.exp2 %28 : tensor<1x2x48x48xf32>
    %30 = lazy.reduce_sum %29 axes [3] : tensor<1x2x48x48xf32> -> tensor<1x2x48x1xf32>
    %31 = lazy.view %30 as <[(1, 2, 48, 48):(0, 48, 1, 0)]> : tensor<1x2x48x1xf32> -> tensor<1x2x48x48xf32>
    %32 = lazy.recip %31 : tensor<1x2x48x48xf32>
    %33 = lazy.mul %29, %32 : tensor<1x2x48x48xf32>
    %34 = lazy.view %33 as <[(1, 2, 48, 8, 48):(0, 2304, 48, 0, 1)]> : tensor<1x2x48x48xf32> -> tensor<1x2x48x8x48xf32>
    %35 = lazy.view %arg3 as <[(1, 2, 48, 8, 48):(0, 384, 0, 1, 8)]> : tensor<1x2x48x8xf32> -> tensor<1x2x48x8x48xf32>
    %36 = lazy.mul %34, %35 : tensor<1x2x48x8x48xf32>
    %37 = lazy.reduce_sum %36 axes [4] : tensor<1x2x48x8x48xf32> -> tensor<1x2x48x8x1xf32>
    %38 = lazy.view %37 as <[(1, 2, 48, 8):(0, 384, 8, 1)]> : tensor<1x2x48x8x1xf32> -> tensor<1x2x48x8xf32>
    return %38 : tensor<1x2x48x8xf32>
  }
  func.func @lengths(%arg0: tensor<1x2x48x8xf32> {lazy.buffer = 0 : i64}, %arg1: tensor<1x2x48x8xf32> {lazy.buffer = 1 : i64}, %arg2: tensor<1x2x48x8xf32> {lazy.buffer = 2 : i64}) -> tensor<1x2x48x8xf32> {
    %0 = lazy.view %arg0 as <[(1, 2, 48, 48, 8):(0, 384, 8, 0, 1)]> : tensor<1x2x48x8xf32> -> tensor<1x2x48x48x8xf32>
    %1 = lazy.view %arg1 as <[(1, 2, 48, 48, 8):(0, 384, 0, 8, 1)]> : tensor<1x2x48x8xf32> -> tensor<1x2x48x48x8xf32>
    %2 = lazy.mul %0, %1 : tensor<1x2x48x48x8xf32>
    %3 = lazy.reduce_sum %2 axes [4] : tensor<1x2x48x48x8xf32> -> tensor<1x2x48x48x1xf32>
    %4 = lazy.view %3 as <[(1, 2, 48, 48):(0, 2304, 48, 1)]> : tensor<1x2x48x48x1xf32> -> tensor<1x2x48x48xf32>
    %5 = lazy.const 0.3535533845424652 : tensor<f32>
    %6 = lazy.view %5 as <[(1, 2, 48, 48):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x48x48xf32>
    %7 = lazy.mul %4, %6 : tensor<1x2x48x48xf32>
    %8 = lazy.const 1 : tensor<si32>
    %9 = lazy.view %8 as <[(49, 95):(0, 0) mask [(0, 49), (47, 95)], (48, 48):(1, 96)]> : tensor<si32> -> tensor<48x48xsi32>
    %10 = lazy.reduce_sum %9 axes [1] : tensor<48x48xsi32> -> tensor<48x1xsi32>
    %11 = lazy.view %10 as <[(48):(1)]> : tensor<48x1xsi32> -> tensor<48xsi32>
    %12 = lazy.const -1 : tensor<si32>
    %13 = lazy.view %12 as <[(48):(0)]> : tensor<si32> -> tensor<48xsi32>
    %14 = lazy.add %11, %13 : tensor<48xsi32>
    %15 = lazy.const 20 : tensor<si32>
    %16 = lazy.view %15 as <[(48):(0)]> : tensor<si32> -> tensor<48xsi32>
    %17 = lazy.cmplt %14, %16 {lazy.external} : tensor<48xsi32> -> tensor<48xi1>
    %18 = lazy.view %17 as <[(1, 1, 1, 48):(0, 0, 0, 1)]> : tensor<48xi1> -> tensor<1x1x1x48xi1>
    %19 = lazy.cast %18 : tensor<1x1x1x48xi1> -> tensor<1x1x1x48xsi32>
    %20 = lazy.const 0 : tensor<si32>
    %21 = lazy.view %20 as <[(1, 1, 1, 48):(0, 0, 0, 0)]> : tensor<si32> -> tensor<1x1x1x48xsi32>
    %22 = lazy.cmpne %19, %21 : tensor<1x1x1x48xsi32> -> tensor<1x1x1x48xi1>
    %23 = lazy.const true : tensor<i1>
    %24 = lazy.view %23 as <[(1, 1, 1, 48):(0, 0, 0, 0)]> : tensor<i1> -> tensor<1x1x1x48xi1>
    %25 = lazy.cmpne %22, %24 : tensor<1x1x1x48xi1> -> tensor<1x1x1x48xi1>
    %26 = lazy.const -inf : tensor<f32>
    %27 = lazy.view %26 as <[(1, 1, 1, 48):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x1x1x48xf32>
    %28 = lazy.const 0.0 : tensor<1x1x1x48xf32>
    %29 = lazy.where %25, %27, %28 : tensor<1x1x1x48xi1>, tensor<1x1x1x48xf32>
    %30 = lazy.view %29 as <[(1, 2, 48, 48):(0, 0, 0, 1)]> : tensor<1x1x1x48xf32> -> tensor<1x2x48x48xf32>
    %31 = lazy.add %7, %30 : tensor<1x2x48x48xf32>
    %32 = lazy.reduce_max %31 axes [3] : tensor<1x2x48x48xf32> -> tensor<1x2x48x1xf32>
    %33 = lazy.view %32 as <[(1, 2, 48, 48):(0, 48, 1, 0)]> : tensor<1x2x48x1xf32> -> tensor<1x2x48x48xf32>
    %34 = lazy.neg %33 : tensor<1x2x48x48xf32>
    %35 = lazy.add %31, %34 : tensor<1x2x48x48xf32>
    %36 = lazy.const 1.4426950408889634 : tensor<f32>
    %37 = lazy.view %36 as <[(1, 2, 48, 48):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x48x48xf32>
    %38 = lazy.mul %35, %37 : tensor<1x2x48x48xf32>
    %39 = lazy.exp2 %38 : tensor<1x2x48x48xf32>
    %40 = lazy.reduce_sum %39 axes [3] : tensor<1x2x48x48xf32> -> tensor<1x2x48x1xf32>
    %41 = lazy.view %40 as <[(1, 2, 48, 48):(0, 48, 1, 0)]> : tensor<1x2x48x1xf32> -> tensor<1x2x48x48xf32>
    %42 = lazy.recip %41 : tensor<1x2x48x48xf32>
    %43 = lazy.mul %39, %42 : tensor<1x2x48x48xf32>
    %44 = lazy.view %43 as <[(1, 2, 48, 8, 48):(0, 2304, 48, 0, 1)]> : tensor<1x2x48x48xf32> -> tensor<1x2x48x8x48xf32>
    %45 = lazy.view %arg2 as <[(1, 2, 48, 8, 48):(0, 384, 0, 1, 8)]> : tensor<1x2x48x8xf32> -> tensor<1x2x48x8x48xf32>
    %46 = lazy.mul %44, %45 : tensor<1x2x48x8x48xf32>
    %47 = lazy.reduce_sum %46 axes [4] : tensor<1x2x48x8x48xf32> -> tensor<1x2x48x8x1xf32>
    %48 = lazy.view %47 as <[(1, 2, 48, 8):(0, 384, 8, 1)]> : tensor<1x2x48x8x1xf32> -> tensor<1x2x48x8xf32>
    return %48 : tensor<1x2x48x8xf32>
  }
  func.func @where_masked(%arg0: tensor<1x2x32x8xf32> {lazy.buffer = 0 : i64}, %arg1: tensor<1x2x32x8xf32> {lazy.buffer = 1 : i64}, %arg2: tensor<1x2x32x8xf32> {lazy.buffer = 2 : i64}) -> tensor<1x2x32x8xf32> {
    %0 = lazy.view %arg0 as <[(1, 2, 32, 32, 8):(0, 256, 8, 0, 1)]> : tensor<1x2x32x8xf32> -> tensor<1x2x32x32x8xf32>
    %1 = lazy.view %arg1 as <[(1, 2, 32, 32, 8):(0, 256, 0, 8, 1)]> : tensor<1x2x32x8xf32> -> tensor<1x2x32x32x8xf32>
    %2 = lazy.mul %0, %1 : tensor<1x2x32x32x8xf32>
    %3 = lazy.reduce_sum %2 axes [4] : tensor<1x2x32x32x8xf32> -> tensor<1x2x32x32x1xf32>
    %4 = lazy.view %3 as <[(1, 2, 32, 32):(0, 1024, 32, 1)]> : tensor<1x2x32x32x1xf32> -> tensor<1x2x32x32xf32>
    %5 = lazy.const 0.3535533845424652 : tensor<f32>
    %6 = lazy.view %5 as <[(1, 2, 32, 32):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x32x32xf32>
    %7 = lazy.mul %4, %6 : tensor<1x2x32x32xf32>
    %keep = lazy.const true : tensor<i1>
    %below10 = lazy.view %keep as <[(1, 2, 32, 32):(0, 0, 0, 0) mask [(0, 1), (0, 2), (0, 32), (0, 10)]]> : tensor<i1> -> tensor<1x2x32x32xi1>
    %ninf = lazy.const -inf : tensor<f32>
    %ninfs = lazy.view %ninf as <[(1, 2, 32, 32):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x32x32xf32>
    %masked = lazy.where %below10, %7, %ninfs : tensor<1x2x32x32xi1>, tensor<1x2x32x32xf32>
    %8 = lazy.reduce_max %masked axes [3] : tensor<1x2x32x32xf32> -> tensor<1x2x32x1xf32>
    %9 = lazy.view %8 as <[(1, 2, 32, 32):(0, 32, 1, 0)]> : tensor<1x2x32x1xf32> -> tensor<1x2x32x32xf32>
    %10 = lazy.neg %9 : tensor<1x2x32x32xf32>
    %11 = lazy.add %masked, %10 : tensor<1x2x32x32xf32>
    %12 = lazy.const 1.4426950408889634 : tensor<f32>
    %13 = lazy.view %12 as <[(1, 2, 32, 32):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x32x32xf32>
    %14 = lazy.mul %11, %13 : tensor<1x2x32x32xf32>
    %15 = lazy.exp2 %14 : tensor<1x2x32x32xf32>
    %16 = lazy.reduce_sum %15 axes [3] : tensor<1x2x32x32xf32> -> tensor<1x2x32x1xf32>
    %17 = lazy.view %16 as <[(1, 2, 32, 32):(0, 32, 1, 0)]> : tensor<1x2x32x1xf32> -> tensor<1x2x32x32xf32>
    %18 = lazy.recip %17 : tensor<1x2x32x32xf32>
    %19 = lazy.mul %15, %18 : tensor<1x2x32x32xf32>
    %20 = lazy.view %19 as <[(1, 2, 32, 8, 32):(0, 1024, 32, 0, 1)]> : tensor<1x2x32x32xf32> -> tensor<1x2x32x8x32xf32>
    %21 = lazy.view %arg2 as <[(1, 2, 32, 8, 32):(0, 256, 0, 1, 8)]> : tensor<1x2x32x8xf32> -> tensor<1x2x32x8x32xf32>
    %22 = lazy.mul %20, %21 : tensor<1x2x32x8x32xf32>
    %23 = lazy.reduce_sum %22 axes [4] : tensor<1x2x32x8x32xf32> -> tensor<1x2x32x8x1xf32>
    %24 = lazy.view %23 as <[(1, 2, 32, 8):(0, 256, 8, 1)]> : tensor<1x2x32x8x1xf32> -> tensor<1x2x32x8xf32>
    return %24 : tensor<1x2x32x8xf32>
  }
  func.func @ragged_rows(%arg0: tensor<1x1x72x8xf32> {lazy.buffer = 0 : i64}, %arg1: tensor<1x1x72x8xf32> {lazy.buffer = 1 : i64}, %arg2: tensor<1x1x72x8xf32> {lazy.buffer = 2 : i64}) -> tensor<1x1x72x8xf32> {
    %0 = lazy.view %arg0 as <[(1, 1, 72, 72, 8):(0, 0, 8, 0, 1)]> : tensor<1x1x72x8xf32> -> tensor<1x1x72x72x8xf32>
    %1 = lazy.view %arg1 as <[(1, 1, 72, 72, 8):(0, 0, 0, 8, 1)]> : tensor<1x1x72x8xf32> -> tensor<1x1x72x72x8xf32>
    %2 = lazy.mul %0, %1 : tensor<1x1x72x72x8xf32>
    %3 = lazy.reduce_sum %2 axes [4] : tensor<1x1x72x72x8xf32> -> tensor<1x1x72x72x1xf32>
    %4 = lazy.view %3 as <[(1, 1, 72, 72):(0, 0, 72, 1)]> : tensor<1x1x72x72x1xf32> -> tensor<1x1x72x72xf32>
    %5 = lazy.const 0.3535533845424652 : tensor<f32>
    %6 = lazy.view %5 as <[(1, 1, 72, 72):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x1x72x72xf32>
    %7 = lazy.mul %4, %6 : tensor<1x1x72x72xf32>
    %8 = lazy.const true : tensor<i1>
    %9 = lazy.view %8 as <[(143, 286):(0, 0) mask [(0, 143), (0, 143)], (72, 72):(285, 1) offset 285]> : tensor<i1> -> tensor<72x72xi1>
    %10 = lazy.const 0.0 : tensor<f32>
    %11 = lazy.view %10 as <[(72, 72):(0, 0)]> : tensor<f32> -> tensor<72x72xf32>
    %12 = lazy.const 1.0 : tensor<f32>
    %13 = lazy.view %12 as <[(72, 72):(0, 0)]> : tensor<f32> -> tensor<72x72xf32>
    %14 = lazy.where %9, %11, %13 : tensor<72x72xi1>, tensor<72x72xf32>
    %15 = lazy.cast %14 : tensor<72x72xf32> -> tensor<72x72xi1>
    %16 = lazy.cast %15 : tensor<72x72xi1> -> tensor<72x72xsi32>
    %17 = lazy.const 0 : tensor<si32>
    %18 = lazy.view %17 as <[(72, 72):(0, 0)]> : tensor<si32> -> tensor<72x72xsi32>
    %19 = lazy.cmpne %16, %18 : tensor<72x72xsi32> -> tensor<72x72xi1>
    %20 = lazy.view %8 as <[(72, 72):(0, 0)]> : tensor<i1> -> tensor<72x72xi1>
    %21 = lazy.cmpne %19, %20 : tensor<72x72xi1> -> tensor<72x72xi1>
    %22 = lazy.const -inf : tensor<f32>
    %23 = lazy.view %22 as <[(72, 72):(0, 0)]> : tensor<f32> -> tensor<72x72xf32>
    %24 = lazy.const 0.0 : tensor<72x72xf32>
    %25 = lazy.where %21, %23, %24 : tensor<72x72xi1>, tensor<72x72xf32>
    %26 = lazy.view %25 as <[(1, 1, 72, 72):(0, 0, 72, 1)]> : tensor<72x72xf32> -> tensor<1x1x72x72xf32>
    %27 = lazy.add %7, %26 : tensor<1x1x72x72xf32>
    %28 = lazy.reduce_max %27 axes [3] : tensor<1x1x72x72xf32> -> tensor<1x1x72x1xf32>
    %29 = lazy.view %28 as <[(1, 1, 72, 72):(0, 0, 1, 0)]> : tensor<1x1x72x1xf32> -> tensor<1x1x72x72xf32>
    %30 = lazy.neg %29 : tensor<1x1x72x72xf32>
    %31 = lazy.add %27, %30 : tensor<1x1x72x72xf32>
    %32 = lazy.const 1.4426950408889634 : tensor<f32>
    %33 = lazy.view %32 as <[(1, 1, 72, 72):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x1x72x72xf32>
    %34 = lazy.mul %31, %33 : tensor<1x1x72x72xf32>
    %35 = lazy.exp2 %34 : tensor<1x1x72x72xf32>
    %36 = lazy.reduce_sum %35 axes [3] : tensor<1x1x72x72xf32> -> tensor<1x1x72x1xf32>
    %37 = lazy.view %36 as <[(1, 1, 72, 72):(0, 0, 1, 0)]> : tensor<1x1x72x1xf32> -> tensor<1x1x72x72xf32>
    %38 = lazy.recip %37 : tensor<1x1x72x72xf32>
    %39 = lazy.mul %35, %38 : tensor<1x1x72x72xf32>
    %40 = lazy.view %39 as <[(1, 1, 72, 8, 72):(0, 0, 72, 0, 1)]> : tensor<1x1x72x72xf32> -> tensor<1x1x72x8x72xf32>
    %41 = lazy.view %arg2 as <[(1, 1, 72, 8, 72):(0, 0, 0, 1, 8)]> : tensor<1x1x72x8xf32> -> tensor<1x1x72x8x72xf32>
    %42 = lazy.mul %40, %41 : tensor<1x1x72x8x72xf32>
    %43 = lazy.reduce_sum %42 axes [4] : tensor<1x1x72x8x72xf32> -> tensor<1x1x72x8x1xf32>
    %44 = lazy.view %43 as <[(1, 1, 72, 8):(0, 0, 8, 1)]> : tensor<1x1x72x8x1xf32> -> tensor<1x1x72x8xf32>
    return %44 : tensor<1x1x72x8xf32>
  }
  func.func @odd_keys(%arg0: tensor<1x2x37x8xf32> {lazy.buffer = 0 : i64}, %arg1: tensor<1x2x37x8xf32> {lazy.buffer = 1 : i64}, %arg2: tensor<1x2x37x8xf32> {lazy.buffer = 2 : i64}) -> tensor<1x2x37x8xf32> {
    %0 = lazy.view %arg0 as <[(1, 2, 37, 37, 8):(0, 296, 8, 0, 1)]> : tensor<1x2x37x8xf32> -> tensor<1x2x37x37x8xf32>
    %1 = lazy.view %arg1 as <[(1, 2, 37, 37, 8):(0, 296, 0, 8, 1)]> : tensor<1x2x37x8xf32> -> tensor<1x2x37x37x8xf32>
    %2 = lazy.mul %0, %1 : tensor<1x2x37x37x8xf32>
    %3 = lazy.reduce_sum %2 axes [4] : tensor<1x2x37x37x8xf32> -> tensor<1x2x37x37x1xf32>
    %4 = lazy.view %3 as <[(1, 2, 37, 37):(0, 1369, 37, 1)]> : tensor<1x2x37x37x1xf32> -> tensor<1x2x37x37xf32>
    %5 = lazy.const 0.3535533845424652 : tensor<f32>
    %6 = lazy.view %5 as <[(1, 2, 37, 37):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x37x37xf32>
    %7 = lazy.mul %4, %6 : tensor<1x2x37x37xf32>
    %8 = lazy.const true : tensor<i1>
    %9 = lazy.view %8 as <[(73, 146):(0, 0) mask [(0, 73), (0, 73)], (37, 37):(145, 1) offset 145]> : tensor<i1> -> tensor<37x37xi1>
    %10 = lazy.const 0.0 : tensor<f32>
    %11 = lazy.view %10 as <[(37, 37):(0, 0)]> : tensor<f32> -> tensor<37x37xf32>
    %12 = lazy.const 1.0 : tensor<f32>
    %13 = lazy.view %12 as <[(37, 37):(0, 0)]> : tensor<f32> -> tensor<37x37xf32>
    %14 = lazy.where %9, %11, %13 : tensor<37x37xi1>, tensor<37x37xf32>
    %15 = lazy.cast %14 : tensor<37x37xf32> -> tensor<37x37xi1>
    %16 = lazy.cast %15 : tensor<37x37xi1> -> tensor<37x37xsi32>
    %17 = lazy.const 0 : tensor<si32>
    %18 = lazy.view %17 as <[(37, 37):(0, 0)]> : tensor<si32> -> tensor<37x37xsi32>
    %19 = lazy.cmpne %16, %18 : tensor<37x37xsi32> -> tensor<37x37xi1>
    %20 = lazy.view %8 as <[(37, 37):(0, 0)]> : tensor<i1> -> tensor<37x37xi1>
    %21 = lazy.cmpne %19, %20 : tensor<37x37xi1> -> tensor<37x37xi1>
    %22 = lazy.const -inf : tensor<f32>
    %23 = lazy.view %22 as <[(37, 37):(0, 0)]> : tensor<f32> -> tensor<37x37xf32>
    %24 = lazy.const 0.0 : tensor<37x37xf32>
    %25 = lazy.where %21, %23, %24 : tensor<37x37xi1>, tensor<37x37xf32>
    %26 = lazy.view %25 as <[(1, 2, 37, 37):(0, 0, 37, 1)]> : tensor<37x37xf32> -> tensor<1x2x37x37xf32>
    %27 = lazy.add %7, %26 : tensor<1x2x37x37xf32>
    %28 = lazy.reduce_max %27 axes [3] : tensor<1x2x37x37xf32> -> tensor<1x2x37x1xf32>
    %29 = lazy.view %28 as <[(1, 2, 37, 37):(0, 37, 1, 0)]> : tensor<1x2x37x1xf32> -> tensor<1x2x37x37xf32>
    %30 = lazy.neg %29 : tensor<1x2x37x37xf32>
    %31 = lazy.add %27, %30 : tensor<1x2x37x37xf32>
    %32 = lazy.const 1.4426950408889634 : tensor<f32>
    %33 = lazy.view %32 as <[(1, 2, 37, 37):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x37x37xf32>
    %34 = lazy.mul %31, %33 : tensor<1x2x37x37xf32>
    %35 = lazy.exp2 %34 : tensor<1x2x37x37xf32>
    %36 = lazy.reduce_sum %35 axes [3] : tensor<1x2x37x37xf32> -> tensor<1x2x37x1xf32>
    %37 = lazy.view %36 as <[(1, 2, 37, 37):(0, 37, 1, 0)]> : tensor<1x2x37x1xf32> -> tensor<1x2x37x37xf32>
    %38 = lazy.recip %37 : tensor<1x2x37x37xf32>
    %39 = lazy.mul %35, %38 : tensor<1x2x37x37xf32>
    %40 = lazy.view %39 as <[(1, 2, 37, 8, 37):(0, 1369, 37, 0, 1)]> : tensor<1x2x37x37xf32> -> tensor<1x2x37x8x37xf32>
    %41 = lazy.view %arg2 as <[(1, 2, 37, 8, 37):(0, 296, 0, 1, 8)]> : tensor<1x2x37x8xf32> -> tensor<1x2x37x8x37xf32>
    %42 = lazy.mul %40, %41 : tensor<1x2x37x8x37xf32>
    %43 = lazy.reduce_sum %42 axes [4] : tensor<1x2x37x8x37xf32> -> tensor<1x2x37x8x1xf32>
    %44 = lazy.view %43 as <[(1, 2, 37, 8):(0, 296, 8, 1)]> : tensor<1x2x37x8x1xf32> -> tensor<1x2x37x8xf32>
    return %44 : tensor<1x2x37x8xf32>
  }
  func.func @cross_keys(%arg0: tensor<1x2x4x8xf32> {lazy.buffer = 0 : i64}, %arg1: tensor<1x2x37x8xf32> {lazy.buffer = 1 : i64}, %arg2: tensor<1x2x37x8xf32> {lazy.buffer = 2 : i64}) -> tensor<1x2x4x8xf32> {
    %0 = lazy.view %arg0 as <[(1, 2, 4, 37, 8):(0, 32, 8, 0, 1)]> : tensor<1x2x4x8xf32> -> tensor<1x2x4x37x8xf32>
    %1 = lazy.view %arg1 as <[(1, 2, 4, 37, 8):(0, 296, 0, 8, 1)]> : tensor<1x2x37x8xf32> -> tensor<1x2x4x37x8xf32>
    %2 = lazy.mul %0, %1 : tensor<1x2x4x37x8xf32>
    %3 = lazy.reduce_sum %2 axes [4] : tensor<1x2x4x37x8xf32> -> tensor<1x2x4x37x1xf32>
    %4 = lazy.view %3 as <[(1, 2, 4, 37):(0, 148, 37, 1)]> : tensor<1x2x4x37x1xf32> -> tensor<1x2x4x37xf32>
    %5 = lazy.const 0.3535533845424652 : tensor<f32>
    %6 = lazy.view %5 as <[(1, 2, 4, 37):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x4x37xf32>
    %7 = lazy.mul %4, %6 : tensor<1x2x4x37xf32>
    %8 = lazy.reduce_max %7 axes [3] : tensor<1x2x4x37xf32> -> tensor<1x2x4x1xf32>
    %9 = lazy.view %8 as <[(1, 2, 4, 37):(0, 4, 1, 0)]> : tensor<1x2x4x1xf32> -> tensor<1x2x4x37xf32>
    %10 = lazy.neg %9 : tensor<1x2x4x37xf32>
    %11 = lazy.add %7, %10 : tensor<1x2x4x37xf32>
    %12 = lazy.const 1.4426950408889634 : tensor<f32>
    %13 = lazy.view %12 as <[(1, 2, 4, 37):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x4x37xf32>
    %14 = lazy.mul %11, %13 : tensor<1x2x4x37xf32>
    %15 = lazy.exp2 %14 : tensor<1x2x4x37xf32>
    %16 = lazy.reduce_sum %15 axes [3] : tensor<1x2x4x37xf32> -> tensor<1x2x4x1xf32>
    %17 = lazy.view %16 as <[(1, 2, 4, 37):(0, 4, 1, 0)]> : tensor<1x2x4x1xf32> -> tensor<1x2x4x37xf32>
    %18 = lazy.recip %17 : tensor<1x2x4x37xf32>
    %19 = lazy.mul %15, %18 : tensor<1x2x4x37xf32>
    %20 = lazy.view %19 as <[(1, 2, 4, 8, 37):(0, 148, 37, 0, 1)]> : tensor<1x2x4x37xf32> -> tensor<1x2x4x8x37xf32>
    %21 = lazy.view %arg2 as <[(1, 2, 4, 8, 37):(0, 296, 0, 1, 8)]> : tensor<1x2x37x8xf32> -> tensor<1x2x4x8x37xf32>
    %22 = lazy.mul %20, %21 : tensor<1x2x4x8x37xf32>
    %23 = lazy.reduce_sum %22 axes [4] : tensor<1x2x4x8x37xf32> -> tensor<1x2x4x8x1xf32>
    %24 = lazy.view %23 as <[(1, 2, 4, 8):(0, 32, 8, 1)]> : tensor<1x2x4x8x1xf32> -> tensor<1x2x4x8xf32>
    return %24 : tensor<1x2x4x8xf32>
  }
}
