// RUN: lazy-opt %s --lazy-schedule --convert-lazy-to-loops | FileCheck %s --check-prefix=HEAP
// RUN: lazy-opt %s --lazy-schedule --convert-lazy-to-loops=static-buffers=true | FileCheck %s --check-prefix=STATIC
// Buffers of a scheduled program: heap allocations freed before the return
// unless a result lives in them, or with static-buffers private globals,
// allocated once per loaded program, never freed.

// HEAP-NOT: memref.global
// HEAP-LABEL: func.func @step(
// HEAP: %[[SUM:.+]] = memref.alloc() : memref<16xi8>
// HEAP: %[[OUT:.+]] = memref.alloc() : memref<64xi8>
// HEAP: memref.dealloc %[[SUM]] : memref<16xi8>
// HEAP-NOT: memref.dealloc
// HEAP: return

// STATIC-LABEL: func.func @step(
// STATIC-NOT: memref.alloc
// STATIC: memref.get_global @[[SUMG:__lazy_buffer]] : memref<16xi8>
// STATIC: memref.get_global @[[OUTG:__lazy_buffer_[0-9]+]] : memref<64xi8>
// STATIC-NOT: memref.dealloc
// STATIC: return
// STATIC-DAG: memref.global "private" @[[SUMG]] : memref<16xi8> = uninitialized {alignment = 64 : i64}
// STATIC-DAG: memref.global "private" @[[OUTG]] : memref<64xi8> = uninitialized {alignment = 64 : i64}
func.func @step(%x: tensor<4x4xf32> {lazy.buffer = 0 : i64}) -> tensor<4x4xf32> {
  %s = lazy.reduce_sum %x axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  %c = lazy.contiguous %s : tensor<4x1xf32>
  %e = lazy.expand %c : tensor<4x1xf32> -> tensor<4x4xf32>
  %d = lazy.add %x, %e : tensor<4x4xf32>
  return %d : tensor<4x4xf32>
}
