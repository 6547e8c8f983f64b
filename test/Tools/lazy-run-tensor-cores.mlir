// Tensor-core kernels (tc plans, nvgpu.mma.sync m16n8k16) on the GPU
// emulator, which runs each warp's mma.sync from its lanes' fragments in
// PTX's layout: operands cast to f32 before the product (products exact,
// as on tensor cores) match the interpreter bit for bit; tinygrad's half
// matmul (the product rounded to half, then summed in f32) within half's
// tolerance; a batched matmul (heads as an extra output axis) with a bias
// added after the sum, and an A operand read transposed. NVIDIA's
// mma.sync by default; AMD's MFMA (64-lane waves) and WMMA (32) with
// --tensor-cores.
// RUN: lazy-opt %s --lazy-schedule --lazy-optimize-kernels="target=gpu tensor-cores=mma-sync" | FileCheck %s --check-prefix=PLAN
// RUN: lazy-run %s --entry=exact --seed=1 --check --device=emulate | FileCheck %s --check-prefix=EXACT
// RUN: lazy-run %s --entry=half --seed=2 --check --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=batched --seed=3 --check --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=exact --seed=1 --check | FileCheck %s --check-prefix=EXACT
// AMD's instructions (16x16 tiles) on the emulator too:
// RUN: lazy-run %s --entry=exact --seed=4 --check --device=emulate --tensor-cores=mfma | FileCheck %s --check-prefix=EXACT
// RUN: lazy-run %s --entry=exact --seed=5 --check --device=emulate --tensor-cores=wmma | FileCheck %s --check-prefix=EXACT
// RUN: lazy-run %s --entry=wide --seed=6 --check --device=emulate --tensor-cores=mfma | FileCheck %s
// RUN: lazy-run %s --entry=wide --seed=7 --check --device=emulate --tensor-cores=wmma | FileCheck %s
// RUN: lazy-run %s --entry=wide --seed=8 --check --device=emulate | FileCheck %s
// RUN: lazy-opt %s --lazy-schedule --lazy-optimize-kernels="target=gpu tensor-cores=wmma" | FileCheck %s --check-prefix=AMDPLAN
// Block tiles (steps beside tc: warps, instruction tiles per warp, K's
// chunk; operands staged in shared memory): the heuristic's 64x64 blocks
// of 2x2 warps on a 64^3 matmul on each instruction, and forced ones.
// RUN: lazy-run %s --entry=square --seed=10 --check --device=emulate | FileCheck %s --check-prefix=EXACT
// RUN: lazy-run %s --entry=square --seed=11 --check --device=emulate --tensor-cores=mfma | FileCheck %s --check-prefix=EXACT
// RUN: lazy-run %s --entry=square --seed=12 --check --device=emulate --tensor-cores=wmma | FileCheck %s --check-prefix=EXACT
// RUN: lazy-run %s --entry=exact --seed=13 --check --device=emulate --plan=exact_k0:tc:2:16,exact_k0:local:0:2,exact_k0:upcast:1:2,exact_k0:unroll:2:32 | FileCheck %s --check-prefix=EXACT
// RUN: lazy-run %s --entry=exact --seed=14 --check --device=emulate --tensor-cores=mfma --plan=exact_k0:tc:2:16,exact_k0:local:0:2,exact_k0:unroll:2:64 | FileCheck %s --check-prefix=EXACT
// bfloat16 operands: mma.sync's bf16 form (nvvm.mma.sync on packed
// registers), MFMA's and WMMA's.
// RUN: lazy-run %s --entry=bexact --seed=17 --check --device=emulate | FileCheck %s --check-prefix=EXACT
// RUN: lazy-run %s --entry=bexact --seed=20 --check --device=emulate --plan=bexact_k0:tc:2:16,bexact_k0:local:0:2,bexact_k0:upcast:1:2,bexact_k0:unroll:2:32 | FileCheck %s --check-prefix=EXACT
// RUN: lazy-run %s --entry=bexact --seed=18 --check --device=emulate --tensor-cores=mfma | FileCheck %s --check-prefix=EXACT
// RUN: lazy-run %s --entry=bexact --seed=19 --check --device=emulate --tensor-cores=wmma --plan=bexact_k0:tc:2:16,bexact_k0:local:0:2,bexact_k0:unroll:2:32 | FileCheck %s --check-prefix=EXACT
// RUN: lazy-run %s --entry=half --seed=15 --check --device=emulate --plan=half_k0:tc:2:16,half_k0:upcast:0:3,half_k0:upcast:1:3 | FileCheck %s
// For a GPU (recorded, no GPU needed): sm_90 launches the tc kernel as 9
// blocks of one warp (3 x 3 tiles of 16x8); sm_75, without mma.sync's
// shape, gets no tc plan (a block reduction of 256 threads instead).
// RUN: rm -rf %t && lazy-run %s --entry=half --seed=9 --check --device=cuda --chip=sm_90 --record=%t/sm90 | FileCheck %s
// RUN: FileCheck %s --check-prefix=SM90 < %t/sm90/plan.txt
// RUN: lazy-run %s --entry=half --seed=9 --device=cuda --chip=sm_75 --record=%t/sm75 --record-inputs=false
// RUN: FileCheck %s --check-prefix=SM75 < %t/sm75/plan.txt
// SM90: launch half_k0 9 1 1 32 1 1
// SM75: launch half_k0 {{[0-9]+}} 1 1 256 1 1

