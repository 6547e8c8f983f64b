// A @ B.T: the reduce axis is contiguous in both operands and no output
// axis is a vector axis (the dot-product form, rule 5 of
// lazy-optimize-kernels). The plan upcasts both output axes and unrolls
// the reduce axis by a vector, whose split accumulators (one partial sum
// per unrolled step) the lowering adds at the end; the result matches the
// reference interpreter, and so do forced variants.
// RUN: lazy-opt %s --lazy-schedule --lazy-optimize-kernels=target=generic | FileCheck %s --check-prefix=PLAN
// RUN: lazy-run %s --check | FileCheck %s
// RUN: lazy-run %s --check --plan=dot_k0:upcast:1:2,dot_k0:unroll:2:32 | FileCheck %s
// RUN: lazy-run %s --check --plan=dot_k0:unroll:2:4 | FileCheck %s
// PLAN: opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<upcast, 0, 2>, #lazy.opt<unroll, 2, 8>]
// CHECK: out0: match
// CHECK: all outputs match
func.func @dot(%a: tensor<8x128xf32> {lazy.buffer = 0 : i64},
               %b: tensor<16x128xf32> {lazy.buffer = 1 : i64}) -> tensor<8x16xf32> {
  %ar = lazy.reshape %a : tensor<8x128xf32> -> tensor<8x1x128xf32>
  %ae = lazy.expand %ar : tensor<8x1x128xf32> -> tensor<8x16x128xf32>
  %br = lazy.reshape %b : tensor<16x128xf32> -> tensor<1x16x128xf32>
  %be = lazy.expand %br : tensor<1x16x128xf32> -> tensor<8x16x128xf32>
  %m = lazy.mul %ae, %be : tensor<8x16x128xf32>
  %s = lazy.reduce_sum %m axes [2] : tensor<8x16x128xf32> -> tensor<8x16x1xf32>
  %o = lazy.reshape %s : tensor<8x16x1xf32> -> tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}
