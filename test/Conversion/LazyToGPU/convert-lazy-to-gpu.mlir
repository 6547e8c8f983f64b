// RUN: lazy-opt %s --convert-lazy-to-gpu="unroll=1 reduce-unroll=1" --split-input-file --verify-diagnostics | FileCheck %s
// RUN: lazy-opt %s --convert-lazy-to-gpu --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=UNROLL
// One case per rule of convert-lazy-to-gpu. The plain loops are checked
// with unroll=1 reduce-unroll=1; the defaults (4 elements per trip in
// thread mode, 8 per trip in block mode) under UNROLL. Block mode comes
// from the kernels' `block` steps only (lazy-optimize-kernels target=gpu
// writes them, rule B; optimize-kernels-gpu.mlir): a kernel without one
// runs in thread mode whatever its reduces.

// Thread mode: a grid-stride loop over the output, one element per thread
// at a time; blocks are the output rounded up to 32 threads.
// CHECK-LABEL: gpu.module @lazy_kernels
// CHECK: gpu.func @add(%[[OUT:.+]]: memref<100xf32>, %[[A:.+]]: memref<100xf32>, %[[B:.+]]: memref<100xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// CHECK-DAG: %[[TID:.+]] = gpu.thread_id x
// CHECK-DAG: %[[BID:.+]] = gpu.block_id x
// CHECK-DAG: %[[BDIM:.+]] = gpu.block_dim x
// CHECK-DAG: %[[GDIM:.+]] = gpu.grid_dim x
// CHECK-DAG: %[[N:.+]] = arith.constant 100 : index
// CHECK: %[[BASE:.+]] = arith.muli %[[BID]], %[[BDIM]]
// CHECK: %[[START:.+]] = arith.addi %[[BASE]], %[[TID]]
// CHECK: %[[STEP:.+]] = arith.muli %[[GDIM]], %[[BDIM]]
// CHECK: scf.for %[[I:.+]] = %[[START]] to %[[N]] step %[[STEP]] {
// CHECK: memref.load %[[A]]
// CHECK: memref.load %[[B]]
// CHECK: arith.addf
// CHECK: memref.store
// CHECK-NOT: gpu.all_reduce
// CHECK: gpu.return
// Unrolled: a trip loads four elements (two inputs each) before storing
// any, then the elements left over one at a time.
// UNROLL-LABEL: gpu.func @add(
// UNROLL: scf.for
// UNROLL-COUNT-8: memref.load
// UNROLL-COUNT-4: memref.store
// UNROLL: scf.for
// UNROLL-COUNT-2: memref.load
// UNROLL: memref.store
// UNROLL-NOT: memref.store
// UNROLL: gpu.return
lazy.kernel @add(%out0: !lazy.buffer<100xf32>, %in0: !lazy.buffer<100xf32>, %in1: !lazy.buffer<100xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(100):(1)]> : !lazy.buffer<100xf32> -> tensor<100xf32>
  %1 = lazy.load %in1 as <[(100):(1)]> : !lazy.buffer<100xf32> -> tensor<100xf32>
  %2 = lazy.add %0, %1 : tensor<100xf32>
  lazy.store %2, %out0 as <[(100):(1)]> : tensor<100xf32>, !lazy.buffer<100xf32>
}

// -----

