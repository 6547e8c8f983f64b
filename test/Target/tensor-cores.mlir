// RUN: lazy-opt %s --lazy-to-nvvm="format=isa" | FileCheck %s
// RUN: lazy-opt %s --lazy-to-nvvm="format=isa chip=sm_75 features=+ptx70" | FileCheck %s --check-prefix=TURING
// RUN: lazy-opt %s --lazy-to-rocdl="format=isa" | FileCheck %s --check-prefix=GFX942
// RUN: lazy-opt %s --lazy-to-rocdl="format=isa chip=gfx90a" | FileCheck %s --check-prefix=GFX90A
// RUN: lazy-opt %s --lazy-to-rocdl="format=isa chip=gfx1100" | FileCheck %s --check-prefix=GFX1100
// RUN: lazy-opt %s --lazy-to-rocdl="format=isa chip=gfx1030" | FileCheck %s --check-prefix=RDNA2
// bfloat16: mma.sync's bf16 form (nvvm.mma.sync on packed registers:
// MLIR 22's nvgpu.mma.sync lowering types f16 fragments only), MFMA's
// and WMMA's.
// RUN: sed 's/f16/bf16/g' %s | lazy-opt --lazy-to-rocdl="format=isa" | FileCheck %s --check-prefix=BF16-GFX942
// RUN: sed 's/f16/bf16/g' %s | lazy-opt --lazy-to-rocdl="format=isa chip=gfx90a" | FileCheck %s --check-prefix=BF16-GFX90A
// RUN: sed 's/f16/bf16/g' %s | lazy-opt --lazy-to-rocdl="format=isa chip=gfx1100" | FileCheck %s --check-prefix=BF16-GFX1100
// RUN: sed 's/f16/bf16/g' %s | lazy-opt --lazy-to-nvvm="format=isa" | FileCheck %s --check-prefix=BF16-SM90
// BF16-GFX942: v_mfma_f32_16x16x16_bf16
// BF16-GFX90A: v_mfma_f32_16x16x16bf16_1k
// BF16-GFX1100: v_wmma_f32_16x16x16_bf16
// BF16-SM90: .visible .entry hmm_k0(
// BF16-SM90-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// tinygrad's half matmul, 512^3: on sm_90 the GPU plan is tc (sm_80 and
// later have mma.sync m16n8k16 for f16 with f32 accumulators), and the
// kernel's inner loop is that instruction. sm_75 has no such shape: no tc
// plan there. AMD: MFMA 16x16x16 on CDNA (gfx942, gfx90a), WMMA on RDNA3
// (gfx1100); RDNA2 (gfx1030) has neither. 512 is a multiple of 64: block
// tiles of 64x64, 2x2 warps staging both operands in shared memory 32 of
// K at a time between barriers, each warp reading its fragments from there
// (32-bit loads of two halves on sm_90, 64-bit on CDNA, 128-bit on RDNA3)
// for 8 instructions per 16 of K.
// CHECK: .visible .entry hmm_k0(
// CHECK-SAME: bar.sync
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.shared.b32
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-COUNT-15: mma.sync.aligned.m16n8k16
// TURING: .target sm_75
// TURING-SAME: .visible .entry hmm_k0(
// TURING-NOT: mma.sync
// GFX942: hmm_k0:
// GFX942: s_barrier
// GFX942: ds_read_b64
// GFX942: v_mfma_f32_16x16x16_f16
// GFX90A: hmm_k0:
// GFX90A: v_mfma_f32_16x16x16f16
// GFX1100: hmm_k0:
// GFX1100: s_barrier
// GFX1100: ds_load_b128
// GFX1100: v_wmma_f32_16x16x16_f16
// RDNA2: hmm_k0:
// RDNA2-NOT: v_wmma
// RDNA2-NOT: v_mfma
// RDNA2: s_endpgm
func.func @hmm(%a: tensor<512x1x512xf16>, %b: tensor<1x512x512xf16>) -> tensor<512x512x1xf16> {
  %av = lazy.view %a as <[(512, 512, 512):(512, 0, 1)]> : tensor<512x1x512xf16> -> tensor<512x512x512xf16>
  %bv = lazy.view %b as <[(512, 512, 512):(0, 1, 512)]> : tensor<1x512x512xf16> -> tensor<512x512x512xf16>
  %m = lazy.mul %av, %bv : tensor<512x512x512xf16>
  %c = lazy.cast %m : tensor<512x512x512xf16> -> tensor<512x512x512xf32>
  %s = lazy.reduce_sum %c axes [2] : tensor<512x512x512xf32> -> tensor<512x512x1xf32>
  %h = lazy.cast %s : tensor<512x512x1xf32> -> tensor<512x512x1xf16>
  return %h : tensor<512x512x1xf16>
}
