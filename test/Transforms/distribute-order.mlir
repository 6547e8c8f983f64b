// RUN: lazy-opt %s -split-input-file --lazy-distribute | FileCheck %s
// An ordered schedule where the devices run two all-reduces' launches in
// opposite orders (device 0: A then B; device 1: B then A). MPI matches
// collectives by call order, so every rank reduces A where A's first
// launch is, and B where B's is: A, then B, on both ranks, each output
// allocated there when the schedule allocated it later.

// CHECK-LABEL: func.func @swap_rank0(
// CHECK: lazy.all_reduce "sum" %{{.*}} : !lazy.buffer<4xf32> -> !lazy.buffer<4xf32>
// CHECK: lazy.all_reduce "sum" %{{.*}} : !lazy.buffer<8xf32> -> !lazy.buffer<8xf32>
// CHECK-NEXT: return
// CHECK-LABEL: func.func @swap_rank1(
// CHECK-NEXT: %[[OA:.*]] = lazy.alloc : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>
// CHECK-NEXT: %[[OB:.*]] = lazy.alloc : !lazy.buffer<8xf32, #lazy.device<"CLANG:1">>
// CHECK-NEXT: lazy.all_reduce "sum" %{{.*}} into %[[OA]] : !lazy.buffer<4xf32, {{.*}}
// CHECK-NEXT: lazy.all_reduce "sum" %{{.*}} into %[[OB]] : !lazy.buffer<8xf32, {{.*}}
// CHECK-NEXT: return
module attributes {lazy.default_device = "CLANG"} {
  lazy.kernel @add4(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<4xf32>, %in1: !lazy.buffer<4xf32>) attributes {num_outputs = 1 : i64} {
    %0 = lazy.load %in0 as <[(4):(1)]> : !lazy.buffer<4xf32> -> tensor<4xf32>
    %1 = lazy.load %in1 as <[(4):(1)]> : !lazy.buffer<4xf32> -> tensor<4xf32>
    %2 = lazy.add %0, %1 : tensor<4xf32>
    lazy.store %2, %out0 as <[(4):(1)]> : tensor<4xf32>, !lazy.buffer<4xf32>
  }
  lazy.kernel @add4_1(%out0: !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>, %in0: !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>, %in1: !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>) attributes {num_outputs = 1 : i64} {
    %0 = lazy.load %in0 as <[(4):(1)]> : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">> -> tensor<4xf32>
    %1 = lazy.load %in1 as <[(4):(1)]> : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">> -> tensor<4xf32>
    %2 = lazy.add %0, %1 : tensor<4xf32>
    lazy.store %2, %out0 as <[(4):(1)]> : tensor<4xf32>, !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>
  }
  lazy.kernel @add8(%out0: !lazy.buffer<8xf32>, %in0: !lazy.buffer<8xf32>, %in1: !lazy.buffer<8xf32>) attributes {num_outputs = 1 : i64} {
    %0 = lazy.load %in0 as <[(8):(1)]> : !lazy.buffer<8xf32> -> tensor<8xf32>
    %1 = lazy.load %in1 as <[(8):(1)]> : !lazy.buffer<8xf32> -> tensor<8xf32>
    %2 = lazy.add %0, %1 : tensor<8xf32>
    lazy.store %2, %out0 as <[(8):(1)]> : tensor<8xf32>, !lazy.buffer<8xf32>
  }
  lazy.kernel @add8_1(%out0: !lazy.buffer<8xf32, #lazy.device<"CLANG:1">>, %in0: !lazy.buffer<8xf32, #lazy.device<"CLANG:1">>, %in1: !lazy.buffer<8xf32, #lazy.device<"CLANG:1">>) attributes {num_outputs = 1 : i64} {
    %0 = lazy.load %in0 as <[(8):(1)]> : !lazy.buffer<8xf32, #lazy.device<"CLANG:1">> -> tensor<8xf32>
    %1 = lazy.load %in1 as <[(8):(1)]> : !lazy.buffer<8xf32, #lazy.device<"CLANG:1">> -> tensor<8xf32>
    %2 = lazy.add %0, %1 : tensor<8xf32>
    lazy.store %2, %out0 as <[(8):(1)]> : tensor<8xf32>, !lazy.buffer<8xf32, #lazy.device<"CLANG:1">>
  }
  func.func @swap(%a0: !lazy.buffer<4xf32>, %a1: !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>, %b0: !lazy.buffer<8xf32>, %b1: !lazy.buffer<8xf32, #lazy.device<"CLANG:1">>) -> (!lazy.buffer<4xf32>, !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>, !lazy.buffer<8xf32>, !lazy.buffer<8xf32, #lazy.device<"CLANG:1">>) {
    %ca = lazy.alloc : !lazy.buffer<4xf32>
    %ca0 = lazy.ext "copy" outs(%ca : !lazy.buffer<4xf32>) ins(%a1 : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>)
    %cb = lazy.alloc : !lazy.buffer<8xf32>
    %cb0 = lazy.ext "copy" outs(%cb : !lazy.buffer<8xf32>) ins(%b1 : !lazy.buffer<8xf32, #lazy.device<"CLANG:1">>)
    %da = lazy.alloc : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>
    %da1 = lazy.ext "copy" outs(%da : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>) ins(%a0 : !lazy.buffer<4xf32>)
    %db = lazy.alloc : !lazy.buffer<8xf32, #lazy.device<"CLANG:1">>
    %db1 = lazy.ext "copy" outs(%db : !lazy.buffer<8xf32, #lazy.device<"CLANG:1">>) ins(%b0 : !lazy.buffer<8xf32>)
    %oa0 = lazy.alloc : !lazy.buffer<4xf32>
    %ra0 = lazy.launch @add4 outs(%oa0 : !lazy.buffer<4xf32>) ins(%a0, %ca0 : !lazy.buffer<4xf32>, !lazy.buffer<4xf32>)
    %ob1 = lazy.alloc : !lazy.buffer<8xf32, #lazy.device<"CLANG:1">>
    %rb1 = lazy.launch @add8_1 outs(%ob1 : !lazy.buffer<8xf32, #lazy.device<"CLANG:1">>) ins(%db1, %b1 : !lazy.buffer<8xf32, #lazy.device<"CLANG:1">>, !lazy.buffer<8xf32, #lazy.device<"CLANG:1">>)
    %ob0 = lazy.alloc : !lazy.buffer<8xf32>
    %rb0 = lazy.launch @add8 outs(%ob0 : !lazy.buffer<8xf32>) ins(%b0, %cb0 : !lazy.buffer<8xf32>, !lazy.buffer<8xf32>)
    %oa1 = lazy.alloc : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>
    %ra1 = lazy.launch @add4_1 outs(%oa1 : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>) ins(%da1, %a1 : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>, !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>)
    return %ra0, %ra1, %rb0, %rb1 : !lazy.buffer<4xf32>, !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>, !lazy.buffer<8xf32>, !lazy.buffer<8xf32, #lazy.device<"CLANG:1">>
  }
}

// -----

// Local work first: device 0's launch on %w (which needs no message) runs
// before the receive, which waits until a launch needs it; a send goes at
// once, with the messages before it.
// CHECK-LABEL: func.func @local_rank0(
// CHECK-SAME: %[[W:arg1]]: !lazy.buffer<4xf32> {lazy.argument = 2 : i64}
// CHECK-NEXT: lazy.send %{{.*}} to rank 1 tag 0
// CHECK: lazy.launch @twice0 outs(%{{.*}}) ins(%[[W]], %[[W]]
// CHECK: %[[R:.*]] = lazy.recv %{{.*}} from rank 1 tag 1
// CHECK-NEXT: lazy.launch @twice0 outs(%{{.*}}) ins(%[[R]], %[[R]]
// CHECK-NEXT: return
module attributes {lazy.default_device = "CLANG"} {
  lazy.kernel @twice0(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<4xf32>, %in1: !lazy.buffer<4xf32>) attributes {num_outputs = 1 : i64} {
    %0 = lazy.load %in0 as <[(4):(1)]> : !lazy.buffer<4xf32> -> tensor<4xf32>
    %1 = lazy.load %in1 as <[(4):(1)]> : !lazy.buffer<4xf32> -> tensor<4xf32>
    %2 = lazy.add %0, %1 : tensor<4xf32>
    lazy.store %2, %out0 as <[(4):(1)]> : tensor<4xf32>, !lazy.buffer<4xf32>
  }
  func.func @local(%a0: !lazy.buffer<4xf32>, %a1: !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>, %w: !lazy.buffer<4xf32>) -> (!lazy.buffer<4xf32>, !lazy.buffer<4xf32>) {
    %d = lazy.alloc : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>
    %sent = lazy.ext "copy" outs(%d : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>) ins(%a0 : !lazy.buffer<4xf32>)
    %c = lazy.alloc : !lazy.buffer<4xf32>
    %got = lazy.ext "copy" outs(%c : !lazy.buffer<4xf32>) ins(%a1 : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>)
    %t = lazy.alloc : !lazy.buffer<4xf32>
    %local = lazy.launch @twice0 outs(%t : !lazy.buffer<4xf32>) ins(%w, %w : !lazy.buffer<4xf32>, !lazy.buffer<4xf32>)
    %o = lazy.alloc : !lazy.buffer<4xf32>
    %used = lazy.launch @twice0 outs(%o : !lazy.buffer<4xf32>) ins(%got, %got : !lazy.buffer<4xf32>, !lazy.buffer<4xf32>)
    return %used, %local : !lazy.buffer<4xf32>, !lazy.buffer<4xf32>
  }
}

// -----

// An assign target is one buffer under several values: the all-reduce
// reads %p0 as the first assign left it (%x0), so the second assign into
// %p0, a local launch that needs no message, must still wait for it.
// CHECK-LABEL: func.func @assigns_rank0(
// CHECK-SAME: %[[P0:arg0]]: !lazy.buffer<4xf32>
// CHECK: %[[X0:.*]] = lazy.launch @twice0 outs(%[[P0]] : {{.*}}) ins(%arg1, %arg1
// CHECK: lazy.all_reduce "sum" %[[X0]] into
// CHECK: lazy.launch @twice0 outs(%[[P0]] : {{.*}}) ins(%arg2, %arg2
module attributes {lazy.default_device = "CLANG"} {
  lazy.kernel @twice0(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<4xf32>, %in1: !lazy.buffer<4xf32>) attributes {num_outputs = 1 : i64} {
    %0 = lazy.load %in0 as <[(4):(1)]> : !lazy.buffer<4xf32> -> tensor<4xf32>
    %1 = lazy.load %in1 as <[(4):(1)]> : !lazy.buffer<4xf32> -> tensor<4xf32>
    %2 = lazy.add %0, %1 : tensor<4xf32>
    lazy.store %2, %out0 as <[(4):(1)]> : tensor<4xf32>, !lazy.buffer<4xf32>
  }
  lazy.kernel @twice1(%out0: !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>, %in0: !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>, %in1: !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>) attributes {num_outputs = 1 : i64} {
    %0 = lazy.load %in0 as <[(4):(1)]> : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">> -> tensor<4xf32>
    %1 = lazy.load %in1 as <[(4):(1)]> : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">> -> tensor<4xf32>
    %2 = lazy.add %0, %1 : tensor<4xf32>
    lazy.store %2, %out0 as <[(4):(1)]> : tensor<4xf32>, !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>
  }
  func.func @assigns(%p0: !lazy.buffer<4xf32>, %w: !lazy.buffer<4xf32>, %w2: !lazy.buffer<4xf32>, %p1: !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>) -> (!lazy.buffer<4xf32>, !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>, !lazy.buffer<4xf32>) {
    %x0 = lazy.launch @twice0 outs(%p0 : !lazy.buffer<4xf32>) ins(%w, %w : !lazy.buffer<4xf32>, !lazy.buffer<4xf32>)
    %x1 = lazy.launch @twice1 outs(%p1 : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>) ins(%p1, %p1 : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>, !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>)
    %ca = lazy.alloc : !lazy.buffer<4xf32>
    %c10 = lazy.ext "copy" outs(%ca : !lazy.buffer<4xf32>) ins(%x1 : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>)
    %cb = lazy.alloc : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>
    %c01 = lazy.ext "copy" outs(%cb : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>) ins(%x0 : !lazy.buffer<4xf32>)
    %o0 = lazy.alloc : !lazy.buffer<4xf32>
    %r0 = lazy.launch @twice0 outs(%o0 : !lazy.buffer<4xf32>) ins(%x0, %c10 : !lazy.buffer<4xf32>, !lazy.buffer<4xf32>)
    %o1 = lazy.alloc : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>
    %r1 = lazy.launch @twice1 outs(%o1 : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>) ins(%c01, %x1 : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>, !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>)
    %u = lazy.launch @twice0 outs(%p0 : !lazy.buffer<4xf32>) ins(%w2, %w2 : !lazy.buffer<4xf32>, !lazy.buffer<4xf32>)
    return %r0, %r1, %u : !lazy.buffer<4xf32>, !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>, !lazy.buffer<4xf32>
  }
}
