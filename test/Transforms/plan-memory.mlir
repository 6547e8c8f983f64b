// RUN: lazy-opt %s --lazy-plan-memory="report=true" --split-input-file --verify-diagnostics | FileCheck %s
// lazy-plan-memory: tinygrad 0.9.2's interval planner on ordered schedules.

module attributes {lazy.default_device = "CLANG"} {
  lazy.kernel @k16(%out0: !lazy.buffer<16xf32>, %in0: !lazy.buffer<16xf32>) attributes {num_outputs = 1 : i64} {
    %0 = lazy.load %in0 as <[(16):(1)]> : !lazy.buffer<16xf32> -> tensor<16xf32>
    %1 = lazy.exp2 %0 : tensor<16xf32>
    lazy.store %1, %out0 as <[(16):(1)]> : tensor<16xf32>, !lazy.buffer<16xf32>
  }
  lazy.kernel @k8(%out0: !lazy.buffer<8xf32>, %in0: !lazy.buffer<16xf32>) attributes {num_outputs = 1 : i64} {
    %0 = lazy.load %in0 as <[(8):(1)]> : !lazy.buffer<16xf32> -> tensor<8xf32>
    lazy.store %0, %out0 as <[(8):(1)]> : tensor<8xf32>, !lazy.buffer<8xf32>
  }
  lazy.kernel @k8to16(%out0: !lazy.buffer<16xf32>, %in0: !lazy.buffer<8xf32>) attributes {num_outputs = 1 : i64} {
    %0 = lazy.load %in0 as <[(16):(0)]> : !lazy.buffer<8xf32> -> tensor<16xf32>
    lazy.store %0, %out0 as <[(16):(1)]> : tensor<16xf32>, !lazy.buffer<16xf32>
  }

  // A chain: a buffer whose last use has passed is reused by a later one of
  // the same size (A is free after item 1, so C takes it); B overlaps both.
  // CHECK-LABEL: func.func @chain
  // CHECK-SAME: (%[[X:.+]]: !lazy.buffer<16xf32>)
  // CHECK-NEXT: %[[A:.+]] = lazy.alloc : !lazy.buffer<16xf32>
  // CHECK-NEXT: %[[B:.+]] = lazy.alloc : !lazy.buffer<16xf32>
  // CHECK-NEXT: %[[D:.+]] = lazy.alloc : !lazy.buffer<16xf32>
  // CHECK-NEXT: %[[A1:.+]] = lazy.launch @k16 outs(%[[A]] : {{.*}}) ins(%[[X]] :
  // CHECK-NEXT: %[[B1:.+]] = lazy.launch @k16 outs(%[[B]] : {{.*}}) ins(%[[A1]] :
  // CHECK-NEXT: %[[C1:.+]] = lazy.launch @k16 outs(%[[A]] : {{.*}}) ins(%[[B1]] :
  // CHECK-NEXT: %[[D1:.+]] = lazy.launch @k16 outs(%[[D]] : {{.*}}) ins(%[[C1]] :
  // CHECK-NEXT: return %[[D1]]
  // expected-remark @+1 {{memory reduced from 0.00 MB -> 0.00 MB, 3 -> 2 bufs}}
  func.func @chain(%x: !lazy.buffer<16xf32>) -> !lazy.buffer<16xf32> {
    %a = lazy.alloc : !lazy.buffer<16xf32>
    %a1 = lazy.launch @k16 outs(%a : !lazy.buffer<16xf32>) ins(%x : !lazy.buffer<16xf32>)
    %b = lazy.alloc : !lazy.buffer<16xf32>
    %b1 = lazy.launch @k16 outs(%b : !lazy.buffer<16xf32>) ins(%a1 : !lazy.buffer<16xf32>)
    %c = lazy.alloc : !lazy.buffer<16xf32>
    %c1 = lazy.launch @k16 outs(%c : !lazy.buffer<16xf32>) ins(%b1 : !lazy.buffer<16xf32>)
    %d = lazy.alloc : !lazy.buffer<16xf32>
    %d1 = lazy.launch @k16 outs(%d : !lazy.buffer<16xf32>) ins(%c1 : !lazy.buffer<16xf32>)
    return %d1 : !lazy.buffer<16xf32>
  }

