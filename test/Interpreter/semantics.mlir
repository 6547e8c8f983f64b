// RUN: lazy-interp %s --entry=integers --print | FileCheck %s --check-prefix=INT
// RUN: lazy-interp %s --entry=floats --print | FileCheck %s --check-prefix=FLT
// RUN: lazy-interp %s --entry=casts --print | FileCheck %s --check-prefix=CAST
// RUN: lazy-interp %s --entry=views --print --schedule-check=false | FileCheck %s --check-prefix=VIEW
// RUN: lazy-interp %s --entry=reduces --print | FileCheck %s --check-prefix=RED
// RUN: lazy-interp %s --entry=reduce_max_order --print | FileCheck %s --check-prefix=REDMAX
// RUN: lazy-run %s --entry=reduce_max_order --check | FileCheck %s --check-prefix=REDMAXCPU
// RUN: lazy-interp %s --entry=sum_negative_zero --print | FileCheck %s --check-prefix=NEGZERO
// RUN: lazy-run %s --entry=sum_negative_zero --check | FileCheck %s --check-prefix=NEGZEROCPU
// RUN: lazy-run %s --entry=sum_negative_zero --check --device=emulate | FileCheck %s --check-prefix=NEGZEROCPU
// RUN: lazy-interp %s --entry=meta --print --schedule-check=false | FileCheck %s --check-prefix=META
// RUN: lazy-interp %s --entry=random --print | FileCheck %s --check-prefix=RAND
// RUN: lazy-interp %s --entry=assigned_argument --print | FileCheck %s --check-prefix=ASSIGNED
// RUN: lazy-interp %s --entry=float_to_int_edges --print | FileCheck %s --check-prefix=F2I
// RUN: lazy-run %s --entry=float_to_int_edges --check | FileCheck %s --check-prefix=F2ICHECK
// RUN: lazy-run %s --entry=float_to_int_edges --check --device=emulate | FileCheck %s --check-prefix=F2ICHECK
// RUN: lazy-run %s --entry=assigned_argument --check | FileCheck %s --check-prefix=ASSIGNEDCPU
// RUN: lazy-interp %s --entry=dead_assign --print | FileCheck %s --check-prefix=DEAD
// RUN: lazy-run %s --entry=dead_assign --check | FileCheck %s --check-prefix=DEADCPU
// The reference interpreter's semantics, one function per op family. The
// expected numbers are tinygrad 0.9.2's (CLANG backend) for the same ops.

func.func @integers() -> (tensor<2xsi8>, tensor<4xsi32>, tensor<4xsi32>, tensor<2xui8>, tensor<2xsi16>, tensor<2xui64>, tensor<3xi1>, tensor<2xsi32>) {
  %c100 = lazy.const 100 : tensor<2xsi8>
  %wrap = lazy.add %c100, %c100 : tensor<2xsi8>
  %n7 = lazy.const -7 : tensor<si32>
  %num = lazy.view %n7 as <[(4):(0)]> : tensor<si32> -> tensor<4xsi32>
  %den = lazy.const 2 : tensor<4xsi32>
  %q = lazy.idiv %num, %den : tensor<4xsi32>
  %r = lazy.mod %num, %den : tensor<4xsi32>
  %u = lazy.const 200 : tensor<2xui8>
  %one = lazy.const 1 : tensor<2xui8>
  %shl = lazy.shl %u, %one : tensor<2xui8>
  %s = lazy.const -32768 : tensor<2xsi16>
  %sn = lazy.neg %s : tensor<2xsi16>
  %x = lazy.const 0 : tensor<2xui64>
  %k = lazy.const 7 : tensor<2xui64>
  %tf = lazy.threefry %x, %k : tensor<2xui64>
  %t = lazy.const true : tensor<3xi1>
  %f = lazy.const false : tensor<3xi1>
  %xor = lazy.xor %t, %f : tensor<3xi1>
  %m = lazy.const -5 : tensor<2xsi32>
  %sh = lazy.const 1 : tensor<2xsi32>
  %shr = lazy.shr %m, %sh : tensor<2xsi32>
  return %wrap, %q, %r, %shl, %sn, %tf, %xor, %shr : tensor<2xsi8>, tensor<4xsi32>, tensor<4xsi32>, tensor<2xui8>, tensor<2xsi16>, tensor<2xui64>, tensor<3xi1>, tensor<2xsi32>
}
// INT: out0: char (2) [-56, -56]
// INT: out1: int (4) [-3, -3, -3, -3]
// INT: out2: int (4) [-1, -1, -1, -1]
// INT: out3: unsigned char (2) [144, 144]
// INT: out4: short (2) [-32768, -32768]
// INT: out5: unsigned long (2) [13563526760692328810, 13563526760692328810]
// INT: out6: bool (3) [true, true, true]
// INT: out7: int (2) [-3, -3]

