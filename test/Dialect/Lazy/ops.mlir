// RUN: lazy-opt %s | lazy-opt | FileCheck %s
// RUN: lazy-opt %s --mlir-print-op-generic | lazy-opt | FileCheck %s
// RUN: lazy-opt %s --mlir-print-debuginfo | lazy-opt --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// Every lazy op parses, verifies and prints; printing is stable through the
// custom and the generic form.

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<4xf32>, %i: tensor<4xsi32>) {
  // CHECK: lazy.exp2 %{{.*}} : tensor<4xf32>
  %0 = lazy.exp2 %x : tensor<4xf32>
  // CHECK: lazy.log2 %{{.*}} : tensor<4xf32>
  %1 = lazy.log2 %x : tensor<4xf32>
  // CHECK: lazy.sin %{{.*}} : tensor<4xf32>
  %2 = lazy.sin %x : tensor<4xf32>
  // CHECK: lazy.sqrt %{{.*}} : tensor<4xf32>
  %3 = lazy.sqrt %x : tensor<4xf32>
  // CHECK: lazy.neg %{{.*}} : tensor<4xsi32>
  %4 = lazy.neg %i : tensor<4xsi32>
  // CHECK: lazy.recip %{{.*}} : tensor<4xf32>
  %5 = lazy.recip %x : tensor<4xf32>
  // CHECK: lazy.cast %{{.*}} : tensor<4xsi32> -> tensor<4xf16>
  %6 = lazy.cast %i : tensor<4xsi32> -> tensor<4xf16>
  // CHECK: lazy.bitcast %{{.*}} : tensor<4xf32> -> tensor<4xui32>
  %7 = lazy.bitcast %x : tensor<4xf32> -> tensor<4xui32>
  // CHECK: lazy.bitcast %{{.*}} : tensor<4xf32> -> tensor<8xbf16>
  %8 = lazy.bitcast %x : tensor<4xf32> -> tensor<8xbf16>
  return
}

// CHECK-LABEL: func.func @binary
func.func @binary(%a: tensor<2x3xf64>, %b: tensor<2x3xf64>, %i: tensor<2x3xsi64>,
                  %u: tensor<2x3xui8>, %p: tensor<2x3xi1>, %k: tensor<2xui64>) {
  // CHECK: lazy.add %{{.*}}, %{{.*}} : tensor<2x3xf64>
  %0 = lazy.add %a, %b : tensor<2x3xf64>
  // CHECK: lazy.mul %{{.*}}, %{{.*}} : tensor<2x3xf64>
  %1 = lazy.mul %a, %b : tensor<2x3xf64>
  // CHECK: lazy.idiv %{{.*}}, %{{.*}} : tensor<2x3xsi64>
  %2 = lazy.idiv %i, %i : tensor<2x3xsi64>
  // CHECK: lazy.max %{{.*}}, %{{.*}} : tensor<2x3xf64>
  %3 = lazy.max %a, %b : tensor<2x3xf64>
  // CHECK: lazy.mod %{{.*}}, %{{.*}} : tensor<2x3xsi64>
  %4 = lazy.mod %i, %i : tensor<2x3xsi64>
  // CHECK: lazy.cmplt %{{.*}}, %{{.*}} : tensor<2x3xf64> -> tensor<2x3xi1>
  %5 = lazy.cmplt %a, %b : tensor<2x3xf64> -> tensor<2x3xi1>
  // CHECK: lazy.cmpne %{{.*}}, %{{.*}} : tensor<2x3xsi64> -> tensor<2x3xi1>
  %6 = lazy.cmpne %i, %i : tensor<2x3xsi64> -> tensor<2x3xi1>
  // CHECK: lazy.xor %{{.*}}, %{{.*}} : tensor<2x3xi1>
  %7 = lazy.xor %p, %p : tensor<2x3xi1>
  // CHECK: lazy.shl %{{.*}}, %{{.*}} : tensor<2x3xui8>
  %8 = lazy.shl %u, %u : tensor<2x3xui8>
  // CHECK: lazy.shr %{{.*}}, %{{.*}} : tensor<2x3xui8>
  %9 = lazy.shr %u, %u : tensor<2x3xui8>
  // CHECK: lazy.or %{{.*}}, %{{.*}} : tensor<2x3xui8>
  %10 = lazy.or %u, %u : tensor<2x3xui8>
  // CHECK: lazy.and %{{.*}}, %{{.*}} : tensor<2x3xi1>
  %11 = lazy.and %p, %p : tensor<2x3xi1>
  // CHECK: lazy.threefry %{{.*}}, %{{.*}} : tensor<2xui64>
  %12 = lazy.threefry %k, %k : tensor<2xui64>
  return
}

