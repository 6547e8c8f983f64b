// Attention under fusion=aggressive on tensor cores (AttentionTiles.cpp):
// tinygrad 0.9.2's scaled_dot_product_attention in f16 and bf16, exported
// from tinygrad, runs FlashAttention-2's loop on mma.sync: a warp per 16
// query rows, up to 4 warps a block sharing each block of keys' K and V
// rows in shared memory, S = Q K^T and P V on tensor cores, the row
// maximum across the four lanes of a row by xor shuffles. Odd sizes: 13 queries and keys
// with a depth of 5 (odd_half), 40 causal queries and keys with a depth
// of 24 (causal_ragged: keys and depth past their ends), 33 queries
// against 50 keys with a head dim of 64 (cross_wide), an additive f32
// bias from a buffer (bias_half), bf16 (plain_bf16). Each matches the
// reference interpreter on the GPU emulator.
// RUN: lazy-run %s --entry=odd_half --seed=1 --check --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=causal_ragged --seed=2 --check --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=cross_wide --seed=3 --check --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=bias_half --seed=4 --check --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=plain_bf16 --seed=5 --check --device=emulate | FileCheck %s
// Gemma's soft cap, 30 tanh(s / 30), its dot product rounded to f16 as
// tinygrad computes it and V cast to f32 before the product permutes it
// (weights read through a view of a cast: still f16 values):
// RUN: lazy-run %s --entry=soft_cap --seed=7 --check --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=soft_cap --seed=7 --check --device=emulate --tensor-cores=mfma | FileCheck %s
// 3 heads of 100 causal queries: blocks of 4 warps (64 rows), the second
// block of each head 36 rows, its last warp's rows all past the queries:
// RUN: lazy-run %s --entry=causal_warps --seed=6 --check --device=emulate | FileCheck %s
// RUN: lazy-run %s --entry=causal_warps --seed=6 --check --device=emulate --tensor-cores=mfma | FileCheck %s
// On MFMA (64-lane waves: S^T = K Q^T, so that a lane's scores are one
// query's and, as they stand, the B fragment of O^T = V^T P^T):
// RUN: lazy-run %s --entry=odd_half --seed=1 --check --device=emulate --tensor-cores=mfma | FileCheck %s
// RUN: lazy-run %s --entry=causal_ragged --seed=2 --check --device=emulate --tensor-cores=mfma | FileCheck %s
// RUN: lazy-run %s --entry=cross_wide --seed=3 --check --device=emulate --tensor-cores=mfma | FileCheck %s
// RUN: lazy-run %s --entry=plain_bf16 --seed=5 --check --device=emulate --tensor-cores=mfma | FileCheck %s
// On WMMA (RDNA3, wave32: a lane's scores are the even or odd keys of its
// query, the other half taken from lane l ^ 16 for P^T's B fragment):
// RUN: lazy-run %s --entry=odd_half --seed=1 --check --device=emulate --tensor-cores=wmma | FileCheck %s
// RUN: lazy-run %s --entry=causal_ragged --seed=2 --check --device=emulate --tensor-cores=wmma | FileCheck %s
// RUN: lazy-run %s --entry=cross_wide --seed=3 --check --device=emulate --tensor-cores=wmma | FileCheck %s
// RUN: lazy-run %s --entry=plain_bf16 --seed=5 --check --device=emulate --tensor-cores=wmma | FileCheck %s
// RUN: lazy-run %s --entry=causal_warps --seed=6 --check --device=emulate --tensor-cores=wmma | FileCheck %s
// Without tensor cores the same kernels run a thread per query row:
// RUN: lazy-run %s --entry=causal_ragged --seed=2 --check --device=emulate --tensor-cores=none | FileCheck %s
// The kernels: one warp; per block of 16 keys two mma.sync per 16 of depth
// for S and one per 8 columns of the head dim for P V:
// RUN: lazy-opt %s --lazy-schedule | lazy-opt --convert-lazy-to-gpu=tensor-cores=mma-sync | FileCheck %s --check-prefix=GPU
// The GPU planner leaves these kernels to the lowering's softmax-sum mode
// (no `block` step, which would compute every score again per element):
// RUN: lazy-opt %s --lazy-schedule | lazy-opt --lazy-optimize-kernels=target=gpu | FileCheck %s --check-prefix=PLAN
// PLAN-LABEL: lazy.kernel @odd_half_k0
// PLAN-NOT: #lazy.opt<block
// sm_90's PTX has them:
// RUN: lazy-opt %s --lazy-schedule | lazy-opt --lazy-to-nvvm="format=isa" | FileCheck %s --check-prefix=PTX

// CHECK: out0: match
// CHECK-NEXT: all outputs match

