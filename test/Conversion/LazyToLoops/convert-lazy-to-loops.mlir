// RUN: lazy-opt %s --convert-lazy-to-loops --split-input-file --verify-diagnostics | FileCheck %s
// One kernel per rule of convert-lazy-to-loops.

// A store is a parallel loop over its view's shape; a masked load reads a
// clamped index and yields 0 outside the mask; a reduce is an scf.for with
// an accumulator starting at 0.
// CHECK-LABEL: func.func @pad_sum(
// CHECK-SAME: %[[OUT:.+]]: memref<6xf32, strided<[1], offset: ?>>, %[[IN:.+]]: memref<16xf32, strided<[1], offset: ?>>)
// CHECK: scf.parallel (%[[I:.+]]) =
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[SUM:.+]] = scf.for %[[K:.+]] = {{.*}} iter_args(%[[ACC:.+]] = %[[ZERO]]) -> (f32)
// CHECK: %[[LO:.+]] = arith.cmpi sge
// CHECK: %[[HI:.+]] = arith.cmpi slt
// CHECK: %[[OK:.+]] = arith.andi %[[LO]], %[[HI]]
// CHECK: %[[SAFE:.+]] = arith.select %[[OK]], %{{.+}}, %{{.+}} : index
// CHECK: %[[X:.+]] = memref.load %[[IN]][%[[SAFE]]]
// CHECK: %[[V:.+]] = arith.select %[[OK]], %[[X]], %{{.+}} : f32
// CHECK: %[[NEXT:.+]] = arith.addf %[[ACC]], %[[V]]
// CHECK: scf.yield %[[NEXT]]
// CHECK: memref.store %[[SUM]], %[[OUT]]
lazy.kernel @pad_sum(%out0: !lazy.buffer<6xf32>, %in0: !lazy.buffer<16xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(6, 4):(4, 1) offset -4 mask [(1, 5), (0, 4)]]> : !lazy.buffer<16xf32> -> tensor<6x4xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<6x4xf32> -> tensor<6x1xf32>
  lazy.store %1, %out0 as <[(6, 1):(1, 0)]> : tensor<6x1xf32>, !lazy.buffer<6xf32>
}

// -----

// Consecutive stores of one shape share one loop: each element of every
// value is computed (the assign target %out0 read once) before any store,
// so a value that reads an output sees its old contents.
// CHECK-LABEL: func.func @two_outputs(
// CHECK-SAME: %[[OUT0:[^:]+]]: memref<4xf32, {{.+}}>, %[[OUT1:[^:]+]]: memref<4xf32, {{.+}}>, %[[IN:[^:]+]]: memref<16xf32, {{.+}}>)
// CHECK: scf.parallel
// CHECK: memref.load %[[OUT0]]
// CHECK-NOT: memref.store
// CHECK: %[[V:.+]] = arith.addf
// CHECK: memref.store %[[V]], %[[OUT0]]
// CHECK-NOT: scf.parallel
// CHECK: memref.store %[[V]], %[[OUT1]]
// CHECK-NOT: scf.parallel
// CHECK: return
lazy.kernel @two_outputs(%out0: !lazy.buffer<4xf32>, %out1: !lazy.buffer<4xf32>, %in0: !lazy.buffer<16xf32>) attributes {num_outputs = 2 : i64} {
  %0 = lazy.load %in0 as <[(4, 4):(4, 1)]> : !lazy.buffer<16xf32> -> tensor<4x4xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  %2 = lazy.load %out0 as <[(4, 1):(1, 0)]> : !lazy.buffer<4xf32> -> tensor<4x1xf32>
  %3 = lazy.add %1, %2 : tensor<4x1xf32>
  lazy.store %3, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
  lazy.store %3, %out1 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
}

// -----

// A sum of a const over a view whose validity is affine in the reduced
// index (Tensor.arange's cumsum) is folded as tinygrad's linearizer folds
// it: the const times the number of valid elements, with no loop. Here
// -i - r + 2 < 0 bounds r below by 3 - i: the count is i + 1.
// CHECK-LABEL: func.func @arange(
// CHECK: scf.parallel (%[[I:.+]]) =
// CHECK-NOT: scf.for
// CHECK: arith.floordivsi
// CHECK: %[[LO:.+]] = arith.maxsi
// CHECK: %[[N:.+]] = arith.subi %{{.+}}, %[[LO]]
// CHECK: %[[COUNT:.+]] = arith.maxsi %[[N]]
// CHECK: %[[C:.+]] = arith.index_cast %[[COUNT]] : index to i32
// CHECK: arith.muli %{{.+}}, %[[C]] : i32
// CHECK: memref.store
lazy.kernel @arange(%out0: !lazy.buffer<4xsi32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.const 1 : tensor<si32>
  %1 = lazy.view %0 as <[(5, 7):(0, 0) mask [(0, 5), (3, 7)], (4, 4):(1, 8)]> : tensor<si32> -> tensor<4x4xsi32>
  %2 = lazy.reduce_sum %1 axes [1] : tensor<4x4xsi32> -> tensor<4x1xsi32>
  lazy.store %2, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xsi32>, !lazy.buffer<4xsi32>
}

// -----

// Not folded where c * count could differ from the loop's sum: a float
// const that is not an integer.
// CHECK-LABEL: func.func @arange_fraction(
// CHECK: scf.for
lazy.kernel @arange_fraction(%out0: !lazy.buffer<4xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.const 0.1 : tensor<f32>
  %1 = lazy.view %0 as <[(5, 7):(0, 0) mask [(0, 5), (3, 7)], (4, 4):(1, 8)]> : tensor<f32> -> tensor<4x4xf32>
  %2 = lazy.reduce_sum %1 axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  lazy.store %2, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
}

