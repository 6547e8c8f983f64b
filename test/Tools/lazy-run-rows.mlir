// Row kernels (fusion=aggressive, rule 5) run on the CPU and on the GPU
// emulator and match the reference interpreter: short rows (a thread per
// row on the GPU), long rows (a block per row), a row value stored by its
// reader, and a chain of row values read inside each other's reduces.
// RUN: lazy-opt %s --lazy-schedule --lazy-print-schedule -o /dev/null | FileCheck %s --check-prefix=SCHED
// RUN: lazy-run %s --entry=softmax --seed=1 --check | FileCheck %s
// A forced `none` on a row kernel (which has no iteration space, so no
// plan, not even an empty one) leaves it unplanned:
// RUN: lazy-run %s --entry=softmax --seed=1 --check --plan=softmax_k0:none | FileCheck %s
// RUN: lazy-run %s --entry=stored --seed=3 --check --plan=stored_k0:none | FileCheck %s --check-prefix=TWO
// RUN: lazy-run %s --entry=softmax --seed=1 --check --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=layernorm --seed=2 --check | FileCheck %s
// Rows of 128 f32 on the CPU: reduces in lanes and a scratch row of the
// exponentials, rows in sequence (8 rows: an scf.for, the scratch rows
// allocated once before it) and in parallel (512 rows: one per row in an
// alloca scope); both exp2 forms.
// RUN: lazy-run %s --entry=softmax_lanes --seed=6 --check | FileCheck %s
// RUN: lazy-run %s --entry=softmax_lanes --seed=6 --check --fast-exp2 | FileCheck %s
// RUN: lazy-run %s --entry=softmax_lanes_parallel --seed=6 --check | FileCheck %s
// RUN: lazy-run %s --entry=softmax_lanes_parallel --seed=6 --check --fast-exp2 | FileCheck %s
// RUN: lazy-run %s --entry=layernorm --seed=2 --check --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=stored --seed=3 --check | FileCheck %s --check-prefix=TWO
// RUN: lazy-run %s --entry=stored --seed=3 --check --device=emulate | FileCheck %s --check-prefix=TWO
// RUN: lazy-run %s --entry=chain --seed=4 --check | FileCheck %s
// RUN: lazy-run %s --entry=chain --seed=4 --check --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=crossed --seed=5 --check | FileCheck %s
// RUN: lazy-run %s --entry=crossed --seed=5 --check --device=emulate | FileCheck %s

// SCHED-LABEL: schedule @softmax
// SCHED: VIEW
// SCHED: moved: 1 kernels
// SCHED-LABEL: schedule @layernorm
// SCHED: VIEW
// SCHED: moved: 1 kernels
// SCHED-LABEL: schedule @stored
// SCHED: item 0 KERNEL outs=2
// SCHED: moved: 2 kernels
// SCHED-LABEL: schedule @chain
// SCHED: moved: 1 kernels

