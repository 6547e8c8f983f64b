// Shared-memory plans (lazy-optimize-kernels target=gpu, rule G4, or
// forced `local` steps) run on the GPU emulator, its threads meeting at
// each gpu.barrier, and match the reference interpreter: a matmul whose N
// takes 8 threads, A @ B.T under a forced plan of 32 threads, a batched
// matmul of relu(A) with a bias after it (the operand staged is the relu,
// the batch one block tile deep), a K of 12 taken 4 at a time, and a
// weight gradient summed over batch and sequence (K two axes, staged two
// sequences of 8 at a time).
// gpu-min-tiles=1 gives these small kernels the plans large ones get.
// RUN: lazy-opt %s --lazy-schedule --lazy-optimize-kernels="target=gpu gpu-min-tiles=1" | FileCheck %s --check-prefix=PLAN
// RUN: lazy-run %s --entry=mm --seed=1 --check --device=emulate --plan-options=gpu-min-tiles=1 | FileCheck %s
// RUN: lazy-run %s --entry=dot --seed=2 --check --device=emulate --plan=dot_k0:local:0:8,dot_k0:local:1:4,dot_k0:upcast:0:4,dot_k0:upcast:1:4,dot_k0:unroll:2:8 | FileCheck %s
// A local plan is the GPU's: the CPU refuses it rather than run the
// kernel without it.
// RUN: not lazy-run %s --entry=dot --seed=2 --check --device=cpu --plan=dot_k0:local:0:8,dot_k0:local:1:4,dot_k0:upcast:0:4,dot_k0:upcast:1:4,dot_k0:unroll:2:8 2>&1 | FileCheck %s --check-prefix=CPU
// CPU: error: lazy-optimize-kernels: the forced plan has tc, local, group or block steps, which only target=gpu runs
// RUN: lazy-run %s --entry=bmm --seed=3 --check --device=emulate --plan-options=gpu-min-tiles=1 | FileCheck %s
// RUN: lazy-run %s --entry=short --seed=4 --check --device=emulate --plan-options=gpu-min-tiles=1 | FileCheck %s
// RUN: lazy-run %s --entry=wgrad --seed=5 --check --device=emulate --plan-options=gpu-min-tiles=1 | FileCheck %s
// RUN: lazy-opt %s --lazy-schedule --lazy-optimize-kernels="target=gpu gpu-min-tiles=1" --convert-lazy-to-gpu | FileCheck %s --check-prefix=GPU
// Double buffering (convert-lazy-to-gpu double-buffer=true): the same
// results, each buffer two chunks deep, one barrier per chunk.
// RUN: lazy-run %s --entry=mm --seed=6 --check --device=emulate --plan-options=gpu-min-tiles=1 --kernel-options=double-buffer=true | FileCheck %s
// RUN: lazy-run %s --entry=bmm --seed=7 --check --device=emulate --plan-options=gpu-min-tiles=1 --kernel-options=double-buffer=true | FileCheck %s
// RUN: lazy-run %s --entry=wgrad --seed=8 --check --device=emulate --plan-options=gpu-min-tiles=1 --kernel-options=double-buffer=true | FileCheck %s
// RUN: lazy-opt %s --lazy-schedule --lazy-optimize-kernels="target=gpu gpu-min-tiles=1" --convert-lazy-to-gpu=double-buffer=true | FileCheck %s --check-prefix=DOUBLE

// PLAN-LABEL: lazy.kernel @mm_k0
// PLAN-SAME: opts = [#lazy.opt<local, 0, 16>, #lazy.opt<local, 1, 8>, #lazy.opt<upcast, 0, 4>, #lazy.opt<upcast, 1, 4>, #lazy.opt<unroll, 2, 16>]
// PLAN-LABEL: lazy.kernel @bmm_k2
// PLAN-SAME: opts = [#lazy.opt<local, 1, 16>, #lazy.opt<local, 2, 16>, #lazy.opt<upcast, 1, 4>, #lazy.opt<upcast, 2, 4>, #lazy.opt<unroll, 3, 16>]
// PLAN-LABEL: lazy.kernel @short_k3
// PLAN-SAME: opts = [#lazy.opt<local, 0, 16>, #lazy.opt<local, 1, 16>, #lazy.opt<upcast, 0, 4>, #lazy.opt<upcast, 1, 4>, #lazy.opt<unroll, 2, 4>]
// PLAN-LABEL: lazy.kernel @wgrad_k4
// PLAN-SAME: opts = [#lazy.opt<local, 0, 16>, #lazy.opt<local, 1, 8>, #lazy.opt<upcast, 0, 4>, #lazy.opt<upcast, 1, 4>, #lazy.opt<unroll, 2, 2>]
// CHECK: out0: match
// CHECK: all outputs match

