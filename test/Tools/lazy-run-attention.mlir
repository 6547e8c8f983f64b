// Attention under fusion=aggressive (rule 6, lazy-online-softmax): tinygrad
// 0.9.2's scaled_dot_product_attention (exported from tinygrad: plain,
// causal through tril over aranges, odd sizes, f16) schedules into one
// kernel whose softmax_sum computes each score once, and matches the
// reference interpreter on the CPU and on the GPU emulator.
// RUN: lazy-opt %s --lazy-schedule --lazy-print-schedule -o /dev/null | FileCheck %s --check-prefix=SCHED
// RUN: lazy-run %s --entry=plain --seed=1 --check | FileCheck %s
// RUN: lazy-run %s --entry=plain --seed=1 --check --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=causal --seed=2 --check | FileCheck %s
// RUN: lazy-run %s --entry=causal --seed=2 --check --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=odd --seed=3 --check | FileCheck %s
// RUN: lazy-run %s --entry=odd --seed=3 --check --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=causal_half --seed=4 --check | FileCheck %s
// Scores capped by 30 tanh(x / 30), V cast to f32 before it is permuted
// (the weights read through a computed view: lane by lane):
// RUN: lazy-run %s --entry=soft_cap_half --seed=7 --check | FileCheck %s
// RUN: lazy-run %s --entry=soft_cap_half --seed=7 --check --device=emulate | FileCheck %s
// Each kernel call against the interpreter's lazy.softmax_sum (its
// definition, in double):
// RUN: lazy-run %s --entry=causal --seed=6 --check-kernels | FileCheck %s --check-prefix=KERNEL
// Probabilities that are an output themselves stay stored: no rewrite
// (rule 6 takes back only what nothing else needs).
// RUN: lazy-run %s --entry=probs_out --seed=5 --check | FileCheck %s --check-prefix=TWO
// The GPU lowerings compile it: a thread per query row (32 rows), its
// head dim of 8 in two vectors of 4 lanes, each score computed once:
// RUN: lazy-opt %s --lazy-schedule | lazy-opt --convert-lazy-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: lazy-opt %s --lazy-schedule | lazy-opt --lazy-to-nvvm="format=isa" | FileCheck %s --check-prefix=PTX
// RUN: lazy-opt %s --lazy-schedule | lazy-opt --lazy-to-rocdl="format=isa" | FileCheck %s --check-prefix=AMD
// The flag off (online-softmax=false; on by default), aggressive fusion
// stores the scores and the probabilities (3 kernels):
// RUN: lazy-opt %s --lazy-schedule=online-softmax=false --lazy-print-schedule -o /dev/null | FileCheck %s --check-prefix=OFF
// The schedule allocates the output alone, no buffer of the scores
// (S x S per head), and no max is left in the kernel:
// RUN: lazy-opt %s --lazy-schedule | FileCheck %s --check-prefix=ALLOC
// On the CPU a tile is a block of 16 query rows (the weights, V, are the
// same for every row; f16 ones cast up too), their state in a scratch of
// 16 rows x (m, l, one vector of 8) f32:
// RUN: lazy-opt %s --lazy-schedule | lazy-opt --lazy-optimize-kernels --convert-lazy-to-loops | FileCheck %s --check-prefix=ROWS

// SCHED-LABEL: schedule @plain
// SCHED: item 0 KERNEL outs=1 ins=3
// SCHED: SOFTMAX_SUM
// SCHED: moved: 1 kernels
// SCHED-LABEL: schedule @causal
// SCHED: SOFTMAX_SUM
// SCHED: moved: 1 kernels
// SCHED-LABEL: schedule @odd
// SCHED: SOFTMAX_SUM
// SCHED: moved: 1 kernels
// SCHED-LABEL: schedule @causal_half
// SCHED: SOFTMAX_SUM
// SCHED-NEXT: CAST half
// SCHED: moved: 1 kernels
// SCHED-LABEL: schedule @probs_out
// SCHED-NOT: SOFTMAX_SUM
// SCHED: moved: 3 kernels

// GPU-LABEL: gpu.func @plain_k0
// GPU: %[[N:.*]] = arith.constant 32 : index
// GPU-NEXT: scf.for %{{.*}} = %{{.*}} to %[[N]] step
// GPU-NOT: gpu.func
// GPU: vector<4xf32>
// GPU-LABEL: gpu.func @causal_k1

// PTX: ex2.approx.f32
// PTX: fma.rn.f32
// AMD: v_exp_f32

