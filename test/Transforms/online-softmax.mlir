// RUN: lazy-opt %s --lazy-online-softmax | FileCheck %s
// lazy-online-softmax rewrites a kernel's softmax-weighted sum (a max of
// the scores x, exp2 of the scaled difference, its sum, the weighted sum of
// the normalized exponentials) into one lazy.softmax_sum; forms it does not
// cover are left alone.

// The whole form: x read through the view the sum reads p through, the
// weights the sum's other factor; the four ops and p are gone.
// CHECK-LABEL: lazy.kernel @attention
// CHECK-DAG: %[[X:.*]] = lazy.load %in0 as <[(2, 4):(4, 1)]>
// CHECK-DAG: %[[V:.*]] = lazy.load %in1
// CHECK: %[[XV:.*]] = lazy.view %[[X]] as <[(2, 3, 4):(4, 0, 1)]> : tensor<2x4xf32> -> tensor<2x3x4xf32>
// CHECK: %[[O:.*]] = lazy.softmax_sum %[[XV]], %[[V]] axes [2] scale 1.4426950408889634
// CHECK-NOT: lazy.reduce_max
// CHECK-NOT: lazy.exp2
// CHECK: lazy.store %[[O]], %out0
lazy.kernel @attention(%out0: !lazy.buffer<6xf32>, %in0: !lazy.buffer<8xf32>, %in1: !lazy.buffer<12xf32>) attributes {num_outputs = 1 : i64} {
  %x = lazy.load %in0 as <[(2, 4):(4, 1)]> : !lazy.buffer<8xf32> -> tensor<2x4xf32>
  %m = lazy.reduce_max %x axes [1] : tensor<2x4xf32> -> tensor<2x1xf32>
  %mv = lazy.view %m as <[(2, 4):(1, 0)]> : tensor<2x1xf32> -> tensor<2x4xf32>
  %n = lazy.neg %mv : tensor<2x4xf32>
  %d = lazy.add %x, %n : tensor<2x4xf32>
  %c = lazy.const 1.4426950408889634 : tensor<f32>
  %cv = lazy.view %c as <[(2, 4):(0, 0)]> : tensor<f32> -> tensor<2x4xf32>
  %s = lazy.mul %d, %cv : tensor<2x4xf32>
  %e = lazy.exp2 %s : tensor<2x4xf32>
  %l = lazy.reduce_sum %e axes [1] : tensor<2x4xf32> -> tensor<2x1xf32>
  %lv = lazy.view %l as <[(2, 4):(1, 0)]> : tensor<2x1xf32> -> tensor<2x4xf32>
  %r = lazy.recip %lv : tensor<2x4xf32>
  %p = lazy.mul %e, %r : tensor<2x4xf32>
  %pv = lazy.view %p as <[(2, 3, 4):(4, 0, 1)]> : tensor<2x4xf32> -> tensor<2x3x4xf32>
  %v = lazy.load %in1 as <[(2, 3, 4):(0, 1, 3)]> : !lazy.buffer<12xf32> -> tensor<2x3x4xf32>
  %pw = lazy.mul %pv, %v : tensor<2x3x4xf32>
  %o = lazy.reduce_sum %pw axes [2] : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  lazy.store %o, %out0 as <[(2, 3, 1):(3, 1, 0)]> : tensor<2x3x1xf32>, !lazy.buffer<6xf32>
}

// A factor of p other than the exponential and its normalization (a mask
// applied after the softmax) joins the weights through the view; no scale
// (exp2 of the bare difference) is scale 1.
// CHECK-LABEL: lazy.kernel @masked_after
// CHECK: %[[KEEP:.*]] = lazy.load %in2
// CHECK: %[[K:.*]] = lazy.view %[[KEEP]] as <[(2, 3, 4):(4, 0, 1)]>
// CHECK: %[[W:.*]] = lazy.mul %{{.*}}, %[[K]] : tensor<2x3x4xf32>
// CHECK: lazy.softmax_sum %{{.*}}, %[[W]] axes [2] scale 1.000000e+00
lazy.kernel @masked_after(%out0: !lazy.buffer<6xf32>, %in0: !lazy.buffer<8xf32>, %in1: !lazy.buffer<12xf32>, %in2: !lazy.buffer<8xf32>) attributes {num_outputs = 1 : i64} {
  %x = lazy.load %in0 as <[(2, 4):(4, 1)]> : !lazy.buffer<8xf32> -> tensor<2x4xf32>
  %m = lazy.reduce_max %x axes [1] : tensor<2x4xf32> -> tensor<2x1xf32>
  %mv = lazy.view %m as <[(2, 4):(1, 0)]> : tensor<2x1xf32> -> tensor<2x4xf32>
  %n = lazy.neg %mv : tensor<2x4xf32>
  %d = lazy.add %n, %x : tensor<2x4xf32>
  %e = lazy.exp2 %d : tensor<2x4xf32>
  %l = lazy.reduce_sum %e axes [1] : tensor<2x4xf32> -> tensor<2x1xf32>
  %lv = lazy.view %l as <[(2, 4):(1, 0)]> : tensor<2x1xf32> -> tensor<2x4xf32>
  %r = lazy.recip %lv : tensor<2x4xf32>
  %keep = lazy.load %in2 as <[(2, 4):(4, 1)]> : !lazy.buffer<8xf32> -> tensor<2x4xf32>
  %p0 = lazy.mul %r, %e : tensor<2x4xf32>
  %p = lazy.mul %p0, %keep : tensor<2x4xf32>
  %pv = lazy.view %p as <[(2, 3, 4):(4, 0, 1)]> : tensor<2x4xf32> -> tensor<2x3x4xf32>
  %v = lazy.load %in1 as <[(2, 3, 4):(0, 1, 3)]> : !lazy.buffer<12xf32> -> tensor<2x3x4xf32>
  %pw = lazy.mul %v, %pv : tensor<2x3x4xf32>
  %o = lazy.reduce_sum %pw axes [2] : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  lazy.store %o, %out0 as <[(2, 3, 1):(3, 1, 0)]> : tensor<2x3x1xf32>, !lazy.buffer<6xf32>
}