// -----

// A float const holds tinygrad's double; the kernel computes with it rounded
// to nearest into the dtype (0.1 is 0.0999755859375 in f16).
// CHECK-LABEL: func.func @const_rounded_to_dtype(
// CHECK: arith.constant 9.997550e-02 : f16
lazy.kernel @const_rounded_to_dtype(%out0: !lazy.buffer<4xf16>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.const 0.1 : tensor<f16>
  %1 = lazy.view %0 as <[(4):(0)]> : tensor<f16> -> tensor<4xf16>
  lazy.store %1, %out0 as <[(4):(1)]> : tensor<4xf16>, !lazy.buffer<4xf16>
}

// -----

// A max starts from the dtype's lowest value (an integer max is maxsi or
// maxui, which LLVM vectorizes); signed and unsigned integers pick their
// arith ops; a const view is a constant.
// CHECK-LABEL: func.func @int_ops(
// CHECK: arith.remui
// CHECK: arith.uitofp
// CHECK: %[[LOW:.+]] = arith.constant -2147483648 : i32
// CHECK: scf.for {{.*}} iter_args(%{{.+}} = %[[LOW]]) -> (i32)
// CHECK: arith.maxsi
// CHECK: arith.constant 3 : i32
// CHECK: arith.divsi
// CHECK: arith.sitofp
lazy.kernel @int_ops(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<16xsi32>, %in1: !lazy.buffer<4xui32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(4, 4):(4, 1)]> : !lazy.buffer<16xsi32> -> tensor<4x4xsi32>
  %1 = lazy.reduce_max %0 axes [1] : tensor<4x4xsi32> -> tensor<4x1xsi32>
  %c = lazy.const 3 : tensor<si32>
  %cv = lazy.view %c as <[(4, 1):(0, 0)]> : tensor<si32> -> tensor<4x1xsi32>
  %2 = lazy.idiv %1, %cv : tensor<4x1xsi32>
  %u = lazy.load %in1 as <[(4, 1):(1, 0)]> : !lazy.buffer<4xui32> -> tensor<4x1xui32>
  %m = lazy.mod %u, %u : tensor<4x1xui32>
  %f = lazy.cast %m : tensor<4x1xui32> -> tensor<4x1xf32>
  %g = lazy.cast %2 : tensor<4x1xsi32> -> tensor<4x1xf32>
  %h = lazy.add %f, %g : tensor<4x1xf32>
  lazy.store %h, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
}

// -----

// A masked store only writes inside its mask; the scheduled function calls
// the lowered kernel on memrefs.
// CHECK-LABEL: func.func @masked_store(
// CHECK: scf.if %{{.+}} {
// CHECK-NEXT: memref.store
// The program: buffers are bytes, each seen through a memref.view.
// CHECK-LABEL: func.func @program(
// CHECK-SAME: %[[ARG:.+]]: memref<16xi8>) -> memref<8xf32>
// CHECK: %[[A:.+]] = memref.view %[[ARG]][%{{.+}}][] : memref<16xi8> to memref<4xf32>
// CHECK: %[[RAW:.+]] = memref.alloc() : memref<32xi8>
// CHECK: %[[B:.+]] = memref.view %[[RAW]][%{{.+}}][] : memref<32xi8> to memref<8xf32>
// CHECK: %[[BC:.+]] = memref.cast %[[B]] : memref<8xf32> to memref<8xf32, strided<[1], offset: ?>>
// CHECK: %[[AC:.+]] = memref.cast %[[A]] : memref<4xf32> to memref<4xf32, strided<[1], offset: ?>>
// CHECK: call @masked_store(%[[BC]], %[[AC]])
// CHECK: return %[[B]]
lazy.kernel @masked_store(%out0: !lazy.buffer<8xf32>, %in0: !lazy.buffer<4xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(4):(1)]> : !lazy.buffer<4xf32> -> tensor<4xf32>
  lazy.store %0, %out0 as <[(4):(2) mask [(0, 3)]]> : tensor<4xf32>, !lazy.buffer<8xf32>
}
func.func @program(%a: !lazy.buffer<4xf32>) -> !lazy.buffer<8xf32> {
  %b = lazy.alloc : !lazy.buffer<8xf32>
  %r = lazy.launch @masked_store outs(%b : !lazy.buffer<8xf32>) ins(%a : !lazy.buffer<4xf32>)
  return %r : !lazy.buffer<8xf32>
}

// -----

// THREEFRY: the key's low half, 20 rounds of 32-bit rotate/xor, and the
// two halves joined again.
// CHECK-LABEL: func.func @threefry(
// CHECK-COUNT-3: arith.trunci %{{.+}} : i64 to i32
// CHECK: arith.xori %{{.+}}, %{{.+}} : i32
// CHECK-COUNT-20: arith.xori %{{.+}}, %{{.+}} : i32
// CHECK: arith.shli %{{.+}}, %{{.+}} : i64
// CHECK: arith.ori %{{.+}}, %{{.+}} : i64
lazy.kernel @threefry(%out0: !lazy.buffer<4xui64>, %in0: !lazy.buffer<4xui64>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(4):(1)]> : !lazy.buffer<4xui64> -> tensor<4xui64>
  %1 = lazy.threefry %0, %0 : tensor<4xui64>
  lazy.store %1, %out0 as <[(4):(1)]> : tensor<4xui64>, !lazy.buffer<4xui64>
}

// -----