// Block mode (the plan's block step: 64 threads): one output element per
// block at a time; each thread sums a strided share of the 1024 reduced
// elements, a half is combined in f32 by gpu.all_reduce, and thread 0
// stores.
// CHECK-LABEL: gpu.func @long_sum(
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>
// CHECK-DAG: %[[TID:.+]] = gpu.thread_id x
// CHECK-DAG: %[[BID:.+]] = gpu.block_id x
// CHECK-DAG: %[[BDIM:.+]] = gpu.block_dim x
// CHECK-DAG: %[[GDIM:.+]] = gpu.grid_dim x
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[TID]], %{{.+}} : index
// CHECK: scf.for %[[O:.+]] = %[[BID]] to %{{.+}} step %[[GDIM]] {
// CHECK: %[[PART:.+]] = scf.for %{{.+}} = %[[TID]] to %{{.+}} step %[[BDIM]] iter_args(%[[ACC:.+]] = %{{.+}}) -> (f16)
// CHECK: arith.addf %[[ACC]], %{{.+}} : f16
// CHECK: %[[WIDE:.+]] = arith.extf %[[PART]] : f16 to f32
// CHECK: %[[ALL:.+]] = gpu.all_reduce add %[[WIDE]] uniform
// CHECK: %[[SUM:.+]] = arith.truncf %[[ALL]] : f32 to f16
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: memref.store %[[SUM]]
// With the defaults the reduced axis is read
// contiguously, so a thread loads runs of 8 halves (one 128-bit load; no
// launch here tells its alignment) and adds them in index order; runs
// tid, tid + 64, ...
// UNROLL-LABEL: gpu.func @long_sum(
// UNROLL-SAME: known_block_size = array<i32: 64, 1, 1>
// UNROLL: %[[MAIN:.+]] = scf.for {{.+}} iter_args(%[[ACC:.+]] = %{{.+}}) -> (f16) {
// UNROLL: %[[V:.+]] = vector.load %{{.+}} : memref<4096xf16>, vector<8xf16>
// UNROLL: %[[X0:.+]] = vector.extract %[[V]][0] : f16 from vector<8xf16>
// UNROLL: %[[S1:.+]] = arith.addf %[[ACC]], %[[X0]] : f16
// UNROLL-COUNT-7: arith.addf
// UNROLL-NEXT: scf.yield
// UNROLL: gpu.all_reduce add
lazy.kernel @long_sum(%out0: !lazy.buffer<4xf16>, %in0: !lazy.buffer<4096xf16>) attributes {opts = [#lazy.opt<block, 0, 64>], num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(4, 1024):(1024, 1)]> : !lazy.buffer<4096xf16> -> tensor<4x1024xf16>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<4x1024xf16> -> tensor<4x1xf16>
  lazy.store %1, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf16>, !lazy.buffer<4xf16>
}

// -----

// Without a block step a reduce stays sequential inside thread mode.
// CHECK-LABEL: gpu.func @short_max(
// CHECK-SAME: known_block_size = array<i32: 32, 1, 1>
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK: arith.cmpi sgt
// CHECK-NOT: gpu.all_reduce
// CHECK: gpu.return
lazy.kernel @short_max(%out0: !lazy.buffer<3xsi8>, %in0: !lazy.buffer<24xsi8>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(3, 8):(8, 1)]> : !lazy.buffer<24xsi8> -> tensor<3x8xsi8>
  %1 = lazy.reduce_max %0 axes [1] : tensor<3x8xsi8> -> tensor<3x1xsi8>
  lazy.store %1, %out0 as <[(3, 1):(1, 0)]> : tensor<3x1xsi8>, !lazy.buffer<3xsi8>
}

// -----

