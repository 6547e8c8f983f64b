// RUN: lazy-opt %s --lazy-to-nvvm="format=isa" | FileCheck %s
// RUN: lazy-opt %s --lazy-to-nvvm="format=isa chip=sm_80 features=+ptx70" | FileCheck %s --check-prefix=SM80
// RUN: %if ptxas %{ lazy-opt %s --lazy-to-nvvm | FileCheck %s --check-prefix=CUBIN %}
// A softmax row by row: tinygrad's three kernels (the max, the sum of
// exponentials, the normalized exponentials), compiled to PTX for sm_90.

// The two reductions over 512 elements use blocks of 32 threads, 16
// elements each (reduce-per-thread): warp shuffles, then shared memory and
// a barrier.
// CHECK: gpu.binary @lazy_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">
// CHECK-SAME: .target sm_90
// CHECK-SAME: .visible .entry softmax_k0(
// CHECK-SAME: .maxntid 256, 1, 1
// CHECK-SAME: ex2.approx.f32
// CHECK-SAME: rcp.rn.f32
// CHECK-SAME: .visible .entry softmax_k1(
// CHECK-SAME: .maxntid 32, 1, 1
// CHECK-SAME: max.NaN.f32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: .visible .entry softmax_k2(
// CHECK-SAME: ex2.approx.f32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: add.rn.f32

// The host function launches the kernels in schedule order on byte
// buffers viewed as f32.
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME: %{{.+}}: memref<8192xi8>) -> memref<2048xf32>
// CHECK: gpu.alloc () : memref<16xi8>
// CHECK: gpu.launch_func @lazy_kernels::@softmax_k1 blocks in
// CHECK: gpu.launch_func @lazy_kernels::@softmax_k2 blocks in
// CHECK: gpu.launch_func @lazy_kernels::@softmax_k0 blocks in

// SM80: #nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">
// SM80-SAME: .target sm_80

// With ptxas, the default format is a cubin (an ELF image).
// CUBIN: gpu.binary @lazy_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">
// CUBIN-SAME: bin = "\7FELF

module attributes {lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
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
}