// CHECK-LABEL: func.func @ternary_and_reduce
func.func @ternary_and_reduce(%c: tensor<4x4xi1>, %a: tensor<4x4xf32>) {
  // CHECK: lazy.where %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x4xi1>, tensor<4x4xf32>
  %0 = lazy.where %c, %a, %a : tensor<4x4xi1>, tensor<4x4xf32>
  // CHECK: lazy.mulacc %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x4xf32>
  %1 = lazy.mulacc %a, %a, %a : tensor<4x4xf32>
  // CHECK: lazy.reduce_sum %{{.*}} axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  %2 = lazy.reduce_sum %a axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  // CHECK: lazy.reduce_max %{{.*}} axes [0, 1] : tensor<4x4xf32> -> tensor<1x1xf32>
  %3 = lazy.reduce_max %a axes [0, 1] : tensor<4x4xf32> -> tensor<1x1xf32>
  // A merged double reduce lists its outer axes first.
  // CHECK: lazy.reduce_sum %{{.*}} axes [1, 0] : tensor<4x4xf32> -> tensor<1x1xf32>
  %4 = lazy.reduce_sum %a axes [1, 0] : tensor<4x4xf32> -> tensor<1x1xf32>
  return
}

// CHECK-LABEL: func.func @softmax_sum
func.func @softmax_sum(%x: tensor<4x8xf32>, %w: tensor<4x8xf16>) {
  // CHECK: lazy.softmax_sum %{{.*}}, %{{.*}} axes [1] scale 1.4426950408889634 : tensor<4x8xf32>, tensor<4x8xf16> -> tensor<4x1xf16>
  %0 = lazy.softmax_sum %x, %w axes [1] scale 1.4426950408889634 : tensor<4x8xf32>, tensor<4x8xf16> -> tensor<4x1xf16>
  return
}

// All 14 tinygrad dtypes, as consts.
// CHECK-LABEL: func.func @consts
func.func @consts() {
  // CHECK: lazy.const true : tensor<i1>
  %0 = lazy.const true : tensor<i1>
  // CHECK: lazy.const -128 : tensor<si8>
  %1 = lazy.const -128 : tensor<si8>
  // CHECK: lazy.const 255 : tensor<ui8>
  %2 = lazy.const 255 : tensor<ui8>
  // CHECK: lazy.const -32768 : tensor<si16>
  %3 = lazy.const -32768 : tensor<si16>
  // CHECK: lazy.const 65535 : tensor<ui16>
  %4 = lazy.const 65535 : tensor<ui16>
  // CHECK: lazy.const -2147483648 : tensor<si32>
  %5 = lazy.const -2147483648 : tensor<si32>
  // CHECK: lazy.const 4294967295 : tensor<ui32>
  %6 = lazy.const 4294967295 : tensor<ui32>
  // CHECK: lazy.const -9223372036854775808 : tensor<si64>
  %7 = lazy.const -9223372036854775808 : tensor<si64>
  // CHECK: lazy.const 18446744073709551615 : tensor<ui64>
  %8 = lazy.const 18446744073709551615 : tensor<ui64>
  // CHECK: lazy.const 6.550400e+04 : tensor<f16>
  %9 = lazy.const 65504.0 : tensor<f16>
  // A float const keeps the double it was written with (tinygrad's Python
  // float), not its value rounded to the dtype (0.10009765625 in bf16).
  // CHECK: lazy.const 1.000000e-01 : tensor<bf16>
  %10 = lazy.const 0.1 : tensor<bf16>
  // CHECK: lazy.const 8.000000e-01 : tensor<f32>
  %f32_exact = lazy.const 0.8 : tensor<f32>
  // CHECK: lazy.const 0.80000001192092896 : tensor<f32>
  %f32_rounded = lazy.const 0.800000011920929 : tensor<f32>
  // CHECK: lazy.const -inf : tensor<f32>
  %11 = lazy.const -inf : tensor<f32>
  // CHECK: lazy.const nan : tensor<f64>
  %12 = lazy.const nan : tensor<f64>
  // CHECK: lazy.const 2.000000e+00 : tensor<4x4xf32>
  %13 = lazy.const 2 : tensor<4x4xf32>
  // CHECK: lazy.const inf : tensor<f16>
  %14 = lazy.const inf : tensor<f16>
  // CHECK: lazy.const 0.33333333333333331 : tensor<f64>
  %15 = lazy.const 0.33333333333333331 : tensor<f64>
  return
}

