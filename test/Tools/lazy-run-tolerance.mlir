// lazy-run --check judges a float result at the tolerance of the narrowest
// float type it was computed in (roundingElementType), not its own: an f64
// result cast from f32 arithmetic carries f32 rounding and reassociation
// (the row sums below run in lanes), which an f64 tolerance would call a
// mismatch. Both fusion modes, on the CPU and the GPU emulator.
// RUN: lazy-run %s --entry=softmax_f64 --seed=1 --check | FileCheck %s --check-prefix=F32
// RUN: sed 's/fusion = "aggressive"/fusion = "tinygrad"/' %s > %t.mlir
// RUN: lazy-run %t.mlir --entry=softmax_f64 --seed=1 --check | FileCheck %s --check-prefix=F32
// RUN: lazy-run %s --entry=softmax_f64 --seed=1 --check --device=emulate | FileCheck %s --check-prefix=F32
// A round trip through f32 rounds like f32 arithmetic:
// RUN: lazy-run %s --entry=narrowed --seed=2 --check | FileCheck %s --check-prefix=F32
// Arithmetic in f64 on f16 inputs (the widening cast is exact, and a
// constant computes nothing) keeps the f64 tolerance; integers stay exact:
// RUN: lazy-run %s --entry=widened --seed=3 --check | FileCheck %s --check-prefix=F64
// Views and copies of an f16 input round nothing: an f32 sum of them is
// judged as f32.
// RUN: lazy-run %s --entry=viewed --seed=4 --check | FileCheck %s --check-prefix=VIEWED
// An f16 comparison choosing between f32 values does not make the result
// an f16 computation: the cone ends at the comparison's bools.
// RUN: lazy-run %s --entry=chosen --seed=5 --check | FileCheck %s --check-prefix=VIEWED

// F32: out0: match, max abs error {{.*}} (double, computed in float)
// F32-NEXT: all outputs match

// F64: out0: match, max abs error {{.*}} (double){{$}}
// F64-NEXT: out1: match, max abs error 0{{.*}} (int){{$}}
// F64-NEXT: all outputs match

// VIEWED: out0: match, max abs error {{.*}} (float){{$}}
// VIEWED-NEXT: all outputs match
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false, fusion = "aggressive"}} {
  func.func @softmax_f64(%x: tensor<64x256xf32>) -> tensor<64x256xf64> {
    %m = lazy.reduce_max %x axes [1] : tensor<64x256xf32> -> tensor<64x1xf32>
    %mv = lazy.view %m as <[(64, 256):(1, 0)]> : tensor<64x1xf32> -> tensor<64x256xf32>
    %n = lazy.neg %mv : tensor<64x256xf32>
    %d = lazy.add %x, %n : tensor<64x256xf32>
    %e = lazy.exp2 %d : tensor<64x256xf32>
    %s = lazy.reduce_sum %e axes [1] : tensor<64x256xf32> -> tensor<64x1xf32>
    %sv = lazy.view %s as <[(64, 256):(1, 0)]> : tensor<64x1xf32> -> tensor<64x256xf32>
    %r = lazy.recip %sv : tensor<64x256xf32>
    %o = lazy.mul %e, %r : tensor<64x256xf32>
    %c = lazy.cast %o : tensor<64x256xf32> -> tensor<64x256xf64>
    return %c : tensor<64x256xf64>
  }
  func.func @narrowed(%x: tensor<64x256xf64>) -> tensor<64x1xf64> {
    %s = lazy.reduce_sum %x axes [1] : tensor<64x256xf64> -> tensor<64x1xf64>
    %f = lazy.cast %s : tensor<64x1xf64> -> tensor<64x1xf32>
    %w = lazy.cast %f : tensor<64x1xf32> -> tensor<64x1xf64>
    return %w : tensor<64x1xf64>
  }
  func.func @viewed(%x: tensor<64x1xf16>) -> tensor<64x1xf32> {
    %v = lazy.view %x as <[(64, 32):(1, 0)]> : tensor<64x1xf16> -> tensor<64x32xf16>
    %c = lazy.contiguous %v : tensor<64x32xf16>
    %w = lazy.cast %c : tensor<64x32xf16> -> tensor<64x32xf32>
    %s = lazy.reduce_sum %w axes [1] : tensor<64x32xf32> -> tensor<64x1xf32>
    return %s : tensor<64x1xf32>
  }
  func.func @chosen(%x: tensor<64x32xf32>) -> tensor<64x1xf32> {
    %h = lazy.cast %x : tensor<64x32xf32> -> tensor<64x32xf16>
    %z = lazy.const 0.0 : tensor<f16>
    %zv = lazy.view %z as <[(64, 32):(0, 0)]> : tensor<f16> -> tensor<64x32xf16>
    %c = lazy.cmplt %h, %zv : tensor<64x32xf16> -> tensor<64x32xi1>
    %e = lazy.exp2 %x : tensor<64x32xf32>
    %w = lazy.where %c, %e, %x : tensor<64x32xi1>, tensor<64x32xf32>
    %s = lazy.reduce_sum %w axes [1] : tensor<64x32xf32> -> tensor<64x1xf32>
    return %s : tensor<64x1xf32>
  }
  func.func @widened(%x: tensor<64x256xf16>) -> (tensor<64x1xf64>, tensor<64x1xsi32>) {
    %w = lazy.cast %x : tensor<64x256xf16> -> tensor<64x256xf64>
    %h = lazy.const 0.5 : tensor<64x256xf16>
    %hw = lazy.cast %h : tensor<64x256xf16> -> tensor<64x256xf64>
    %p = lazy.mul %w, %hw : tensor<64x256xf64>
    %s = lazy.reduce_sum %p axes [1] : tensor<64x256xf64> -> tensor<64x1xf64>
    %i = lazy.cast %s : tensor<64x1xf64> -> tensor<64x1xsi32>
    return %s, %i : tensor<64x1xf64>, tensor<64x1xsi32>
  }
}