// custom_random is a call of the runtime's lazy_rt_custom_random with the
// seed, the dtype's number (Float32 = 11), the output's address and size.
// CHECK: func.func private @lazy_rt_custom_random(i64, i32, i64, i64) -> i32
// CHECK-LABEL: func.func @custom_random(
// CHECK: %[[BYTES:.+]] = memref.alloc() : memref<24xi8>
// CHECK: %[[VIEW:.+]] = memref.view %[[BYTES]]
// CHECK-SAME: to memref<6xf32>
// CHECK: %[[PTR:.+]] = memref.extract_aligned_pointer_as_index %[[VIEW]]
// CHECK-DAG: %[[SEED:.+]] = arith.constant 42 : i64
// CHECK-DAG: %[[DTYPE:.+]] = arith.constant 11 : i32
// CHECK-DAG: %[[ADDR:.+]] = arith.index_cast %[[PTR]] : index to i64
// CHECK-DAG: %[[N:.+]] = arith.constant 6 : i64
// CHECK: call @lazy_rt_custom_random(%[[SEED]], %[[DTYPE]], %[[ADDR]], %[[N]])
// CHECK: return %[[VIEW]]
func.func @custom_random() -> !lazy.buffer<6xf32> {
  %b = lazy.alloc : !lazy.buffer<6xf32>
  %r = lazy.ext "custom" outs(%b : !lazy.buffer<6xf32>) {arg = "custom_random", seed = 42 : i64}
  return %r : !lazy.buffer<6xf32>
}

// -----

func.func @custom_item() -> !lazy.buffer<4xf32> {
  %b = lazy.alloc : !lazy.buffer<4xf32>
  // expected-error @+1 {{'lazy.ext' op calls a host function, which has no CPU lowering}}
  %r = lazy.ext "custom" outs(%b : !lazy.buffer<4xf32>) {arg = "fill"}
  return %r : !lazy.buffer<4xf32>
}

// -----

// Without a seed of its own, the k-th custom_random of a function draws
// from the module's lazy.rng_seed + k (tinygrad's counter); an explicit
// seed does not advance it.
module attributes {lazy.rng_seed = 5 : i64} {
  // CHECK-LABEL: func.func @counter(
  // CHECK: arith.constant 6 : i64
  // CHECK: call @lazy_rt_custom_random
  // CHECK: arith.constant 99 : i64
  // CHECK: call @lazy_rt_custom_random
  // CHECK: arith.constant 7 : i64
  // CHECK: call @lazy_rt_custom_random
  func.func @counter() -> (!lazy.buffer<4xf32>, !lazy.buffer<4xf32>, !lazy.buffer<4xf32>) {
    %a = lazy.alloc : !lazy.buffer<4xf32>
    %b = lazy.alloc : !lazy.buffer<4xf32>
    %c = lazy.alloc : !lazy.buffer<4xf32>
    %x = lazy.ext "custom" outs(%a : !lazy.buffer<4xf32>) {arg = "custom_random"}
    %y = lazy.ext "custom" outs(%b : !lazy.buffer<4xf32>) {arg = "custom_random", seed = 99 : i64}
    %z = lazy.ext "custom" outs(%c : !lazy.buffer<4xf32>) {arg = "custom_random"}
    return %x, %y, %z : !lazy.buffer<4xf32>, !lazy.buffer<4xf32>, !lazy.buffer<4xf32>
  }
}

// -----

module attributes {lazy.rng_seed = 9223372036854775807 : i64} {
  func.func @counter_overflow() -> !lazy.buffer<4xf32> {
    %b = lazy.alloc : !lazy.buffer<4xf32>
    // expected-error @+1 {{'lazy.ext' op numbers its custom_random seed past the largest i64 (the module's lazy.rng_seed is too large)}}
    %r = lazy.ext "custom" outs(%b : !lazy.buffer<4xf32>) {arg = "custom_random"}
    return %r : !lazy.buffer<4xf32>
  }
}

// -----

func.func @custom_random_bf16() -> !lazy.buffer<4xbf16> {
  %b = lazy.alloc : !lazy.buffer<4xbf16>
  // expected-error @+1 {{'lazy.ext' op custom_random cannot fill 'bf16' (numpy has no such dtype; tinygrad fails too)}}
  %r = lazy.ext "custom" outs(%b : !lazy.buffer<4xbf16>) {arg = "custom_random", seed = 1 : i64}
  return %r : !lazy.buffer<4xbf16>
}

// -----

// Buffer views of another dtype are views of the same bytes.
// CHECK-LABEL: func.func @offset_view(
// CHECK-SAME: %[[ARG:.+]]: memref<64xi8>) -> (memref<4xf32>, memref<4xi32>)
// CHECK: %[[C8:.+]] = arith.constant 8 : index
// CHECK: %[[V:.+]] = memref.view %[[ARG]][%[[C8]]][] : memref<64xi8> to memref<4xf32>
// CHECK: %[[C0:.+]] = arith.constant 0 : index
// CHECK: %[[W:.+]] = memref.view %[[ARG]][%[[C0]]][] : memref<64xi8> to memref<4xi32>
// CHECK: return %[[V]], %[[W]]
func.func @offset_view(%a: !lazy.buffer<16xf32>) -> (!lazy.buffer<4xf32>, !lazy.buffer<4xsi32>) {
  %v = lazy.suballoc %a offset 8 : !lazy.buffer<16xf32> -> !lazy.buffer<4xf32>
  %r = lazy.ext "view" outs(%v : !lazy.buffer<4xf32>) ins(%a : !lazy.buffer<16xf32>)
  %w = lazy.suballoc %a offset 0 : !lazy.buffer<16xf32> -> !lazy.buffer<4xsi32>
  %q = lazy.ext "view" outs(%w : !lazy.buffer<4xsi32>) ins(%a : !lazy.buffer<16xf32>)
  return %r, %q : !lazy.buffer<4xf32>, !lazy.buffer<4xsi32>
}

