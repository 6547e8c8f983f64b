// RUN: lazy-opt %s --split-input-file --lazy-schedule --lazy-optimize-kernels="target=gpu tensor-cores=mma-sync" --convert-lazy-to-gpu="tensor-cores=mma-sync" | FileCheck %s
// RUN: lazy-opt %s --split-input-file --lazy-schedule --lazy-optimize-kernels="target=gpu tensor-cores=mma-sync" --convert-lazy-to-gpu --verify-diagnostics -o /dev/null
// RUN: lazy-opt %s --split-input-file --lazy-schedule --lazy-optimize-kernels="target=gpu tensor-cores=mfma" --convert-lazy-to-gpu="tensor-cores=mfma" | FileCheck %s --check-prefix=MFMA
// RUN: lazy-opt %s --split-input-file --lazy-schedule --lazy-optimize-kernels="target=gpu tensor-cores=wmma" --convert-lazy-to-gpu="tensor-cores=wmma" | FileCheck %s --check-prefix=WMMA
// RUN: not lazy-opt %s --convert-lazy-to-gpu="tensor-cores=tpu" 2>&1 | FileCheck %s --check-prefix=KIND
// convert-lazy-to-gpu's tensor-core mode (rule 8, TensorCoreKernel.cpp):
// tinygrad's half matmul (32x16 outputs, K 64) under a tc plan. A block of
// one warp takes 16x8 output tiles, grid-stride (4 of them: a grid of 4);
// per 16 elements of K each lane gathers its A fragment (8 halves), its B
// fragment (4) and one nvgpu.mma.sync m16n8k16 adds to the f32
// accumulators; then each lane casts its four results to half and stores
// them. Without tensor-cores, a tc plan is an error.
// CHECK-LABEL: gpu.func @hmm_k0(
// CHECK-SAME: known_block_size = array<i32: 32, 1, 1>
// CHECK-DAG: %[[LANE:.+]] = gpu.thread_id x
// CHECK-DAG: %[[WARP:.+]] = gpu.block_id x
// CHECK-DAG: %[[WARPS:.+]] = gpu.grid_dim x
// CHECK: %[[G:.+]] = arith.divui %[[LANE]], %{{.+}} : index
// CHECK: %[[T:.+]] = arith.remui %[[LANE]], %{{.+}} : index
// CHECK: scf.for %{{.+}} = %[[WARP]] to %{{.+}} step %[[WARPS]] {
// CHECK: %[[C0:.+]] = arith.constant dense<0.000000e+00> : vector<2x2xf32>
// CHECK: %[[D:.+]] = scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %[[C0]]) -> (vector<2x2xf32>) {
// CHECK-COUNT-12: memref.load
// CHECK: %[[A:.+]] = vector.from_elements {{.+}} : vector<4x2xf16>
// CHECK: %[[B:.+]] = vector.from_elements {{.+}} : vector<2x2xf16>
// CHECK: %[[MMA:.+]] = nvgpu.mma.sync(%[[A]], %[[B]], %[[ACC]]) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK: scf.yield %[[MMA]]
// CHECK: %[[FLAT:.+]] = vector.shape_cast %[[D]] : vector<2x2xf32> to vector<4xf32>
// CHECK-COUNT-4: vector.extract %[[FLAT]]
// CHECK-COUNT-4: arith.truncf %{{.+}} : f32 to f16
// CHECK-COUNT-4: memref.store
// On AMD CDNA a block is a wave of 64 lanes and a tile 16x16 (2 of them):
// lane l holds A's row l % 16 at four columns, B's column l % 16 at four
// rows, four accumulators.
// MFMA-LABEL: gpu.func @hmm_k0(
// MFMA-SAME: known_block_size = array<i32: 64, 1, 1>
// MFMA: amdgpu.mfma 16x16x16 %{{.+}} * %{{.+}} + %{{.+}} blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
// MFMA-COUNT-4: memref.store
// On RDNA3 a wave of 32 lanes: each lane holds a whole row of A and a
// whole column of B (lanes 16-31 repeat 0-15), eight accumulators.
// WMMA-LABEL: gpu.func @hmm_k0(
// WMMA-SAME: known_block_size = array<i32: 32, 1, 1>
// WMMA: amdgpu.wmma 16x16x16 %{{.+}} * %{{.+}} + %{{.+}} : vector<16xf16>, vector<16xf16>, vector<8xf32>
// WMMA-COUNT-8: memref.store
// KIND: convert-lazy-to-gpu: tensor-cores must be none, mma-sync, mfma or wmma, not 'tpu'
// CHECK-LABEL: func.func @hmm(
// CHECK: gpu.launch_func @lazy_kernels::@hmm_k0 blocks in (%[[GRID:.+]], %{{.+}}, %{{.+}}) threads in (%[[BLOCK:.+]], %{{.+}}, %{{.+}})
func.func @hmm(%a: tensor<32x1x64xf16>, %b: tensor<1x16x64xf16>) -> tensor<32x16x1xf16> {
  %av = lazy.view %a as <[(32, 16, 64):(64, 0, 1)]> : tensor<32x1x64xf16> -> tensor<32x16x64xf16>
  %bv = lazy.view %b as <[(32, 16, 64):(0, 64, 1)]> : tensor<1x16x64xf16> -> tensor<32x16x64xf16>
  %m = lazy.mul %av, %bv : tensor<32x16x64xf16>
  %c = lazy.cast %m : tensor<32x16x64xf16> -> tensor<32x16x64xf32>
  %s = lazy.reduce_sum %c axes [2] : tensor<32x16x64xf32> -> tensor<32x16x1xf32>
  // The kernel takes the location of the value it stores.
  // expected-error @+1 {{has a tensor-core plan (tc), which this target does not run}}
  %h = lazy.cast %s : tensor<32x16x1xf32> -> tensor<32x16x1xf16>
  return %h : tensor<32x16x1xf16>
}
