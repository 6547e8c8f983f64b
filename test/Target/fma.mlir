// RUN: lazy-opt %s --lazy-to-nvvm="format=isa" | FileCheck %s --check-prefix=ROUNDED
// RUN: lazy-opt %s --lazy-to-nvvm="format=isa fma=true" | FileCheck %s --check-prefix=FUSED
// RUN: lazy-opt %s --lazy-to-rocdl="format=isa fma=true" | FileCheck %s --check-prefix=AMD
// RUN: lazy-opt %s --lazy-schedule --convert-lazy-to-gpu="fma=true" | FileCheck %s --check-prefix=IR
// A matmul's dot product: by default each multiply and add rounds on its
// own (mul.rn, add.rn: nothing may contract them); with fma=true the
// accumulation of each product is one fused multiply-add, as nvrtc makes
// of tinygrad's CUDA kernels.
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
func.func @mm(%a: tensor<16x1x32xf32>, %b: tensor<1x16x32xf32>) -> tensor<16x16x1xf32> {
  %av = lazy.view %a as <[(16, 16, 32):(32, 0, 1)]> : tensor<16x1x32xf32> -> tensor<16x16x32xf32>
  %bv = lazy.view %b as <[(16, 16, 32):(0, 32, 1)]> : tensor<1x16x32xf32> -> tensor<16x16x32xf32>
  %m = lazy.mul %av, %bv : tensor<16x16x32xf32>
  %s = lazy.reduce_sum %m axes [2] : tensor<16x16x32xf32> -> tensor<16x16x1xf32>
  return %s : tensor<16x16x1xf32>
}
