// RUN: lazy-opt %s --lazy-to-nvvm="format=isa" | FileCheck %s
// RUN: lazy-opt %s --lazy-to-rocdl="format=isa" | FileCheck %s --check-prefix=AMD
// RUN: lazy-opt %s --lazy-to-rocdl="format=isa chip=gfx90a" | FileCheck %s --check-prefix=AMD
// RUN: lazy-opt %s --lazy-to-rocdl="format=isa chip=gfx1100" | FileCheck %s --check-prefix=AMD
// A softmax over rows of 512 under fusion=aggressive: one row kernel, a
// block per row, whose max and sum are two block reductions one after the
// other (each a butterfly of shuffles, then a barrier to combine the
// warps), then the row's elements split across the block's threads.

// CHECK: gpu.binary @lazy_kernels
// CHECK-SAME: .visible .entry softmax_k0(
// CHECK-SAME: ld.global
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: max.NaN.f32
// CHECK-SAME: bar.sync
// CHECK-SAME: ex2.approx.f32
// CHECK-SAME: shfl.sync.bfly.b32
// CHECK-SAME: add.rn.f32
// CHECK-SAME: bar.sync
// CHECK-SAME: rcp.rn.f32
// CHECK-SAME: st.global.b32
// CHECK-NOT: .entry
// CHECK-LABEL: func.func @softmax(
// CHECK-COUNT-1: gpu.launch_func
// CHECK-NOT: gpu.launch_func

// AMD: gpu.binary @lazy_kernels
// AMD-SAME: .amdhsa_kernel softmax_k0
// AMD-NOT: .amdhsa_kernel
// AMD-LABEL: func.func @softmax(
// AMD-COUNT-1: gpu.launch_func
// AMD-NOT: gpu.launch_func
module attributes {lazy.default_device = "CUDA", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false, fusion = "aggressive"}} {
  func.func @softmax(%x: tensor<4x512xf32>) -> tensor<4x512xf32> {
    %m = lazy.reduce_max %x axes [1] : tensor<4x512xf32> -> tensor<4x1xf32>
    %mv = lazy.view %m as <[(4, 512):(1, 0)]> : tensor<4x1xf32> -> tensor<4x512xf32>
    %n = lazy.neg %mv : tensor<4x512xf32>
    %d = lazy.add %x, %n : tensor<4x512xf32>
    %e = lazy.exp2 %d : tensor<4x512xf32>
    %s = lazy.reduce_sum %e axes [1] : tensor<4x512xf32> -> tensor<4x1xf32>
    %sv = lazy.view %s as <[(4, 512):(1, 0)]> : tensor<4x1xf32> -> tensor<4x512xf32>
    %r = lazy.recip %sv : tensor<4x512xf32>
    %o = lazy.mul %e, %r : tensor<4x512xf32>
    return %o : tensor<4x512xf32>
  }
}
