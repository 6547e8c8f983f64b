// RUN: lazy-opt %s --lazy-to-nvvm="format=isa fma=true" | FileCheck %s
// RUN: lazy-opt %s --lazy-to-nvvm="format=isa fma=true plan=false" | FileCheck %s --check-prefix=PLAIN
// RUN: lazy-opt %s --lazy-to-rocdl="format=isa fma=true" | FileCheck %s --check-prefix=CDNA
// RUN: lazy-opt %s --lazy-to-rocdl="format=isa fma=true chip=gfx90a" | FileCheck %s --check-prefix=CDNA
// RUN: lazy-opt %s --lazy-to-rocdl="format=isa fma=true chip=gfx1100" | FileCheck %s --check-prefix=RDNA
// The GPU plans in the assembly: a 512x516x512 matmul gets a 4x4 register
// tile per thread (lazy-optimize-kernels target=gpu, rule G2; N = 516 is
// no multiple of 32, so no shared-memory plan: shared-tiles.mlir has one). On sm_90 each
// reduced element is one 128-bit load of B's four columns, four scalar
// loads of A and 16 fused multiply-adds; the tile leaves as four 128-bit
// stores. Without plans (plan=false) a thread computes each output (no
// block step either), storing scalars. AMD: 128-bit loads and stores too (dwordx4 on CDNA,
// b128 on RDNA), packed FMAs on CDNA. A row sum (4096 outputs, too few
// for tiles) gets a block step (rule B): a block reduction, whose threads
// read runs of 4 elements with one 128-bit load each.

// CHECK: .visible .entry mm_k0(
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: fma.rn.f32
// CHECK-SAME: st.global.v4.b32
// CHECK-SAME: .visible .entry rowsum_k1(
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: shfl.sync.bfly
// PLAIN: .visible .entry mm_k0(
// PLAIN-NOT: st.global.v4
// PLAIN-NOT: shfl.sync
// PLAIN: st.global.b32
// PLAIN: .visible .entry rowsum_k1(
// CDNA: global_load_dwordx4
// CDNA: v_pk_fma_f32
// CDNA: global_store_dwordx4
// RDNA: global_load_b128
// RDNA: v_fmac_f32
// RDNA: global_store_b128
func.func @mm(%a: tensor<512x1x512xf32>, %b: tensor<1x516x512xf32>) -> tensor<512x516x1xf32> {
  %av = lazy.view %a as <[(512, 516, 512):(512, 0, 1)]> : tensor<512x1x512xf32> -> tensor<512x516x512xf32>
  %bv = lazy.view %b as <[(512, 516, 512):(0, 1, 516)]> : tensor<1x516x512xf32> -> tensor<512x516x512xf32>
  %m = lazy.mul %av, %bv : tensor<512x516x512xf32>
  %s = lazy.reduce_sum %m axes [2] : tensor<512x516x512xf32> -> tensor<512x516x1xf32>
  return %s : tensor<512x516x1xf32>
}

func.func @rowsum(%x: tensor<4096x4096xf32>) -> tensor<4096x1xf32> {
  %s = lazy.reduce_sum %x axes [1] : tensor<4096x4096xf32> -> tensor<4096x1xf32>
  return %s : tensor<4096x1xf32>
}