// The kernel a block of 16x8 threads runs: two workgroup buffers of 16
// rows of K by 64 (A) and 32 (B), a grid-stride loop over the 1 block
// tile, per chunk of K a barrier, the staging loops, a barrier, and 16
// steps of two vector loads from shared memory.
// GPU-LABEL: gpu.func @mm_k0(
// GPU-SAME: workgroup(%[[A:.+]] : memref<1024xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[B:.+]] : memref<512xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// GPU-SAME: known_block_size = array<i32: 128, 1, 1>
// GPU: scf.for
// GPU: scf.for {{.*}} iter_args
// GPU-NEXT: gpu.barrier
// GPU: memref.store {{.*}}, %[[A]]
// GPU: vector.store {{.*}}, %[[B]]
// GPU: gpu.barrier
// GPU-COUNT-16: vector.load %[[A]]{{.*}}vector<4xf32>
// GPU: gpu.return
// The double-buffered kernel stages the first chunk before the K loop;
// each trip loads the next chunk (its start clamped to the last), reads
// this chunk's half, stores the next into the other half, and meets once.
// DOUBLE-LABEL: gpu.func @mm_k0(
// DOUBLE-SAME: workgroup(%[[A:.+]] : memref<2048xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[B:.+]] : memref<1024xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// DOUBLE: gpu.barrier
// DOUBLE-NOT: gpu.barrier
// DOUBLE: scf.for {{.*}} iter_args
// DOUBLE-NOT: gpu.barrier
// DOUBLE: arith.minui
// DOUBLE-NOT: gpu.barrier
// DOUBLE: vector.load %[[A]]
// DOUBLE-NOT: gpu.barrier
// DOUBLE: vector.store {{.*}}, %[[B]]
// DOUBLE-NEXT: gpu.barrier
// DOUBLE-NEXT: scf.yield

func.func @mm(%a: tensor<64x1x48xf32>, %b: tensor<1x32x48xf32>) -> tensor<64x32x1xf32> {
  %av = lazy.view %a as <[(64, 32, 48):(48, 0, 1)]> : tensor<64x1x48xf32> -> tensor<64x32x48xf32>
  %bv = lazy.view %b as <[(64, 32, 48):(0, 1, 32)]> : tensor<1x32x48xf32> -> tensor<64x32x48xf32>
  %m = lazy.mul %av, %bv : tensor<64x32x48xf32>
  %s = lazy.reduce_sum %m axes [2] : tensor<64x32x48xf32> -> tensor<64x32x1xf32>
  return %s : tensor<64x32x1xf32>
}

func.func @dot(%a: tensor<32x1x40xf32>, %b: tensor<1x16x40xf32>) -> tensor<32x16x1xf32> {
  %av = lazy.view %a as <[(32, 16, 40):(40, 0, 1)]> : tensor<32x1x40xf32> -> tensor<32x16x40xf32>
  %bv = lazy.view %b as <[(32, 16, 40):(0, 40, 1)]> : tensor<1x16x40xf32> -> tensor<32x16x40xf32>
  %m = lazy.mul %av, %bv : tensor<32x16x40xf32>
  %s = lazy.reduce_sum %m axes [2] : tensor<32x16x40xf32> -> tensor<32x16x1xf32>
  return %s : tensor<32x16x1xf32>
}

func.func @bmm(%a: tensor<2x64x1x32xf32>, %b: tensor<2x1x64x32xf32>, %bias: tensor<1x1x64x1xf32>) -> tensor<2x64x64x1xf32> {
  %av = lazy.view %a as <[(2, 64, 64, 32):(2048, 32, 0, 1)]> : tensor<2x64x1x32xf32> -> tensor<2x64x64x32xf32>
  %z = lazy.const 0.0 : tensor<2x64x64x32xf32>
  %r = lazy.max %av, %z : tensor<2x64x64x32xf32>
  %bv = lazy.view %b as <[(2, 64, 64, 32):(2048, 0, 32, 1)]> : tensor<2x1x64x32xf32> -> tensor<2x64x64x32xf32>
  %m = lazy.mul %r, %bv : tensor<2x64x64x32xf32>
  %s = lazy.reduce_sum %m axes [3] : tensor<2x64x64x32xf32> -> tensor<2x64x64x1xf32>
  %cv = lazy.view %bias as <[(2, 64, 64, 1):(0, 0, 1, 0)]> : tensor<1x1x64x1xf32> -> tensor<2x64x64x1xf32>
  %y = lazy.add %s, %cv : tensor<2x64x64x1xf32>
  return %y : tensor<2x64x64x1xf32>
}

func.func @short(%a: tensor<64x1x12xf32>, %b: tensor<1x64x12xf32>) -> tensor<64x64x1xf32> {
  %av = lazy.view %a as <[(64, 64, 12):(12, 0, 1)]> : tensor<64x1x12xf32> -> tensor<64x64x12xf32>
  %bv = lazy.view %b as <[(64, 64, 12):(0, 1, 64)]> : tensor<1x64x12xf32> -> tensor<64x64x12xf32>
  %m = lazy.mul %av, %bv : tensor<64x64x12xf32>
  %s = lazy.reduce_sum %m axes [2] : tensor<64x64x12xf32> -> tensor<64x64x1xf32>
  return %s : tensor<64x64x1xf32>
}

func.func @wgrad(%x: tensor<4x8x64xf32>, %g: tensor<4x8x32xf32>) -> tensor<64x32x1x1xf32> {
  %xv = lazy.view %x as <[(64, 32, 4, 8):(1, 0, 512, 64)]> : tensor<4x8x64xf32> -> tensor<64x32x4x8xf32>
  %gv = lazy.view %g as <[(64, 32, 4, 8):(0, 1, 256, 32)]> : tensor<4x8x32xf32> -> tensor<64x32x4x8xf32>
  %m = lazy.mul %xv, %gv : tensor<64x32x4x8xf32>
  %s = lazy.reduce_sum %m axes [2, 3] : tensor<64x32x4x8xf32> -> tensor<64x32x1x1xf32>
  return %s : tensor<64x32x1x1xf32>
}
