// A forced `group` plan sets a reduce kernel's block size in block mode
// (tinygrad's GROUP): each output's reduce is split over that many threads
// of one block and combined by a block-wide reduction. lazy-optimize-
// kernels' own plan (rule B) is a `block` step of 256 threads (one per 16
// of its 4096 elements); without any plan the lowering runs a thread per
// row (it decides no mapping); the forced plans give 64 and 1024 (more threads than 4096 / 16, which grid-stride
// over the elements all the same). Both match the reference interpreter
// on the GPU emulator. A group plan is the GPU's: the CPU refuses it, at
// the kernel's op, rather than run the kernel without it.
// RUN: lazy-opt %s --lazy-schedule --lazy-optimize-kernels="target=gpu force=rowsum_k0:group:1:64" --convert-lazy-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: lazy-opt %s --lazy-schedule --lazy-optimize-kernels=target=gpu --convert-lazy-to-gpu | FileCheck %s --check-prefix=RULEB
// RUN: lazy-opt %s --lazy-schedule --convert-lazy-to-gpu | FileCheck %s --check-prefix=PLAIN
// RUN: lazy-run %s --entry=rowsum --seed=1 --check --device=emulate --plan=rowsum_k0:group:1:64 | FileCheck %s
// RUN: lazy-run %s --entry=rowsum --seed=2 --check --device=emulate --plan=rowsum_k0:group:1:1024 | FileCheck %s
// RUN: not lazy-run %s --entry=rowsum --seed=3 --check --device=cpu --plan=rowsum_k0:group:1:64 2>&1 | FileCheck %s --check-prefix=CPU

// GPU-LABEL: gpu.func @rowsum_k0(
// GPU-SAME: known_block_size = array<i32: 64, 1, 1>
// GPU: gpu.all_reduce add
// RULEB-LABEL: gpu.func @rowsum_k0(
// RULEB-SAME: known_block_size = array<i32: 256, 1, 1>
// RULEB: gpu.all_reduce add
// PLAIN-LABEL: gpu.func @rowsum_k0(
// PLAIN-SAME: known_block_size = array<i32: 32, 1, 1>
// PLAIN-NOT: gpu.all_reduce
// CPU: lazy-run-group.mlir:{{[0-9]+}}:8: error: lazy-optimize-kernels: the forced plan has tc, local, group or block steps, which only target=gpu runs
// CHECK: out0: match
// CHECK: all outputs match

func.func @rowsum(%x: tensor<8x4096xf32>) -> tensor<8x1xf32> {
  %s = lazy.reduce_sum %x axes [1] : tensor<8x4096xf32> -> tensor<8x1xf32>
  return %s : tensor<8x1xf32>
}