// PLAN-LABEL: lazy.kernel @exact_k0
// PLAN-SAME: opts = [#lazy.opt<tc, 2, 16>]
// PLAN-LABEL: lazy.kernel @half_k1
// PLAN-SAME: opts = [#lazy.opt<tc, 2, 16>]
// PLAN-LABEL: lazy.kernel @batched_k2
// PLAN-SAME: opts = [#lazy.opt<tc, 3, 16>]
// PLAN-LABEL: lazy.kernel @square_k4
// PLAN-SAME: opts = [#lazy.opt<tc, 2, 16>, #lazy.opt<local, 0, 2>, #lazy.opt<local, 1, 2>, #lazy.opt<upcast, 0, 2>, #lazy.opt<upcast, 1, 4>, #lazy.opt<unroll, 2, 32>]
// AMDPLAN-LABEL: lazy.kernel @exact_k0
// AMDPLAN-SAME: opts = [#lazy.opt<tc, 2, 16>]
// AMDPLAN-LABEL: lazy.kernel @wide_k3
// AMDPLAN-SAME: opts = [#lazy.opt<tc, 2, 16>]
// AMDPLAN-LABEL: lazy.kernel @square_k4
// AMDPLAN-SAME: opts = [#lazy.opt<tc, 2, 16>, #lazy.opt<local, 0, 2>, #lazy.opt<local, 1, 2>, #lazy.opt<upcast, 0, 2>, #lazy.opt<upcast, 1, 2>, #lazy.opt<unroll, 2, 32>]
// EXACT: out0: match, max abs error 0.000000e+00 (float)
// EXACT: all outputs match
// CHECK: out0: match
// CHECK: all outputs match

func.func @exact(%a: tensor<32x1x64xf16>, %b: tensor<1x16x64xf16>) -> tensor<32x16x1xf32> {
  %av = lazy.view %a as <[(32, 16, 64):(64, 0, 1)]> : tensor<32x1x64xf16> -> tensor<32x16x64xf16>
  %bv = lazy.view %b as <[(32, 16, 64):(0, 1, 16)]> : tensor<1x16x64xf16> -> tensor<32x16x64xf16>
  %ac = lazy.cast %av : tensor<32x16x64xf16> -> tensor<32x16x64xf32>
  %bc = lazy.cast %bv : tensor<32x16x64xf16> -> tensor<32x16x64xf32>
  %m = lazy.mul %ac, %bc : tensor<32x16x64xf32>
  %s = lazy.reduce_sum %m axes [2] : tensor<32x16x64xf32> -> tensor<32x16x1xf32>
  return %s : tensor<32x16x1xf32>
}

func.func @half(%a: tensor<48x1x32xf16>, %b: tensor<1x24x32xf16>) -> tensor<48x24x1xf16> {
  %av = lazy.view %a as <[(48, 24, 32):(32, 0, 1)]> : tensor<48x1x32xf16> -> tensor<48x24x32xf16>
  %bv = lazy.view %b as <[(48, 24, 32):(0, 32, 1)]> : tensor<1x24x32xf16> -> tensor<48x24x32xf16>
  %m = lazy.mul %av, %bv : tensor<48x24x32xf16>
  %c = lazy.cast %m : tensor<48x24x32xf16> -> tensor<48x24x32xf32>
  %s = lazy.reduce_sum %c axes [2] : tensor<48x24x32xf32> -> tensor<48x24x1xf32>
  %h = lazy.cast %s : tensor<48x24x1xf32> -> tensor<48x24x1xf16>
  return %h : tensor<48x24x1xf16>
}