// -----

// A buffer view at an offset of a sub-buffer adds up the byte shifts.
// CHECK-LABEL: func.func @offset_view_ok(
// CHECK-SAME: %[[ARG:.+]]: memref<64xi8>) -> memref<2xf32>
// CHECK: %[[C12:.+]] = arith.constant 12 : index
// CHECK: %[[V:.+]] = memref.view %[[ARG]][%[[C12]]][] : memref<64xi8> to memref<2xf32>
// CHECK: return %[[V]]
func.func @offset_view_ok(%a: !lazy.buffer<16xf32>) -> !lazy.buffer<2xf32> {
  %v = lazy.suballoc %a offset 8 : !lazy.buffer<16xf32> -> !lazy.buffer<4xf32>
  %r = lazy.ext "view" outs(%v : !lazy.buffer<4xf32>) ins(%a : !lazy.buffer<16xf32>)
  %u = lazy.suballoc %r offset 4 : !lazy.buffer<4xf32> -> !lazy.buffer<2xf32>
  %t = lazy.ext "view" outs(%u : !lazy.buffer<2xf32>) ins(%r : !lazy.buffer<4xf32>)
  return %t : !lazy.buffer<2xf32>
}

// -----

// EMPTY items are zero-filled on the CPU.
// CHECK-LABEL: func.func @empty_item
// CHECK: %[[RAW:.+]] = memref.alloc() : memref<16xi8>
// CHECK: %[[B:.+]] = memref.view %[[RAW]]
// CHECK: %[[Z:.+]] = arith.constant 0 : i32
// CHECK: scf.for %[[I:.+]] =
// CHECK-NEXT: memref.store %[[Z]], %[[B]][%[[I]]]
// CHECK: return %[[B]]
func.func @empty_item() -> !lazy.buffer<4xsi32> {
  %b = lazy.alloc : !lazy.buffer<4xsi32>
  %r = lazy.ext "empty" outs(%b : !lazy.buffer<4xsi32>)
  return %r : !lazy.buffer<4xsi32>
}

// -----

// An allocation no result lives in is freed before the return.
// CHECK-LABEL: func.func @frees_intermediates(
// CHECK: %[[TMP:.+]] = memref.alloc() : memref<16xi8>
// CHECK: %[[OUT:.+]] = memref.alloc() : memref<16xi8>
// CHECK: memref.dealloc %[[TMP]] : memref<16xi8>
// CHECK-NOT: memref.dealloc
// CHECK: return
lazy.kernel @twice(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<4xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(4):(1)]> : !lazy.buffer<4xf32> -> tensor<4xf32>
  %1 = lazy.add %0, %0 : tensor<4xf32>
  lazy.store %1, %out0 as <[(4):(1)]> : tensor<4xf32>, !lazy.buffer<4xf32>
}
func.func @frees_intermediates(%a: !lazy.buffer<4xf32>) -> !lazy.buffer<4xf32> {
  %t = lazy.alloc : !lazy.buffer<4xf32>
  %o = lazy.alloc : !lazy.buffer<4xf32>
  %r = lazy.launch @twice outs(%t : !lazy.buffer<4xf32>) ins(%a : !lazy.buffer<4xf32>)
  %s = lazy.launch @twice outs(%o : !lazy.buffer<4xf32>) ins(%r : !lazy.buffer<4xf32>)
  return %s : !lazy.buffer<4xf32>
}

// -----

// A copy between buffers of different dtypes has no lowering.
func.func @copy_types(%a: !lazy.buffer<4xf32>) -> !lazy.buffer<4xsi32> {
  %b = lazy.alloc : !lazy.buffer<4xsi32>
  // expected-error @+1 {{'lazy.ext' op copies between buffers of different types, which the CPU lowering does not support}}
  %r = lazy.ext "copy" outs(%b : !lazy.buffer<4xsi32>) ins(%a : !lazy.buffer<4xf32>)
  return %r : !lazy.buffer<4xsi32>
}

// -----

// A buffer made by an op the lowering does not handle is an error, not a
// crash.
func.func @unknown_buffer(%x: i64) -> !lazy.buffer<4xf32> {
  %b = builtin.unrealized_conversion_cast %x : i64 to !lazy.buffer<4xf32>
  %c = lazy.alloc : !lazy.buffer<4xf32>
  // expected-error @+1 {{'lazy.ext' op uses a buffer the CPU lowering does not know (defined by an unsupported op)}}
  %r = lazy.ext "copy" outs(%c : !lazy.buffer<4xf32>) ins(%b : !lazy.buffer<4xf32>)
  return %r : !lazy.buffer<4xf32>
}

// -----

// A buffer that the schedule reads and nothing in it writes (a lazy.seen
// value, which an earlier schedule produces) cannot be given its contents.
lazy.kernel @seen_k0(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<4xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(4):(1)]> : !lazy.buffer<4xf32> -> tensor<4xf32>
  lazy.store %0, %out0 as <[(4):(1)]> : tensor<4xf32>, !lazy.buffer<4xf32>
}
func.func @seen() -> !lazy.buffer<4xf32> {
  %o = lazy.alloc : !lazy.buffer<4xf32>
  // expected-error @+1 {{'lazy.alloc' op is read by the schedule but no item of it writes it (a value an earlier schedule produces, marked lazy.seen): the CPU lowering cannot pass its contents in}}
  %s = lazy.alloc {lazy.external} : !lazy.buffer<4xf32>
  %r = lazy.launch @seen_k0 outs(%o : !lazy.buffer<4xf32>) ins(%s : !lazy.buffer<4xf32>)
  return %r : !lazy.buffer<4xf32>
}

