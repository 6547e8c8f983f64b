// RUN: lazy-opt %s --lazy-schedule --lazy-print-schedule -o /dev/null | FileCheck %s
// RUN: lazy-opt %s --lazy-schedule="fuse-arange=false" --lazy-print-schedule -o /dev/null | FileCheck %s --check-prefix=NOFUSE
// The whole pipeline, with the flags the module records (fuse_arange here)
// unless an option overrides them; printed in the canonical schedule text.
// The graph is tinygrad's `(arange(4).reshape(4, 1) * b).sum(0)`.

// CHECK: schedule @graph
// CHECK-NEXT: item 0 KERNEL outs=1 ins=1
// CHECK-NEXT:   n0 = CONST 1 int [(5, 7):(0, 0) mask [(0, 5), (3, 7)], (4, 4, 4):(1, 0, 8)]
// CHECK-NEXT:   n1 = SUM (2,) n0
// CHECK-NEXT:   n2 = CAST float n1
// CHECK-NEXT:   n3 = LOAD 1 float [(4, 4, 1):(4, 1, 0)]
// CHECK-NEXT:   n4 = MUL n2 n3
// CHECK-NEXT:   n5 = SUM (0,) n4
// CHECK-NEXT:   STORE 0 float [(1, 4, 1):(0, 1, 0)] n5
// CHECK-NOT: item

// NOFUSE: item 0 KERNEL outs=1 ins=0
// NOFUSE: item 1 KERNEL outs=1 ins=2
// NOFUSE-NOT: item
module attributes {lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = true, use_copy_kernel = false}} {
  func.func @graph(%b: tensor<4x4xf32>) -> tensor<1x4xf32> {
    %0 = lazy.const 1 : tensor<si32>
    %1 = lazy.view %0 as <[(5, 7):(0, 0) mask [(0, 5), (3, 7)], (4, 4):(1, 8)]> : tensor<si32> -> tensor<4x4xsi32>
    %2 = lazy.reduce_sum %1 axes [1] : tensor<4x4xsi32> -> tensor<4x1xsi32>
    %3 = lazy.cast %2 : tensor<4x1xsi32> -> tensor<4x1xf32>
    %4 = lazy.view %3 as <[(4, 4):(1, 0)]> : tensor<4x1xf32> -> tensor<4x4xf32>
    %5 = lazy.mul %4, %b : tensor<4x4xf32>
    %6 = lazy.reduce_sum %5 axes [0] : tensor<4x4xf32> -> tensor<1x4xf32>
    return %6 : tensor<1x4xf32>
  }
}
