// RUN: lazy-opt %s --lazy-plan-memory | lazy-opt --lazy-plan-memory | FileCheck %s
// Planning again keeps a carved buffer's base alive for as long as any
// part of it is used (lazy-to-cpu re-runs the scheduler on scheduled IR).

lazy.kernel @k16(%out0: !lazy.buffer<16xf32>, %in0: !lazy.buffer<16xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(16):(1)]> : !lazy.buffer<16xf32> -> tensor<16xf32>
  lazy.store %0, %out0 as <[(16):(1)]> : tensor<16xf32>, !lazy.buffer<16xf32>
}
lazy.kernel @k8(%out0: !lazy.buffer<8xf32>, %in0: !lazy.buffer<16xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(8):(1)]> : !lazy.buffer<16xf32> -> tensor<8xf32>
  lazy.store %0, %out0 as <[(8):(1)]> : tensor<8xf32>, !lazy.buffer<8xf32>
}
lazy.kernel @k8to16(%out0: !lazy.buffer<16xf32>, %in0: !lazy.buffer<8xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(16):(0)]> : !lazy.buffer<8xf32> -> tensor<16xf32>
  lazy.store %0, %out0 as <[(16):(1)]> : tensor<16xf32>, !lazy.buffer<16xf32>
}
// CHECK-LABEL: func.func @carve
// CHECK-NEXT: %[[BIG:.+]] = lazy.alloc : !lazy.buffer<16xf32>
// CHECK-NEXT: %[[BIG2:.+]] = lazy.alloc : !lazy.buffer<16xf32>
// CHECK-NEXT: %[[EXT:.+]] = lazy.alloc {lazy.external} : !lazy.buffer<16xf32>
// CHECK-NEXT: %[[SMALL:.+]] = lazy.suballoc %[[BIG]] offset 0 : !lazy.buffer<16xf32> -> !lazy.buffer<8xf32>
// CHECK-NEXT: lazy.launch @k16 outs(%[[BIG]] :
// CHECK-NEXT: lazy.launch @k16 outs(%[[BIG2]] :
// CHECK-NEXT: lazy.launch @k16 outs(%[[EXT]] :
// CHECK-NEXT: lazy.launch @k8 outs(%[[SMALL]] :
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
