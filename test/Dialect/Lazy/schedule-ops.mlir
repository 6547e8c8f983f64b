// RUN: lazy-opt %s | lazy-opt | FileCheck %s
// RUN: lazy-opt %s --mlir-print-op-generic | lazy-opt | FileCheck %s
// Every schedule-level op parses, verifies and prints stably.

// CHECK-LABEL: lazy.kernel @k(
// CHECK-SAME: %[[OUT:.+]]: !lazy.buffer<4xf32>, %[[IN:.+]]: !lazy.buffer<16xf32>)
// CHECK-SAME: metadata = ["sum"], num_outputs = 1 : i64
// CHECK: %[[X:.+]] = lazy.load %[[IN]] as <[(4, 4):(4, 1)]> : !lazy.buffer<16xf32> -> tensor<4x4xf32>
// CHECK: %[[S:.+]] = lazy.reduce_sum %[[X]] axes [1]
// CHECK: %[[C:.+]] = lazy.const 1.000000e+00 : tensor<f32>
// CHECK: %[[CV:.+]] = lazy.view %[[C]] as <[(4, 1):(0, 0)]>
// CHECK: %[[Y:.+]] = lazy.add %[[S]], %[[CV]]
// CHECK: lazy.store %[[Y]], %[[OUT]] as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
lazy.kernel @k(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<16xf32>) attributes {num_outputs = 1 : i64, metadata = ["sum"]} {
  %0 = lazy.load %in0 as <[(4, 4):(4, 1)]> : !lazy.buffer<16xf32> -> tensor<4x4xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  %c = lazy.const 1.0 : tensor<f32>
  %cv = lazy.view %c as <[(4, 1):(0, 0)]> : tensor<f32> -> tensor<4x1xf32>
  %2 = lazy.add %1, %cv : tensor<4x1xf32>
  lazy.store %2, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
}

// CHECK-LABEL: func.func @unordered
// CHECK: lazy.schedule -> !lazy.buffer<4xf32> {
// CHECK: lazy.launch @k outs(%{{.+}} : !lazy.buffer<4xf32>) ins(%{{.+}} : !lazy.buffer<16xf32>)
// CHECK: lazy.yield %{{.+}} : !lazy.buffer<4xf32>
func.func @unordered(%a: !lazy.buffer<16xf32>) -> !lazy.buffer<4xf32> {
  %r = lazy.schedule -> !lazy.buffer<4xf32> {
    %1 = lazy.launch @k outs(%0 : !lazy.buffer<4xf32>) ins(%a : !lazy.buffer<16xf32>)
    %0 = lazy.alloc : !lazy.buffer<4xf32>
    lazy.yield %1 : !lazy.buffer<4xf32>
  }
  return %r : !lazy.buffer<4xf32>
}

// CHECK-LABEL: func.func @program
// CHECK: %[[B:.+]] = lazy.alloc {lazy.external} : !lazy.buffer<64xf32>
// CHECK: %[[S:.+]] = lazy.suballoc %[[B]] offset 0 : !lazy.buffer<64xf32> -> !lazy.buffer<4xf32>
// CHECK: %[[R:.+]] = lazy.launch @k outs(%[[S]] : !lazy.buffer<4xf32>) ins(%{{.+}} : !lazy.buffer<16xf32>)
// CHECK: %[[D:.+]] = lazy.alloc : !lazy.buffer<4xf32, #lazy.device<"CUDA:1">>
// CHECK: lazy.ext "copy" outs(%[[D]] : !lazy.buffer<4xf32, #lazy.device<"CUDA:1">>) ins(%[[R]] : !lazy.buffer<4xf32>) {arg = 16 : i64}
// CHECK: lazy.ext "custom" outs(%{{.+}} : !lazy.buffer<4xf32>) {arg = "custom_random"}
// CHECK: lazy.ext "empty" outs(%{{.+}} : !lazy.buffer<2xsi32>)
// CHECK: %[[V:.+]] = lazy.suballoc %{{.+}} offset 8 : !lazy.buffer<16xf32> -> !lazy.buffer<4xsi32>
// CHECK: lazy.ext "view" outs(%[[V]] : !lazy.buffer<4xsi32>) ins(%{{.+}} : !lazy.buffer<16xf32>)
func.func @program(%a: !lazy.buffer<16xf32> {lazy.buffer = 0 : i64}) -> (!lazy.buffer<4xf32, #lazy.device<"CUDA:1">> {lazy.result_view = #lazy.st<[(2, 2):(2, 1)]>}) {
  %b = lazy.alloc {lazy.external} : !lazy.buffer<64xf32>
  %s = lazy.suballoc %b offset 0 : !lazy.buffer<64xf32> -> !lazy.buffer<4xf32>
  %r = lazy.launch @k outs(%s : !lazy.buffer<4xf32>) ins(%a : !lazy.buffer<16xf32>)
  %d = lazy.alloc : !lazy.buffer<4xf32, #lazy.device<"CUDA:1">>
  %c = lazy.ext "copy" outs(%d : !lazy.buffer<4xf32, #lazy.device<"CUDA:1">>) ins(%r : !lazy.buffer<4xf32>) {arg = 16 : i64}
  %e = lazy.alloc : !lazy.buffer<4xf32>
  %f = lazy.ext "custom" outs(%e : !lazy.buffer<4xf32>) {arg = "custom_random"}
  %g = lazy.alloc : !lazy.buffer<2xsi32>
  %h = lazy.ext "empty" outs(%g : !lazy.buffer<2xsi32>)
  %v = lazy.suballoc %a offset 8 : !lazy.buffer<16xf32> -> !lazy.buffer<4xsi32>
  %w = lazy.ext "view" outs(%v : !lazy.buffer<4xsi32>) ins(%a : !lazy.buffer<16xf32>)
  return %c : !lazy.buffer<4xf32, #lazy.device<"CUDA:1">>
}

// lazy-distribute's items round-trip.
// CHECK-LABEL: func.func @distributed_items
// CHECK: lazy.send %{{.*}} to rank 1 tag 3 : !lazy.buffer<4xf32>
// CHECK: %[[R:.*]] = lazy.recv %{{.*}} from rank 1 tag 4 : !lazy.buffer<4xf32>
// CHECK: %[[S:.*]] = lazy.suballoc %[[R]]
// CHECK: lazy.all_reduce "max" %[[S]] into %{{.*}} : !lazy.buffer<4xsi32> -> !lazy.buffer<4xsi32>
func.func @distributed_items(%a: !lazy.buffer<4xf32>, %b: !lazy.buffer<4xsi32>) -> !lazy.buffer<4xsi32> attributes {lazy.rank = 0 : i64} {
  lazy.send %a to rank 1 tag 3 : !lazy.buffer<4xf32>
  %r = lazy.recv %a from rank 1 tag 4 : !lazy.buffer<4xf32>
  %o = lazy.alloc : !lazy.buffer<4xsi32>
  %s = lazy.suballoc %r offset 0 : !lazy.buffer<4xf32> -> !lazy.buffer<4xsi32>
  %m = lazy.all_reduce "max" %s into %o : !lazy.buffer<4xsi32> -> !lazy.buffer<4xsi32>
  return %m : !lazy.buffer<4xsi32>
}