// The same reduce with a block step of 32 threads: an i8 max combined in
// 32 bits.
// CHECK-LABEL: gpu.func @short_max_block(
// CHECK-SAME: known_block_size = array<i32: 32, 1, 1>
// CHECK: %[[PART:.+]] = scf.for
// CHECK: %[[WIDE:.+]] = arith.extsi %[[PART]] : i8 to i32
// CHECK: %[[ALL:.+]] = gpu.all_reduce maxsi %[[WIDE]] uniform
// CHECK: arith.trunci %[[ALL]] : i32 to i8
lazy.kernel @short_max_block(%out0: !lazy.buffer<3xsi8>, %in0: !lazy.buffer<24xsi8>) attributes {opts = [#lazy.opt<block, 0, 32>], num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(3, 8):(8, 1)]> : !lazy.buffer<24xsi8> -> tensor<3x8xsi8>
  %1 = lazy.reduce_max %0 axes [1] : tensor<3x8xsi8> -> tensor<3x1xsi8>
  lazy.store %1, %out0 as <[(3, 1):(1, 0)]> : tensor<3x1xsi8>, !lazy.buffer<3xsi8>
}

// -----

// Bool sums and maxes are both "any": or over 32-bit lanes; unsigned max is
// maxui after a zero extension.
// CHECK-LABEL: gpu.func @bool_and_unsigned(
// CHECK: %[[B:.+]] = arith.extui %{{.+}} : i1 to i32
// CHECK: gpu.all_reduce or %[[B]] uniform
// CHECK: %[[U:.+]] = arith.extui %{{.+}} : i16 to i32
// CHECK: gpu.all_reduce maxui %[[U]] uniform
lazy.kernel @bool_and_unsigned(%out0: !lazy.buffer<2xi1>, %out1: !lazy.buffer<2xui16>, %in0: !lazy.buffer<32xi1>, %in1: !lazy.buffer<32xui16>) attributes {opts = [#lazy.opt<block, 0, 32>], num_outputs = 2 : i64} {
  %0 = lazy.load %in0 as <[(2, 16):(16, 1)]> : !lazy.buffer<32xi1> -> tensor<2x16xi1>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<2x16xi1> -> tensor<2x1xi1>
  %2 = lazy.load %in1 as <[(2, 16):(16, 1)]> : !lazy.buffer<32xui16> -> tensor<2x16xui16>
  %3 = lazy.reduce_max %2 axes [1] : tensor<2x16xui16> -> tensor<2x1xui16>
  lazy.store %1, %out0 as <[(2, 1):(1, 0)]> : tensor<2x1xi1>, !lazy.buffer<2xi1>
  lazy.store %3, %out1 as <[(2, 1):(1, 0)]> : tensor<2x1xui16>, !lazy.buffer<2xui16>
}

// -----

// A kernel mixing a block-mode loop (its block step: 64 threads) and a
// thread-mode loop of 70 elements (96 threads) gets a power-of-two
// block: the cross-warp step of the all_reduce lowering needs one on ROCDL.
// CHECK-LABEL: gpu.func @mixed(
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK: gpu.all_reduce add
lazy.kernel @mixed(%out0: !lazy.buffer<2xf32>, %out1: !lazy.buffer<70xf32>, %in0: !lazy.buffer<128xf32>, %in1: !lazy.buffer<70xf32>) attributes {opts = [#lazy.opt<block, 0, 64>], num_outputs = 2 : i64} {
  %0 = lazy.load %in0 as <[(2, 64):(64, 1)]> : !lazy.buffer<128xf32> -> tensor<2x64xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<2x64xf32> -> tensor<2x1xf32>
  lazy.store %1, %out0 as <[(2, 1):(1, 0)]> : tensor<2x1xf32>, !lazy.buffer<2xf32>
  %2 = lazy.load %in1 as <[(70):(1)]> : !lazy.buffer<70xf32> -> tensor<70xf32>
  lazy.store %2, %out1 as <[(70):(1)]> : tensor<70xf32>, !lazy.buffer<70xf32>
}

// -----

// Stores of one shape share one loop and read a common input once. A
// float32 square root calls the llvm.sqrt intrinsic (correctly rounded).
// CHECK-LABEL: gpu.func @two_outputs(
// CHECK: scf.for
// CHECK-COUNT-1: memref.load
// CHECK-NOT: scf.for
// CHECK: llvm.call_intrinsic "llvm.sqrt.f32"
// CHECK-NOT: math.sqrt
// CHECK: memref.store
// CHECK: memref.store
// CHECK: gpu.return
lazy.kernel @two_outputs(%out0: !lazy.buffer<64xf32>, %out1: !lazy.buffer<64xf32>, %in0: !lazy.buffer<64xf32>) attributes {num_outputs = 2 : i64} {
  %0 = lazy.load %in0 as <[(64):(1)]> : !lazy.buffer<64xf32> -> tensor<64xf32>
  %1 = lazy.exp2 %0 : tensor<64xf32>
  %2 = lazy.sqrt %0 : tensor<64xf32>
  lazy.store %1, %out0 as <[(64):(1)]> : tensor<64xf32>, !lazy.buffer<64xf32>
  lazy.store %2, %out1 as <[(64):(1)]> : tensor<64xf32>, !lazy.buffer<64xf32>
}

// -----

// Host code: buffers are bytes viewed as their dtype, so a buffer view at
// an offset or of another dtype is a view of the same memory; a launch uses
// the kernel's geometry; copies and EMPTY are gpu.memcpy and gpu.memset.
// CHECK-LABEL: func.func @program(
// CHECK-SAME: %[[ARG:.+]]: memref<400xi8>) -> (memref<100xf32>, memref<25xi32>, memref<100xf32>)
// CHECK: %[[A:.+]] = memref.view %[[ARG]][%{{.+}}][] : memref<400xi8> to memref<100xf32>
// CHECK: %[[RAW:.+]] = gpu.alloc () : memref<400xi8>
// CHECK: %[[C0:.+]] = arith.constant 0 : index
// CHECK: %[[OUT:.+]] = memref.view %[[RAW]][%[[C0]]][] : memref<400xi8> to memref<100xf32>
// CHECK: %[[BLOCK:.+]] = arith.constant 128 : index
// CHECK: %[[GRID:.+]] = arith.constant 1 : index
// CHECK: gpu.launch_func @lazy_kernels::@scale blocks in (%[[GRID]], %{{.+}}, %{{.+}}) threads in (%[[BLOCK]], %{{.+}}, %{{.+}}) args(%[[OUT]] : memref<100xf32>, %[[A]] : memref<100xf32>)
// CHECK: %[[C300:.+]] = arith.constant 300 : index
// CHECK: %[[INTS:.+]] = memref.view %[[RAW]][%[[C300]]][] : memref<400xi8> to memref<25xi32>
// CHECK: %[[COPY:.+]] = memref.view %{{.+}}[%{{.+}}][] : memref<400xi8> to memref<100xf32>
// CHECK: gpu.memcpy %[[COPY]], %[[OUT]] : memref<100xf32>, memref<100xf32>
// CHECK: %[[EMPTY:.+]] = memref.view
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: gpu.memset %[[EMPTY]], %[[ZERO]] : memref<100xf32>, f32
// CHECK: return %[[OUT]], %[[INTS]], %[[COPY]]
lazy.kernel @scale(%out0: !lazy.buffer<100xf32>, %in0: !lazy.buffer<100xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(100):(1)]> : !lazy.buffer<100xf32> -> tensor<100xf32>
  %1 = lazy.add %0, %0 : tensor<100xf32>
  lazy.store %1, %out0 as <[(100):(1)]> : tensor<100xf32>, !lazy.buffer<100xf32>
}
func.func @program(%a: !lazy.buffer<100xf32>) -> (!lazy.buffer<100xf32>, !lazy.buffer<25xsi32>, !lazy.buffer<100xf32>) {
  %b = lazy.alloc : !lazy.buffer<100xf32>
  %r = lazy.launch @scale outs(%b : !lazy.buffer<100xf32>) ins(%a : !lazy.buffer<100xf32>)
  %v = lazy.suballoc %r offset 300 : !lazy.buffer<100xf32> -> !lazy.buffer<25xsi32>
  %w = lazy.ext "view" outs(%v : !lazy.buffer<25xsi32>) ins(%r : !lazy.buffer<100xf32>)
  %c = lazy.alloc : !lazy.buffer<100xf32>
  %d = lazy.ext "copy" outs(%c : !lazy.buffer<100xf32>) ins(%r : !lazy.buffer<100xf32>)
  %e = lazy.alloc : !lazy.buffer<100xf32>
  %f = lazy.ext "empty" outs(%e : !lazy.buffer<100xf32>)
  return %r, %w, %d : !lazy.buffer<100xf32>, !lazy.buffer<25xsi32>, !lazy.buffer<100xf32>
}

// -----

// A kernel reading a buffer's bytes as another dtype (a USE_COPY_KERNEL
// byte copy) gets its own view of the same bytes.
// CHECK-LABEL: func.func @byte_copy(
// CHECK-SAME: %[[ARG:.+]]: memref<16xi8>)
// CHECK: %[[IN:.+]] = memref.view %[[ARG]][%{{.+}}][] : memref<16xi8> to memref<4xf32>
// CHECK: %[[RAW:.+]] = gpu.alloc () : memref<16xi8>
// CHECK: %[[OUT:.+]] = memref.view %[[RAW]][%{{.+}}][] : memref<16xi8> to memref<4xf32>
// CHECK: %[[OUTB:.+]] = memref.view %[[RAW]][%{{.+}}][] : memref<16xi8> to memref<16xi8>
// CHECK: %[[INB:.+]] = memref.view %[[ARG]][%{{.+}}][] : memref<16xi8> to memref<16xi8>
// CHECK: gpu.launch_func @lazy_kernels::@copy_bytes {{.*}} args(%[[OUTB]] : memref<16xi8>, %[[INB]] : memref<16xi8>)
// CHECK: return %[[OUT]]
lazy.kernel @copy_bytes(%out0: !lazy.buffer<16xui8>, %in0: !lazy.buffer<16xui8>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(16):(1)]> : !lazy.buffer<16xui8> -> tensor<16xui8>
  lazy.store %0, %out0 as <[(16):(1)]> : tensor<16xui8>, !lazy.buffer<16xui8>
}
func.func @byte_copy(%a: !lazy.buffer<4xf32>) -> !lazy.buffer<4xf32> {
  %b = lazy.alloc : !lazy.buffer<4xf32>
  %r = lazy.launch @copy_bytes outs(%b : !lazy.buffer<4xf32>) ins(%a : !lazy.buffer<4xf32>)
  return %r : !lazy.buffer<4xf32>
}

// -----

// custom_random runs on the host, as in tinygrad: a host buffer filled by
// the runtime's lazy_rt_custom_random, copied to the device, freed.
// CHECK-LABEL: func.func @custom_random(
// CHECK: %[[DEV:.+]] = gpu.alloc () : memref<16xi8>
// CHECK: %[[VIEW:.+]] = memref.view %[[DEV]]
// CHECK: %[[HOST:.+]] = memref.alloc() : memref<4xf32>
// CHECK: memref.extract_aligned_pointer_as_index %[[HOST]]
// CHECK: call @lazy_rt_custom_random
// CHECK: gpu.memcpy %[[VIEW]], %[[HOST]]
// CHECK: memref.dealloc %[[HOST]]
func.func @custom_random() -> !lazy.buffer<4xf32> {
  %b = lazy.alloc : !lazy.buffer<4xf32>
  %r = lazy.ext "custom" outs(%b : !lazy.buffer<4xf32>) {arg = "custom_random", seed = 3 : i64}
  return %r : !lazy.buffer<4xf32>
}

// -----

func.func @custom_item() -> !lazy.buffer<4xf32> {
  %b = lazy.alloc : !lazy.buffer<4xf32>
  // expected-error @+1 {{'lazy.ext' op calls a host function, which has no GPU lowering}}
  %r = lazy.ext "custom" outs(%b : !lazy.buffer<4xf32>) {arg = "fill"}
  return %r : !lazy.buffer<4xf32>
}

// -----

// A copy between buffers of different dtypes has no lowering.
func.func @copy_types(%a: !lazy.buffer<4xf32>) -> !lazy.buffer<4xsi32> {
  %b = lazy.alloc : !lazy.buffer<4xsi32>
  // expected-error @+1 {{'lazy.ext' op copies between buffers of different types, which the GPU lowering does not support}}
  %r = lazy.ext "copy" outs(%b : !lazy.buffer<4xsi32>) ins(%a : !lazy.buffer<4xf32>)
  return %r : !lazy.buffer<4xsi32>
}

// -----

// A buffer made by an op the lowering does not handle is an error, not a
// crash.
func.func @unknown_buffer(%x: i64) -> !lazy.buffer<4xf32> {
  %b = builtin.unrealized_conversion_cast %x : i64 to !lazy.buffer<4xf32>
  %c = lazy.alloc : !lazy.buffer<4xf32>
  // expected-error @+1 {{'lazy.ext' op uses a buffer the GPU lowering does not know (defined by an unsupported op)}}
  %r = lazy.ext "copy" outs(%c : !lazy.buffer<4xf32>) ins(%b : !lazy.buffer<4xf32>)
  return %r : !lazy.buffer<4xf32>
}

// -----

// RUN: not lazy-opt %s --convert-lazy-to-gpu="block-size=100" 2>&1 | FileCheck %s --check-prefix=BADSIZE
// BADSIZE: error: convert-lazy-to-gpu: block-size must be a power of two from 32 to 1024, not 100
// RUN: not lazy-opt %s --convert-lazy-to-gpu="block-size=192" 2>&1 | FileCheck %s --check-prefix=BADSIZE2
// BADSIZE2: error: convert-lazy-to-gpu: block-size must be a power of two from 32 to 1024, not 192
// RUN: not lazy-opt %s --convert-lazy-to-gpu="max-grid=0" 2>&1 | FileCheck %s --check-prefix=BADGRID
// BADGRID: error: convert-lazy-to-gpu: max-grid must be from 1 to 2147483647, not 0
// RUN: not lazy-opt %s --convert-lazy-to-gpu="unroll=0" 2>&1 | FileCheck %s --check-prefix=BADUNROLL
// BADUNROLL: error: convert-lazy-to-gpu: unroll must be from 1 to 16, not 0
// RUN: not lazy-opt %s --convert-lazy-to-gpu="reduce-unroll=17" 2>&1 | FileCheck %s --check-prefix=BADRUNROLL
// BADRUNROLL: error: convert-lazy-to-gpu: reduce-unroll must be from 1 to 16, not 17
// RUN: not lazy-opt %s --convert-lazy-to-gpu="index-bits=16" 2>&1 | FileCheck %s --check-prefix=BADBITS
// BADBITS: error: convert-lazy-to-gpu: index-bits must be 0, 32 or 64, not 16

// -----

// A row kernel (a softmax: its max and sum read back through expands): a
// block per row, the row's max, then its sum (reading the max), then its
// elements split across the block's threads. Without a block step every
// thread computes the max and the sum alone, in index order (no
// all_reduce); with one (row_softmax_block) they are block reductions.
// CHECK-LABEL: gpu.func @row_softmax(
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[BID:.+]] = gpu.block_id x
// CHECK: scf.for %{{.+}} = %[[BID]] to %c4 step %grid_dim_x
// CHECK: %[[MAX:.+]] = scf.for {{.*}} -> (f32)
// CHECK: arith.cmpf ogt
// CHECK: %[[SUM:.+]] = scf.for {{.*}} -> (f32)
// CHECK: arith.negf %[[MAX]]
// CHECK: math.exp2
// CHECK-NOT: gpu.all_reduce
// CHECK: scf.for %{{.+}} = %[[TID]] to %c8 step %block_dim_x
// CHECK: arith.divf %{{.+}}, %[[SUM]]
// CHECK: memref.store
lazy.kernel @row_softmax(%out0: !lazy.buffer<32xf32>, %in0: !lazy.buffer<32xf32>) attributes {opts = [#lazy.opt<row, 0, 1>], num_outputs = 1 : i64} {
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

// The row kernel with a block step of 32 threads: its max and sum are
// block reductions.
// CHECK-LABEL: gpu.func @row_softmax_block(
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[BID:.+]] = gpu.block_id x
// CHECK: scf.for %{{.+}} = %[[BID]] to %c4 step %grid_dim_x
// The block's max is IEEE maximum across the threads, rerun in index order
// (acc > x ? acc : x) where it is a NaN or a zero:
// CHECK: %[[FAST:.+]] = gpu.all_reduce maximumf
// CHECK: %[[NAN:.+]] = arith.cmpf uno, %[[FAST]], %[[FAST]] : f32
// CHECK: %[[ZERO:.+]] = arith.cmpf oeq, %[[FAST]], %{{.+}} : f32
// CHECK: %[[SPECIAL:.+]] = arith.ori %[[NAN]], %[[ZERO]] : i1
// CHECK: %[[MAX:.+]] = scf.if %[[SPECIAL]] -> (f32) {
// CHECK: scf.for {{.*}} -> (f32)
// CHECK: arith.cmpf ogt
// CHECK: } else {
// CHECK: scf.yield %[[FAST]] : f32
// CHECK: arith.negf %[[MAX]]
// CHECK: %[[SUM:.+]] = gpu.all_reduce add
// CHECK: scf.for %{{.+}} = %[[TID]] to %c8 step %block_dim_x
// CHECK: arith.divf %{{.+}}, %[[SUM]]
// CHECK: memref.store
lazy.kernel @row_softmax_block(%out0: !lazy.buffer<32xf32>, %in0: !lazy.buffer<32xf32>) attributes {opts = [#lazy.opt<row, 0, 1>, #lazy.opt<block, 0, 32>], num_outputs = 1 : i64} {
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
