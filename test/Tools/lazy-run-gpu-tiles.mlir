// GPU register tiles (convert-lazy-to-gpu's tile mode) run on the GPU
// emulator and match the reference interpreter: a matmul (4x4 tiles of
// 128-bit loads), A @ B.T (a tile of scalar loads), an odd-sized matmul,
// an elementwise kernel reading at an unaligned offset, and a forced plan.
// gpu-min-tiles=1 gives these small kernels the plans large ones get;
// shared-memory=false keeps the matmul's register tile (rule G2) instead
// of the shared-memory plan (G4, lazy-run-shared-tiles.mlir).
// RUN: lazy-opt %s --lazy-schedule --lazy-optimize-kernels="target=gpu gpu-min-tiles=1 shared-memory=false" | FileCheck %s --check-prefix=PLAN
// RUN: lazy-run %s --entry=mm --seed=1 --check --device=emulate "--plan-options=gpu-min-tiles=1 shared-memory=false" | FileCheck %s
// RUN: lazy-run %s --entry=dot --seed=2 --check --device=emulate --plan-options=gpu-min-tiles=1 | FileCheck %s
// RUN: lazy-run %s --entry=odd --seed=3 --check --device=emulate --plan-options=gpu-min-tiles=1 | FileCheck %s
// RUN: lazy-run %s --entry=shifted --seed=4 --check --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=mm --seed=5 --check --device=emulate --plan=mm_k0:upcast:1:8,mm_k0:upcast:0:2,mm_k0:unroll:2:4 | FileCheck %s

// PLAN-LABEL: lazy.kernel @mm_k0
// PLAN-SAME: opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<upcast, 0, 4>, #lazy.opt<unroll, 2, 4>, #lazy.opt<lanes, 1, 4>]
// PLAN-LABEL: lazy.kernel @dot_k1
// PLAN-SAME: opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<upcast, 0, 4>, #lazy.opt<unroll, 2, 4>, #lazy.opt<lanes, 1, 4>]
// PLAN-LABEL: lazy.kernel @odd_k2
// PLAN-SAME: opts = [#lazy.opt<upcast, 1, 4>, #lazy.opt<upcast, 0, 4>, #lazy.opt<lanes, 1, 4>]}
// PLAN-LABEL: lazy.kernel @shifted_k3
// PLAN-SAME: opts = [#lazy.opt<upcast, 0, 4>, #lazy.opt<lanes, 0, 4>]
// CHECK: out0: match
// CHECK: all outputs match

func.func @mm(%a: tensor<64x1x48xf32>, %b: tensor<1x32x48xf32>) -> tensor<64x32x1xf32> {
  %av = lazy.view %a as <[(64, 32, 48):(48, 0, 1)]> : tensor<64x1x48xf32> -> tensor<64x32x48xf32>
  %bv = lazy.view %b as <[(64, 32, 48):(0, 1, 32)]> : tensor<1x32x48xf32> -> tensor<64x32x48xf32>
  %m = lazy.mul %av, %bv : tensor<64x32x48xf32>
  %s = lazy.reduce_sum %m axes [2] : tensor<64x32x48xf32> -> tensor<64x32x1xf32>
  return %s : tensor<64x32x1xf32>
}

func.func @dot(%a: tensor<32x1x40xf32>, %b: tensor<1x16x40xf32>) -> tensor<32x16x1xf32> {
  %av = lazy.view %a as <[(32, 16, 40):(40, 0, 1)]> : tensor<32x1x40xf32> -> tensor<32x16x40xf32>
  %bv = lazy.view %b as <[(32, 16, 40):(0, 40, 1)]> : tensor<1x16x40xf32> -> tensor<32x16x40xf32>
  %m = lazy.mul %av, %bv : tensor<32x16x40xf32>
  %s = lazy.reduce_sum %m axes [2] : tensor<32x16x40xf32> -> tensor<32x16x1xf32>
  return %s : tensor<32x16x1xf32>
}

func.func @odd(%a: tensor<12x1x7xf32>, %b: tensor<1x20x7xf32>) -> tensor<12x20x1xf32> {
  %av = lazy.view %a as <[(12, 20, 7):(7, 0, 1)]> : tensor<12x1x7xf32> -> tensor<12x20x7xf32>
  %bv = lazy.view %b as <[(12, 20, 7):(0, 1, 20)]> : tensor<1x20x7xf32> -> tensor<12x20x7xf32>
  %m = lazy.mul %av, %bv : tensor<12x20x7xf32>
  %s = lazy.reduce_sum %m axes [2] : tensor<12x20x7xf32> -> tensor<12x20x1xf32>
  return %s : tensor<12x20x1xf32>
}

func.func @shifted(%x: tensor<70xf32>) -> tensor<64xf32> {
  %v = lazy.view %x as <[(64):(1) offset 3]> : tensor<70xf32> -> tensor<64xf32>
  %e = lazy.exp2 %v : tensor<64xf32>
  %s = lazy.add %v, %e : tensor<64xf32>
  return %s : tensor<64xf32>
}