// -----

// Shifts are defined for every count, as the reference interpreter defines
// them: a count outside [0, bits) (a negative one compares as a large
// unsigned) gives 0, or the sign for an arithmetic right shift, where
// arith's shifts would give poison.
// CHECK-LABEL: func.func @shifts(
// CHECK: %[[BITS:.+]] = arith.constant 64 : i64
// CHECK: %[[IN:.+]] = arith.cmpi ult, %[[COUNT:.+]], %[[BITS]] : i64
// CHECK: %[[SHL:.+]] = arith.shli %[[A:.+]], %[[COUNT]] : i64
// CHECK: %[[ZERO:.+]] = arith.constant 0 : i64
// CHECK: arith.select %[[IN]], %[[SHL]], %[[ZERO]] : i64
// CHECK: %[[IN2:.+]] = arith.cmpi ult
// CHECK: %[[SHR:.+]] = arith.shrsi
// CHECK: %[[SIGN:.+]] = arith.shrsi %{{.+}}, %{{.+}} : i64
// CHECK: arith.select %[[IN2]], %[[SHR]], %[[SIGN]] : i64
// CHECK: %[[IN3:.+]] = arith.cmpi ult
// CHECK: %[[SHRU:.+]] = arith.shrui
// CHECK: arith.select %[[IN3]], %[[SHRU]], %{{.+}} : i32
lazy.kernel @shifts(%out0: !lazy.buffer<4xsi64>, %out1: !lazy.buffer<4xsi64>, %out2: !lazy.buffer<4xui32>, %in0: !lazy.buffer<4xsi64>, %in1: !lazy.buffer<4xsi64>, %in2: !lazy.buffer<4xui32>) attributes {num_outputs = 3 : i64} {
  %0 = lazy.load %in0 as <[(4):(1)]> : !lazy.buffer<4xsi64> -> tensor<4xsi64>
  %1 = lazy.load %in1 as <[(4):(1)]> : !lazy.buffer<4xsi64> -> tensor<4xsi64>
  %2 = lazy.shl %0, %1 : tensor<4xsi64>
  lazy.store %2, %out0 as <[(4):(1)]> : tensor<4xsi64>, !lazy.buffer<4xsi64>
  %3 = lazy.shr %0, %1 : tensor<4xsi64>
  lazy.store %3, %out1 as <[(4):(1)]> : tensor<4xsi64>, !lazy.buffer<4xsi64>
  %4 = lazy.load %in2 as <[(4):(1)]> : !lazy.buffer<4xui32> -> tensor<4xui32>
  %5 = lazy.shr %4, %4 : tensor<4xui32>
  lazy.store %5, %out2 as <[(4):(1)]> : tensor<4xui32>, !lazy.buffer<4xui32>
}

// -----

// double -> bfloat16 rounds once: to f32 *to odd* (the nearest f32, moved
// one step to the odd neighbour on the double's side when inexact and
// even), then to bfloat16. A plain truncf would need a runtime function the
// host lacks (__truncdfbf2), and two roundings to nearest can create a tie.
// CHECK-LABEL: func.func @f64_to_bf16(
// CHECK: %[[NEAR:.+]] = arith.truncf %[[X:.+]] : f64 to f32
// CHECK: %[[BACK:.+]] = arith.extf %[[NEAR]] : f32 to f64
// CHECK: %[[NE:.+]] = arith.cmpf une, %[[BACK]], %[[X]] : f64
// CHECK: %[[ORD:.+]] = arith.cmpf ord, %[[X]], %[[X]] : f64
// CHECK: %[[INEXACT:.+]] = arith.andi %[[NE]], %[[ORD]] : i1
// CHECK: %[[BITS:.+]] = arith.bitcast %[[NEAR]] : f32 to i32
// CHECK: %[[LSB:.+]] = arith.andi %[[BITS]], %{{.+}} : i32
// CHECK: %[[EVEN:.+]] = arith.cmpi eq, %[[LSB]], %{{.+}} : i32
// CHECK: %[[POS:.+]] = arith.cmpf ogt, %[[X]], %{{.+}} : f64
// CHECK: %[[ABOVE:.+]] = arith.cmpf ogt, %[[BACK]], %[[X]] : f64
// CHECK: %[[BELOW:.+]] = arith.cmpf olt, %[[BACK]], %[[X]] : f64
// CHECK: %[[OUT:.+]] = arith.select %[[POS]], %[[ABOVE]], %[[BELOW]] : i1
// CHECK: %[[DOWN:.+]] = arith.subi %[[BITS]], %{{.+}} : i32
// CHECK: %[[UP:.+]] = arith.addi %[[BITS]], %{{.+}} : i32
// CHECK: %[[STEP:.+]] = arith.select %[[OUT]], %[[DOWN]], %[[UP]] : i32
// CHECK: %[[ADJUST:.+]] = arith.andi %[[INEXACT]], %[[EVEN]] : i1
// CHECK: %[[ODD:.+]] = arith.select %[[ADJUST]], %[[STEP]], %[[BITS]] : i32
// CHECK: %[[F:.+]] = arith.bitcast %[[ODD]] : i32 to f32
// CHECK: arith.truncf %[[F]] : f32 to bf16
lazy.kernel @f64_to_bf16(%out0: !lazy.buffer<4xbf16>, %in0: !lazy.buffer<4xf64>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(4):(1)]> : !lazy.buffer<4xf64> -> tensor<4xf64>
  %1 = lazy.cast %0 : tensor<4xf64> -> tensor<4xbf16>
  lazy.store %1, %out0 as <[(4):(1)]> : tensor<4xbf16>, !lazy.buffer<4xbf16>
}

