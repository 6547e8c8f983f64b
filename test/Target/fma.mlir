// RUN: lazy-opt %s --lazy-to-nvvm="format=isa" | FileCheck %s --check-prefix=FUSED
// RUN: lazy-opt %s --lazy-to-nvvm="format=isa chip=sm_90" | FileCheck %s --check-prefix=FUSED
// RUN: lazy-opt %s --lazy-to-nvvm="format=isa fma=false" | FileCheck %s --check-prefix=ROUNDED
// RUN: lazy-opt %s --lazy-to-rocdl="format=isa" | FileCheck %s --check-prefix=AMD
// RUN: lazy-opt %s --lazy-schedule --convert-lazy-to-gpu | FileCheck %s --check-prefix=IR
// RUN: lazy-opt %s --lazy-schedule --convert-lazy-to-gpu="fma=false" | FileCheck %s --check-prefix=IR-ROUNDED
// A matmul's dot product (f32, the GPU plan's register tile): by default
// the accumulation of each product is one fused multiply-add, as nvrtc
// makes of tinygrad's CUDA kernels (tinygrad's MULACC); the sm_90 PTX has
// fma.rn.f32 and no separate multiply or add. With fma=false each multiply
// and add rounds on its own (mul.rn, add.rn: nothing may contract them),
// as the reference interpreter rounds.
// ROUNDED: mul.rn.f32
// ROUNDED: add.rn.f32
// ROUNDED-NOT: fma.rn.f32
// FUSED: fma.rn.f32
// FUSED-NOT: mul.rn.f32
// FUSED-NOT: add.rn.f32
// AMD: v_fmac_f32
// AMD-NOT: v_mul_f32
// IR: %[[P:.+]] = arith.mulf %{{.+}}, %{{.+}} fastmath<contract> : f32
// IR: arith.addf %{{.+}}, %[[P]] fastmath<contract> : f32
// IR-ROUNDED-NOT: fastmath<contract>
func.func @mm(%a: tensor<16x1x32xf32>, %b: tensor<1x16x32xf32>) -> tensor<16x16x1xf32> {
  %av = lazy.view %a as <[(16, 16, 32):(32, 0, 1)]> : tensor<16x1x32xf32> -> tensor<16x16x32xf32>
  %bv = lazy.view %b as <[(16, 16, 32):(0, 32, 1)]> : tensor<1x16x32xf32> -> tensor<16x16x32xf32>
  %m = lazy.mul %av, %bv : tensor<16x16x32xf32>
  %s = lazy.reduce_sum %m axes [2] : tensor<16x16x32xf32> -> tensor<16x16x1xf32>
  return %s : tensor<16x16x1xf32>
}
