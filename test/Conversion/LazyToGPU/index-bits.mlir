// RUN: lazy-opt %s --convert-lazy-to-gpu="index-bits=0" --split-input-file | FileCheck %s --check-prefix=AUTO
// RUN: lazy-opt %s --convert-lazy-to-gpu --split-input-file | FileCheck %s --check-prefix=WIDE
// RUN: lazy-opt %s --lazy-to-nvvm="format=isa" --split-input-file | FileCheck %s --check-prefix=PTX
// RUN: lazy-opt %s --lazy-to-nvvm="format=isa index-bits=64" --split-input-file | FileCheck %s --check-prefix=PTX64
// The width of the kernels' index arithmetic. index-bits=0 (lazy-to-nvvm's
// default) narrows it to 32 bits through a DLTI spec on the gpu.module when
// every tensor, buffer and view has fewer than 2^30 elements; the pass's
// own default keeps 64.

// AUTO: gpu.module @lazy_kernels attributes {dlti.dl_spec = #dlti.dl_spec<index = 32 : i64>}
// WIDE: gpu.module @lazy_kernels {
// PTX: .visible .entry small_k0(
// PTX-SAME: setp.lt.s32
// PTX64: .visible .entry small_k0(
// PTX64-NOT: setp.lt.s32
// PTX64: .visible .entry huge(
func.func @small(%x: tensor<1000xf32> {lazy.buffer = 0 : i64}) -> tensor<1000xf32> {
  %e = lazy.exp2 %x : tensor<1000xf32>
  return %e : tensor<1000xf32>
}

// -----

// 2^30 elements: the index stays 64 bits wide.
// AUTO: gpu.module @lazy_kernels {
// AUTO-NOT: dlti.dl_spec
lazy.kernel @huge(%out0: !lazy.buffer<1073741824xui8>, %in0: !lazy.buffer<1073741824xui8>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(1073741824):(1)]> : !lazy.buffer<1073741824xui8> -> tensor<1073741824xui8>
  lazy.store %0, %out0 as <[(1073741824):(1)]> : tensor<1073741824xui8>, !lazy.buffer<1073741824xui8>
}
