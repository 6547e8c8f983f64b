// RUN: lazy-opt --lazy-optimize-kernels="target=generic vector-bits=512" %s | FileCheck %s
// RUN: lazy-opt --lazy-optimize-kernels=target=gpu %s | FileCheck %s --check-prefix=GPU
// RUN: not lazy-opt --lazy-optimize-kernels=force=weighted_sum:upcast:2:2 %s 2>&1 | FileCheck %s --check-prefix=FORCED
// RUN: lazy-opt --lazy-optimize-kernels="target=generic vector-bits=512 force=weighted_sum:upcast:1:16" %s | FileCheck %s --check-prefix=FORCED-OK
// A kernel over tinygrad Variables is planned on its integer axes only:
// the steps divide integer extents, so a symbolic axis keeps one loop to
// its value. The heuristic reads the views' strides at the Variables'
// largest values.

// A LLaMA decode step's weighted sum of values: out[h, d] = sum over the
// first start_pos + 1 keys k of p[h, k] * v[k, h, d]. The vector axis is
// d (v and the output contiguous along it, p constant), upcast by two
// vectors; the reduce over the keys (symbolic) takes no step.
// CHECK-LABEL: lazy.kernel @weighted_sum
// CHECK-SAME: opts = [#lazy.opt<upcast, 1, 32>, #lazy.opt<lanes, 1, 16>]
// GPU-LABEL: lazy.kernel @weighted_sum
// GPU-NOT: opts
// GPU: lazy.reduce_sum
// FORCED: error: lazy-optimize-kernels: the forced plan does not fit this kernel: step 0 (upcast) names axis 2, whose extent is symbolic (tinygrad Variables): plans divide integer extents only
// FORCED-OK: opts = [#lazy.opt<upcast, 1, 16>, #lazy.opt<lanes, 1, 16>]
lazy.kernel @weighted_sum(%out0: !lazy.buffer<512xf32>, %in0: !lazy.buffer<8192xf32>, %in1: !lazy.buffer<524288xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(8, 64, (1 + start_pos[1:1023])):((1 + start_pos[1:1023]), 0, 1)]> : !lazy.buffer<8192xf32> -> tensor<8x64x1024xf32, #lazy.sym_shape<[8, 64, (1 + start_pos[1:1023])]>>
  %1 = lazy.load %in1 as <[(8, 64, (1 + start_pos[1:1023])):(64, 1, 512)]> : !lazy.buffer<524288xf32> -> tensor<8x64x1024xf32, #lazy.sym_shape<[8, 64, (1 + start_pos[1:1023])]>>
  %2 = lazy.mul %0, %1 : tensor<8x64x1024xf32, #lazy.sym_shape<[8, 64, (1 + start_pos[1:1023])]>>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x64x1024xf32, #lazy.sym_shape<[8, 64, (1 + start_pos[1:1023])]>> -> tensor<8x64x1xf32>
  lazy.store %3, %out0 as <[(8, 64, 1):(64, 1, 0)]> : tensor<8x64x1xf32>, !lazy.buffer<512xf32>
}

// The scores of one query against the first start_pos + 1 keys: the
// output axis over the keys is symbolic, so no vector axis is left (d is
// reduced) and the dot-product form (rule 5) is not taken: no plan.
// CHECK-LABEL: lazy.kernel @scores
// CHECK-NOT: opts
// CHECK: lazy.reduce_sum
lazy.kernel @scores(%out0: !lazy.buffer<8192xf32>, %in0: !lazy.buffer<512xf32>, %in1: !lazy.buffer<524288xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(8, (1 + start_pos[1:1023]), 64):(64, 0, 1)]> : !lazy.buffer<512xf32> -> tensor<8x1024x64xf32, #lazy.sym_shape<[8, (1 + start_pos[1:1023]), 64]>>
  %1 = lazy.load %in1 as <[(8, (1 + start_pos[1:1023]), 64):(64, 512, 1)]> : !lazy.buffer<524288xf32> -> tensor<8x1024x64xf32, #lazy.sym_shape<[8, (1 + start_pos[1:1023]), 64]>>
  %2 = lazy.mul %0, %1 : tensor<8x1024x64xf32, #lazy.sym_shape<[8, (1 + start_pos[1:1023]), 64]>>
  %3 = lazy.reduce_sum %2 axes [2] : tensor<8x1024x64xf32, #lazy.sym_shape<[8, (1 + start_pos[1:1023]), 64]>> -> tensor<8x1024x1xf32, #lazy.sym_shape<[8, (1 + start_pos[1:1023]), 1]>>
  lazy.store %3, %out0 as <[(8, (1 + start_pos[1:1023]), 1):((1 + start_pos[1:1023]), 1, 0)]> : tensor<8x1024x1xf32, #lazy.sym_shape<[8, (1 + start_pos[1:1023]), 1]>>, !lazy.buffer<8192xf32>
}
