// Without a GPU, --device=cuda and --device=hip say so and exit non-zero
// (whether the driver library is missing or finds no device).
// UNSUPPORTED: cuda-gpu, rocm-gpu
// RUN: not lazy-run %s --device=cuda 2>&1 | FileCheck %s --check-prefix=CUDA
// RUN: not lazy-run %s --device=hip 2>&1 | FileCheck %s --check-prefix=HIP
// A recorded plan needs a GPU to replay (only --dry-run runs without one).
// RUN: rm -rf %t && lazy-run %s --device=cuda --record=%t
// RUN: not lazy-replay %t 2>&1 | FileCheck %s --check-prefix=REPLAY

// CUDA: lazy-run: error: --device=cuda: no GPU available (
// HIP: lazy-run: error: --device=hip: no GPU available (
// REPLAY: lazy-replay: error: no GPU available (
func.func @graph(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = lazy.exp2 %a : tensor<4xf32>
  return %e : tensor<4xf32>
}
