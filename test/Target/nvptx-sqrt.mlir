// RUN: lazy-opt %s --lazy-to-nvvm="format=isa" | FileCheck %s
// Square roots are correctly rounded, as in tinygrad's CUDA code (nvcc's
// default -prec-sqrt=true), not libdevice's sqrt.approx.f32.

// CHECK: .visible .entry roots_k0(
// CHECK-NOT: sqrt.approx
// CHECK-SAME: sqrt.rn.f32
// CHECK-NOT: sqrt.approx
// CHECK-SAME: sqrt.rn.f64
// CHECK-NOT: sqrt.approx
func.func @roots(%x: tensor<64xf32> {lazy.buffer = 0 : i64}, %y: tensor<64xf64> {lazy.buffer = 1 : i64}) -> (tensor<64xf32>, tensor<64xf64>) {
  %a = lazy.sqrt %x : tensor<64xf32>
  %b = lazy.sqrt %y : tensor<64xf64>
  return %a, %b : tensor<64xf32>, tensor<64xf64>
}
