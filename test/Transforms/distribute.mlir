// RUN: lazy-opt %s -split-input-file --lazy-schedule --lazy-distribute | FileCheck %s
// RUN: lazy-opt %s -split-input-file --lazy-schedule --lazy-distribute=rank=1 | FileCheck %s --check-prefix=RANK1
// lazy-distribute: a rank per device; copies across ranks become sends and
// receives; tinygrad's naive all-reduce becomes lazy.all_reduce.

// Two devices add up each other's buffer as multi.py's all_reduce does:
// one all_reduce per rank, no copies, no kernels left.
// CHECK: module attributes {{{.*}}lazy.rank_devices = ["CLANG", "CLANG:1"]}
// CHECK-NOT: lazy.kernel
// CHECK-LABEL: func.func @sum2_rank0(
// CHECK-SAME: %[[A:.*]]: !lazy.buffer<4xf32> {lazy.argument = 0 : i64}
// CHECK-SAME: -> (!lazy.buffer<4xf32> {lazy.output = 0 : i64}) attributes {lazy.rank = 0 : i64}
// CHECK-NEXT: %[[O:.*]] = lazy.alloc : !lazy.buffer<4xf32>
// CHECK-NEXT: %[[R:.*]] = lazy.all_reduce "sum" %[[A]] into %[[O]]
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func @sum2_rank1(
// CHECK-SAME: {lazy.argument = 1 : i64}
// CHECK-SAME: {lazy.output = 1 : i64}) attributes {lazy.rank = 1 : i64}
// CHECK-NEXT: lazy.alloc : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>
// CHECK-NEXT: lazy.all_reduce "sum"
// CHECK-NEXT: return
// RANK1-NOT: func.func
// RANK1: func.func @sum2_rank1(
// RANK1: lazy.all_reduce "sum"
// RANK1-NOT: func.func
// RANK1: // -----
module attributes {lazy.default_device = "CLANG"} {
func.func @sum2(%a: tensor<4xf32>, %b: tensor<4xf32, #lazy.device<"CLANG:1">>) -> (tensor<4xf32>, tensor<4xf32, #lazy.device<"CLANG:1">>) {
  %b0 = lazy.copy %b : tensor<4xf32, #lazy.device<"CLANG:1">> -> tensor<4xf32>
  %s0 = lazy.add %a, %b0 : tensor<4xf32>
  %a1 = lazy.copy %a : tensor<4xf32> -> tensor<4xf32, #lazy.device<"CLANG:1">>
  %s1 = lazy.add %a1, %b : tensor<4xf32, #lazy.device<"CLANG:1">>
  return %s0, %s1 : tensor<4xf32>, tensor<4xf32, #lazy.device<"CLANG:1">>
}
}

// -----

// Three devices (named out of order: ranks follow the device numbers), a
// max; each device folds ((x0 max x1) max x2).
// CHECK: lazy.rank_devices = ["CLANG", "CLANG:1", "CLANG:2"]
// CHECK-LABEL: func.func @max3_rank0(
// CHECK: lazy.all_reduce "max" %{{.*}} : !lazy.buffer<6xsi32> -> !lazy.buffer<6xsi32>
// CHECK-LABEL: func.func @max3_rank1(
// CHECK: lazy.all_reduce "max"
// CHECK-LABEL: func.func @max3_rank2(
// CHECK-NOT: lazy.send
// CHECK: lazy.all_reduce "max"
// RANK1-NOT: func.func
// RANK1: func.func @max3_rank1(
// RANK1-NOT: func.func
// RANK1: // -----
module attributes {lazy.default_device = "CLANG"} {
func.func @max3(%x2: tensor<6xsi32, #lazy.device<"CLANG:2">>, %x0: tensor<6xsi32>, %x1: tensor<6xsi32, #lazy.device<"CLANG:1">>) -> (tensor<6xsi32>, tensor<6xsi32, #lazy.device<"CLANG:1">>, tensor<6xsi32, #lazy.device<"CLANG:2">>) {
  %c10 = lazy.copy %x1 : tensor<6xsi32, #lazy.device<"CLANG:1">> -> tensor<6xsi32>
  %c20 = lazy.copy %x2 : tensor<6xsi32, #lazy.device<"CLANG:2">> -> tensor<6xsi32>
  %m0a = lazy.max %x0, %c10 : tensor<6xsi32>
  %m0 = lazy.max %m0a, %c20 : tensor<6xsi32>
  %c01 = lazy.copy %x0 : tensor<6xsi32> -> tensor<6xsi32, #lazy.device<"CLANG:1">>
  %c21 = lazy.copy %x2 : tensor<6xsi32, #lazy.device<"CLANG:2">> -> tensor<6xsi32, #lazy.device<"CLANG:1">>
  %m1a = lazy.max %c01, %x1 : tensor<6xsi32, #lazy.device<"CLANG:1">>
  %m1 = lazy.max %m1a, %c21 : tensor<6xsi32, #lazy.device<"CLANG:1">>
  %c02 = lazy.copy %x0 : tensor<6xsi32> -> tensor<6xsi32, #lazy.device<"CLANG:2">>
  %c12 = lazy.copy %x1 : tensor<6xsi32, #lazy.device<"CLANG:1">> -> tensor<6xsi32, #lazy.device<"CLANG:2">>
  %m2a = lazy.max %c02, %c12 : tensor<6xsi32, #lazy.device<"CLANG:2">>
  %m2 = lazy.max %m2a, %x2 : tensor<6xsi32, #lazy.device<"CLANG:2">>
  return %m0, %m1, %m2 : tensor<6xsi32>, tensor<6xsi32, #lazy.device<"CLANG:1">>, tensor<6xsi32, #lazy.device<"CLANG:2">>
}
}

// -----

// Looks like an all-reduce, is not one: device 1 adds in the other order
// (its sum may round differently from device 0's), so both stay copies:
// a send on the source rank, a receive on the destination, tags in
// schedule order.
// CHECK-LABEL: func.func @order_rank0(
// CHECK-NOT: lazy.all_reduce
// CHECK-DAG: lazy.send %{{.*}} to rank 1 tag [[T0:[0-9]+]] : !lazy.buffer<4xf32>
// CHECK-DAG: lazy.recv %{{.*}} from rank 1 tag [[T1:[0-9]+]] : !lazy.buffer<4xf32>
// CHECK: lazy.launch
// CHECK-LABEL: func.func @order_rank1(
// CHECK-DAG: lazy.recv %{{.*}} from rank 0 tag [[T0]]
// CHECK-DAG: lazy.send %{{.*}} to rank 0 tag [[T1]]
// CHECK: lazy.launch
// Rank 1 alone keeps only the kernel it launches.
// RANK1-NOT: lazy.kernel @order_k0
// RANK1: lazy.kernel @order_k1(
// RANK1-NOT: func.func
// RANK1: func.func @order_rank1(
// RANK1: lazy.launch @order_k1
// RANK1-NOT: func.func
// RANK1: // -----
module attributes {lazy.default_device = "CLANG"} {
func.func @order(%a: tensor<4xf32>, %b: tensor<4xf32, #lazy.device<"CLANG:1">>) -> (tensor<4xf32>, tensor<4xf32, #lazy.device<"CLANG:1">>) {
  %b0 = lazy.copy %b : tensor<4xf32, #lazy.device<"CLANG:1">> -> tensor<4xf32>
  %s0 = lazy.add %a, %b0 : tensor<4xf32>
  %a1 = lazy.copy %a : tensor<4xf32> -> tensor<4xf32, #lazy.device<"CLANG:1">>
  %s1 = lazy.add %b, %a1 : tensor<4xf32, #lazy.device<"CLANG:1">>
  return %s0, %s1 : tensor<4xf32>, tensor<4xf32, #lazy.device<"CLANG:1">>
}
}

// -----

// The sum fused with a scale (a mean's division): kernels stay, fed by
// sends and receives.
// CHECK-LABEL: func.func @fused_rank0(
// CHECK-NOT: lazy.all_reduce
// CHECK-DAG: lazy.send
// CHECK-DAG: lazy.recv
// CHECK: lazy.launch
// CHECK-LABEL: func.func @fused_rank1(
// CHECK-NOT: lazy.all_reduce
// CHECK: lazy.launch
module attributes {lazy.default_device = "CLANG"} {
func.func @fused(%a: tensor<4xf32>, %b: tensor<4xf32, #lazy.device<"CLANG:1">>) -> (tensor<4xf32>, tensor<4xf32, #lazy.device<"CLANG:1">>) {
  %h0 = lazy.const 5.000000e-01 : tensor<4xf32>
  %h1 = lazy.const 5.000000e-01 : tensor<4xf32, #lazy.device<"CLANG:1">>
  %b0 = lazy.copy %b : tensor<4xf32, #lazy.device<"CLANG:1">> -> tensor<4xf32>
  %s0 = lazy.add %a, %b0 : tensor<4xf32>
  %m0 = lazy.mul %s0, %h0 : tensor<4xf32>
  %a1 = lazy.copy %a : tensor<4xf32> -> tensor<4xf32, #lazy.device<"CLANG:1">>
  %s1 = lazy.add %a1, %b : tensor<4xf32, #lazy.device<"CLANG:1">>
  %m1 = lazy.mul %s1, %h1 : tensor<4xf32, #lazy.device<"CLANG:1">>
  return %m0, %m1 : tensor<4xf32>, tensor<4xf32, #lazy.device<"CLANG:1">>
}
}

// -----

// Each device sums a different pair of buffers, and f16 sums: no
// all-reduce either way.
// CHECK-LABEL: func.func @mixed_rank0(
// CHECK-NOT: lazy.all_reduce
// CHECK-LABEL: func.func @mixed_rank1(
// CHECK-NOT: lazy.all_reduce
// CHECK: return
module attributes {lazy.default_device = "CLANG"} {
func.func @mixed(%a: tensor<4xf32>, %c: tensor<4xf32>, %b: tensor<4xf32, #lazy.device<"CLANG:1">>, %h: tensor<4xf16>, %k: tensor<4xf16, #lazy.device<"CLANG:1">>) -> (tensor<4xf32>, tensor<4xf32, #lazy.device<"CLANG:1">>, tensor<4xf16>, tensor<4xf16, #lazy.device<"CLANG:1">>) {
  %b0 = lazy.copy %b : tensor<4xf32, #lazy.device<"CLANG:1">> -> tensor<4xf32>
  %s0 = lazy.add %a, %b0 : tensor<4xf32>
  %c1 = lazy.copy %c : tensor<4xf32> -> tensor<4xf32, #lazy.device<"CLANG:1">>
  %s1 = lazy.add %c1, %b : tensor<4xf32, #lazy.device<"CLANG:1">>
  %k0 = lazy.copy %k : tensor<4xf16, #lazy.device<"CLANG:1">> -> tensor<4xf16>
  %t0 = lazy.add %h, %k0 : tensor<4xf16>
  %h1 = lazy.copy %h : tensor<4xf16> -> tensor<4xf16, #lazy.device<"CLANG:1">>
  %t1 = lazy.add %h1, %k : tensor<4xf16, #lazy.device<"CLANG:1">>
  return %s0, %s1, %t0, %t1 : tensor<4xf32>, tensor<4xf32, #lazy.device<"CLANG:1">>, tensor<4xf16>, tensor<4xf16, #lazy.device<"CLANG:1">>
}
}