func.func @floats() -> (tensor<2xf16>, tensor<2xbf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) {
  %h = lazy.const 0.1 : tensor<2xf16>
  %hh = lazy.mul %h, %h : tensor<2xf16>
  %b = lazy.const 1.0 : tensor<2xbf16>
  %e = lazy.const 0.00390625 : tensor<2xbf16>
  %be = lazy.add %b, %e : tensor<2xbf16>
  %x = lazy.const 3.0 : tensor<2xf32>
  %e2 = lazy.exp2 %x : tensor<2xf32>
  %z = lazy.const 0.0 : tensor<2xf32>
  %l = lazy.log2 %z : tensor<2xf32>
  %nan = lazy.const nan : tensor<2xf32>
  %ne = lazy.cmpne %nan, %nan : tensor<2xf32> -> tensor<2xi1>
  %rz = lazy.recip %z : tensor<2xf32>
  %mx = lazy.max %x, %l : tensor<2xf32>
  return %hh, %be, %e2, %l, %ne, %rz, %mx : tensor<2xf16>, tensor<2xbf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xi1>, tensor<2xf32>, tensor<2xf32>
}
// FLT: out0: half (2) [0.00999451, 0.00999451]
// FLT: out1: __bf16 (2) [1, 1]
// FLT: out2: float (2) [8, 8]
// FLT: out3: float (2) [-inf, -inf]
// FLT: out4: bool (2) [true, true]
// FLT: out5: float (2) [inf, inf]
// FLT: out6: float (2) [3, 3]

func.func @casts() -> (tensor<3xsi32>, tensor<3xui8>, tensor<3xi1>, tensor<2xf32>, tensor<2xsi32>, tensor<2xsi8>) {
  %f = lazy.const -2.75 : tensor<3xf32>
  %i = lazy.cast %f : tensor<3xf32> -> tensor<3xsi32>
  %big = lazy.const 300 : tensor<3xsi32>
  %u = lazy.cast %big : tensor<3xsi32> -> tensor<3xui8>
  %b = lazy.cast %f : tensor<3xf32> -> tensor<3xi1>
  %one = lazy.const 1065353216 : tensor<2xsi32>
  %bits = lazy.bitcast %one : tensor<2xsi32> -> tensor<2xf32>
  %nan = lazy.const nan : tensor<2xf32>
  %ni = lazy.cast %nan : tensor<2xf32> -> tensor<2xsi32>
  %t = lazy.const true : tensor<2xi1>
  %ti = lazy.cast %t : tensor<2xi1> -> tensor<2xsi8>
  return %i, %u, %b, %bits, %ni, %ti : tensor<3xsi32>, tensor<3xui8>, tensor<3xi1>, tensor<2xf32>, tensor<2xsi32>, tensor<2xsi8>
}
// CAST: out0: int (3) [-2, -2, -2]
// CAST: out1: unsigned char (3) [44, 44, 44]
// CAST: out2: bool (3) [true, true, true]
// CAST: out3: float (2) [1, 1]
// CAST: out4: int (2) [-2147483648, -2147483648]
// CAST: out5: char (2) [1, 1]