// CHECK-LABEL: func.func @meta
// CHECK-SAME: {lazy.buffer = 1 : i64, lazy.buffer_offset = 16 : i64}
func.func @meta(%x: tensor<4xf32> {lazy.buffer = 0 : i64},
                %t: tensor<8xf32> {lazy.buffer = 1 : i64},
                %s: tensor<2xf32> {lazy.buffer = 1 : i64, lazy.buffer_offset = 16 : i64}) {
  // CHECK: lazy.empty : tensor<4x4xsi32>
  %0 = lazy.empty : tensor<4x4xsi32>
  // CHECK: lazy.copy %{{.*}} : tensor<4xf32> -> tensor<4xf32, #lazy.device<"CUDA:1">>
  %1 = lazy.copy %x : tensor<4xf32> -> tensor<4xf32, #lazy.device<"CUDA:1">>
  // CHECK: lazy.contiguous %{{.*}} : tensor<4xf32>
  %2 = lazy.contiguous %x : tensor<4xf32>
  // CHECK: lazy.custom "custom_random" tensor<4xf32>
  %3 = lazy.custom "custom_random" tensor<4xf32>
  // CHECK: lazy.custom "fill"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
  %4 = lazy.custom "fill" (%x) : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: lazy.assign %{{.*}} to %{{.*}} view <[(4):(1) offset 2]> : tensor<4xf32>, tensor<8xf32>
  %5 = lazy.assign %x to %t view <[(4):(1) offset 2]> : tensor<4xf32>, tensor<8xf32>
  %6 = lazy.reshape %t : tensor<8xf32> -> tensor<2x4xf32>
  // CHECK: lazy.assign %{{.*}} to %{{.*}} : tensor<2x4xf32>, tensor<8xf32>
  %7 = lazy.assign %6 to %t : tensor<2x4xf32>, tensor<8xf32>
  // CHECK: lazy.buffer_view %{{.*}} : tensor<4xf32> -> tensor<4xf32>
  %8 = lazy.buffer_view %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: lazy.buffer_view %{{.*}} : tensor<4xf32> -> tensor<8xf16>
  %9 = lazy.buffer_view %x : tensor<4xf32> -> tensor<8xf16>
  // CHECK: lazy.add %{{.*}}, %{{.*}} {lazy.forced_realize} : tensor<4xf32>
  %10 = lazy.add %x, %x {lazy.forced_realize} : tensor<4xf32>
  // CHECK: lazy.exp2 %{{.*}} {lazy.seen} : tensor<4xf32>
  %11 = lazy.exp2 %x {lazy.seen} : tensor<4xf32>
  return
}