// -----

// A float max: IEEE maximum (NaNs propagate) in any order, zeros' signs
// ignored (LLVM's intrinsic for f32, which vectorizes: arith-expand would
// turn arith.maximumf into compares); where that gives a NaN or a zero,
// the in-order loop (acc > x ? acc : x) runs again and gives the result.
// CHECK-LABEL: func.func @float_max(
// CHECK: %[[INIT:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[FAST:.+]] = scf.for {{.*}} iter_args(%[[ACC:.+]] = %[[INIT]]) -> (f32)
// CHECK: %[[X:.+]] = memref.load
// CHECK: llvm.intr.maximum(%[[ACC]], %[[X]]) {fastmathFlags = #llvm.fastmath<nsz>} : (f32, f32) -> f32
// CHECK: %[[NAN:.+]] = arith.cmpf uno, %[[FAST]], %[[FAST]] : f32
// CHECK: %[[ZERO:.+]] = arith.cmpf oeq, %[[FAST]], %{{.+}} : f32
// CHECK: %[[SPECIAL:.+]] = arith.ori %[[NAN]], %[[ZERO]] : i1
// CHECK: %[[MAX:.+]] = scf.if %[[SPECIAL]] -> (f32) {
// CHECK: %[[EXACT:.+]] = scf.for {{.*}} -> (f32)
// CHECK: arith.cmpf ogt
// CHECK: arith.select
// The in-order loop seldom runs: LLVM leaves it as it is (no vectorizing
// or unrolling to compile).
// CHECK: } {loop_annotation = #[[COLD:.+]]}
// CHECK: scf.yield %[[EXACT]] : f32
// CHECK: } else {
// CHECK: scf.yield %[[FAST]] : f32
// CHECK: memref.store %[[MAX]]
lazy.kernel @float_max(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<16xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(4, 4):(4, 1)]> : !lazy.buffer<16xf32> -> tensor<4x4xf32>
  %1 = lazy.reduce_max %0 axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  lazy.store %1, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
}

// -----

// A reduce's innermost loop of 1024 or more iterations: LLVM vectorizes
// and interleaves it 8 times but does not unroll it after, nor the loops
// around it (a max's vector loop, unrolled, took LLVM 50 ms to compile).
// The 4-long reduces above keep LLVM's own choices.
// CHECK-DAG: #[[EIGHT:.+]] = #llvm.loop_interleave<count = 8 : i32>
// CHECK-DAG: #[[NOUNROLL:.+]] = #llvm.loop_unroll<disable = true>
// CHECK-DAG: #[[ROLLED:.+]] = #llvm.loop_annotation<interleave = #[[EIGHT]], unroll = #[[NOUNROLL]]>
// CHECK-LABEL: func.func @long_sum(
// CHECK: scf.for {{.*}} to %c2048 {{.*}} -> (f32) {
// CHECK: arith.addf {{.*}} fastmath<reassoc>
// CHECK: } {loop_annotation = #[[ROLLED]]}
lazy.kernel @long_sum(%out0: !lazy.buffer<2xf32>, %in0: !lazy.buffer<4096xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(2, 2048):(2048, 1)]> : !lazy.buffer<4096xf32> -> tensor<2x2048xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<2x2048xf32> -> tensor<2x1xf32>
  lazy.store %1, %out0 as <[(2, 1):(1, 0)]> : tensor<2x1xf32>, !lazy.buffer<2xf32>
}

// -----

// CHECK-DAG: #[[COLD:.+]] = #llvm.loop_annotation<disableNonforced = true>
// CHECK-DAG: #[[EIGHT:.+]] = #llvm.loop_interleave<count = 8 : i32>
// CHECK-DAG: #[[NOUNROLL:.+]] = #llvm.loop_unroll<disable = true>
// CHECK-DAG: #[[ROLLED:.+]] = #llvm.loop_annotation<interleave = #[[EIGHT]], unroll = #[[NOUNROLL]]>
// CHECK-DAG: #[[OUTER:.+]] = #llvm.loop_annotation<unroll = #[[NOUNROLL]]>
// CHECK-LABEL: func.func @nested_max(
// CHECK: scf.for {{.*}} to %c2 {{.*}} -> (f32) {
// CHECK: scf.for {{.*}} to %c2048 {{.*}} -> (f32) {
// CHECK: llvm.intr.maximum
// CHECK: } {loop_annotation = #[[ROLLED]]}
// CHECK: } {loop_annotation = #[[OUTER]]}
// CHECK: scf.if
// CHECK: } {loop_annotation = #[[COLD]]}
// CHECK: } {loop_annotation = #[[COLD]]}
lazy.kernel @nested_max(%out0: !lazy.buffer<1xf32>, %in0: !lazy.buffer<4096xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(1, 2, 2048):(0, 2048, 1)]> : !lazy.buffer<4096xf32> -> tensor<1x2x2048xf32>
  %1 = lazy.reduce_max %0 axes [1, 2] : tensor<1x2x2048xf32> -> tensor<1x1x1xf32>
  lazy.store %1, %out0 as <[(1, 1, 1):(0, 0, 0)]> : tensor<1x1x1xf32>, !lazy.buffer<1xf32>
}