  // A smaller buffer placed in a larger free one becomes a suballoc (the
  // CLANG allocator supports offsets); externally referenced buffers are
  // left alone.
  // CHECK-LABEL: func.func @carve
  // CHECK-NEXT: %[[BIG:.+]] = lazy.alloc : !lazy.buffer<16xf32>
  // CHECK-NEXT: %[[BIG2:.+]] = lazy.alloc : !lazy.buffer<16xf32>
  // CHECK-NEXT: %[[EXT:.+]] = lazy.alloc {lazy.external} : !lazy.buffer<16xf32>
  // CHECK-NEXT: %[[SMALL:.+]] = lazy.suballoc %[[BIG]] offset 0 : !lazy.buffer<16xf32> -> !lazy.buffer<8xf32>
  // expected-remark @+1 {{memory reduced from 0.00 MB -> 0.00 MB, 3 -> 2 bufs}}
  func.func @carve(%x: !lazy.buffer<16xf32>) -> !lazy.buffer<16xf32> {
    %a = lazy.alloc : !lazy.buffer<16xf32>
    %a1 = lazy.launch @k16 outs(%a : !lazy.buffer<16xf32>) ins(%x : !lazy.buffer<16xf32>)
    %b = lazy.alloc : !lazy.buffer<16xf32>
    %b1 = lazy.launch @k16 outs(%b : !lazy.buffer<16xf32>) ins(%a1 : !lazy.buffer<16xf32>)
    %e = lazy.alloc {lazy.external} : !lazy.buffer<16xf32>
    %e1 = lazy.launch @k16 outs(%e : !lazy.buffer<16xf32>) ins(%b1 : !lazy.buffer<16xf32>)
    %s = lazy.alloc : !lazy.buffer<8xf32>
    %s1 = lazy.launch @k8 outs(%s : !lazy.buffer<8xf32>) ins(%e1 : !lazy.buffer<16xf32>)
    %r = lazy.launch @k8to16 outs(%x : !lazy.buffer<16xf32>) ins(%s1 : !lazy.buffer<8xf32>)
    return %r : !lazy.buffer<16xf32>
  }

  // Two carved buffers, the first of them the function's first op (found
  // by scripts/fuzz_compare.py: the rewrite inserted the second suballoc
  // before the first alloc after erasing it, and crashed).
  // CHECK-LABEL: func.func @carve_first
  // CHECK-SAME: (%[[X:.+]]: !lazy.buffer<16xf32>)
  // CHECK-NEXT: %[[BIG:.+]] = lazy.alloc : !lazy.buffer<16xf32>
  // CHECK-NEXT: %[[S:.+]] = lazy.suballoc %[[BIG]] offset 0 : !lazy.buffer<16xf32> -> !lazy.buffer<8xf32>
  // CHECK-NEXT: %[[T:.+]] = lazy.suballoc %[[BIG]] offset 0 : !lazy.buffer<16xf32> -> !lazy.buffer<8xf32>
  // CHECK-NEXT: lazy.launch @k8 outs(%[[S]] :
  // CHECK-NEXT: lazy.launch @k8to16 outs(%[[X]] :
  // CHECK-NEXT: lazy.launch @k16 outs(%[[BIG]] :
  // CHECK-NEXT: lazy.launch @k16 outs(%[[X]] :
  // CHECK-NEXT: lazy.launch @k8 outs(%[[T]] :
  // expected-remark @+1 {{memory reduced from 0.00 MB -> 0.00 MB, 3 -> 1 bufs}}
  func.func @carve_first(%x: !lazy.buffer<16xf32>) -> !lazy.buffer<16xf32> {
    %s = lazy.alloc : !lazy.buffer<8xf32>
    %s1 = lazy.launch @k8 outs(%s : !lazy.buffer<8xf32>) ins(%x : !lazy.buffer<16xf32>)
    %x1 = lazy.launch @k8to16 outs(%x : !lazy.buffer<16xf32>) ins(%s1 : !lazy.buffer<8xf32>)
    %b = lazy.alloc : !lazy.buffer<16xf32>
    %b1 = lazy.launch @k16 outs(%b : !lazy.buffer<16xf32>) ins(%x1 : !lazy.buffer<16xf32>)
    %x2 = lazy.launch @k16 outs(%x : !lazy.buffer<16xf32>) ins(%b1 : !lazy.buffer<16xf32>)
    %t = lazy.alloc : !lazy.buffer<8xf32>
    %t1 = lazy.launch @k8 outs(%t : !lazy.buffer<8xf32>) ins(%x2 : !lazy.buffer<16xf32>)
    %r = lazy.launch @k8to16 outs(%x : !lazy.buffer<16xf32>) ins(%t1 : !lazy.buffer<8xf32>)
    return %r : !lazy.buffer<16xf32>
  }
}

