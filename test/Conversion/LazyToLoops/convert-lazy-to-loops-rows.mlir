// RUN: lazy-opt %s --convert-lazy-to-loops --split-input-file | FileCheck %s
// RUN: lazy-opt %s --convert-lazy-to-loops=nontemporal-min-bytes=256 --split-input-file | FileCheck %s --check-prefix=NT
// RUN: sed 's/#lazy.opt<row, 0, 64>/#lazy.opt<row, 0, 32>/' %s | lazy-opt --convert-lazy-to-loops --split-input-file | FileCheck %s --check-prefix=AVX2
// RUN: sed 's/opts = \[#lazy.opt<row, 0, 64>\], //' %s | lazy-opt --split-input-file "--lazy-optimize-kernels=target=generic vector-bits=512" | FileCheck %s --check-prefix=PLAN
// PLAN: lazy.kernel @softmax_rows({{.*}}opts = [#lazy.opt<row, 0, 64>]
// PLAN: lazy.kernel @one_reduce_rows({{.*}}opts = [#lazy.opt<row, 0, 64>]
// PLAN: lazy.kernel @short_rows({{.*}}opts = [#lazy.opt<row, 0, 64>]
// PLAN: lazy.kernel @wide_rows({{.*}}opts = [#lazy.opt<row, 0, 64>]
// PLAN: lazy.kernel @other_shape_row_value({{.*}}opts = [#lazy.opt<row, 0, 64>]
// PLAN: lazy.kernel @masked_row_value({{.*}}opts = [#lazy.opt<row, 0, 64>]
// Row kernels in lanes (convert-lazy-to-loops' rule 7): a row of one
// inner axis that its plan's row step's vector bytes (64: what
// lazy-optimize-kernels gives 512-bit vectors, PLAN) of lanes divide runs its row values' reduces
// along that axis as vectors too, prefetches the next row in its second
// pass, and keeps a dear value more than one pass computes in a scratch
// row.

// A softmax over rows of 128 f32. The max: four partial vectors of 16
// lanes (an IEEE maximum each), across lanes at the end, the in-order
// rerun where that gives a NaN or a zero; no prefetch in the first pass.
// The sum, the second pass: each load also prefetches its element in the
// next row (128 further, or the same where the row is the last: the
// offset is chosen once per row), and the exponentials go to a scratch
// row on the stack (an alloca scope per row: rows run on several
// threads). The elements load them instead of computing exp2 again.
// CHECK-LABEL: func.func @softmax_rows(
// CHECK: scf.parallel (%[[ROW:.+]]) =
// CHECK: memref.alloca_scope {
// CHECK: %[[SCRATCH:.+]] = memref.alloca() {alignment = 64 : i64} : memref<128xf32>
// CHECK: %[[NEXT:.+]] = arith.cmpi slt, %[[ROW]], %c3{{.*}} : index
// CHECK: scf.for %{{.+}} = %{{.+}} to %c128{{.*}} step %c64{{.*}} iter_args({{.+}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK-NOT: memref.prefetch
// CHECK-COUNT-4: llvm.intr.maximum({{.+}}) {fastmathFlags = #llvm.fastmath<nsz>} : (vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK: scf.yield
// CHECK: %[[FAST:.+]] = vector.reduction <maximumf>, %{{.+}} fastmath<nsz> : vector<16xf32> into f32
// CHECK: arith.cmpf uno, %[[FAST]], %[[FAST]]
// CHECK: scf.if
// CHECK: scf.for {{.+}} -> (f32)
// CHECK: arith.cmpf ogt
// CHECK: scf.for %{{.+}} = %{{.+}} to %c128{{.*}} step %c64{{.*}} iter_args({{.+}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK: %[[OFF:.+]] = arith.select %[[NEXT]], %c128{{.*}}, %c0{{.*}} : index
// CHECK: %[[AHEAD:.+]] = arith.addi %[[AT:.+]], %[[OFF]] : index
// CHECK: memref.prefetch %arg1[%[[AHEAD]]], read, locality<3>, data
// CHECK: %[[X:.+]] = vector.load %arg1[%[[AT]]] : memref<512xf32, {{.+}}>, vector<16xf32>
// CHECK: %[[E:.+]] = math.exp2 %{{.+}} : vector<16xf32>
// CHECK: vector.store %[[E]], %[[SCRATCH]][%{{.+}}] : memref<128xf32>, vector<16xf32>
// CHECK: arith.addf %{{.+}}, %[[E]] : vector<16xf32>
// CHECK-COUNT-3: memref.prefetch
// CHECK: scf.yield
// CHECK: vector.reduction <add>, %{{.+}} fastmath<reassoc> : vector<16xf32> into f32
// CHECK: scf.for %[[I:.+]] = %{{.+}} to %c128{{.*}} step %c16
// CHECK-NOT: math.exp2
// CHECK-NOT: memref.prefetch
// CHECK: vector.load %[[SCRATCH]][%[[I]]] : memref<128xf32>, vector<16xf32>
// CHECK-NOT: math.exp2
// CHECK: vector.store %{{.+}}, %arg0[%{{.+}}] : memref<512xf32, {{.+}}>, vector<16xf32>
// CHECK: scf.reduce

