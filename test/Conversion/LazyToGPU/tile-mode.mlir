// RUN: lazy-opt %s --split-input-file --lazy-schedule --lazy-optimize-kernels="target=gpu gpu-min-tiles=1 shared-memory=false" --convert-lazy-to-gpu | FileCheck %s
// convert-lazy-to-gpu's tile mode: a kernel with a plan gives each thread
// register tiles (grid-stride over them), computed as the CPU computes
// one; vector loads and stores state 16-byte alignment only where the
// host code's buffers and the view's index make it hold. (shared-memory
// =false: the matmul keeps G2's register tile; shared-tiles.mlir has G4.)

// A 64x64x64 matmul with a 4x4 tile (4 rows by one vector of 4 columns),
// its reduce unrolled by 4 in index order: 256 tiles, one block of 256
// threads. Every argument's base is 16-byte aligned (llvm.align: LLVM may
// merge a row's four A loads). Per reduced element one aligned vector
// load of B's row and one scalar load of A per tile row, four vector
// accumulators, then four aligned vector stores.
// CHECK-LABEL: gpu.func @mm_k0(
// CHECK-SAME: %[[OUT:[^:]+]]: memref<4096xf32> {llvm.align = 16 : i64}, %[[A:[^:]+]]: memref<4096xf32> {llvm.align = 16 : i64}, %[[B:[^:]+]]: memref<4096xf32> {llvm.align = 16 : i64}) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK: %[[TILES:.+]] = arith.constant 256 : index
// CHECK: scf.for %[[T:.+]] = %{{.+}} to %[[TILES]] step %{{.+}} {
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args({{.+}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// CHECK: memref.load %[[A]]
// CHECK: vector.load %[[B]][%{{.+}}] {alignment = 16 : i64} : memref<4096xf32>, vector<4xf32>
// CHECK-COUNT-3: memref.load %[[A]]
// CHECK: memref.load %[[A]]
// CHECK: vector.load %[[B]][%{{.+}}] {alignment = 16 : i64} : memref<4096xf32>, vector<4xf32>
// CHECK-COUNT-3: memref.load %[[A]]
// CHECK: memref.load %[[A]]
// CHECK: vector.load %[[B]][%{{.+}}] {alignment = 16 : i64} : memref<4096xf32>, vector<4xf32>
// CHECK-COUNT-3: memref.load %[[A]]
// CHECK: memref.load %[[A]]
// CHECK: vector.load %[[B]][%{{.+}}] {alignment = 16 : i64} : memref<4096xf32>, vector<4xf32>
// CHECK-COUNT-3: memref.load %[[A]]
// CHECK-NOT: vector.load
// CHECK: scf.yield
// CHECK-COUNT-4: vector.store %{{.+}}, %[[OUT]][%{{.+}}] {alignment = 16 : i64} : memref<4096xf32>, vector<4xf32>
// CHECK: gpu.return
// CHECK-LABEL: func.func @mm(
// CHECK: gpu.launch_func @lazy_kernels::@mm_k0 blocks in (%[[ONE:.+]], %{{.+}}, %{{.+}}) threads in (%[[C256:.+]], %{{.+}}, %{{.+}})
func.func @mm(%a: tensor<64x1x64xf32>, %b: tensor<1x64x64xf32>) -> tensor<64x64x1xf32> {
  %av = lazy.view %a as <[(64, 64, 64):(64, 0, 1)]> : tensor<64x1x64xf32> -> tensor<64x64x64xf32>
  %bv = lazy.view %b as <[(64, 64, 64):(0, 1, 64)]> : tensor<1x64x64xf32> -> tensor<64x64x64xf32>
  %m = lazy.mul %av, %bv : tensor<64x64x64xf32>
  %s = lazy.reduce_sum %m axes [2] : tensor<64x64x64xf32> -> tensor<64x64x1xf32>
  return %s : tensor<64x64x1xf32>
}

// -----

// A view at element offset 1: its vector load may start anywhere, so it
// states no alignment (the GPU then splits it); the output's store does.
// CHECK-LABEL: gpu.func @shifted_k0(
// CHECK-SAME: %[[OUT:[^:]+]]: memref<64xf32> {llvm.align = 16 : i64}, %[[X:[^:]+]]: memref<68xf32> {llvm.align = 16 : i64})
// CHECK: %[[V:.+]] = vector.load %[[X]][%{{.+}}] : memref<68xf32>, vector<4xf32>
// CHECK: vector.store %{{.+}}, %[[OUT]][%{{.+}}] {alignment = 16 : i64} : memref<64xf32>, vector<4xf32>
func.func @shifted(%x: tensor<68xf32>) -> tensor<64xf32> {
  %v = lazy.view %x as <[(64):(1) offset 1]> : tensor<68xf32> -> tensor<64xf32>
  %s = lazy.add %v, %v : tensor<64xf32>
  return %s : tensor<64xf32>
}

// -----

// A kernel launched twice: its output once at byte 64 of an allocation,
// once at byte 4. Every launch must give the alignment: the input (a
// function argument, then the 64-byte sub-buffer) is aligned, the output
// is not.
// CHECK-LABEL: gpu.func @twice(
// CHECK-SAME: %[[OUT:[^:]+]]: memref<16xf32>, %[[IN:[^:]+]]: memref<16xf32> {llvm.align = 16 : i64})
// CHECK: vector.load %[[IN]][%{{.+}}] {alignment = 16 : i64} : memref<16xf32>, vector<4xf32>
// CHECK: vector.store %{{.+}}, %[[OUT]][%{{.+}}] : memref<16xf32>, vector<4xf32>
lazy.kernel @twice(%out0: !lazy.buffer<16xf32>, %in0: !lazy.buffer<16xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 0, 4>, #lazy.opt<lanes, 0, 4>]} {
  %0 = lazy.load %in0 as <[(16):(1)]> : !lazy.buffer<16xf32> -> tensor<16xf32>
  %1 = lazy.add %0, %0 : tensor<16xf32>
  lazy.store %1, %out0 as <[(16):(1)]> : tensor<16xf32>, !lazy.buffer<16xf32>
}
func.func @sub(%arg0: !lazy.buffer<16xf32> {lazy.buffer = 0 : i64}) -> !lazy.buffer<40xf32> {
  %0 = lazy.alloc : !lazy.buffer<40xf32>
  %1 = lazy.suballoc %0 offset 64 : !lazy.buffer<40xf32> -> !lazy.buffer<16xf32>
  %2 = lazy.launch @twice outs(%1 : !lazy.buffer<16xf32>) ins(%arg0 : !lazy.buffer<16xf32>)
  %3 = lazy.suballoc %0 offset 4 : !lazy.buffer<40xf32> -> !lazy.buffer<16xf32>
  %4 = lazy.launch @twice outs(%3 : !lazy.buffer<16xf32>) ins(%2 : !lazy.buffer<16xf32>)
  return %0 : !lazy.buffer<40xf32>
}
