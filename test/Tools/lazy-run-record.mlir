// lazy-run --record writes what would run on a GPU (a device plan) without
// one, with the GPU emulator's results to compare against; lazy-replay
// --dry-run replays it on host memory, checking its steps and bounds.
// RUN: rm -rf %t && lazy-run %s --seed=2 --check --device=cuda --chip=sm_90 --record=%t/cuda | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=CUDA < %t/cuda/plan.txt
// RUN: lazy-replay %t/cuda --dry-run | FileCheck %s --check-prefix=DRY
// RUN: lazy-run %s --seed=2 --device=hip --record=%t/hip --record-inputs=false
// RUN: FileCheck %s --check-prefix=HIP < %t/hip/plan.txt
// RUN: not lazy-run %s --device=cpu --record=%t/cpu 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not lazy-run %s --device=cuda --record=%t/rep --repeat=2 2>&1 | FileCheck %s --check-prefix=REPEAT
// RUN: mkdir -p %t/empty && not lazy-replay %t/empty 2>&1 | FileCheck %s --check-prefix=NOPLAN

// The emulator's results are checked against the interpreter here too.
// OUT: all outputs match

// CUDA: lazy-plan 1 cuda sm_90
// CUDA: module module0.bin
// CUDA: alloc 0 128
// CUDA: upload 0 0 128 data1.bin
// CUDA: launch graph_k0 {{[0-9]+}} 1 1 {{[0-9]+}} 1 1 {{[0-9]+}} 2
// CUDA: download 0
// CUDA: expect 0 float expect0.bin

// DRY: replayed (outputs not checked)
// DRY: 1 plans, 0 failed

// Without inputs: zero fills instead of uploads, no expectations.
// HIP: lazy-plan 1 hip gfx942
// HIP-NOT: upload
// HIP: zero 0 0 128
// HIP-NOT: expect

// CPU: lazy-run: error: --record needs --device=cuda or --device=hip
// REPEAT: lazy-run: error: --record writes one run; time it with lazy-replay --repeat instead of --repeat
// NOPLAN: lazy-replay: error: {{.*}}/empty is not a device plan

func.func @graph(%a: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %e = lazy.exp2 %a : tensor<4x8xf32>
  %s = lazy.reduce_sum %e axes [1] : tensor<4x8xf32> -> tensor<4x1xf32>
  return %s : tensor<4x1xf32>
}