// An output of at least nontemporal-min-bytes: the kernel twice, under a
// test of the output's cache-line alignment; where it holds, the
// elements' stores are aligned and nontemporal.
// NT-LABEL: func.func @softmax_rows(
// NT: %[[ALIGNED:.+]] = arith.cmpi eq, %{{.+}}, %c0
// NT: scf.if %[[ALIGNED]] {
// NT: vector.store %{{.+}}, %arg0[%{{.+}}] {alignment = 64 : i64, nontemporal = true}
// NT: } else {
// NT-NOT: nontemporal
// NT: vector.store %{{.+}}, %arg0[%{{.+}}] : memref<512xf32
// Row vectors of 32 bytes (lazy-to-cpu on an AVX2 host): lanes of 8 f32
// in every pass.
// AVX2-LABEL: func.func @softmax_rows(
// AVX2: memref.alloca() {alignment = 64 : i64} : memref<128xf32>
// AVX2: scf.for {{.+}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// AVX2-NOT: vector<16xf32>
// AVX2: vector.reduction <maximumf>, %{{.+}} : vector<8xf32> into f32
// AVX2: scf.for %{{.+}} step %c8
// AVX2: vector.store %{{.+}} : memref<512xf32, {{.+}}>, vector<8xf32>
lazy.kernel @softmax_rows(%out0: !lazy.buffer<512xf32>, %in0: !lazy.buffer<512xf32>) attributes {opts = [#lazy.opt<row, 0, 64>], num_outputs = 1 : i64} {
  %x = lazy.load %in0 as <[(4, 128):(128, 1)]> : !lazy.buffer<512xf32> -> tensor<4x128xf32>
  %m = lazy.reduce_max %x axes [1] : tensor<4x128xf32> -> tensor<4x1xf32>
  %mv = lazy.view %m as <[(4, 128):(1, 0)]> : tensor<4x1xf32> -> tensor<4x128xf32>
  %n = lazy.neg %mv : tensor<4x128xf32>
  %d = lazy.add %x, %n : tensor<4x128xf32>
  %e = lazy.exp2 %d : tensor<4x128xf32>
  %s = lazy.reduce_sum %e axes [1] : tensor<4x128xf32> -> tensor<4x1xf32>
  %sv = lazy.view %s as <[(4, 128):(1, 0)]> : tensor<4x1xf32> -> tensor<4x128xf32>
  %r = lazy.recip %sv : tensor<4x128xf32>
  %o = lazy.mul %e, %r : tensor<4x128xf32>
  lazy.store %o, %out0 as <[(4, 128):(128, 1)]> : tensor<4x128xf32>, !lazy.buffer<512xf32>
}

// -----

// One row reduce: the elements are the second pass and prefetch the next
// row. Nothing dear is computed twice: no scratch row.
// CHECK-LABEL: func.func @one_reduce_rows(
// CHECK-NOT: memref.alloca
// CHECK: %[[NEXT:.+]] = arith.cmpi slt
// CHECK: scf.for {{.+}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK-NOT: memref.prefetch
// CHECK: scf.yield
// CHECK: vector.reduction <add>
// CHECK: scf.for %{{.+}} step %c16
// CHECK: arith.select %[[NEXT]], %c128{{.*}}, %c0{{.*}} : index
// CHECK: memref.prefetch %arg1
// CHECK: vector.store
lazy.kernel @one_reduce_rows(%out0: !lazy.buffer<512xf32>, %in0: !lazy.buffer<512xf32>) attributes {opts = [#lazy.opt<row, 0, 64>], num_outputs = 1 : i64} {
  %x = lazy.load %in0 as <[(4, 128):(128, 1)]> : !lazy.buffer<512xf32> -> tensor<4x128xf32>
  %s = lazy.reduce_sum %x axes [1] : tensor<4x128xf32> -> tensor<4x1xf32>
  %sv = lazy.view %s as <[(4, 128):(1, 0)]> : tensor<4x1xf32> -> tensor<4x128xf32>
  %r = lazy.recip %sv : tensor<4x128xf32>
  %o = lazy.mul %x, %r : tensor<4x128xf32>
  lazy.store %o, %out0 as <[(4, 128):(128, 1)]> : tensor<4x128xf32>, !lazy.buffer<512xf32>
}

// -----

// Rows of 32: a float sum of fewer than 64 elements keeps index order, a
// scalar loop (and so the exponentials are not kept: only a reduce in
// lanes fills a scratch row); the max still runs in lanes (its result
// does not depend on the order). A row of 16 lanes takes one partial
// vector at a time where four or two do not divide it.
// CHECK-LABEL: func.func @short_rows(
// CHECK-NOT: memref.alloca
// CHECK: scf.for {{.+}} step %c32{{.*}} iter_args({{.+}}) -> (vector<16xf32>, vector<16xf32>) {
// CHECK: vector.reduction <maximumf>
// CHECK: scf.for {{.+}} -> (f32) {
// CHECK: memref.load
// CHECK: math.exp2 %{{.+}} : f32
// CHECK: arith.addf %{{.+}} : f32
// CHECK: scf.for %{{.+}} step %c16
// CHECK: math.exp2 %{{.+}} : vector<16xf32>
lazy.kernel @short_rows(%out0: !lazy.buffer<128xf32>, %in0: !lazy.buffer<128xf32>) attributes {opts = [#lazy.opt<row, 0, 64>], num_outputs = 1 : i64} {
  %x = lazy.load %in0 as <[(4, 32):(32, 1)]> : !lazy.buffer<128xf32> -> tensor<4x32xf32>
  %m = lazy.reduce_max %x axes [1] : tensor<4x32xf32> -> tensor<4x1xf32>
  %mv = lazy.view %m as <[(4, 32):(1, 0)]> : tensor<4x1xf32> -> tensor<4x32xf32>
  %n = lazy.neg %mv : tensor<4x32xf32>
  %d = lazy.add %x, %n : tensor<4x32xf32>
  %e = lazy.exp2 %d : tensor<4x32xf32>
  %s = lazy.reduce_sum %e axes [1] : tensor<4x32xf32> -> tensor<4x1xf32>
  %sv = lazy.view %s as <[(4, 32):(1, 0)]> : tensor<4x1xf32> -> tensor<4x32xf32>
  %r = lazy.recip %sv : tensor<4x32xf32>
  %o = lazy.mul %e, %r : tensor<4x32xf32>
  lazy.store %o, %out0 as <[(4, 32):(32, 1)]> : tensor<4x32xf32>, !lazy.buffer<128xf32>
}

// -----

// Rows of 8192 f32 (32 KiB): a scratch row would not fit beside the row
// in a first-level cache (at most 16 KiB of scratch): the elements compute
// exp2 again.
// CHECK-LABEL: func.func @wide_rows(
// CHECK-NOT: memref.alloca
// CHECK: scf.for {{.+}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK: math.exp2 %{{.+}} : vector<16xf32>
// CHECK: vector.reduction <add>
// CHECK: scf.for %{{.+}} step %c16
// CHECK: math.exp2 %{{.+}} : vector<16xf32>
lazy.kernel @wide_rows(%out0: !lazy.buffer<16384xf32>, %in0: !lazy.buffer<16384xf32>) attributes {opts = [#lazy.opt<row, 0, 64>], num_outputs = 1 : i64} {
  %x = lazy.load %in0 as <[(2, 8192):(8192, 1)]> : !lazy.buffer<16384xf32> -> tensor<2x8192xf32>
  %e = lazy.exp2 %x : tensor<2x8192xf32>
  %s = lazy.reduce_sum %e axes [1] : tensor<2x8192xf32> -> tensor<2x1xf32>
  %sv = lazy.view %s as <[(2, 8192):(1, 0)]> : tensor<2x1xf32> -> tensor<2x8192xf32>
  %o = lazy.mul %e, %sv : tensor<2x8192xf32>
  lazy.store %o, %out0 as <[(2, 8192):(8192, 1)]> : tensor<2x8192xf32>, !lazy.buffer<16384xf32>
}

// -----

// A row value reduced from a tensor of another shape (8x128 viewed as
// 2x2x2x128): its reduce's index space is not the stores', so its loads
// prefetch nothing (the stores' innermost row axis means nothing there).
// CHECK-LABEL: func.func @other_shape_row_value(
// CHECK-NOT: memref.prefetch %arg2
// CHECK: return
lazy.kernel @other_shape_row_value(%out0: !lazy.buffer<1024xf32>, %in0: !lazy.buffer<1024xf32>, %in1: !lazy.buffer<1024xf32>) attributes {opts = [#lazy.opt<row, 0, 64>], num_outputs = 1 : i64} {
  %x = lazy.load %in0 as <[(2, 2, 2, 128):(512, 256, 128, 1)]> : !lazy.buffer<1024xf32> -> tensor<2x2x2x128xf32>
  %m = lazy.reduce_max %x axes [3] : tensor<2x2x2x128xf32> -> tensor<2x2x2x1xf32>
  %mv = lazy.view %m as <[(2, 2, 2, 128):(4, 2, 1, 0)]> : tensor<2x2x2x1xf32> -> tensor<2x2x2x128xf32>
  %y = lazy.load %in1 as <[(8, 128):(128, 1)]> : !lazy.buffer<1024xf32> -> tensor<8x128xf32>
  %s = lazy.reduce_sum %y axes [1] : tensor<8x128xf32> -> tensor<8x1xf32>
  %sv = lazy.view %s as <[(2, 2, 2, 128):(4, 2, 1, 0)]> : tensor<8x1xf32> -> tensor<2x2x2x128xf32>
  %a = lazy.add %x, %mv : tensor<2x2x2x128xf32>
  %o = lazy.mul %a, %sv : tensor<2x2x2x128xf32>
  lazy.store %o, %out0 as <[(2, 2, 2, 128):(512, 256, 128, 1)]> : tensor<2x2x2x128xf32>, !lazy.buffer<1024xf32>
}

// -----

// A row value read inside another row reduce through a view masked along
// the reduced axis: it is not hoisted before the loop, and lane mode has
// no per-element computed view, so that reduce keeps the scalar loop (in
// which the masked view's reduce is computed per element, as before).
// CHECK-LABEL: func.func @masked_row_value(
// CHECK: scf.for {{.+}} -> (f32) {
// CHECK: scf.for {{.+}} -> (f32) {
// CHECK-NOT: vector.reduction
// CHECK: scf.for %{{.+}} step %c16
lazy.kernel @masked_row_value(%out0: !lazy.buffer<512xf32>, %in0: !lazy.buffer<512xf32>) attributes {opts = [#lazy.opt<row, 0, 64>], num_outputs = 1 : i64} {
  %x = lazy.load %in0 as <[(4, 128):(128, 1)]> : !lazy.buffer<512xf32> -> tensor<4x128xf32>
  %a = lazy.reduce_sum %x axes [1] : tensor<4x128xf32> -> tensor<4x1xf32>
  %av = lazy.view %a as <[(4, 128):(1, 0) mask [(0, 4), (0, 112)]]> : tensor<4x1xf32> -> tensor<4x128xf32>
  %p = lazy.mul %x, %av : tensor<4x128xf32>
  %b = lazy.reduce_sum %p axes [1] : tensor<4x128xf32> -> tensor<4x1xf32>
  %bv = lazy.view %b as <[(4, 128):(1, 0)]> : tensor<4x1xf32> -> tensor<4x128xf32>
  %o = lazy.mul %x, %bv : tensor<4x128xf32>
  lazy.store %o, %out0 as <[(4, 128):(128, 1)]> : tensor<4x128xf32>, !lazy.buffer<512xf32>
}