// OFF-LABEL: schedule @plain
// OFF-NOT: SOFTMAX_SUM
// OFF: moved: 3 kernels

// ALLOC-LABEL: lazy.kernel @plain_k0
// ALLOC-NOT: lazy.reduce_max
// ALLOC: lazy.softmax_sum
// ALLOC-LABEL: func.func @plain
// ALLOC-NEXT: lazy.alloc : !lazy.buffer<256xf32>
// ALLOC-NEXT: lazy.launch @plain_k0
// ALLOC-NEXT: return
// ALLOC-LABEL: lazy.kernel @causal_k1
// ALLOC-NOT: lazy.reduce_max
// ALLOC: lazy.softmax_sum
// ALLOC-LABEL: func.func @causal
// ALLOC-NEXT: lazy.alloc : !lazy.buffer<256xf32>
// ALLOC-NEXT: lazy.launch @causal_k1
// ALLOC-NEXT: return
// ALLOC-LABEL: lazy.kernel @odd_k2

// ROWS-LABEL: func.func @plain_k0
// ROWS: memref.alloca() {alignment = 64 : i64} : memref<384xf32>
// ROWS-LABEL: func.func @causal_half_k3
// ROWS: memref.alloca() {alignment = 64 : i64} : memref<384xf32>

// CHECK: out0: match
// CHECK-NEXT: all outputs match
// KERNEL: kernel calls: 1, checked 1, matching 1
// TWO: out0: match
// TWO-NEXT: out1: match
// TWO-NEXT: all outputs match
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false, online_softmax = true, fusion = "aggressive"}} {
  func.func @plain(%arg0: tensor<1x2x16x8xf32> {lazy.buffer = 0 : i64}, %arg1: tensor<1x2x16x8xf32> {lazy.buffer = 1 : i64}, %arg2: tensor<1x2x16x8xf32> {lazy.buffer = 2 : i64}) -> tensor<1x2x16x8xf32> {
    %0 = lazy.view %arg0 as <[(1, 2, 16, 16, 8):(0, 128, 8, 0, 1)]> : tensor<1x2x16x8xf32> -> tensor<1x2x16x16x8xf32>
    %1 = lazy.view %arg1 as <[(1, 2, 16, 16, 8):(0, 128, 0, 8, 1)]> : tensor<1x2x16x8xf32> -> tensor<1x2x16x16x8xf32>
    %2 = lazy.mul %0, %1 : tensor<1x2x16x16x8xf32>
    %3 = lazy.reduce_sum %2 axes [4] : tensor<1x2x16x16x8xf32> -> tensor<1x2x16x16x1xf32>
    %4 = lazy.view %3 as <[(1, 2, 16, 16):(0, 256, 16, 1)]> : tensor<1x2x16x16x1xf32> -> tensor<1x2x16x16xf32>
    %5 = lazy.const 0.3535533845424652 : tensor<f32>
    %6 = lazy.view %5 as <[(1, 2, 16, 16):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x16x16xf32>
    %7 = lazy.mul %4, %6 : tensor<1x2x16x16xf32>
    %8 = lazy.reduce_max %7 axes [3] : tensor<1x2x16x16xf32> -> tensor<1x2x16x1xf32>
    %9 = lazy.view %8 as <[(1, 2, 16, 16):(0, 16, 1, 0)]> : tensor<1x2x16x1xf32> -> tensor<1x2x16x16xf32>
    %10 = lazy.neg %9 : tensor<1x2x16x16xf32>
    %11 = lazy.add %7, %10 : tensor<1x2x16x16xf32>
    %12 = lazy.const 1.4426950408889634 : tensor<f32>
    %13 = lazy.view %12 as <[(1, 2, 16, 16):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x16x16xf32>
    %14 = lazy.mul %11, %13 : tensor<1x2x16x16xf32>
    %15 = lazy.exp2 %14 : tensor<1x2x16x16xf32>
    %16 = lazy.reduce_sum %15 axes [3] : tensor<1x2x16x16xf32> -> tensor<1x2x16x1xf32>
    %17 = lazy.view %16 as <[(1, 2, 16, 16):(0, 16, 1, 0)]> : tensor<1x2x16x1xf32> -> tensor<1x2x16x16xf32>
    %18 = lazy.recip %17 : tensor<1x2x16x16xf32>
    %19 = lazy.mul %15, %18 : tensor<1x2x16x16xf32>
    %20 = lazy.view %19 as <[(1, 2, 16, 8, 16):(0, 256, 16, 0, 1)]> : tensor<1x2x16x16xf32> -> tensor<1x2x16x8x16xf32>
    %21 = lazy.view %arg2 as <[(1, 2, 16, 8, 16):(0, 128, 0, 1, 8)]> : tensor<1x2x16x8xf32> -> tensor<1x2x16x8x16xf32>
    %22 = lazy.mul %20, %21 : tensor<1x2x16x8x16xf32>
    %23 = lazy.reduce_sum %22 axes [4] : tensor<1x2x16x8x16xf32> -> tensor<1x2x16x8x1xf32>
    %24 = lazy.view %23 as <[(1, 2, 16, 8):(0, 128, 8, 1)]> : tensor<1x2x16x8x1xf32> -> tensor<1x2x16x8xf32>
    return %24 : tensor<1x2x16x8xf32>
  }
  func.func @causal(%arg0: tensor<1x2x16x8xf32> {lazy.buffer = 0 : i64}, %arg1: tensor<1x2x16x8xf32> {lazy.buffer = 1 : i64}, %arg2: tensor<1x2x16x8xf32> {lazy.buffer = 2 : i64}) -> tensor<1x2x16x8xf32> {
    %0 = lazy.view %arg0 as <[(1, 2, 16, 16, 8):(0, 128, 8, 0, 1)]> : tensor<1x2x16x8xf32> -> tensor<1x2x16x16x8xf32>
    %1 = lazy.view %arg1 as <[(1, 2, 16, 16, 8):(0, 128, 0, 8, 1)]> : tensor<1x2x16x8xf32> -> tensor<1x2x16x16x8xf32>
    %2 = lazy.mul %0, %1 : tensor<1x2x16x16x8xf32>
    %3 = lazy.reduce_sum %2 axes [4] : tensor<1x2x16x16x8xf32> -> tensor<1x2x16x16x1xf32>
    %4 = lazy.view %3 as <[(1, 2, 16, 16):(0, 256, 16, 1)]> : tensor<1x2x16x16x1xf32> -> tensor<1x2x16x16xf32>
    %5 = lazy.const 0.3535533845424652 : tensor<f32>
    %6 = lazy.view %5 as <[(1, 2, 16, 16):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x16x16xf32>
    %7 = lazy.mul %4, %6 : tensor<1x2x16x16xf32>
    %8 = lazy.const true : tensor<i1>
    %9 = lazy.view %8 as <[(31, 62):(0, 0) mask [(0, 31), (0, 31)], (16, 16):(61, 1) offset 61]> : tensor<i1> -> tensor<16x16xi1>
    %10 = lazy.const 0.0 : tensor<f32>
    %11 = lazy.view %10 as <[(16, 16):(0, 0)]> : tensor<f32> -> tensor<16x16xf32>
    %12 = lazy.const 1.0 : tensor<f32>
    %13 = lazy.view %12 as <[(16, 16):(0, 0)]> : tensor<f32> -> tensor<16x16xf32>
    %14 = lazy.where %9, %11, %13 : tensor<16x16xi1>, tensor<16x16xf32>
    %15 = lazy.cast %14 : tensor<16x16xf32> -> tensor<16x16xi1>
    %16 = lazy.cast %15 : tensor<16x16xi1> -> tensor<16x16xsi32>
    %17 = lazy.const 0 : tensor<si32>
    %18 = lazy.view %17 as <[(16, 16):(0, 0)]> : tensor<si32> -> tensor<16x16xsi32>
    %19 = lazy.cmpne %16, %18 : tensor<16x16xsi32> -> tensor<16x16xi1>
    %20 = lazy.view %8 as <[(16, 16):(0, 0)]> : tensor<i1> -> tensor<16x16xi1>
    %21 = lazy.cmpne %19, %20 : tensor<16x16xi1> -> tensor<16x16xi1>
    %22 = lazy.const -inf : tensor<f32>
    %23 = lazy.view %22 as <[(16, 16):(0, 0)]> : tensor<f32> -> tensor<16x16xf32>
    %24 = lazy.const 0.0 : tensor<16x16xf32>
    %25 = lazy.where %21, %23, %24 : tensor<16x16xi1>, tensor<16x16xf32>
    %26 = lazy.view %25 as <[(1, 2, 16, 16):(0, 0, 16, 1)]> : tensor<16x16xf32> -> tensor<1x2x16x16xf32>
    %27 = lazy.add %7, %26 : tensor<1x2x16x16xf32>
    %28 = lazy.reduce_max %27 axes [3] : tensor<1x2x16x16xf32> -> tensor<1x2x16x1xf32>
    %29 = lazy.view %28 as <[(1, 2, 16, 16):(0, 16, 1, 0)]> : tensor<1x2x16x1xf32> -> tensor<1x2x16x16xf32>
    %30 = lazy.neg %29 : tensor<1x2x16x16xf32>
    %31 = lazy.add %27, %30 : tensor<1x2x16x16xf32>
    %32 = lazy.const 1.4426950408889634 : tensor<f32>
    %33 = lazy.view %32 as <[(1, 2, 16, 16):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x16x16xf32>
    %34 = lazy.mul %31, %33 : tensor<1x2x16x16xf32>
    %35 = lazy.exp2 %34 : tensor<1x2x16x16xf32>
    %36 = lazy.reduce_sum %35 axes [3] : tensor<1x2x16x16xf32> -> tensor<1x2x16x1xf32>
    %37 = lazy.view %36 as <[(1, 2, 16, 16):(0, 16, 1, 0)]> : tensor<1x2x16x1xf32> -> tensor<1x2x16x16xf32>
    %38 = lazy.recip %37 : tensor<1x2x16x16xf32>
    %39 = lazy.mul %35, %38 : tensor<1x2x16x16xf32>
    %40 = lazy.view %39 as <[(1, 2, 16, 8, 16):(0, 256, 16, 0, 1)]> : tensor<1x2x16x16xf32> -> tensor<1x2x16x8x16xf32>
    %41 = lazy.view %arg2 as <[(1, 2, 16, 8, 16):(0, 128, 0, 1, 8)]> : tensor<1x2x16x8xf32> -> tensor<1x2x16x8x16xf32>
    %42 = lazy.mul %40, %41 : tensor<1x2x16x8x16xf32>
    %43 = lazy.reduce_sum %42 axes [4] : tensor<1x2x16x8x16xf32> -> tensor<1x2x16x8x1xf32>
    %44 = lazy.view %43 as <[(1, 2, 16, 8):(0, 128, 8, 1)]> : tensor<1x2x16x8x1xf32> -> tensor<1x2x16x8xf32>
    return %44 : tensor<1x2x16x8xf32>
  }
  func.func @odd(%arg0: tensor<1x3x13x5xf32> {lazy.buffer = 0 : i64}, %arg1: tensor<1x3x13x5xf32> {lazy.buffer = 1 : i64}, %arg2: tensor<1x3x13x5xf32> {lazy.buffer = 2 : i64}) -> tensor<1x3x13x5xf32> {
    %0 = lazy.view %arg0 as <[(1, 3, 13, 13, 5):(0, 65, 5, 0, 1)]> : tensor<1x3x13x5xf32> -> tensor<1x3x13x13x5xf32>
    %1 = lazy.view %arg1 as <[(1, 3, 13, 13, 5):(0, 65, 0, 5, 1)]> : tensor<1x3x13x5xf32> -> tensor<1x3x13x13x5xf32>
    %2 = lazy.mul %0, %1 : tensor<1x3x13x13x5xf32>
    %3 = lazy.reduce_sum %2 axes [4] : tensor<1x3x13x13x5xf32> -> tensor<1x3x13x13x1xf32>
    %4 = lazy.view %3 as <[(1, 3, 13, 13):(0, 169, 13, 1)]> : tensor<1x3x13x13x1xf32> -> tensor<1x3x13x13xf32>
    %5 = lazy.const 0.4472135901451111 : tensor<f32>
    %6 = lazy.view %5 as <[(1, 3, 13, 13):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x3x13x13xf32>
    %7 = lazy.mul %4, %6 : tensor<1x3x13x13xf32>
    %8 = lazy.reduce_max %7 axes [3] : tensor<1x3x13x13xf32> -> tensor<1x3x13x1xf32>
    %9 = lazy.view %8 as <[(1, 3, 13, 13):(0, 13, 1, 0)]> : tensor<1x3x13x1xf32> -> tensor<1x3x13x13xf32>
    %10 = lazy.neg %9 : tensor<1x3x13x13xf32>
    %11 = lazy.add %7, %10 : tensor<1x3x13x13xf32>
    %12 = lazy.const 1.4426950408889634 : tensor<f32>
    %13 = lazy.view %12 as <[(1, 3, 13, 13):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x3x13x13xf32>
    %14 = lazy.mul %11, %13 : tensor<1x3x13x13xf32>
    %15 = lazy.exp2 %14 : tensor<1x3x13x13xf32>
    %16 = lazy.reduce_sum %15 axes [3] : tensor<1x3x13x13xf32> -> tensor<1x3x13x1xf32>
    %17 = lazy.view %16 as <[(1, 3, 13, 13):(0, 13, 1, 0)]> : tensor<1x3x13x1xf32> -> tensor<1x3x13x13xf32>
    %18 = lazy.recip %17 : tensor<1x3x13x13xf32>
    %19 = lazy.mul %15, %18 : tensor<1x3x13x13xf32>
    %20 = lazy.view %19 as <[(1, 3, 13, 5, 13):(0, 169, 13, 0, 1)]> : tensor<1x3x13x13xf32> -> tensor<1x3x13x5x13xf32>
    %21 = lazy.view %arg2 as <[(1, 3, 13, 5, 13):(0, 65, 0, 1, 5)]> : tensor<1x3x13x5xf32> -> tensor<1x3x13x5x13xf32>
    %22 = lazy.mul %20, %21 : tensor<1x3x13x5x13xf32>
    %23 = lazy.reduce_sum %22 axes [4] : tensor<1x3x13x5x13xf32> -> tensor<1x3x13x5x1xf32>
    %24 = lazy.view %23 as <[(1, 3, 13, 5):(0, 65, 5, 1)]> : tensor<1x3x13x5x1xf32> -> tensor<1x3x13x5xf32>
    return %24 : tensor<1x3x13x5xf32>
  }
  func.func @causal_half(%arg0: tensor<1x2x16x8xf16> {lazy.buffer = 0 : i64}, %arg1: tensor<1x2x16x8xf16> {lazy.buffer = 1 : i64}, %arg2: tensor<1x2x16x8xf16> {lazy.buffer = 2 : i64}) -> tensor<1x2x16x8xf16> {
    %0 = lazy.view %arg0 as <[(1, 2, 16, 16, 8):(0, 128, 8, 0, 1)]> : tensor<1x2x16x8xf16> -> tensor<1x2x16x16x8xf16>
    %1 = lazy.view %arg1 as <[(1, 2, 16, 16, 8):(0, 128, 0, 8, 1)]> : tensor<1x2x16x8xf16> -> tensor<1x2x16x16x8xf16>
    %2 = lazy.mul %0, %1 : tensor<1x2x16x16x8xf16>
    %3 = lazy.cast %2 : tensor<1x2x16x16x8xf16> -> tensor<1x2x16x16x8xf32>
    %4 = lazy.reduce_sum %3 axes [4] : tensor<1x2x16x16x8xf32> -> tensor<1x2x16x16x1xf32>
    %5 = lazy.view %4 as <[(1, 2, 16, 16):(0, 256, 16, 1)]> : tensor<1x2x16x16x1xf32> -> tensor<1x2x16x16xf32>
    %6 = lazy.const 0.3535533845424652 : tensor<f32>
    %7 = lazy.view %6 as <[(1, 2, 16, 16):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x16x16xf32>
    %8 = lazy.mul %5, %7 : tensor<1x2x16x16xf32>
    %9 = lazy.const true : tensor<i1>
    %10 = lazy.view %9 as <[(31, 62):(0, 0) mask [(0, 31), (0, 31)], (16, 16):(61, 1) offset 61]> : tensor<i1> -> tensor<16x16xi1>
    %11 = lazy.const 0.0 : tensor<f32>
    %12 = lazy.view %11 as <[(16, 16):(0, 0)]> : tensor<f32> -> tensor<16x16xf32>
    %13 = lazy.const 1.0 : tensor<f32>
    %14 = lazy.view %13 as <[(16, 16):(0, 0)]> : tensor<f32> -> tensor<16x16xf32>
    %15 = lazy.where %10, %12, %14 : tensor<16x16xi1>, tensor<16x16xf32>
    %16 = lazy.cast %15 : tensor<16x16xf32> -> tensor<16x16xi1>
    %17 = lazy.cast %16 : tensor<16x16xi1> -> tensor<16x16xsi32>
    %18 = lazy.const 0 : tensor<si32>
    %19 = lazy.view %18 as <[(16, 16):(0, 0)]> : tensor<si32> -> tensor<16x16xsi32>
    %20 = lazy.cmpne %17, %19 : tensor<16x16xsi32> -> tensor<16x16xi1>
    %21 = lazy.view %9 as <[(16, 16):(0, 0)]> : tensor<i1> -> tensor<16x16xi1>
    %22 = lazy.cmpne %20, %21 : tensor<16x16xi1> -> tensor<16x16xi1>
    %23 = lazy.const -inf : tensor<f32>
    %24 = lazy.view %23 as <[(16, 16):(0, 0)]> : tensor<f32> -> tensor<16x16xf32>
    %25 = lazy.const 0.0 : tensor<16x16xf32>
    %26 = lazy.where %22, %24, %25 : tensor<16x16xi1>, tensor<16x16xf32>
    %27 = lazy.view %26 as <[(1, 2, 16, 16):(0, 0, 16, 1)]> : tensor<16x16xf32> -> tensor<1x2x16x16xf32>
    %28 = lazy.add %8, %27 : tensor<1x2x16x16xf32>
    %29 = lazy.reduce_max %28 axes [3] : tensor<1x2x16x16xf32> -> tensor<1x2x16x1xf32>
    %30 = lazy.view %29 as <[(1, 2, 16, 16):(0, 16, 1, 0)]> : tensor<1x2x16x1xf32> -> tensor<1x2x16x16xf32>
    %31 = lazy.neg %30 : tensor<1x2x16x16xf32>
    %32 = lazy.add %28, %31 : tensor<1x2x16x16xf32>
    %33 = lazy.const 1.4426950408889634 : tensor<f32>
    %34 = lazy.view %33 as <[(1, 2, 16, 16):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x16x16xf32>
    %35 = lazy.mul %32, %34 : tensor<1x2x16x16xf32>
    %36 = lazy.exp2 %35 : tensor<1x2x16x16xf32>
    %37 = lazy.reduce_sum %36 axes [3] : tensor<1x2x16x16xf32> -> tensor<1x2x16x1xf32>
    %38 = lazy.view %37 as <[(1, 2, 16, 16):(0, 16, 1, 0)]> : tensor<1x2x16x1xf32> -> tensor<1x2x16x16xf32>
    %39 = lazy.recip %38 : tensor<1x2x16x16xf32>
    %40 = lazy.mul %36, %39 : tensor<1x2x16x16xf32>
    %41 = lazy.cast %40 : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xf16>
    %42 = lazy.view %41 as <[(1, 2, 16, 8, 16):(0, 256, 16, 0, 1)]> : tensor<1x2x16x16xf16> -> tensor<1x2x16x8x16xf16>
    %43 = lazy.view %arg2 as <[(1, 2, 16, 8, 16):(0, 128, 0, 1, 8)]> : tensor<1x2x16x8xf16> -> tensor<1x2x16x8x16xf16>
    %44 = lazy.mul %42, %43 : tensor<1x2x16x8x16xf16>
    %45 = lazy.cast %44 : tensor<1x2x16x8x16xf16> -> tensor<1x2x16x8x16xf32>
    %46 = lazy.reduce_sum %45 axes [4] : tensor<1x2x16x8x16xf32> -> tensor<1x2x16x8x1xf32>
    %47 = lazy.cast %46 : tensor<1x2x16x8x1xf32> -> tensor<1x2x16x8x1xf16>
    %48 = lazy.view %47 as <[(1, 2, 16, 8):(0, 128, 8, 1)]> : tensor<1x2x16x8x1xf16> -> tensor<1x2x16x8xf16>
    return %48 : tensor<1x2x16x8xf16>
  }
  func.func @probs_out(%arg0: tensor<1x2x16x8xf32> {lazy.buffer = 0 : i64}, %arg1: tensor<1x2x16x8xf32> {lazy.buffer = 1 : i64}, %arg2: tensor<1x2x16x8xf32> {lazy.buffer = 2 : i64}) -> (tensor<1x2x16x8xf32>, tensor<1x2x16x16xf32>) {
    %0 = lazy.view %arg0 as <[(1, 2, 16, 16, 8):(0, 128, 8, 0, 1)]> : tensor<1x2x16x8xf32> -> tensor<1x2x16x16x8xf32>
    %1 = lazy.view %arg1 as <[(1, 2, 16, 16, 8):(0, 128, 0, 8, 1)]> : tensor<1x2x16x8xf32> -> tensor<1x2x16x16x8xf32>
    %2 = lazy.mul %0, %1 : tensor<1x2x16x16x8xf32>
    %3 = lazy.reduce_sum %2 axes [4] : tensor<1x2x16x16x8xf32> -> tensor<1x2x16x16x1xf32>
    %4 = lazy.view %3 as <[(1, 2, 16, 16):(0, 256, 16, 1)]> : tensor<1x2x16x16x1xf32> -> tensor<1x2x16x16xf32>
    %5 = lazy.const 0.3535533845424652 : tensor<f32>
    %6 = lazy.view %5 as <[(1, 2, 16, 16):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x16x16xf32>
    %7 = lazy.mul %4, %6 : tensor<1x2x16x16xf32>
    %8 = lazy.reduce_max %7 axes [3] : tensor<1x2x16x16xf32> -> tensor<1x2x16x1xf32>
    %9 = lazy.view %8 as <[(1, 2, 16, 16):(0, 16, 1, 0)]> : tensor<1x2x16x1xf32> -> tensor<1x2x16x16xf32>
    %10 = lazy.neg %9 : tensor<1x2x16x16xf32>
    %11 = lazy.add %7, %10 : tensor<1x2x16x16xf32>
    %12 = lazy.const 1.4426950408889634 : tensor<f32>
    %13 = lazy.view %12 as <[(1, 2, 16, 16):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x16x16xf32>
    %14 = lazy.mul %11, %13 : tensor<1x2x16x16xf32>
    %15 = lazy.exp2 %14 : tensor<1x2x16x16xf32>
    %16 = lazy.reduce_sum %15 axes [3] : tensor<1x2x16x16xf32> -> tensor<1x2x16x1xf32>
    %17 = lazy.view %16 as <[(1, 2, 16, 16):(0, 16, 1, 0)]> : tensor<1x2x16x1xf32> -> tensor<1x2x16x16xf32>
    %18 = lazy.recip %17 : tensor<1x2x16x16xf32>
    %19 = lazy.mul %15, %18 : tensor<1x2x16x16xf32>
    %20 = lazy.view %19 as <[(1, 2, 16, 8, 16):(0, 256, 16, 0, 1)]> : tensor<1x2x16x16xf32> -> tensor<1x2x16x8x16xf32>
    %21 = lazy.view %arg2 as <[(1, 2, 16, 8, 16):(0, 128, 0, 1, 8)]> : tensor<1x2x16x8xf32> -> tensor<1x2x16x8x16xf32>
    %22 = lazy.mul %20, %21 : tensor<1x2x16x8x16xf32>
    %23 = lazy.reduce_sum %22 axes [4] : tensor<1x2x16x8x16xf32> -> tensor<1x2x16x8x1xf32>
    %24 = lazy.view %23 as <[(1, 2, 16, 8):(0, 128, 8, 1)]> : tensor<1x2x16x8x1xf32> -> tensor<1x2x16x8xf32>
    return %24, %19 : tensor<1x2x16x8xf32>, tensor<1x2x16x16xf32>
  }
  func.func @soft_cap_half(%arg0: tensor<1x2x32x16xf16> {lazy.buffer = 0 : i64}, %arg1: tensor<1x2x32x16xf16> {lazy.buffer = 1 : i64}, %arg2: tensor<1x2x32x16xf16> {lazy.buffer = 2 : i64}) -> tensor<1x2x32x16xf16> {
    %0 = lazy.const 2.0 : tensor<f32>
    %1 = lazy.view %0 as <[(1, 2, 32, 32):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x32x32xf32>
    %2 = lazy.const 1.0 : tensor<f32>
    %3 = lazy.view %2 as <[(1, 2, 32, 32):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x32x32xf32>
    %4 = lazy.view %arg0 as <[(1, 2, 32, 32, 16):(0, 512, 16, 0, 1)]> : tensor<1x2x32x16xf16> -> tensor<1x2x32x32x16xf16>
    %5 = lazy.view %arg1 as <[(1, 2, 32, 32, 16):(0, 512, 0, 16, 1)]> : tensor<1x2x32x16xf16> -> tensor<1x2x32x32x16xf16>
    %6 = lazy.mul %4, %5 : tensor<1x2x32x32x16xf16>
    %7 = lazy.cast %6 : tensor<1x2x32x32x16xf16> -> tensor<1x2x32x32x16xf32>
    %8 = lazy.reduce_sum %7 axes [4] : tensor<1x2x32x32x16xf32> -> tensor<1x2x32x32x1xf32>
    %9 = lazy.cast %8 : tensor<1x2x32x32x1xf32> -> tensor<1x2x32x32x1xf16>
    %10 = lazy.view %9 as <[(1, 2, 32, 32):(0, 1024, 32, 1)]> : tensor<1x2x32x32x1xf16> -> tensor<1x2x32x32xf16>
    %11 = lazy.cast %10 : tensor<1x2x32x32xf16> -> tensor<1x2x32x32xf32>
    %12 = lazy.const 0.125 : tensor<f32>
    %13 = lazy.view %12 as <[(1, 2, 32, 32):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x32x32xf32>
    %14 = lazy.mul %11, %13 : tensor<1x2x32x32xf32>
    %15 = lazy.const 0.03333333507180214 : tensor<f32>
    %16 = lazy.view %15 as <[(1, 2, 32, 32):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x32x32xf32>
    %17 = lazy.mul %14, %16 : tensor<1x2x32x32xf32>
    %18 = lazy.mul %1, %17 : tensor<1x2x32x32xf32>
    %19 = lazy.const -1.4426950408889634 : tensor<f32>
    %20 = lazy.view %19 as <[(1, 2, 32, 32):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x32x32xf32>
    %21 = lazy.mul %18, %20 : tensor<1x2x32x32xf32>
    %22 = lazy.exp2 %21 : tensor<1x2x32x32xf32>
    %23 = lazy.add %3, %22 : tensor<1x2x32x32xf32>
    %24 = lazy.recip %23 : tensor<1x2x32x32xf32>
    %25 = lazy.mul %1, %24 : tensor<1x2x32x32xf32>
    %26 = lazy.const -1.0 : tensor<f32>
    %27 = lazy.view %26 as <[(1, 2, 32, 32):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x32x32xf32>
    %28 = lazy.add %25, %27 : tensor<1x2x32x32xf32>
    %29 = lazy.const 30.0 : tensor<f32>
    %30 = lazy.view %29 as <[(1, 2, 32, 32):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x32x32xf32>
    %31 = lazy.mul %28, %30 {lazy.external} : tensor<1x2x32x32xf32>
    %32 = lazy.reduce_max %31 axes [3] : tensor<1x2x32x32xf32> -> tensor<1x2x32x1xf32>
    %33 = lazy.view %32 as <[(1, 2, 32, 32):(0, 32, 1, 0)]> : tensor<1x2x32x1xf32> -> tensor<1x2x32x32xf32>
    %34 = lazy.neg %33 : tensor<1x2x32x32xf32>
    %35 = lazy.add %31, %34 : tensor<1x2x32x32xf32>
    %36 = lazy.const 1.4426950408889634 : tensor<f32>
    %37 = lazy.view %36 as <[(1, 2, 32, 32):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x32x32xf32>
    %38 = lazy.mul %35, %37 : tensor<1x2x32x32xf32>
    %39 = lazy.exp2 %38 : tensor<1x2x32x32xf32>
    %40 = lazy.reduce_sum %39 axes [3] : tensor<1x2x32x32xf32> -> tensor<1x2x32x1xf32>
    %41 = lazy.view %40 as <[(1, 2, 32, 32):(0, 32, 1, 0)]> : tensor<1x2x32x1xf32> -> tensor<1x2x32x32xf32>
    %42 = lazy.recip %41 : tensor<1x2x32x32xf32>
    %43 = lazy.mul %39, %42 : tensor<1x2x32x32xf32>
    %44 = lazy.view %43 as <[(1, 2, 32, 16, 32):(0, 1024, 32, 0, 1)]> : tensor<1x2x32x32xf32> -> tensor<1x2x32x16x32xf32>
    %45 = lazy.cast %arg2 : tensor<1x2x32x16xf16> -> tensor<1x2x32x16xf32>
    %46 = lazy.view %45 as <[(1, 2, 32, 16, 32):(0, 512, 0, 1, 16)]> : tensor<1x2x32x16xf32> -> tensor<1x2x32x16x32xf32>
    %47 = lazy.mul %44, %46 : tensor<1x2x32x16x32xf32>
    %48 = lazy.reduce_sum %47 axes [4] : tensor<1x2x32x16x32xf32> -> tensor<1x2x32x16x1xf32>
    %49 = lazy.cast %48 : tensor<1x2x32x16x1xf32> -> tensor<1x2x32x16x1xf16>
    %50 = lazy.view %49 as <[(1, 2, 32, 16):(0, 512, 16, 1)]> : tensor<1x2x32x16x1xf16> -> tensor<1x2x32x16xf16>
    return %50 : tensor<1x2x32x16xf16>
  }
}