func.func @views() -> (tensor<6xui16>, tensor<2x2xui16>, tensor<4xui16>, tensor<3xui16>, tensor<2x3xui16>) {
  // [1, 2, 3, 4] as the four 16-bit words of one 64-bit const (a bitcast
  // that changes the item size: tinygrad does that only on DISK, and the
  // scheduler refuses it here, hence --schedule-check=false).
  %w = lazy.const 1125912791875585 : tensor<1xui64>
  %x = lazy.bitcast %w : tensor<1xui64> -> tensor<4xui16>
  // Masked elements read 0.
  %p = lazy.pad %x [(1, 1)] : tensor<4xui16> -> tensor<6xui16>
  %r = lazy.reshape %x : tensor<4xui16> -> tensor<2x2xui16>
  %pt = lazy.permute %r [1, 0] : tensor<2x2xui16> -> tensor<2x2xui16>
  %v = lazy.view %x as <[(4):(1) mask [(1, 3)]]> : tensor<4xui16> -> tensor<4xui16>
  %s = lazy.stride %p [-2] : tensor<6xui16> -> tensor<3xui16>
  // Two views: the transpose of the 2x2, flattened, then a window.
  %mv = lazy.view %x as <[(2, 2):(1, 2), (2, 3):(1, 1)]> : tensor<4xui16> -> tensor<2x3xui16>
  return %p, %pt, %v, %s, %mv : tensor<6xui16>, tensor<2x2xui16>, tensor<4xui16>, tensor<3xui16>, tensor<2x3xui16>
}
// VIEW: out0: unsigned short (6) [0, 1, 2, 3, 4, 0]
// VIEW: out1: unsigned short (2, 2) [1, 3, 2, 4]
// VIEW: out2: unsigned short (4) [0, 2, 3, 0]
// VIEW: out3: unsigned short (3) [0, 3, 1]
// VIEW: out4: unsigned short (2, 3) [1, 3, 2, 3, 2, 4]

func.func @reduces() -> (tensor<2x1xf32>, tensor<1x3xsi32>, tensor<1xf32>, tensor<1xi1>) {
  %c = lazy.const 0.5 : tensor<f32>
  %m = lazy.view %c as <[(2, 3):(0, 0)]> : tensor<f32> -> tensor<2x3xf32>
  %s = lazy.reduce_sum %m axes [1] : tensor<2x3xf32> -> tensor<2x1xf32>
  %i = lazy.const -4 : tensor<2x3xsi32>
  %mx = lazy.reduce_max %i axes [0] : tensor<2x3xsi32> -> tensor<1x3xsi32>
  %e = lazy.const 1.0 : tensor<0xf32>
  %z = lazy.reduce_max %e axes [0] : tensor<0xf32> -> tensor<1xf32>
  %b = lazy.const true : tensor<2xi1>
  %bs = lazy.reduce_sum %b axes [0] : tensor<2xi1> -> tensor<1xi1>
  return %s, %mx, %z, %bs : tensor<2x1xf32>, tensor<1x3xsi32>, tensor<1xf32>, tensor<1xi1>
}
// RED: out0: float (2, 1) [1.5, 1.5]
// RED: out1: int (1, 3) [-4, -4, -4]
// RED: out2: float (1) [-inf]
// RED: out3: bool (1) [true]

