// --device=emulate: the GPU lowering (convert-lazy-to-gpu) without code
// generation; each kernel runs as a CPU function, one thread per GPU thread
// of a block, the threads meeting at every gpu.all_reduce, fewer blocks than
// launched (the loops are grid-stride). Results must equal the interpreter.
// RUN: lazy-run %s --entry=rows --device=emulate --seed=3 --check | FileCheck %s --check-prefix=ROWS
// RUN: lazy-run %s --entry=softmax --device=emulate --seed=3 --check | FileCheck %s --check-prefix=SOFTMAX
// RUN: lazy-run %s --entry=narrow --device=emulate --seed=5 --check | FileCheck %s --check-prefix=NARROW
// RUN: lazy-opt %s --lazy-schedule --lazy-optimize-kernels=target=gpu --convert-lazy-to-gpu | FileCheck %s --check-prefix=MODE
// A block's all_reduce adds as the GPU's butterfly of shuffles does, a
// pairwise tree: 1e8, 1, -1e8, 1 on four threads give (1e8+1) + (-1e8+1)
// = 0 in float32, where the interpreter's left-to-right sum gives 1 (and
// the exact sum is 2). Both are what rounding makes of a cancellation, so
// --check takes the 0 as within the interpreter's rounding noise; the
// difference of 1, not between 1 and 2, shows that the butterfly ran.
// RUN: lazy-run %s --entry=cancel --device=emulate --check --plan-options="gpu-block-reduce-min=4 gpu-reduce-per-thread=1" | FileCheck %s --check-prefix=BUTTERFLY
// RUN: lazy-run %s --entry=cancel --device=cpu --check | FileCheck %s --check-prefix=SEQUENTIAL
// BUTTERFLY: out0: match, max abs error 1.000000e+00 (float); off the interpreter's, within its rounding noise: 1 of 1 elements
// SEQUENTIAL: out0: match, max abs error 0.000000e+00 (float)
// Other launch geometries (--kernel-options; --plan-options for the
// blocks' threads) give the same results.
// RUN: lazy-run %s --entry=rows --device=emulate --seed=3 --check --kernel-options="block-size=64" --plan-options="gpu-block-reduce-min=512 gpu-block-size=64" | FileCheck %s --check-prefix=ROWS
// RUN: not lazy-run %s --entry=rows --device=emulate --kernel-options=block-size=100 2>&1 | FileCheck %s --check-prefix=BADSIZE
// RUN: not lazy-run %s --entry=rows --device=emulate --kernel-options=bogus=1 2>&1 | FileCheck %s --check-prefix=BADOPTION
// RUN: not lazy-run %s --entry=rows --device=cpu --kernel-options=block-size=64 2>&1 | FileCheck %s --check-prefix=CPUOPTIONS
// RUN: not lazy-run %s --entry=rows --device=emulate --lockstep 2>&1 | FileCheck %s --check-prefix=LOCKSTEP
// BADSIZE: error: convert-lazy-to-gpu: block-size must be a power of two from 32 to 1024, not 100
// BADSIZE-NOT: builtin.module
// BADOPTION: no such option bogus
// CPUOPTIONS: error: --kernel-options are for the GPU lowering, not --device=cpu
// LOCKSTEP: error: --lockstep needs --device=cuda or --device=hip

// Block mode (300 and 1000 reduced elements), thread mode (exp2), and a
// max of halves (reduced in f32). (A raw sum of halves is not here: the
// block adds in another order than the interpreter's sequential half
// accumulation; tinygrad's Tensor.sum never emits one, it sums in float32.)
// MODE-LABEL: gpu.func @rows_k0
// MODE: gpu.all_reduce
// ROWS: out0: match
// ROWS: out1: match, max abs error 0{{.*}} (int)
// ROWS: out2: match
// ROWS: out3: match, max abs error 0{{.*}} (half)
// ROWS: all outputs match
func.func @rows(%a: tensor<64x300xf32> {lazy.buffer = 0 : i64}, %b: tensor<1000xsi32> {lazy.buffer = 1 : i64}, %c: tensor<8x512xf16> {lazy.buffer = 2 : i64}) -> (tensor<64x1xf32>, tensor<1xsi32>, tensor<64x300xf32>, tensor<8x1xf16>) {
  %s = lazy.reduce_sum %a axes [1] : tensor<64x300xf32> -> tensor<64x1xf32>
  %m = lazy.reduce_max %b axes [0] : tensor<1000xsi32> -> tensor<1xsi32>
  %e = lazy.exp2 %a : tensor<64x300xf32>
  %h = lazy.reduce_max %c axes [1] : tensor<8x512xf16> -> tensor<8x1xf16>
  return %s, %m, %e, %h : tensor<64x1xf32>, tensor<1xsi32>, tensor<64x300xf32>, tensor<8x1xf16>
}

