// Forced kernel plans compute what the reference interpreter computes.
// RUN: lazy-run %s --check --plan=mm_k0:upcast:1:4,mm_k0:upcast:0:3,mm_k0:unroll:2:5,mm_k0:tile:1:8 | FileCheck %s
// RUN: lazy-run %s --check --plan=mm_k0:upcast:1:16,mm_k0:tile:1:16 | FileCheck %s
// RUN: lazy-run %s --check --plan=mm_k0:unroll:2:10 | FileCheck %s
// RUN: lazy-run %s --check --plan=mm_k0:none | FileCheck %s
// RUN: not lazy-run %s --plan=mm_k0:upcast:1:5 2>&1 | FileCheck %s --check-prefix=BAD
// --search-plans times each kernel's candidate plans (PlanCandidates.h)
// and runs with the fastest, which still matches; which one wins is the
// machine's, so only the candidates' count is checked. A kernel --plan
// forces is not searched; the search is the CPU's.
// RUN: lazy-run %s --check --search-plans=6 2>&1 | FileCheck %s --check-prefix=SEARCH
// RUN: lazy-run %s --check --search-plans=6 --plan=mm_k0:none 2>&1 | FileCheck %s --check-prefix=FORCED
// RUN: not lazy-run %s --search-plans=6 --device=emulate 2>&1 | FileCheck %s --check-prefix=DEVICE
// SEARCH: lazy-run: search mm_k0: 3 candidates, heuristic {{[0-9.]+}} us, best {{[0-9.]+}} us ([#lazy.opt<
// SEARCH: lazy-run: search found --plan=mm_k0:upcast:
// SEARCH: all outputs match
// FORCED: lazy-run: search: no kernel has plans to compare
// FORCED: all outputs match
// DEVICE: lazy-run: error: --search-plans times CPU kernels: it needs --device=cpu
// CHECK: out0: match
// CHECK: all outputs match
// BAD: error: lazy-optimize-kernels: the forced plan does not fit this kernel: step 0 (upcast) takes 5 elements of axis 1, which has 16

// relu(a @ b + bias) with a padded a: the reduce reads through a mask, and
// elementwise ops follow the reduce in the same kernel.
func.func @mm(%a: tensor<6x8xf32> {lazy.buffer = 0 : i64},
              %b: tensor<10x16xf32> {lazy.buffer = 1 : i64},
              %bias: tensor<16xf32> {lazy.buffer = 2 : i64}) -> tensor<6x16xf32> {
  %ap = lazy.pad %a [(0, 0), (1, 1)] : tensor<6x8xf32> -> tensor<6x10xf32>
  %ar = lazy.reshape %ap : tensor<6x10xf32> -> tensor<6x1x10xf32>
  %ae = lazy.expand %ar : tensor<6x1x10xf32> -> tensor<6x16x10xf32>
  %bt = lazy.permute %b [1, 0] : tensor<10x16xf32> -> tensor<16x10xf32>
  %br = lazy.reshape %bt : tensor<16x10xf32> -> tensor<1x16x10xf32>
  %be = lazy.expand %br : tensor<1x16x10xf32> -> tensor<6x16x10xf32>
  %m = lazy.mul %ae, %be : tensor<6x16x10xf32>
  %s = lazy.reduce_sum %m axes [2] : tensor<6x16x10xf32> -> tensor<6x16x1xf32>
  %o = lazy.reshape %s : tensor<6x16x1xf32> -> tensor<6x16xf32>
  %bb = lazy.reshape %bias : tensor<16xf32> -> tensor<1x16xf32>
  %be2 = lazy.expand %bb : tensor<1x16xf32> -> tensor<6x16xf32>
  %y = lazy.add %o, %be2 : tensor<6x16xf32>
  %z = lazy.const 0.0 : tensor<f32>
  %zr = lazy.reshape %z : tensor<f32> -> tensor<1x1xf32>
  %ze = lazy.expand %zr : tensor<1x1xf32> -> tensor<6x16xf32>
  %r = lazy.max %y, %ze : tensor<6x16xf32>
  return %r : tensor<6x16xf32>
}