// A MAX reduction steps acc = max(acc, x) = acc > x ? acc : x, as tinygrad
// renders it: a NaN survives only as the last element, and of +0 and -0
// the later wins. tinygrad 0.9.2 (CLANG): Tensor([1, nan, 1]).max() is 1,
// Tensor([1, 1, nan]).max() is nan, Tensor([0.0, -0.0]).max() is -0.0.
// Compiled kernels step the same way.
func.func @reduce_max_order() -> (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) {
  %nan = lazy.const nan : tensor<f32>
  %one = lazy.const 1.0 : tensor<3xf32>
  %mid = lazy.view %nan as <[(3):(0) mask [(1, 2)]]> : tensor<f32> -> tensor<3xf32>
  %last = lazy.view %nan as <[(3):(0) mask [(2, 3)]]> : tensor<f32> -> tensor<3xf32>
  %a = lazy.add %mid, %one : tensor<3xf32>
  %b = lazy.add %last, %one : tensor<3xf32>
  %ma = lazy.reduce_max %a axes [0] : tensor<3xf32> -> tensor<1xf32>
  %mb = lazy.reduce_max %b axes [0] : tensor<3xf32> -> tensor<1xf32>
  %nz = lazy.const -0.0 : tensor<f32>
  %z = lazy.view %nz as <[(2):(0) mask [(1, 2)]]> : tensor<f32> -> tensor<2xf32>
  %mz = lazy.reduce_max %z axes [0] : tensor<2xf32> -> tensor<1xf32>
  return %ma, %mb, %mz : tensor<1xf32>, tensor<1xf32>, tensor<1xf32>
}
// REDMAX: out0: float (1) [1]
// REDMAX: out1: float (1) [nan]
// REDMAX: out2: float (1) [-0]
// REDMAXCPU: all outputs match

// A SUM starts from +0 and adds each element, as tinygrad's CLANG kernel
// (acc = 0.0f; acc += x): a sum of -0.0s is +0.0, bits 0. The compiled
// kernels fold a sum of an integer-valued const view to c * count, but not
// for -0.0, whose product would be -0.0 (bits 2147483648). (tinygrad folds
// Tensor.full((5,), -0.0).sum() to -0.0 before any kernel: such a graph
// never reaches lazy-mlir with the reduce.)
func.func @sum_negative_zero() -> (tensor<1xui32>, tensor<1xui32>) {
  %nz = lazy.const -0.0 : tensor<f32>
  %v = lazy.view %nz as <[(5):(0)]> : tensor<f32> -> tensor<5xf32>
  %s = lazy.reduce_sum %v axes [0] : tensor<5xf32> -> tensor<1xf32>
  %bits = lazy.bitcast %s : tensor<1xf32> -> tensor<1xui32>
  %m = lazy.view %nz as <[(5):(0) mask [(1, 4)]]> : tensor<f32> -> tensor<5xf32>
  %sm = lazy.reduce_sum %m axes [0] : tensor<5xf32> -> tensor<1xf32>
  %mbits = lazy.bitcast %sm : tensor<1xf32> -> tensor<1xui32>
  return %bits, %mbits : tensor<1xui32>, tensor<1xui32>
}
// NEGZERO: out0: unsigned int (1) [0]
// NEGZERO: out1: unsigned int (1) [0]
// NEGZEROCPU: out0: match
// NEGZEROCPU: out1: match
// NEGZEROCPU: all outputs match

func.func @meta() -> (tensor<4xf32>, tensor<2xf32>, tensor<4xf32>, tensor<8xf16>, tensor<2xf32, #lazy.device<"CUDA">>) {
  %e = lazy.empty : tensor<4xf32>
  %one = lazy.const 1.0 : tensor<2xf32>
  // Assign through a view writes only the viewed elements; the ASSIGN value
  // is the start of the new buffer. (tinygrad assigns only to realized
  // buffers, so the scheduler refuses this: --schedule-check=false.)
  %n = lazy.assign %one to %e view <[(2):(1) offset 2]> : tensor<2xf32>, tensor<4xf32>
  %two = lazy.const 2.0 : tensor<4xf32>
  %w = lazy.assign %two to %e : tensor<4xf32>, tensor<4xf32>
  %bv = lazy.buffer_view %w : tensor<4xf32> -> tensor<8xf16>
  %cp = lazy.copy %one : tensor<2xf32> -> tensor<2xf32, #lazy.device<"CUDA">>
  return %e, %n, %w, %bv, %cp : tensor<4xf32>, tensor<2xf32>, tensor<4xf32>, tensor<8xf16>, tensor<2xf32, #lazy.device<"CUDA">>
}
// META: out0: float (4) [0, 0, 0, 0]
// META: out1: float (2) [0, 0]
// META: out2: float (4) [2, 2, 2, 2]
// META: out3: half (8) [0, 2, 0, 2, 0, 2, 0, 2]
// META: out4: float (2) [1, 1]

