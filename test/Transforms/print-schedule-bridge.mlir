// RUN: lazy-opt %s --lazy-schedule=record-nodes=true --lazy-print-schedule=format=bridge -o /dev/null | FileCheck %s
// RUN: lazy-opt %s --lazy-schedule=record-nodes=true | FileCheck %s --check-prefix=NODES
// RUN: not lazy-opt %s --lazy-schedule --lazy-print-schedule=format=bridge -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNRECORDED
// RUN: not lazy-opt %s --lazy-schedule --lazy-print-schedule=format=dots -o /dev/null 2>&1 | FileCheck %s --check-prefix=FORMAT

// The bridge form (what the tinygrad bridge reads): each distinct kernel
// once, each item's output positions and, per buffer, what it is and where
// it lives after memory planning. Positions count the graph function's ops
// (arguments not counted) as they were before folding.

module attributes {lazy.default_device = "CLANG"} {
  func.func @chain(%x: tensor<16xf32> {lazy.buffer = 0 : i64}) -> tensor<1xf32> {
    %a = lazy.exp2 %x : tensor<16xf32> loc("exp2")
    %ca = lazy.contiguous %a : tensor<16xf32>
    %two = lazy.const 2.0 : tensor<f32>
    %twos = lazy.view %two as <[(16):(0)]> : tensor<f32> -> tensor<16xf32>
    %b = lazy.mul %ca, %twos : tensor<16xf32>
    %cb = lazy.contiguous %b : tensor<16xf32>
    %c = lazy.add %cb, %twos : tensor<16xf32>
    %cc = lazy.contiguous %c : tensor<16xf32>
    %s = lazy.reduce_sum %cc axes [0] : tensor<16xf32> -> tensor<1xf32> loc("sum")
    return %s : tensor<1xf32>
  }
}

// Each distinct kernel once, with its argument count and metadata, before
// its first launch; `c` (position 7) lives in `a`'s buffer (position 1),
// whose last reader ran before it: the memory plan.
// CHECK-LABEL: schedule @chain
// CHECK-NEXT: kernel @chain_k3 args 2
// CHECK-NEXT:   meta exp2
// CHECK-NEXT:   n0 = LOAD 1 float [(16):(1)]
// CHECK-NEXT:   n1 = EXP2 n0
// CHECK-NEXT:   STORE 0 float [(16):(1)] n1
// CHECK-NEXT: item KERNEL @chain_k3
// CHECK-NEXT:   out 1
// CHECK-NEXT:   buf n1:n1@0 a0:a0@0
// CHECK-NEXT: kernel @chain_k2 args 2
// CHECK:      item KERNEL @chain_k2
// CHECK-NEXT:   out 5
// CHECK-NEXT:   buf n5:n5@0 n1:n1@0
// CHECK-NEXT: kernel @chain_k1 args 2
// CHECK:      item KERNEL @chain_k1
// CHECK-NEXT:   out 7
// CHECK-NEXT:   buf n7:n1@0 n5:n5@0
// CHECK-NEXT: kernel @chain_k0 args 2
// CHECK-NEXT:   meta sum
// CHECK:      item KERNEL @chain_k0
// CHECK-NEXT:   out 8
// CHECK-NEXT:   buf n8:n8@0 n7:n1@0
// CHECK-NOT: item

// Launches and the allocations made for nodes carry the positions.
// NODES:      %[[A:.*]] = lazy.alloc {lazy.nodes = array<i64: 1>}
// NODES-NEXT: lazy.alloc {lazy.nodes = array<i64: 5>}
// NODES-NEXT: lazy.alloc {lazy.nodes = array<i64: 8>}
// NODES-NEXT: lazy.launch @chain_k3 outs(%[[A]] : {{.*}}) ins(%arg0 : {{.*}}) {lazy.nodes = array<i64: 1>}
// NODES:      lazy.launch @chain_k1 outs(%[[A]] : {{.*}}) {lazy.nodes = array<i64: 7>}

// Without record-nodes there is nothing to print, and nothing is printed.
// UNRECORDED-NOT: kernel @
// UNRECORDED: error: 'lazy.launch' op has no 'lazy.nodes'; schedule with lazy-schedule{record-nodes} for the bridge form
// UNRECORDED-NOT: kernel @

// FORMAT: error: lazy-print-schedule: unknown format 'dots' (expected 'canonical', 'bridge' or 'dot'); did you mean 'dot'?