// -----

// Without sub-buffers (the PYTHON device) only equal byte sizes share, and
// buffers of EXT items are never planned.
module attributes {lazy.default_device = "PYTHON"} {
  lazy.kernel @k16(%out0: !lazy.buffer<16xf32>, %in0: !lazy.buffer<16xf32>) attributes {num_outputs = 1 : i64} {
    %0 = lazy.load %in0 as <[(16):(1)]> : !lazy.buffer<16xf32> -> tensor<16xf32>
    lazy.store %0, %out0 as <[(16):(1)]> : tensor<16xf32>, !lazy.buffer<16xf32>
  }
  lazy.kernel @k8(%out0: !lazy.buffer<8xf32>, %in0: !lazy.buffer<16xf32>) attributes {num_outputs = 1 : i64} {
    %0 = lazy.load %in0 as <[(8):(1)]> : !lazy.buffer<16xf32> -> tensor<8xf32>
    lazy.store %0, %out0 as <[(8):(1)]> : tensor<8xf32>, !lazy.buffer<8xf32>
  }
  // CHECK-LABEL: func.func @no_offsets
  // CHECK-NOT: suballoc
  // CHECK: lazy.ext "empty"
  // CHECK: return
  func.func @no_offsets(%x: !lazy.buffer<16xf32>) -> (!lazy.buffer<8xf32>, !lazy.buffer<16xf32>) {
    %a = lazy.alloc : !lazy.buffer<16xf32>
    %a1 = lazy.launch @k16 outs(%a : !lazy.buffer<16xf32>) ins(%x : !lazy.buffer<16xf32>)
    %b = lazy.alloc : !lazy.buffer<16xf32>
    %b1 = lazy.launch @k16 outs(%b : !lazy.buffer<16xf32>) ins(%a1 : !lazy.buffer<16xf32>)
    %s = lazy.alloc : !lazy.buffer<8xf32>
    %s1 = lazy.launch @k8 outs(%s : !lazy.buffer<8xf32>) ins(%b1 : !lazy.buffer<16xf32>)
    %e = lazy.alloc : !lazy.buffer<16xf32>
    %e1 = lazy.ext "empty" outs(%e : !lazy.buffer<16xf32>)
    return %s1, %e1 : !lazy.buffer<8xf32>, !lazy.buffer<16xf32>
  }
}

// -----

// expected-error @+1 {{plan memory after lazy-toposort has ordered the schedule}}
func.func @unordered() -> !lazy.buffer<4xf32> {
  %0 = lazy.schedule -> !lazy.buffer<4xf32> {
    %1 = lazy.alloc : !lazy.buffer<4xf32>
    lazy.yield %1 : !lazy.buffer<4xf32>
  }
  return %0 : !lazy.buffer<4xf32>
}