// -----

// A max nested in a sum's loop keeps its annotations: its rerun stays cold
// when the sum's loop nest is annotated around it.
// CHECK-DAG: #[[COLD:.+]] = #llvm.loop_annotation<disableNonforced = true>
// CHECK-DAG: #[[EIGHT:.+]] = #llvm.loop_interleave<count = 8 : i32>
// CHECK-DAG: #[[NOUNROLL:.+]] = #llvm.loop_unroll<disable = true>
// CHECK-DAG: #[[ROLLED:.+]] = #llvm.loop_annotation<interleave = #[[EIGHT]], unroll = #[[NOUNROLL]]>
// CHECK-DAG: #[[OUTER:.+]] = #llvm.loop_annotation<unroll = #[[NOUNROLL]]>
// CHECK-LABEL: func.func @sum_of_maxes(
// CHECK: scf.for {{.*}} to %c64 {{.*}} -> (f32) {
// CHECK: scf.for {{.*}} to %c1024 {{.*}} -> (f32) {
// CHECK: llvm.intr.maximum
// CHECK: } {loop_annotation = #[[ROLLED]]}
// CHECK: scf.if
// CHECK: arith.cmpf ogt
// CHECK: } {loop_annotation = #[[COLD]]}
// CHECK: } {loop_annotation = #[[OUTER]]}
lazy.kernel @sum_of_maxes(%out0: !lazy.buffer<1xf32>, %in0: !lazy.buffer<65536xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(64, 1024):(1024, 1)]> : !lazy.buffer<65536xf32> -> tensor<64x1024xf32>
  %1 = lazy.reduce_max %0 axes [1] : tensor<64x1024xf32> -> tensor<64x1xf32>
  %2 = lazy.reduce_sum %1 axes [0] : tensor<64x1xf32> -> tensor<1x1xf32>
  lazy.store %2, %out0 as <[(1, 1):(0, 0)]> : tensor<1x1xf32>, !lazy.buffer<1xf32>
}

// -----

// Other float dtypes take arith.maximumf (arith-expand makes it compares
// and selects, exact and slower).
// CHECK-LABEL: func.func @half_max(
// CHECK: scf.for {{.*}} -> (f16)
// CHECK: arith.maximumf %{{.+}}, %{{.+}} fastmath<nsz> : f16
// CHECK: arith.cmpf uno
// CHECK: scf.if
lazy.kernel @half_max(%out0: !lazy.buffer<4xf16>, %in0: !lazy.buffer<16xf16>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(4, 4):(4, 1)]> : !lazy.buffer<16xf16> -> tensor<4x4xf16>
  %1 = lazy.reduce_max %0 axes [1] : tensor<4x4xf16> -> tensor<4x1xf16>
  lazy.store %1, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf16>, !lazy.buffer<4xf16>
}

// -----

// A 2-D store: the parallel loop covers the outer dim and an scf.for the
// innermost, which LLVM vectorizes (OpenMP would collapse a 2-D parallel
// loop into one whose indices come back by division and remainder).
// CHECK-LABEL: func.func @rows(
// CHECK: scf.parallel (%[[R:.+]]) = (%{{.+}}) to (%{{.+}}) step (%{{.+}}) {
// CHECK-NEXT: scf.for %[[C:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK: memref.store
lazy.kernel @rows(%out0: !lazy.buffer<32xf32>, %in0: !lazy.buffer<32xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(4, 8):(8, 1)]> : !lazy.buffer<32xf32> -> tensor<4x8xf32>
  %1 = lazy.add %0, %0 : tensor<4x8xf32>
  lazy.store %1, %out0 as <[(4, 8):(8, 1)]> : tensor<4x8xf32>, !lazy.buffer<32xf32>
}

// -----

// With no outer dim of more than one element, one parallel loop over all.
// CHECK-LABEL: func.func @one_row(
// CHECK: scf.parallel (%{{.+}}, %{{.+}}) =
// CHECK-NOT: scf.for
// CHECK: return
lazy.kernel @one_row(%out0: !lazy.buffer<8xf32>, %in0: !lazy.buffer<8xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(1, 8):(0, 1)]> : !lazy.buffer<8xf32> -> tensor<1x8xf32>
  %1 = lazy.add %0, %0 : tensor<1x8xf32>
  lazy.store %1, %out0 as <[(1, 8):(0, 1)]> : tensor<1x8xf32>, !lazy.buffer<8xf32>
}

// -----

