// RUN: lazy-opt %s --lazy-to-rocdl="format=isa" | FileCheck %s
// RUN: lazy-opt %s --lazy-to-rocdl="format=isa chip=gfx90a" | FileCheck %s --check-prefix=GFX90A
// RUN: lazy-opt %s --lazy-to-rocdl="format=isa chip=gfx1100" | FileCheck %s --check-prefix=GFX1100
// RUN: lazy-opt %s --lazy-to-rocdl | FileCheck %s --check-prefix=HSACO
// A softmax row by row (tinygrad's three kernels) compiled for AMD GPUs.

// gfx942: exp2 from the device libraries (v_exp_f32), the block-wide max
// as cross-lane permutes and a barrier between waves.
// CHECK: gpu.binary @lazy_kernels [#gpu.object<#rocdl.target<O = 3, chip = "gfx942">
// CHECK-SAME: .amdgcn_target \22amdgcn-amd-amdhsa--gfx942\22
// CHECK-SAME: v_rcp_f32
// CHECK-SAME: v_exp_f32
// CHECK-SAME: .amdhsa_kernel softmax_k0
// CHECK-SAME: s_barrier
// CHECK-SAME: ds_bpermute_b32
// CHECK-SAME: v_max_f32
// CHECK-SAME: .amdhsa_kernel softmax_k1
// CHECK-SAME: v_exp_f32
// CHECK-SAME: ds_bpermute_b32
// CHECK-SAME: v_add_f32
// CHECK-SAME: .amdhsa_kernel softmax_k2
// CHECK-LABEL: func.func @softmax(
// CHECK: gpu.launch_func @lazy_kernels::@softmax_k1
// CHECK: gpu.launch_func @lazy_kernels::@softmax_k2
// CHECK: gpu.launch_func @lazy_kernels::@softmax_k0

// GFX90A: #rocdl.target<O = 3, chip = "gfx90a">
// GFX90A-SAME: .amdgcn_target \22amdgcn-amd-amdhsa--gfx90a
// GFX90A-SAME: .amdhsa_kernel softmax_k2

// GFX1100: #rocdl.target<O = 3, chip = "gfx1100">
// GFX1100-SAME: .amdgcn_target \22amdgcn-amd-amdhsa--gfx1100\22
// GFX1100-SAME: .amdhsa_kernel softmax_k2

// The default format is an HSA code object (ELF) linked by ld.lld.
// HSACO: gpu.binary @lazy_kernels [#gpu.object<#rocdl.target<O = 3, chip = "gfx942">
// HSACO-SAME: bin = "\7FELF

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