// custom_random with seed 3 is numpy's default_rng(3): random(dtype=float32)
// for floats, integers(0, 2047) / 2048 for half.
// RAND: out0: float (4) [0.811504483, 0.0856491327, 0.179440677, 0.236810505]
// RAND: out1: half (4) [0.811035, 0.0854492, 0.179199, 0.236328]
func.func @random() -> (tensor<4xf32>, tensor<4xf16>) {
  %0 = lazy.custom "custom_random" {seed = 3 : i64} tensor<4xf32>
  %1 = lazy.custom "custom_random" {seed = 3 : i64} tensor<4xf16>
  return %0, %1 : tensor<4xf32>, tensor<4xf16>
}

// A result that views an assigned argument, with no op computing it, reads
// the buffer after the assign (tinygrad: `v = a.flip(0); a.assign(x)`
// realizes v as the flipped new contents), as does a buffer_view of one,
// which shares its memory (tinygrad's `a[1:2].contiguous()`). Found by
// scripts/fuzz_compare.py --check-run: the interpreter gave the old
// contents, the compiled kernels the new.
func.func @assigned_argument(%a: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>) {
  %one = lazy.const 1.0 : tensor<f32>
  %top = lazy.view %one as <[(2, 2):(0, 0) mask [(0, 1), (0, 2)]]> : tensor<f32> -> tensor<2x2xf32>
  %flipped = lazy.view %a as <[(2, 2):(-2, 1) offset 2]> : tensor<2x2xf32> -> tensor<2x2xf32>
  %new = lazy.assign %top to %a : tensor<2x2xf32>, tensor<2x2xf32>
  %row = lazy.view %a as <[(2):(1) offset 2]> : tensor<2x2xf32> -> tensor<2xf32>
  %shared = lazy.buffer_view %row : tensor<2xf32> -> tensor<2xf32>
  return %flipped, %a, %new, %shared : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>
}
// ASSIGNED: out0: float (2, 2) [0, 0, 1, 1]
// ASSIGNED: out1: float (2, 2) [1, 1, 0, 0]
// ASSIGNED: out2: float (2, 2) [1, 1, 0, 0]
// ASSIGNED: out3: float (2) [0, 0]
// ASSIGNEDCPU: all outputs match

// An assign no result reaches is not scheduled, so its target keeps its
// contents (found by scripts/fuzz_schedule.py --check-run: the interpreter
// ran the dead assign and returned the new contents).
func.func @dead_assign(%a: tensor<4xf32>) -> tensor<4xf32> {
  %two = lazy.const 2.0 : tensor<f32>
  %twos = lazy.view %two as <[(4):(0)]> : tensor<f32> -> tensor<4xf32>
  %dead = lazy.assign %twos to %a : tensor<4xf32>, tensor<4xf32>
  %three = lazy.mul %a, %twos {lazy.forced_realize} : tensor<4xf32>
  return %a : tensor<4xf32>
}
// DEAD-NOT: 2, 2, 2, 2
// DEAD: out0: float (4) [
// DEAD-NOT: 2, 2, 2, 2
// DEADCPU: all outputs match