// CHECK-LABEL: func.func @movement
func.func @movement(%x: tensor<4x4xf32, #lazy.device<"CLANG">>) {
  // CHECK: lazy.reshape %{{.*}} : tensor<4x4xf32, #lazy.device<"CLANG">> -> tensor<2x8xf32, #lazy.device<"CLANG">>
  %0 = lazy.reshape %x : tensor<4x4xf32, #lazy.device<"CLANG">> -> tensor<2x8xf32, #lazy.device<"CLANG">>
  // CHECK: lazy.permute %{{.*}} [1, 0] : tensor<2x8xf32, #lazy.device<"CLANG">> -> tensor<8x2xf32, #lazy.device<"CLANG">>
  %1 = lazy.permute %0 [1, 0] : tensor<2x8xf32, #lazy.device<"CLANG">> -> tensor<8x2xf32, #lazy.device<"CLANG">>
  %2 = lazy.reshape %x : tensor<4x4xf32, #lazy.device<"CLANG">> -> tensor<4x1x4xf32, #lazy.device<"CLANG">>
  // CHECK: lazy.expand %{{.*}} : tensor<4x1x4xf32, #lazy.device<"CLANG">> -> tensor<4x3x4xf32, #lazy.device<"CLANG">>
  %3 = lazy.expand %2 : tensor<4x1x4xf32, #lazy.device<"CLANG">> -> tensor<4x3x4xf32, #lazy.device<"CLANG">>
  // CHECK: lazy.pad %{{.*}} [(1, 2), (0, 0)] : tensor<4x4xf32, #lazy.device<"CLANG">> -> tensor<7x4xf32, #lazy.device<"CLANG">>
  %4 = lazy.pad %x [(1, 2), (0, 0)] : tensor<4x4xf32, #lazy.device<"CLANG">> -> tensor<7x4xf32, #lazy.device<"CLANG">>
  // CHECK: lazy.shrink %{{.*}} [(1, 3), (0, 4)] : tensor<4x4xf32, #lazy.device<"CLANG">> -> tensor<2x4xf32, #lazy.device<"CLANG">>
  %5 = lazy.shrink %x [(1, 3), (0, 4)] : tensor<4x4xf32, #lazy.device<"CLANG">> -> tensor<2x4xf32, #lazy.device<"CLANG">>
  // CHECK: lazy.stride %{{.*}} [2, -1] : tensor<4x4xf32, #lazy.device<"CLANG">> -> tensor<2x4xf32, #lazy.device<"CLANG">>
  %6 = lazy.stride %x [2, -1] : tensor<4x4xf32, #lazy.device<"CLANG">> -> tensor<2x4xf32, #lazy.device<"CLANG">>
  // CHECK: lazy.view %{{.*}} as <[(2, 2):(0, 2) offset 1 mask [(0, 1), (0, 2)], (4):(1)]>
  %7 = lazy.view %x as <[(2, 2):(0, 2) offset 1 mask [(0, 1), (0, 2)], (4):(1)]> : tensor<4x4xf32, #lazy.device<"CLANG">> -> tensor<4xf32, #lazy.device<"CLANG">>
  // CHECK: lazy.view %{{.*}} as <[():()]> : tensor<4x4xf32, #lazy.device<"CLANG">> -> tensor<f32, #lazy.device<"CLANG">>
  %8 = lazy.view %x as <[():()]> : tensor<4x4xf32, #lazy.device<"CLANG">> -> tensor<f32, #lazy.device<"CLANG">>
  // CHECK: lazy.view %{{.*}} as <[(0, 4):(0, 0)]>
  %9 = lazy.view %x as <[(0, 4):(0, 0)]> : tensor<4x4xf32, #lazy.device<"CLANG">> -> tensor<0x4xf32, #lazy.device<"CLANG">>
  return
}

// Scheduler flags and the default device are module attributes; tinygrad's
// metadata is carried in locations.
// LOC: module attributes {lazy.default_device = "CLANG", lazy.flags = {fuse_arange = false, fuse_conv_bw = true, multi_output = true, use_copy_kernel = false}}
module attributes {lazy.flags = {multi_output = true, fuse_conv_bw = true, fuse_arange = false, use_copy_kernel = false}, lazy.default_device = "CLANG"} {
  // LOC-LABEL: func.func @metadata
  func.func @metadata(%a: tensor<4xf32>) -> tensor<4xf32> {
    // LOC: lazy.add {{.*}} loc(#[[ADD:.+]])
    %0 = lazy.add %a, %a : tensor<4xf32> loc("__add__")
    return %0 : tensor<4xf32>
  }
}
// LOC: #[[ADD]] = loc("__add__")
