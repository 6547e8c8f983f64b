// RUN: not lazy-opt %s --convert-lazy-to-gpu -split-input-file 2>&1 | FileCheck %s
// lazy-distribute's items have no GPU lowering: each is an error at the
// item, nothing lowered half.

// CHECK: error: 'lazy.send' op has no GPU lowering: distributed programs run on CPUs
func.func @send_rank0(%a: !lazy.buffer<4xf32>) attributes {lazy.rank = 0 : i64} {
  lazy.send %a to rank 1 tag 0 : !lazy.buffer<4xf32>
  return
}

// -----

// CHECK: error: 'lazy.recv' op has no GPU lowering: distributed programs run on CPUs
func.func @recv_rank1(%a: !lazy.buffer<4xf32>) -> !lazy.buffer<4xf32> attributes {lazy.rank = 1 : i64} {
  %r = lazy.recv %a from rank 0 tag 0 : !lazy.buffer<4xf32>
  return %r : !lazy.buffer<4xf32>
}

// -----

// CHECK: error: 'lazy.all_reduce' op has no GPU lowering: distributed programs run on CPUs
func.func @reduce_rank0(%a: !lazy.buffer<4xf32>) -> !lazy.buffer<4xf32> attributes {lazy.rank = 0 : i64} {
  %o = lazy.alloc : !lazy.buffer<4xf32>
  %r = lazy.all_reduce "sum" %a into %o : !lazy.buffer<4xf32> -> !lazy.buffer<4xf32>
  return %r : !lazy.buffer<4xf32>
}