// CHECK: out0: match
// CHECK-NEXT: all outputs match
// TWO: out0: match
// TWO-NEXT: out1: match
// TWO-NEXT: all outputs match
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false, fusion = "aggressive"}} {
  func.func @softmax(%x: tensor<6x10xf32>) -> tensor<6x10xf32> {
    %m = lazy.reduce_max %x axes [1] : tensor<6x10xf32> -> tensor<6x1xf32>
    %mv = lazy.view %m as <[(6, 10):(1, 0)]> : tensor<6x1xf32> -> tensor<6x10xf32>
    %n = lazy.neg %mv : tensor<6x10xf32>
    %d = lazy.add %x, %n : tensor<6x10xf32>
    %e = lazy.exp2 %d : tensor<6x10xf32>
    %s = lazy.reduce_sum %e axes [1] : tensor<6x10xf32> -> tensor<6x1xf32>
    %sv = lazy.view %s as <[(6, 10):(1, 0)]> : tensor<6x1xf32> -> tensor<6x10xf32>
    %r = lazy.recip %sv : tensor<6x10xf32>
    %o = lazy.mul %e, %r : tensor<6x10xf32>
    return %o : tensor<6x10xf32>
  }
  func.func @softmax_lanes(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
    %m = lazy.reduce_max %x axes [1] : tensor<8x128xf32> -> tensor<8x1xf32>
    %mv = lazy.view %m as <[(8, 128):(1, 0)]> : tensor<8x1xf32> -> tensor<8x128xf32>
    %n = lazy.neg %mv : tensor<8x128xf32>
    %d = lazy.add %x, %n : tensor<8x128xf32>
    %e = lazy.exp2 %d : tensor<8x128xf32>
    %s = lazy.reduce_sum %e axes [1] : tensor<8x128xf32> -> tensor<8x1xf32>
    %sv = lazy.view %s as <[(8, 128):(1, 0)]> : tensor<8x1xf32> -> tensor<8x128xf32>
    %r = lazy.recip %sv : tensor<8x128xf32>
    %o = lazy.mul %e, %r : tensor<8x128xf32>
    return %o : tensor<8x128xf32>
  }
  func.func @softmax_lanes_parallel(%x: tensor<512x128xf32>) -> tensor<512x128xf32> {
    %m = lazy.reduce_max %x axes [1] : tensor<512x128xf32> -> tensor<512x1xf32>
    %mv = lazy.view %m as <[(512, 128):(1, 0)]> : tensor<512x1xf32> -> tensor<512x128xf32>
    %n = lazy.neg %mv : tensor<512x128xf32>
    %d = lazy.add %x, %n : tensor<512x128xf32>
    %e = lazy.exp2 %d : tensor<512x128xf32>
    %s = lazy.reduce_sum %e axes [1] : tensor<512x128xf32> -> tensor<512x1xf32>
    %sv = lazy.view %s as <[(512, 128):(1, 0)]> : tensor<512x1xf32> -> tensor<512x128xf32>
    %r = lazy.recip %sv : tensor<512x128xf32>
    %o = lazy.mul %e, %r : tensor<512x128xf32>
    return %o : tensor<512x128xf32>
  }
  func.func @layernorm(%x: tensor<3x600xf32>) -> tensor<3x600xf32> {
    %c = lazy.const 0.0016666667 : tensor<f32>
    %cv = lazy.view %c as <[(3, 1):(0, 0)]> : tensor<f32> -> tensor<3x1xf32>
    %s = lazy.reduce_sum %x axes [1] : tensor<3x600xf32> -> tensor<3x1xf32>
    %mean = lazy.mul %s, %cv : tensor<3x1xf32>
    %mv = lazy.view %mean as <[(3, 600):(1, 0)]> : tensor<3x1xf32> -> tensor<3x600xf32>
    %n = lazy.neg %mv : tensor<3x600xf32>
    %y = lazy.add %x, %n : tensor<3x600xf32>
    %yy = lazy.mul %y, %y : tensor<3x600xf32>
    %s2 = lazy.reduce_sum %yy axes [1] : tensor<3x600xf32> -> tensor<3x1xf32>
    %var = lazy.mul %s2, %cv : tensor<3x1xf32>
    %rs = lazy.sqrt %var : tensor<3x1xf32>
    %rr = lazy.recip %rs : tensor<3x1xf32>
    %rv = lazy.view %rr as <[(3, 600):(1, 0)]> : tensor<3x1xf32> -> tensor<3x600xf32>
    %o = lazy.mul %y, %rv : tensor<3x600xf32>
    return %o : tensor<3x600xf32>
  }
  func.func @stored(%x: tensor<8x16xf32>) -> (tensor<8x1xf32>, tensor<1x16xf32>) {
    %m = lazy.reduce_max %x axes [1] : tensor<8x16xf32> -> tensor<8x1xf32>
    %mv = lazy.view %m as <[(8, 16):(1, 0)]> : tensor<8x1xf32> -> tensor<8x16xf32>
    %n = lazy.neg %mv : tensor<8x16xf32>
    %d = lazy.add %x, %n : tensor<8x16xf32>
    %rows = lazy.reduce_sum %d axes [1] : tensor<8x16xf32> -> tensor<8x1xf32>
    %cols = lazy.reduce_sum %d axes [0] : tensor<8x16xf32> -> tensor<1x16xf32>
    return %rows, %cols : tensor<8x1xf32>, tensor<1x16xf32>
  }
  func.func @chain(%x: tensor<2x3x8xf32>, %y: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
    %s1 = lazy.reduce_sum %x axes [2] : tensor<2x3x8xf32> -> tensor<2x3x1xf32>
    %v1 = lazy.view %s1 as <[(2, 3, 8):(3, 1, 0)]> : tensor<2x3x1xf32> -> tensor<2x3x8xf32>
    %a = lazy.mul %y, %v1 : tensor<2x3x8xf32>
    %s2 = lazy.reduce_sum %a axes [2] : tensor<2x3x8xf32> -> tensor<2x3x1xf32>
    %v2 = lazy.view %s2 as <[(2, 3, 8):(3, 1, 0)]> : tensor<2x3x1xf32> -> tensor<2x3x8xf32>
    %b = lazy.add %a, %v2 : tensor<2x3x8xf32>
    %s3 = lazy.reduce_max %b axes [2] : tensor<2x3x8xf32> -> tensor<2x3x1xf32>
    %v3 = lazy.view %s3 as <[(2, 3, 8):(3, 1, 0)]> : tensor<2x3x1xf32> -> tensor<2x3x8xf32>
    %o = lazy.mul %b, %v3 : tensor<2x3x8xf32>
    return %o : tensor<2x3x8xf32>
  }
  func.func @crossed(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %mi = lazy.reduce_max %x axes [1] : tensor<8x16xf32> -> tensor<8x1xf32>
    %mj = lazy.reduce_max %x axes [0] : tensor<8x16xf32> -> tensor<1x16xf32>
    %vi = lazy.view %mi as <[(8, 16):(1, 0)]> : tensor<8x1xf32> -> tensor<8x16xf32>
    %vj = lazy.view %mj as <[(8, 16):(0, 1)]> : tensor<1x16xf32> -> tensor<8x16xf32>
    %s = lazy.add %vi, %vj : tensor<8x16xf32>
    %o = lazy.add %x, %s : tensor<8x16xf32>
    return %o : tensor<8x16xf32>
  }
}