// Float to integer casts of NaN, inf and out-of-range values, computed at
// run time (no constant folding): the 32-bit conversion's indefinite
// INT32_MIN, narrowed, for 8-, 16- and 32-bit signed and 8- and 16-bit
// unsigned targets; the 64-bit one's INT64_MIN for 64-bit and uint32
// targets, [2^63, 2^64) converting as unsigned for uint64. Compiled
// kernels must give the same (arith's fptosi/fptoui are poison there; the
// CPU kernels gave other uint32 and uint64 values before). tinygrad's
// clang -march=native on an AVX-512 host converts to uint32/uint64 with
// vcvttss2usi, whose invalid value is all ones: C leaves these undefined.
func.func @float_to_int_edges(%x: tensor<1xf32>) -> (tensor<6xsi8>, tensor<6xsi32>, tensor<6xsi64>, tensor<6xui8>, tensor<6xui32>, tensor<6xui64>) {
  %sq = lazy.mul %x, %x : tensor<1xf32>
  %zero = lazy.const 0.0 : tensor<1xf32>
  %z = lazy.mul %sq, %zero : tensor<1xf32>
  %inf = lazy.recip %z : tensor<1xf32>
  %nan = lazy.mul %z, %inf : tensor<1xf32>
  %c3e9 = lazy.const 3.0e9 : tensor<1xf32>
  %big = lazy.add %z, %c3e9 : tensor<1xf32>
  %c1e19 = lazy.const 1.0e19 : tensor<1xf32>
  %huge = lazy.add %z, %c1e19 : tensor<1xf32>
  %cm1 = lazy.const -1.0 : tensor<1xf32>
  %m1 = lazy.add %z, %cm1 : tensor<1xf32>
  %c300 = lazy.const 300.0 : tensor<1xf32>
  %h = lazy.add %z, %c300 : tensor<1xf32>
  %e0 = lazy.view %nan as <[(6):(0) mask [(0, 1)]]> : tensor<1xf32> -> tensor<6xf32>
  %e1 = lazy.view %inf as <[(6):(0) mask [(1, 2)]]> : tensor<1xf32> -> tensor<6xf32>
  %e2 = lazy.view %big as <[(6):(0) mask [(2, 3)]]> : tensor<1xf32> -> tensor<6xf32>
  %e3 = lazy.view %huge as <[(6):(0) mask [(3, 4)]]> : tensor<1xf32> -> tensor<6xf32>
  %e4 = lazy.view %m1 as <[(6):(0) mask [(4, 5)]]> : tensor<1xf32> -> tensor<6xf32>
  %e5 = lazy.view %h as <[(6):(0) mask [(5, 6)]]> : tensor<1xf32> -> tensor<6xf32>
  %s0 = lazy.add %e0, %e1 : tensor<6xf32>
  %s1 = lazy.add %s0, %e2 : tensor<6xf32>
  %s2 = lazy.add %s1, %e3 : tensor<6xf32>
  %s3 = lazy.add %s2, %e4 : tensor<6xf32>
  %v = lazy.add %s3, %e5 : tensor<6xf32>
  %i8 = lazy.cast %v : tensor<6xf32> -> tensor<6xsi8>
  %i32 = lazy.cast %v : tensor<6xf32> -> tensor<6xsi32>
  %i64 = lazy.cast %v : tensor<6xf32> -> tensor<6xsi64>
  %u8 = lazy.cast %v : tensor<6xf32> -> tensor<6xui8>
  %u32 = lazy.cast %v : tensor<6xf32> -> tensor<6xui32>
  %u64 = lazy.cast %v : tensor<6xf32> -> tensor<6xui64>
  return %i8, %i32, %i64, %u8, %u32, %u64 : tensor<6xsi8>, tensor<6xsi32>, tensor<6xsi64>, tensor<6xui8>, tensor<6xui32>, tensor<6xui64>
}
// F2I: out0: char (6) [0, 0, 0, 0, -1, 44]
// F2I: out1: int (6) [-2147483648, -2147483648, -2147483648, -2147483648, -1, 300]
// F2I: out2: long (6) [-9223372036854775808, -9223372036854775808, 3000000000, -9223372036854775808, -1, 300]
// F2I: out3: unsigned char (6) [0, 0, 0, 0, 255, 44]
// F2I: out4: unsigned int (6) [0, 0, 3000000000, 0, 4294967295, 300]
// F2I: out5: unsigned long (6) [9223372036854775808, 9223372036854775808, 3000000000, 9999999980506447872, 18446744073709551615, 300]
// F2ICHECK: all outputs match
