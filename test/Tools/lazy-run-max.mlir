// Float max reductions on the CPU (IEEE maximum in any order, the in-order
// loop where that gives a NaN or a zero) match the interpreter's in-order
// acc > x ? acc : x on rows with a NaN inside, a NaN at the end, only
// negative values, zeros of both signs and -inf, in f32 (LLVM's maximum
// intrinsic) and f16 (arith.maximumf).
// RUN: lazy-run %s --seed=3 --check | FileCheck %s
// Bit for bit (signs of zeros, NaNs), against the interpreter's outputs:
// RUN: rm -rf %t && lazy-run %s --seed=3 --output-dir=%t
// RUN: lazy-interp %s --seed=3 --output-dir=%t/ref
// RUN: cmp %t/out0.npy %t/ref/out0.npy && cmp %t/out1.npy %t/ref/out1.npy
// RUN: cmp %t/out2.npy %t/ref/out2.npy && cmp %t/out3.npy %t/ref/out3.npy
// RUN: cmp %t/out4.npy %t/ref/out4.npy && cmp %t/out5.npy %t/ref/out5.npy
// RUN: cmp %t/out6.npy %t/ref/out6.npy
// The GPU lowering's block reductions (threads take IEEE maximum, then the
// block reruns in index order where the result is a NaN or a zero) on the
// emulator, bit for bit too:
// RUN: lazy-run %s --seed=3 --check --device=emulate | FileCheck %s
// RUN: rm -rf %t.gpu && lazy-run %s --seed=3 --device=emulate --output-dir=%t.gpu
// RUN: cmp %t.gpu/out0.npy %t/ref/out0.npy && cmp %t.gpu/out1.npy %t/ref/out1.npy
// RUN: cmp %t.gpu/out2.npy %t/ref/out2.npy && cmp %t.gpu/out3.npy %t/ref/out3.npy
// RUN: cmp %t.gpu/out4.npy %t/ref/out4.npy && cmp %t.gpu/out5.npy %t/ref/out5.npy
// RUN: cmp %t.gpu/out6.npy %t/ref/out6.npy
// CHECK-COUNT-7: match
// CHECK: all outputs match
func.func @graph(%x: tensor<4x64xf32> {lazy.buffer = 0 : i64})
    -> (tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf16>, tensor<4x1xf16>) {
  %nan = lazy.const nan : tensor<f32>
  %inside = lazy.view %nan as <[(4, 64):(0, 0) mask [(0, 4), (5, 6)]]> : tensor<f32> -> tensor<4x64xf32>
  %a = lazy.add %x, %inside : tensor<4x64xf32>
  %ma = lazy.reduce_max %a axes [1] : tensor<4x64xf32> -> tensor<4x1xf32>
  %atend = lazy.view %nan as <[(4, 64):(0, 0) mask [(0, 4), (63, 64)]]> : tensor<f32> -> tensor<4x64xf32>
  %b = lazy.add %x, %atend : tensor<4x64xf32>
  %mb = lazy.reduce_max %b axes [1] : tensor<4x64xf32> -> tensor<4x1xf32>
  %sq = lazy.mul %x, %x : tensor<4x64xf32>
  %one = lazy.const 1.0 : tensor<f32>
  %ones = lazy.view %one as <[(4, 64):(0, 0)]> : tensor<f32> -> tensor<4x64xf32>
  %pos = lazy.add %sq, %ones : tensor<4x64xf32>
  %neg = lazy.neg %pos : tensor<4x64xf32>
  %mc = lazy.reduce_max %neg axes [1] : tensor<4x64xf32> -> tensor<4x1xf32>
  %nz = lazy.const -0.0 : tensor<f32>
  %nzs = lazy.view %nz as <[(4, 64):(0, 0) mask [(0, 4), (32, 64)]]> : tensor<f32> -> tensor<4x64xf32>
  %zeros = lazy.add %nzs, %neg : tensor<4x64xf32>
  %z = lazy.max %zeros, %nzs : tensor<4x64xf32>
  %md = lazy.reduce_max %z axes [1] : tensor<4x64xf32> -> tensor<4x1xf32>
  %ninf = lazy.const -inf : tensor<f32>
  %ninfs = lazy.view %ninf as <[(4, 64):(0, 0)]> : tensor<f32> -> tensor<4x64xf32>
  %me = lazy.reduce_max %ninfs axes [1] : tensor<4x64xf32> -> tensor<4x1xf32>
  %ha = lazy.cast %a : tensor<4x64xf32> -> tensor<4x64xf16>
  %mha = lazy.reduce_max %ha axes [1] : tensor<4x64xf16> -> tensor<4x1xf16>
  %hz = lazy.cast %z : tensor<4x64xf32> -> tensor<4x64xf16>
  %mhz = lazy.reduce_max %hz axes [1] : tensor<4x64xf16> -> tensor<4x1xf16>
  return %ma, %mb, %mc, %md, %me, %mha, %mhz : tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf16>, tensor<4x1xf16>
}
