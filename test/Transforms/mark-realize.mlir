// RUN: lazy-opt %s --lazy-mark-realize --split-input-file --verify-diagnostics | FileCheck %s
// One function per rule of lazy-mark-realize (tinygrad's _recurse_lb and
// padding check). `lazy.realize = N` is the position in tinygrad's ordered
// realizes set: outputs first, then in depth-first walk order.

// Rule 1: outputs realize, in output order; an argument is already realized;
// elementwise ops in between do not.
// CHECK-LABEL: func.func @outputs
func.func @outputs(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK: lazy.add %{{.*}} : tensor<4xf32>
  // CHECK-NOT: lazy.realize
  %0 = lazy.add %a, %b : tensor<4xf32>
  // CHECK: lazy.mul %{{.*}} {lazy.realize = 1 : i64}
  %1 = lazy.mul %0, %b : tensor<4xf32>
  // CHECK: lazy.exp2 %{{.*}} {lazy.realize = 0 : i64}
  %2 = lazy.exp2 %1 : tensor<4xf32>
  return %2, %1, %a : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Rule 2: forced_realize and every meta op realize (consts too: they
// become inline leaves later). Walk order follows operand order: the
// contiguous and its empty, then the forced add, then the const its
// expanding view reads.
// CHECK-LABEL: func.func @meta_and_forced
func.func @meta_and_forced(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: lazy.const {{.*}} {lazy.realize = 4 : i64}
  %c = lazy.const 2.0 : tensor<f32>
  %cv = lazy.view %c as <[(4):(0)]> : tensor<f32> -> tensor<4xf32>
  // CHECK: lazy.empty {lazy.realize = 2 : i64}
  %e = lazy.empty : tensor<4xf32>
  // CHECK: lazy.contiguous %{{.*}} {lazy.realize = 1 : i64}
  %k = lazy.contiguous %e : tensor<4xf32>
  // CHECK: lazy.add %{{.*}} {lazy.forced_realize, lazy.realize = 3 : i64}
  %f = lazy.add %cv, %a {lazy.forced_realize} : tensor<4xf32>
  %s = lazy.add %k, %f : tensor<4xf32>
  // CHECK: lazy.mul %{{.*}} {lazy.realize = 0 : i64}
  %m = lazy.mul %s, %s : tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

// Rule 3: the source base of a copy and of a buffer_view realizes.
// CHECK-LABEL: func.func @copy_and_buffer_view
func.func @copy_and_buffer_view(%a: tensor<4xf32>) -> (tensor<4xf32, #lazy.device<"CUDA">>, tensor<4xsi32>) {
  // CHECK: lazy.exp2 %{{.*}} {lazy.realize = 2 : i64}
  %0 = lazy.exp2 %a : tensor<4xf32>
  // CHECK: lazy.copy %{{.*}} {lazy.realize = 0 : i64}
  %1 = lazy.copy %0 : tensor<4xf32> -> tensor<4xf32, #lazy.device<"CUDA">>
  // CHECK: lazy.sqrt %{{.*}} {lazy.realize = 3 : i64}
  %2 = lazy.sqrt %a : tensor<4xf32>
  // CHECK: lazy.buffer_view %{{.*}} {lazy.realize = 1 : i64}
  %3 = lazy.buffer_view %2 : tensor<4xf32> -> tensor<4xsi32>
  return %1, %3 : tensor<4xf32, #lazy.device<"CUDA">>, tensor<4xsi32>
}

// -----

// Rule 4: an expanding view realizes its base; a pad that fits does not.
// CHECK-LABEL: func.func @expand_and_pad
func.func @expand_and_pad(%a: tensor<4x1xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<6xf32>) {
  // CHECK: lazy.exp2 %{{.*}} {lazy.realize = 2 : i64}
  %0 = lazy.exp2 %a : tensor<4x1xf32>
  %1 = lazy.view %0 as <[(4, 4):(1, 0)]> : tensor<4x1xf32> -> tensor<4x4xf32>
  %2 = lazy.add %1, %b : tensor<4x4xf32>
  // CHECK: lazy.neg %{{.*}} : tensor<4x1xf32>
  %n = lazy.neg %a : tensor<4x1xf32>
  %3 = lazy.view %n as <[(6):(1) offset -1 mask [(1, 5)]]> : tensor<4x1xf32> -> tensor<6xf32>
  // CHECK: lazy.sqrt %{{.*}} {lazy.realize = 1 : i64}
  %4 = lazy.sqrt %3 : tensor<6xf32>
  return %2, %4 : tensor<4x4xf32>, tensor<6xf32>
}

// -----

// Rule 5: a pad whose padded zeros would flow into an unsafe op (recip,
// log2, exp2, idiv) before a realized buffer realizes; safe ops and
// realized buffers stop the search.
// CHECK-LABEL: func.func @unsafe_pad
func.func @unsafe_pad(%a: tensor<4xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  // CHECK: lazy.exp2 %{{.*}} : tensor<4xf32>
  %0 = lazy.exp2 %a : tensor<4xf32>
  %1 = lazy.mul %0, %0 : tensor<4xf32>
  // CHECK: lazy.neg %{{.*}} {lazy.realize = 4 : i64}
  %2 = lazy.neg %1 : tensor<4xf32>
  %p = lazy.view %2 as <[(6):(1) offset -1 mask [(1, 5)]]> : tensor<4xf32> -> tensor<6xf32>
  %3 = lazy.sqrt %p : tensor<6xf32>
  // CHECK: lazy.neg %{{.*}} : tensor<4xf32>
  %4 = lazy.neg %a : tensor<4xf32>
  %q = lazy.view %4 as <[(6):(1) offset -1 mask [(1, 5)]]> : tensor<4xf32> -> tensor<6xf32>
  %5 = lazy.sqrt %q : tensor<6xf32>
  // A realized buffer (the contiguous) between the pad and the exp2 makes
  // it safe.
  // CHECK: lazy.contiguous %{{.*}} {lazy.realize = 3 : i64}
  %k = lazy.contiguous %0 : tensor<4xf32>
  // CHECK: lazy.neg %{{.*}} : tensor<4xf32>
  %6 = lazy.neg %k : tensor<4xf32>
  %r = lazy.view %6 as <[(6):(1) offset -1 mask [(1, 5)]]> : tensor<4xf32> -> tensor<6xf32>
  %7 = lazy.sqrt %r : tensor<6xf32>
  return %3, %5, %7 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}

// -----

// Rule 1 again: marks from an earlier run are replaced.
// CHECK-LABEL: func.func @remark
func.func @remark(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: lazy.neg %{{.*}} : tensor<4xf32>
  %0 = lazy.neg %a {lazy.realize = 7 : i64, lazy.group = 3 : i64} : tensor<4xf32>
  // CHECK: lazy.exp2 %{{.*}} {lazy.realize = 0 : i64}
  %1 = lazy.exp2 %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

func.func @assign_to_computed(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lazy.exp2 %a : tensor<4xf32>
  // expected-error @+1 {{'lazy.assign' op assigns to a value that is not a realized buffer (a function argument)}}
  %1 = lazy.assign %a to %0 : tensor<4xf32>, tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

func.func @copy_of_view(%a: tensor<4x4xf32>) -> tensor<4x4xf32, #lazy.device<"CUDA">> {
  %0 = lazy.view %a as <[(4, 4):(1, 4)]> : tensor<4x4xf32> -> tensor<4x4xf32>
  // expected-error @+1 {{'lazy.copy' op copies a non-contiguous view; tinygrad can only copy a whole contiguous buffer}}
  %1 = lazy.copy %0 : tensor<4x4xf32> -> tensor<4x4xf32, #lazy.device<"CUDA">>
  return %1 : tensor<4x4xf32, #lazy.device<"CUDA">>
}

// -----

func.func @movement_left(%a: tensor<4x4xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'lazy.reshape' op is a movement op; run lazy-fold-views before scheduling}}
  %0 = lazy.reshape %a : tensor<4x4xf32> -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// A lazy op whose result is not a tensor (a scheduled-program op) has no
// place in a graph.
func.func @buffer_in_graph(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'lazy.alloc' op does not produce a ranked tensor; the scheduler only accepts lazy tensor ops}}
  %b = lazy.alloc : !lazy.buffer<4xf32>
  %0 = lazy.exp2 %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A bitcast that changes the item size (tinygrad allows it only on DISK)
// has no kernel: the scheduler used to emit a view reaching past its
// source.
func.func @item_size_change(%a: tensor<1xui64>) -> tensor<4xui16> {
  // expected-error @+1 {{'lazy.bitcast' op changes the item size from 8 to 2 bytes, which no kernel computes (tinygrad 0.9.2 allows it only on DISK tensors); a buffer_view reinterprets bytes}}
  %0 = lazy.bitcast %a : tensor<1xui64> -> tensor<4xui16>
  return %0 : tensor<4xui16>
}
