// RUN: lazy-opt %s --convert-lazy-to-loops="check-calls=true profile-calls=true" | FileCheck %s
// RUN: lazy-opt %s --convert-lazy-to-loops | FileCheck %s --check-prefix=NONE
// The host hooks around each kernel call. check-calls passes every buffer
// argument (call n, argument i, aligned address, offset and size in
// elements) to lazy_rt_check_arg, then brackets the call with
// lazy_rt_check_begin/end outside the profile hooks, so that the copies
// the checker makes are not timed.

lazy.kernel @k0(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<16xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(4, 4):(4, 1)]> : !lazy.buffer<16xf32> -> tensor<4x4xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  lazy.store %1, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
}
func.func @step(%arg0: !lazy.buffer<16xf32> {lazy.buffer = 0 : i64}) -> !lazy.buffer<4xf32> {
  %0 = lazy.alloc : !lazy.buffer<4xf32>
  %1 = lazy.launch @k0 outs(%0 : !lazy.buffer<4xf32>) ins(%arg0 : !lazy.buffer<16xf32>)
  %2 = lazy.alloc : !lazy.buffer<4xf32>
  %3 = lazy.launch @k0 outs(%2 : !lazy.buffer<4xf32>) ins(%arg0 : !lazy.buffer<16xf32>)
  return %3 : !lazy.buffer<4xf32>
}

// CHECK-LABEL: func.func @step
// CHECK: %{{[^,]*}}, %[[OFFSET:[^,]*]], %[[SIZE:[^,]*]], %{{[^ ]*}} = memref.extract_strided_metadata %[[OUT:[^ ]*]] : memref<4xf32
// CHECK-NEXT: %[[ADDR:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK-NEXT: %[[N:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[I:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[A:.*]] = arith.index_cast %[[ADDR]] : index to i64
// CHECK-NEXT: %[[OFF:.*]] = arith.index_cast %[[OFFSET]] : index to i64
// CHECK-NEXT: %[[ELEMS:.*]] = arith.index_cast %[[SIZE]] : index to i64
// CHECK-NEXT: call @lazy_rt_check_arg(%[[N]], %[[I]], %[[A]], %[[OFF]], %[[ELEMS]]) : (i64, i64, i64, i64, i64) -> ()
// CHECK: memref.extract_aligned_pointer_as_index %[[IN:[^ ]*]] : memref<16xf32
// CHECK-NEXT: arith.constant 0 : i64
// CHECK-NEXT: arith.constant 1 : i64
// CHECK: call @lazy_rt_check_arg(
// CHECK-NEXT: arith.constant 0 : i64
// CHECK-NEXT: call @lazy_rt_check_begin(%{{.*}}) : (i64) -> ()
// CHECK-NEXT: arith.constant 0 : i64
// CHECK-NEXT: call @lazy_rt_kernel_begin
// CHECK-NEXT: call @k0(%[[OUT]], %[[IN]])
// CHECK-NEXT: arith.constant 0 : i64
// CHECK-NEXT: call @lazy_rt_kernel_end
// CHECK-NEXT: arith.constant 0 : i64
// CHECK-NEXT: call @lazy_rt_check_end
// The second call is call 1.
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK-NEXT: arith.constant 1 : i64
// CHECK-NEXT: arith.constant 0 : i64
// CHECK: call @lazy_rt_check_arg(
// CHECK: call @k0(
// CHECK-NEXT: arith.constant 1 : i64
// CHECK-NEXT: call @lazy_rt_kernel_end
// CHECK-NEXT: arith.constant 1 : i64
// CHECK-NEXT: call @lazy_rt_check_end
// CHECK-DAG: func.func private @lazy_rt_check_arg(i64, i64, i64, i64, i64)
// CHECK-DAG: func.func private @lazy_rt_check_begin(i64)
// CHECK-DAG: func.func private @lazy_rt_check_end(i64)
// CHECK-DAG: func.func private @lazy_rt_kernel_begin(i64)

// NONE-NOT: lazy_rt_