// SOFTMAX: out0: match
// SOFTMAX: all outputs match
func.func @softmax(%x: tensor<4x512xf32> {lazy.buffer = 0 : i64}) -> tensor<4x512xf32> {
  %m = lazy.reduce_max %x axes [1] : tensor<4x512xf32> -> tensor<4x1xf32>
  %mb = lazy.expand %m : tensor<4x1xf32> -> tensor<4x512xf32>
  %n = lazy.neg %mb : tensor<4x512xf32>
  %d = lazy.add %x, %n : tensor<4x512xf32>
  %e = lazy.exp2 %d : tensor<4x512xf32>
  %s = lazy.reduce_sum %e axes [1] : tensor<4x512xf32> -> tensor<4x1xf32>
  %sb = lazy.expand %s : tensor<4x1xf32> -> tensor<4x512xf32>
  %r = lazy.recip %sb : tensor<4x512xf32>
  %o = lazy.mul %e, %r : tensor<4x512xf32>
  return %o : tensor<4x512xf32>
}

// Narrow integers and bools are reduced in 32 bits: the same bits as a
// sequential reduce (sums wrap, unsigned max compares unsigned).
// NARROW: out0: match, max abs error 0{{.*}} (char)
// NARROW: out1: match, max abs error 0{{.*}} (unsigned short)
// NARROW: out2: match, max abs error 0{{.*}} (bool)
// NARROW: all outputs match
func.func @narrow(%a: tensor<3x200xsi8> {lazy.buffer = 0 : i64}, %b: tensor<3x200xui16> {lazy.buffer = 1 : i64}, %c: tensor<3x200xi1> {lazy.buffer = 2 : i64}) -> (tensor<3x1xsi8>, tensor<3x1xui16>, tensor<3x1xi1>) {
  %s = lazy.reduce_sum %a axes [1] : tensor<3x200xsi8> -> tensor<3x1xsi8>
  %m = lazy.reduce_max %b axes [1] : tensor<3x200xui16> -> tensor<3x1xui16>
  %o = lazy.reduce_sum %c axes [1] : tensor<3x200xi1> -> tensor<3x1xi1>
  return %s, %m, %o : tensor<3x1xsi8>, tensor<3x1xui16>, tensor<3x1xi1>
}

func.func @cancel() -> tensor<1xf32> {
  %big = lazy.const 1.0e8 : tensor<1xf32>
  %one = lazy.const 1.0 : tensor<1xf32>
  %neg = lazy.const -1.0e8 : tensor<1xf32>
  %p0 = lazy.pad %big [(0, 63)] : tensor<1xf32> -> tensor<64xf32>
  %p1 = lazy.pad %one [(1, 62)] : tensor<1xf32> -> tensor<64xf32>
  %p2 = lazy.pad %neg [(2, 61)] : tensor<1xf32> -> tensor<64xf32>
  %p3 = lazy.pad %one [(3, 60)] : tensor<1xf32> -> tensor<64xf32>
  %a = lazy.add %p0, %p1 : tensor<64xf32>
  %b = lazy.add %a, %p2 : tensor<64xf32>
  %c = lazy.add %b, %p3 : tensor<64xf32>
  %s = lazy.reduce_sum %c axes [0] : tensor<64xf32> -> tensor<1xf32>
  return %s : tensor<1xf32>
}