// Without the normalization (no recip of the sum) the sum is not a
// softmax's: left as it is.
// CHECK-LABEL: lazy.kernel @unnormalized
// CHECK-NOT: lazy.softmax_sum
// CHECK: lazy.reduce_max
lazy.kernel @unnormalized(%out0: !lazy.buffer<6xf32>, %in0: !lazy.buffer<8xf32>, %in1: !lazy.buffer<12xf32>) attributes {num_outputs = 1 : i64} {
  %x = lazy.load %in0 as <[(2, 4):(4, 1)]> : !lazy.buffer<8xf32> -> tensor<2x4xf32>
  %m = lazy.reduce_max %x axes [1] : tensor<2x4xf32> -> tensor<2x1xf32>
  %mv = lazy.view %m as <[(2, 4):(1, 0)]> : tensor<2x1xf32> -> tensor<2x4xf32>
  %n = lazy.neg %mv : tensor<2x4xf32>
  %d = lazy.add %x, %n : tensor<2x4xf32>
  %e = lazy.exp2 %d : tensor<2x4xf32>
  %two = lazy.const 2.0 : tensor<f32>
  %twov = lazy.view %two as <[(2, 4):(0, 0)]> : tensor<f32> -> tensor<2x4xf32>
  %p = lazy.mul %e, %twov : tensor<2x4xf32>
  %pv = lazy.view %p as <[(2, 3, 4):(4, 0, 1)]> : tensor<2x4xf32> -> tensor<2x3x4xf32>
  %v = lazy.load %in1 as <[(2, 3, 4):(0, 1, 3)]> : !lazy.buffer<12xf32> -> tensor<2x3x4xf32>
  %pw = lazy.mul %pv, %v : tensor<2x3x4xf32>
  %o = lazy.reduce_sum %pw axes [2] : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  lazy.store %o, %out0 as <[(2, 3, 1):(3, 1, 0)]> : tensor<2x3x1xf32>, !lazy.buffer<6xf32>
}

// The max over another axis than the sum's: not this form.
// CHECK-LABEL: lazy.kernel @other_axis
// CHECK-NOT: lazy.softmax_sum
// CHECK: lazy.store
lazy.kernel @other_axis(%out0: !lazy.buffer<6xf32>, %in0: !lazy.buffer<8xf32>, %in1: !lazy.buffer<12xf32>) attributes {num_outputs = 1 : i64} {
  %x = lazy.load %in0 as <[(2, 4):(4, 1)]> : !lazy.buffer<8xf32> -> tensor<2x4xf32>
  %m = lazy.reduce_max %x axes [0] : tensor<2x4xf32> -> tensor<1x4xf32>
  %mv = lazy.view %m as <[(2, 4):(0, 1)]> : tensor<1x4xf32> -> tensor<2x4xf32>
  %n = lazy.neg %mv : tensor<2x4xf32>
  %d = lazy.add %x, %n : tensor<2x4xf32>
  %e = lazy.exp2 %d : tensor<2x4xf32>
  %l = lazy.reduce_sum %e axes [1] : tensor<2x4xf32> -> tensor<2x1xf32>
  %lv = lazy.view %l as <[(2, 4):(1, 0)]> : tensor<2x1xf32> -> tensor<2x4xf32>
  %r = lazy.recip %lv : tensor<2x4xf32>
  %p = lazy.mul %e, %r : tensor<2x4xf32>
  %pv = lazy.view %p as <[(2, 3, 4):(4, 0, 1)]> : tensor<2x4xf32> -> tensor<2x3x4xf32>
  %v = lazy.load %in1 as <[(2, 3, 4):(0, 1, 3)]> : !lazy.buffer<12xf32> -> tensor<2x3x4xf32>
  %pw = lazy.mul %pv, %v : tensor<2x3x4xf32>
  %o = lazy.reduce_sum %pw axes [2] : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  lazy.store %o, %out0 as <[(2, 3, 1):(3, 1, 0)]> : tensor<2x3x1xf32>, !lazy.buffer<6xf32>
}