// GPU-LABEL: gpu.func @odd_half_k0
// GPU-SAME: known_block_size = array<i32: 32, 1, 1>
// GPU-COUNT-2: nvgpu.mma.sync
// GPU-COUNT-4: gpu.shuffle  xor
// GPU: nvgpu.mma.sync
// GPU-NOT: nvgpu.mma.sync
// GPU-COUNT-4: gpu.shuffle  xor
// GPU-LABEL: gpu.func @causal_ragged_k1
// GPU-SAME: workgroup(%{{.*}} : memref<640xf16, #gpu.address_space<workgroup>> {{.*}}, %{{.*}} : memref<512xf16, #gpu.address_space<workgroup>>
// GPU-SAME: known_block_size = array<i32: 96, 1, 1>
// GPU: gpu.barrier
// GPU: memref.store {{.*}} #gpu.address_space<workgroup>>
// GPU: gpu.barrier
// GPU-COUNT-7: nvgpu.mma.sync
// GPU-NOT: nvgpu.mma.sync
// GPU-LABEL: gpu.func @cross_wide_k2
// GPU-NOT: gpu.all_reduce
// GPU-COUNT-16: nvgpu.mma.sync
// GPU-NOT: nvgpu.mma.sync
// GPU-LABEL: gpu.func @bias_half_k3
// GPU-LABEL: gpu.func @plain_bf16_k4
// GPU-COUNT-3: nvvm.mma.sync
// GPU-LABEL: gpu.func @causal_warps_k5
// GPU-SAME: known_block_size = array<i32: 128, 1, 1>
// A block of keys the causal mask masks for all the block's 64 rows is
// skipped (every thread's verdict or-ed: the block stages the next keys
// together):
// GPU: %[[LIVE:.*]] = gpu.all_reduce  or
// GPU: %[[SKIP:.*]] = arith.cmpi eq, %[[LIVE]]
// GPU-NEXT: scf.if %[[SKIP]]
// GPU-NEXT: scf.yield
// GPU-NEXT: } else {
// GPU: nvgpu.mma.sync
// GPU-LABEL: gpu.func @soft_cap_k6
// GPU-COUNT-4: nvgpu.mma.sync
// GPU-NOT: nvgpu.mma.sync

// RUN: lazy-opt %s --lazy-schedule | lazy-opt --convert-lazy-to-gpu=tensor-cores=mfma | FileCheck %s --check-prefix=MFMA
// and gfx942's code, and gfx1100's:
// RUN: lazy-opt %s --lazy-schedule | lazy-opt --lazy-to-rocdl="format=isa" | FileCheck %s --check-prefix=AMD
// RUN: lazy-opt %s --lazy-schedule | lazy-opt --lazy-to-rocdl="chip=gfx1100 format=isa" | FileCheck %s --check-prefix=RDNA3

// MFMA-LABEL: gpu.func @odd_half_k0
// MFMA-SAME: known_block_size = array<i32: 64, 1, 1>
// MFMA: amdgpu.mfma
// MFMA-COUNT-2: gpu.shuffle  xor %{{.*}}, %{{.*}}, %c64_i32
// MFMA: amdgpu.mfma
// MFMA-LABEL: gpu.func @causal_ragged_k1

// AMD: v_mfma_f32_16x16x16_f16
// AMD: v_mfma_f32_16x16x16_bf16
// RDNA3: v_wmma_f32_16x16x16_f16
// RDNA3: v_wmma_f32_16x16x16_bf16

// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX: shfl.sync.bfly.b32
// PTX: ex2.approx
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false, online_softmax = true, fusion = "aggressive"}} {
  func.func @odd_half(%arg0: tensor<1x3x13x5xf16> {lazy.buffer = 0 : i64}, %arg1: tensor<1x3x13x5xf16> {lazy.buffer = 1 : i64}, %arg2: tensor<1x3x13x5xf16> {lazy.buffer = 2 : i64}) -> tensor<1x3x13x5xf16> {
    %0 = lazy.view %arg0 as <[(1, 3, 13, 13, 5):(0, 65, 5, 0, 1)]> : tensor<1x3x13x5xf16> -> tensor<1x3x13x13x5xf16>
    %1 = lazy.view %arg1 as <[(1, 3, 13, 13, 5):(0, 65, 0, 5, 1)]> : tensor<1x3x13x5xf16> -> tensor<1x3x13x13x5xf16>
    %2 = lazy.mul %0, %1 : tensor<1x3x13x13x5xf16>
    %3 = lazy.cast %2 : tensor<1x3x13x13x5xf16> -> tensor<1x3x13x13x5xf32>
    %4 = lazy.reduce_sum %3 axes [4] : tensor<1x3x13x13x5xf32> -> tensor<1x3x13x13x1xf32>
    %5 = lazy.view %4 as <[(1, 3, 13, 13):(0, 169, 13, 1)]> : tensor<1x3x13x13x1xf32> -> tensor<1x3x13x13xf32>
    %6 = lazy.const 0.4472135901451111 : tensor<f32>
    %7 = lazy.view %6 as <[(1, 3, 13, 13):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x3x13x13xf32>
    %8 = lazy.mul %5, %7 : tensor<1x3x13x13xf32>
    %9 = lazy.reduce_max %8 axes [3] : tensor<1x3x13x13xf32> -> tensor<1x3x13x1xf32>
    %10 = lazy.view %9 as <[(1, 3, 13, 13):(0, 13, 1, 0)]> : tensor<1x3x13x1xf32> -> tensor<1x3x13x13xf32>
    %11 = lazy.neg %10 : tensor<1x3x13x13xf32>
    %12 = lazy.add %8, %11 : tensor<1x3x13x13xf32>
    %13 = lazy.const 1.4426950408889634 : tensor<f32>
    %14 = lazy.view %13 as <[(1, 3, 13, 13):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x3x13x13xf32>
    %15 = lazy.mul %12, %14 : tensor<1x3x13x13xf32>
    %16 = lazy.exp2 %15 : tensor<1x3x13x13xf32>
    %17 = lazy.reduce_sum %16 axes [3] : tensor<1x3x13x13xf32> -> tensor<1x3x13x1xf32>
    %18 = lazy.view %17 as <[(1, 3, 13, 13):(0, 13, 1, 0)]> : tensor<1x3x13x1xf32> -> tensor<1x3x13x13xf32>
    %19 = lazy.recip %18 : tensor<1x3x13x13xf32>
    %20 = lazy.mul %16, %19 : tensor<1x3x13x13xf32>
    %21 = lazy.cast %20 : tensor<1x3x13x13xf32> -> tensor<1x3x13x13xf16>
    %22 = lazy.view %21 as <[(1, 3, 13, 5, 13):(0, 169, 13, 0, 1)]> : tensor<1x3x13x13xf16> -> tensor<1x3x13x5x13xf16>
    %23 = lazy.view %arg2 as <[(1, 3, 13, 5, 13):(0, 65, 0, 1, 5)]> : tensor<1x3x13x5xf16> -> tensor<1x3x13x5x13xf16>
    %24 = lazy.mul %22, %23 : tensor<1x3x13x5x13xf16>
    %25 = lazy.cast %24 : tensor<1x3x13x5x13xf16> -> tensor<1x3x13x5x13xf32>
    %26 = lazy.reduce_sum %25 axes [4] : tensor<1x3x13x5x13xf32> -> tensor<1x3x13x5x1xf32>
    %27 = lazy.cast %26 : tensor<1x3x13x5x1xf32> -> tensor<1x3x13x5x1xf16>
    %28 = lazy.view %27 as <[(1, 3, 13, 5):(0, 65, 5, 1)]> : tensor<1x3x13x5x1xf16> -> tensor<1x3x13x5xf16>
    return %28 : tensor<1x3x13x5xf16>
  }
  func.func @causal_ragged(%arg0: tensor<1x2x40x24xf16> {lazy.buffer = 0 : i64}, %arg1: tensor<1x2x40x24xf16> {lazy.buffer = 1 : i64}, %arg2: tensor<1x2x40x24xf16> {lazy.buffer = 2 : i64}) -> tensor<1x2x40x24xf16> {
    %0 = lazy.view %arg0 as <[(1, 2, 40, 40, 24):(0, 960, 24, 0, 1)]> : tensor<1x2x40x24xf16> -> tensor<1x2x40x40x24xf16>
    %1 = lazy.view %arg1 as <[(1, 2, 40, 40, 24):(0, 960, 0, 24, 1)]> : tensor<1x2x40x24xf16> -> tensor<1x2x40x40x24xf16>
    %2 = lazy.mul %0, %1 : tensor<1x2x40x40x24xf16>
    %3 = lazy.cast %2 : tensor<1x2x40x40x24xf16> -> tensor<1x2x40x40x24xf32>
    %4 = lazy.reduce_sum %3 axes [4] : tensor<1x2x40x40x24xf32> -> tensor<1x2x40x40x1xf32>
    %5 = lazy.view %4 as <[(1, 2, 40, 40):(0, 1600, 40, 1)]> : tensor<1x2x40x40x1xf32> -> tensor<1x2x40x40xf32>
    %6 = lazy.const 0.20412415266036987 : tensor<f32>
    %7 = lazy.view %6 as <[(1, 2, 40, 40):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x40x40xf32>
    %8 = lazy.mul %5, %7 : tensor<1x2x40x40xf32>
    %9 = lazy.const true : tensor<i1>
    %10 = lazy.view %9 as <[(79, 158):(0, 0) mask [(0, 79), (0, 79)], (40, 40):(157, 1) offset 157]> : tensor<i1> -> tensor<40x40xi1>
    %11 = lazy.const 0.0 : tensor<f32>
    %12 = lazy.view %11 as <[(40, 40):(0, 0)]> : tensor<f32> -> tensor<40x40xf32>
    %13 = lazy.const 1.0 : tensor<f32>
    %14 = lazy.view %13 as <[(40, 40):(0, 0)]> : tensor<f32> -> tensor<40x40xf32>
    %15 = lazy.where %10, %12, %14 : tensor<40x40xi1>, tensor<40x40xf32>
    %16 = lazy.cast %15 : tensor<40x40xf32> -> tensor<40x40xi1>
    %17 = lazy.cast %16 : tensor<40x40xi1> -> tensor<40x40xsi32>
    %18 = lazy.const 0 : tensor<si32>
    %19 = lazy.view %18 as <[(40, 40):(0, 0)]> : tensor<si32> -> tensor<40x40xsi32>
    %20 = lazy.cmpne %17, %19 : tensor<40x40xsi32> -> tensor<40x40xi1>
    %21 = lazy.view %9 as <[(40, 40):(0, 0)]> : tensor<i1> -> tensor<40x40xi1>
    %22 = lazy.cmpne %20, %21 : tensor<40x40xi1> -> tensor<40x40xi1>
    %23 = lazy.const -inf : tensor<f32>
    %24 = lazy.view %23 as <[(40, 40):(0, 0)]> : tensor<f32> -> tensor<40x40xf32>
    %25 = lazy.const 0.0 : tensor<40x40xf32>
    %26 = lazy.where %22, %24, %25 : tensor<40x40xi1>, tensor<40x40xf32>
    %27 = lazy.view %26 as <[(1, 2, 40, 40):(0, 0, 40, 1)]> : tensor<40x40xf32> -> tensor<1x2x40x40xf32>
    %28 = lazy.add %8, %27 : tensor<1x2x40x40xf32>
    %29 = lazy.reduce_max %28 axes [3] : tensor<1x2x40x40xf32> -> tensor<1x2x40x1xf32>
    %30 = lazy.view %29 as <[(1, 2, 40, 40):(0, 40, 1, 0)]> : tensor<1x2x40x1xf32> -> tensor<1x2x40x40xf32>
    %31 = lazy.neg %30 : tensor<1x2x40x40xf32>
    %32 = lazy.add %28, %31 : tensor<1x2x40x40xf32>
    %33 = lazy.const 1.4426950408889634 : tensor<f32>
    %34 = lazy.view %33 as <[(1, 2, 40, 40):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x40x40xf32>
    %35 = lazy.mul %32, %34 : tensor<1x2x40x40xf32>
    %36 = lazy.exp2 %35 : tensor<1x2x40x40xf32>
    %37 = lazy.reduce_sum %36 axes [3] : tensor<1x2x40x40xf32> -> tensor<1x2x40x1xf32>
    %38 = lazy.view %37 as <[(1, 2, 40, 40):(0, 40, 1, 0)]> : tensor<1x2x40x1xf32> -> tensor<1x2x40x40xf32>
    %39 = lazy.recip %38 : tensor<1x2x40x40xf32>
    %40 = lazy.mul %36, %39 : tensor<1x2x40x40xf32>
    %41 = lazy.cast %40 : tensor<1x2x40x40xf32> -> tensor<1x2x40x40xf16>
    %42 = lazy.view %41 as <[(1, 2, 40, 24, 40):(0, 1600, 40, 0, 1)]> : tensor<1x2x40x40xf16> -> tensor<1x2x40x24x40xf16>
    %43 = lazy.view %arg2 as <[(1, 2, 40, 24, 40):(0, 960, 0, 1, 24)]> : tensor<1x2x40x24xf16> -> tensor<1x2x40x24x40xf16>
    %44 = lazy.mul %42, %43 : tensor<1x2x40x24x40xf16>
    %45 = lazy.cast %44 : tensor<1x2x40x24x40xf16> -> tensor<1x2x40x24x40xf32>
    %46 = lazy.reduce_sum %45 axes [4] : tensor<1x2x40x24x40xf32> -> tensor<1x2x40x24x1xf32>
    %47 = lazy.cast %46 : tensor<1x2x40x24x1xf32> -> tensor<1x2x40x24x1xf16>
    %48 = lazy.view %47 as <[(1, 2, 40, 24):(0, 960, 24, 1)]> : tensor<1x2x40x24x1xf16> -> tensor<1x2x40x24xf16>
    return %48 : tensor<1x2x40x24xf16>
  }
  func.func @cross_wide(%arg0: tensor<2x2x33x64xf16> {lazy.buffer = 0 : i64}, %arg1: tensor<2x2x50x64xf16> {lazy.buffer = 1 : i64}, %arg2: tensor<2x2x50x64xf16> {lazy.buffer = 2 : i64}) -> tensor<2x2x33x64xf16> {
    %0 = lazy.view %arg0 as <[(2, 2, 33, 50, 64):(4224, 2112, 64, 0, 1)]> : tensor<2x2x33x64xf16> -> tensor<2x2x33x50x64xf16>
    %1 = lazy.view %arg1 as <[(2, 2, 33, 50, 64):(6400, 3200, 0, 64, 1)]> : tensor<2x2x50x64xf16> -> tensor<2x2x33x50x64xf16>
    %2 = lazy.mul %0, %1 : tensor<2x2x33x50x64xf16>
    %3 = lazy.cast %2 : tensor<2x2x33x50x64xf16> -> tensor<2x2x33x50x64xf32>
    %4 = lazy.reduce_sum %3 axes [4] : tensor<2x2x33x50x64xf32> -> tensor<2x2x33x50x1xf32>
    %5 = lazy.view %4 as <[(2, 2, 33, 50):(3300, 1650, 50, 1)]> : tensor<2x2x33x50x1xf32> -> tensor<2x2x33x50xf32>
    %6 = lazy.const 0.125 : tensor<f32>
    %7 = lazy.view %6 as <[(2, 2, 33, 50):(0, 0, 0, 0)]> : tensor<f32> -> tensor<2x2x33x50xf32>
    %8 = lazy.mul %5, %7 : tensor<2x2x33x50xf32>
    %9 = lazy.reduce_max %8 axes [3] : tensor<2x2x33x50xf32> -> tensor<2x2x33x1xf32>
    %10 = lazy.view %9 as <[(2, 2, 33, 50):(66, 33, 1, 0)]> : tensor<2x2x33x1xf32> -> tensor<2x2x33x50xf32>
    %11 = lazy.neg %10 : tensor<2x2x33x50xf32>
    %12 = lazy.add %8, %11 : tensor<2x2x33x50xf32>
    %13 = lazy.const 1.4426950408889634 : tensor<f32>
    %14 = lazy.view %13 as <[(2, 2, 33, 50):(0, 0, 0, 0)]> : tensor<f32> -> tensor<2x2x33x50xf32>
    %15 = lazy.mul %12, %14 : tensor<2x2x33x50xf32>
    %16 = lazy.exp2 %15 : tensor<2x2x33x50xf32>
    %17 = lazy.reduce_sum %16 axes [3] : tensor<2x2x33x50xf32> -> tensor<2x2x33x1xf32>
    %18 = lazy.view %17 as <[(2, 2, 33, 50):(66, 33, 1, 0)]> : tensor<2x2x33x1xf32> -> tensor<2x2x33x50xf32>
    %19 = lazy.recip %18 : tensor<2x2x33x50xf32>
    %20 = lazy.mul %16, %19 : tensor<2x2x33x50xf32>
    %21 = lazy.cast %20 : tensor<2x2x33x50xf32> -> tensor<2x2x33x50xf16>
    %22 = lazy.view %21 as <[(2, 2, 33, 64, 50):(3300, 1650, 50, 0, 1)]> : tensor<2x2x33x50xf16> -> tensor<2x2x33x64x50xf16>
    %23 = lazy.view %arg2 as <[(2, 2, 33, 64, 50):(6400, 3200, 0, 1, 64)]> : tensor<2x2x50x64xf16> -> tensor<2x2x33x64x50xf16>
    %24 = lazy.mul %22, %23 : tensor<2x2x33x64x50xf16>
    %25 = lazy.cast %24 : tensor<2x2x33x64x50xf16> -> tensor<2x2x33x64x50xf32>
    %26 = lazy.reduce_sum %25 axes [4] : tensor<2x2x33x64x50xf32> -> tensor<2x2x33x64x1xf32>
    %27 = lazy.cast %26 : tensor<2x2x33x64x1xf32> -> tensor<2x2x33x64x1xf16>
    %28 = lazy.view %27 as <[(2, 2, 33, 64):(4224, 2112, 64, 1)]> : tensor<2x2x33x64x1xf16> -> tensor<2x2x33x64xf16>
    return %28 : tensor<2x2x33x64xf16>
  }
  func.func @bias_half(%arg0: tensor<1x2x32x16xf16> {lazy.buffer = 0 : i64}, %arg1: tensor<1x2x32x16xf16> {lazy.buffer = 1 : i64}, %arg2: tensor<32x32xf32> {lazy.buffer = 2 : i64}, %arg3: tensor<1x2x32x16xf16> {lazy.buffer = 3 : i64}) -> tensor<1x2x32x16xf16> {
    %0 = lazy.view %arg0 as <[(1, 2, 32, 32, 16):(0, 512, 16, 0, 1)]> : tensor<1x2x32x16xf16> -> tensor<1x2x32x32x16xf16>
    %1 = lazy.view %arg1 as <[(1, 2, 32, 32, 16):(0, 512, 0, 16, 1)]> : tensor<1x2x32x16xf16> -> tensor<1x2x32x32x16xf16>
    %2 = lazy.mul %0, %1 : tensor<1x2x32x32x16xf16>
    %3 = lazy.cast %2 : tensor<1x2x32x32x16xf16> -> tensor<1x2x32x32x16xf32>
    %4 = lazy.reduce_sum %3 axes [4] : tensor<1x2x32x32x16xf32> -> tensor<1x2x32x32x1xf32>
    %5 = lazy.view %4 as <[(1, 2, 32, 32):(0, 1024, 32, 1)]> : tensor<1x2x32x32x1xf32> -> tensor<1x2x32x32xf32>
    %6 = lazy.const 0.25 : tensor<f32>
    %7 = lazy.view %6 as <[(1, 2, 32, 32):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x32x32xf32>
    %8 = lazy.mul %5, %7 : tensor<1x2x32x32xf32>
    %9 = lazy.view %arg2 as <[(1, 2, 32, 32):(0, 0, 32, 1)]> : tensor<32x32xf32> -> tensor<1x2x32x32xf32>
    %10 = lazy.add %8, %9 : tensor<1x2x32x32xf32>
    %11 = lazy.reduce_max %10 axes [3] : tensor<1x2x32x32xf32> -> tensor<1x2x32x1xf32>
    %12 = lazy.view %11 as <[(1, 2, 32, 32):(0, 32, 1, 0)]> : tensor<1x2x32x1xf32> -> tensor<1x2x32x32xf32>
    %13 = lazy.neg %12 : tensor<1x2x32x32xf32>
    %14 = lazy.add %10, %13 : tensor<1x2x32x32xf32>
    %15 = lazy.const 1.4426950408889634 : tensor<f32>
    %16 = lazy.view %15 as <[(1, 2, 32, 32):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x32x32xf32>
    %17 = lazy.mul %14, %16 : tensor<1x2x32x32xf32>
    %18 = lazy.exp2 %17 : tensor<1x2x32x32xf32>
    %19 = lazy.reduce_sum %18 axes [3] : tensor<1x2x32x32xf32> -> tensor<1x2x32x1xf32>
    %20 = lazy.view %19 as <[(1, 2, 32, 32):(0, 32, 1, 0)]> : tensor<1x2x32x1xf32> -> tensor<1x2x32x32xf32>
    %21 = lazy.recip %20 : tensor<1x2x32x32xf32>
    %22 = lazy.mul %18, %21 : tensor<1x2x32x32xf32>
    %23 = lazy.cast %22 : tensor<1x2x32x32xf32> -> tensor<1x2x32x32xf16>
    %24 = lazy.view %23 as <[(1, 2, 32, 16, 32):(0, 1024, 32, 0, 1)]> : tensor<1x2x32x32xf16> -> tensor<1x2x32x16x32xf16>
    %25 = lazy.view %arg3 as <[(1, 2, 32, 16, 32):(0, 512, 0, 1, 16)]> : tensor<1x2x32x16xf16> -> tensor<1x2x32x16x32xf16>
    %26 = lazy.mul %24, %25 : tensor<1x2x32x16x32xf16>
    %27 = lazy.cast %26 : tensor<1x2x32x16x32xf16> -> tensor<1x2x32x16x32xf32>
    %28 = lazy.reduce_sum %27 axes [4] : tensor<1x2x32x16x32xf32> -> tensor<1x2x32x16x1xf32>
    %29 = lazy.cast %28 : tensor<1x2x32x16x1xf32> -> tensor<1x2x32x16x1xf16>
    %30 = lazy.view %29 as <[(1, 2, 32, 16):(0, 512, 16, 1)]> : tensor<1x2x32x16x1xf16> -> tensor<1x2x32x16xf16>
    return %30 : tensor<1x2x32x16xf16>
  }
  func.func @plain_bf16(%arg0: tensor<1x2x16x8xbf16> {lazy.buffer = 0 : i64}, %arg1: tensor<1x2x16x8xbf16> {lazy.buffer = 1 : i64}, %arg2: tensor<1x2x16x8xbf16> {lazy.buffer = 2 : i64}) -> tensor<1x2x16x8xbf16> {
    %0 = lazy.view %arg0 as <[(1, 2, 16, 16, 8):(0, 128, 8, 0, 1)]> : tensor<1x2x16x8xbf16> -> tensor<1x2x16x16x8xbf16>
    %1 = lazy.view %arg1 as <[(1, 2, 16, 16, 8):(0, 128, 0, 8, 1)]> : tensor<1x2x16x8xbf16> -> tensor<1x2x16x16x8xbf16>
    %2 = lazy.mul %0, %1 : tensor<1x2x16x16x8xbf16>
    %3 = lazy.cast %2 : tensor<1x2x16x16x8xbf16> -> tensor<1x2x16x16x8xf32>
    %4 = lazy.reduce_sum %3 axes [4] : tensor<1x2x16x16x8xf32> -> tensor<1x2x16x16x1xf32>
    %5 = lazy.view %4 as <[(1, 2, 16, 16):(0, 256, 16, 1)]> : tensor<1x2x16x16x1xf32> -> tensor<1x2x16x16xf32>
    %6 = lazy.const 0.3535533845424652 : tensor<f32>
    %7 = lazy.view %6 as <[(1, 2, 16, 16):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x16x16xf32>
    %8 = lazy.mul %5, %7 : tensor<1x2x16x16xf32>
    %9 = lazy.reduce_max %8 axes [3] : tensor<1x2x16x16xf32> -> tensor<1x2x16x1xf32>
    %10 = lazy.view %9 as <[(1, 2, 16, 16):(0, 16, 1, 0)]> : tensor<1x2x16x1xf32> -> tensor<1x2x16x16xf32>
    %11 = lazy.neg %10 : tensor<1x2x16x16xf32>
    %12 = lazy.add %8, %11 : tensor<1x2x16x16xf32>
    %13 = lazy.const 1.4426950408889634 : tensor<f32>
    %14 = lazy.view %13 as <[(1, 2, 16, 16):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x16x16xf32>
    %15 = lazy.mul %12, %14 : tensor<1x2x16x16xf32>
    %16 = lazy.exp2 %15 : tensor<1x2x16x16xf32>
    %17 = lazy.reduce_sum %16 axes [3] : tensor<1x2x16x16xf32> -> tensor<1x2x16x1xf32>
    %18 = lazy.view %17 as <[(1, 2, 16, 16):(0, 16, 1, 0)]> : tensor<1x2x16x1xf32> -> tensor<1x2x16x16xf32>
    %19 = lazy.recip %18 : tensor<1x2x16x16xf32>
    %20 = lazy.mul %16, %19 : tensor<1x2x16x16xf32>
    %21 = lazy.cast %20 : tensor<1x2x16x16xf32> -> tensor<1x2x16x16xbf16>
    %22 = lazy.view %21 as <[(1, 2, 16, 8, 16):(0, 256, 16, 0, 1)]> : tensor<1x2x16x16xbf16> -> tensor<1x2x16x8x16xbf16>
    %23 = lazy.view %arg2 as <[(1, 2, 16, 8, 16):(0, 128, 0, 1, 8)]> : tensor<1x2x16x8xbf16> -> tensor<1x2x16x8x16xbf16>
    %24 = lazy.mul %22, %23 : tensor<1x2x16x8x16xbf16>
    %25 = lazy.cast %24 : tensor<1x2x16x8x16xbf16> -> tensor<1x2x16x8x16xf32>
    %26 = lazy.reduce_sum %25 axes [4] : tensor<1x2x16x8x16xf32> -> tensor<1x2x16x8x1xf32>
    %27 = lazy.cast %26 : tensor<1x2x16x8x1xf32> -> tensor<1x2x16x8x1xbf16>
    %28 = lazy.view %27 as <[(1, 2, 16, 8):(0, 128, 8, 1)]> : tensor<1x2x16x8x1xbf16> -> tensor<1x2x16x8xbf16>
    return %28 : tensor<1x2x16x8xbf16>
  }
  func.func @causal_warps(%arg0: tensor<1x3x100x32xf16> {lazy.buffer = 0 : i64}, %arg1: tensor<1x3x100x32xf16> {lazy.buffer = 1 : i64}, %arg2: tensor<1x3x100x32xf16> {lazy.buffer = 2 : i64}) -> tensor<1x3x100x32xf16> {
    %0 = lazy.view %arg0 as <[(1, 3, 100, 100, 32):(0, 3200, 32, 0, 1)]> : tensor<1x3x100x32xf16> -> tensor<1x3x100x100x32xf16>
    %1 = lazy.view %arg1 as <[(1, 3, 100, 100, 32):(0, 3200, 0, 32, 1)]> : tensor<1x3x100x32xf16> -> tensor<1x3x100x100x32xf16>
    %2 = lazy.mul %0, %1 : tensor<1x3x100x100x32xf16>
    %3 = lazy.cast %2 : tensor<1x3x100x100x32xf16> -> tensor<1x3x100x100x32xf32>
    %4 = lazy.reduce_sum %3 axes [4] : tensor<1x3x100x100x32xf32> -> tensor<1x3x100x100x1xf32>
    %5 = lazy.view %4 as <[(1, 3, 100, 100):(0, 10000, 100, 1)]> : tensor<1x3x100x100x1xf32> -> tensor<1x3x100x100xf32>
    %6 = lazy.const 0.1767766922712326 : tensor<f32>
    %7 = lazy.view %6 as <[(1, 3, 100, 100):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x3x100x100xf32>
    %8 = lazy.mul %5, %7 : tensor<1x3x100x100xf32>
    %9 = lazy.const true : tensor<i1>
    %10 = lazy.view %9 as <[(199, 398):(0, 0) mask [(0, 199), (0, 199)], (100, 100):(397, 1) offset 397]> : tensor<i1> -> tensor<100x100xi1>
    %11 = lazy.const 0.0 : tensor<f32>
    %12 = lazy.view %11 as <[(100, 100):(0, 0)]> : tensor<f32> -> tensor<100x100xf32>
    %13 = lazy.const 1.0 : tensor<f32>
    %14 = lazy.view %13 as <[(100, 100):(0, 0)]> : tensor<f32> -> tensor<100x100xf32>
    %15 = lazy.where %10, %12, %14 : tensor<100x100xi1>, tensor<100x100xf32>
    %16 = lazy.cast %15 : tensor<100x100xf32> -> tensor<100x100xi1>
    %17 = lazy.cast %16 : tensor<100x100xi1> -> tensor<100x100xsi32>
    %18 = lazy.const 0 : tensor<si32>
    %19 = lazy.view %18 as <[(100, 100):(0, 0)]> : tensor<si32> -> tensor<100x100xsi32>
    %20 = lazy.cmpne %17, %19 : tensor<100x100xsi32> -> tensor<100x100xi1>
    %21 = lazy.view %9 as <[(100, 100):(0, 0)]> : tensor<i1> -> tensor<100x100xi1>
    %22 = lazy.cmpne %20, %21 : tensor<100x100xi1> -> tensor<100x100xi1>
    %23 = lazy.const -inf : tensor<f32>
    %24 = lazy.view %23 as <[(100, 100):(0, 0)]> : tensor<f32> -> tensor<100x100xf32>
    %25 = lazy.const 0.0 : tensor<100x100xf32>
    %26 = lazy.where %22, %24, %25 : tensor<100x100xi1>, tensor<100x100xf32>
    %27 = lazy.view %26 as <[(1, 3, 100, 100):(0, 0, 100, 1)]> : tensor<100x100xf32> -> tensor<1x3x100x100xf32>
    %28 = lazy.add %8, %27 : tensor<1x3x100x100xf32>
    %29 = lazy.reduce_max %28 axes [3] : tensor<1x3x100x100xf32> -> tensor<1x3x100x1xf32>
    %30 = lazy.view %29 as <[(1, 3, 100, 100):(0, 100, 1, 0)]> : tensor<1x3x100x1xf32> -> tensor<1x3x100x100xf32>
    %31 = lazy.neg %30 : tensor<1x3x100x100xf32>
    %32 = lazy.add %28, %31 : tensor<1x3x100x100xf32>
    %33 = lazy.const 1.4426950408889634 : tensor<f32>
    %34 = lazy.view %33 as <[(1, 3, 100, 100):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x3x100x100xf32>
    %35 = lazy.mul %32, %34 : tensor<1x3x100x100xf32>
    %36 = lazy.exp2 %35 : tensor<1x3x100x100xf32>
    %37 = lazy.reduce_sum %36 axes [3] : tensor<1x3x100x100xf32> -> tensor<1x3x100x1xf32>
    %38 = lazy.view %37 as <[(1, 3, 100, 100):(0, 100, 1, 0)]> : tensor<1x3x100x1xf32> -> tensor<1x3x100x100xf32>
    %39 = lazy.recip %38 : tensor<1x3x100x100xf32>
    %40 = lazy.mul %36, %39 : tensor<1x3x100x100xf32>
    %41 = lazy.cast %40 : tensor<1x3x100x100xf32> -> tensor<1x3x100x100xf16>
    %42 = lazy.view %41 as <[(1, 3, 100, 32, 100):(0, 10000, 100, 0, 1)]> : tensor<1x3x100x100xf16> -> tensor<1x3x100x32x100xf16>
    %43 = lazy.view %arg2 as <[(1, 3, 100, 32, 100):(0, 3200, 0, 1, 32)]> : tensor<1x3x100x32xf16> -> tensor<1x3x100x32x100xf16>
    %44 = lazy.mul %42, %43 : tensor<1x3x100x32x100xf16>
    %45 = lazy.cast %44 : tensor<1x3x100x32x100xf16> -> tensor<1x3x100x32x100xf32>
    %46 = lazy.reduce_sum %45 axes [4] : tensor<1x3x100x32x100xf32> -> tensor<1x3x100x32x1xf32>
    %47 = lazy.cast %46 : tensor<1x3x100x32x1xf32> -> tensor<1x3x100x32x1xf16>
    %48 = lazy.view %47 as <[(1, 3, 100, 32):(0, 3200, 32, 1)]> : tensor<1x3x100x32x1xf16> -> tensor<1x3x100x32xf16>
    return %48 : tensor<1x3x100x32xf16>
  }
  func.func @soft_cap(%arg0: tensor<1x2x32x16xf16> {lazy.buffer = 0 : i64}, %arg1: tensor<1x2x32x16xf16> {lazy.buffer = 1 : i64}, %arg2: tensor<1x2x32x16xf16> {lazy.buffer = 2 : i64}) -> tensor<1x2x32x16xf16> {
    %0 = lazy.const 2.0 : tensor<f32>
    %1 = lazy.view %0 as <[(1, 2, 32, 32):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x32x32xf32>
    %2 = lazy.const 1.0 : tensor<f32>
    %3 = lazy.view %2 as <[(1, 2, 32, 32):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x32x32xf32>
    %4 = lazy.view %arg0 as <[(1, 2, 32, 32, 16):(0, 512, 16, 0, 1)]> : tensor<1x2x32x16xf16> -> tensor<1x2x32x32x16xf16>
    %5 = lazy.view %arg1 as <[(1, 2, 32, 32, 16):(0, 512, 0, 16, 1)]> : tensor<1x2x32x16xf16> -> tensor<1x2x32x32x16xf16>
    %6 = lazy.mul %4, %5 : tensor<1x2x32x32x16xf16>
    %7 = lazy.cast %6 : tensor<1x2x32x32x16xf16> -> tensor<1x2x32x32x16xf32>
    %8 = lazy.reduce_sum %7 axes [4] : tensor<1x2x32x32x16xf32> -> tensor<1x2x32x32x1xf32>
    %9 = lazy.cast %8 : tensor<1x2x32x32x1xf32> -> tensor<1x2x32x32x1xf16>
    %10 = lazy.view %9 as <[(1, 2, 32, 32):(0, 1024, 32, 1)]> : tensor<1x2x32x32x1xf16> -> tensor<1x2x32x32xf16>
    %11 = lazy.cast %10 : tensor<1x2x32x32xf16> -> tensor<1x2x32x32xf32>
    %12 = lazy.const 0.125 : tensor<f32>
    %13 = lazy.view %12 as <[(1, 2, 32, 32):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x32x32xf32>
    %14 = lazy.mul %11, %13 : tensor<1x2x32x32xf32>
    %15 = lazy.const 0.03333333507180214 : tensor<f32>
    %16 = lazy.view %15 as <[(1, 2, 32, 32):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x32x32xf32>
    %17 = lazy.mul %14, %16 : tensor<1x2x32x32xf32>
    %18 = lazy.mul %1, %17 : tensor<1x2x32x32xf32>
    %19 = lazy.const -1.4426950408889634 : tensor<f32>
    %20 = lazy.view %19 as <[(1, 2, 32, 32):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x32x32xf32>
    %21 = lazy.mul %18, %20 : tensor<1x2x32x32xf32>
    %22 = lazy.exp2 %21 : tensor<1x2x32x32xf32>
    %23 = lazy.add %3, %22 : tensor<1x2x32x32xf32>
    %24 = lazy.recip %23 : tensor<1x2x32x32xf32>
    %25 = lazy.mul %1, %24 : tensor<1x2x32x32xf32>
    %26 = lazy.const -1.0 : tensor<f32>
    %27 = lazy.view %26 as <[(1, 2, 32, 32):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x32x32xf32>
    %28 = lazy.add %25, %27 : tensor<1x2x32x32xf32>
    %29 = lazy.const 30.0 : tensor<f32>
    %30 = lazy.view %29 as <[(1, 2, 32, 32):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x32x32xf32>
    %31 = lazy.mul %28, %30 : tensor<1x2x32x32xf32>
    %32 = lazy.reduce_max %31 axes [3] : tensor<1x2x32x32xf32> -> tensor<1x2x32x1xf32>
    %33 = lazy.view %32 as <[(1, 2, 32, 32):(0, 32, 1, 0)]> : tensor<1x2x32x1xf32> -> tensor<1x2x32x32xf32>
    %34 = lazy.neg %33 : tensor<1x2x32x32xf32>
    %35 = lazy.add %31, %34 : tensor<1x2x32x32xf32>
    %36 = lazy.const 1.4426950408889634 : tensor<f32>
    %37 = lazy.view %36 as <[(1, 2, 32, 32):(0, 0, 0, 0)]> : tensor<f32> -> tensor<1x2x32x32xf32>
    %38 = lazy.mul %35, %37 : tensor<1x2x32x32xf32>
    %39 = lazy.exp2 %38 : tensor<1x2x32x32xf32>
    %40 = lazy.reduce_sum %39 axes [3] : tensor<1x2x32x32xf32> -> tensor<1x2x32x1xf32>
    %41 = lazy.view %40 as <[(1, 2, 32, 32):(0, 32, 1, 0)]> : tensor<1x2x32x1xf32> -> tensor<1x2x32x32xf32>
    %42 = lazy.recip %41 : tensor<1x2x32x32xf32>
    %43 = lazy.mul %39, %42 : tensor<1x2x32x32xf32>
    %44 = lazy.view %43 as <[(1, 2, 32, 16, 32):(0, 1024, 32, 0, 1)]> : tensor<1x2x32x32xf32> -> tensor<1x2x32x16x32xf32>
    %45 = lazy.cast %arg2 : tensor<1x2x32x16xf16> -> tensor<1x2x32x16xf32>
    %46 = lazy.view %45 as <[(1, 2, 32, 16, 32):(0, 512, 0, 1, 16)]> : tensor<1x2x32x16xf32> -> tensor<1x2x32x16x32xf32>
    %47 = lazy.mul %44, %46 : tensor<1x2x32x16x32xf32>
    %48 = lazy.reduce_sum %47 axes [4] : tensor<1x2x32x16x32xf32> -> tensor<1x2x32x16x1xf32>
    %49 = lazy.cast %48 : tensor<1x2x32x16x1xf32> -> tensor<1x2x32x16x1xf16>
    %50 = lazy.view %49 as <[(1, 2, 32, 16):(0, 512, 16, 1)]> : tensor<1x2x32x16x1xf16> -> tensor<1x2x32x16xf16>
    return %50 : tensor<1x2x32x16xf16>
  }
}
