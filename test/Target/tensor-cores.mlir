// RUN: lazy-opt %s --lazy-to-nvvm="format=isa" | FileCheck %s
// RUN: lazy-opt %s --lazy-to-nvvm="format=isa chip=sm_75 features=+ptx70" | FileCheck %s --check-prefix=TURING
// RUN: lazy-opt %s --lazy-to-rocdl="format=isa" | FileCheck %s --check-prefix=AMD
// tinygrad's half matmul, 512^3: on sm_90 the GPU plan is tc (sm_80 and
// later have mma.sync m16n8k16 for f16 with f32 accumulators), and the
// kernel's inner loop is that instruction. sm_75 has no such shape: no tc
// plan there. AMD has no tensor-core lowering yet: the kernel compiles
// without one.
// CHECK: .visible .entry hmm_k0(
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// TURING: .target sm_75
// TURING-SAME: .visible .entry hmm_k0(
// TURING-NOT: mma.sync
// AMD: hmm_k0:
// AMD-NOT: v_mfma
// AMD: s_endpgm
func.func @hmm(%a: tensor<512x1x512xf16>, %b: tensor<1x512x512xf16>) -> tensor<512x512x1xf16> {
  %av = lazy.view %a as <[(512, 512, 512):(512, 0, 1)]> : tensor<512x1x512xf16> -> tensor<512x512x512xf16>
  %bv = lazy.view %b as <[(512, 512, 512):(0, 1, 512)]> : tensor<1x512x512xf16> -> tensor<512x512x512xf16>
  %m = lazy.mul %av, %bv : tensor<512x512x512xf16>
  %c = lazy.cast %m : tensor<512x512x512xf16> -> tensor<512x512x512xf32>
  %s = lazy.reduce_sum %c axes [2] : tensor<512x512x512xf32> -> tensor<512x512x1xf32>
  %h = lazy.cast %s : tensor<512x512x1xf32> -> tensor<512x512x1xf16>
  return %h : tensor<512x512x1xf16>
}