// A row kernel (fusion=aggressive's softmax): the rows in parallel; in
// each, the max, then the sum that reads it, as sequential loops; then the
// row's elements in a loop reading both.
// CHECK-LABEL: func.func @row_softmax(
// CHECK: scf.parallel (%[[ROW:.+]]) =
// CHECK: %[[FASTMAX:.+]] = scf.for {{.*}} -> (f32)
// CHECK: %[[MAX:.+]] = scf.if
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[SUM:.+]] = scf.for {{.*}} iter_args(%{{.+}} = %[[ZERO]]) -> (f32)
// CHECK: arith.negf %[[MAX]]
// CHECK: scf.yield
// CHECK: scf.for %[[COL:.+]] =
// CHECK: arith.negf %[[MAX]]
// CHECK: arith.divf %{{.+}}, %[[SUM]]
// CHECK: memref.store
// CHECK: scf.reduce
lazy.kernel @row_softmax(%out0: !lazy.buffer<32xf32>, %in0: !lazy.buffer<32xf32>) attributes {opts = [#lazy.opt<row, 0, 64>], num_outputs = 1 : i64} {
  %x = lazy.load %in0 as <[(4, 8):(8, 1)]> : !lazy.buffer<32xf32> -> tensor<4x8xf32>
  %m = lazy.reduce_max %x axes [1] : tensor<4x8xf32> -> tensor<4x1xf32>
  %mv = lazy.view %m as <[(4, 8):(1, 0)]> : tensor<4x1xf32> -> tensor<4x8xf32>
  %n = lazy.neg %mv : tensor<4x8xf32>
  %d = lazy.add %x, %n : tensor<4x8xf32>
  %e = lazy.exp2 %d : tensor<4x8xf32>
  %s = lazy.reduce_sum %e axes [1] : tensor<4x8xf32> -> tensor<4x1xf32>
  %sv = lazy.view %s as <[(4, 8):(1, 0)]> : tensor<4x1xf32> -> tensor<4x8xf32>
  %r = lazy.recip %sv : tensor<4x8xf32>
  %o = lazy.mul %e, %r : tensor<4x8xf32>
  lazy.store %o, %out0 as <[(4, 8):(8, 1)]> : tensor<4x8xf32>, !lazy.buffer<32xf32>
}

// -----

// A row kernel whose rows are a multiple of 16 f32 (64 bytes): its
// elements are vectors of 16 lanes, the loop stepping by 16; the row's
// max and sum stay scalars, computed once per row, and enter the vector
// arithmetic broadcast.
// CHECK-LABEL: func.func @row_softmax_lanes(
// CHECK: scf.parallel (%[[ROW:.+]]) =
// CHECK: %[[FASTMAX:.+]] = scf.for {{.*}} -> (f32)
// CHECK: %[[SUM:.+]] = scf.for {{.*}} -> (f32)
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %c16{{[_0-9]*}} {
// CHECK: %[[X:.+]] = vector.load %arg1[%{{.+}}] : memref<64xf32, {{.+}}>, vector<16xf32>
// CHECK: vector.broadcast %{{.+}} : f32 to vector<16xf32>
// CHECK: math.exp2 %{{.+}} : vector<16xf32>
// CHECK: vector.store %{{.+}}, %arg0[%{{.+}}] : memref<64xf32, {{.+}}>, vector<16xf32>
// CHECK-NOT: memref.store
// CHECK: scf.reduce
lazy.kernel @row_softmax_lanes(%out0: !lazy.buffer<64xf32>, %in0: !lazy.buffer<64xf32>) attributes {opts = [#lazy.opt<row, 0, 64>], num_outputs = 1 : i64} {
  %x = lazy.load %in0 as <[(4, 16):(16, 1)]> : !lazy.buffer<64xf32> -> tensor<4x16xf32>
  %m = lazy.reduce_max %x axes [1] : tensor<4x16xf32> -> tensor<4x1xf32>
  %mv = lazy.view %m as <[(4, 16):(1, 0)]> : tensor<4x1xf32> -> tensor<4x16xf32>
  %n = lazy.neg %mv : tensor<4x16xf32>
  %d = lazy.add %x, %n : tensor<4x16xf32>
  %e = lazy.exp2 %d : tensor<4x16xf32>
  %s = lazy.reduce_sum %e axes [1] : tensor<4x16xf32> -> tensor<4x1xf32>
  %sv = lazy.view %s as <[(4, 16):(1, 0)]> : tensor<4x1xf32> -> tensor<4x16xf32>
  %r = lazy.recip %sv : tensor<4x16xf32>
  %o = lazy.mul %e, %r : tensor<4x16xf32>
  lazy.store %o, %out0 as <[(4, 16):(16, 1)]> : tensor<4x16xf32>, !lazy.buffer<64xf32>
}

// -----

// A row value read only inside a reduce (a variance: the sum of squares
// about the row's mean) is computed before that reduce's loop, once per
// output element, not once per reduced element.
// CHECK-LABEL: func.func @hoisted_mean(
// CHECK: scf.parallel
// CHECK: %[[S:.+]] = scf.for {{.*}} -> (f32)
// CHECK: %[[MEAN:.+]] = arith.mulf %[[S]]
// CHECK: scf.for {{.*}} -> (f32)
// CHECK-NOT: scf.for
// CHECK: arith.negf %[[MEAN]]
// CHECK: memref.store
lazy.kernel @hoisted_mean(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<32xf32>) attributes {opts = [#lazy.opt<row, 0, 1>], num_outputs = 1 : i64} {
  %x = lazy.load %in0 as <[(4, 8):(8, 1)]> : !lazy.buffer<32xf32> -> tensor<4x8xf32>
  %s = lazy.reduce_sum %x axes [1] : tensor<4x8xf32> -> tensor<4x1xf32>
  %c = lazy.const 0.125 : tensor<f32>
  %cv = lazy.view %c as <[(4, 1):(0, 0)]> : tensor<f32> -> tensor<4x1xf32>
  %mean = lazy.mul %s, %cv : tensor<4x1xf32>
  %mv = lazy.view %mean as <[(4, 8):(1, 0)]> : tensor<4x1xf32> -> tensor<4x8xf32>
  %n = lazy.neg %mv : tensor<4x8xf32>
  %d = lazy.add %x, %n : tensor<4x8xf32>
  %dd = lazy.mul %d, %d : tensor<4x8xf32>
  %v = lazy.reduce_sum %dd axes [1] : tensor<4x8xf32> -> tensor<4x1xf32>
  lazy.store %v, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
}