// Two heads: (head, row, column, k); A is stored (head, k, row).
func.func @batched(%a: tensor<2x16x32xf16>, %b: tensor<2x8x16xf16>, %bias: tensor<8xf32>) -> tensor<2x32x8x1xf32> {
  %av = lazy.view %a as <[(2, 32, 8, 16):(512, 1, 0, 32)]> : tensor<2x16x32xf16> -> tensor<2x32x8x16xf16>
  %bv = lazy.view %b as <[(2, 32, 8, 16):(128, 0, 16, 1)]> : tensor<2x8x16xf16> -> tensor<2x32x8x16xf16>
  %ac = lazy.cast %av : tensor<2x32x8x16xf16> -> tensor<2x32x8x16xf32>
  %bc = lazy.cast %bv : tensor<2x32x8x16xf16> -> tensor<2x32x8x16xf32>
  %m = lazy.mul %ac, %bc : tensor<2x32x8x16xf32>
  %s = lazy.reduce_sum %m axes [3] : tensor<2x32x8x16xf32> -> tensor<2x32x8x1xf32>
  %bb = lazy.view %bias as <[(2, 32, 8, 1):(0, 0, 1, 0)]> : tensor<8xf32> -> tensor<2x32x8x1xf32>
  %o = lazy.add %s, %bb : tensor<2x32x8x1xf32>
  return %o : tensor<2x32x8x1xf32>
}

// tinygrad's half matmul with 32 columns (two 16x16 tiles across N).
func.func @wide(%a: tensor<32x1x48xf16>, %b: tensor<1x32x48xf16>) -> tensor<32x32x1xf16> {
  %av = lazy.view %a as <[(32, 32, 48):(48, 0, 1)]> : tensor<32x1x48xf16> -> tensor<32x32x48xf16>
  %bv = lazy.view %b as <[(32, 32, 48):(0, 48, 1)]> : tensor<1x32x48xf16> -> tensor<32x32x48xf16>
  %m = lazy.mul %av, %bv : tensor<32x32x48xf16>
  %c = lazy.cast %m : tensor<32x32x48xf16> -> tensor<32x32x48xf32>
  %s = lazy.reduce_sum %c axes [2] : tensor<32x32x48xf32> -> tensor<32x32x1xf32>
  %h = lazy.cast %s : tensor<32x32x1xf32> -> tensor<32x32x1xf16>
  return %h : tensor<32x32x1xf16>
}

func.func @square(%a: tensor<64x1x64xf16>, %b: tensor<1x64x64xf16>) -> tensor<64x64x1xf32> {
  %av = lazy.view %a as <[(64, 64, 64):(64, 0, 1)]> : tensor<64x1x64xf16> -> tensor<64x64x64xf16>
  %bv = lazy.view %b as <[(64, 64, 64):(0, 1, 64)]> : tensor<1x64x64xf16> -> tensor<64x64x64xf16>
  %ac = lazy.cast %av : tensor<64x64x64xf16> -> tensor<64x64x64xf32>
  %bc = lazy.cast %bv : tensor<64x64x64xf16> -> tensor<64x64x64xf32>
  %m = lazy.mul %ac, %bc : tensor<64x64x64xf32>
  %s = lazy.reduce_sum %m axes [2] : tensor<64x64x64xf32> -> tensor<64x64x1xf32>
  return %s : tensor<64x64x1xf32>
}

func.func @bexact(%a: tensor<32x1x64xbf16>, %b: tensor<1x16x64xbf16>) -> tensor<32x16x1xf32> {
  %av = lazy.view %a as <[(32, 16, 64):(64, 0, 1)]> : tensor<32x1x64xbf16> -> tensor<32x16x64xbf16>
  %bv = lazy.view %b as <[(32, 16, 64):(0, 1, 16)]> : tensor<1x16x64xbf16> -> tensor<32x16x64xbf16>
  %ac = lazy.cast %av : tensor<32x16x64xbf16> -> tensor<32x16x64xf32>
  %bc = lazy.cast %bv : tensor<32x16x64xbf16> -> tensor<32x16x64xf32>
  %m = lazy.mul %ac, %bc : tensor<32x16x64xf32>
  %s = lazy.reduce_sum %m axes [2] : tensor<32x16x64xf32> -> tensor<32x16x1xf32>
  return %s : tensor<32x16x1xf32>
}
