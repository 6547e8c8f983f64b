// RUN: lazy-opt %s --lazy-to-nvvm="format=isa fma=true" | FileCheck %s
// RUN: lazy-opt %s --lazy-to-rocdl="format=isa fma=true" | FileCheck %s --check-prefix=CDNA
// RUN: lazy-opt %s --lazy-to-nvvm="format=isa fma=true double-buffer=true" | FileCheck %s --check-prefix=DOUBLE
// RUN: lazy-opt %s --lazy-to-rocdl="format=isa fma=true chip=gfx90a" | FileCheck %s --check-prefix=CDNA
// RUN: lazy-opt %s --lazy-to-rocdl="format=isa fma=true chip=gfx1100" | FileCheck %s --check-prefix=RDNA
// Shared-memory plans in the assembly (lazy-optimize-kernels target=gpu,
// rule G4): a 512^3 matmul with a bias and relu after it runs blocks of
// 16x16 threads over 64x64 block tiles. Per chunk of 16 elements of K the
// block stages A (read along K: a 128-bit load, four scalar stores into
// the [k][m] buffer) and B (read along N: a 128-bit load and store) into
// two 4 KiB workgroup buffers between two barriers; each step of K then
// reads the thread's 4 rows and 4 columns with two 128-bit shared loads
// for 16 fused multiply-adds. The tile's 16 results take the bias and
// relu and leave as 128-bit stores. A 3x3 convolution (8 images of 64
// channels, 32x32, the input padded by its view) takes the same form: the
// weights (varying along the output channels) and the input (along rows
// and columns) staged one 3x3 window of an input channel at a time.

// CHECK: .visible .entry mm_k0(
// CHECK: .shared .align 16 .b8 __wg_mm_k0_0[4096];
// CHECK: .shared .align 16 .b8 __wg_mm_k0_1[4096];
// CHECK: bar.sync
// CHECK: ld.global.v4.b32
// CHECK: st.shared.b32
// CHECK: ld.global.v4.b32
// CHECK: st.shared.v4.b32
// CHECK: bar.sync
// CHECK-COUNT-32: ld.shared.v4.b32
// CHECK: fma.rn.f32
// CHECK: max.f32
// CHECK: st.global.v4.b32
// CHECK: .visible .entry conv_k1(
// CHECK-DAG: bar.sync
// CHECK-DAG: ld.shared.v4.b32
// CHECK-DAG: fma.rn.f32
// With double-buffer=true the matmul's buffers are two chunks deep (the
// convolution's staging is not a few loads per thread: it keeps one).
// DOUBLE: .visible .entry mm_k0(
// DOUBLE: .shared .align 16 .b8 __wg_mm_k0_0[8192];
// DOUBLE: .shared .align 16 .b8 __wg_mm_k0_1[8192];
// DOUBLE: fma.rn.f32
// DOUBLE: .visible .entry conv_k1(
// CDNA: s_barrier
// CDNA: global_load_dwordx4
// CDNA: ds_write_b128
// CDNA: s_barrier
// CDNA: ds_read_b128
// CDNA: v_pk_fma_f32
// CDNA: global_store_dwordx4
// RDNA: s_barrier
// RDNA: global_load_b128
// RDNA: ds_store_b128
// RDNA: s_barrier
// RDNA: ds_load_b128
// RDNA: v_dual_fmac_f32
// RDNA: global_store_b128
func.func @mm(%a: tensor<512x1x512xf32>, %b: tensor<1x512x512xf32>, %bias: tensor<1x512x1xf32>) -> tensor<512x512x1xf32> {
  %av = lazy.view %a as <[(512, 512, 512):(512, 0, 1)]> : tensor<512x1x512xf32> -> tensor<512x512x512xf32>
  %bv = lazy.view %b as <[(512, 512, 512):(0, 1, 512)]> : tensor<1x512x512xf32> -> tensor<512x512x512xf32>
  %m = lazy.mul %av, %bv : tensor<512x512x512xf32>
  %s = lazy.reduce_sum %m axes [2] : tensor<512x512x512xf32> -> tensor<512x512x1xf32>
  %cv = lazy.view %bias as <[(512, 512, 1):(0, 1, 0)]> : tensor<1x512x1xf32> -> tensor<512x512x1xf32>
  %y = lazy.add %s, %cv : tensor<512x512x1xf32>
  %z = lazy.const 0.0 : tensor<512x512x1xf32>
  %r = lazy.max %y, %z : tensor<512x512x1xf32>
  return %r : tensor<512x512x1xf32>
}

func.func @conv(%x: tensor<8x64x34x34xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<8x1x64x32x32x1x1x1xf32> {
  %xv = lazy.view %x as <[(8, 1, 64, 32, 32, 64, 3, 3):(73984, 0, 0, 34, 1, 1156, 34, 1)]> : tensor<8x64x34x34xf32> -> tensor<8x1x64x32x32x64x3x3xf32>
  %wv = lazy.view %w as <[(8, 1, 64, 32, 32, 64, 3, 3):(0, 0, 576, 0, 0, 9, 3, 1)]> : tensor<64x64x3x3xf32> -> tensor<8x1x64x32x32x64x3x3xf32>
  %m = lazy.mul %xv, %wv : tensor<8x1x64x32x32x64x3x3xf32>
  %s = lazy.reduce_sum %m axes [5, 6, 7] : tensor<8x1x64x32x32x64x3x3xf32> -> tensor<8x1x64x32x32x1x1x1xf32>
  return %s : tensor<8x1x64x32x32x1x1x1xf32>
}
